/* See report_svg.h.  Coordinates are in a fixed viewBox; the page scales the
 * SVG to its width.  Text comes from the trace only through rw_html. */
#include "src/report/report_svg.h"

#include "src/report/report_json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define VIEW_W 1100
#define LEFT 210   /* series labels */
#define RIGHT 90   /* peak rates */
#define PLOT_W (VIEW_W - LEFT - RIGHT)
#define TOP_H 120  /* the all-events chart */
#define ROW_H 56   /* each further series */
#define MARK_H 34  /* the GC / exception marker lane */
#define AXIS_H 34
#define MAX_PROVIDER_ROWS 6
#define LABEL_CHARS 26 /* at 12 px, what fits in LEFT */

struct frame {
  const struct report *r;
  int first_bin, last_bin; /* the bins with events */
  double bin_s;            /* seconds per bin */
};

static double x_of_bin(const struct frame *f, double bin)
{
  double span = (double)(f->last_bin - f->first_bin + 1);
  return LEFT + (bin - f->first_bin) / span * PLOT_W;
}

static double x_of_filetime(const struct frame *f, int64_t ft)
{
  const struct report_timeline *t = &f->r->timeline;
  return x_of_bin(f, (double)(ft - t->origin) / (double)t->width);
}


/* What fits left of the chart: a long name without its "Microsoft-Windows-"
 * and then its end (the distinctive part); the <title> has it whole. */
