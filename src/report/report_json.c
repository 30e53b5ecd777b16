/* See report_json.h.  Times are in ms from the first file's logfile
 * StartTime (PerfView's "relative msec"), with 3 decimals. */
#include "src/report/report_json.h"

#include "src/base/civil_time.h"
#include "src/base/os/os_time.h"
#include "src/version.h"

#include <stdio.h>
#include <string.h>

/* SystemTraceControlGuid: the provider GUID of classic kernel events. */
/* Frames listed per process in "cpu" (the issue asks for at least 20). */
#define REPORT_CPU_TOP_JSON 30

#define KERNEL_GUID_TEXT "9e814aad-3204-11d2-9a82-006008a86939"

static void utc(struct report_writer *w, int64_t filetime)
{
  char text[40];
  rw_json_string(w, filetime_format_iso7(filetime, text, sizeof(text)));
}

const char *report_series_name(const struct report *r, int series, char *buf, size_t cap)
{
  switch (series) {
  case REPORT_SERIES_ALL: return "All events";
  case REPORT_SERIES_CSWITCH: return "Context switches";
  case REPORT_SERIES_CPU_SAMPLES: return "CPU samples";
  case REPORT_SERIES_EXCEPTIONS: return ".NET exceptions";
  case REPORT_SERIES_GCS: return ".NET GCs";
  }
  if (series >= 0 && series < REPORT_TIMELINE_PROVIDERS && r->series[series].used) {
    struct etl_provider_stat p;
    const char *name;
    memset(&p, 0, sizeof(p));
    p.is_kernel = r->series[series].is_kernel;
    p.group = r->series[series].group;
    p.guid = r->series[series].guid;
    name = etl_summary_provider_label(&p, buf, cap);
    if (name && !p.is_kernel)
      return name;
    return buf;
  }
  return "?";
}

static void capture(struct report_writer *w, const struct report *r)
{
  const struct etl_logfile *lf = &r->summary.lf;
  uint64_t events_lost = 0, buffers_lost = 0, flagged = 0;
  size_t i;
  for (i = 0; i < r->session_count; i++) {
    events_lost += r->sessions[i].events_lost;
    buffers_lost += r->sessions[i].buffers_lost;
    flagged += r->sessions[i].buffers_flagged_lost;
  }
  rw_puts(w, "  \"capture\": {\n    \"trace\": ");
  rw_json_string(w, r->trace);
  rw_puts(w, ",\n    \"headerStartUtc\": ");
  utc(w, r->base_filetime);
  if (r->have_times) {
    rw_puts(w, ",\n    \"firstEventUtc\": ");
    utc(w, r->first_filetime);
    rw_puts(w, ", \"lastEventUtc\": ");
    utc(w, r->last_filetime);
    rw_printf(w, ",\n    \"firstEventMs\": %.3f, \"lastEventMs\": %.3f, \"durationMs\": %.3f",
              report_ms(r, r->first_filetime), report_ms(r, r->last_filetime),
              (double)(r->last_filetime - r->first_filetime) / 10000.0);
  }
  rw_printf(w,
            ",\n    \"os\": {\"version\": \"%u.%u\", \"build\": %u},\n    \"cpus\": %u, "
            "\"cpuMHz\": %u, \"pointerSize\": %u,\n    \"clock\": ",
            (unsigned)lf->os_major, (unsigned)lf->os_minor, (unsigned)lf->build,
            (unsigned)lf->cpus, (unsigned)lf->cpu_mhz, (unsigned)lf->pointer_size);
  rw_json_string(w, lf->clock_type == ETL_CLOCK_QPC           ? "QPC"
                    : lf->clock_type == ETL_CLOCK_SYSTEM_TIME ? "SystemTime"
                    : lf->clock_type == ETL_CLOCK_CPU_CYCLES  ? "CPUCycles"
                                                              : "unknown");
  rw_printf(w, ", \"clockHz\": %lld,\n    \"events\": %llu, \"bytes\": %llu,\n",
            (long long)lf->perf_freq, (unsigned long long)r->summary.events,
            (unsigned long long)r->summary.user_bytes);
  rw_printf(w,
            "    \"eventsLost\": %llu, \"buffersLost\": %llu, \"buffersFlaggedLost\": %llu,\n"
            "    \"sessions\": [",
            (unsigned long long)events_lost, (unsigned long long)buffers_lost,
            (unsigned long long)flagged);
  for (i = 0; i < r->session_count; i++) {
    const struct report_session *s = &r->sessions[i];
    rw_puts(w, i ? ",\n      {\"file\": " : "\n      {\"file\": ");
    rw_json_string(w, s->file);
    rw_puts(w, ", \"logger\": ");
    rw_json_string(w, s->logger);
    rw_printf(w,
              ", \"events\": %llu, \"bytes\": %llu, \"eventsLost\": %lu, \"buffersLost\": %lu, "
              "\"buffersFlaggedLost\": %llu}",
              (unsigned long long)s->events, (unsigned long long)s->bytes,
              (unsigned long)s->events_lost, (unsigned long)s->buffers_lost,
              (unsigned long long)s->buffers_flagged_lost);
  }
  rw_puts(w, "],\n    \"manifest\": ");
  rw_puts(w, r->manifest.present ? "true" : "false");
  rw_puts(w, ",\n    \"commandLine\": ");
  rw_json_string(w, r->manifest.present ? r->manifest.command_line : NULL);
  rw_puts(w, ",\n    \"trigger\": ");
  if (r->manifest.has_trigger) {
    rw_puts(w, "{\"name\": ");
    rw_json_string(w, r->manifest.trigger_name);
    rw_puts(w, ", \"detail\": ");
    rw_json_string(w, r->manifest.trigger_detail);
    if (r->manifest.trigger_filetime) {
      rw_puts(w, ", \"utc\": ");
      utc(w, r->manifest.trigger_filetime);
      rw_printf(w, ", \"ms\": %.3f}", report_ms(r, r->manifest.trigger_filetime));
    } else {
      rw_puts(w, ", \"utc\": null, \"ms\": null}");
    }
  } else {
    rw_puts(w, "null");
  }
  rw_puts(w, "\n  },\n");
}

