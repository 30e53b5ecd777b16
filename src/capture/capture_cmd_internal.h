/* Helpers shared by the live-collection command files (capture_cmd.c,
 * capture_cmd_collect.c, capture_cmd_stop.c, capture_cmd_admin.c).  Not for other modules:
 * they use capture_cmd.h. */
#ifndef ETWCAP_CAPTURE_CMD_INTERNAL_H
#define ETWCAP_CAPTURE_CMD_INTERNAL_H

#include "etw/plan/plan.h"
#include "src/base/log_memory.h"
#include "src/capture/capture_cmd.h"
#include "src/capture/collection.h"

#include <stddef.h>
#include <stdio.h>

struct cli;

/* Builds the plan for `command` ("collect", "start" or "run") from the
 * command line, for env's Windows; `data_file` (may be NULL) replaces the
 * DataFile; the trigger session serves `triggers` (collect's engine; NULL:
 * none).  Logs the reason on failure.  plan_release is needed in every
 * case. */
int capture_cmd_plan(const struct collection_env *env, const struct cli *cli,
                     const char *command, const char *data_file,
                     const struct trigger_engine *triggers, struct plan *plan);

/* Starts the in-memory log that becomes LogFile.txt, with the command line
 * and the OS as its first lines. */
void capture_cmd_log_begin(struct log_memory *log, const struct cli *cli);
void capture_cmd_log_end(struct log_memory *log);
/* Puts text logged by another process (the record's startLog) first. */
void capture_cmd_log_prepend(struct log_memory *log, const char *text);

/* Installs the console handler (console.h); a failure is a warning, not a
 * reason to refuse the capture. */
void capture_cmd_open_console(void);

/* The console for the status line and progress, or NULL (Task Scheduler). */
FILE *capture_cmd_console(void);

/* The stop path: stops the sessions, runs the rundown, removes the session
 * record `record` (may be NULL: the sessions it names are stopped, so it has
 * served, and a merge cut short by Ctrl+C is redone with 'etwcap merge'),
 * then merges and zips as the plan says (capture_finish.h) and prints the
 * result.  `trigger` is the trigger that ended the capture, or NULL. */
int capture_cmd_finish(struct collection *c, const struct plan *plan, const struct cli *cli,
                       struct log_memory *log, const struct manifest_trigger *trigger,
                       const char *record);

/* Runs the plan's rundown sessions (kernel and CLR, into the plan's files)
 * now; a Ctrl+C cuts the wait short, and none starts when Windows is
 * ending the process. */
void capture_cmd_rundown(struct collection *c, const struct plan *plan);

/* The record of a capture, from what collection_start did. */
int capture_cmd_write_record(const struct collection *c, const struct plan *plan,
                             const struct cli *cli, const char *mode,
                             const struct log_memory *log);

/* Refuses a capture whose sessions already run or whose disk is short,
 * and deletes the files of an earlier capture of the same name. */
int capture_cmd_prepare(const struct collection_env *env, const struct plan *plan);
/* The message for ETWCAP_E_CANCELLED from collection_start. */
void capture_cmd_cancelled_message(int rc);

/* The session-name prefix: /SessionName, or "etwcap". */
const char *capture_cmd_prefix(const struct cli *cli);

#endif
