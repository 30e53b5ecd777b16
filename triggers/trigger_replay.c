/* See trigger_replay.h. */
#include "triggers/trigger_replay.h"

#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_source.h"
#include "etw/etl/etl_timeorder.h"
#include "etw/etl/etl_zip.h"
#include "src/base/alloc.h"
#include "src/base/byte_source.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"

#include <stdio.h>
#include <string.h>

#define REPLAY_MAX_FILES 64

/* The latest time a replayed event may have: .NET's DateTime.MaxValue
 * (9999-12-31 23:59:59.9999999 UTC, learn.microsoft.com "DateTime.MaxValue
 * Field"), the end of what PerfView can show, as a FILETIME.  A time after
 * it or before 1601 (a negative FILETIME) comes only from a damaged clock in
 * the logfile header (StartTime, PerfFreq, CpuSpeedInMHz); carried on, it
 * would overflow the sums of times in the engine and in the fires' raw
 * timestamps. */
#define REPLAY_FT_MAX INT64_C(2650467743999999999)

struct source {
  const struct etl_clock *clock;
  int clock_10mhz; /* scale 1.0: FILETIME = base + raw */
  struct etl_zip *zip;
  struct byte_source io;
  int io_open;
  struct etl_reader *r;
  struct etl_timeorder *t;
  struct etw_event ev;
  int has;
  int64_t ft;
  char display[1024];
};

struct replay {
  struct source src[REPLAY_MAX_FILES];
  unsigned n;
  struct trigger_engine *e;
  trigger_fire_fn on_fire;
  void *ctx;
  const struct etl_clock *clock; /* of the first file */
};

uint64_t trigger_replay_raw_at(const struct etl_clock *c, int64_t ft)
{
  double guess;
  uint64_t raw;
  int i;
  if (c->scale <= 0)
    return 0;
  /* In double: ft - base may not fit an int64_t when the base is odd. */
  guess = ((double)ft - (double)c->base) / c->scale;
  raw = guess <= 0 ? 0 : guess >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)guess;
  raw = raw > 4 ? raw - 4 : 0;
  for (i = 0; i < 64 && etl_clock_filetime(c, raw) < ft; i++)
    raw++;
  return raw;
}

static void forward_fire(void *ctx, const struct trigger_fire *f)
{
  struct replay *rp = ctx;
  struct trigger_fire copy = *f;
  if (!copy.has_raw && rp->clock) {
    copy.raw = trigger_replay_raw_at(rp->clock, copy.filetime);
    copy.has_raw = 1;
  }
  if (rp->on_fire)
    rp->on_fire(rp->ctx, &copy);
}

static void close_source(struct source *s)
{
  etl_timeorder_free(s->t);
  etl_reader_free(s->r);
  if (s->io_open)
    byte_source_close(&s->io);
  etl_zip_close(s->zip);
  memset(s, 0, sizeof(*s));
}

static int reader_error(struct source *s, int rc, char *err, size_t cap)
{
  if (s->zip && etl_zip_error(s->zip)[0])
    snprintf(err, cap, "%s", etl_zip_error(s->zip)); /* the zip's own damage, by name */
  else if (s->r && etl_reader_error(s->r)[0])
    snprintf(err, cap, "%s", etl_reader_error(s->r));
  else
    snprintf(err, cap, "%s: %s", s->display, etwcap_strerror(rc));
  return rc;
}

static int start_source(struct source *s, char *err, size_t cap)
{
  int rc = etl_reader_open(&s->r, &s->io, s->display);
  if (rc == 0)
    rc = etl_timeorder_open(&s->t, s->r);
  if (rc)
    return reader_error(s, rc, err, cap);
  s->clock = etl_reader_clock(s->r);
  s->clock_10mhz = s->clock->scale == 1.0;
  return 0;
}

/* The current event's UTC time into s->ft, or ETWCAP_E_CORRUPT when it
 * lies outside 1601..9999 (REPLAY_FT_MAX).  The range is checked in double
 * first: within it, the exact sums below cannot overflow (the rounding of
 * the check is some thousand ticks, the margin to INT64_MAX 6.5e18). */
