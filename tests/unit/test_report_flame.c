/* The flame graph of `etwcap report` (src/report/report_flame.c) on trees
 * built by hand: each frame's width is its weight's share of the SVG's 1100
 * units (3 of 4 samples: 825), children are drawn widest first, names are
 * escaped as the HTML Standard asks (§13.1.3), narrow frames are merged or
 * left out and the page says so, and the tree's bound cuts stacks short
 * and says so too. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "src/report/report_flame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT_CAP (1 << 20)

static const char *names[] = {
  [1] = "Main", [2] = "Work", [3] = "Sleep", [4] = "b", [5] = "a", [6] = "z",
  [7] = "<script>alert('x')</script>&\"", [8] = "System.DateTime.GetDatePart",
  [9] = "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9",
};

static const char *name_of(void *ctx, uint32_t id)
{
  (void)ctx;
  return id < sizeof(names) / sizeof(names[0]) ? names[id] : NULL;
}

static struct flame_style style(void)
{
  struct flame_style s;
  memset(&s, 0, sizeof(s));
  s.root = "Test.exe (42)";
  s.unit = "samples";
  s.unit_per_weight = 1;
  s.min_fraction = 0.001;
  s.max_frames = 10000;
  s.name = name_of;
  return s;
}

/* The page g draws with s, into a buffer the caller frees. */
static char *drawn(const struct flame_graph *g, const struct flame_style *s)
{
  static struct report_writer w;
  char *out = malloc(OUT_CAP);
  size_t n;
  assert_non_null(out);
  rw_init(&w, tmpfile());
  assert_non_null(w.f);
  report_flame_write(&w, g, s);
  assert_int_equal(report_writer_flush(&w), 0);
  rewind(w.f);
  n = fread(out, 1, OUT_CAP - 1, w.f);
  out[n] = '\0';
  fclose(w.f);
  return out;
}

struct box {
  unsigned long x, w;
  int depth;
  double rect_x, rect_w;
  char title[512];
  char label[512];
  int merged;
};

/* The frames of a page, in the order they are written. */
static size_t boxes(const char *page, struct box *b, size_t cap)
{
  size_t n = 0;
  const char *p = page;
  while ((p = strstr(p, "<g class=\"f")) != NULL && n < cap) {
    const char *t, *e;
    memset(&b[n], 0, sizeof(b[n]));
    b[n].merged = !strncmp(p, "<g class=\"f m\"", 14);
    assert_int_equal(sscanf(strstr(p, "data-x="), "data-x=\"%lu\" data-w=\"%lu\" data-d=\"%d\"",
                            &b[n].x, &b[n].w, &b[n].depth), 3);
    t = strstr(p, "<title>") + 7;
    e = strstr(t, "</title>");
    memcpy(b[n].title, t, (size_t)(e - t));
    assert_int_equal(sscanf(strstr(p, "<rect "), "<rect x=\"%lf\" y=\"%*f\" width=\"%lf\"",
                            &b[n].rect_x, &b[n].rect_w), 2);
    t = strstr(p, "<text ");
    t = strchr(t, '>') + 1;
    e = strstr(t, "</text>");
    memcpy(b[n].label, t, (size_t)(e - t));
    n++;
    p = e;
  }
  return n;
}

static void add(struct flame_graph *g, uint64_t weight, size_t n, ...)
{
  uint32_t ids[16];
  size_t i;
  va_list ap;
  va_start(ap, n);
  for (i = 0; i < n; i++)
    ids[i] = va_arg(ap, uint32_t);
  va_end(ap);
  assert_int_equal(flame_graph_add(g, ids, n, weight), 0);
}

/* A graph, its style, and what it draws. */
struct case_ {
  struct flame_graph g;
  struct flame_style s;
  char *page;
  struct box b[64];
  size_t n;
};

static void begin(struct case_ *c, size_t max_nodes)
{
  memset(c, 0, sizeof(*c));
  c->s = style();
  assert_int_equal(flame_graph_init(&c->g, max_nodes), 0);
}

static void draw(struct case_ *c)
{
  free(c->page);
  c->page = drawn(&c->g, &c->s);
  c->n = boxes(c->page, c->b, 64);
}

static void end(struct case_ *c)
{
  free(c->page);
  flame_graph_release(&c->g);
}

