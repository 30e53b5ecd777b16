/* See trigger_csv.h. */
#include "triggers/trigger_csv.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/strutil.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define CSV_MAX_FILE (UINT64_C(1) << 31)
/* More columns than any counter log holds (a "\Thread(*)\*" log of a large
 * server has some tens of thousands); a header past it is refused before
 * anything is sized by it. */
#define CSV_MAX_COLUMNS 1000000u

/* A column's names, pointing into the table's `names`. */
struct csv_column {
  const char *object, *instance, *counter;
};

/* Memory follows the file: the names take the header's bytes, the values
 * 8 bytes per field of the rows, and no row is reserved that the rest of
 * the file cannot hold (row_bound). */
struct trigger_csv {
  char name[512];
  char *names; /* per column: object, instance and counter, each NUL-terminated */
  struct csv_column *cols;
  size_t ncols;
  int64_t *times;
  double *values; /* row-major, ncols per row; NAN = no value */
  size_t nrows, cap_rows, row_bound;
};

/* Days from 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
  int64_t era, yoe, doy, doe;
  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = y - era * 400;
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static int read_uint(const char **p, unsigned digits_max, unsigned *out)
{
  unsigned v = 0, n = 0;
  while (isdigit((unsigned char)**p) && n < digits_max) {
    v = v * 10 + (unsigned)(**p - '0');
    (*p)++;
    n++;
  }
  *out = v;
  return n ? 0 : -1;
}

int trigger_csv_parse_time(const char *text, int32_t bias_minutes, int64_t *out)
{
  const char *p = text;
  unsigned y, mo, d, h, mi, s, frac = 0, fdigits = 0;
  int iso = 0;
  int64_t ft;
  while (*p == ' ')
    p++;
  if (read_uint(&p, 4, &y))
    return -1;
  if (*p == '-') { /* ISO 8601 */
    iso = 1;
    p++;
    if (read_uint(&p, 2, &mo) || *p++ != '-' || read_uint(&p, 2, &d))
      return -1;
    if (*p != 'T' && *p != ' ')
      return -1;
    p++;
  } else if (*p == '/') {
    mo = y;
    p++;
    if (read_uint(&p, 2, &d) || *p++ != '/' || read_uint(&p, 4, &y) || *p++ != ' ')
      return -1;
  } else {
    return -1;
  }
  if (read_uint(&p, 2, &h) || *p++ != ':' || read_uint(&p, 2, &mi) || *p++ != ':' ||
      read_uint(&p, 2, &s))
    return -1;
  if (*p == '.') {
    p++;
    while (isdigit((unsigned char)*p)) {
      if (fdigits < 7) {
        frac = frac * 10 + (unsigned)(*p - '0');
        fdigits++;
      }
      p++;
    }
  }
  while (fdigits < 7 && fdigits > 0) {
    frac *= 10;
    fdigits++;
  }
  if (iso && (*p == 'Z' || *p == 'z'))
    p++;
  while (*p == ' ')
    p++;
  if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 || y < 1601)
    return -1;
  ft = (days_from_civil(y, mo, d) * 86400 + (int64_t)h * 3600 + mi * 60 + s) * 10000000 +
       frac + INT64_C(116444736000000000);
  if (!iso)
    ft += (int64_t)bias_minutes * 60 * 10000000;
  *out = ft;
  return 0;
}

/* Splits one CSV record starting at *p (RFC 4180 quoting) into fields,
 * each unquoted in place into a NUL-terminated string.  Returns the number
 * of fields, or -1 on an unterminated quote; *p moves past the record. */
static long split_record(char **p, char *end, char **fields, size_t max)
{
  char *s = *p, *w;
  size_t n = 0;
  if (s >= end)
    return 0;
  for (;;) {
    char *start = s;
    w = s;
    if (s < end && *s == '"') {
      s++;
      for (;;) {
        if (s >= end)
          return -1;
        if (*s == '"') {
          if (s + 1 < end && s[1] == '"') {
            *w++ = '"';
            s += 2;
            continue;
          }
          s++;
          break;
        }
        *w++ = *s++;
      }
      while (s < end && *s != ',' && *s != '\n' && *s != '\r')
        s++;
    } else {
      while (s < end && *s != ',' && *s != '\n' && *s != '\r')
        *w++ = *s++;
    }
    if (n < max)
      fields[n] = start;
    n++;
    {
      char sep = s < end ? *s : '\n';
      *w = '\0';
      if (sep == ',') {
        s++;
        continue;
      }
      /* End of record: skip "\r\n", "\r" or "\n".  Its first byte is
       * told by sep: the NUL above lands on it when the field was not
       * quoted (nothing was unescaped, so w caught up with s). */
      if (s < end)
        s++;
      if (sep == '\r' && s < end && *s == '\n')
        s++;
      *p = s;
      return (long)n;
    }
  }
}

