/* See report_html.h. */
#include "src/report/report_html.h"

#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/os/os_time.h"
#include "src/base/path_name.h"
#include "src/report/report_flame.h"
#include "src/report/report_html_cpu.h"
#include "src/report/report_json.h"
#include "src/report/report_svg.h"
#include "src/version.h"

#include <stdlib.h>
#include <string.h>

#define MAX_GC_ROWS 1000
#define MAX_PROCESS_ROWS 300
#define MAX_PROVIDER_ROWS 60
#define MAX_IMAGE_ROWS 300

static const char style[] =
    ":root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#f6f8fa;--bad:#b42318;"
    "--ok:#1a7f37;--warn:#9a6700;--accent:#0969da}"
    "*{box-sizing:border-box}"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
    "color:var(--fg);background:#fff}"
    "header{background:#24292f;color:#fff;padding:18px 32px 12px}"
    "header h1{margin:0;font-size:20px;font-weight:600}"
    "header h1 .file{font-weight:400;color:#c9d1d9;word-break:break-all}"
    "header p{margin:4px 0 10px;color:#c9d1d9}"
    "nav a{color:#fff;text-decoration:none;margin-right:18px;font-size:13px;opacity:.85}"
    "nav a:hover{opacity:1;text-decoration:underline}"
    "main{padding:8px 32px 32px;max-width:1400px}"
    "section{margin-top:26px}"
    "h2{font-size:17px;margin:0 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}"
    "h3{font-size:14px;margin:18px 0 6px}"
    ".cards{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0 14px}"
    ".card{border:1px solid var(--line);border-radius:6px;padding:8px 14px;min-width:150px;"
    "background:var(--bg)}"
    ".card .v{font-size:18px;font-weight:600;font-variant-numeric:tabular-nums}"
    ".card .k{color:var(--muted);font-size:12px}"
    ".card.bad{border-color:var(--bad);background:#fff5f5}.card.bad .v{color:var(--bad)}"
    ".card.ok .v{color:var(--ok)}.card.warn .v{color:var(--warn)}"
    "table{border-collapse:collapse;margin:4px 0 8px;font-size:13px}"
    "th,td{padding:3px 10px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}"
    "th{background:var(--bg);font-weight:600;border-bottom:1px solid var(--line)}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "tbody tr:nth-child(even){background:#fbfcfd}"
    "table.kv th{background:none;border:0;color:var(--muted);font-weight:400;padding-right:18px}"
    "table.kv td{border:0}"
    ".bad{color:var(--bad);font-weight:600}.muted{color:var(--muted)}"
    ".cmd{font-family:ui-monospace,SFMono-Regular,Consolas,monospace;font-size:12px;"
    "word-break:break-all;max-width:640px}"
    ".chart{width:100%;height:auto;display:block}.hist{width:460px;max-width:100%;height:auto}"
    "svg text{font:11px system-ui,sans-serif;fill:#424a53}"
    "svg .label{text-anchor:end;font-size:12px;fill:#1f2328}"
    "svg .peak{font-size:11px;fill:#59636e}svg .tick{text-anchor:middle}"
    "svg .axis-title{text-anchor:end;fill:#59636e}svg .legend{fill:#59636e}"
    "svg .base{stroke:#d1d9e0}svg .axis{stroke:#59636e}svg .grid{stroke:#eaeef2}"
    "svg .window{fill:#0969da;fill-opacity:.05;stroke:#0969da;stroke-opacity:.35;"
    "stroke-dasharray:3 3}"
    "svg .trigger{stroke:#b42318;stroke-width:2;stroke-dasharray:6 3}"
    "svg .trigger-label{fill:#b42318;font-weight:600}"
    "svg .gc-marks line{stroke:#8250df;stroke-width:1}"
    "svg .exception-marks path{fill:#b42318}svg .exception-marks line{stroke:#b42318}"
    "svg .bar{fill:#8250df;fill-opacity:.75}svg .count{text-anchor:middle;fill:#1f2328}"
    "svg.flame{width:100%;height:auto;display:block}svg.flame g.f{cursor:pointer}"
    "svg.flame rect{stroke:#fff;stroke-width:.5}svg.flame g.f:hover rect{stroke:#1f2328}"
    "svg.flame text{font:11px ui-monospace,SFMono-Regular,Consolas,monospace;fill:#1f2328;"
    "pointer-events:none}svg.flame .hid{display:none}svg.flame .anc rect{fill-opacity:.55}"
    ".proc{border:1px solid var(--line);border-radius:6px;padding:10px 14px;margin:12px 0}"
    ".scroll{max-height:460px;overflow:auto;display:inline-block;border:1px solid #eaeef2}"
    ".scroll table{margin:0}.scroll th{position:sticky;top:0}"
    ".proc h3{margin:0 0 6px}.flex{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}"
    "details summary{cursor:pointer;color:var(--accent)}"
    "footer{padding:16px 32px;color:var(--muted);font-size:12px;border-top:1px solid var(--line)}"
    "@media print{header{background:none;color:#000;padding:0}header p,header h1 .file{color:#000}"
    "nav{display:none}main{padding:0;max-width:none}section{break-inside:avoid-page}"
    ".scroll{max-height:none;overflow:visible;border:0}.proc,table{break-inside:auto}tr{break-inside:avoid}details{display:block}}";

static void utc_text(struct report_writer *w, int64_t ft)
{
  char text[40];
  rw_puts(w, filetime_format_iso7(ft, text, sizeof(text)));
}

static void ms_cell(struct report_writer *w, double ms)
{
  if (ms < 0) {
    rw_puts(w, "<td class=\"n muted\">–</td>");
    return;
  }
  rw_puts(w, "<td class=\"n\">");
  rw_ms(w, ms);
  rw_puts(w, "</td>");
}

static void count_cell(struct report_writer *w, uint64_t n, int bad)
{
  rw_puts(w, bad && n ? "<td class=\"n bad\">" : "<td class=\"n\">");
  rw_count(w, n);
  rw_puts(w, "</td>");
}

static void text_cell(struct report_writer *w, const char *cls, const char *text)
{
  if (cls) {
    rw_puts(w, "<td class=\"");
    rw_puts(w, cls);
    rw_puts(w, "\">");
  } else {
    rw_puts(w, "<td>");
  }
  rw_html(w, text);
  rw_puts(w, "</td>");
}

static void mb_cell(struct report_writer *w, uint64_t bytes, int known)
{
  if (!known) {
    rw_puts(w, "<td class=\"n muted\">–</td>");
  } else {
    rw_puts(w, "<td class=\"n\">");
    rw_fixed(w, (double)bytes / (1024.0 * 1024.0), 3);
    rw_puts(w, "</td>");
  }
}

static void card(struct report_writer *w, const char *cls, const char *key, const char *value)
{
  rw_printf(w, "<div class=\"card%s%s\"><div class=\"v\">", cls ? " " : "", cls ? cls : "");
  rw_html(w, value);
  rw_puts(w, "</div><div class=\"k\">");
  rw_html(w, key);
  rw_puts(w, "</div></div>\n");
}

static void cut_note(struct report_writer *w, size_t shown, size_t total, const char *what)
{
  if (shown < total)
    rw_printf(w,
              "<p class=\"muted\">The first %zu of %zu %s are shown; the embedded JSON has "
              "them all.</p>\n",
              shown, total, what);
}

/* What a memory bound left out, when it did. */
static void not_kept(struct report_writer *w, uint64_t n, unsigned cap, const char *what,
                     const char *so)
{
  if (n)
    rw_printf(w, "<p class=\"bad\">%llu %s were not kept (more than %u): %s.</p>\n",
              (unsigned long long)n, what, cap, so);
}

static const char *process_name(const struct report *r, uint32_t pid)
{
  const struct report_process *p = report_kernel_process(&r->kernel, pid);
  return p && p->name[0] ? p->name : NULL;
}

static void lost_totals(const struct report *r, uint64_t *events, uint64_t *buffers)
{
  size_t i;
  *events = *buffers = 0;
  for (i = 0; i < r->session_count; i++) {
    *events += r->sessions[i].events_lost;
    *buffers += r->sessions[i].buffers_lost + r->sessions[i].buffers_flagged_lost;
  }
}

static void head(struct report_writer *w, const struct report *r)
{
  rw_puts(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
             "style-src 'unsafe-inline'; script-src " REPORT_FLAME_SCRIPT_HASH "\">\n"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
             "<meta name=\"generator\" content=\"etwcap ");
  rw_html(w, ETWCAP_VERSION);
  rw_puts(w, "\">\n<title>etwcap report: ");
  rw_html(w, path_base_name(r->trace));
  rw_puts(w, "</title>\n<style>");
  rw_puts(w, style);
  rw_puts(w, "</style>\n</head>\n<body>\n<header>\n<h1>etwcap report <span class=\"file\">");
  rw_html(w, r->trace);
  rw_puts(w, "</span></h1>\n<p>");
  if (r->have_times) {
    utc_text(w, r->first_filetime);
    rw_puts(w, " → ");
    utc_text(w, r->last_filetime);
    rw_puts(w, " (");
    rw_ms(w, (double)(r->last_filetime - r->first_filetime) / 1e7);
    rw_puts(w, " s)");
  } else {
    rw_puts(w, "no timestamped events");
  }
  rw_puts(w, "</p>\n<nav><a href=\"#capture\">Capture</a><a href=\"#timeline\">Timeline</a>"
             "<a href=\"#gc\">GC</a><a href=\"#exceptions\">Exceptions</a>"
             "<a href=\"#processes\">Processes</a><a href=\"#containers\">Containers</a>"
             "<a href=\"#cpu\">CPU</a><a href=\"#symbols\">Symbols</a>"
             "<a href=\"#providers\">Providers</a></nav>\n</header>\n<main>\n");
}

static void capture(struct report_writer *w, const struct report *r)
{
  const struct etl_logfile *lf = &r->summary.lf;
  uint64_t lost_events, lost_buffers;
  char text[160], num[48];
  size_t i;
  lost_totals(r, &lost_events, &lost_buffers);
  rw_puts(w, "<section id=\"capture\">\n<h2>Capture</h2>\n<div class=\"cards\">\n");
  card(w, NULL, "events", report_grouped((double)r->summary.events, num, sizeof(num)));
  snprintf(text, sizeof(text), "%.3f s",
           r->have_times ? (double)(r->last_filetime - r->first_filetime) / 1e7 : 0.0);
  card(w, NULL, "duration (first to last event)", text);
  snprintf(text, sizeof(text), "%s events, %llu buffers",
           report_grouped((double)lost_events, num, sizeof(num)),
           (unsigned long long)lost_buffers);
  card(w, lost_events || lost_buffers ? "bad" : "ok", "lost", text);
  snprintf(text, sizeof(text), "%zu", r->gcs.count);
  card(w, NULL, ".NET GCs", text);
  snprintf(text, sizeof(text), "%llu", (unsigned long long)r->exceptions.total);
  card(w, r->exceptions.total ? "warn" : NULL, ".NET exceptions", text);
  if (r->manifest.has_trigger)
    card(w, "bad", "trigger fired", r->manifest.trigger_name);
  else
    card(w, NULL, "trigger", r->manifest.present ? "none fired" : "no capture manifest");
  rw_puts(w, "</div>\n<table class=\"kv\">\n");
  if (r->have_times) {
    rw_puts(w, "<tr><th>Events from</th><td>");
    utc_text(w, r->first_filetime);
    rw_puts(w, " <span class=\"muted\">(");
    rw_ms(w, report_ms(r, r->first_filetime));
    rw_puts(w, " ms after the session start)</span></td></tr>\n<tr><th>Events to</th><td>");
    utc_text(w, r->last_filetime);
    rw_puts(w, "</td></tr>\n");
  }
  rw_puts(w, "<tr><th>Session start</th><td>");
  utc_text(w, r->base_filetime);
  rw_puts(w, " <span class=\"muted\">(logfile header: times below count from here)</span>"
             "</td></tr>\n");
  rw_printf(w, "<tr><th>OS</th><td>Windows %u.%u build %u</td></tr>\n", (unsigned)lf->os_major,
            (unsigned)lf->os_minor, (unsigned)lf->build);
  rw_printf(w, "<tr><th>CPUs</th><td>%u × %u MHz, %u-bit</td></tr>\n", (unsigned)lf->cpus,
            (unsigned)lf->cpu_mhz, (unsigned)lf->pointer_size * 8);
  rw_printf(w, "<tr><th>Clock</th><td>%s", etl_clock_type_name(lf->clock_type));
  if (lf->clock_type == ETL_CLOCK_QPC)
    rw_printf(w, " at %s Hz", report_grouped((double)lf->perf_freq, num, sizeof(num)));
  rw_puts(w, "</td></tr>\n<tr><th>Trigger</th><td>");
  if (r->manifest.has_trigger) {
    rw_puts(w, "<span class=\"bad\">");
    rw_html(w, r->manifest.trigger_name);
    rw_puts(w, "</span> ");
    rw_html(w, r->manifest.trigger_detail);
    if (r->manifest.trigger_filetime) {
      rw_puts(w, " at ");
      utc_text(w, r->manifest.trigger_filetime);
      rw_puts(w, " <span class=\"muted\">(");
      rw_ms(w, report_ms(r, r->manifest.trigger_filetime));
      rw_puts(w, " ms)</span>");
    }
  } else {
    rw_puts(w, r->manifest.present ? "none fired"
                                   : "<span class=\"muted\">unknown: the trace has no etwcap "
                                     "capture manifest</span>");
  }
  rw_puts(w, "</td></tr>\n<tr><th>Command line</th><td class=\"cmd\">");
  if (r->manifest.present && r->manifest.command_line[0])
    rw_html(w, r->manifest.command_line);
  else
    rw_puts(w, "<span class=\"muted\">not recorded</span>");
  rw_puts(w, "</td></tr>\n");
  if (r->manifest_problem[0]) {
    rw_puts(w, "<tr><th>Manifest</th><td class=\"bad\">not read: ");
    rw_html(w, r->manifest_problem);
    rw_puts(w, "</td></tr>\n");
  }
  rw_puts(w, "</table>\n<h3>Sessions</h3>\n<table>\n<thead><tr><th>File</th><th>Logger</th>"
             "<th class=\"n\">Events</th><th class=\"n\">Bytes</th><th class=\"n\">Events lost"
             "</th><th class=\"n\">Buffers lost</th><th class=\"n\">Buffers flagged lost</th>"
             "</tr></thead>\n<tbody>\n");
  for (i = 0; i < r->session_count; i++) {
    const struct report_session *s = &r->sessions[i];
    rw_puts(w, "<tr>");
    text_cell(w, "cmd", s->file);
    text_cell(w, NULL, s->logger);
    count_cell(w, s->events, 0);
    count_cell(w, s->bytes, 0);
    count_cell(w, s->events_lost, 1);
    count_cell(w, s->buffers_lost, 1);
    count_cell(w, s->buffers_flagged_lost, 1);
    rw_puts(w, "</tr>\n");
  }
  rw_puts(w, "</tbody></table>\n</section>\n");
}

static void timeline(struct report_writer *w, const struct report *r)
{
  rw_puts(w, "<section id=\"timeline\">\n<h2>Timeline</h2>\n");
  report_svg_timeline(w, r);
  rw_puts(w, "<p class=\"muted\">Each row is scaled to its own peak. Purple ticks: GC starts; "
             "red triangles: first throw of each exception type (a line runs to the last); "
             "dashed box: the capture window");
  rw_puts(w, r->manifest.has_trigger ? "; red dashed line: the trigger.</p>\n" : ".</p>\n");
  rw_puts(w, "</section>\n");
}

static double process_span_ms(const struct report *r, uint32_t pid)
{
  const struct report_process *p = report_kernel_process(&r->kernel, pid);
  int64_t from = r->first_filetime, to = r->last_filetime;
  if (p && p->start_filetime > from)
    from = p->start_filetime;
  if (p && p->end_filetime && p->end_filetime < to)
    to = p->end_filetime;
  return to > from ? (double)(to - from) / 10000.0 : 0;
}

static void gc_table(struct report_writer *w, const struct report *r,
                     const struct report_gc_totals *t)
{
  size_t i, shown = t->count < MAX_GC_ROWS ? t->count : MAX_GC_ROWS;
  char b1[32], b2[32];
  rw_puts(w, "<div class=\"scroll\"><table class=\"gcs\">\n<thead><tr><th class=\"n\">GC</th><th class=\"n\">Start "
             "(ms)</th><th class=\"n\">Gen</th><th>Type</th><th>Reason</th><th class=\"n\">"
             "Pause (ms)</th><th class=\"n\">Duration (ms)</th><th class=\"n\">Heap after (MB)"
             "</th><th class=\"n\">Promoted (MB)</th></tr></thead>\n<tbody>\n");
  for (i = t->first; i < t->first + shown; i++) {
    const struct report_gc *g = &r->gcs.gcs[i];
    rw_puts(w, "<tr><td class=\"n\">");
    rw_uint(w, g->number);
    rw_puts(w, "</td>");
    ms_cell(w, report_ms(r, g->start_filetime));
    rw_puts(w, "<td class=\"n\">");
    rw_uint(w, g->generation);
    rw_puts(w, "</td>");
    text_cell(w, NULL, report_gc_type_name(g->type, b1, sizeof(b1)));
    text_cell(w, NULL, report_gc_reason_name(g->reason, b2, sizeof(b2)));
    ms_cell(w, g->pause_ms);
    ms_cell(w, g->duration_ms);
    mb_cell(w, g->heap_after, g->has_heap);
    mb_cell(w, g->promoted, g->has_heap);
    rw_puts(w, "</tr>\n");
  }
  rw_puts(w, "</tbody></table></div>\n");
  cut_note(w, shown, t->count, "GCs of this process");
}

static void gcs(struct report_writer *w, const struct report *r)
{
  size_t i = 0;
  rw_puts(w, "<section id=\"gc\">\n<h2>Garbage collections</h2>\n");
  if (!r->gcs.count)
    rw_puts(w, "<p class=\"muted\">No .NET GC events (the CLR provider's GC keyword was not "
               "enabled, or no .NET process collected).</p>\n");
  else
    rw_puts(w, "<p class=\"muted\">As PerfView's GCStats computes them: pause from "
               "SuspendEEStart to RestartEEStop, duration from GCStart to GCStop, heap size "
               "and promoted bytes from GCHeapStats.</p>\n");
  while (i < r->gcs.count) {
    struct report_gc_totals t;
    const char *name;
    double span;
    char num[48];
    i = report_gc_totals_at(&r->gcs, i, &t);
    name = process_name(r, t.pid);
    span = process_span_ms(r, t.pid);
    rw_printf(w, "<div class=\"proc\">\n<h3>Process %lu", (unsigned long)t.pid);
    if (name) {
      rw_puts(w, " (");
      rw_html(w, name);
      rw_puts(w, ")");
    }
    rw_puts(w, "</h3>\n<div class=\"flex\"><div class=\"cards\">");
    card(w, NULL, "GCs", report_grouped((double)t.count, num, sizeof(num)));
    rw_puts(w, "<div class=\"card\"><div class=\"v\">");
    rw_ms(w, t.max_pause_ms);
    rw_puts(w, " ms</div><div class=\"k\">max pause</div></div><div class=\"card\"><div "
               "class=\"v\">");
    rw_ms(w, t.total_pause_ms);
    rw_puts(w, " ms</div><div class=\"k\">total pause</div></div>");
    rw_printf(w, "<div class=\"card\"><div class=\"v\">%.2f %%</div><div class=\"k\">of its "
                 "time in the trace paused</div></div>",
              span > 0 ? t.total_pause_ms / span * 100 : 0.0);
    rw_puts(w, "</div>\n");
    report_svg_pause_histogram(w, &t);
    rw_puts(w, "</div>\n");
    gc_table(w, r, &t);
    rw_puts(w, "</div>\n");
  }
  not_kept(w, r->gcs.dropped, REPORT_GC_MAX_RECORDS, "GC events", "the GCs are incomplete");
  rw_puts(w, "</section>\n");
}

static void exceptions(struct report_writer *w, const struct report *r)
{
  size_t i;
  rw_puts(w, "<section id=\"exceptions\">\n<h2>Exceptions</h2>\n");
  if (!r->exceptions.count) {
    rw_puts(w, "<p class=\"muted\">No .NET exceptions were thrown (or the CLR provider's "
               "Exception keyword was not enabled).</p>\n</section>\n");
    return;
  }
  rw_puts(w, "<table>\n<thead><tr><th>Type</th><th class=\"n\">Process</th><th>Name</th>"
             "<th class=\"n\">Count</th><th class=\"n\">First (ms)</th><th class=\"n\">Last (ms)"
             "</th></tr></thead>\n<tbody>\n");
  for (i = 0; i < r->exceptions.count; i++) {
    const struct report_exception *e = &r->exceptions.items[i];
    rw_puts(w, "<tr>");
    text_cell(w, "cmd", e->type);
    rw_printf(w, "<td class=\"n\">%lu</td>", (unsigned long)e->pid);
    text_cell(w, NULL, process_name(r, e->pid) ? process_name(r, e->pid) : "");
    count_cell(w, e->count, 0);
    ms_cell(w, report_ms(r, e->first_filetime));
    ms_cell(w, report_ms(r, e->last_filetime));
    rw_puts(w, "</tr>\n");
  }
  rw_puts(w, "</tbody></table>\n");
  if (r->exceptions.dropped)
    rw_printf(w, "<p class=\"bad\">%llu exceptions of further types were not told apart.</p>\n",
              (unsigned long long)r->exceptions.dropped);
  rw_puts(w, "</section>\n");
}

/* A container by its name, or by its ID; blank for the host. */
static void container_cell(struct report_writer *w, const char *name,
                           const struct report_container *c)
{
  text_cell(w, "cmd", name ? name : c ? c->id->id : "");
}

static void containers(struct report_writer *w, const struct report *r)
{
  size_t i, j;
  rw_puts(w, "<section id=\"containers\">\n<h2>Containers</h2>\n");
  if (!r->containers.count) {
    rw_puts(w, "<p class=\"muted\">No event carries a container ID (no process-isolated "
               "container ran, or the capture lacked /EnableEventsInContainers "
               "/EnableSourceContainerTracking).</p>\n</section>\n");
    return;
  }
  rw_puts(w, "<p class=\"muted\">Events is the count of events that carried the container's ID. "
             "Kernel events carry none: CPU samples, GCs, exceptions and image loads are joined "
             "to a container through their process, at their time. Processes not listed ran on "
             "the host.</p>\n<table>\n<thead><tr><th>Container</th><th>Processes</th>"
             "<th class=\"n\">Events</th><th class=\"n\">CPU samples</th><th class=\"n\">GCs"
             "</th><th class=\"n\">Exceptions</th><th class=\"n\">Image loads</th></tr>"
             "</thead>\n<tbody>\n");
  for (i = 0; i < r->containers.count; i++) {
    const struct report_container *c = &r->containers.list[i];
    rw_puts(w, "<tr>");
    container_cell(w, report_container_name(r, i), c);
    rw_puts(w, "<td class=\"cmd\">");
    for (j = 0; j < c->id->pid_count; j++) {
      const char *name = process_name(r, c->id->pids[j]);
      rw_printf(w, "%s%lu", j ? ", " : "", (unsigned long)c->id->pids[j]);
      if (name) {
        rw_puts(w, " ");
        rw_html(w, name);
      }
    }
    rw_puts(w, "</td>");
    count_cell(w, c->id->events, 0);
    count_cell(w, c->cpu_samples, 0);
    count_cell(w, c->gcs, 0);
    count_cell(w, c->exceptions, 0);
    count_cell(w, c->image_loads, 0);
    rw_puts(w, "</tr>\n");
  }
  rw_puts(w, "</tbody></table>\n");
  not_kept(w, r->containers.loads_dropped, REPORT_MAX_IMAGE_LOADS, "image loads",
           "the containers' image loads are incomplete");
  rw_puts(w, "</section>\n");
}

static int by_samples(const void *a, const void *b)
{
  const struct report_process *x = *(const struct report_process *const *)a;
  const struct report_process *y = *(const struct report_process *const *)b;
  if (x->cpu_samples != y->cpu_samples)
    return x->cpu_samples > y->cpu_samples ? -1 : 1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void processes(struct report_writer *w, const struct report *r)
{
  const struct report_kernel *k = &r->kernel;
  const struct report_process **order;
  const char *names[ETL_CONTAINERS_MAX];
  size_t i, shown = k->process_count < MAX_PROCESS_ROWS ? k->process_count : MAX_PROCESS_ROWS;
  rw_puts(w, "<section id=\"processes\">\n<h2>Processes</h2>\n");
  if (!k->process_count) {
    rw_puts(w, "<p class=\"muted\">No kernel process events (the kernel Process keyword was not "
               "enabled).</p>\n</section>\n");
    return;
  }
  order = etwcap_calloc(k->process_count, sizeof(*order));
  if (!order) {
    rw_puts(w, "<p class=\"bad\">Out of memory listing the processes.</p>\n</section>\n");
    return;
  }
  for (i = 0; i < k->process_count; i++)
    order[i] = &k->processes[i];
  qsort(order, k->process_count, sizeof(*order), by_samples);
  rw_printf(w, "<p class=\"muted\">%zu processes, by CPU samples (%llu samples in all",
            k->process_count, (unsigned long long)k->cpu_samples);
  if (k->samples_unattributed)
    rw_printf(w, ", %llu on threads the trace does not name",
              (unsigned long long)k->samples_unattributed);
  rw_puts(w, "). Start and end are blank for processes that ran before or after the trace."
             "</p>\n<table>\n<thead><tr><th class=\"n\">PID</th><th>Name</th><th>Command line"
             "</th><th class=\"n\">Start (ms)</th><th class=\"n\">End (ms)</th>"
             "<th class=\"n\">CPU samples</th>");
  if (r->containers.count)
    rw_puts(w, "<th>Container</th>");
  rw_puts(w, "</tr></thead>\n<tbody>\n");
  /* Naming a container compares its processes with the inventory's: once
   * each, not once a row. */
  for (i = 0; i < r->containers.count; i++)
    names[i] = report_container_name(r, i);
  for (i = 0; i < shown; i++) {
    const struct report_process *p = order[i];
    rw_printf(w, "<tr><td class=\"n\">%lu</td>", (unsigned long)p->pid);
    text_cell(w, NULL, p->name);
    text_cell(w, "cmd", p->command_line ? p->command_line : "");
    ms_cell(w, p->start_filetime ? report_ms(r, p->start_filetime) : -1);
    ms_cell(w, p->end_filetime ? report_ms(r, p->end_filetime) : -1);
    count_cell(w, p->cpu_samples, 0);
    if (r->containers.count) {
      const struct report_container *c = report_process_container(r, (size_t)(p - k->processes));
      container_cell(w, c ? names[c - r->containers.list] : NULL, c);
    }
    rw_puts(w, "</tr>\n");
  }
  rw_puts(w, "</tbody></table>\n");
  cut_note(w, shown, k->process_count, "processes");
  etwcap_free(order);
  rw_puts(w, "</section>\n");
}

/* The container images the capture's merge could not identify (the
 * manifest's containerImagesUnread): most often their container had
 * stopped before the capture ended. */
static void container_images_unread(struct report_writer *w, const struct report *r)
{
  const struct report_manifest *m = &r->manifest;
  size_t i;
  if (!m->unread_total)
    return;
  rw_printf(w, "<p><span class=\"warn\">%lu image(s) inside containers have no identity:</span> "
               "the merge could not read them from the host. For these, run "
               "<code>etwcap merge X.etl.zip /ImageIDsOnly</code> inside the container while it "
               "runs.</p>\n<table>\n<thead><tr><th>Image</th><th class=\"n\">PID</th>"
               "<th>Why</th></tr></thead>\n<tbody>\n",
            (unsigned long)m->unread_total);
  for (i = 0; i < m->unread_count; i++) {
    rw_puts(w, "<tr>");
    text_cell(w, "cmd", m->unread[i].path);
    count_cell(w, m->unread[i].pid, 0);
    text_cell(w, NULL, m->unread[i].reason);
    rw_puts(w, "</tr>\n");
  }
  rw_puts(w, "</tbody></table>\n");
  cut_note(w, m->unread_count, m->unread_total, "container images without identity");
}

static void symbols(struct report_writer *w, const struct report *r)
{
  const struct report_kernel *k = &r->kernel;
  size_t i, with_id = 0, with_pdb = 0, without = 0;
  char text[160];
  rw_puts(w, "<section id=\"symbols\">\n<h2>Symbols ready?</h2>\n");
  if (!k->images.count) {
    rw_puts(w, "<p class=\"muted\">No kernel image events (the kernel ImageLoad keyword was not "
               "enabled): stacks cannot be resolved to modules.</p>\n</section>\n");
    return;
  }
  for (i = 0; i < k->images.count; i++) {
    with_id += k->images.list[i].with_id > 0;
    with_pdb += k->images.list[i].with_pdb > 0;
  }
  without = k->images.count - with_id;
  rw_puts(w, "<div class=\"cards\">");
  snprintf(text, sizeof(text), "%zu", k->images.count);
  card(w, NULL, "images seen", text);
  snprintf(text, sizeof(text), "%zu", with_id);
  card(w, without ? "warn" : "ok", "with identity events (ImageID)", text);
  snprintf(text, sizeof(text), "%zu", with_pdb);
  card(w, NULL, "with a PDB signature (DbgID)", text);
  snprintf(text, sizeof(text), "%zu", without);
  card(w, without == k->images.count ? "bad" : without ? "warn" : "ok", "without identity", text);
  rw_puts(w, "</div>\n<p>");
  if (without == k->images.count)
    rw_puts(w, "<span class=\"bad\">No image carries identity events:</span> symbols will only "
               "resolve on the machine that recorded the trace. Merge it with etwcap (or "
               "PerfView) to add them.");
  else if (without)
    rw_puts(w, "Most images can find their symbols on another machine; those listed below "
               "cannot (their file was not readable when the trace was merged).");
  else
    rw_puts(w, "Every image carries identity events: symbols can be found on another machine.");
  rw_puts(w, "</p>\n");
  if (without) {
    size_t listed = 0;
    rw_puts(w, "<details><summary>Images without identity events</summary>\n<table>\n<thead>"
               "<tr><th>Image</th><th class=\"n\">Events</th></tr></thead>\n<tbody>\n");
    for (i = 0; i < k->images.count && listed < MAX_IMAGE_ROWS; i++) {
      if (k->images.list[i].with_id)
        continue;
      listed++;
      rw_puts(w, "<tr>");
      text_cell(w, "cmd", k->images.list[i].name);
      count_cell(w, k->images.list[i].events, 0);
      rw_puts(w, "</tr>\n");
    }
    rw_puts(w, "</tbody></table>\n");
    cut_note(w, listed, without, "images without identity");
    rw_puts(w, "</details>\n");
  }
  container_images_unread(w, r);
  rw_puts(w, "</section>\n");
}

static void providers(struct report_writer *w, const struct report *r)
{
  const struct etl_summary *s = &r->summary;
  size_t i, shown = s->provider_count < MAX_PROVIDER_ROWS ? s->provider_count
                                                          : MAX_PROVIDER_ROWS;
  rw_puts(w, "<section id=\"providers\">\n<h2>Providers</h2>\n<table>\n<thead><tr><th>Provider"
             "</th><th>Name</th><th class=\"n\">Events</th><th class=\"n\">Bytes</th></tr>"
             "</thead>\n<tbody>\n");
  for (i = 0; i < shown; i++) {
    const struct etl_provider_stat *p = &s->providers[i];
    char id[64];
    const char *name = etl_summary_provider_label(p, id, sizeof(id));
    rw_puts(w, "<tr>");
    text_cell(w, "cmd", id);
    text_cell(w, NULL, name ? name : "");
    count_cell(w, p->events, 0);
    count_cell(w, p->bytes, 0);
    rw_puts(w, "</tr>\n");
  }
  rw_puts(w, "</tbody></table>\n");
  cut_note(w, shown, s->provider_count, "providers");
  rw_puts(w, "</section>\n");
}

void report_html_write(struct report_writer *w, const struct report *r)
{
  head(w, r);
  capture(w, r);
  timeline(w, r);
  gcs(w, r);
  exceptions(w, r);
  processes(w, r);
  containers(w, r);
  report_html_cpu(w, r);
  symbols(w, r);
  providers(w, r);
  rw_puts(w, "</main>\n<footer>Written by etwcap ");
  rw_html(w, ETWCAP_VERSION);
  rw_puts(w, " from one pass over the trace. The same numbers are embedded as JSON "
             "(schema etwcap-report/1) in the script element with id etwcap-report.</footer>\n"
             "<script type=\"application/json\" id=\"etwcap-report\">\n");
  report_json_write(w, r);
  rw_puts(w, "</script>\n");
  report_flame_script(w);
  rw_puts(w, "</body>\n</html>\n");
}
