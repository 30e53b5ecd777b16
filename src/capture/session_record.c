/* Writing and reading the session record and the request file (see
 * session_record.h; the format is documented in README.md). */
#include "src/capture/session_record.h"

#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/file_read.h"
#include "src/base/file_write.h"
#include "src/base/json_tree.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "src/base/strbuf.h"
#include "src/version.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define RECORD_MAX_BYTES (16u * 1024u * 1024u)

static int path_with(const char *data_file, const char *suffix, char *out, size_t size)
{
  if ((size_t)snprintf(out, size, "%s%s", data_file, suffix) >= size)
    return ETWCAP_E_RANGE;
  return 0;
}

int session_record_path(const char *data_file, char *out, size_t size)
{
  return path_with(data_file, SESSION_RECORD_SUFFIX, out, size);
}

int session_request_path(const char *data_file, char *out, size_t size)
{
  return path_with(data_file, SESSION_REQUEST_SUFFIX, out, size);
}

/* --- writing ------------------------------------------------------------- */

/* JSON strings through strbuf: escaped, and never raw bytes that are not
 * UTF-8 (a Linux path is only bytes). */
static void put_string(struct strbuf *b, const char *s)
{
  strbuf_json_string(b, s ? s : "");
}

static void put_guid(struct strbuf *b, const struct etw_guid *g)
{
  char text[GUID_STRING_SIZE];
  guid_format(g, text);
  put_string(b, text);
}

/* The plan summary of a session: its providers as enabled, so a reader of
 * the record (or `stop`'s log) sees what the capture holds. */
static void put_providers(struct strbuf *b, const struct session_record_session *rs)
{
  const struct plan_session *s = rs->plan;
  size_t i;
  strbuf_puts(b, ",\n      \"providers\": [");
  for (i = 0; s && i < s->provider_count; i++) {
    const struct plan_provider *p = &s->providers[i];
    strbuf_puts(b, i ? ",\n        {" : "\n        {");
    strbuf_puts(b, "\"name\": ");
    put_string(b, p->name);
    strbuf_puts(b, ", \"guid\": ");
    put_guid(b, &p->guid);
    strbuf_printf(b,
                  ", \"level\": %u, \"matchAnyKeyword\": \"0x%" PRIX64
                  "\", \"enableProperty\": %" PRIu32 ", \"filters\": %lu",
                  (unsigned)p->level, p->match_any, p->enable_property,
                  (unsigned long)p->filter_count);
    /* The EventSource session keyword it took (TraceEvent's
     * EtwSessionKeyword): which of 44..47 was free when it was enabled. */
    if (rs->keyword_bits && i < rs->keyword_bit_count && rs->keyword_bits[i])
      strbuf_printf(b, ", \"sessionKeywordBit\": %u", (unsigned)rs->keyword_bits[i]);
    strbuf_puts(b, "}");
  }
  strbuf_puts(b, s && s->provider_count ? "\n      ]" : "]");
}

static void put_body(struct strbuf *b, const struct session_record *r)
{
  char iso[40];
  size_t i;
  filetime_format_iso7(r->start_filetime, iso, sizeof(iso));
  strbuf_puts(b, "{\n  \"schema\": \"" SESSION_RECORD_SCHEMA "\",\n");
  strbuf_puts(b, "  \"etwcapVersion\": \"" ETWCAP_VERSION "\",\n");
  strbuf_puts(b, "  \"mode\": ");
  put_string(b, r->mode);
  strbuf_printf(b, ",\n  \"pid\": %lu,\n  \"pidCreated\": %" PRId64 ",\n  \"machine\": ",
                r->pid, r->pid_created);
  put_string(b, r->machine);
  strbuf_puts(b, ",\n  \"dataFile\": ");
  put_string(b, r->data_file);
  strbuf_printf(b, ",\n  \"startUtc\": \"%s\",\n  \"startFiletime\": %" PRId64 ",\n", iso,
                r->start_filetime);
  strbuf_printf(b, "  \"profileInterval100ns\": %" PRIu32 ",\n", r->profile_interval_100ns);
  if (r->heap_flag.exe[0]) {
    strbuf_puts(b, "  \"osHeapTracingFlags\": {\"exe\": ");
    put_string(b, r->heap_flag.exe);
    strbuf_printf(b, ", \"hadValue\": %s, \"prior\": %" PRIu32 ", \"createdKey\": %s},\n",
                  r->heap_flag.had_value ? "true" : "false", r->heap_flag.prior,
                  r->heap_flag.created_key ? "true" : "false");
  }
  strbuf_puts(b, "  \"commandLine\": ");
  put_string(b, r->command_line);
  strbuf_puts(b, ",\n  \"sessions\": [");
  for (i = 0; i < r->session_count; i++) {
    const struct session_record_session *s = &r->sessions[i];
    strbuf_puts(b, i ? ",\n    {\n      \"role\": " : "\n    {\n      \"role\": ");
    put_string(b, s->role);
    strbuf_puts(b, ",\n      \"name\": ");
    put_string(b, s->name);
    strbuf_puts(b, ",\n      \"file\": ");
    put_string(b, s->file);
    strbuf_printf(b,
                  ",\n      \"logFileMode\": %" PRIu32 ",\n      \"bufferSizeKB\": %" PRIu32
                  ",\n      \"minimumBuffers\": %" PRIu32 ",\n      \"maximumBuffers\": %" PRIu32
                  ",\n      \"maximumFileSizeMB\": %" PRIu32 ",\n      \"enableFlags\": %" PRIu32,
                  s->log_file_mode, s->buffer_size_kb, s->minimum_buffers, s->maximum_buffers,
                  s->maximum_file_size_mb, s->enable_flags);
    put_providers(b, s);
    strbuf_puts(b, "\n    }");
  }
  strbuf_puts(b, r->session_count ? "\n  ],\n  \"warnings\": [" : "],\n  \"warnings\": [");
  for (i = 0; i < r->warning_count; i++) {
    strbuf_puts(b, i ? ", " : "");
    put_string(b, r->warnings[i]);
  }
  strbuf_puts(b, "],\n  \"packetCapture\": ");
  if (r->packet_capture_file[0]) {
    strbuf_puts(b, "{\"traceFile\": ");
    put_string(b, r->packet_capture_file);
    strbuf_printf(b, ", \"netmon\": %s}", r->packet_capture_netmon ? "true" : "false");
  } else {
    strbuf_puts(b, "null");
  }
  strbuf_puts(b, ",\n  \"containersAtStart\": ");
  if (r->containers_at_start)
    put_string(b, r->containers_at_start);
  else
    strbuf_puts(b, "null");
  strbuf_puts(b, ",\n  \"startLog\": ");
  put_string(b, r->start_log);
  strbuf_puts(b, "\n}\n");
}

