/* A model of netsh.exe's 'trace start' and 'trace stop' for the tests of
 * /NetworkCapture (packet_capture.c), behind collection_env's run_tool.
 * Each rule and its source is listed in tests/fakes/README.md.  Wine has no
 * 'netsh trace', so this model is all etwcap's netsh use is checked
 * against. */
#ifndef ETWCAP_FAKE_NETSH_H
#define ETWCAP_FAKE_NETSH_H

#include <stddef.h>

#define FAKE_NETSH_MAX_CALLS 8

struct fake_netsh {
  int capturing;                          /* a 'trace start' runs, not stopped */
  char trace_file[1024];                  /* its traceFile */
  char calls[FAKE_NETSH_MAX_CALLS][1200]; /* the arguments of each run */
  size_t call_count;
  /* Scripted: a non-zero exit code for the next start / stop (netsh says
   * why on its output), or a runner failure (netsh.exe cannot run). */
  int start_exit, stop_exit;
  int runner_rc;
  /* Scripted: the next start outlasts the runner's time limit, which
   * returns ETWCAP_E_TIMEOUT and leaves netsh running, and netsh then
   * turns capture on anyway. */
  int start_times_out;
  /* Called at each run (may be NULL), e.g. to note where the controller's
   * calls are at that moment. */
  void (*on_run)(void *ctx, const char *args);
  void *on_run_ctx;
};

void fake_netsh_init(struct fake_netsh *f);

/* collection_env.run_tool's contract, with `f` for the env's ctx (tests
 * pass it through their own wrapper). */
int fake_netsh_run(struct fake_netsh *f, const char *name, const char *args, unsigned timeout_ms,
                   int *exit_code, char *output, size_t output_size, char *why,
                   unsigned why_size);

/* How many runs had arguments starting with `prefix`. */
size_t fake_netsh_count(const struct fake_netsh *f, const char *prefix);

#endif
