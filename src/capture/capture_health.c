/* The capture's health checks (see capture_health.h). */
#include "src/capture/capture_health.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/strutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *capture_health_kind_name(enum capture_health_kind kind)
{
  switch (kind) {
  case CAPTURE_HEALTH_KERNEL:
    return "kernel";
  case CAPTURE_HEALTH_USER:
    return "user";
  case CAPTURE_HEALTH_RUNDOWN:
    return "rundown";
  case CAPTURE_HEALTH_TRIGGER:
    return "trigger";
  }
  return "?";
}

enum { HEALTH_NOTE, HEALTH_WARNING };

/* A warning (logged as one) or a note (logged as information), kept for
 * the manifest. */
static void say(struct capture_health_session *s, int is_warning, const char *fmt, ...)
    LOG_PRINTF(3, 4);
static void say(struct capture_health_session *s, int is_warning, const char *fmt, ...)
{
  char text[CAPTURE_HEALTH_TEXT_MAX];
  size_t *count = is_warning ? &s->warning_count : &s->note_count;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  if (*count < CAPTURE_HEALTH_MAX_TEXTS)
    snprintf((is_warning ? s->warnings : s->notes)[(*count)++], CAPTURE_HEALTH_TEXT_MAX, "%s",
             text);
  log_msg(is_warning ? LOG_WARN : LOG_INFO, "'%s' %s", s->name, text);
}

void capture_health_init(struct capture_health *h, uint64_t start_ms)
{
  memset(h, 0, sizeof(*h));
  h->start_ms = start_ms;
}

static struct capture_health_session *find(struct capture_health *h, const char *name)
{
  size_t i;
  for (i = 0; i < h->count; i++)
    if (str_caseeq(h->sessions[i].name, name))
      return &h->sessions[i];
  return NULL;
}

const struct capture_health_session *capture_health_find(const struct capture_health *h,
                                                         const char *name)
{
  return find((struct capture_health *)h, name);
}

/* The asked bits the applied mask lacks, as "word 1: 0x00000206, ...". */
static int missing_bits(const struct capture_health_mask *m, char *buf, size_t size)
{
  size_t n = 0;
  unsigned w;
  int any = 0;
  buf[0] = '\0';
  for (w = 0; w < m->words && w < CAPTURE_HEALTH_MASK_WORDS; w++) {
    uint32_t lost = m->asked[w] & ~m->applied[w];
    if (!lost || n >= size)
      continue;
    n += (size_t)snprintf(buf + n, size - n, "%sword %u: 0x%08lX", any ? ", " : "", w,
                          (unsigned long)lost);
    any = 1;
  }
  return any;
}

int capture_health_add(struct capture_health *h, const struct capture_health_spec *spec)
{
  struct capture_health_session *s;
  char lost[160];
  if (h->count == CAPTURE_HEALTH_MAX_SESSIONS)
    return ETWCAP_E_RANGE;
  s = &h->sessions[h->count++];
  memset(s, 0, sizeof(*s));
  snprintf(s->name, sizeof(s->name), "%s", spec->name);
  s->kind = spec->kind;
  s->busy = spec->busy;
  s->in_memory = spec->in_memory;
  s->flush_timer_sec = spec->flush_timer_sec;
  s->mask = spec->mask;
  if (s->mask.words > CAPTURE_HEALTH_MASK_WORDS)
    s->mask.words = CAPTURE_HEALTH_MASK_WORDS;
  if (s->mask.applied_known && missing_bits(&s->mask, lost, sizeof(lost)))
    say(s, HEALTH_WARNING,
        "runs with a kernel mask that lacks bits that were asked (%s): the events of those "
        "groups are not being recorded",
        lost);
  return 0;
}

void capture_health_remask(struct capture_health *h, const char *name,
                           const uint32_t applied[CAPTURE_HEALTH_MASK_WORDS], const char *what)
{
  struct capture_health_session *s = find(h, name);
  char lost[160];
  if (!s || s->mask.words != CAPTURE_HEALTH_MASK_WORDS)
    return;
  memcpy(s->mask.applied, applied, sizeof(s->mask.applied));
  s->mask.applied_known = 1;
  if (missing_bits(&s->mask, lost, sizeof(lost)))
    say(s, HEALTH_WARNING, "%s (%s): the events of those groups are not being recorded", what,
        lost);
}

