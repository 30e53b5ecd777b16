/* See report_model.h.  One etl_source pass; each event goes to the summary
 * (what `info` counts) and to the report's parts. */
#include "src/report/report_model.h"

#include "etw/etl/etl_source.h"
#include "etw/event/builtin_events.h"
#include "etw/image/image_identity.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

/* Event times outside this range (a hostile clock) are not placed on the
 * timeline: years 1601 to about 30828. */
#define FILETIME_SANE_MAX (INT64_C(1) << 62)

static int init(struct report *r, const char *path, const struct report_cpu_select *sel)
{
  int rc;
  memset(r, 0, sizeof(*r));
  snprintf(r->trace, sizeof(r->trace), "%s", path);
  r->stacks_only = sel != NULL;
  if (sel)
    r->cpu_select = *sel;
  else
    r->cpu_select.busiest = REPORT_CPU_BUSIEST;
  if (!sel)
    r->cpu_select.thread_time = r->cpu_select.tables = 1;
  rc = etl_summary_init(&r->summary);
  if (!rc)
    rc = report_exceptions_init(&r->exceptions);
  if (!rc)
    rc = report_kernel_init(&r->kernel);
  if (!rc)
    rc = stack_join_init(&r->stacks);
  if (!rc)
    rc = stack_frames_init(&r->frames);
  r->kernel.frames = &r->frames;
  r->kernel.stacks = &r->stacks;
  return rc;
}

/* Counts an event of `series` on the timeline (times outside the sane
 * range are left off). */
static void place(struct report *r, int series, int64_t filetime)
{
  if (filetime >= 0 && filetime < FILETIME_SANE_MAX)
    r->timeline.count[series][report_timeline_bin(&r->timeline, filetime)]++;
}

/* A trace's times come from its bytes.  Held in [-1, FILETIME_SANE_MAX],
 * the difference of any two cannot overflow, and the two ends stay outside
 * the timeline's range (place()). */
static int64_t sane_filetime(int64_t ft)
{
  return ft < 0 ? -1 : ft > FILETIME_SANE_MAX ? FILETIME_SANE_MAX : ft;
}

/* Counts an event at ft (of provider row p, or NULL) in the range of the
 * trace's times and on the timeline: its bin there, or -1. */
static int place_event(struct report *r, const struct etl_provider_stat *p, int64_t ft)
{
  int bin = ft < 0 || ft >= FILETIME_SANE_MAX ? -1 : report_timeline_bin(&r->timeline, ft);
  if (!r->have_times) {
    r->have_times = 1;
    r->first_filetime = r->last_filetime = ft;
  }
  if (ft < r->first_filetime)
    r->first_filetime = ft;
  if (ft > r->last_filetime)
    r->last_filetime = ft;
  if (bin >= 0) {
    r->timeline.count[REPORT_SERIES_ALL][bin]++;
    if (p && (size_t)(p - r->summary.providers) < REPORT_TIMELINE_PROVIDERS) {
      size_t slot = (size_t)(p - r->summary.providers);
      if (!r->series[slot].used) {
        r->series[slot].used = 1;
        r->series[slot].is_kernel = p->is_kernel;
        r->series[slot].group = p->group;
        r->series[slot].guid = p->guid;
      }
      r->timeline.count[slot][bin]++;
    }
  }
  return bin;
}

/* An event goes to the summary and the timeline, then to the part that
 * reads it; with stacks_only, only to the parts the CPU stacks need. */
