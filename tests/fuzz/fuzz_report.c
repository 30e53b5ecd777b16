/* libFuzzer target: `etwcap report` over arbitrary bytes.  The input is
 * read as a trace (an ETL or a zip of them, in memory) and its whole page is
 * written, hostile strings and all, and its CPU stacks as `convert` writes
 * them (folded and speedscope); the same bytes are also read as a
 * capture manifest (report_manifest.c, on the session record's JSON
 * reader).  Any crash, leak or sanitizer report is a bug. */
#include "src/report/report_export.h"
#include "src/report/report_html.h"
#include "src/report/report_manifest.h"
#include "src/report/report_model.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct report r;
  struct report_manifest m;
  char err[1024];
  if (report_collect_memory(&r, data, size, "fuzz.etl", err, sizeof(err)) == 0) {
    static struct report_writer w;
    rw_init(&w, fopen("/dev/null", "wb"));
    if (w.f) {
      report_html_write(&w, &r);
      report_export_write(&w, &r, REPORT_EXPORT_FOLDED);
      report_export_write(&w, &r, REPORT_EXPORT_SPEEDSCOPE);
      report_writer_flush(&w);
      fclose(w.f);
    }
  }
  report_release(&r);
  report_manifest_parse((const char *)data, size, &m, err, sizeof(err));
  return 0;
}
