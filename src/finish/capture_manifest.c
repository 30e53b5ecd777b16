/* Rendering the capture manifest (schema in README.md). */
#include "src/finish/capture_manifest.h"

#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/log.h"
#include "src/base/os/os_time.h"
#include "src/base/strbuf.h"
#include "src/base/zip/zip_member_text.h"
#include "src/version.h"

#include <string.h>

static void key_string(struct strbuf *b, const char *key, const char *value, int comma)
{
  strbuf_printf(b, "  \"%s\": ", key);
  if (value)
    strbuf_json_string(b, value);
  else
    strbuf_puts(b, "null");
  strbuf_puts(b, comma ? ",\n" : "\n");
}

static void key_time(struct strbuf *b, const char *key, int64_t filetime, int comma)
{
  char text[40];
  key_string(b, key, filetime ? filetime_format_iso7(filetime, text, sizeof(text)) : NULL,
             comma);
}

static void sessions(struct strbuf *b, const struct capture_manifest *m)
{
  size_t i;
  strbuf_puts(b, "  \"sessions\": [");
  for (i = 0; i < m->session_count; i++) {
    const struct manifest_session *s = &m->sessions[i];
    strbuf_puts(b, i ? ",\n    {\"file\": " : "\n    {\"file\": ");
    strbuf_json_string(b, s->file ? s->file : "");
    strbuf_puts(b, ", \"logger\": ");
    strbuf_json_string(b, s->logger ? s->logger : "");
    strbuf_printf(b,
                       ", \"bytes\": %llu, \"events\": %llu, \"eventsLost\": %lu, "
                       "\"buffersLost\": %lu}",
                       (unsigned long long)s->bytes, (unsigned long long)s->events,
                       (unsigned long)s->events_lost, (unsigned long)s->buffers_lost);
  }
  strbuf_puts(b, m->session_count ? "\n  ],\n" : "],\n");
}

static void hex_words(struct strbuf *b, const uint32_t *words, unsigned count)
{
  unsigned i;
  strbuf_puts(b, "[");
  for (i = 0; i < count; i++)
    strbuf_printf(b, "%s\"0x%08lX\"", i ? ", " : "", (unsigned long)words[i]);
  strbuf_puts(b, "]");
}

static void texts(struct strbuf *b, const char (*t)[CAPTURE_HEALTH_TEXT_MAX], size_t count)
{
  size_t i;
  strbuf_puts(b, "[");
  for (i = 0; i < count; i++) {
    if (i)
      strbuf_puts(b, ", ");
    strbuf_json_string(b, t[i]);
  }
  strbuf_puts(b, "]");
}

/* One object per live session: what its queries showed (capture_health.h). */
static void health(struct strbuf *b, const struct capture_health *h)
{
  size_t i;
  char text[40];
  if (!h) {
    strbuf_puts(b, "  \"health\": null,\n");
    return;
  }
  strbuf_puts(b, "  \"health\": [");
  for (i = 0; i < h->count; i++) {
    const struct capture_health_session *s = &h->sessions[i];
    strbuf_puts(b, i ? ",\n    {\"session\": " : "\n    {\"session\": ");
    strbuf_json_string(b, s->name);
    strbuf_printf(b, ", \"role\": \"%s\", \"asked\": ", capture_health_kind_name(s->kind));
    if (s->mask.words)
      hex_words(b, s->mask.asked, s->mask.words);
    else
      strbuf_puts(b, "null");
    strbuf_puts(b, ", \"applied\": ");
    if (s->mask.words && s->mask.applied_known)
      hex_words(b, s->mask.applied, s->mask.words);
    else
      strbuf_puts(b, "null");
    strbuf_printf(b,
                  ",\n     \"buffersWritten\": %lu, \"eventsLost\": %lu, \"buffersLost\": %lu, "
                  "\"eventsDelivered\": %llu, \"firstEventUtc\": ",
                  (unsigned long)s->buffers_written, (unsigned long)s->events_lost,
                  (unsigned long)s->buffers_lost, (unsigned long long)s->delivered);
    if (s->first_event_filetime) {
      strbuf_json_string(b, filetime_format_iso7(s->first_event_filetime, text, sizeof(text)));
    } else {
      strbuf_puts(b, "null");
    }
    strbuf_puts(b, ",\n     \"warnings\": ");
    texts(b, (const char (*)[CAPTURE_HEALTH_TEXT_MAX])s->warnings, s->warning_count);
    strbuf_puts(b, ", \"notes\": ");
    texts(b, (const char (*)[CAPTURE_HEALTH_TEXT_MAX])s->notes, s->note_count);
    strbuf_puts(b, "}");
  }
  strbuf_puts(b, h->count ? "\n  ],\n" : "],\n");
}

