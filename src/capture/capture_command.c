/* See capture_command.h. */
#include "src/capture/capture_command.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/os/process_shell.h"
#include "triggers/trigger_output.h"

#include <stdio.h>
#include <string.h>

static int child_start(struct capture_command *c, char *why, unsigned why_size)
{
  const struct collection_env *env = c->env;
  if (env->child_start)
    return env->child_start(env->ctx, c->line, &c->child, why, why_size);
  return process_child_start(c->line, (struct process_child **)&c->child, why, why_size);
}

static int child_exited(struct capture_command *c, int *code)
{
  const struct collection_env *env = c->env;
  if (env->child_start)
    return env->child_exited(env->ctx, c->child, code);
  return process_child_exited(c->child, code);
}

static void child_close(struct capture_command *c, int kill)
{
  const struct collection_env *env = c->env;
  if (env->child_start)
    env->child_close(env->ctx, c->child, kill);
  else
    process_child_close(c->child, kill);
  c->child = NULL;
}

int capture_command_start(struct capture_command *c, const struct collection_env *env,
                          const char *line)
{
  char why[256] = "";
  int rc;
  memset(c, 0, sizeof(*c));
  c->env = env;
  c->line = line;
  env->sleep_ms(env->ctx, 100);
  log_info("running: %s", line);
  rc = child_start(c, why, sizeof(why));
  if (rc)
    log_error("cannot run '%s' (%s): %s; the sessions are stopped", line, why,
              etwcap_strerror(rc));
  return rc;
}

int capture_command_done(struct capture_command *c, struct manifest_trigger *fired)
{
  int code = 0, rc;
  if (!c->child || c->exited)
    return c->exited;
  rc = child_exited(c, &code);
  if (rc == 0)
    return 0;
  c->exited = 1;
  c->code = code;
  if (rc < 0)
    snprintf(c->detail, sizeof(c->detail), "its state cannot be read (%s)",
             etwcap_strerror(rc));
  else
    snprintf(c->detail, sizeof(c->detail), "it exited with code %d", code);
  fired->name = "run";
  fired->detail = c->detail;
  fired->filetime = c->env->utc_now(c->env->ctx);
  return 1;
}

void capture_command_end(struct capture_command *c)
{
  if (!c->child)
    return;
  if (!c->exited)
    log_warn("'%s' is still running after the capture: ending it", c->line);
  else if (c->code != 0)
    log_warn("'%s' exited with code %d (0x%x)", c->line, c->code, (unsigned)c->code);
  child_close(c, !c->exited);
}

static int run_shell(const struct collection_env *env, const char *line, int *exit_code,
                     char *why, unsigned why_size)
{
  if (env->run_command)
    return env->run_command(env->ctx, line, PROCESS_STOP_COMMAND_TIMEOUT_MS, exit_code, why,
                            why_size);
  return process_run_shell(line, PROCESS_STOP_COMMAND_TIMEOUT_MS, exit_code, why, why_size);
}

void capture_stop_command(const struct collection_env *env, const char *command,
                          const char *output)
{
  char line[4096], why[512];
  int code = 0, rc;
  if (!command || !*command)
    return;
  if (trigger_stop_command(command, output, line, sizeof(line)) != 0) {
    log_error("/StopCommand: the command is too long once %%OUTPUTDIR%% and %%OUTPUTBASENAME%% "
              "are substituted");
    return;
  }
  log_info("/StopCommand: running cmd.exe /c %s", line);
  why[0] = '\0';
  rc = run_shell(env, line, &code, why, sizeof(why));
  if (rc == ETWCAP_E_TIMEOUT)
    log_warn("/StopCommand did not finish in %u s; it is left running",
             PROCESS_STOP_COMMAND_TIMEOUT_MS / 1000);
  else if (rc)
    log_error("/StopCommand could not run (%s): %s", why, etwcap_strerror(rc));
  else
    log_info("/StopCommand exited with code %d", code);
}