static int event_time(struct source *s, char *err, size_t cap)
{
  uint64_t ts = s->ev.timestamp;
  double approx = (double)s->clock->base + s->clock->scale * (double)ts;
  if (!(approx >= 0.0 && approx <= (double)REPLAY_FT_MAX)) {
    snprintf(err, cap, "%s: an event's timestamp %llu is %s on the trace's clock (%g x 100 ns "
             "per tick from %lld): the clock fields of the logfile header are damaged, so the "
             "trace cannot be replayed", s->display, (unsigned long long)ts,
             approx < 0.0 ? "before 1601" : "after 9999", s->clock->scale,
             (long long)s->clock->base);
    return ETWCAP_E_CORRUPT;
  }
  /* A 10 MHz clock (QPC at 10^7, system time) needs no floating point:
   * trunc(1.0 * raw) is raw below 2^53, so this equals etl_clock_filetime. */
  if (s->clock_10mhz && ts < (UINT64_C(1) << 53))
    s->ft = s->clock->base + (int64_t)ts;
  else
    s->ft = etl_clock_filetime(s->clock, ts);
  return 0;
}

static int advance_source(struct source *s, char *err, size_t cap)
{
  int rc = etl_timeorder_next(s->t, &s->ev);
  if (rc < 0)
    return reader_error(s, rc, err, cap);
  s->has = rc == 1;
  return s->has ? event_time(s, err, cap) : 0;
}

/* Opens member k (0-based) of the zip at path or in memory. */
static int open_member(struct replay *rp, const char *path, const void *data, size_t len,
                       const char *label, unsigned k, char *err, size_t cap)
{
  struct source *s = &rp->src[rp->n];
  char member[900];
  int rc = path ? etl_zip_open_file(&s->zip, path) : etl_zip_open_memory(&s->zip, data, len);
  if (rc) {
    snprintf(err, cap, "%s", s->zip ? etl_zip_error(s->zip) : etwcap_strerror(rc));
    goto fail;
  }
  /* open_zip streamed and checked every member before: straight to k, or
   * member k would stream the k before it again (quadratic in a zip of
   * many members). */
  rc = etl_zip_next_etl_at(s->zip, k, member, sizeof(member));
  if (rc != 1) {
    snprintf(err, cap, "%s", rc < 0 ? etl_zip_error(s->zip) : "zip member vanished");
    rc = rc < 0 ? rc : ETWCAP_E_FORMAT;
    goto fail;
  }
  snprintf(s->display, sizeof(s->display), "%s!%s", label, member);
  rc = etl_zip_member_io(s->zip, &s->io);
  if (rc) {
    snprintf(err, cap, "%s: %s", s->display, etl_zip_error(s->zip));
    goto fail;
  }
  rp->n++;
  return start_source(s, err, cap);
fail:
  /* Not counted in rp->n yet, so the replay's cleanup would not close it. */
  close_source(s);
  return rc;
}

static int open_zip(struct replay *rp, const char *path, const void *data, size_t len,
                    const char *label, char *err, size_t cap)
{
  struct etl_zip *z = NULL;
  char member[900];
  unsigned count = 0, k;
  int rc = path ? etl_zip_open_file(&z, path) : etl_zip_open_memory(&z, data, len);
  if (rc) {
    snprintf(err, cap, "%s", z ? etl_zip_error(z) : etwcap_strerror(rc));
    etl_zip_close(z);
    return rc;
  }
  while ((rc = etl_zip_next_etl(z, member, sizeof(member))) == 1)
    count++;
  if (rc < 0)
    snprintf(err, cap, "%s", etl_zip_error(z));
  etl_zip_close(z);
  if (rc < 0)
    return rc;
  if (!count) {
    snprintf(err, cap, "%s: the zip archive holds no .etl file", label);
    return ETWCAP_E_FORMAT;
  }
  if (count > REPLAY_MAX_FILES) {
    snprintf(err, cap, "%s: more than %d .etl members", label, REPLAY_MAX_FILES);
    return ETWCAP_E_UNSUPPORTED;
  }
  for (k = 0; k < count; k++)
    if ((rc = open_member(rp, path, data, len, label, k, err, cap)) != 0)
      return rc;
  return 0;
}