static int one_event(struct report *r, struct etl_reader *rd, const struct etw_event *ev,
                     const struct etl_clock *clock)
{
  int64_t ft = ev->has & ETW_HAS_TIMESTAMP ? etl_clock_filetime(clock, ev->timestamp) : 0;
  struct etl_provider_stat *p =
      r->stacks_only ? NULL : etl_summary_add(&r->summary, rd, ev, ft);
  int rc, rc2, bin;
  if (!(ev->has & ETW_HAS_TIMESTAMP))
    return 0;
  ft = sane_filetime(ft);
  bin = r->stacks_only ? -1 : place_event(r, p, ft);
  if (!ev->is_kernel && (ev->has & ETW_HAS_PROVIDER) && guid_equal(&ev->provider, &bi_guid_clr)) {
    /* Most CLR events are neither (allocation ticks, JIT, loader). */
    if (ev->id > CLR_ID_EXCEPTION_START)
      return stack_frames_clr(&r->frames, ev, 0, ft);
    if (r->stacks_only)
      return 0;
    if (ev->id <= CLR_ID_GC_SUSPEND_EE_START)
      return report_gcs_event(&r->gcs, ev, ft);
    if (ev->id != CLR_ID_EXCEPTION_START)
      return 0;
    rc = report_exceptions_event(&r->exceptions, ev, ft);
    if (rc == 1 && bin >= 0)
      r->timeline.count[REPORT_SERIES_EXCEPTIONS][bin]++;
    return rc < 0 ? rc : 0;
  }
  if (!r->stacks_only && image_identity_is_image_event(ev) &&
      (rc = report_containers_image(&r->containers, ev, ft)) != 0)
    return rc;
  if (ev->is_kernel && ev->group == REPORT_GROUP_STACKWALK)
    return stack_join_walk(&r->stacks, ev, ft);
  if (!ev->is_kernel && (ev->has & ETW_HAS_PROVIDER) &&
      guid_equal(&ev->provider, &bi_guid_clr_rundown))
    return stack_frames_clr(&r->frames, ev, 1, ft);
  rc = report_kernel_event(&r->kernel, ev, ft);
  if (rc >= 0 && ev->ext_count &&
      (rc2 = stack_join_ext(&r->stacks, ev, ft, rc == REPORT_SAW_CPU_SAMPLE)) != 0)
    return rc2;
  if (rc == REPORT_SAW_CSWITCH && (rc2 = stack_join_cswitch(&r->stacks, ev, ft)) != 0)
    return rc2;
  if (rc == REPORT_SAW_CSWITCH && bin >= 0)
    r->timeline.count[REPORT_SERIES_CSWITCH][bin]++;
  else if (rc == REPORT_SAW_CPU_SAMPLE && bin >= 0)
    r->timeline.count[REPORT_SERIES_CPU_SAMPLES][bin]++;
  return rc < 0 ? rc : 0;
}

/* One etl_source pass over `source` (a path, or a label for bytes). */
struct pass {
  struct report *r;
  const char *source;
  int zipped; /* the sessions were members of a zip, which may hold a manifest */
};

static int one_file(void *ctx, const char *display, struct etl_reader *rd)
{
  struct pass *pass = ctx;
  struct report *r = pass->r;
  const struct etl_logfile *lf = etl_reader_logfile(rd);
  const struct etl_clock *clock = etl_reader_clock(rd);
  uint64_t events0 = r->summary.events, bytes0 = r->summary.user_bytes;
  uint64_t flagged0 = r->summary.buffers_events_lost + r->summary.buffers_lost_flag;
  struct report_session *s = NULL;
  struct etw_event ev;
  int rc;

  if (!r->summary.files)
    r->base_filetime = sane_filetime(lf->start_time);
  if (strcmp(display, pass->source) != 0) /* "PATH!MEMBER" */
    pass->zipped = 1;
  etl_summary_begin_file(&r->summary, rd);
  r->stacks.clock = clock;
  while ((rc = etl_reader_next(rd, &ev)) == 1)
    if ((rc = one_event(r, rd, &ev, clock)) != 0)
      return rc;
  if (rc < 0)
    return rc;
  r->stacks.clock = NULL;
  etl_summary_end_file(&r->summary, rd);
  if (r->session_count >= REPORT_MAX_SESSIONS) {
    r->sessions_dropped++;
  } else {
    if (etwcap_grow((void **)&r->sessions, &r->session_cap, r->session_count,
                    sizeof(*r->sessions), 2) != 0)
      return ETWCAP_E_NOMEM;
    s = &r->sessions[r->session_count++];
  }
  if (s) {
    snprintf(s->file, sizeof(s->file), "%s", display);
    snprintf(s->logger, sizeof(s->logger), "%s", lf->logger_name);
    s->events = r->summary.events - events0;
    s->bytes = r->summary.user_bytes - bytes0;
    s->events_lost = lf->events_lost;
    s->buffers_lost = lf->buffers_lost;
    s->buffers_flagged_lost =
        r->summary.buffers_events_lost + r->summary.buffers_lost_flag - flagged0;
  }
  return 0;
}

