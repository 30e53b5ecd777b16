/* The session record `start` leaves for `stop`, and the request file a
 * second process uses to stop a running collect: written, read back field
 * by field, and refused when damaged.  Also the small JSON reader under
 * it. */
#include "tests/fakes/test_support.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/file_read.h"
#include "src/base/json_tree.h"
#include "src/base/os/os_file.h"
#include "src/base/utf8.h"
#include "src/capture/session_record.h"

#include <stdio.h>
#include <string.h>

static void write_text(const char *path, const char *text)
{
  FILE *f = os_fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void round_trip_keeps_every_field(void **state)
{
  struct session_record w, r;
  char path[512], why[256];
  (void)state;
  test_tmp_path("rec.etl" SESSION_RECORD_SUFFIX, path, sizeof(path));
  memset(&w, 0, sizeof(w));
  snprintf(w.mode, sizeof(w.mode), "start");
  w.pid = 4242;
  w.pid_created = INT64_C(133232283966946549); /* needs all 64 bits */
  snprintf(w.machine, sizeof(w.machine), "build-01");
  snprintf(w.data_file, sizeof(w.data_file), "C:\\traces\\caf\xc3\xa9 \"x\".etl");
  w.start_filetime = INT64_C(133232283966946550);
  w.profile_interval_100ns = 5000;
  w.session_count = 2;
  snprintf(w.sessions[0].role, sizeof(w.sessions[0].role), "kernel");
  snprintf(w.sessions[0].name, sizeof(w.sessions[0].name), "etwcapKernel");
  snprintf(w.sessions[0].file, sizeof(w.sessions[0].file), "C:\\traces\\x.kernel.etl");
  w.sessions[0].log_file_mode = 0x0A000002;
  w.sessions[0].buffer_size_kb = 64;
  w.sessions[0].minimum_buffers = 16384;
  w.sessions[0].maximum_buffers = 20490;
  w.sessions[0].maximum_file_size_mb = 2048;
  w.sessions[0].enable_flags = 0x01012F1F;
  snprintf(w.sessions[1].role, sizeof(w.sessions[1].role), "user");
  snprintf(w.sessions[1].name, sizeof(w.sessions[1].name), "etwcap");
  snprintf(w.sessions[1].file, sizeof(w.sessions[1].file), "C:\\traces\\x.etl");
  w.sessions[1].maximum_file_size_mb = 2348;
  assert_int_equal(session_record_warn(&w, "container flags dropped: \"quoted\"\ttab"), 0);
  w.command_line = (char *)"etwcap /ThreadTime start \"C:\\traces\\x.etl\"";
  w.start_log = (char *)"2026-01-01T00:00:00.000Z INFO  line one\n\x01 control\n";
  w.containers_at_start = (char *)"{\"available\": true, \"systems\": [{\"Id\": \"a\"}]}";
  assert_int_equal(session_record_write(path, &w), 0);
  etwcap_free(w.warnings[0]);

  assert_int_equal(session_record_read(path, &r, why, sizeof(why)), 0);
  assert_string_equal(r.mode, "start");
  assert_int_equal(r.pid, 4242);
  assert_int_equal(r.pid_created, INT64_C(133232283966946549));
  assert_string_equal(r.machine, "build-01");
  assert_string_equal(r.data_file, "C:\\traces\\caf\xc3\xa9 \"x\".etl");
  assert_int_equal(r.start_filetime, INT64_C(133232283966946550));
  assert_int_equal(r.profile_interval_100ns, 5000);
  assert_int_equal(r.session_count, 2);
  assert_string_equal(r.sessions[0].role, "kernel");
  assert_string_equal(r.sessions[0].name, "etwcapKernel");
  assert_string_equal(r.sessions[0].file, "C:\\traces\\x.kernel.etl");
  assert_int_equal(r.sessions[0].log_file_mode, 0x0A000002);
  assert_int_equal(r.sessions[0].minimum_buffers, 16384);
  assert_int_equal(r.sessions[0].maximum_buffers, 20490);
  assert_int_equal(r.sessions[0].maximum_file_size_mb, 2048);
  assert_int_equal(r.sessions[0].enable_flags, 0x01012F1F);
  assert_string_equal(r.sessions[1].name, "etwcap");
  assert_int_equal(r.sessions[1].maximum_file_size_mb, 2348);
  assert_int_equal(r.warning_count, 1);
  assert_string_equal(r.warnings[0], "container flags dropped: \"quoted\"\ttab");
  assert_string_equal(r.command_line, "etwcap /ThreadTime start \"C:\\traces\\x.etl\"");
  assert_string_equal(r.start_log, "2026-01-01T00:00:00.000Z INFO  line one\n\x01 control\n");
  assert_string_equal(r.containers_at_start,
                      "{\"available\": true, \"systems\": [{\"Id\": \"a\"}]}");
  session_record_release(&r);
  os_remove(path);
}

/* A Linux path is only bytes: what is not UTF-8 reaches the JSON as
 * U+FFFD (RFC 8259 8.1: JSON text is UTF-8), never as the raw bytes; valid
 * sequences of every length stay as they are. */
static void bytes_that_are_not_utf8_become_replacement_characters(void **state)
{
  struct session_record w, r;
  char path[512], why[256], *text;
  size_t len;
  (void)state;
  test_tmp_path("rec-bytes.etl" SESSION_RECORD_SUFFIX, path, sizeof(path));
  memset(&w, 0, sizeof(w));
  snprintf(w.mode, sizeof(w.mode), "start");
  /* 0xFF never appears in UTF-8; C0 AF is an overlong '/'; ED A0 80 is a
   * surrogate; E6 97 is a sequence cut short; then 2-, 3- and 4-byte ones. */
  snprintf(w.data_file, sizeof(w.data_file), "/t/\xff\xc0\xaf\xed\xa0\x80|\xe6\x97|"
           "\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80.etl");
  assert_int_equal(session_record_write(path, &w), 0);
  assert_int_equal(file_read_small(path, 1 << 20, &text, &len), 0);
  assert_true(utf8_valid((const uint8_t *)text, len));
  assert_non_null(strstr(text, "\"/t/\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd|"
                              "\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80.etl\""));
  etwcap_free(text);
  assert_int_equal(session_record_read(path, &r, why, sizeof(why)), 0);
  assert_string_equal(r.data_file, "/t/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                                   "\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|"
                                   "\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80.etl");
  session_record_release(&r);
  os_remove(path);
}

static void missing_record_is_noent(void **state)
{
  struct session_record r;
  char path[512], why[256];
  (void)state;
  test_tmp_path("none" SESSION_RECORD_SUFFIX, path, sizeof(path));
  os_remove(path);
  assert_int_equal(session_record_read(path, &r, why, sizeof(why)), ETWCAP_E_NOENT);
}

static void damaged_records_are_refused(void **state)
{
  static const char *const bad[] = {
    "",
    "not json",
    "{\"schema\": \"etwcap-session/1\", \"sessions\": [",
    "{\"schema\": \"etwcap-plan/1\", \"sessions\": []}",
    "{\"sessions\": []}",
    "{\"schema\": \"etwcap-session/1\"}",
    "{\"schema\": \"etwcap-session/1\", \"sessions\": [{\"role\": \"user\"}]}",
    "{\"schema\": \"etwcap-session/1\", \"sessions\": []} trailing",
    "{\"schema\": \"etwcap-session/1\", \"sessions\": [], \"x\": \"\\q\"}",
    NULL,
  };
  struct session_record r;
  char path[512], why[256];
  size_t i;
  (void)state;
  test_tmp_path("bad" SESSION_RECORD_SUFFIX, path, sizeof(path));
  for (i = 0; bad[i]; i++) {
    write_text(path, bad[i]);
    if (session_record_read(path, &r, why, sizeof(why)) != ETWCAP_E_FORMAT)
      fail_msg("record %lu was accepted: %s", (unsigned long)i, bad[i]);
    assert_true(why[0] != '\0');
  }
  os_remove(path);
}

static void paths_are_next_to_the_data_file(void **state)
{
  char out[64], small[16];
  (void)state;
  assert_int_equal(session_record_path("x.etl", out, sizeof(out)), 0);
  assert_string_equal(out, "x.etl.etwcap-session.json");
  assert_int_equal(session_request_path("x.etl", out, sizeof(out)), 0);
  assert_string_equal(out, "x.etl.etwcap-request");
  assert_int_equal(session_record_path("long-name.etl", small, sizeof(small)), ETWCAP_E_RANGE);
}

static void a_request_is_taken_once(void **state)
{
  char path[512], got[32];
  int64_t size;
  (void)state;
  test_tmp_path("req.etl" SESSION_REQUEST_SUFFIX, path, sizeof(path));
  os_remove(path);
  assert_int_equal(session_request_take(path, got, sizeof(got)), 0);
  assert_string_equal(got, "");
  assert_int_equal(session_request_write(path, "stop"), 0);
  assert_int_equal(session_request_take(path, got, sizeof(got)), 0);
  assert_string_equal(got, "stop");
  assert_int_not_equal(os_file_size(path, &size), 0); /* taken: gone */
  write_text(path, "abort\r\n");
  assert_int_equal(session_request_take(path, got, sizeof(got)), 0);
  assert_string_equal(got, "abort");
}

static void this_process_is_alive(void **state)
{
  unsigned long pid;
  int64_t created;
  (void)state;
  session_record_self(&pid, &created);
  assert_true(pid != 0);
  assert_true(session_record_owner_alive(pid, created));
  assert_false(session_record_owner_alive(0, 0));
  /* The same pid with another creation time is another process (Windows;
   * elsewhere creation times are not known and not compared). */
  if (created)
    assert_false(session_record_owner_alive(pid, created + 1));
}

static void json_reader_handles_escapes_and_numbers(void **state)
{
  const char *text = "{\"a\": \"\\u00e9\\ud83d\\ude00\\n\\\"\", \"n\": -133232283966946549,"
                     " \"b\": true, \"z\": null, \"arr\": [1, {\"k\": []}, \"s\"], \"f\": 1.5e3}";
  struct json_node *root;
  const struct json_node *arr;
  char why[128];
  (void)state;
  assert_int_equal(json_parse(text, strlen(text), &root, why, sizeof(why)), 0);
  assert_string_equal(json_string(root, "a", NULL), "\xc3\xa9\xf0\x9f\x98\x80\n\"");
  assert_int_equal(json_int(root, "n", 0), -INT64_C(133232283966946549));
  assert_int_equal(json_bool(root, "b", 0), 1);
  assert_int_equal(json_get(root, "z")->type, JSON_NULL);
  arr = json_get(root, "arr");
  assert_int_equal(arr->type, JSON_ARRAY);
  assert_int_equal(arr->count, 3);
  assert_int_equal(arr->items[1].type, JSON_OBJECT);
  assert_int_equal(json_int(root, "f", 7), 7); /* not an integer */
  assert_string_equal(json_string(root, "missing", "dflt"), "dflt");
  json_free(root);
}

static void json_reader_refuses_deep_nesting(void **state)
{
  char text[200];
  struct json_node *root;
  char why[128];
  size_t i;
  (void)state;
  for (i = 0; i < 100; i++)
    text[i] = '[';
  for (; i < 199; i++)
    text[i] = ']';
  text[199] = '\0';
  assert_int_equal(json_parse(text, strlen(text), &root, why, sizeof(why)),
                   ETWCAP_E_FORMAT);
}

static void reading_survives_allocation_failures(void **state)
{
  struct session_record w, r;
  char path[512], why[256];
  unsigned n;
  int rc;
  (void)state;
  test_tmp_path("oom" SESSION_RECORD_SUFFIX, path, sizeof(path));
  memset(&w, 0, sizeof(w));
  snprintf(w.mode, sizeof(w.mode), "collect");
  w.session_count = 1;
  snprintf(w.sessions[0].name, sizeof(w.sessions[0].name), "etwcap");
  w.command_line = (char *)"etwcap collect";
  w.start_log = (char *)"log";
  assert_int_equal(session_record_write(path, &w), 0);
  for (n = 1; n < 200; n++) {
    test_fail_alloc_after(n);
    rc = session_record_read(path, &r, why, sizeof(why));
    test_fail_alloc_after(0);
    if (rc == 0) {
      session_record_release(&r);
      break;
    }
    assert_int_equal(rc, ETWCAP_E_NOMEM);
  }
  assert_true(n < 200);
  os_remove(path);
}

/* /NetworkCapture's netsh capture: written, read back, and absent (null)
 * in a record without it, so `stop` and `abort` run 'netsh trace stop'
 * exactly when the capture started one. */
static void packet_capture_round_trips(void **state)
{
  struct session_record w, r;
  char path[512], why[256];
  const char *text = "{\"schema\": \"" SESSION_RECORD_SCHEMA "\", \"sessions\": [], "
                     "\"packetCapture\": null}";
  (void)state;
  test_tmp_path("netcap" SESSION_RECORD_SUFFIX, path, sizeof(path));
  memset(&w, 0, sizeof(w));
  snprintf(w.mode, sizeof(w.mode), "collect");
  snprintf(w.packet_capture_file, sizeof(w.packet_capture_file),
           "C:\\traces\\caf\xc3\xa9_netmon.etl");
  w.packet_capture_netmon = 1;
  assert_int_equal(session_record_write(path, &w), 0);
  assert_int_equal(session_record_read(path, &r, why, sizeof(why)), 0);
  assert_string_equal(r.packet_capture_file, "C:\\traces\\caf\xc3\xa9_netmon.etl");
  assert_int_equal(r.packet_capture_netmon, 1);
  session_record_release(&r);

  w.packet_capture_file[0] = '\0';
  w.packet_capture_netmon = 0;
  assert_int_equal(session_record_write(path, &w), 0);
  assert_int_equal(session_record_read(path, &r, why, sizeof(why)), 0);
  assert_string_equal(r.packet_capture_file, "");
  assert_int_equal(r.packet_capture_netmon, 0);
  session_record_release(&r);
  os_remove(path);

  assert_int_equal(session_record_parse(text, strlen(text), &r, why, sizeof(why)), 0);
  assert_string_equal(r.packet_capture_file, "");
  session_record_release(&r);
}

/* The record's read value of the JSON member `field`. */
static const char *field_text(const struct session_record *r, const char *field)
{
  const struct session_record_session *s = &r->sessions[0];
  return !strcmp(field, "mode")       ? r->mode
         : !strcmp(field, "machine")  ? r->machine
         : !strcmp(field, "dataFile") ? r->data_file
         : !strcmp(field, "role")     ? s->role
         : !strcmp(field, "name")     ? s->name
         : !strcmp(field, "file")     ? s->file
                                      : r->packet_capture_file;
}

/* A record whose string is longer than its field (an edited or damaged
 * file) is refused, naming the field: cut short, a session or file name
 * would name another session or file to stop, merge or delete.  The
 * longest that fits is read whole. */
static void strings_too_long_for_their_fields_are_refused(void **state)
{
  static const struct {
    const char *field;
    size_t size;
    const char *before, *after;
  } cases[] = {
    { "mode", 16, "\"mode\": \"", "\", \"sessions\": []" },
    { "machine", 256, "\"machine\": \"", "\", \"sessions\": []" },
    { "dataFile", CONTROLLER_PATH_MAX, "\"dataFile\": \"", "\", \"sessions\": []" },
    { "role", 16, "\"sessions\": [{\"name\": \"etwcap\", \"role\": \"", "\"}]" },
    { "name", PLAN_NAME_MAX, "\"sessions\": [{\"name\": \"", "\"}]" },
    { "file", CONTROLLER_PATH_MAX, "\"sessions\": [{\"name\": \"etwcap\", \"file\": \"", "\"}]" },
    { "traceFile", CONTROLLER_PATH_MAX,
      "\"sessions\": [], \"packetCapture\": {\"traceFile\": \"", "\"}" },
  };
  static struct session_record r;
  static char text[4096], value[2048];
  char why[256];
  size_t i, extra;
  (void)state;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    for (extra = 0; extra < 2; extra++) {
      size_t len = cases[i].size - 1 + extra;
      int rc;
      memset(value, 'x', len);
      value[len] = '\0';
      snprintf(text, sizeof(text), "{\"schema\": \"" SESSION_RECORD_SCHEMA "\", %s%s%s}",
               cases[i].before, value, cases[i].after);
      rc = session_record_parse(text, strlen(text), &r, why, sizeof(why));
      if (extra) {
        if (rc != ETWCAP_E_CORRUPT || !strstr(why, cases[i].field))
          fail_msg("%s of %lu bytes: %d %s", cases[i].field, (unsigned long)len, rc, why);
        continue;
      }
      assert_int_equal(rc, 0);
      assert_int_equal(strlen(field_text(&r, cases[i].field)), len);
      session_record_release(&r);
    }
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(round_trip_keeps_every_field),
    cmocka_unit_test(packet_capture_round_trips),
    cmocka_unit_test(bytes_that_are_not_utf8_become_replacement_characters),
    cmocka_unit_test(missing_record_is_noent),
    cmocka_unit_test(damaged_records_are_refused),
    cmocka_unit_test(strings_too_long_for_their_fields_are_refused),
    cmocka_unit_test(paths_are_next_to_the_data_file),
    cmocka_unit_test(a_request_is_taken_once),
    cmocka_unit_test(this_process_is_alive),
    cmocka_unit_test(json_reader_handles_escapes_and_numbers),
    cmocka_unit_test(json_reader_refuses_deep_nesting),
    cmocka_unit_test(reading_survives_allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