static void widths_are_proportional_to_weights(void **state)
{
  static struct case_ c;
  (void)state;
  begin(&c, 100);
  add(&c.g, 3, 2, 1u, 2u); /* Main;Work 3 */
  add(&c.g, 1, 2, 1u, 3u); /* Main;Sleep 1 */
  draw(&c);
  assert_int_equal(c.n, 4);
  /* root, Main, Work (3 of 4: 825 of 1100 units), Sleep (1 of 4: 275). */
  assert_string_equal(c.b[0].title, "Test.exe (42)\n4 samples, 100.00%");
  assert_true(c.b[1].rect_w == 1100.0 && c.b[1].depth == 1 && c.b[1].w == 4);
  assert_string_equal(c.b[2].title, "Work\n3 samples, 75.00%");
  assert_true(c.b[2].rect_x == 0.0 && c.b[2].rect_w == 825.0 && c.b[2].depth == 2);
  assert_string_equal(c.b[3].title, "Sleep\n1 samples, 25.00%");
  assert_true(c.b[3].rect_x == 825.0 && c.b[3].rect_w == 275.0 && c.b[3].x == 3);
  /* Three rows of 17 units, the root at the bottom. */
  assert_non_null(strstr(c.page, "viewBox=\"0 0 1100 51\""));
  assert_non_null(strstr(c.page, "<rect x=\"0.0\" y=\"34\""));
  /* Nothing was merged or left out: the note does not speak of it. */
  assert_null(strstr(c.page, "narrower"));
  end(&c);
}

static void a_frame_holds_the_weight_of_every_stack_through_it(void **state)
{
  static struct case_ c;
  (void)state;
  begin(&c, 100);
  add(&c.g, 2, 1, 1u);     /* Main alone: its own 2 */
  add(&c.g, 3, 2, 1u, 2u); /* Main;Work 3 */
  add(&c.g, 5, 0);         /* no stack: the root's own */
  draw(&c);
  assert_int_equal(c.n, 3);
  assert_int_equal(c.b[0].w, 10);
  assert_string_equal(c.b[1].title, "Main\n5 samples, 50.00%");
  assert_true(c.b[1].rect_w == 550.0);
  assert_string_equal(c.b[2].title, "Work\n3 samples, 30.00%");
  end(&c);
}

static void children_are_widest_first_then_by_name(void **state)
{
  static struct case_ c;
  (void)state;
  begin(&c, 100);
  add(&c.g, 1, 1, 4u); /* b */
  add(&c.g, 1, 1, 5u); /* a */
  add(&c.g, 5, 1, 6u); /* z, the widest */
  draw(&c);
  assert_int_equal(c.n, 4);
  assert_true(!strncmp(c.b[1].title, "z\n", 2) && c.b[1].x == 0);
  assert_true(!strncmp(c.b[2].title, "a\n", 2) && c.b[2].x == 5);
  assert_true(!strncmp(c.b[3].title, "b\n", 2) && c.b[3].x == 6);
  end(&c);
}

static void the_order_of_arrival_does_not_change_the_page(void **state)
{
  static struct case_ c1, c2;
  (void)state;
  begin(&c1, 100);
  begin(&c2, 100);
  add(&c1.g, 2, 2, 1u, 2u);
  add(&c1.g, 2, 2, 1u, 3u);
  add(&c1.g, 1, 1, 4u);
  add(&c2.g, 1, 1, 4u);
  add(&c2.g, 2, 2, 1u, 3u);
  add(&c2.g, 1, 2, 1u, 2u);
  add(&c2.g, 1, 2, 1u, 2u);
  draw(&c1);
  draw(&c2);
  assert_string_equal(c1.page, c2.page);
  end(&c1);
  end(&c2);
}

static void names_are_escaped(void **state)
{
  static struct case_ c;
  (void)state;
  begin(&c, 100);
  c.s.root = "<b>root</b>";
  add(&c.g, 1, 1, 7u);
  draw(&c);
  assert_null(strstr(c.page, "<script"));
  assert_null(strstr(c.page, "<b>"));
  assert_non_null(strstr(c.page, "<title>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"
                                 "&quot;\n"));
  assert_non_null(strstr(c.page, "&lt;b&gt;root&lt;/b&gt;"));
  end(&c);
}

static void unknown_names_are_a_question_mark(void **state)
{
  static struct case_ c;
  (void)state;
  begin(&c, 100);
  add(&c.g, 1, 1, 999u);
  draw(&c);
  assert_int_equal(c.n, 2);
  assert_string_equal(c.b[1].title, "?\n1 samples, 100.00%");
  end(&c);
}

