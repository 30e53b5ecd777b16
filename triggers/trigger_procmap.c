/* See trigger_procmap.h. */
#include "triggers/trigger_procmap.h"

#include "etw/event/builtin_events.h"
#include "src/base/log.h"
#include "src/base/strutil.h"

#include <string.h>

int trigger_procmap_add(struct trigger_procmap *m, const char *name)
{
  size_t i;
  for (i = 0; i < m->count; i++)
    if (str_caseeq(m->slots[i].name, name))
      return (int)i;
  if (m->count == TRIGGER_PROCMAP_MAX)
    return -1;
  memset(&m->slots[m->count], 0, sizeof(m->slots[0]));
  strncpy(m->slots[m->count].name, name, TRIGGER_NAME_MAX - 1);
  return (int)m->count++;
}

int trigger_procmap_pid(const struct trigger_procmap *m, int slot, uint32_t *pid)
{
  if (slot < 0 || (size_t)slot >= m->count || !m->slots[slot].mapped)
    return 0;
  *pid = m->slots[slot].pid;
  return 1;
}

int trigger_procmap_name_matches(const char *filter, const char *image)
{
  const char *base = image, *p, *dot;
  size_t n;
  for (p = image; *p; p++)
    if (*p == '\\' || *p == '/')
      base = p + 1;
  if (str_caseeq(filter, base))
    return 1;
  dot = strrchr(base, '.');
  n = dot ? (size_t)(dot - base) : strlen(base);
  return n == strlen(filter) && str_ncaseeq(filter, base, n);
}

/* The program of a command line: the first token, quoted or not. */
static void first_token(const char *cmd, char *out, size_t cap)
{
  size_t n = 0;
  while (*cmd == ' ' || *cmd == '\t')
    cmd++;
  if (*cmd == '"') {
    cmd++;
    while (*cmd && *cmd != '"' && n + 1 < cap)
      out[n++] = *cmd++;
  } else {
    while (*cmd && *cmd != ' ' && *cmd != '\t' && n + 1 < cap)
      out[n++] = *cmd++;
  }
  out[n] = '\0';
}

static void map_name(struct trigger_procmap *m, const char *image, uint32_t pid)
{
  size_t i;
  for (i = 0; i < m->count; i++)
    if (trigger_procmap_name_matches(m->slots[i].name, image)) {
      if (!m->slots[i].mapped || m->slots[i].pid != pid)
        log_info("process filter %s: process id %lu", m->slots[i].name, (unsigned long)pid);
      m->slots[i].pid = pid;
      m->slots[i].mapped = 1;
      m->slots[i].ever = 1;
    }
}

void trigger_procmap_event(struct trigger_procmap *m, const struct etw_event *ev)
{
  const struct bi_event *row;
  struct tv_value pid, name;
  size_t i;
  if (!m->count)
    return;
  if (bi_kernel_group(ev) == KERNEL_GROUP_PROCESS) {
    unsigned op = ev->opcode;
    if (op != 1 && op != 2 && op != 3)
      return;
    row = bi_lookup(BI_KERNEL, ev);
    if (!row || tf_find(&row->layout, ev->user_data, ev->user_len, ev->pointer_size, "ProcessID",
                        &pid) != 1)
      return;
    if (op == 2) {
      for (i = 0; i < m->count; i++)
        if (m->slots[i].mapped && m->slots[i].pid == (uint32_t)pid.u)
          m->slots[i].mapped = 0;
      return;
    }
    if (tf_find(&row->layout, ev->user_data, ev->user_len, ev->pointer_size, "ImageFileName",
                &name) == 1)
      map_name(m, name.text, (uint32_t)pid.u);
    return;
  }
  /* The runtime and its rundown provider both log RuntimeInformation
   * (event 187, the same layout). */
  if ((ev->has & ETW_HAS_PROVIDER) && ev->id == CLR_ID_RUNTIME_INFORMATION &&
      (ev->has & ETW_HAS_PID_TID) &&
      (guid_equal(&ev->provider, &bi_guid_clr) ||
       guid_equal(&ev->provider, &bi_guid_clr_rundown))) {
    char program[TV_TEXT_MAX];
    row = bi_lookup(BI_CLR, ev);
    if (!row || tf_find(&row->layout, ev->user_data, ev->user_len, ev->pointer_size,
                        "CommandLine", &name) != 1)
      return;
    first_token(name.text, program, sizeof(program));
    map_name(m, program, ev->pid);
  }
}
