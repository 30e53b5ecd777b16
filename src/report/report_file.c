/* See report_file.h. */
#include "src/report/report_file.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/strutil.h"
#include "src/report/report_export.h"
#include "src/report/report_html.h"
#include "src/report/report_model.h"

#include <stdio.h>
#include <string.h>

/* The file next to the trace with its suffix in place of the trace's. */
static int default_path(const char *trace, const char *suffix, char *out, size_t cap)
{
  static const char *const suffixes[] = { ".etl.zip", ".etl", ".zip" };
  size_t n = strlen(trace), i;
  int w;
  for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
    size_t k = strlen(suffixes[i]);
    if (n > k && str_ends_with_case(trace, suffixes[i])) {
      n -= k;
      break;
    }
  }
  w = snprintf(out, cap, "%.*s%s", (int)n, trace, suffix);
  return w < 0 || (size_t)w >= cap ? ETWCAP_E_RANGE : 0;
}

int report_default_path(const char *trace, char *out, size_t cap)
{
  return default_path(trace, ".report.html", out, cap);
}

/* What a file is: the page, or an export in a format. */
struct output {
  int page;
  enum report_export_format format;
  const char *default_suffix;
};

static int write_output(const struct report *r, const struct output *o, const char *tmp,
                        char *err, size_t errcap)
{
  struct report_writer *w = etwcap_malloc(sizeof(*w)); /* its buffer: 64 KiB */
  char why[256];
  int rc;
  if (!w) {
    snprintf(err, errcap, "cannot write '%s': %s", tmp, etwcap_strerror(ETWCAP_E_NOMEM));
    return ETWCAP_E_NOMEM;
  }
  rw_init(w, os_fcreate(tmp));
  if (!w->f) {
    rc = os_last_error();
    snprintf(err, errcap, "cannot create '%s': %s", tmp, os_last_error_text(why, sizeof(why)));
    etwcap_free(w);
    return rc ? rc : ETWCAP_E_IO;
  }
  if (o->page)
    report_html_write(w, r);
  rc = o->page ? 0 : report_export_write(w, r, o->format);
  if (!rc)
    rc = report_writer_flush(w);
  if (fclose(w->f) != 0 && !rc)
    rc = ETWCAP_E_IO;
  etwcap_free(w);
  if (rc)
    snprintf(err, errcap, "cannot write '%s': %s", tmp, os_last_error_text(why, sizeof(why)));
  return rc;
}

/* Reads trace with the CPU stacks sel chooses (NULL: the report's) and
 * writes o to out (NULL: next to the trace), through a temporary. */
static int produce(const char *trace, const char *out, const struct report_cpu_select *sel,
                   const struct output *o, char *written, size_t written_cap, char *err,
                   size_t errcap)
{
  struct report r;
  char path[4096], tmp[4200];
  int rc;
  err[0] = '\0';
  if (!out) {
    if (default_path(trace, o->default_suffix, path, sizeof(path)) != 0) {
      snprintf(err, errcap,
               "the path is too long for the name of its output (at most %zu bytes): give "
               "/Out a shorter path than '%s'", sizeof(path) - 1, trace);
      return ETWCAP_E_NAMETOOLONG;
    }
    out = path;
  }
  snprintf(written, written_cap, "%s", out);
  rc = report_collect_cpu(&r, trace, sel, err, errcap);
  if (!rc && sel && (sel->pid_given || sel->name) && r.cpu.count == 0) {
    if (sel->pid_given)
      snprintf(err, errcap, "%s: no process with pid %u has CPU samples: 'etwcap report %s' "
               "lists the processes", trace, (unsigned)sel->pid, trace);
    else
      snprintf(err, errcap, "%s: no process named '%s' has CPU samples: 'etwcap report %s' "
               "lists the processes", trace, sel->name, trace);
    rc = ETWCAP_E_USAGE;
  }
  if (rc) {
    report_release(&r);
    return rc;
  }
  /* A name no other user can predict, created exclusively: a link planted
   * beside the page cannot redirect the write (os_file.h). */
  rc = os_temp_name(out, tmp, sizeof(tmp));
  if (rc == ETWCAP_E_RANGE) {
    snprintf(err, errcap,
             "the path is too long for a temporary name beside it (at most %zu bytes): give "
             "/Out a shorter path than '%s'", sizeof(tmp) - 1 - strlen(".0123456789abcdef.tmp"),
             out);
    rc = ETWCAP_E_NAMETOOLONG;
  } else if (rc) {
    snprintf(err, errcap, "%s: cannot make a temporary name beside it: %s", out,
             etwcap_strerror(rc));
  }
  if (rc) {
    report_release(&r);
    return rc;
  }
  rc = write_output(&r, o, tmp, err, errcap);
  report_release(&r);
  if (rc == 0 && (rc = os_rename_replace(tmp, out)) != 0)
    snprintf(err, errcap, "cannot rename '%s' to '%s': %s", tmp, out, etwcap_strerror(rc));
  if (rc)
    os_remove(tmp);
  return rc;
}

int report_write_file(const char *trace, const char *out, char *written, size_t written_cap,
                      char *err, size_t errcap)
{
  static const struct output page = { 1, REPORT_EXPORT_FOLDED, ".report.html" };
  return produce(trace, out, NULL, &page, written, written_cap, err, errcap);
}

int report_convert_file(const char *trace, enum report_export_format format, const char *out,
                        const struct report_cpu_select *sel, char *written, size_t written_cap,
                        char *err, size_t errcap)
{
  struct output o;
  o.page = 0;
  o.format = format;
  o.default_suffix = format == REPORT_EXPORT_FOLDED ? ".folded.txt" : ".speedscope.json";
  return produce(trace, out, sel, &o, written, written_cap, err, errcap);
}

int report_after_capture(const char *capture)
{
  char written[4096], err[2048];
  int rc = report_write_file(capture, NULL, written, sizeof(written), err, sizeof(err));
  if (rc)
    log_error("/Report: %s (the capture %s is complete; 'etwcap report %s' tries again)", err,
              capture, capture);
  else
    log_info("wrote %s", written);
  return rc;
}