static void narrow_frames_are_merged_and_the_page_says_so(void **state)
{
  static struct case_ c;
  uint32_t i;
  (void)state;
  begin(&c, 100);
  c.s.min_fraction = 0.004; /* of 1005: 5 samples */
  add(&c.g, 1000, 1, 1u);
  for (i = 0; i < 5; i++)
    add(&c.g, 1, 2, 2u, 10u + i); /* Work, with 5 children of 1 each */
  add(&c.g, 0, 1, 3u);
  draw(&c);
  /* root, Main 1000, Work 5, and Work's five children as one grey frame;
   * Sleep (0) is narrower than 5 and alone: left out. */
  assert_int_equal(c.n, 4);
  assert_true(!strncmp(c.b[2].title, "Work\n5 samples", 14) && c.b[2].x == 1000);
  assert_true(c.b[3].merged && c.b[3].x == 1000 && c.b[3].w == 5 && c.b[3].depth == 2);
  assert_string_equal(c.b[3].title, "5 smaller frames\n5 samples, 0.50%");
  assert_non_null(strstr(c.page, "Frames narrower than 5 samples (0.50% of the total)"));
  assert_non_null(strstr(c.page, "5 frames merged, 1 left out (0 samples)"));
  end(&c);
}

static void narrow_frames_too_narrow_together_are_left_out(void **state)
{
  static struct case_ c;
  (void)state;
  begin(&c, 100);
  c.s.min_fraction = 0.01; /* of 1000: 10 */
  add(&c.g, 996, 1, 1u);
  add(&c.g, 2, 1, 2u);
  add(&c.g, 2, 1, 3u);
  draw(&c);
  assert_int_equal(c.n, 2);
  assert_non_null(strstr(c.page, "0 frames merged, 2 left out (4 samples)"));
  end(&c);
}

static void too_many_frames_widen_the_minimum_until_they_fit(void **state)
{
  static struct case_ c;
  uint32_t i;
  (void)state;
  begin(&c, 1000);
  c.s.max_frames = 20;
  for (i = 0; i < 100; i++) /* 100 frames of 1 to 100 */
    add(&c.g, i + 1, 1, 100u + i);
  draw(&c);
  /* Of 5050, 0.1% is 6 samples: 97 frames.  The minimum doubles to 12,
   * 24, 48 (55 frames), then 96: the root, the frames of 96 to 100, and
   * the other 95 as one. */
  assert_int_equal(c.n, 7);
  assert_int_equal(c.b[1].w, 100);
  assert_int_equal(c.b[2].w, 99);
  assert_true(c.b[6].merged);
  assert_non_null(strstr(c.page, "Frames narrower than 96 samples"));
  end(&c);
}

static void a_full_tree_cuts_stacks_short_and_says_so(void **state)
{
  static struct case_ c;
  (void)state;
  begin(&c, 3); /* the root and two frames */
  add(&c.g, 4, 3, 1u, 2u, 3u);
  add(&c.g, 1, 2, 1u, 2u);
  draw(&c);
  assert_int_equal(c.n, 3);
  assert_int_equal(c.b[2].w, 5); /* Work keeps the cut stack's weight */
  assert_int_equal(c.g.cut, 4);
  assert_non_null(strstr(c.page, "Stacks weighing 4 samples were cut short: the graph holds "
                                 "at most 3 distinct frames."));
  end(&c);
}

static void labels_fit_their_box(void **state)
{
  static struct case_ c;
  (void)state;
  begin(&c, 100);
  add(&c.g, 93, 1, 1u);
  add(&c.g, 6, 1, 8u); /* 66 units: (66 - 6) / 6.7 = 8 characters */
  add(&c.g, 1, 1, 9u); /* ten é in 11 units: no label */
  draw(&c);
  assert_int_equal(c.n, 4);
  assert_string_equal(c.b[1].label, "Main");
  assert_string_equal(c.b[2].label, "System..");
  assert_string_equal(c.b[3].label, "");
  end(&c);
}

static void labels_are_cut_between_characters(void **state)
{
  static struct case_ c;
  (void)state;
  begin(&c, 100);
  c.s.root = NULL;
  add(&c.g, 7, 1, 9u); /* 77 units: 10 characters fit, not 11 */
  add(&c.g, 93, 1, 1u);
  draw(&c);
  assert_int_equal(c.n, 3);
  assert_string_equal(c.b[0].label, "all");
  assert_string_equal(c.b[2].label, names[9]); /* ten é fit whole */
  end(&c);
  begin(&c, 100);
  add(&c.g, 6, 1, 9u); /* 66 units: 8 characters, so 6 é and ".." */
  add(&c.g, 94, 1, 1u);
  draw(&c);
  assert_int_equal(c.n, 3);
  assert_string_equal(c.b[2].label, "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9..");
  end(&c);
}

static void the_unit_is_the_callers(void **state)
{
  static struct case_ c;
  (void)state;
  begin(&c, 100);
  c.s.unit = "ms blocked";
  c.s.unit_per_weight = 1e-4; /* 100 ns ticks */
  c.s.decimals = 3;
  add(&c.g, 123456, 1, 3u); /* 12.3456 ms */
  draw(&c);
  assert_int_equal(c.n, 2);
  assert_string_equal(c.b[1].title, "Sleep\n12.346 ms blocked, 100.00%");
  end(&c);
}

