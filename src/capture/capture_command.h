/* The commands a capture runs: `run`'s command, started once the sessions
 * are up, watched at each turn of the wait and ended after the capture is
 * written (PerfView's Run); and /StopCommand after each collection.  Both
 * through the collection environment's seams (collection_env.h), or
 * process_shell.h's. */
#ifndef ETWCAP_CAPTURE_COMMAND_H
#define ETWCAP_CAPTURE_COMMAND_H

#include "src/capture/collection_env.h"
#include "src/finish/capture_manifest.h"

struct capture_command {
  const struct collection_env *env;
  const char *line;
  void *child;
  int exited, code;
  char detail[96];
};

/* After 100 ms for the sessions' start events (as PerfView's Run waits),
 * starts `line`.  0, or the error (logged). */
int capture_command_start(struct capture_command *c, const struct collection_env *env,
                          const char *line);
/* Has the command ended the capture?  1 with `fired` filled ("run" and how
 * it ended), else 0. */
int capture_command_done(struct capture_command *c, struct manifest_trigger *fired);
/* After the capture is written: a command still running is ended, as
 * PerfView ends it; a failing exit code is worth a warning. */
void capture_command_end(struct capture_command *c);

/* /StopCommand with %OUTPUTDIR% and %OUTPUTBASENAME% of `output`, through
 * cmd.exe, waited for up to PerfView's 60 s; its outcome is logged. */
void capture_stop_command(const struct collection_env *env, const char *command,
                          const char *output);

#endif
