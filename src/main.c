/* etwcap's entry point: parse, dispatch to the command's run function, turn
 * its error code into a message and an exit code.  Everything a command does
 * lives in its own cmd_*.c file. */
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/cli/cli.h"
#include "src/cli/cli_log_file.h"
#include "src/cli/command.h"
#include "src/os/os_proc.h"

#include <stdio.h>

static int run(int argc, char **argv)
{
  struct cli cli;
  int rc = cli_parse(&cli, argc, argv);
  FILE *logfile = NULL;
  char why[1536];

  if (rc) {
    fprintf(stderr, "etwcap: error: %s\n", cli.error ? cli.error : etwcap_strerror(rc));
    cli_release(&cli);
    return etwcap_exit_code(rc);
  }
  if (cli.help) {
    if (cli.cmd)
      cli_print_command_help(stdout, cli.cmd);
    else
      cli_print_tool_help(stdout);
    cli_release(&cli);
    return 0;
  }
  if ((cli.cmd->flags & CMD_NEEDS_WINDOWS) && !os_is_windows()) {
    fprintf(stderr,
            "etwcap: error: '%s' starts or controls ETW sessions, which only Windows has. "
            "Run etwcap.exe on Windows; 'etwcap plan' shows here what it would do.\n",
            cli.cmd->name);
    cli_release(&cli);
    return etwcap_exit_code(ETWCAP_E_NEEDS_WINDOWS);
  }
  if ((cli.cmd->flags & CMD_NEEDS_ADMIN) && !os_is_elevated()) {
    fprintf(stderr, "etwcap: error: '%s' needs Administrator rights. Run it from an elevated "
                    "prompt (Run as administrator) or as SYSTEM from Task Scheduler.\n",
            cli.cmd->name);
    cli_release(&cli);
    return etwcap_exit_code(ETWCAP_E_ACCES);
  }

  log_add_sink(log_stream_sink, stderr, LOG_INFO);
  rc = cli_log_file_open(&cli, &logfile, why, sizeof(why));
  if (rc) {
    fprintf(stderr, "etwcap: error: %s\n", why);
    cli_release(&cli);
    log_remove_all_sinks();
    return etwcap_exit_code(rc);
  }
  if (logfile)
    log_add_sink(log_file_sink, logfile, LOG_DEBUG);

  rc = cli.cmd->run(&cli);

  log_remove_all_sinks();
  if (logfile)
    fclose(logfile);
  cli_release(&cli);
  return etwcap_exit_code(rc);
}

int main(int argc, char **argv)
{
  int rc;
  os_process_setup();
  rc = os_get_utf8_argv(&argc, &argv);
  if (rc) {
    fprintf(stderr, "etwcap: error: cannot read the command line: %s\n", etwcap_strerror(rc));
    return etwcap_exit_code(rc);
  }
  rc = run(argc, argv);
  os_free_utf8_argv(argc, argv);
  return rc;
}
