/* See report_html_cpu.h.  Frame names come from the trace (method and
 * file names): escaped like every other text of the page. */
#include "src/report/report_html_cpu.h"

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
    rw_html(w, report_frames_name(&r->frames, list[i].frame));
    rw_puts(w, "</td>");
    count_then_percent(w, list[i].self, p->samples);
    count_then_percent(w, list[i].total, p->samples);
    rw_puts(w, "</tr>\n");
  }
  rw_puts(w, "</tbody></table>\n");
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
    rw_puts(w, " with a stack</h3>\n<div style=\"display:flex;flex-wrap:wrap;gap:24px\">\n");
    frame_table(w, r, p, p->top, p->top_count, "By exclusive samples");
    frame_table(w, r, p, p->top_total, p->top_total_count, "By inclusive samples");
    rw_puts(w, "</div>\n");
  }
  rw_puts(w, "</section>\n");
}