int session_record_write(const char *path, const struct session_record *r)
{
  struct strbuf b = { NULL, 0, 0, 0 };
  char *text;
  int rc;
  put_body(&b, r);
  rc = strbuf_finish(&b, &text);
  if (!rc)
    rc = file_write_replace(path, text, strlen(text));
  etwcap_free(text);
  return rc;
}

/* --- reading ------------------------------------------------------------- */

/* The record's string `field` into dst whole: one too long for it was
 * not written by etwcap (the record is damaged or edited), and cut short
 * it would name another session or file to stop, merge or delete. */
static int copy(char *dst, size_t size, const char *src, const char *field, char *why,
                size_t why_size)
{
  size_t len = strlen(src);
  if (len >= size) {
    snprintf(why, why_size, "the session record is damaged: its \"%s\" has %lu bytes, more "
             "than the %lu etwcap writes; 'etwcap abort' stops the sessions without it",
             field, (unsigned long)len, (unsigned long)size - 1);
    return ETWCAP_E_CORRUPT;
  }
  memcpy(dst, src, len + 1);
  return 0;
}

static uint32_t u32(const struct json_node *o, const char *key)
{
  int64_t v = json_int(o, key, 0);
  return v < 0 || v > 0xFFFFFFFFll ? 0 : (uint32_t)v;
}

/* /OSHeapExe's TracingFlags as start left it; absent, malformed or a name
 * that is no file name: nothing to put back. */
static void fill_heap_flag(const struct json_node *o, struct heap_tracing_flag *f)
{
  const char *exe = o && o->type == JSON_OBJECT ? json_string(o, "exe", "") : "";
  memset(f, 0, sizeof(*f));
  if (!*exe || strlen(exe) >= sizeof(f->exe) || strpbrk(exe, "\\/"))
    return;
  memcpy(f->exe, exe, strlen(exe) + 1);
  f->had_value = json_bool(o, "hadValue", 0);
  f->prior = u32(o, "prior");
  f->created_key = json_bool(o, "createdKey", 0);
}