/* Copies n bytes of s to *out as a string and moves *out past it. */
static const char *put_name(char **out, const char *s, size_t n)
{
  char *r = *out;
  memcpy(r, s, n);
  r[n] = '\0';
  *out += n + 1;
  return r;
}

/* "\\MACHINE\Object(Instance)\Counter" (the machine part is optional): the
 * three names go to *out (room for strlen(path) + 3 bytes), *out moves on. */
static int parse_path(const char *path, struct csv_column *c, char **out)
{
  const char *p = path, *last, *paren, *obj_end;
  if (p[0] == '\\' && p[1] == '\\') {
    p = strchr(p + 2, '\\');
    if (!p)
      return -1;
  }
  if (*p == '\\')
    p++;
  last = strrchr(p, '\\');
  if (!last || last == p || !last[1])
    return -1;
  paren = memchr(p, '(', (size_t)(last - p));
  obj_end = paren ? paren : last;
  if (obj_end == p || (paren && (last[-1] != ')' || last - 1 <= paren)))
    return -1;
  c->object = put_name(out, p, (size_t)(obj_end - p));
  c->instance = put_name(out, paren ? paren + 1 : "", paren ? (size_t)(last - paren - 2) : 0);
  c->counter = put_name(out, last + 1, strlen(last + 1));
  return 0;
}

/* The bias of a PDH header ("(PDH-CSV 4.0) (Zone)(BIAS)"): 0 and *bias, or
 * -1 when the last parenthesis does not hold whole minutes within a day. */
static int header_bias(const char *first, int32_t *bias)
{
  const char *open = strrchr(first, '(');
  int64_t v;
  char num[16];
  const char *close;
  size_t n;
  *bias = 0;
  if (!open || !(close = strchr(open, ')')))
    return -1;
  n = (size_t)(close - open - 1);
  if (n == 0 || n >= sizeof(num))
    return -1;
  memcpy(num, open + 1, n);
  num[n] = '\0';
  if (str_parse_int64(num, &v) != 0 || v < -24 * 60 || v > 24 * 60)
    return -1;
  *bias = (int32_t)v;
  return 0;
}

void trigger_csv_free(struct trigger_csv *c)
{
  if (!c)
    return;
  etwcap_free(c->names);
  etwcap_free(c->cols);
  etwcap_free(c->times);
  etwcap_free(c->values);
  etwcap_free(c);
}

static int add_row(struct trigger_csv *c)
{
  if (c->nrows == c->cap_rows) {
    size_t cap = c->cap_rows ? c->cap_rows * 2 : 256;
    int64_t *t;
    double *v;
    if (cap > c->row_bound)
      cap = c->row_bound;
    if (cap <= c->nrows)
      cap = c->nrows + 1;
    t = etwcap_reallocarray(c->times, cap, sizeof(*t));
    if (!t)
      return ETWCAP_E_NOMEM;
    c->times = t;
    if (c->ncols && cap > SIZE_MAX / c->ncols)
      return ETWCAP_E_NOMEM;
    v = etwcap_reallocarray(c->values, cap * (c->ncols ? c->ncols : 1), sizeof(*v));
    if (!v)
      return ETWCAP_E_NOMEM;
    c->values = v;
    c->cap_rows = cap;
  }
  return 0;
}

