/* A capture that checks itself: while a live capture runs, each session is
 * judged by what its kind can show through ControlTraceW(QUERY) — buffers
 * written, events and buffers lost — and, for the trigger session, by the
 * events its real-time reader delivered.  A week-long capture must not
 * find out at the end that it recorded no context switches.
 *
 *   kernel, busy (CSwitch, Dispatcher or CPU samples asked, /ThreadTime):
 *       buffers written within CAPTURE_HEALTH_BUSY_MS, else a warning;
 *   kernel (other), user: buffers written by the end of the first flush
 *       period; an idle session is a note, not an alarm;
 *   in-memory sessions (/InMemoryCircularBuffer) write only when flushed
 *       at stop: nothing to judge while they run;
 *   trigger: events delivered; buffers written that reach no reader are a
 *       warning, a session with nothing at all a note;
 *   every session: losses are counted, and the first of each kind warned;
 *   the kernel session: the mask Windows applied holds every bit asked.
 *
 * Warnings are logged at once (log_warn: the console's stderr, and the log
 * that becomes LogFile.txt), notes with log_info; both are kept for the
 * capture manifest's `health` section.  Time is the caller's monotonic
 * milliseconds (the collection's clock, virtual in tests) and its UTC
 * FILETIME.  Portable: nothing here calls the OS.
 *
 * Lifetime: a struct capture_health is plain data, owned by its caller
 * (struct collection); no allocation. */
#ifndef ETWCAP_CAPTURE_HEALTH_H
#define ETWCAP_CAPTURE_HEALTH_H

#include "etw/plan/plan.h"
#include "etw/session/controller.h"

#include <stddef.h>
#include <stdint.h>

#define CAPTURE_HEALTH_MAX_SESSIONS PLAN_MAX_SESSIONS
#define CAPTURE_HEALTH_MAX_TEXTS 4
#define CAPTURE_HEALTH_TEXT_MAX 320
/* "A couple of seconds" for a kernel session with context switches or CPU
 * samples: on any machine those fill a buffer at once. */
#define CAPTURE_HEALTH_BUSY_MS 3000u
/* A session without a flush timer writes a buffer when one is full; judge
 * it after this long. */
#define CAPTURE_HEALTH_NO_FLUSH_SEC 60u
/* Beyond a flush period: one query period, so a flush just before it is seen. */
#define CAPTURE_HEALTH_SLACK_MS 1000u
#define CAPTURE_HEALTH_MASK_WORDS PLAN_GROUP_MASK_WORDS

enum capture_health_kind {
  CAPTURE_HEALTH_KERNEL,
  CAPTURE_HEALTH_USER,
  CAPTURE_HEALTH_RUNDOWN,
  CAPTURE_HEALTH_TRIGGER
};

/* The kernel session's mask: asked, and as Windows applied it when it can
 * be read back.  `words` is 1 for classic EnableFlags, 8 for a
 * PERFINFO_GROUPMASK, 0 for a session without one. */
struct capture_health_mask {
  unsigned words;
  uint32_t asked[CAPTURE_HEALTH_MASK_WORDS];
  uint32_t applied[CAPTURE_HEALTH_MASK_WORDS];
  int applied_known;
};

/* What the collection says of a session when the capture starts. */
struct capture_health_spec {
  const char *name;
  enum capture_health_kind kind;
  int busy;                 /* kernel with CSwitch, Dispatcher or CPU samples */
  int in_memory;            /* EVENT_TRACE_BUFFERING_MODE: written only when flushed */
  uint32_t flush_timer_sec; /* 0: none */
  struct capture_health_mask mask;
};

struct capture_health_session {
  char name[PLAN_NAME_MAX];
  enum capture_health_kind kind;
  int busy, in_memory;
  uint32_t flush_timer_sec;
  struct capture_health_mask mask;
  int queried;              /* at least one query answered */
  uint32_t buffers_written;
  uint32_t events_lost;
  uint32_t buffers_lost;    /* log + real-time buffers lost */
  uint64_t delivered;       /* trigger session: events its reader delivered */
  int64_t first_event_filetime; /* when activity was first seen; 0 never */
  int judged;               /* its deadline has passed and it was judged */
  int warned_events_lost, warned_buffers_lost;
  char warnings[CAPTURE_HEALTH_MAX_TEXTS][CAPTURE_HEALTH_TEXT_MAX];
  size_t warning_count;
  char notes[CAPTURE_HEALTH_MAX_TEXTS][CAPTURE_HEALTH_TEXT_MAX];
  size_t note_count;
};

struct capture_health {
  struct capture_health_session sessions[CAPTURE_HEALTH_MAX_SESSIONS];
  size_t count;
  uint64_t start_ms;
};

void capture_health_init(struct capture_health *h, uint64_t start_ms);

/* Adds a session; a kernel mask read back without a bit that was asked is
 * warned at once.  ETWCAP_E_RANGE when CAPTURE_HEALTH_MAX_SESSIONS are in. */
int capture_health_add(struct capture_health *h, const struct capture_health_spec *spec);

/* A kernel session's group mask read back again (after a file switch):
 * `applied` replaces what was known, and a bit asked and not applied is a
 * warning at once, `what` (e.g. "lost PERF_PMC_PROFILE after its switch to
 * X") saying what it costs.  Nothing for a session without a group mask. */
void capture_health_remask(struct capture_health *h, const char *name,
                           const uint32_t applied[CAPTURE_HEALTH_MASK_WORDS], const char *what);

/* A query's answer for session `name` at `now_ms` (UTC `now_ft`). */
void capture_health_observe(struct capture_health *h, const char *name, uint64_t now_ms,
                            int64_t now_ft, const struct controller_status *st);

/* The trigger session's reader has delivered `events` in all so far. */
void capture_health_delivered(struct capture_health *h, const char *name, int64_t now_ft,
                              uint64_t events);

/* Judges each session whose deadline has passed by `now_ms` (once each). */
void capture_health_tick(struct capture_health *h, uint64_t now_ms);

/* The session `name`, or NULL. */
const struct capture_health_session *capture_health_find(const struct capture_health *h,
                                                         const char *name);

/* Warnings over all sessions. */
size_t capture_health_warnings(const struct capture_health *h);

/* "kernel", "user", "rundown", "trigger". */
const char *capture_health_kind_name(enum capture_health_kind kind);

#endif
