/* See report_html_cpu.h.  Frame names come from the trace (method and
 * file names): escaped like every other text of the page. */
#include "src/report/report_html_cpu.h"

#include "src/report/report_flame.h"

#include <stdio.h>

/* Processes given tables on the page (the JSON has all REPORT_CPU_BUSIEST)
 * and rows per table. */
#define HTML_CPU_PROCESSES 5
#define HTML_CPU_ROWS 20

static void percent_cell(struct report_writer *w, uint64_t n, uint64_t of)
{
  rw_puts(w, "<td class=\"n\">");
  rw_fixed(w, of ? 100.0 * (double)n / (double)of : 0.0, 1);
  rw_puts(w, "%</td>");
}

static void count_then_percent(struct report_writer *w, uint64_t n, uint64_t of)
{
  rw_puts(w, "<td class=\"n\">");
  rw_count(w, n);
  rw_puts(w, "</td>");
  percent_cell(w, n, of);
}

/* Flame graphs: rows drawn (deeper paths are cut there, as the renderer
 * cuts them) and frames drawn, which bound a page at about 0.4 MB per
 * graph; frames under 0.1% of the process's samples are merged. */
#define FLAME_DEPTH 256
#define FLAME_FRAMES 1500
#define FLAME_MIN_FRACTION 0.001

static const char *frame_name(void *ctx, uint32_t frame)
{
  return stack_frames_name(ctx, frame);
}

/* p's call tree as a flame graph: each node's own samples are one stack
 * of the frames from the process down to it.  thread_time: p is a
 * thread-time tree, weighed in 100 ns units, drawn in ms. */
static void flame(struct report_writer *w, const struct report *r,
                  const struct report_cpu_process *p, int thread_time)
{
  struct flame_graph g;
  struct flame_style s = { 0 };
  uint32_t path[FLAME_DEPTH];
  char root[REPORT_PROCESS_NAME_MAX + 16];
  size_t i;
  int rc = flame_graph_init(&g, p->node_count);
  for (i = 0; !rc && i < p->node_count; i++)
    if (p->nodes[i].weight)
      rc = flame_graph_add(&g, path, report_cpu_path(p, (uint32_t)i, path, FLAME_DEPTH),
                           p->nodes[i].weight);
  if (rc) {
    rw_puts(w, "<p class=\"bad\">Out of memory drawing the flame graph.</p>\n");
  } else {
    snprintf(root, sizeof(root), "%s (%u)", p->name[0] ? p->name : "?", (unsigned)p->pid);
    s.root = root;
    s.unit = thread_time ? "ms" : "samples";
    s.unit_per_weight = thread_time ? 1e-4 : 1;
    s.decimals = thread_time ? 1 : 0;
    s.min_fraction = FLAME_MIN_FRACTION;
    s.max_frames = FLAME_FRAMES;
    s.name = frame_name;
    s.ctx = (void *)&r->frames;
    report_flame_write(w, &g, &s);
  }
  flame_graph_release(&g);
}

/* The frames of list (n of them, first HTML_CPU_ROWS) in one table. */
static void frame_table(struct report_writer *w, const struct report *r,
                        const struct report_cpu_process *p, const struct report_cpu_frame *list,
                        size_t n, const char *caption)
{
  size_t i;
  rw_puts(w, "<table>\n<caption>");
  rw_html(w, caption);
  rw_puts(w, "</caption>\n<thead><tr><th>Frame</th><th class=\"n\">Exclusive</th>"
             "<th class=\"n\">%</th><th class=\"n\">Inclusive</th><th class=\"n\">%</th></tr>"
             "</thead>\n<tbody>\n");
  for (i = 0; i < n && i < HTML_CPU_ROWS; i++) {
    rw_puts(w, "<tr><td class=\"cmd\">");
    rw_html(w, stack_frames_name(&r->frames, list[i].frame));
    rw_puts(w, "</td>");
    count_then_percent(w, list[i].self, p->samples);
    count_then_percent(w, list[i].total, p->samples);
    rw_puts(w, "</tr>\n");
  }
  rw_puts(w, "</tbody></table>\n");
}

/* What a CPU sample weighs in the thread-time view (docs/stacks.md). */
static void interval_note(struct report_writer *w, const struct report_kernel *k)
{
  if (!k->interval_count) {
    rw_puts(w, "The trace does not give its sampling interval (no PerfInfo CollectionStart "
               "or SetInterval event for the timer): each CPU sample counts 1 ms of "
               "CPU_TIME, the kernel's default.");
  } else if (report_kernel_interval_fixed(k)) {
    rw_puts(w, "Each CPU sample counts the trace's sampling interval, ");
    rw_ms(w, (double)report_kernel_interval(k, 0) / 1e4);
    rw_puts(w, " ms, of CPU_TIME.");
  } else {
    rw_puts(w, "Each CPU sample counts the sampling interval in effect at its time (the trace "
               "changes it) of CPU_TIME.");
  }
}

void report_html_cpu(struct report_writer *w, const struct report *r)
{
  size_t i, shown;
  rw_puts(w, "<section id=\"cpu\">\n<h2>CPU</h2>\n");
  if (!r->cpu.count) {
    rw_puts(w, "<p class=\"muted\">No CPU samples (the kernel's Profile flag was not "
               "enabled).</p>\n</section>\n");
    return;
  }
  rw_puts(w, "<p>Frames are named from the trace alone: .NET methods from the CLR's method "
             "events, other code by its image (<code>clr.dll!?</code>), <code>?!?</code> "
             "where neither is known. Exclusive: samples taken in the frame; inclusive: "
             "samples with the frame anywhere on their stack.</p>\n");
  for (i = 0, shown = 0; i < r->cpu.count && shown < HTML_CPU_PROCESSES; i++) {
    const struct report_cpu_process *p = &r->cpu.list[i];
    if (p->pid == 0) { /* Idle: the time no thread ran */
      rw_puts(w, "<p>Idle (0): ");
      rw_count(w, p->samples);
      rw_puts(w, " samples.</p>\n");
      continue;
    }
    shown++;
    rw_puts(w, "<h3>");
    rw_html(w, p->name[0] ? p->name : "?");
    rw_printf(w, " (%u): ", (unsigned)p->pid);
    rw_count(w, p->samples);
    rw_puts(w, " samples, ");
    rw_count(w, p->with_stack);
    rw_puts(w, " with a stack</h3>\n");
    flame(w, r, p, 0);
    if (r->cpu.thread_time) {
      rw_puts(w, "<h4>Thread time: ");
      rw_ms(w, (double)p->cpu_time / 1e4);
      rw_puts(w, " ms CPU and ");
      rw_ms(w, (double)r->cpu.blocked[i] / 1e4);
      rw_puts(w, " ms blocked</h4>\n<p class=\"muted\">");
      interval_note(w, &r->kernel);
      rw_puts(w, " A thread's time from its switch-out to its next switch-in counts as "
                 "BLOCKED_TIME on the stack it resumed from.</p>\n");
      flame(w, r, &r->cpu.thread_time[i], 1);
    }
    rw_puts(w, "<div style=\"display:flex;flex-wrap:wrap;gap:24px\">\n");
    frame_table(w, r, p, p->top, p->top_count, "By exclusive samples");
    frame_table(w, r, p, p->top_total, p->top_total_count, "By inclusive samples");
    rw_puts(w, "</div>\n");
  }
  rw_puts(w, "</section>\n");
}
