/* See report_manifest.h.  Field names are those capture_manifest.c writes
 * (schema etwcap-capture/1, README.md). */
#include "src/report/report_manifest.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/json_tree.h"
#include "src/base/zip/zip_member_text.h"
#include "src/finish/capture_manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int digits(const char *s, int n, unsigned *out)
{
  int i;
  *out = 0;
  for (i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return 0;
    *out = *out * 10 + (unsigned)(s[i] - '0');
  }
  return 1;
}

/* Days from 1601-01-01 to y-m-d of the proleptic Gregorian calendar
 * (the civil-from-days inverse, counted in 400-year eras). */
static int64_t days_since_1601(int64_t y, unsigned m, unsigned d)
{
  int64_t era, yoe, doy, doe;
  y -= m <= 2;
  era = y / 400;
  yoe = y - era * 400;
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  /* era*146097 + doe days since 0000-03-01; 1601-01-01 is day 584694. */
  return era * 146097 + doe - 584694;
}

int report_parse_utc(const char *t, int64_t *out)
{
  unsigned y, mo, d, h, mi, s, frac = 0;
  int i, n = 0;
  int64_t days;
  if (strlen(t) < 20 || !digits(t, 4, &y) || t[4] != '-' || !digits(t + 5, 2, &mo) ||
      t[7] != '-' || !digits(t + 8, 2, &d) || t[10] != 'T' || !digits(t + 11, 2, &h) ||
      t[13] != ':' || !digits(t + 14, 2, &mi) || t[16] != ':' || !digits(t + 17, 2, &s))
    return 0;
  i = 19;
  if (t[i] == '.')
    for (i++; t[i] >= '0' && t[i] <= '9'; i++, n++)
      if (n < 7)
        frac = frac * 10 + (unsigned)(t[i] - '0');
  if (t[i] != 'Z' || t[i + 1] || y < 1601 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
      mi > 59 || s > 60)
    return 0;
  for (; n < 7; n++)
    frac *= 10;
  days = days_since_1601(y, mo, d);
  *out = ((days * 86400 + h * 3600 + mi * 60 + s) * 10000000) + frac;
  return 1;
}

static void copy(char *dst, size_t cap, const char *src)
{
  snprintf(dst, cap, "%s", src ? src : "");
}

/* The system of `id` among those kept, or a new one (NULL: no room). */
static struct report_manifest_system *system_of(struct report_manifest *m, const char *id)
{
  size_t i;
  for (i = 0; i < m->system_count; i++)
    if (strcmp(m->systems[i].id, id) == 0)
      return &m->systems[i];
  if (m->system_count == REPORT_MANIFEST_SYSTEMS)
    return NULL;
  copy(m->systems[m->system_count].id, sizeof(m->systems[0].id), id);
  return &m->systems[m->system_count++];
}

/* A PID written as a bare number, or -1. */
static int64_t pid_of(const struct json_node *v)
{
  char *end;
  long long n;
  if (v->type != JSON_NUMBER)
    return -1;
  n = strtoll(v->text, &end, 10);
  return *end ? -1 : (int64_t)n;
}

/* One inventory ({"utc", "systems": [...]}) into m: the process-isolated
 * containers with their names and PIDs. */
static void inventory(struct report_manifest *m, const struct json_node *inv)
{
  const struct json_node *list = inv && inv->type == JSON_OBJECT
                                       ? json_get(inv, "systems")
                                       : NULL;
  size_t i, k, j;
  for (i = 0; list && list->type == JSON_ARRAY && i < list->count; i++) {
    const struct json_node *s = &list->items[i], *pids;
    struct report_manifest_system *sys;
    if (s->type != JSON_OBJECT || !*json_string(s, "id", "") ||
        strcmp(json_string(s, "isolation", ""), "process") != 0 ||
        !(sys = system_of(m, json_string(s, "id", ""))))
      continue;
    copy(sys->name, sizeof(sys->name), json_string(s, "name", ""));
    pids = json_get(s, "processes");
    for (k = 0; pids && pids->type == JSON_ARRAY && k < pids->count; k++) {
      int64_t pid = pid_of(&pids->items[k]);
      int known = 0;
      for (j = 0; j < sys->pid_count; j++)
        known |= sys->pids[j] == (uint32_t)pid;
      if (pid > 0 && pid <= (int64_t)UINT32_MAX && !known &&
          sys->pid_count < REPORT_MANIFEST_SYSTEM_PIDS)
        sys->pids[sys->pid_count++] = (uint32_t)pid;
    }
  }
}

static void containers(struct report_manifest *m, const struct json_node *root)
{
  const struct json_node *c = json_get(root, "containers"), *u;
  size_t i;
  if (c && c->type == JSON_OBJECT) {
    inventory(m, json_get(c, "atStart"));
    inventory(m, json_get(c, "atStop"));
  }
  u = json_get(root, "containerImagesUnread");
  for (i = 0; u && u->type == JSON_ARRAY && i < u->count; i++) {
    const struct json_node *e = &u->items[i];
    struct report_manifest_unread *d = &m->unread[m->unread_count];
    int64_t pid;
    if (e->type != JSON_OBJECT)
      continue;
    m->unread_total++;
    if (m->unread_count == REPORT_MANIFEST_UNREAD)
      continue;
    pid = json_int(e, "pid", 0);
    copy(d->path, sizeof(d->path), json_string(e, "path", ""));
    copy(d->reason, sizeof(d->reason), json_string(e, "reason", ""));
    d->pid = pid > 0 && pid <= (int64_t)UINT32_MAX ? (uint32_t)pid : 0;
    m->unread_count++;
  }
}

int report_manifest_parse(const char *text, size_t len, struct report_manifest *m, char *why,
                          size_t why_size)
{
  struct json_node *root = NULL;
  const struct json_node *trig;
  int rc;
  memset(m, 0, sizeof(*m));
  rc = json_parse(text, len, &root, why, why_size);
  if (rc)
    return rc;
  if (root->type != JSON_OBJECT ||
      strcmp(json_string(root, "schema", ""), "etwcap-capture/1") != 0) {
    snprintf(why, why_size, "not an etwcap-capture/1 document");
    json_free(root);
    return ETWCAP_E_FORMAT;
  }
  m->present = 1;
  copy(m->command_line, sizeof(m->command_line), json_string(root, "commandLine", ""));
  copy(m->machine, sizeof(m->machine), json_string(root, "machine", ""));
  trig = json_get(root, "trigger");
  if (trig && trig->type == JSON_OBJECT) {
    m->has_trigger = 1;
    copy(m->trigger_name, sizeof(m->trigger_name), json_string(trig, "name", ""));
    copy(m->trigger_detail, sizeof(m->trigger_detail), json_string(trig, "detail", ""));
    if (!report_parse_utc(json_string(trig, "utc", ""), &m->trigger_filetime))
      m->trigger_filetime = 0;
  }
  containers(m, root);
  json_free(root);
  return 0;
}

int report_manifest_read(const char *path, struct report_manifest *m, char *why,
                         size_t why_size)
{
  char *text;
  size_t len;
  int rc;
  memset(m, 0, sizeof(*m));
  rc = zip_member_text(path, CAPTURE_MANIFEST_NAME, CAPTURE_MANIFEST_MAX_BYTES, &text, &len, why,
                       why_size);
  if (rc == ETWCAP_E_NOENT)
    return 0; /* no manifest: the trace reader says what else is wrong */
  if (rc)
    return rc;
  rc = report_manifest_parse(text, len, m, why, why_size);
  etwcap_free(text);
  return rc;
}
