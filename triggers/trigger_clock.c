/* See trigger_clock.h. */
#include "trigger_clock.h"

#include "os_time.h"

static int64_t system_now(void *ctx)
{
  (void)ctx;
  return os_time_now_utc_filetime();
}

static void system_sleep_until(void *ctx, int64_t when)
{
  int64_t now = os_time_now_utc_filetime();
  (void)ctx;
  while (when > now) {
    int64_t ms = (when - now + 9999) / 10000;
    os_time_sleep_ms(ms > 1000 ? 1000u : (unsigned)ms);
    now = os_time_now_utc_filetime();
  }
}

struct trigger_clock trigger_clock_system(void)
{
  struct trigger_clock c = { system_now, system_sleep_until, NULL };
  return c;
}

static int64_t virtual_now(void *ctx)
{
  return ((struct trigger_vclock *)ctx)->now;
}

static void virtual_sleep_until(void *ctx, int64_t when)
{
  trigger_vclock_set(ctx, when);
}

struct trigger_clock trigger_vclock_init(struct trigger_vclock *v, int64_t start)
{
  struct trigger_clock c = { virtual_now, virtual_sleep_until, v };
  v->now = start;
  return c;
}

void trigger_vclock_set(struct trigger_vclock *v, int64_t now)
{
  if (now > v->now)
    v->now = now;
}