static void a_big_random_tree_stays_within_its_bounds(void **state)
{
  static struct case_ c;
  static uint32_t ids[300];
  uint32_t seed = 12345, k;
  size_t i, n;
  (void)state;
  begin(&c, 20000);
  c.s.max_frames = 60; /* fewer than the boxes the test reads */
  for (k = 0; k < 3000; k++) {
    n = 1 + k % 300; /* stacks as deep as 300: deeper than the 256 rows drawn */
    for (i = 0; i < n; i++) {
      seed = seed * 1103515245u + 12345u; /* C's example rand(): any spread will do */
      ids[i] = (seed >> 16) % (i < 3 ? 3 : 40);
    }
    assert_int_equal(flame_graph_add(&c.g, ids, n, 1 + k % 7), 0);
  }
  draw(&c);
  assert_true(c.n >= 1 && c.n <= 60);
  /* The tree filled up (20,000 nodes): the note says so. */
  assert_true(c.g.cut > 0);
  assert_non_null(strstr(c.page, "were cut short"));
  /* Every frame lies within the frame below it. */
  for (i = 1; i < c.n; i++) {
    size_t j;
    int inside = 0;
    for (j = 0; j < c.n; j++)
      inside |= c.b[j].depth == c.b[i].depth - 1 && c.b[j].x <= c.b[i].x &&
                c.b[i].x + c.b[i].w <= c.b[j].x + c.b[j].w;
    assert_true(inside);
  }
  end(&c);
}

static void frames_deeper_than_the_rows_are_not_drawn_and_said(void **state)
{
  static struct case_ c;
  static uint32_t ids[300];
  size_t i;
  (void)state;
  for (i = 0; i < 300; i++)
    ids[i] = (uint32_t)i;
  begin(&c, 1000);
  assert_int_equal(flame_graph_add(&c.g, ids, 300, 1), 0);
  draw(&c);
  /* 256 rows of 17 units: the root and 255 frames. */
  assert_non_null(strstr(c.page, "viewBox=\"0 0 1100 4352\""));
  assert_non_null(strstr(c.page, "data-d=\"255\""));
  assert_null(strstr(c.page, "data-d=\"256\""));
  assert_non_null(strstr(c.page, "Frames deeper than 256 are not drawn."));
  end(&c);
}

static void an_empty_graph_says_so(void **state)
{
  static struct case_ c;
  (void)state;
  begin(&c, 100);
  draw(&c);
  assert_null(strstr(c.page, "<svg"));
  assert_non_null(strstr(c.page, "No stacks"));
  end(&c);
}

static void failed_allocations_are_reported(void **state)
{
  struct flame_graph g;
  uint32_t ids[2] = { 1, 2 };
  unsigned n;
  (void)state;
  for (n = 1; n <= 2; n++) {
    test_fail_alloc_after(n);
    assert_int_equal(flame_graph_init(&g, 100), ETWCAP_E_NOMEM);
    test_fail_alloc_after(0);
  }
  assert_int_equal(flame_graph_init(&g, 1000), 0);
  /* The first nodes fit in the first block; the index grows past 128. */
  test_fail_alloc_after(test_alloc_count() + 1);
  for (n = 0; n < 300; n++) {
    ids[1] = n;
    if (flame_graph_add(&g, ids, 2, 1) != 0)
      break;
  }
  test_fail_alloc_after(0);
  assert_true(n < 300);
  assert_true(g.cut >= 1);
  flame_graph_release(&g);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(widths_are_proportional_to_weights),
    cmocka_unit_test(a_frame_holds_the_weight_of_every_stack_through_it),
    cmocka_unit_test(children_are_widest_first_then_by_name),
    cmocka_unit_test(the_order_of_arrival_does_not_change_the_page),
    cmocka_unit_test(names_are_escaped),
    cmocka_unit_test(unknown_names_are_a_question_mark),
    cmocka_unit_test(narrow_frames_are_merged_and_the_page_says_so),
    cmocka_unit_test(narrow_frames_too_narrow_together_are_left_out),
    cmocka_unit_test(too_many_frames_widen_the_minimum_until_they_fit),
    cmocka_unit_test(a_full_tree_cuts_stacks_short_and_says_so),
    cmocka_unit_test(labels_fit_their_box),
    cmocka_unit_test(labels_are_cut_between_characters),
    cmocka_unit_test(the_unit_is_the_callers),
    cmocka_unit_test(a_big_random_tree_stays_within_its_bounds),
    cmocka_unit_test(frames_deeper_than_the_rows_are_not_drawn_and_said),
    cmocka_unit_test(an_empty_graph_says_so),
    cmocka_unit_test(failed_allocations_are_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
