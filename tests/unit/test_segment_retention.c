/* Retention of a rotating capture's segments over simulated days: hourly
 * segments of 100 MB for a week, one of them holding a fire, each limit
 * applied after every rotation as the capture applies it.  The expected
 * counts follow from the rules in segment_retention.h and the numbers the
 * test chooses. */
#include "tests/fakes/test_support.h"

#include "src/capture/segment_retention.h"

#include <string.h>

#define HOUR (INT64_C(10000000) * 3600)
#define T0 INT64_C(133232283966946549)
#define HOURS (7 * 24)
#define FIRED_HOUR 50
#define SEGMENT_BYTES (100ull * 1048576u)

struct week {
  struct segment kept[HOURS];
  size_t count;
  int64_t hours[HOURS]; /* the hour each kept segment closed */
  int fired_deleted;
};

/* Runs the week: a segment closes every hour, then retention runs. */
static void run_week(struct week *w, const struct retention *r)
{
  int doomed[HOURS];
  int64_t h;
  size_t i, j;
  memset(w, 0, sizeof(*w));
  for (h = 1; h <= HOURS; h++) {
    w->kept[w->count].closed = T0 + h * HOUR;
    w->kept[w->count].bytes = SEGMENT_BYTES;
    w->kept[w->count].fired = h == FIRED_HOUR;
    w->hours[w->count] = h;
    w->count++;
    retention_doomed(w->kept, w->count, r, T0 + h * HOUR, doomed);
    for (i = j = 0; i < w->count; i++) {
      if (doomed[i]) {
        if (w->kept[i].fired)
          w->fired_deleted = 1;
        continue;
      }
      w->kept[j] = w->kept[i];
      w->hours[j] = w->hours[i];
      j++;
    }
    w->count = j;
  }
}

static int holds_hour(const struct week *w, int64_t hour)
{
  size_t i;
  for (i = 0; i < w->count; i++)
    if (w->hours[i] == hour)
      return 1;
  return 0;
}

static void keep_segments_keeps_the_newest_and_the_fired(void **state)
{
  struct retention r = { 24, 0, 0 };
  struct week w;
  (void)state;
  run_week(&w, &r);
  assert_false(w.fired_deleted);
  assert_int_equal(w.count, 24 + 1); /* the newest 24 and hour 50's fire */
  assert_true(holds_hour(&w, FIRED_HOUR));
  assert_true(holds_hour(&w, HOURS));
  assert_true(holds_hour(&w, HOURS - 23));
  assert_false(holds_hour(&w, HOURS - 24));
}

static void keep_days_deletes_what_closed_before(void **state)
{
  struct retention r = { 0, 2, 0 };
  struct week w;
  (void)state;
  run_week(&w, &r);
  /* At hour 168, segments closed at hours 120..168 are within 2 days
   * (48 h: now - closed <= 48 h), plus the fired one. */
  assert_int_equal(w.count, 49 + 1);
  assert_true(holds_hour(&w, 120));
  assert_false(holds_hour(&w, 119));
  assert_true(holds_hour(&w, FIRED_HOUR));
}

static void max_disk_counts_the_fired_segment_too(void **state)
{
  struct retention r = { 0, 0, 1000 };
  struct week w;
  uint64_t bytes = 0;
  size_t i;
  (void)state;
  run_week(&w, &r);
  for (i = 0; i < w.count; i++)
    bytes += w.kept[i].bytes;
  /* 1000 MB hold ten 100 MB segments: the fired one and the newest nine. */
  assert_true(bytes <= 1000ull * 1048576u);
  assert_int_equal(w.count, 10);
  assert_true(holds_hour(&w, FIRED_HOUR));
  assert_true(holds_hour(&w, HOURS - 8));
  assert_false(holds_hour(&w, HOURS - 9));
}

static void the_tightest_limit_wins(void **state)
{
  struct retention r = { 100, 3, 500 };
  struct week w;
  (void)state;
  run_week(&w, &r);
  assert_int_equal(w.count, 5); /* 500 MB: the fired one and the newest four */
  assert_true(holds_hour(&w, FIRED_HOUR));
}

static void the_newest_stays_when_it_alone_is_over_the_disk_limit(void **state)
{
  struct segment s[2] = { { T0, 300ull * 1048576u, 0 }, { T0 + HOUR, 300ull * 1048576u, 0 } };
  struct retention r = { 0, 0, 100 };
  int doomed[2];
  (void)state;
  assert_int_equal(retention_doomed(s, 2, &r, T0 + HOUR, doomed), 1);
  assert_true(doomed[0]);
  assert_false(doomed[1]);
}

static void no_limit_deletes_nothing(void **state)
{
  struct retention r = { 0, 0, 0 };
  struct week w;
  (void)state;
  run_week(&w, &r);
  assert_int_equal(w.count, HOURS);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(keep_segments_keeps_the_newest_and_the_fired),
    cmocka_unit_test(keep_days_deletes_what_closed_before),
    cmocka_unit_test(max_disk_counts_the_fired_segment_too),
    cmocka_unit_test(the_tightest_limit_wins),
    cmocka_unit_test(the_newest_stays_when_it_alone_is_over_the_disk_limit),
    cmocka_unit_test(no_limit_deletes_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