static int fill(const struct json_node *root, struct session_record *r, char *why,
                size_t why_size)
{
  const struct json_node *sessions = json_get(root, "sessions");
  const struct json_node *warnings = json_get(root, "warnings");
  const struct json_node *packet, *containers;
  const char *schema = json_string(root, "schema", NULL);
  const char *cmd, *log;
  size_t i;
  int rc;

  if (!schema || strcmp(schema, SESSION_RECORD_SCHEMA) != 0) {
    snprintf(why, why_size, "not an etwcap session record (schema %s, expected %s)",
             schema ? schema : "missing", SESSION_RECORD_SCHEMA);
    return ETWCAP_E_FORMAT;
  }
  if (!sessions || sessions->type != JSON_ARRAY) {
    snprintf(why, why_size, "the record has no session list");
    return ETWCAP_E_FORMAT;
  }
  if ((rc = copy(r->mode, sizeof(r->mode), json_string(root, "mode", "start"), "mode",
                 why, why_size)) != 0 ||
      (rc = copy(r->machine, sizeof(r->machine), json_string(root, "machine", ""),
                 "machine", why, why_size)) != 0 ||
      (rc = copy(r->data_file, sizeof(r->data_file), json_string(root, "dataFile", ""),
                 "dataFile", why, why_size)) != 0)
    return rc;
  r->pid = (unsigned long)json_int(root, "pid", 0);
  r->pid_created = json_int(root, "pidCreated", 0);
  r->start_filetime = json_int(root, "startFiletime", 0);
  r->profile_interval_100ns = u32(root, "profileInterval100ns");
  fill_heap_flag(json_get(root, "osHeapTracingFlags"), &r->heap_flag);
  for (i = 0; i < sessions->count && r->session_count < PLAN_MAX_SESSIONS; i++) {
    const struct json_node *o = &sessions->items[i];
    struct session_record_session *s = &r->sessions[r->session_count];
    const char *name = json_string(o, "name", NULL);
    if (!name || !*name) {
      snprintf(why, why_size, "session %lu of the record has no name", (unsigned long)i + 1);
      return ETWCAP_E_FORMAT;
    }
    if ((rc = copy(s->role, sizeof(s->role), json_string(o, "role", ""), "role", why,
                   why_size)) != 0 ||
        (rc = copy(s->name, sizeof(s->name), name, "name", why, why_size)) != 0 ||
        (rc = copy(s->file, sizeof(s->file), json_string(o, "file", ""), "file", why,
                   why_size)) != 0)
      return rc;
    s->log_file_mode = u32(o, "logFileMode");
    s->buffer_size_kb = u32(o, "bufferSizeKB");
    s->minimum_buffers = u32(o, "minimumBuffers");
    s->maximum_buffers = u32(o, "maximumBuffers");
    s->maximum_file_size_mb = u32(o, "maximumFileSizeMB");
    s->enable_flags = u32(o, "enableFlags");
    s->plan = NULL;
    r->session_count++;
  }
  for (i = 0; warnings && warnings->type == JSON_ARRAY && i < warnings->count; i++)
    if (warnings->items[i].type == JSON_STRING &&
        session_record_warn(r, warnings->items[i].text) != 0)
      return ETWCAP_E_NOMEM;
  packet = json_get(root, "packetCapture");
  if ((rc = copy(r->packet_capture_file, sizeof(r->packet_capture_file),
                 json_string(packet, "traceFile", ""), "traceFile", why, why_size)) != 0)
    return rc;
  r->packet_capture_netmon = json_bool(packet, "netmon", 0);
  cmd = json_string(root, "commandLine", "");
  log = json_string(root, "startLog", "");
  if (!(r->command_line = etwcap_strdup(cmd)) || !(r->start_log = etwcap_strdup(log)))
    return ETWCAP_E_NOMEM;
  containers = json_get(root, "containersAtStart");
  if (containers && containers->type == JSON_STRING &&
      !(r->containers_at_start = etwcap_strdup(containers->text)))
    return ETWCAP_E_NOMEM;
  return 0;
}

int session_record_parse(const char *text, size_t len, struct session_record *r, char *why,
                         size_t why_size)
{
  struct json_node *root = NULL;
  int rc;
  memset(r, 0, sizeof(*r));
  why[0] = '\0';
  rc = json_parse(text, len, &root, why, why_size);
  if (!rc)
    rc = fill(root, r, why, why_size);
  json_free(root);
  if (rc)
    session_record_release(r);
  return rc;
}

int session_record_read(const char *path, struct session_record *r, char *why, size_t why_size)
{
  char *text = NULL;
  size_t len = 0;
  int rc;
  memset(r, 0, sizeof(*r));
  why[0] = '\0';
  rc = file_read_small(path, RECORD_MAX_BYTES, &text, &len);
  if (rc == ETWCAP_E_RANGE)
    rc = ETWCAP_E_FORMAT; /* no record of ours is that big */
  if (rc) {
    snprintf(why, why_size, "cannot read '%s': %s", path, etwcap_strerror(rc));
    return rc;
  }
  rc = session_record_parse(text, len, r, why, why_size);
  etwcap_free(text);
  return rc;
}

void session_record_release(struct session_record *r)
{
  size_t i;
  for (i = 0; i < r->warning_count; i++)
    etwcap_free(r->warnings[i]);
  etwcap_free(r->command_line);
  etwcap_free(r->start_log);
  etwcap_free(r->containers_at_start);
  memset(r, 0, sizeof(*r));
}

int session_record_warn(struct session_record *r, const char *text)
{
  if (r->warning_count >= SESSION_RECORD_MAX_WARNINGS)
    return 0;
  if (!(r->warnings[r->warning_count] = etwcap_strdup(text)))
    return ETWCAP_E_NOMEM;
  r->warning_count++;
  return 0;
}

/* --- the request file ---------------------------------------------------- */

int session_request_write(const char *path, const char *request)
{
  return file_write_replace(path, request, strlen(request));
}

int session_request_take(const char *path, char *request, size_t size)
{
  FILE *f;
  size_t n;
  request[0] = '\0';
  if (!(f = os_fopen(path, "rb")))
    return 0; /* none: the usual case */
  n = fread(request, 1, size - 1, f);
  fclose(f);
  request[n] = '\0';
  while (n > 0 && (request[n - 1] == '\n' || request[n - 1] == '\r' || request[n - 1] == ' '))
    request[--n] = '\0';
  os_remove(path);
  return 0;
}
