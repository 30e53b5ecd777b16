/* See report_flame.h.  The tree is an array of nodes with a hash index of
 * (parent, frame) -> node, so adding a stack costs one lookup per frame.
 * Drawing walks it twice: once to count what a minimum width lets through,
 * once to write the frames, widest child first. */
#include "src/report/report_flame.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdlib.h>
#include <string.h>

#define VIEW_W 1100     /* the SVG's width in its own units; the page scales it */
#define ROW_H 17        /* one frame's row: 16 units of box, 1 of gap */
#define MAX_ROWS 256    /* deeper frames are not drawn */
#define CHAR_W 6.7      /* a character of the 11 px monospace label */
#define FIRST_NODES 256

/* Mixes a node and a frame id into one 32-bit key of the index (the index
 * tells apart keys that collide). */
static uint32_t child_key(uint32_t parent, uint32_t frame)
{
  uint64_t k = ((uint64_t)parent << 32 | frame) * 0x9E3779B97F4A7C15u;
  return (uint32_t)(k >> 32) ^ (uint32_t)k;
}

int flame_graph_init(struct flame_graph *g, size_t max_nodes)
{
  size_t slots = 1;
  memset(g, 0, sizeof(*g));
  g->max_nodes = max_nodes ? max_nodes : 1;
  /* The index takes new keys up to three quarters full. */
  while (slots < g->max_nodes * 2)
    slots *= 2;
  if (report_idmap_init(&g->index, slots) != 0)
    return ETWCAP_E_NOMEM;
  if (etwcap_grow((void **)&g->nodes, &g->cap, 0, sizeof(*g->nodes), FIRST_NODES) != 0) {
    report_idmap_release(&g->index);
    return ETWCAP_E_NOMEM;
  }
  memset(&g->nodes[0], 0, sizeof(g->nodes[0]));
  g->count = 1;
  return 0;
}

void flame_graph_release(struct flame_graph *g)
{
  etwcap_free(g->nodes);
  report_idmap_release(&g->index);
  memset(g, 0, sizeof(*g));
}

static uint32_t find_child(const struct flame_graph *g, uint32_t parent, uint32_t frame)
{
  size_t cursor = 0;
  uint32_t node;
  while (report_idmap_next(&g->index, child_key(parent, frame), &cursor, &node))
    if (g->nodes[node].parent == parent && g->nodes[node].frame == frame)
      return node;
  return 0;
}

/* The new child `frame` of parent, or 0 when the tree is full. */
static uint32_t new_child(struct flame_graph *g, uint32_t parent, uint32_t frame)
{
  struct flame_node *n;
  uint32_t node = (uint32_t)g->count;
  if (g->count >= g->max_nodes ||
      etwcap_grow((void **)&g->nodes, &g->cap, g->count, sizeof(*g->nodes), FIRST_NODES) != 0 ||
      report_idmap_add(&g->index, child_key(parent, frame), node) != 0)
    return 0;
  n = &g->nodes[node];
  n->frame = frame;
  n->parent = parent;
  n->first_child = 0;
  n->total = 0;
  n->next_sibling = g->nodes[parent].first_child;
  g->nodes[parent].first_child = node;
  g->count++;
  return node;
}

int flame_graph_add(struct flame_graph *g, const uint32_t *ids, size_t n, uint64_t weight)
{
  uint32_t node = 0;
  size_t i;
  g->nodes[0].total += weight;
  for (i = 0; i < n; i++) {
    uint32_t child = find_child(g, node, ids[i]);
    if (!child)
      child = new_child(g, node, ids[i]);
    if (!child) {
      /* The rest of the stack is lost; its weight stays with the prefix. */
      g->cut += weight;
      return g->count < g->max_nodes ? ETWCAP_E_NOMEM : 0;
    }
    g->nodes[child].total += weight;
    node = child;
  }
  return 0;
}

/* ---- drawing ---------------------------------------------------------- */

