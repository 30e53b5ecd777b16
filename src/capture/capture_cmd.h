/* The live-collection commands, one function each: the run_in of the rows
 * of cmd_collect.c, cmd_run.c, cmd_start.c, cmd_snapshot.c, cmd_stop.c,
 * cmd_abort.c and cmd_list_sessions.c, given the parsed command line and
 * the surroundings (collection_env.h).  The product runs them with the
 * system's controller and clock; tests run the same rows with fakes, so
 * the same code runs in both.
 *
 * Process model (README.md, "Live collection"): `start` leaves the sessions
 * running, writes the session record next to the data file and exits;
 * `stop` (any process, any user, any time later) reads the record, stops
 * the sessions, runs the rundown, merges and zips; `collect` is start, wait
 * and stop in one process; `abort` stops every etwcap session without
 * merging. */
#ifndef ETWCAP_CAPTURE_CMD_H
#define ETWCAP_CAPTURE_CMD_H

#include "src/capture/collection.h"
#include "src/capture/collection_env.h"

struct cli;

/* collect: the trigger engine's cycle (capture_cmd_collect.c), a plain
 * collect being one collection with no trigger. */
int capture_cmd_collect(const struct cli *cli, const struct collection_env *env);
/* run: collect around a command (its positionals), from just before it
 * starts until it exits, /MaxCollectSec or S; a command still running
 * then is ended (PerfView's Run). */
int capture_cmd_run(const struct cli *cli, const struct collection_env *env);
int capture_cmd_start(const struct cli *cli, const struct collection_env *env);
/* snapshot: asks the running collect of the DataFile for a snapshot. */
int capture_cmd_snapshot(const struct cli *cli, const struct collection_env *env);
int capture_cmd_stop(const struct cli *cli, const struct collection_env *env);
int capture_cmd_abort(const struct cli *cli, const struct collection_env *env);
int capture_cmd_list(const struct cli *cli, const struct collection_env *env);

/* The run function of every command with a run_in (command.h): runs it
 * against the system, its controller and surroundings (controller_system,
 * collection_env_system). */
int capture_cmd_on_system(const struct cli *cli);

#endif