static int finish(struct report *r)
{
  int rc = report_gcs_finish(&r->gcs), kernel_rc;
  size_t i;
  /* GCs are marked once each, after .NET Framework's double GCStart is
   * folded. */
  for (i = 0; i < r->gcs.count; i++)
    place(r, REPORT_SERIES_GCS, r->gcs.gcs[i].start_filetime);
  report_exceptions_finish(&r->exceptions);
  kernel_rc = report_kernel_finish(&r->kernel);
  if (!kernel_rc)
    kernel_rc = stack_join_finish(&r->stacks);
  if (!kernel_rc)
    kernel_rc = stack_frames_finish(&r->frames, report_kernel_knows, &r->kernel);
  if (!kernel_rc)
    kernel_rc = report_cpu_build(&r->cpu, &r->kernel, &r->stacks, &r->frames,
                                 r->summary.lf.pointer_size, &r->cpu_select);
  if (!kernel_rc)
    kernel_rc = etl_summary_finish(&r->summary);
  if (!rc && !kernel_rc)
    kernel_rc = report_containers_collect(&r->containers, r);
  return rc ? rc : kernel_rc;
}

int report_collect(struct report *r, const char *path, char *err, size_t errcap)
{
  return report_collect_cpu(r, path, NULL, err, errcap);
}

int report_collect_cpu(struct report *r, const char *path, const struct report_cpu_select *sel,
                       char *err, size_t errcap)
{
  struct pass pass = { r, path, 0 };
  int rc = init(r, path, sel);
  if (rc) {
    snprintf(err, errcap, "%s: %s", path, etwcap_strerror(rc));
    return rc;
  }
  rc = etl_source_foreach(path, one_file, &pass, err, errcap);
  if (rc)
    return rc;
  /* A bare ETL has no manifest: not searched for the end of a zip again. */
  if (!pass.zipped || report_manifest_read(path, &r->manifest, r->manifest_problem,
                                         sizeof(r->manifest_problem)) == 0)
    r->manifest_problem[0] = '\0';
  rc = finish(r);
  if (rc)
    snprintf(err, errcap, "%s: %s", path, etwcap_strerror(rc));
  return rc;
}

int report_collect_memory(struct report *r, const void *data, size_t len, const char *label,
                          char *err, size_t errcap)
{
  struct pass pass = { r, label, 0 };
  int rc = init(r, label, NULL);
  if (rc) {
    snprintf(err, errcap, "%s: %s", label, etwcap_strerror(rc));
    return rc;
  }
  rc = etl_source_foreach_memory(data, len, label, one_file, &pass, err, errcap);
  if (rc)
    return rc;
  rc = finish(r);
  if (rc)
    snprintf(err, errcap, "%s: %s", label, etwcap_strerror(rc));
  return rc;
}

void report_release(struct report *r)
{
  etl_summary_release(&r->summary);
  report_gcs_release(&r->gcs);
  report_exceptions_release(&r->exceptions);
  report_kernel_release(&r->kernel);
  report_containers_release(&r->containers);
  stack_join_release(&r->stacks);
  stack_frames_release(&r->frames);
  report_cpu_release(&r->cpu);
  etwcap_free(r->sessions);
  memset(r, 0, sizeof(*r));
}

double report_ms(const struct report *r, int64_t filetime)
{
  return (double)(filetime - r->base_filetime) / 10000.0;
}
