/* Opening the /LogFile every command takes.  Log lines are appended to
 * it, so it must be none of the files the command reads or writes: a
 * trace named as the log would have lines appended to its buffers.  Files
 * are told apart by identity (os_path_id), not by name, so ./X.etl, a hard
 * link or a symbolic link to X.etl are X.etl.
 *
 * The command's files compared are its positionals (unless they are a
 * command line, CMD_REST_IS_ARGS) and its /DataFile, /Out and /CounterLog
 * values, defaults included.  Names a command derives from them (a merge's
 * session files, a report's default NAME.report.html) are not known here. */
#ifndef ETWCAP_CLI_LOG_FILE_H
#define ETWCAP_CLI_LOG_FILE_H

#include "src/cli/cli.h"

#include <stddef.h>
#include <stdio.h>

/* Opens cli->q.log_file for appending into *out (NULL without /LogFile).
 * ETWCAP_E_USAGE when it is one of the command's files: nothing is written
 * to it, and a log file this call created is removed again.  Another
 * failure is the OS error.  On failure `why` (cap bytes) says what, for
 * the CLI to print. */
int cli_log_file_open(const struct cli *cli, FILE **out, char *why, size_t cap);

#endif