static void providers(struct report_writer *w, const struct report *r)
{
  size_t i;
  rw_puts(w, "  \"providers\": [");
  for (i = 0; i < r->summary.provider_count; i++) {
    const struct etl_provider_stat *p = &r->summary.providers[i];
    char id[64];
    const char *name = etl_summary_provider_label(p, id, sizeof(id));
    rw_puts(w, i ? ",\n    {\"guid\": " : "\n    {\"guid\": ");
    if (p->is_kernel) {
      rw_json_string(w, KERNEL_GUID_TEXT);
      rw_puts(w, ", \"name\": ");
      rw_json_string(w, id);
    } else {
      rw_json_string(w, id);
      rw_puts(w, ", \"name\": ");
      rw_json_string(w, name);
    }
    rw_printf(w, ", \"events\": %llu, \"bytes\": %llu}", (unsigned long long)p->events,
              (unsigned long long)p->bytes);
  }
  if (r->summary.other_provider_events)
    rw_printf(w,
              ",\n    {\"guid\": null, \"name\": \"other\", \"events\": %llu, \"bytes\": %llu}",
              (unsigned long long)r->summary.other_provider_events,
              (unsigned long long)r->summary.other_provider_bytes);
  rw_puts(w, "\n  ],\n");
}

static void timeline(struct report_writer *w, const struct report *r)
{
  const struct report_timeline *t = &r->timeline;
  int s, first = 1;
  size_t i;
  char buf[64];
  rw_printf(w, "  \"timeline\": {\"startMs\": %.3f, \"binMs\": %.3f, \"series\": [",
            t->started ? report_ms(r, t->origin) : 0.0, (double)t->width / 10000.0);
  for (s = 0; s < REPORT_TIMELINE_SERIES; s++) {
    uint64_t total = 0;
    for (i = 0; i < REPORT_TIMELINE_BINS; i++)
      total += t->count[s][i];
    if (!total)
      continue;
    rw_puts(w, first ? "\n    {\"name\": " : ",\n    {\"name\": ");
    first = 0;
    rw_json_string(w, report_series_name(r, s, buf, sizeof(buf)));
    rw_puts(w, ", \"counts\": [");
    for (i = 0; i < REPORT_TIMELINE_BINS; i++) {
      if (i)
        rw_puts(w, ",");
      rw_uint(w, t->count[s][i]);
    }
    rw_puts(w, "]}");
  }
  rw_puts(w, "\n  ]},\n");
}

/* The members of the arrays' objects: open_member starts object `index`
 * of its array (on its own line, after a comma unless it is the first)
 * with its first member's key, member each further key.  Values are
 * written without stdio: an array can hold thousands of objects. */
static void open_member(struct report_writer *w, size_t index, const char *key)
{
  rw_puts(w, index ? ",\n    {\"" : "\n    {\"");
  rw_puts(w, key);
  rw_puts(w, "\": ");
}

