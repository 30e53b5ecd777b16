/* /NetworkCapture's netsh: 'netsh trace start ...' once the sessions run,
 * 'netsh trace stop' once they have stopped (PerfView's CommandProcessor
 * Start and DisableNetMonTrace), through the collection environment's tool
 * runner (collection_env.h) or process_shell.h's.  What to run is the
 * plan's (struct plan_packet_capture); the session record keeps a running
 * capture so that `stop` and `abort`, in another process, end it too.
 *
 * Lifetime: a struct packet_capture lives inside struct collection. */
#ifndef ETWCAP_PACKET_CAPTURE_H
#define ETWCAP_PACKET_CAPTURE_H

#include "etw/plan/plan.h"
#include "etw/session/controller.h"
#include "src/capture/collection_env.h"

/* etwcap's limits (PerfView waits as long as netsh takes): starting is
 * quick; stopping a /NetMonCapture makes netsh write its report, which
 * "can take a while" (PerfView's log line), so minutes. */
#define PACKET_CAPTURE_START_TIMEOUT_MS 60000u
#define PACKET_CAPTURE_STOP_TIMEOUT_MS 600000u
#define PACKET_CAPTURE_OUTPUT_MAX 4096u

struct packet_capture {
  char trace_file[CONTROLLER_PATH_MAX]; /* netsh's traceFile; "" when there is none */
  int netmon;                           /* kept for Network Monitor, else thrown away */
  int running;                          /* started (or known from a record), not stopped */
};

/* Runs 'netsh <plan->start_args>'.  0 and pc running; else the error, logged
 * with what netsh said: the capture must not go on without the packets it
 * was asked for. */
int packet_capture_start(struct packet_capture *pc, const struct collection_env *env,
                         const struct plan_packet_capture *plan);

/* A capture known from a session record (started by another process). */
void packet_capture_adopt(struct packet_capture *pc, const char *trace_file, int netmon);

/* Runs 'netsh trace stop' if pc runs; then deletes the throwaway file, or
 * names the NetMon file.  A failure is a warning that says packet capture
 * may still be on and how to end it; returns 0 or that error. */
int packet_capture_stop(struct packet_capture *pc, const struct collection_env *env);

#endif
