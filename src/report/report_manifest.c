/* See report_manifest.h.  Field names are those capture_manifest.c writes
 * (schema etwcap-capture/1, README.md). */
#include "src/report/report_manifest.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/zip/zip_member_text.h"
#include "src/capture/session_record_json.h"
#include "src/finish/capture_manifest.h"

#include <stdio.h>
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

int report_manifest_parse(const char *text, size_t len, struct report_manifest *m, char *why,
                          size_t why_size)
{
  struct record_json *root = NULL;
  const struct record_json *trig;
  int rc;
  memset(m, 0, sizeof(*m));
  rc = record_json_parse(text, len, &root, why, why_size);
  if (rc)
    return rc;
  if (root->type != RECORD_JSON_OBJECT ||
      strcmp(record_json_string(root, "schema", ""), "etwcap-capture/1") != 0) {
    snprintf(why, why_size, "not an etwcap-capture/1 document");
    record_json_free(root);
    return ETWCAP_E_FORMAT;
  }
  m->present = 1;
  copy(m->command_line, sizeof(m->command_line), record_json_string(root, "commandLine", ""));
  copy(m->machine, sizeof(m->machine), record_json_string(root, "machine", ""));
  trig = record_json_get(root, "trigger");
  if (trig && trig->type == RECORD_JSON_OBJECT) {
    m->has_trigger = 1;
    copy(m->trigger_name, sizeof(m->trigger_name), record_json_string(trig, "name", ""));
    copy(m->trigger_detail, sizeof(m->trigger_detail), record_json_string(trig, "detail", ""));
    if (!report_parse_utc(record_json_string(trig, "utc", ""), &m->trigger_filetime))
      m->trigger_filetime = 0;
  }
  record_json_free(root);
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