int trigger_csv_parse(struct trigger_csv **out, const char *text, size_t len, const char *name,
                      char *err, size_t cap)
{
  struct trigger_csv *c;
  char *buf, *p, *end, **fields = NULL, *names;
  long nf;
  size_t i, line = 1, maxf, names_len;
  int32_t bias;
  int rc = 0;
  *out = NULL;
  err[0] = '\0';
  c = etwcap_calloc(1, sizeof(*c));
  buf = etwcap_malloc(len + 1);
  if (!c || !buf) {
    etwcap_free(buf);
    trigger_csv_free(c);
    return ETWCAP_E_NOMEM;
  }
  tv_copy(c->name, sizeof(c->name), name);
  {
    const char *nul = memchr(text, '\0', len), *q;
    if (nul) {
      for (q = text; q < nul; q++)
        line += *q == '\n';
      snprintf(err, cap, "%s: line %lu: a NUL byte; a typeperf CSV is text (UTF-16 files: "
               "save them as UTF-8)", name, (unsigned long)line);
      etwcap_free(buf);
      trigger_csv_free(c);
      return ETWCAP_E_FORMAT;
    }
  }
  memcpy(buf, text, len);
  buf[len] = '\0';
  p = buf;
  end = buf + len;
  if (len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
      (unsigned char)p[2] == 0xBF)
    p += 3; /* UTF-8 byte order mark */
  /* Count the header's fields first to size the arrays. */
  maxf = 1;
  {
    const char *q;
    int quoted = 0;
    for (q = p; q < end && (quoted || (*q != '\n' && *q != '\r')); q++) {
      if (*q == '"')
        quoted = !quoted;
      else if (*q == ',' && !quoted)
        maxf++;
    }
  }
  if (maxf - 1 > CSV_MAX_COLUMNS) {
    snprintf(err, cap, "%s: line 1: the header names %lu counters, more than the %u a counter "
             "log may have: split the log (relog -c, or typeperf with fewer counters)", name,
             (unsigned long)(maxf - 1), CSV_MAX_COLUMNS);
    rc = ETWCAP_E_FORMAT;
    goto cleanup;
  }
  fields = etwcap_calloc(maxf + 1, sizeof(*fields));
  if (!fields) {
    rc = ETWCAP_E_NOMEM;
    goto cleanup;
  }
  nf = split_record(&p, end, fields, maxf + 1);
  if (nf < 2 || (size_t)nf > maxf + 1) {
    snprintf(err, cap, "%s: line 1: expected a typeperf CSV header (\"(PDH-CSV 4.0) ...\","
             "\"\\\\MACHINE\\Object(Instance)\\Counter\",...)", name);
    rc = ETWCAP_E_FORMAT;
    goto cleanup;
  }
  if (!strstr(fields[0], "PDH-CSV") || strrchr(fields[0], '(') == strstr(fields[0], "(PDH-CSV")) {
    bias = 0;
    log_info("%s: the header has no \"(PDH-CSV 4.0) (zone)(bias)\" field: times are taken as "
             "UTC", name);
  } else if (header_bias(fields[0], &bias) != 0) {
    snprintf(err, cap, "%s: line 1: '%.100s' ends without a time zone bias in minutes "
             "(\"(PDH-CSV 4.0) (Zone)(BIAS)\", BIAS from -1440 to 1440)", name, fields[0]);
    rc = ETWCAP_E_FORMAT;
    goto cleanup;
  }
  c->ncols = (size_t)nf - 1;
  /* Each data row has a comma per column and a line break. */
  c->row_bound = (size_t)(end - p) / (c->ncols + 1) + 1;
  for (i = 0, names_len = 0; i < c->ncols; i++)
    names_len += strlen(fields[i + 1]) + 3;
  c->cols = etwcap_calloc(c->ncols, sizeof(*c->cols));
  names = c->names = etwcap_malloc(names_len);
  if (!c->cols || !c->names) {
    rc = ETWCAP_E_NOMEM;
    goto cleanup;
  }
  for (i = 0; i < c->ncols; i++)
    if (parse_path(fields[i + 1], &c->cols[i], &names) != 0) {
      snprintf(err, cap, "%s: line 1, column %lu: '%.200s' is not a counter path "
               "(\\\\MACHINE\\Object(Instance)\\Counter)", name, (unsigned long)(i + 2),
               fields[i + 1]);
      rc = ETWCAP_E_FORMAT;
      goto cleanup;
    }
  while (p < end) {
    int64_t t;
    line++;
    nf = split_record(&p, end, fields, maxf + 1);
    if (nf < 0) {
      snprintf(err, cap, "%s: line %lu: a quoted field is not closed", name,
               (unsigned long)line);
      rc = ETWCAP_E_FORMAT;
      goto cleanup;
    }
    if (nf == 1 && !fields[0][0])
      continue; /* a blank line */
    if ((size_t)nf != c->ncols + 1) {
      snprintf(err, cap, "%s: line %lu: %ld fields where the header has %lu", name,
               (unsigned long)line, nf, (unsigned long)(c->ncols + 1));
      rc = ETWCAP_E_FORMAT;
      goto cleanup;
    }
    if (trigger_csv_parse_time(fields[0], bias, &t) != 0) {
      snprintf(err, cap, "%s: line %lu: '%.60s' is not a time (MM/DD/YYYY HH:MM:SS.mmm)", name,
               (unsigned long)line, fields[0]);
      rc = ETWCAP_E_FORMAT;
      goto cleanup;
    }
    if (c->nrows && t < c->times[c->nrows - 1]) {
      snprintf(err, cap, "%s: line %lu: the samples are not in time order", name,
               (unsigned long)line);
      rc = ETWCAP_E_FORMAT;
      goto cleanup;
    }
    if ((rc = add_row(c)) != 0)
      goto cleanup;
    c->times[c->nrows] = t;
    for (i = 0; i < c->ncols; i++) {
      const char *f = fields[i + 1];
      double v;
      while (*f == ' ')
        f++;
      if (!*f) {
        v = NAN;
      } else {
        char num[64];
        size_t n = strlen(f);
        while (n && f[n - 1] == ' ')
          n--;
        if (n >= sizeof(num)) {
          snprintf(err, cap, "%s: line %lu, column %lu: '%.60s...' is too long for a number",
                   name, (unsigned long)line, (unsigned long)(i + 2), f);
          rc = ETWCAP_E_FORMAT;
          goto cleanup;
        }
        memcpy(num, f, n);
        num[n] = '\0';
        if (str_parse_double(num, &v) != 0 || !isfinite(v)) {
          snprintf(err, cap, "%s: line %lu, column %lu: '%.60s' is not a number", name,
                   (unsigned long)line, (unsigned long)(i + 2), f);
          rc = ETWCAP_E_FORMAT;
          goto cleanup;
        }
      }
      c->values[c->nrows * c->ncols + i] = v;
    }
    c->nrows++;
  }
  if (!c->nrows) {
    snprintf(err, cap, "%s: the counter log holds no samples (only its header)", name);
    rc = ETWCAP_E_FORMAT;
  }
cleanup:
  etwcap_free(fields);
  etwcap_free(buf);
  if (rc) {
    trigger_csv_free(c);
    return rc;
  }
  *out = c;
  return 0;
}