static int active(const struct capture_health_session *s)
{
  return s->buffers_written > 0 || s->delivered > 0;
}

static void count_losses(struct capture_health_session *s)
{
  if (s->events_lost && !s->warned_events_lost) {
    s->warned_events_lost = 1;
    say(s, HEALTH_WARNING,
        "is losing events (%lu so far): its buffers fill faster than Windows writes them; a "
        "larger /BufferSizeMB helps",
        (unsigned long)s->events_lost);
  }
  if (s->buffers_lost && !s->warned_buffers_lost) {
    s->warned_buffers_lost = 1;
    say(s, HEALTH_WARNING, "has lost %lu buffers so far: %s", (unsigned long)s->buffers_lost,
        s->kind == CAPTURE_HEALTH_TRIGGER
            ? "its real-time reader does not keep up, so triggers may miss their event"
            : "the disk does not keep up with the session");
  }
}

void capture_health_observe(struct capture_health *h, const char *name, uint64_t now_ms,
                            int64_t now_ft, const struct controller_status *st)
{
  struct capture_health_session *s = find(h, name);
  (void)now_ms;
  if (!s)
    return;
  s->queried = 1;
  s->buffers_written = st->buffers_written;
  s->events_lost = st->events_lost;
  s->buffers_lost = st->log_buffers_lost + st->realtime_buffers_lost;
  if (!s->first_event_filetime && active(s))
    s->first_event_filetime = now_ft;
  count_losses(s);
}

void capture_health_delivered(struct capture_health *h, const char *name, int64_t now_ft,
                              uint64_t events)
{
  struct capture_health_session *s = find(h, name);
  if (!s)
    return;
  s->delivered = events;
  if (!s->first_event_filetime && events)
    s->first_event_filetime = now_ft;
}

/* When the session must have shown activity, in ms from the start; 0 when
 * nothing can be judged while it runs. */
static uint64_t deadline_ms(const struct capture_health_session *s)
{
  if (s->in_memory)
    return 0;
  if (s->kind == CAPTURE_HEALTH_KERNEL && s->busy)
    return CAPTURE_HEALTH_BUSY_MS;
  return (uint64_t)(s->flush_timer_sec ? s->flush_timer_sec : CAPTURE_HEALTH_NO_FLUSH_SEC) *
             1000u +
         CAPTURE_HEALTH_SLACK_MS;
}

static void judge(struct capture_health_session *s, uint64_t elapsed_ms)
{
  double sec = (double)elapsed_ms / 1000.0;
  if (s->kind == CAPTURE_HEALTH_TRIGGER) {
    /* More than one buffer: the first may hold only the logfile header,
     * which is not a trigger's event. */
    if (s->buffers_written > 1 && s->delivered == 0)
      say(s, HEALTH_WARNING,
          "wrote %lu buffers in %.0f s but no event reached the trigger engine: the real-time "
          "reader is not reading, so no ETW trigger can fire",
          (unsigned long)s->buffers_written, sec);
    else if (!active(s))
      say(s, HEALTH_NOTE,
          "delivered no event in the first %.0f s: the watched providers have been quiet so far",
          sec);
    return;
  }
  if (active(s))
    return;
  if (!s->queried) {
    say(s, HEALTH_WARNING, "answered no query in %.0f s: its health cannot be seen", sec);
    return;
  }
  if (s->kind == CAPTURE_HEALTH_KERNEL && s->busy)
    say(s, HEALTH_WARNING,
        "wrote no buffer in %.0f s although context switches or CPU samples were asked: the "
        "kernel events are probably not being recorded (run 'etwcap selftest' on this host)",
        sec);
  else
    say(s, HEALTH_NOTE, "wrote nothing in the first %.0f s: its providers have been idle so far",
        sec);
}

void capture_health_tick(struct capture_health *h, uint64_t now_ms)
{
  uint64_t elapsed = now_ms - h->start_ms;
  size_t i;
  for (i = 0; i < h->count; i++) {
    struct capture_health_session *s = &h->sessions[i];
    uint64_t due = deadline_ms(s);
    if (s->judged || !due || elapsed < due)
      continue;
    s->judged = 1;
    judge(s, elapsed);
  }
}

size_t capture_health_warnings(const struct capture_health *h)
{
  size_t i, n = 0;
  for (i = 0; i < h->count; i++)
    n += h->sessions[i].warning_count;
  return n;
}
