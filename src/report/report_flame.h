/* A flame graph for `etwcap report`: a tree of call stacks, each stack a
 * root-first array of frame ids with a weight (CPU samples, or blocked
 * time), drawn as inline SVG.  Hovering a frame shows its name, its weight
 * and its share of the total (an SVG <title>, no script needed); clicking a
 * frame zooms on it (it fills the width, its ancestors stay, the root
 * resets), done by one small script the page's Content-Security-Policy
 * allows by its hash.  Frame names are asked for only while drawing,
 * through a callback, and go to the page escaped: they are trace bytes.
 *
 * Memory and the page's size are bounded: the tree holds at most the
 * number of nodes given at init (a stack that needs more is cut short at
 * its deepest known frame, and the page says so), and frames narrower than
 * a minimum share of the total are merged with their narrow siblings or
 * left out (the page says how many). */
#ifndef ETWCAP_REPORT_FLAME_H
#define ETWCAP_REPORT_FLAME_H

#include "src/report/report_idmap.h"
#include "src/report/report_writer.h"

#include <stddef.h>
#include <stdint.h>

/* One frame of the tree: a frame id under its parent node.  Node 0 is the
 * root, which stands for every stack. */
struct flame_node {
  uint32_t frame;
  uint32_t parent, first_child, next_sibling; /* node indices; 0: none */
  uint64_t total;                             /* weight of the stacks through it */
};

/* Owned by its caller: flame_graph_init, then flame_graph_add for each
 * stack, then report_flame_write, then flame_graph_release. */
struct flame_graph {
  struct flame_node *nodes;
  size_t count, cap, max_nodes;
  struct report_idmap index; /* hash of (parent, frame) -> node */
  uint64_t cut;              /* weight of stacks cut short at max_nodes */
};

/* 0 or ETWCAP_E_NOMEM.  max_nodes (at least 1, the root) bounds the tree. */
int flame_graph_init(struct flame_graph *g, size_t max_nodes);
void flame_graph_release(struct flame_graph *g);
/* Adds a stack of n frame ids, root first, with its weight.  0, or
 * ETWCAP_E_NOMEM (the stack is then counted as cut short). */
int flame_graph_add(struct flame_graph *g, const uint32_t *ids, size_t n, uint64_t weight);

/* The name of frame `id`, or NULL for "?"; it is escaped on the page.  The
 * string must stay as it is until report_flame_write returns. */
typedef const char *flame_name_fn(void *ctx, uint32_t id);

struct flame_style {
  const char *root;        /* the root frame's name, e.g. "Test.exe (1234)" */
  const char *unit;        /* what a weight counts: "samples", "ms" */
  double unit_per_weight;  /* a weight in units: 1 for samples, 1e-4 for 100 ns ticks in ms */
  int decimals;            /* of a weight in units, 0 to 3 */
  double min_fraction;     /* narrower frames are merged or left out: 0.001 */
  size_t max_frames;       /* at most this many frames are drawn */
  flame_name_fn *name;
  void *ctx;
};

/* Draws g as one <svg class="flame"> and a note on what was merged, cut or
 * left out.  When more than max_frames frames are as wide as min_fraction,
 * the minimum width doubles until they fit, and the note says so. */
void report_flame_write(struct report_writer *w, const struct flame_graph *g,
                        const struct flame_style *s);

/* The script that zooms every flame graph of the page, as one <script>
 * element; the page's Content-Security-Policy names it by this hash (the
 * SHA-256 of the element's text, in base64: CSP Level 3, "hash-source"). */
void report_flame_script(struct report_writer *w);
#define REPORT_FLAME_SCRIPT_HASH "'sha256-/6VbDCcFvPN4FwwFEjN9MYGoI7FqVLFkU5O5xeSvX5c='"

#endif