int trigger_csv_load(struct trigger_csv **out, const char *path, char *err, size_t cap)
{
  FILE *f = os_fopen(path, "rb");
  int64_t size = 0;
  char *text;
  size_t got;
  int rc;
  *out = NULL;
  if (!f) {
    rc = os_last_error();
    snprintf(err, cap, "%s: cannot open the counter log: %s", path, etwcap_strerror(rc));
    return rc;
  }
  if (os_fseek64(f, 0, SEEK_END) != 0 || (size = os_ftell64(f)) < 0 ||
      os_fseek64(f, 0, SEEK_SET) != 0 || (uint64_t)size > CSV_MAX_FILE) {
    fclose(f);
    snprintf(err, cap, "%s: cannot read the counter log (or it is over 2 GB)", path);
    return ETWCAP_E_IO;
  }
  text = etwcap_malloc((size_t)size + 1);
  if (!text) {
    fclose(f);
    return ETWCAP_E_NOMEM;
  }
  got = fread(text, 1, (size_t)size, f);
  fclose(f);
  if (got != (size_t)size) {
    etwcap_free(text);
    snprintf(err, cap, "%s: cannot read the counter log", path);
    return ETWCAP_E_IO;
  }
  rc = trigger_csv_parse(out, text, (size_t)size, path, err, cap);
  etwcap_free(text);
  return rc;
}

size_t trigger_csv_rows(const struct trigger_csv *c)
{
  return c->nrows;
}

size_t trigger_csv_columns(const struct trigger_csv *c)
{
  return c->ncols;
}

int64_t trigger_csv_first_time(const struct trigger_csv *c)
{
  return c->nrows ? c->times[0] : 0;
}

int64_t trigger_csv_last_time(const struct trigger_csv *c)
{
  return c->nrows ? c->times[c->nrows - 1] : 0;
}

static int csv_open(void *ctx, const struct trigger_counter_spec *spec, void **handle, char *err,
                    size_t cap)
{
  struct trigger_csv *c = ctx;
  size_t i, n = 0;
  char have[512];
  for (i = 0; i < c->ncols; i++) {
    const struct csv_column *col = &c->cols[i];
    if (str_caseeq(col->object, spec->category) && str_caseeq(col->counter, spec->counter) &&
        str_caseeq(col->instance, spec->instance)) {
      *handle = (void *)(uintptr_t)(i + 1);
      return 0;
    }
  }
  have[0] = '\0';
  for (i = 0; i < c->ncols && n + 1 < sizeof(have); i++) {
    n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%s:%s:%s", i ? ", " : "",
                          c->cols[i].object, c->cols[i].counter, c->cols[i].instance);
    if (n >= sizeof(have))
      n = sizeof(have) - 1;
  }
  snprintf(err, cap, "the counter log %s has no column for %s:%s:%s (it has %s)", c->name,
           spec->category, spec->counter, spec->instance, have[0] ? have : "none");
  return ETWCAP_E_USAGE;
}

static int csv_read(void *ctx, void *handle, int64_t now, double *value)
{
  struct trigger_csv *c = ctx;
  size_t col = (size_t)(uintptr_t)handle - 1, lo = 0, hi = c->nrows;
  double v;
  /* The last row at or before now. */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->times[mid] <= now)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return TRIGGER_COUNTER_NO_SAMPLE;
  v = c->values[(lo - 1) * c->ncols + col];
  if (isnan(v))
    return 0;
  *value = v;
  return 1;
}

static void csv_close(void *ctx, void *handle)
{
  (void)ctx;
  (void)handle;
}

struct trigger_counter_source trigger_csv_source(struct trigger_csv *c)
{
  struct trigger_counter_source s = { c, csv_open, csv_read, csv_close };
  return s;
}
