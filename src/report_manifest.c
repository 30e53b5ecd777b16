/* See report_manifest.h.  Field names are those capture_manifest.c writes
 * (schema etwcap-capture/1, README.md). */
#include "report_manifest.h"

#include "alloc.h"
#include "capture_manifest.h"
#include "error.h"
#include "etl_io.h"
#include "session_record_json.h"
#include "zip_directory.h"

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

struct sink {
  char *text;
  size_t len;
};

static int to_text(void *ctx, const void *data, size_t len)
{
  struct sink *s = ctx;
  if (len > REPORT_MANIFEST_MAX_BYTES - s->len)
    return ETWCAP_E_RANGE;
  memcpy(s->text + s->len, data, len);
  s->len += len;
  return 0;
}

int report_manifest_read(const char *path, struct report_manifest *m, char *why,
                         size_t why_size)
{
  struct etl_io io;
  struct zip_directory dir;
  struct sink s = { NULL, 0 };
  uint64_t size;
  uint32_t crc;
  size_t i;
  int rc;
  memset(m, 0, sizeof(*m));
  why[0] = '\0';
  if (etl_io_open_file(&io, path) != 0)
    return 0;
  memset(&dir, 0, sizeof(dir));
  /* Not a zip, or not one we can list: the trace reader says what is wrong. */
  if (zip_directory_read(&io, &dir, why, why_size) != 0) {
    why[0] = '\0';
    etl_io_close(&io);
    return 0;
  }
  rc = 0;
  for (i = 0; i < dir.count; i++) {
    if (strcmp(dir.entries[i].name, CAPTURE_MANIFEST_NAME) != 0)
      continue;
    if (dir.entries[i].uncompressed_size > REPORT_MANIFEST_MAX_BYTES) {
      snprintf(why, why_size, "%s!%s: larger than %u bytes", path, CAPTURE_MANIFEST_NAME,
               REPORT_MANIFEST_MAX_BYTES);
      rc = ETWCAP_E_RANGE;
      break;
    }
    s.text = etwcap_malloc(REPORT_MANIFEST_MAX_BYTES);
    if (!s.text) {
      rc = ETWCAP_E_NOMEM;
      break;
    }
    rc = zip_entry_read(&io, &dir.entries[i], to_text, &s, &size, &crc, why, why_size);
    if (rc == 0 && crc != dir.entries[i].crc32) {
      snprintf(why, why_size, "%s!%s: CRC-32 mismatch", path, CAPTURE_MANIFEST_NAME);
      rc = ETWCAP_E_CORRUPT;
    }
    if (rc == 0)
      rc = report_manifest_parse(s.text, s.len, m, why, why_size);
    break;
  }
  etwcap_free(s.text);
  zip_directory_release(&dir);
  etl_io_close(&io);
  return rc;
}