static void member(struct report_writer *w, const char *key)
{
  rw_puts(w, ", \"");
  rw_puts(w, key);
  rw_puts(w, "\": ");
}

static void uint_member(struct report_writer *w, const char *key, uint64_t n)
{
  member(w, key);
  rw_uint(w, n);
}

static void string_member(struct report_writer *w, const char *key, const char *text)
{
  member(w, key);
  rw_json_string(w, text);
}

/* Milliseconds from the trace's start; null for a time the trace lacks
 * (filetime 0). */
static void time_member(struct report_writer *w, const char *key, const struct report *r,
                        int64_t filetime)
{
  member(w, key);
  rw_json_ms(w, filetime ? report_ms(r, filetime) : -1);
}

static void gcs(struct report_writer *w, const struct report *r)
{
  size_t i;
  char b1[32], b2[32];
  rw_puts(w, "  \"gcs\": [");
  for (i = 0; i < r->gcs.count; i++) {
    const struct report_gc *g = &r->gcs.gcs[i];
    open_member(w, i, "pid");
    rw_uint(w, g->pid);
    uint_member(w, "number", g->number);
    uint_member(w, "generation", g->generation);
    string_member(w, "type", report_gc_type_name(g->type, b1, sizeof(b1)));
    string_member(w, "reason", report_gc_reason_name(g->reason, b2, sizeof(b2)));
    member(w, "startMs");
    rw_fixed(w, report_ms(r, g->start_filetime), 3);
    member(w, "pauseMs");
    rw_json_ms(w, g->pause_ms);
    member(w, "durationMs");
    rw_json_ms(w, g->duration_ms);
    if (g->has_heap) {
      uint_member(w, "heapAfterBytes", g->heap_after);
      uint_member(w, "promotedBytes", g->promoted);
      rw_puts(w, "}");
    } else {
      rw_puts(w, ", \"heapAfterBytes\": null, \"promotedBytes\": null}");
    }
  }
  rw_puts(w, "\n  ],\n");
}

static void exceptions(struct report_writer *w, const struct report *r)
{
  size_t i;
  rw_puts(w, "  \"exceptions\": [");
  for (i = 0; i < r->exceptions.count; i++) {
    const struct report_exception *e = &r->exceptions.items[i];
    open_member(w, i, "type");
    rw_json_string(w, e->type);
    uint_member(w, "pid", e->pid);
    uint_member(w, "count", e->count);
    member(w, "firstMs");
    rw_fixed(w, report_ms(r, e->first_filetime), 3);
    member(w, "lastMs");
    rw_fixed(w, report_ms(r, e->last_filetime), 3);
    rw_puts(w, "}");
  }
  rw_puts(w, "\n  ],\n");
}

static void processes(struct report_writer *w, const struct report *r)
{
  const struct report_container *container;
  size_t i;
  rw_puts(w, "  \"processes\": [");
  for (i = 0; i < r->kernel.process_count; i++) {
    const struct report_process *p = &r->kernel.processes[i];
    open_member(w, i, "pid");
    rw_uint(w, p->pid);
    string_member(w, "name", p->name);
    string_member(w, "commandLine", p->command_line);
    time_member(w, "startMs", r, p->start_filetime);
    time_member(w, "endMs", r, p->end_filetime);
    uint_member(w, "cpuSamples", p->cpu_samples);
    container = report_process_container(r, i);
    string_member(w, "containerId", container ? container->id->id : NULL);
    rw_puts(w, "}");
  }
  rw_puts(w, "\n  ],\n");
}

/* `events` counts the events that carried the ID; the rest is joined
 * through the processes (report_containers.h). */
static void containers(struct report_writer *w, const struct report *r)
{
  size_t i, j;
  rw_puts(w, "  \"containers\": [");
  for (i = 0; i < r->containers.count; i++) {
    const struct report_container *c = &r->containers.list[i];
    open_member(w, i, "id");
    rw_json_string(w, c->id->id);
    string_member(w, "name", report_container_name(r, i));
    member(w, "processes");
    rw_puts(w, "[");
    for (j = 0; j < c->id->pid_count; j++) {
      if (j)
        rw_puts(w, ", ");
      rw_uint(w, c->id->pids[j]);
    }
    rw_puts(w, "]");
    uint_member(w, "events", c->id->events);
    uint_member(w, "cpuSamples", c->cpu_samples);
    uint_member(w, "gcs", c->gcs);
    uint_member(w, "exceptions", c->exceptions);
    uint_member(w, "imageLoads", c->image_loads);
    rw_puts(w, "}");
  }
  rw_puts(w, "\n  ],\n");
}

