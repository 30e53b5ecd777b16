/* Log fan-out: levels, several sinks, removal, the file sink's line format. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "src/base/log.h"

#include <stdio.h>
#include <string.h>

struct capture {
  char text[4096];
  int lines;
};

static void capture_sink(void *ctx, enum log_level level, const char *line)
{
  struct capture *c = ctx;
  size_t used = strlen(c->text);
  snprintf(c->text + used, sizeof(c->text) - used, "%s:%s\n", log_level_name(level), line);
  c->lines++;
}

static void levels_filter_per_sink(void **state)
{
  struct capture all = { "", 0 }, warnings = { "", 0 };
  (void)state;
  log_remove_all_sinks();
  assert_int_equal(log_add_sink(capture_sink, &all, LOG_DEBUG), 0);
  assert_int_equal(log_add_sink(capture_sink, &warnings, LOG_WARN), 0);
  log_debug("d %d", 1);
  log_info("i %s", "two");
  log_warn("w");
  log_error("e %u", 4u);
  assert_int_equal(all.lines, 4);
  assert_int_equal(warnings.lines, 2);
  assert_string_equal(warnings.text, "WARN:w\nERROR:e 4\n");
  assert_non_null(strstr(all.text, "INFO:i two\n"));
  log_remove_sink(capture_sink, &all);
  log_info("after removal");
  assert_int_equal(all.lines, 4);
  log_remove_all_sinks();
}

static void sink_table_is_bounded(void **state)
{
  struct capture c = { "", 0 };
  int i;
  (void)state;
  log_remove_all_sinks();
  for (i = 0; i < LOG_MAX_SINKS; i++)
    assert_int_equal(log_add_sink(capture_sink, &c, LOG_INFO), 0);
  assert_int_equal(log_add_sink(capture_sink, &c, LOG_INFO), ETWCAP_E_RANGE);
  log_remove_all_sinks();
}

static void file_sink_writes_timestamped_lines(void **state)
{
  char path[512], line[256];
  FILE *f;
  (void)state;
  test_tmp_path("log-sink.txt", path, sizeof(path));
  f = fopen(path, "w+");
  assert_non_null(f);
  log_remove_all_sinks();
  log_add_sink(log_file_sink, f, LOG_DEBUG);
  log_warn("disk %d%% full", 93);
  log_remove_all_sinks();
  rewind(f);
  assert_non_null(fgets(line, sizeof(line), f));
  fclose(f);
  remove(path);
  /* "2026-11-22T17:02:56.123Z WARN  disk 93% full" */
  assert_int_equal(strlen(line), 24 + 1 + 5 + 1 + strlen("disk 93% full") + 1);
  assert_true(line[4] == '-' && line[10] == 'T' && line[23] == 'Z');
  assert_string_equal(line + 25, "WARN  disk 93% full\n");
}

static void long_lines_are_truncated_not_overflowed(void **state)
{
  struct capture c = { "", 0 };
  char big[5000];
  (void)state;
  memset(big, 'x', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  log_remove_all_sinks();
  log_add_sink(capture_sink, &c, LOG_INFO);
  log_info("%s", big);
  log_remove_all_sinks();
  assert_int_equal(c.lines, 1);
  assert_true(strlen(c.text) < sizeof(c.text));
}

/* A name read from a file cannot start a forged line or drive the terminal. */
static void control_characters_do_not_reach_a_sink(void **state)
{
  struct capture c = { "", 0 };
  (void)state;
  log_remove_all_sinks();
  log_add_sink(capture_sink, &c, LOG_INFO);
  log_warn("member %s skipped", "a.pdb\r\n2026-11-28T00:00:00.000Z ERROR forged\x1b[2J\x7f");
  log_remove_all_sinks();
  assert_int_equal(c.lines, 1);
  assert_string_equal(c.text,
                      "WARN:member a.pdb??2026-11-28T00:00:00.000Z ERROR forged?[2J? skipped\n");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(levels_filter_per_sink),
    cmocka_unit_test(sink_table_is_bounded),
    cmocka_unit_test(file_sink_writes_timestamped_lines),
    cmocka_unit_test(long_lines_are_truncated_not_overflowed),
    cmocka_unit_test(control_characters_do_not_reach_a_sink),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
