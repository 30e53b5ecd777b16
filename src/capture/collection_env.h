/* What a capture needs from its surroundings, as one struct: the session
 * controller, a clock, file sizes and free disk space, and the Windows
 * version.  The product
 * uses the real ones (collection_env_system); the lifecycle tests put a
 * fake controller and a virtual clock in, so waits of minutes (rundown,
 * /MaxCollectSec) take no time and no test sleeps for real. */
#ifndef ETWCAP_COLLECTION_ENV_H
#define ETWCAP_COLLECTION_ENV_H

#include "etw/event/tl_encode.h"
#include "etw/session/consumer.h"
#include "etw/session/controller.h"
#include "src/base/log.h"
#include "src/base/os/os_version.h"
#include "triggers/os/eventlog.h"
#include "triggers/trigger_engine.h"

#include <stddef.h>
#include <stdint.h>

struct registry;
struct container_host;

struct collection_env {
  struct controller *ctl;
  void *ctx;                                   /* passed to the functions below */
  uint64_t (*now_ms)(void *ctx);               /* monotonic */
  void (*sleep_ms)(void *ctx, unsigned ms);
  int64_t (*utc_now)(void *ctx);               /* FILETIME */
  /* 0 and the size, or ETWCAP_E_NOENT. */
  int (*file_size)(void *ctx, const char *path, int64_t *size);
  /* Free bytes on the volume holding `path` (a file that may not exist yet). */
  int (*free_disk)(void *ctx, const char *path, uint64_t *bytes);
  /* The Windows the capture plans for when os_known (plan_cli.h; /TargetOS
   * overrides it): the running one, read by collection_env_system (none off
   * Windows, and the plan assumes OS_VERSION_DEFAULT_*); tests set theirs. */
  struct os_version os;
  int os_known;
  /* Live triggers (capture_cmd_collect.c).  NULL members: the system's
   * (the real-time consumer, PDH, the event log, cmd.exe); tests put
   * fakes here. */
  struct consumer *consumer;
  const struct trigger_counter_source *counters;
  const struct eventlog_source *eventlog;
  /* The EventSource provider-data hand-off (eventsource_registry.h): the
   * system's HKLM when NULL. */
  const struct registry *registry;
  /* /StopCommand: 0 with *exit_code, or ETWCAP_E_* with `why`. */
  int (*run_command)(void *ctx, const char *line, unsigned timeout_ms, int *exit_code,
                     char *why, unsigned why_size);
  /* An event of etwcap's own provider (own_provider.h), for
   * /MonitorPerfCounter: 0, or an error with `why`; NULL: the provider
   * registered with ETW. */
  int (*own_event)(void *ctx, const struct tl_encoded *e, char *why, size_t why_size);
  /* A tool of the system folder with its output caught (netsh, for
   * /NetworkCapture), as process_shell.h's process_run_system_tool_output;
   * NULL: that. */
  int (*run_tool)(void *ctx, const char *name, const char *args, unsigned timeout_ms,
                  int *exit_code, char *output, size_t output_size, char *why,
                  unsigned why_size);
  /* /EventLog entries (operator_log.h); NULL: the Application log. */
  int (*operator_log)(void *ctx, unsigned id, const char *text);
  /* run's command, as process_shell.h's process_child_* (all three, or
   * NULL: those). */
  int (*child_start)(void *ctx, const char *line, void **child, char *why, unsigned why_size);
  int (*child_exited)(void *ctx, void *child, int *exit_code);
  void (*child_close)(void *ctx, void *child, int kill);
  /* The host's containers (container_host.h); NULL: the system's. */
  const struct container_host *containers;
};

/* The real clock and file system around `ctl`. */
void collection_env_system(struct collection_env *env, struct controller *ctl);

/* One /EventLog entry (operator_log.h ids) through env's seam; a failure
 * is logged, once per capture, and otherwise ignored: the capture matters
 * more than its report. */
void collection_env_report(const struct collection_env *env, unsigned id, const char *fmt, ...)
    LOG_PRINTF(3, 4);

#endif
