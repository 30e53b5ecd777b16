/* libFuzzer target for the /Providers item parser (and the keyword-list
 * parser that /KernelEvents and /ClrEvents use): any bytes must give either
 * a spec or an error message, never a crash, a leak or undefined behaviour.
 * A parsed spec is also turned into filter descriptors, so the wire-format
 * builder sees fuzzed filters too. */
#include "etw/event/keywords.h"
#include "etw/event/providers_spec.h"
#include "etw/plan/plan.h"
#include "src/base/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  char err[512];
  struct provider_spec spec;
  uint64_t kw;
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  err[0] = '\0';
  if (provider_spec_parse(text, &spec, err, sizeof(err)) == 0) {
    struct plan_provider p;
    memset(&p, 0, sizeof(p));
    p.guid = spec.provider.guid;
    memcpy(p.pids, spec.pids, sizeof(p.pids));
    p.pid_count = spec.pid_count;
    p.exe_names = spec.exe_names;
    p.events = spec.events;
    p.stack_events = spec.stack_events;
    p.args = spec.args;
    p.arg_count = spec.arg_count;
    spec.exe_names = NULL;
    spec.args = NULL;
    spec.arg_count = 0;
    (void)plan_provider_build_filters(&p, "etwcap");
    plan_provider_release(&p);
    provider_spec_release(&spec);
  } else if (!memchr(err, '\0', sizeof(err))) {
    abort(); /* the message must always be terminated */
  }
  (void)keywords_parse(&keywords_kernel, text, &kw, err, sizeof(err));
  (void)keywords_parse(&keywords_clr, text, &kw, err, sizeof(err));
  free(text);
  return 0;
}
