/* See fake_netsh.h; the rules' sources are in tests/fakes/README.md. */
#include "tests/fakes/fake_netsh.h"

#include "src/base/error.h"
#include "src/base/os/os_file.h"

#include <stdio.h>
#include <string.h>

void fake_netsh_init(struct fake_netsh *f)
{
  memset(f, 0, sizeof(*f));
}

static int says(char *output, size_t output_size, int code, int *exit_code, const char *text)
{
  if (output_size)
    snprintf(output, output_size, "%s\r\n", text);
  *exit_code = code;
  return 0;
}

/* The traceFile="..." value of a start line: netsh's file. */
static int trace_file_of(const char *args, char *out, size_t size)
{
  const char *p = strstr(args, "\"traceFile="), *end;
  if (!p)
    return -1;
  p += strlen("\"traceFile=");
  if (!(end = strchr(p, '"')) || end == p)
    return -1;
  snprintf(out, size, "%.*s", (int)(end - p), p);
  return 0;
}

int fake_netsh_run(struct fake_netsh *f, const char *name, const char *args, unsigned timeout_ms,
                   int *exit_code, char *output, size_t output_size, char *why,
                   unsigned why_size)
{
  char file[1024];
  FILE *out;
  *exit_code = -1;
  if (output_size)
    output[0] = '\0';
  if (f->call_count < FAKE_NETSH_MAX_CALLS)
    snprintf(f->calls[f->call_count++], sizeof(f->calls[0]), "%s", args);
  if (f->on_run)
    f->on_run(f->on_run_ctx, args);
  if (strcmp(name, "netsh") != 0) {
    snprintf(why, why_size, "CreateProcessW: ERROR_FILE_NOT_FOUND (2)");
    return ETWCAP_E_NOENT;
  }
  if (f->runner_rc) {
    snprintf(why, why_size, "CreateProcessW: scripted failure");
    return f->runner_rc;
  }
  if (!strncmp(args, "trace start ", 12)) {
    if (f->start_times_out) {
      f->start_times_out = 0;
      f->capturing = 1;
      if (trace_file_of(args, file, sizeof(file)) == 0)
        snprintf(f->trace_file, sizeof(f->trace_file), "%s", file);
      snprintf(why, why_size, "netsh did not exit in %u ms", timeout_ms);
      return ETWCAP_E_TIMEOUT;
    }
    if (f->start_exit)
      return says(output, output_size, f->start_exit, exit_code, "(fake netsh) scripted failure");
    /* One 'netsh trace' session at a time. */
    if (f->capturing)
      return says(output, output_size, 1, exit_code,
                  "(fake netsh) a trace session is already in progress");
    if (!strstr(args, " capture=yes") || trace_file_of(args, file, sizeof(file)) != 0)
      return says(output, output_size, 1, exit_code, "(fake netsh) the parameter is incorrect");
    /* netsh creates its file at the start. */
    if ((out = os_fopen(file, "wb")) != NULL)
      fclose(out);
    snprintf(f->trace_file, sizeof(f->trace_file), "%s", file);
    f->capturing = 1;
    return says(output, output_size, 0, exit_code, "(fake netsh) trace started");
  }
  if (!strcmp(args, "trace stop")) {
    if (f->stop_exit)
      return says(output, output_size, f->stop_exit, exit_code, "(fake netsh) scripted failure");
    if (!f->capturing)
      return says(output, output_size, 1, exit_code,
                  "(fake netsh) there is no trace session currently in progress");
    f->capturing = 0;
    return says(output, output_size, 0, exit_code, "(fake netsh) trace stopped");
  }
  return says(output, output_size, 1, exit_code,
              "(fake netsh) the following command was not found");
}

size_t fake_netsh_count(const struct fake_netsh *f, const char *prefix)
{
  size_t i, n = 0;
  for (i = 0; i < f->call_count; i++)
    if (!strncmp(f->calls[i], prefix, strlen(prefix)))
      n++;
  return n;
}
