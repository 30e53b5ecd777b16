/* The .NET exceptions of `etwcap report` (src/report/report_exceptions.c) from
 * hand-made CLR Exception/Start v1 events (ClrEtwAll.man ExceptionThrown_V1:
 * ExceptionType and ExceptionMessage, UTF-16 and NUL-terminated, then
 * EIP (pointer), HRESULT (u32), Flags (u16), ClrInstanceID (u16)). */
#include "tests/fakes/test_support.h"

#include "etw/event/builtin_events.h"
#include "src/report/report_exceptions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One Exception/Start of `type` thrown in process `pid` at `filetime`. */
static void throw_one(struct report_exceptions *x, const char *type, uint32_t pid,
                      int64_t filetime)
{
  static uint8_t payload[8192];
  struct etw_event ev;
  size_t n = 0, i;
  assert_true(2 * strlen(type) + 20 <= sizeof(payload));
  for (i = 0; i <= strlen(type); i++, n += 2) { /* the type and its NUL */
    payload[n] = (uint8_t)type[i];
    payload[n + 1] = 0;
  }
  memset(payload + n, 0, 2 + 8 + 4 + 2 + 2); /* empty message, then the numbers */
  n += 18;
  memset(&ev, 0, sizeof(ev));
  ev.provider = bi_guid_clr;
  ev.has = ETW_HAS_PROVIDER;
  ev.id = CLR_ID_EXCEPTION_START;
  ev.version = 1;
  ev.pointer_size = 8;
  ev.pid = pid;
  ev.user_data = payload;
  ev.user_len = (uint32_t)n;
  assert_int_equal(report_exceptions_event(x, &ev, filetime), 1);
}

/* Kinds are (type, process): 200 types thrown in 3 processes are 600
 * kinds, each with its own count and times, whatever the order. */
static void each_type_and_process_is_one_kind(void **state)
{
  struct report_exceptions x;
  char type[64];
  unsigned i, pid, round;
  (void)state;
  assert_int_equal(report_exceptions_init(&x), 0);
  for (round = 0; round < 2; round++)
    for (i = 0; i < 200; i++)
      for (pid = 1; pid <= 3; pid++) {
        if (round == 1 && pid != 2)
          continue;
        snprintf(type, sizeof(type), "System.Exception%u", i);
        throw_one(&x, type, pid * 4, 1000 * round + i);
      }
  report_exceptions_finish(&x);
  assert_int_equal(x.total, 800);
  assert_int_equal(x.dropped, 0);
  assert_int_equal(x.count, 600);
  for (i = 0; i < 600; i++) {
    const struct report_exception *e = &x.items[i];
    unsigned n = (unsigned)atoi(e->type + strlen("System.Exception"));
    /* Sorted by count: the 200 of pid 8, thrown twice, first. */
    assert_int_equal(e->count, i < 200 ? 2 : 1);
    assert_true(i < 200 ? e->pid == 8 : e->pid == 4 || e->pid == 12);
    assert_int_equal(e->first_filetime, n);
    assert_int_equal(e->last_filetime, e->count == 2 ? 1000 + n : n);
  }
  report_exceptions_release(&x);
}

/* Types are compared whole: two that share their first 1,599 bytes (more
 * than a kind kept, 255, or a decoded value keeps, 1,023) are two kinds,
 * and each is reported whole. */
static void long_types_sharing_a_prefix_are_two_kinds(void **state)
{
  static char a[1601], b[1601];
  struct report_exceptions x;
  (void)state;
  memset(a, 'A', 1600);
  memcpy(b, a, sizeof(b));
  a[1599] = '1';
  b[1599] = '2';
  assert_int_equal(report_exceptions_init(&x), 0);
  throw_one(&x, a, 4, 1);
  throw_one(&x, b, 4, 2);
  throw_one(&x, b, 4, 3);
  report_exceptions_finish(&x);
  assert_int_equal(x.count, 2);
  assert_string_equal(x.items[0].type, b);
  assert_int_equal(x.items[0].count, 2);
  assert_string_equal(x.items[1].type, a);
  report_exceptions_release(&x);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(each_type_and_process_is_one_kind),
    cmocka_unit_test(long_types_sharing_a_prefix_are_two_kinds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
