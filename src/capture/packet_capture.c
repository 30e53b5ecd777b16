/* See packet_capture.h. */
#include "src/capture/packet_capture.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/os/process_shell.h"

#include <stdio.h>
#include <string.h>

static int run_netsh(const struct collection_env *env, const char *args, unsigned timeout_ms,
                     int *code, char *output, size_t output_size, char *why, unsigned why_size)
{
  if (env->run_tool)
    return env->run_tool(env->ctx, "netsh", args, timeout_ms, code, output, output_size, why,
                         why_size);
  return process_run_system_tool_output("netsh", args, timeout_ms, code, output, output_size,
                                        why, why_size);
}

/* netsh's output on one log line: white space runs become one space, and
 * bytes that are not printable ASCII (its console code page) become '?'. */
static void one_line(const char *in, char *out, size_t size)
{
  size_t n = 0;
  int space = 0;
  for (; *in && n + 1 < size; in++) {
    unsigned char c = (unsigned char)*in;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      space = n > 0;
      continue;
    }
    if (space && n + 2 < size)
      out[n++] = ' ';
    space = 0;
    out[n++] = c >= 0x20 && c < 0x7F ? (char)c : '?';
  }
  out[n] = '\0';
}

/* Why one netsh run failed, for a message: the runner's reason, or the
 * exit code and what netsh said. */
static void failure_text(int rc, int code, const char *output, const char *why, char *text,
                         size_t size)
{
  char said[PACKET_CAPTURE_OUTPUT_MAX];
  one_line(output, said, sizeof(said));
  if (rc == ETWCAP_E_TIMEOUT)
    snprintf(text, size, "it did not finish in time and is left running");
  else if (rc)
    snprintf(text, size, "it could not run (%s): %s", why, etwcap_strerror(rc));
  else
    snprintf(text, size, "exit code %d%s%s", code, said[0] ? ": " : "", said);
}

int packet_capture_start(struct packet_capture *pc, const struct collection_env *env,
                         const struct plan_packet_capture *plan)
{
  char output[PACKET_CAPTURE_OUTPUT_MAX], why[512] = "", text[PACKET_CAPTURE_OUTPUT_MAX + 600];
  int code = -1, rc;
  memset(pc, 0, sizeof(*pc));
  log_info("packet capture: running netsh %s", plan->start_args);
  rc = run_netsh(env, plan->start_args, PACKET_CAPTURE_START_TIMEOUT_MS, &code, output,
                 sizeof(output), why, sizeof(why));
  if ((rc == 0 && code == 0) || rc == ETWCAP_E_TIMEOUT) {
    /* netsh runs in this folder; `stop` and `abort` may run elsewhere. */
    if (os_full_path(plan->trace_file, pc->trace_file, sizeof(pc->trace_file)) != 0)
      snprintf(pc->trace_file, sizeof(pc->trace_file), "%s", plan->trace_file);
    pc->netmon = plan->netmon;
    /* A netsh still starting may turn capture on later: held as running,
     * the stop that follows the failure runs 'netsh trace stop', as
     * PerfView stops whenever its marker says a start was tried. */
    pc->running = 1;
  }
  if (rc == 0 && code == 0) {
    log_info("packet capture is on ('netsh trace stop' or a reboot turns it off)");
    return 0;
  }
  failure_text(rc, code, output, why, text, sizeof(text));
  log_error("/NetworkCapture: 'netsh %s' failed (%s). %s, so the sessions "
            "are stopped again. netsh needs an elevated prompt and allows one 'netsh trace' at "
            "a time: 'netsh trace show status' shows one that runs, 'netsh trace stop' ends it.",
            plan->start_args, text,
            pc->running ? "'netsh trace stop' is run so that capture does not stay on"
                        : "Packet capture is off");
  return rc ? rc : ETWCAP_E_SYSTEM;
}

void packet_capture_adopt(struct packet_capture *pc, const char *trace_file, int netmon)
{
  memset(pc, 0, sizeof(*pc));
  snprintf(pc->trace_file, sizeof(pc->trace_file), "%s", trace_file ? trace_file : "");
  pc->netmon = netmon;
  pc->running = pc->trace_file[0] != '\0';
}

int packet_capture_stop(struct packet_capture *pc, const struct collection_env *env)
{
  char output[PACKET_CAPTURE_OUTPUT_MAX], why[512] = "", text[PACKET_CAPTURE_OUTPUT_MAX + 600];
  int code = -1, rc;
  if (!pc->running)
    return 0;
  pc->running = 0;
  log_info("packet capture: running netsh " PLAN_NETSH_STOP_ARGS "%s",
           pc->netmon ? " (netsh writes its report first: this can take minutes)" : "");
  rc = run_netsh(env, PLAN_NETSH_STOP_ARGS, PACKET_CAPTURE_STOP_TIMEOUT_MS, &code, output,
                 sizeof(output), why, sizeof(why));
  if (rc || code) {
    failure_text(rc, code, output, why, text, sizeof(text));
    log_warn("/NetworkCapture: 'netsh " PLAN_NETSH_STOP_ARGS "' failed (%s). Windows may "
             "still be capturing packets: run 'netsh " PLAN_NETSH_STOP_ARGS "' (the packets "
             "recorded so far are in the trace)%s%s.",
             text, pc->netmon ? "; netsh's capture may be incomplete: " : "",
             pc->netmon ? pc->trace_file : "");
    return rc ? rc : ETWCAP_E_SYSTEM;
  }
  if (pc->netmon) {
    int64_t size;
    if (env->file_size(env->ctx, pc->trace_file, &size) == 0)
      log_info("packet capture is off; netsh's capture for Network Monitor: %s", pc->trace_file);
    else
      log_warn("packet capture is off, but netsh wrote no '%s' for Network Monitor (the packets "
               "are in the trace)", pc->trace_file);
  } else {
    /* At most 1 MB of netsh's own session whose packets the trace has:
     * PerfView leaves it in its temporary cache, etwcap beside the data
     * file only until now. */
    log_info("packet capture is off");
    if (os_remove(pc->trace_file) == 0)
      log_debug("deleted netsh's own file '%s'", pc->trace_file);
  }
  return 0;
}