struct drawing {
  struct report_writer *w;
  const struct flame_graph *g;
  const struct flame_style *s;
  uint64_t min;            /* the narrowest weight drawn */
  int rows;                /* rows drawn */
  size_t merged;           /* frames drawn as part of a "smaller frames" one */
  size_t left_out;         /* narrow frames not drawn at all */
  uint64_t left_out_weight;
  int too_deep;            /* frames below MAX_ROWS exist */
  int nomem;
};

static const char *frame_name(const struct drawing *d, uint32_t node)
{
  const char *name;
  if (node == 0)
    return d->s->root ? d->s->root : "all";
  name = d->s->name ? d->s->name(d->s->ctx, d->g->nodes[node].frame) : NULL;
  return name ? name : "?";
}

/* A child as it is sorted: qsort's comparison has no context, so the
 * name is asked for first. */
struct child {
  uint64_t total;
  const char *name;
  uint32_t frame, node;
};

/* Wider first, then by name, then by id, so the order never depends on the
 * order stacks arrived in. */
static int by_width(const void *a, const void *b)
{
  const struct child *x = a, *y = b;
  int c;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  c = strcmp(x->name, y->name);
  if (c)
    return c;
  return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* The children of node at least d->min wide, sorted, into a new array (the
 * caller frees it; NULL when there are none, or when memory ran out:
 * d->nomem then); the others are counted in *narrow_count and *narrow. */
static struct child *wide_children(struct drawing *d, uint32_t node, size_t *n,
                                   size_t *narrow_count, uint64_t *narrow)
{
  const struct flame_node *nodes = d->g->nodes;
  struct child *list;
  uint32_t c;
  *n = *narrow_count = 0;
  *narrow = 0;
  for (c = nodes[node].first_child; c; c = nodes[c].next_sibling) {
    if (nodes[c].total >= d->min) {
      ++*n;
    } else {
      ++*narrow_count;
      *narrow += nodes[c].total;
    }
  }
  if (!*n)
    return NULL;
  list = etwcap_calloc(*n, sizeof(*list));
  if (!list) {
    d->nomem = 1;
    *n = 0;
    return NULL;
  }
  *n = 0;
  for (c = nodes[node].first_child; c; c = nodes[c].next_sibling) {
    if (nodes[c].total >= d->min) {
      struct child *k = &list[(*n)++];
      k->total = nodes[c].total;
      k->name = frame_name(d, c);
      k->frame = nodes[c].frame;
      k->node = c;
    }
  }
  qsort(list, *n, sizeof(*list), by_width);
  return list;
}

/* Counts the frames drawn under node (itself included) at d->min, and the
 * rows they need. */
static size_t count_frames(struct drawing *d, uint32_t node, int depth)
{
  size_t n = 1;
  uint64_t narrow = 0;
  uint32_t c;
  if (depth + 1 > d->rows)
    d->rows = depth + 1;
  if (depth + 1 >= MAX_ROWS)
    return n;
  for (c = d->g->nodes[node].first_child; c; c = d->g->nodes[c].next_sibling) {
    if (d->g->nodes[c].total >= d->min)
      n += count_frames(d, c, depth + 1);
    else
      narrow += d->g->nodes[c].total;
  }
  if (narrow && narrow >= d->min) {
    n++;
    if (depth + 2 > d->rows)
      d->rows = depth + 2;
  }
  return n;
}

/* The weight in the style's unit, with its decimals. */
static void weight_text(struct drawing *d, uint64_t weight)
{
  double v = (double)weight * d->s->unit_per_weight;
  if (d->s->decimals > 0)
    rw_fixed(d->w, v, d->s->decimals);
  else
    rw_count(d->w, (uint64_t)(v + 0.5));
}

/* name cut to what a box `px` wide shows: "" under 3 characters, else its
 * first characters and ".." when it does not fit (the script cuts the same
 * way after a zoom).  Characters are counted as UTF-8 sequences. */
static const char *box_label(const char *name, double px, char *buf, size_t cap)
{
  long fits = px > 6 ? (long)((px - 6) / CHAR_W) : 0;
  size_t i = 0, chars = 0, cut = 0;
  if (fits < 3)
    return "";
  for (i = 0; name[i]; i++) {
    if ((name[i] & 0xC0) == 0x80)
      continue;
    if (chars == (size_t)fits - 2)
      cut = i;
    chars++;
  }
  if (chars <= (size_t)fits)
    return name;
  if (cut + 3 > cap)
    cut = cap - 3;
  while (cut && (name[cut] & 0xC0) == 0x80)
    cut--;
  memcpy(buf, name, cut);
  memcpy(buf + cut, "..", 3);
  return buf;
}

/* A color from the name, so a frame keeps its color wherever it appears:
 * warm hues for code, grey for merged frames. */
static void fill_of(const char *name, int merged, char *buf, size_t cap)
{
  uint32_t h = 2166136261u; /* FNV-1a */
  const unsigned char *p;
  if (merged) {
    snprintf(buf, cap, "#c8ccd1");
    return;
  }
  for (p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 16777619u;
  snprintf(buf, cap, "hsl(%u,%u%%,%u%%)", (unsigned)(h % 50), 70 + (unsigned)(h >> 8) % 20,
           58 + (unsigned)(h >> 16) % 12);
}

static void draw_frame(struct drawing *d, const char *name, int merged, uint64_t x,
                       uint64_t weight, int depth)
{
  uint64_t total = d->g->nodes[0].total;
  double px = (double)x / (double)total * VIEW_W, pw = (double)weight / (double)total * VIEW_W;
  double y = (double)(d->rows - 1 - depth) * ROW_H;
  char label[1024], fill[40];
  struct report_writer *w = d->w;
  rw_puts(w, merged ? "<g class=\"f m\" data-x=\"" : "<g class=\"f\" data-x=\"");
  rw_uint(w, x);
  rw_puts(w, "\" data-w=\"");
  rw_uint(w, weight);
  rw_printf(w, "\" data-d=\"%d\"><title>", depth);
  rw_html(w, name);
  rw_puts(w, "\n");
  weight_text(d, weight);
  rw_puts(w, " ");
  rw_html(w, d->s->unit);
  rw_puts(w, ", ");
  rw_fixed(w, (double)weight * 100.0 / (double)total, 2);
  fill_of(name, merged, fill, sizeof(fill));
  rw_printf(w, "%%</title><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
               "<text x=\"%.1f\" y=\"%.0f\">",
            px, y, pw, ROW_H - 1, fill, px + 3, y + 12);
  rw_html(w, box_label(name, pw, label, sizeof(label)));
  rw_puts(w, "</text></g>\n");
}

static void draw_tree(struct drawing *d, uint32_t node, const char *name, uint64_t x, int depth)
{
  struct child *kids;
  size_t n, i, narrow_count;
  uint64_t narrow;
  draw_frame(d, name, 0, x, d->g->nodes[node].total, depth);
  if (!d->g->nodes[node].first_child)
    return;
  if (depth + 1 >= MAX_ROWS) {
    d->too_deep = 1;
    return;
  }
  kids = wide_children(d, node, &n, &narrow_count, &narrow);
  for (i = 0; i < n; i++) {
    draw_tree(d, kids[i].node, kids[i].name, x, depth + 1);
    x += kids[i].total;
  }
  etwcap_free(kids);
  if (narrow && narrow >= d->min) {
    char merged[96];
    snprintf(merged, sizeof(merged), "%lu smaller frames", (unsigned long)narrow_count);
    draw_frame(d, merged, 1, x, narrow, depth + 1);
    d->merged += narrow_count;
  } else if (narrow_count) {
    d->left_out += narrow_count;
    d->left_out_weight += narrow;
  }
}

/* What the minimum width did to the graph. */
static void narrow_note(struct drawing *d)
{
  struct report_writer *w = d->w;
  rw_puts(w, " Frames narrower than ");
  weight_text(d, d->min);
  rw_puts(w, " ");
  rw_html(w, d->s->unit);
  rw_puts(w, " (");
  rw_fixed(w, (double)d->min * 100.0 / (double)d->g->nodes[0].total, 2);
  rw_printf(w, "%% of the total) are merged with their narrow siblings into one grey frame, "
               "or left out when those are narrower too: %lu frames merged, %lu left out (",
            (unsigned long)d->merged, (unsigned long)d->left_out);
  weight_text(d, d->left_out_weight);
  rw_puts(w, " ");
  rw_html(w, d->s->unit);
  rw_puts(w, ").");
}

static void note(struct drawing *d)
{
  struct report_writer *w = d->w;
  rw_puts(w, "<p class=\"muted\">Click a frame to zoom on it, the bottom frame to zoom out; "
             "hover for its name and weight.");
  if (d->merged || d->left_out)
    narrow_note(d);
  if (d->too_deep)
    rw_printf(w, " Frames deeper than %d are not drawn.", MAX_ROWS);
  if (d->g->cut) {
    rw_puts(w, " Stacks weighing ");
    weight_text(d, d->g->cut);
    rw_puts(w, " ");
    rw_html(w, d->s->unit);
    rw_printf(w, " were cut short: the graph holds at most %lu distinct frames.",
              (unsigned long)d->g->max_nodes);
  }
  if (d->nomem)
    rw_puts(w, " <span class=\"bad\">Memory ran out: the graph is incomplete.</span>");
  rw_puts(w, "</p>\n");
}

void report_flame_write(struct report_writer *w, const struct flame_graph *g,
                        const struct flame_style *s)
{
  struct drawing d;
  uint64_t total = g->nodes[0].total;
  memset(&d, 0, sizeof(d));
  d.w = w;
  d.g = g;
  d.s = s;
  if (!total) {
    rw_puts(w, "<p class=\"muted\">No stacks to draw.</p>\n");
    return;
  }
  /* At least the share asked for, rounded up. */
  d.min = (uint64_t)((double)total * s->min_fraction);
  if ((double)d.min < (double)total * s->min_fraction || d.min < 1)
    d.min++;
  while (count_frames(&d, 0, 0) > s->max_frames && d.min < total) {
    d.min = d.min > total / 2 ? total : d.min * 2;
    d.rows = 0;
  }
  rw_printf(w, "<svg class=\"flame\" role=\"img\" viewBox=\"0 0 %d %d\" data-width=\"%d\">\n",
            VIEW_W, d.rows * ROW_H, VIEW_W);
  draw_tree(&d, 0, frame_name(&d, 0), 0, 0);
  rw_puts(w, "</svg>\n");
  note(&d);
}

/* Zooms on the clicked frame: it and what it holds fill the width, its
 * ancestors span it, the rest hides; each label is cut again as
 * box_label cuts it.  Frames are <g data-x data-w data-d> holding
 * <title>, <rect> and <text>; the title's first lines are the name. */
static const char script[] =
    "(function(){'use strict';"
    "function label(n,px){var c=Math.floor((px-6)/6.7);"
    "if(c<3)return '';return n.length>c?n.slice(0,c-2)+'..':n;}"
    "function place(g,x,w){var t=g.children[0].textContent,r=g.children[1],l=g.children[2];"
    "r.setAttribute('x',x.toFixed(1));r.setAttribute('width',w.toFixed(1));"
    "l.setAttribute('x',(x+3).toFixed(1));l.textContent=label(t.slice(0,t.lastIndexOf('\\n')),w);}"
    "document.querySelectorAll('svg.flame').forEach(function(svg){"
    "var W=+svg.dataset.width,fs=[].slice.call(svg.querySelectorAll('g.f'));"
    "function zoom(z){var zx=+z.dataset.x,zw=+z.dataset.w,zd=+z.dataset.d;"
    "fs.forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,d=+g.dataset.d;"
    "var inside=d>=zd&&x>=zx&&x+w<=zx+zw,above=d<zd&&x<=zx&&x+w>=zx+zw;"
    "g.classList.toggle('hid',!inside&&!above);g.classList.toggle('anc',above);"
    "if(above)place(g,0,W);else if(inside)place(g,(x-zx)/zw*W,w/zw*W);});}"
    "svg.addEventListener('click',function(e){var g=e.target.closest('g.f');if(g)zoom(g);});"
    "});})();";

void report_flame_script(struct report_writer *w)
{
  rw_puts(w, "<script>");
  rw_puts(w, script);
  rw_puts(w, "</script>\n");
}