int capture_manifest_json(const struct capture_manifest *m, char **json)
{
  struct strbuf b;
  char text[40];
  memset(&b, 0, sizeof(b));
  strbuf_puts(&b, "{\n  \"schema\": \"etwcap-capture/1\",\n");
  key_string(&b, "etwcapVersion", ETWCAP_VERSION, 1);
  key_string(&b, "commandLine", m->command_line, 1);
  key_string(&b, "machine", m->machine, 1);
  key_string(&b, "os", m->os, 1);
  strbuf_printf(&b, "  \"traceOs\": {\"version\": \"%u.%u\", \"build\": %u},\n",
                     m->trace_os_major, m->trace_os_minor, m->trace_os_build);
  key_time(&b, "startUtc", m->start_filetime, 1);
  key_time(&b, "stopUtc", m->stop_filetime, 1);
  if (m->trigger) {
    strbuf_puts(&b, "  \"trigger\": {\"name\": ");
    strbuf_json_string(&b, m->trigger->name);
    strbuf_puts(&b, ", \"detail\": ");
    strbuf_json_string(&b, m->trigger->detail ? m->trigger->detail : "");
    strbuf_printf(&b, ", \"utc\": \"%s\"},\n",
                       filetime_format_iso7(m->trigger->filetime, text, sizeof(text)));
  } else {
    strbuf_puts(&b, "  \"trigger\": null,\n");
  }
  sessions(&b, m);
  health(&b, m->health);
  container_capture_json(&b, m->containers);
  strbuf_puts(&b, "  \"merged\": {\"file\": ");
  strbuf_json_string(&b, m->merged_file ? m->merged_file : "");
  strbuf_printf(&b,
                     ", \"bytes\": %llu, \"events\": %llu, \"imagesIdentified\": %llu, "
                     "\"imagesUnreadable\": %llu},\n",
                     (unsigned long long)m->merged_bytes, (unsigned long long)m->merged_events,
                     (unsigned long long)m->images_identified,
                     (unsigned long long)m->images_unreadable);
  key_time(&b, "writtenUtc", m->written_filetime, 0);
  strbuf_puts(&b, "}\n");
  return strbuf_finish(&b, json);
}

void manifest_trigger_keep(struct manifest_trigger_copy *dst, const struct manifest_trigger *src)
{
  snprintf(dst->name, sizeof(dst->name), "%s", src->name);
  snprintf(dst->detail, sizeof(dst->detail), "%s", src->detail ? src->detail : "");
  dst->t.name = dst->name;
  dst->t.detail = dst->detail;
  dst->t.filetime = src->filetime;
}

size_t capture_manifest_recall_volumes(struct container_capture *cc, const char *zip_path)
{
  char why[256], *text = NULL;
  size_t len = 0, n = 0;
  if (zip_member_text(zip_path, CAPTURE_MANIFEST_NAME, CAPTURE_MANIFEST_MAX_BYTES, &text, &len,
                      why, sizeof(why)) == 0) {
    n = container_capture_recall_volumes_json(cc, text, len);
    etwcap_free(text);
  }
  if (n)
    log_info("the capture recorded %lu volumes: their GUID paths are tried before today's",
             (unsigned long)n);
  return n;
}
