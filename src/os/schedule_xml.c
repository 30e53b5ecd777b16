/* See schedule_xml.h.  The settings a week-long capture wants: run as
 * LocalSystem (S-1-5-18) with the highest privileges, at boot, with no
 * time limit (PT0S), started late when the machine was off, restarted on
 * failure, never two at once, on battery too; and `etwcap abort` before
 * the capture, so sessions a killed run left do not make it fail.  Element
 * names and order follow the schema reference (taskType, settingsType,
 * principalType, execType). */
#include "src/os/schedule_xml.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/strbuf.h"
#include "src/base/utf8.h"

#include <stdint.h>
#include <string.h>

/* Text for XML character data: & < > escaped (quotes need none there). */
static void xml_text(struct strbuf *b, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '&':
      strbuf_puts(b, "&amp;");
      break;
    case '<':
      strbuf_puts(b, "&lt;");
      break;
    case '>':
      strbuf_puts(b, "&gt;");
      break;
    default:
      strbuf_printf(b, "%c", *s);
    }
  }
}

int schedule_xml_text_ok(const char *s)
{
  const uint8_t *p = (const uint8_t *)s;
  size_t left = strlen(s), n;
  for (; left; p += n, left -= n) {
    if (!(n = utf8_sequence_length(p, left)))
      return 0;
    /* XML 1.0's Char (section 2.2) holds no C0 control but tab, CR and LF,
     * nor U+FFFE and U+FFFF; a parser would turn CR into LF, and no
     * argument of a capture needs a line break, so those go too. */
    if ((n == 1 && *p < 0x20 && *p != '\t') ||
        (n == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE))
      return 0;
  }
  return 1;
}

void schedule_append_arg(struct strbuf *b, const char *arg)
{
  size_t slashes = 0;
  if (*arg && !strpbrk(arg, " \t\"")) {
    strbuf_puts(b, arg);
    return;
  }
  strbuf_puts(b, "\"");
  for (; *arg; arg++) {
    if (*arg == '\\') {
      slashes++;
      continue;
    }
    /* Backslashes before a quote are doubled, and the quote escaped. */
    while (slashes) {
      strbuf_puts(b, *arg == '"' ? "\\\\" : "\\");
      slashes--;
    }
    strbuf_puts(b, *arg == '"' ? "\\\"" : (char[]){ *arg, 0 });
  }
  /* ... and so are those before the closing quote. */
  while (slashes--)
    strbuf_puts(b, "\\\\");
  strbuf_puts(b, "\"");
}

static void exec_action(struct strbuf *b, const char *exe, const char *work_dir,
                        char *const *args, size_t count)
{
  struct strbuf line = { NULL, 0, 0, 0 };
  char *text = NULL;
  size_t i;
  for (i = 0; i < count; i++) {
    if (i)
      strbuf_puts(&line, " ");
    schedule_append_arg(&line, args[i]);
  }
  if (strbuf_finish(&line, &text) != 0) {
    b->failed = 1;
    return;
  }
  strbuf_puts(b, "    <Exec>\n      <Command>");
  xml_text(b, exe);
  strbuf_puts(b, "</Command>\n      <Arguments>");
  xml_text(b, text);
  strbuf_puts(b, "</Arguments>\n");
  if (work_dir) {
    strbuf_puts(b, "      <WorkingDirectory>");
    xml_text(b, work_dir);
    strbuf_puts(b, "</WorkingDirectory>\n");
  }
  strbuf_puts(b, "    </Exec>\n");
  etwcap_free(text);
}

int schedule_task_xml(const struct schedule_task *t, char **xml)
{
  struct strbuf b = { NULL, 0, 0, 0 };
  strbuf_printf(&b, "<?xml version=\"1.0\" encoding=\"%s\"?>\n", t->encoding);
  strbuf_puts(&b, "<Task version=\"1.2\" "
                  "xmlns=\"http://schemas.microsoft.com/windows/2004/02/mit/task\">\n");
  strbuf_puts(&b, "  <RegistrationInfo>\n    <Description>etwcap: ");
  xml_text(&b, t->name);
  strbuf_puts(&b, " (etwcap abort, then the capture; etwcap schedule create)</Description>\n"
                  "    <URI>\\etwcap\\");
  xml_text(&b, t->name);
  strbuf_puts(&b, "</URI>\n  </RegistrationInfo>\n");
  strbuf_puts(&b, "  <Triggers>\n    <BootTrigger>\n      <Enabled>true</Enabled>\n"
                  "    </BootTrigger>\n  </Triggers>\n");
  strbuf_puts(&b, "  <Principals>\n    <Principal id=\"Author\">\n"
                  "      <UserId>S-1-5-18</UserId>\n"
                  "      <RunLevel>HighestAvailable</RunLevel>\n"
                  "    </Principal>\n  </Principals>\n");
  strbuf_puts(&b, "  <Settings>\n"
                  "    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>\n"
                  "    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>\n"
                  "    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>\n"
                  "    <AllowHardTerminate>true</AllowHardTerminate>\n"
                  "    <StartWhenAvailable>true</StartWhenAvailable>\n"
                  "    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>\n"
                  "    <IdleSettings>\n"
                  "      <StopOnIdleEnd>false</StopOnIdleEnd>\n"
                  "      <RestartOnIdle>false</RestartOnIdle>\n"
                  "    </IdleSettings>\n"
                  "    <AllowStartOnDemand>true</AllowStartOnDemand>\n"
                  "    <Enabled>true</Enabled>\n"
                  "    <Hidden>false</Hidden>\n"
                  "    <RunOnlyIfIdle>false</RunOnlyIfIdle>\n"
                  "    <WakeToRun>false</WakeToRun>\n"
                  "    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>\n"
                  /* 5, not the default 7: a normal process with normal I/O
                   * and memory priority, so the trigger session keeps up
                   * on a busy machine, when incidents happen. */
                  "    <Priority>5</Priority>\n"
                  "    <RestartOnFailure>\n"
                  "      <Interval>PT1M</Interval>\n"
                  "      <Count>3</Count>\n"
                  "    </RestartOnFailure>\n"
                  "  </Settings>\n");
  strbuf_puts(&b, "  <Actions Context=\"Author\">\n");
  exec_action(&b, t->exe, t->work_dir, t->abort_args, t->abort_arg_count);
  exec_action(&b, t->exe, t->work_dir, t->capture_args, t->capture_arg_count);
  strbuf_puts(&b, "  </Actions>\n</Task>\n");
  return strbuf_finish(&b, xml);
}