static int run(struct replay *rp, int64_t run_until, struct trigger_replay_stats *stats,
               char *err, size_t cap)
{
  unsigned i;
  int rc, started = 0;
  int64_t last = 0;
  for (i = 0; i < rp->n; i++)
    if ((rc = advance_source(&rp->src[i], err, cap)) != 0)
      return rc;
  rp->clock = rp->n ? etl_reader_clock(rp->src[0].r) : NULL;
  trigger_engine_set_fire_callback(rp->e, forward_fire, rp);
  stats->files = rp->n;
  for (;;) {
    struct source *best = NULL;
    if (rp->n == 1) {
      if (rp->src[0].has)
        best = &rp->src[0];
    } else {
      for (i = 0; i < rp->n; i++)
        if (rp->src[i].has && (!best || rp->src[i].ft < best->ft))
          best = &rp->src[i];
    }
    if (!best)
      break;
    if (!started) {
      char msg[1024];
      rc = trigger_engine_start(rp->e, best->ft, msg, sizeof(msg));
      if (rc) {
        snprintf(err, cap, "%s", msg);
        return rc;
      }
      started = 1;
      stats->first_ft = best->ft;
    }
    if (best->ft > last)
      last = best->ft;
    rc = trigger_engine_event(rp->e, &best->ev, best->ft);
    if (rc) {
      snprintf(err, cap, "%s: the trigger engine failed: %s", best->display,
               etwcap_strerror(rc));
      return rc;
    }
    stats->events++;
    if (trigger_engine_phase(rp->e) == TRIGGER_DONE) {
      stats->stopped_early = 1;
      break;
    }
    if ((rc = advance_source(best, err, cap)) != 0)
      return rc;
  }
  stats->last_ft = last;
  /* A zip member the replay did not read to its end is read now: its CRC-32
   * proves what was replayed. */
  for (i = 0; i < rp->n; i++)
    if (rp->src[i].zip && (rc = etl_zip_finish_member(rp->src[i].zip)) != 0) {
      snprintf(err, cap, "%s", etl_zip_error(rp->src[i].zip));
      return rc;
    }
  if (!started) {
    snprintf(err, cap, "the trace holds no events");
    return ETWCAP_E_FORMAT;
  }
  if (run_until > last)
    last = run_until;
  rc = trigger_engine_advance(rp->e, last);
  if (rc)
    snprintf(err, cap, "the trigger engine failed: %s", etwcap_strerror(rc));
  return rc;
}

/* Manifests first: an EventSource's manifest is often at the end of a trace
 * (the rundown at stop), after the events it names. */
static int preload_cb(void *ctx, const char *display, struct etl_reader *r)
{
  struct trigger_engine *e = ctx;
  struct etw_event ev;
  int rc;
  (void)display;
  while ((rc = etl_reader_next(r, &ev)) == 1)
    if ((rc = trigger_engine_preload(e, &ev)) != 0)
      return rc;
  return rc;
}

static void close_all(struct replay *rp)
{
  unsigned i;
  for (i = 0; i < rp->n; i++)
    close_source(&rp->src[i]);
  trigger_engine_set_fire_callback(rp->e, NULL, NULL);
}

int trigger_replay_run(const char *path, struct trigger_engine *e, int64_t run_until,
                       trigger_fire_fn on_fire, void *ctx, struct trigger_replay_stats *stats,
                       char *err, size_t cap)
{
  struct replay *rp = etwcap_calloc(1, sizeof(*rp));
  uint8_t magic[4];
  size_t got = 0;
  int64_t size = 0;
  int rc;
  memset(stats, 0, sizeof(*stats));
  err[0] = '\0';
  if (!rp)
    return ETWCAP_E_NOMEM;
  rp->e = e;
  rp->on_fire = on_fire;
  rp->ctx = ctx;
  if (trigger_engine_wants_manifests(e) &&
      (rc = etl_source_foreach(path, preload_cb, e, err, cap)) != 0) {
    etwcap_free(rp);
    return rc;
  }
  if (os_file_size(path, &size) == 0)
    stats->bytes = (uint64_t)size;
  rc = byte_source_open_file(&rp->src[0].io, path);
  if (rc) {
    snprintf(err, cap, "%s: cannot open: %s", path, etwcap_strerror(rc));
    etwcap_free(rp);
    return rc;
  }
  rp->src[0].io_open = 1;
  rc = byte_source_read_exact(&rp->src[0].io, 0, magic, sizeof(magic), &got);
  if (rc && rc != ETWCAP_E_TRUNCATED) {
    snprintf(err, cap, "%s: cannot read: %s", path, etwcap_strerror(rc));
  } else if (etl_zip_detect(&rp->src[0].io)) {
    byte_source_close(&rp->src[0].io);
    rp->src[0].io_open = 0;
    rc = open_zip(rp, path, NULL, 0, path, err, cap);
  } else {
    snprintf(rp->src[0].display, sizeof(rp->src[0].display), "%s", path);
    rp->n = 1;
    rc = start_source(&rp->src[0], err, cap);
  }
  if (rc == 0)
    rc = run(rp, run_until, stats, err, cap);
  close_all(rp);
  etwcap_free(rp);
  return rc;
}
