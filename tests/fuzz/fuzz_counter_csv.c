/* libFuzzer target: the typeperf CSV counter log of `replay /CounterLog`
 * (triggers/trigger_csv.c), from arbitrary bytes, and a few reads of what
 * it accepted through the engine's counter seam. */
#include "triggers/trigger_csv.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct trigger_csv *c = NULL;
  char err[512];
  if (trigger_csv_parse(&c, (const char *)data, size, "fuzz.csv", err, sizeof(err)) == 0) {
    struct trigger_counter_source s = trigger_csv_source(c);
    struct trigger_counter_spec spec;
    void *handle = NULL;
    double v;
    memset(&spec, 0, sizeof(spec));
    /* The counter the seeds hold, so reads are reached. */
    strcpy(spec.category, "Processor");
    strcpy(spec.counter, "% Processor Time");
    strcpy(spec.instance, "_Total");
    if (trigger_csv_columns(c) && s.open(s.ctx, &spec, &handle, err, sizeof(err)) == 0) {
      s.read(s.ctx, handle, trigger_csv_first_time(c), &v);
      s.read(s.ctx, handle, trigger_csv_last_time(c), &v);
      s.close(s.ctx, handle);
    }
    trigger_csv_free(c);
  }
  return 0;
}