/* The busiest processes' CPU samples and the frames with the most
 * exclusive samples (report_cpu.h). */
static void cpu(struct report_writer *w, const struct report *r)
{
  size_t i, j;
  /* The timer's sampling interval at the trace's start, or null. */
  rw_puts(w, "  \"cpuSampleIntervalMs\": ");
  if (r->kernel.interval_count)
    rw_fixed(w, (double)report_kernel_interval(&r->kernel, INT64_MIN) / 1e4, 4);
  else
    rw_puts(w, "null");
  rw_puts(w, ",\n  \"cpu\": [");
  for (i = 0; i < r->cpu.count; i++) {
    const struct report_cpu_process *p = &r->cpu.list[i];
    open_member(w, i, "pid");
    rw_uint(w, p->pid);
    string_member(w, "name", p->name);
    uint_member(w, "samples", p->samples);
    uint_member(w, "samplesWithStack", p->with_stack);
    member(w, "cpuMs");
    rw_fixed(w, (double)p->cpu_time / 1e4, 3);
    if (r->cpu.thread_time) {
      member(w, "blockedMs");
      rw_fixed(w, (double)r->cpu.blocked[i] / 1e4, 3);
    }
    rw_puts(w, ", \"top\": [");
    for (j = 0; j < p->top_count && j < REPORT_CPU_TOP_JSON; j++) {
      rw_puts(w, j ? ",\n      {\"frame\": " : "\n      {\"frame\": ");
      rw_json_string(w, stack_frames_name(&r->frames, p->top[j].frame));
      uint_member(w, "self", p->top[j].self);
      uint_member(w, "total", p->top[j].total);
      rw_puts(w, "}");
    }
    rw_puts(w, "]}");
  }
  rw_puts(w, "\n  ],\n");
}

static void images(struct report_writer *w, const struct report *r)
{
  size_t i;
  rw_puts(w, "  \"images\": [");
  for (i = 0; i < r->kernel.images.count; i++) {
    const struct report_image *im = &r->kernel.images.list[i];
    open_member(w, i, "name");
    rw_json_string(w, im->name);
    uint_member(w, "events", im->events);
    uint_member(w, "withImageId", im->with_id);
    uint_member(w, "withPdbId", im->with_pdb);
    rw_puts(w, "}");
  }
  rw_puts(w, "\n  ],\n");
}

static void limits(struct report_writer *w, const struct report *r)
{
  rw_printf(w,
            "  \"notCounted\": {\"gcEvents\": %llu, \"exceptionKinds\": %llu, \"processes\": "
            "%llu, \"threads\": %llu, \"images\": %llu, \"sessions\": %llu, "
            "\"cpuSamplesUnattributed\": %llu, \"stackSamples\": %llu, \"stackFrames\": %llu, "
            "\"stackRecords\": %llu, "
            "\"codeRanges\": %llu, \"frameNames\": %llu, \"callTreePaths\": %llu, "
            "\"sampleIntervals\": %llu}\n",
            (unsigned long long)r->gcs.dropped, (unsigned long long)r->exceptions.dropped,
            (unsigned long long)r->kernel.processes_dropped,
            (unsigned long long)r->kernel.threads_dropped,
            (unsigned long long)r->kernel.images.dropped,
            (unsigned long long)r->sessions_dropped,
            (unsigned long long)r->kernel.samples_unattributed,
            (unsigned long long)r->stacks.samples_dropped,
            (unsigned long long)r->stacks.frames_dropped,
            (unsigned long long)r->stacks.stack_records_dropped,
            (unsigned long long)r->frames.ranges_dropped,
            (unsigned long long)r->frames.names_dropped, (unsigned long long)r->cpu.paths_cut,
            (unsigned long long)r->kernel.intervals_dropped);
}

void report_json_write(struct report_writer *w, const struct report *r)
{
  rw_puts(w, "{\n  \"schema\": \"etwcap-report/1\",\n  \"etwcapVersion\": ");
  rw_json_string(w, ETWCAP_VERSION);
  rw_puts(w, ",\n");
  capture(w, r);
  providers(w, r);
  timeline(w, r);
  gcs(w, r);
  exceptions(w, r);
  processes(w, r);
  containers(w, r);
  cpu(w, r);
  images(w, r);
  limits(w, r);
  rw_puts(w, "}\n");
}