static const char *short_label(const char *name, char *buf, size_t cap)
{
  static const char common[] = "Microsoft-Windows-";
  size_t n;
  const char *tail;
  if (!strncmp(name, common, sizeof(common) - 1))
    name += sizeof(common) - 1;
  n = strlen(name);
  if (n <= LABEL_CHARS)
    return name;
  tail = name + n - (LABEL_CHARS - 1);
  while ((*tail & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
    tail++;
  snprintf(buf, cap, "\xE2\x80\xA6%s", tail);
  return buf;
}

/* " Vy" or " Hx": a path's vertical or horizontal line to y or x, at tenths
 * of a pixel. */
static void line_along(struct report_writer *w, const char *command, double to)
{
  rw_puts(w, command);
  rw_fixed(w, to, 1);
}

/* A series' outline as steps: up to a bin's height, across it, and down at
 * the end.  Bins of equal height (runs of empty ones most of all) are one
 * step, so a chart of many bins stays a short path. */
static void series_steps(struct report_writer *w, const struct frame *f, int s, double base,
                         double h, double peak)
{
  const struct report_timeline *t = &f->r->timeline;
  long floor_at = lround(base * 10), at = floor_at, tenths;
  int i;
  for (i = f->first_bin; i <= f->last_bin; i++) {
    tenths = lround((base - (double)t->count[s][i] / peak * (h - 4)) * 10);
    if (tenths != at) {
      if (i > f->first_bin)
        line_along(w, " H", x_of_bin(f, i));
      line_along(w, " V", tenths / 10.0);
      at = tenths;
    }
  }
  line_along(w, " H", x_of_bin(f, f->last_bin + 1));
  if (at != floor_at)
    line_along(w, " V", base);
}

static void series_row(struct report_writer *w, const struct frame *f, int s, double y0,
                       double h, const char *color)
{
  const struct report_timeline *t = &f->r->timeline;
  char name[80], label[96], peak_text[40];
  double peak = 0;
  int i;
  for (i = f->first_bin; i <= f->last_bin; i++)
    if (t->count[s][i] > peak)
      peak = t->count[s][i];
  rw_printf(w, "<g class=\"series\"><title>");
  rw_html(w, report_series_name(f->r, s, name, sizeof(name)));
  rw_printf(w, "</title>\n<line class=\"base\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
            LEFT, LEFT + PLOT_W, y0 + h, y0 + h);
  rw_printf(w, "<text class=\"label\" x=\"%d\" y=\"%.1f\">", LEFT - 8, y0 + h / 2 + 4);
  rw_html(w, short_label(report_series_name(f->r, s, name, sizeof(name)), label,
                         sizeof(label)));
  rw_puts(w, "</text>\n");
  if (peak > 0) {
    rw_printf(w, "<path fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" stroke-width=\"1\" d=\"M%.1f %.1f",
              color, color, x_of_bin(f, f->first_bin), y0 + h);
    series_steps(w, f, s, y0 + h, h, peak);
    rw_puts(w, " Z\"/>\n");
  }
  rw_printf(w, "<text class=\"peak\" x=\"%d\" y=\"%.1f\">peak</text>", LEFT + PLOT_W + 6,
            y0 + 12);
  rw_printf(w, "<text class=\"peak\" x=\"%d\" y=\"%.1f\">%s/s</text></g>\n", LEFT + PLOT_W + 6,
            y0 + 26, report_grouped(peak / f->bin_s, peak_text, sizeof(peak_text)));
}

/* A tick step of 1, 2 or 5 times a power of ten giving about 8 ticks. */
static double tick_step(double span)
{
  double raw = span / 8, p = pow(10, floor(log10(raw > 0 ? raw : 1)));
  return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

static void time_axis(struct report_writer *w, const struct frame *f, double top, double y)
{
  const struct report_timeline *t = &f->r->timeline;
  double from_s = (report_ms(f->r, t->origin) + f->first_bin * f->bin_s * 1000) / 1000;
  double to_s = from_s + (f->last_bin - f->first_bin + 1) * f->bin_s;
  double step = tick_step(to_s - from_s), v;
  rw_printf(w, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", LEFT,
            LEFT + PLOT_W, y, y);
  for (v = ceil(from_s / step) * step; v <= to_s; v += step) {
    double x = LEFT + (v - from_s) / (to_s - from_s) * PLOT_W;
    if (fabs(v) < step * 1e-9)
      v = 0; /* not "-0 s" */
    rw_printf(w, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x,
              top, y);
    rw_printf(w, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%g s</text>\n", x, y + 16, v);
  }
  rw_printf(w, "<text class=\"axis-title\" x=\"%d\" y=\"%.1f\">time since trace start</text>\n",
            LEFT + PLOT_W, y + 30);
}

static void markers(struct report_writer *w, const struct frame *f, double y0)
{
  const struct report *r = f->r;
  size_t i;
  rw_printf(w, "<text class=\"label\" x=\"%d\" y=\"%.1f\">GCs / exceptions</text>\n", LEFT - 8,
            y0 + MARK_H / 2 + 4);
  rw_puts(w, "<g class=\"gc-marks\">");
  for (i = 0; i < r->gcs.count; i++)
    rw_printf(w, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
              x_of_filetime(f, r->gcs.gcs[i].start_filetime),
              x_of_filetime(f, r->gcs.gcs[i].start_filetime), y0 + 4, y0 + MARK_H / 2);
  rw_puts(w, "</g>\n<g class=\"exception-marks\">");
  for (i = 0; i < r->exceptions.count; i++) {
    const struct report_exception *e = &r->exceptions.items[i];
    double x1 = x_of_filetime(f, e->first_filetime), x2 = x_of_filetime(f, e->last_filetime);
    rw_printf(w, "<path d=\"M%.1f %.1f l-5 9 h10 Z\"><title>", x1, y0 + MARK_H / 2 + 2);
    rw_html(w, e->type);
    rw_puts(w, "</title></path>");
    if (x2 > x1 + 1)
      rw_printf(w, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x1, x2,
                y0 + MARK_H / 2 + 11, y0 + MARK_H / 2 + 11);
  }
  rw_puts(w, "</g>\n");
}

static void window_and_trigger(struct report_writer *w, const struct frame *f, double top,
                               double bottom)
{
  const struct report *r = f->r;
  if (r->have_times) {
    double x1 = x_of_filetime(f, r->first_filetime), x2 = x_of_filetime(f, r->last_filetime);
    rw_printf(w,
              "<rect class=\"window\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
              "<title>capture window: first to last event</title></rect>\n",
              x1, top, x2 - x1 > 1 ? x2 - x1 : 1, bottom - top);
  }
  if (r->manifest.has_trigger && r->manifest.trigger_filetime) {
    double x = x_of_filetime(f, r->manifest.trigger_filetime);
    if (x < LEFT)
      x = LEFT;
    if (x > LEFT + PLOT_W)
      x = LEFT + PLOT_W;
    /* The label goes on the side of the line with more room. */
    int left_side = x > LEFT + PLOT_W / 2;
    rw_printf(w,
              "<line class=\"trigger\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
              "<text class=\"trigger-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">"
              "trigger: ",
              x, x, top - 4, bottom, left_side ? x - 4 : x + 4, top + 12,
              left_side ? "end" : "start");
    rw_html(w, r->manifest.trigger_name);
    rw_puts(w, "</text>\n");
  }
}

/* The busiest provider series, in descending order of events. */
static int busiest(const struct report *r, int *out, int max)
{
  uint64_t totals[REPORT_TIMELINE_PROVIDERS];
  int n, s;
  for (s = 0; s < REPORT_TIMELINE_PROVIDERS; s++)
    totals[s] = report_timeline_total(&r->timeline, s);
  for (n = 0; n < max; n++) {
    int best = -1;
    for (s = 0; s < REPORT_TIMELINE_PROVIDERS; s++)
      if (totals[s] && (best < 0 || totals[s] > totals[best]))
        best = s;
    if (best < 0)
      break;
    out[n] = best;
    totals[best] = 0;
  }
  return n;
}

void report_svg_timeline(struct report_writer *w, const struct report *r)
{
  static const char *const colors[] = { "#1f6feb", "#8250df", "#bf8700", "#1a7f37",
                                        "#cf222e", "#0a7ea4", "#6e7781", "#953800" };
  struct frame f;
  int rows[MAX_PROVIDER_ROWS + 2], n, i;
  double y, height;
  memset(&f, 0, sizeof(f));
  f.r = r;
  f.first_bin = -1;
  for (i = 0; i < REPORT_TIMELINE_BINS; i++) {
    if (r->timeline.count[REPORT_SERIES_ALL][i]) {
      if (f.first_bin < 0)
        f.first_bin = i;
      f.last_bin = i;
    }
  }
  if (f.first_bin < 0) {
    rw_puts(w, "<p class=\"muted\">No event carries a timestamp: no timeline.</p>\n");
    return;
  }
  f.bin_s = (double)r->timeline.width / 1e7;
  n = busiest(r, rows, MAX_PROVIDER_ROWS);
  if (report_timeline_total(&r->timeline, REPORT_SERIES_CSWITCH))
    rows[n++] = REPORT_SERIES_CSWITCH;
  if (report_timeline_total(&r->timeline, REPORT_SERIES_CPU_SAMPLES))
    rows[n++] = REPORT_SERIES_CPU_SAMPLES;
  height = 24 + TOP_H + 8 + n * ROW_H + MARK_H + AXIS_H + 12;
  rw_printf(w,
            "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 %d %.0f\" "
            "xmlns=\"http://www.w3.org/2000/svg\" aria-label=\"Events per second over time\">\n",
            VIEW_W, height);
  rw_printf(w, "<text class=\"legend\" x=\"%d\" y=\"14\">events per second, %.3g ms bins</text>\n",
            LEFT, f.bin_s * 1000);
  y = 24;
  window_and_trigger(w, &f, y, height - AXIS_H - 12);
  series_row(w, &f, REPORT_SERIES_ALL, y, TOP_H, "#24292f");
  y += TOP_H + 8;
  for (i = 0; i < n; i++, y += ROW_H)
    series_row(w, &f, rows[i], y, ROW_H - 8, colors[i % 8]);
  markers(w, &f, y);
  y += MARK_H;
  time_axis(w, &f, 24, y);
  rw_puts(w, "</svg>\n");
}

void report_svg_pause_histogram(struct report_writer *w, const struct report_gc_totals *t)
{
  static const char *const labels[REPORT_GC_PAUSE_BUCKETS] = {
    "&lt;0.1", "0.1–0.5", "0.5–1", "1–5", "5–10", "10–50", "50–100", "≥100"
  };
  const int width = 460, left = 40, bar_w = 48, gap = 4, plot_h = 110, top = 40;
  uint64_t max = 0;
  int i;
  for (i = 0; i < REPORT_GC_PAUSE_BUCKETS; i++)
    if (t->pause_hist[i] > max)
      max = t->pause_hist[i];
  rw_printf(w,
            "<svg class=\"hist\" role=\"img\" viewBox=\"0 0 %d %d\" "
            "xmlns=\"http://www.w3.org/2000/svg\" aria-label=\"GC pause histogram\">\n",
            width, top + plot_h + 40);
  rw_printf(w, "<text class=\"legend\" x=\"%d\" y=\"14\">GCs per pause length</text>\n",
            left);
  rw_printf(w, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n", left,
            left + REPORT_GC_PAUSE_BUCKETS * (bar_w + gap), top + plot_h, top + plot_h);
  rw_printf(w, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%llu</text>\n",
            left - 4, top + 8, (unsigned long long)max);
  rw_printf(w, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n", left - 4,
            top + plot_h);
  for (i = 0; i < REPORT_GC_PAUSE_BUCKETS; i++) {
    int x = left + i * (bar_w + gap);
    double h = max ? (double)t->pause_hist[i] / (double)max * plot_h : 0;
    rw_printf(w,
              "<rect class=\"bar\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"/>"
              "<text class=\"tick\" x=\"%d\" y=\"%d\">%s</text>",
              x, top + plot_h - h, bar_w, h, x + bar_w / 2, top + plot_h + 16, labels[i]);
    if (t->pause_hist[i])
      rw_printf(w, "<text class=\"count\" x=\"%d\" y=\"%.1f\">%llu</text>", x + bar_w / 2,
                top + plot_h - h - 4, (unsigned long long)t->pause_hist[i]);
    rw_puts(w, "\n");
  }
  rw_printf(w, "<text class=\"axis-title\" x=\"%d\" y=\"%d\">pause (ms)</text>\n",
            left + REPORT_GC_PAUSE_BUCKETS * (bar_w + gap), top + plot_h + 34);
  rw_puts(w, "</svg>\n");
}
