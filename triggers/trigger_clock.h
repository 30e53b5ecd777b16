/* The clock seam of the trigger loop (DESIGN.md "clock"): now and
 * sleep-until, as a table with an opaque context.  The system clock
 * (os_time) drives a real capture; the virtual clock drives replay (set to
 * each event's timestamp) and tests, so trigger timing is exact there.
 * The engine itself never asks for the time; the loop that feeds it does. */
#ifndef ETWCAP_TRIGGER_CLOCK_H
#define ETWCAP_TRIGGER_CLOCK_H

#include <stdint.h>

struct trigger_clock {
  /* UTC FILETIME now. */
  int64_t (*now)(void *ctx);
  /* Waits until `when` (a virtual clock jumps there). */
  void (*sleep_until)(void *ctx, int64_t when);
  void *ctx;
};

/* The real clock: os_time_now_utc_filetime and os_time_sleep_ms. */
struct trigger_clock trigger_clock_system(void);

struct trigger_vclock {
  int64_t now;
};

/* A virtual clock starting at `start`; sleeping moves it forward, never back. */
struct trigger_clock trigger_vclock_init(struct trigger_vclock *v, int64_t start);
/* Sets the virtual time (ignored when it would go backwards). */
void trigger_vclock_set(struct trigger_vclock *v, int64_t now);

#endif
