/* The portable half of the real-time consumer: EVENT_RECORD fields to
 * etw_event (etw_event_from_record) and raw timestamps to UTC
 * (etw_record_filetime), against values set by hand from the EVENT_HEADER
 * layout (evntcons.h) and against every event of a real sample, whose
 * reader-decoded events must come out of the round trip unchanged. */
#include "tests/fakes/test_support.h"

#include "etw/event/builtin_events.h"
#include "etw/event/etw_event_record.h"
#include "etw/event/guid.h"
#include "src/base/error.h"
#include "tests/fakes/fake_consumer.h"
#include "triggers/trigger_procmap.h"

#include <string.h>

static void fields_map_one_to_one(void **state)
{
  static const uint8_t payload[] = { 1, 2, 3, 4, 5 };
  static const uint8_t stack[] = { 9, 9, 9, 9, 9, 9, 9, 9 };
  struct etw_record_ext ext[1] = { { ETW_EXT_STACK_TRACE64, sizeof(stack), stack } };
  struct etw_record_fields f;
  struct etw_event ev;
  (void)state;
  memset(&f, 0, sizeof(f));
  f.flags = ETW_RECORD_FLAG_64_BIT_HEADER | ETW_RECORD_FLAG_EXTENDED_INFO;
  f.event_property = 0x1;
  f.tid = 4321;
  f.pid = 1234;
  f.timestamp = 987654321;
  assert_int_equal(guid_parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", &f.provider), 0);
  f.id = 80;
  f.version = 1;
  f.channel = 16;
  f.level = 2;
  f.opcode = 0;
  f.task = 7;
  f.keyword = 0x8000;
  f.kernel_time = 11;
  f.user_time = 22;
  f.cpu = 3;
  f.ext_count = 1;
  f.ext = ext;
  f.user_len = sizeof(payload);
  f.user_data = payload;
  etw_event_from_record(&ev, &f);
  assert_int_equal(ev.header_type, ETW_HDR_EVENT_HEADER64);
  assert_int_equal(ev.pointer_size, 8);
  assert_int_equal(ev.is_kernel, 0);
  assert_int_equal(ev.has, ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER |
                             ETW_HAS_DESCRIPTOR);
  assert_true(guid_equal(&ev.provider, &f.provider));
  assert_int_equal(ev.id, 80);
  assert_int_equal(ev.level, 2);
  assert_int_equal(ev.channel, 16);
  assert_int_equal(ev.task, 7);
  assert_int_equal(ev.keyword, 0x8000);
  assert_int_equal(ev.pid, 1234);
  assert_int_equal(ev.tid, 4321);
  assert_int_equal(ev.cpu, 3);
  assert_int_equal(ev.timestamp, 987654321);
  assert_int_equal(ev.processor_time, ((uint64_t)22 << 32) | 11);
  assert_int_equal(ev.ext_count, 1);
  assert_int_equal(ev.ext[0].type, ETW_EXT_STACK_TRACE64);
  assert_ptr_equal(ev.ext[0].data, stack);
  assert_ptr_equal(ev.user_data, payload);
  assert_int_equal(ev.user_len, 5);
  assert_null(ev.raw);
}

static void thirty_two_bit_logger_and_no_cpu_time(void **state)
{
  struct etw_record_fields f;
  struct etw_event ev;
  (void)state;
  memset(&f, 0, sizeof(f));
  f.flags = ETW_RECORD_FLAG_32_BIT_HEADER | ETW_RECORD_FLAG_NO_CPUTIME;
  f.kernel_time = 5;
  f.user_time = 6;
  f.user_len = 10; /* without data: no payload */
  etw_event_from_record(&ev, &f);
  assert_int_equal(ev.pointer_size, 4);
  assert_int_equal(ev.header_type, ETW_HDR_EVENT_HEADER32);
  assert_int_equal(ev.processor_time, 0);
  assert_int_equal(ev.user_len, 0);
}

static void extended_items_beyond_the_view_are_dropped(void **state)
{
  struct etw_record_ext ext[ETW_EVENT_MAX_EXT + 4];
  struct etw_record_fields f;
  struct etw_event ev;
  unsigned i;
  (void)state;
  memset(&f, 0, sizeof(f));
  for (i = 0; i < ETW_EVENT_MAX_EXT + 4; i++) {
    ext[i].type = (uint16_t)(i + 1);
    ext[i].size = 0;
    ext[i].data = NULL;
  }
  f.ext = ext;
  f.ext_count = ETW_EVENT_MAX_EXT + 4;
  etw_event_from_record(&ev, &f);
  assert_int_equal(ev.ext_count, ETW_EVENT_MAX_EXT);
  assert_int_equal(ev.ext[ETW_EVENT_MAX_EXT - 1].type, ETW_EVENT_MAX_EXT);
}

static void clock_qpc_and_system_time(void **state)
{
  struct etw_record_clock c;
  (void)state;
  /* 10 MHz QPC: one tick is one 100-ns unit. */
  etw_record_clock_init(&c, INT64_C(133000000000000000), 1000, 10000000);
  assert_int_equal(etw_record_filetime(&c, 1000), INT64_C(133000000000000000));
  assert_int_equal(etw_record_filetime(&c, 11000), INT64_C(133000000000010000));
  /* 3 579 545 Hz (the ACPI PM timer): one second later. */
  etw_record_clock_init(&c, INT64_C(133000000000000000), 0, 3579545);
  assert_int_equal(etw_record_filetime(&c, 3579545), INT64_C(133000000010000000));
  /* Before the reference. */
  etw_record_clock_init(&c, INT64_C(133000000000000000), 20000000, 10000000);
  assert_int_equal(etw_record_filetime(&c, 10000000), INT64_C(132999999990000000));
  /* System-time sessions: the raw value is the FILETIME. */
  etw_record_clock_init(&c, 0, 0, 0);
  assert_int_equal(etw_record_filetime(&c, INT64_C(133000000012345678)),
                   INT64_C(133000000012345678));
}

/* Every EVENT_HEADER event of a sample survives fields -> etw_event, and
 * its time from the logfile's QPC clock equals the reader's. */
struct round {
  uint64_t events, compared;
  int clock_ready;
  struct etw_record_clock clock;
};

static int round_trip(void *ctx, const struct etw_event *ev, const struct etl_logfile *lf,
                      const struct etl_clock *clock)
{
  struct round *r = ctx;
  struct etw_record_ext ext[ETW_EVENT_MAX_EXT];
  struct etw_record_fields f;
  struct etw_event out;
  unsigned i;
  r->events++;
  if (!r->clock_ready) {
    etw_record_clock_init(&r->clock, clock->base, 0, (uint64_t)lf->perf_freq);
    r->clock_ready = 1;
  }
  if (!fake_record_fields(ev, &f, ext))
    return 0;
  etw_event_from_record(&out, &f);
  r->compared++;
  if (ev->is_kernel) {
    /* Classic: known by its task GUID, its group the same. */
    assert_int_equal(bi_kernel_group(&out), ev->group);
    assert_int_equal(out.opcode, ev->opcode);
    assert_int_equal(out.user_len, ev->user_len);
    assert_int_equal(etw_record_filetime(&r->clock, f.timestamp),
                     etl_clock_filetime(clock, ev->timestamp));
    return 0;
  }
  assert_true(guid_equal(&out.provider, &ev->provider));
  assert_int_equal(out.id, ev->id);
  assert_int_equal(out.version, ev->version);
  assert_int_equal(out.opcode, ev->opcode);
  assert_int_equal(out.task, ev->task);
  assert_int_equal(out.keyword, ev->keyword);
  assert_int_equal(out.pid, ev->pid);
  assert_int_equal(out.tid, ev->tid);
  assert_int_equal(out.user_len, ev->user_len);
  if (ev->user_len)
    assert_memory_equal(out.user_data, ev->user_data, ev->user_len);
  assert_int_equal(out.ext_count, ev->ext_count);
  for (i = 0; i < ev->ext_count; i++)
    assert_int_equal(out.ext[i].type, ev->ext[i].type);
  assert_int_equal(etw_record_filetime(&r->clock, f.timestamp),
                   etl_clock_filetime(clock, ev->timestamp));
  return 0;
}

static void sample_events_survive_the_round_trip(void **state)
{
  char path[1024];
  struct round r;
  (void)state;
  if (!test_sample_path("ms-perfview__gcevents.etl.zip", path, sizeof(path)))
    skip();
  memset(&r, 0, sizeof(r));
  assert_int_equal(fake_trace_foreach(path, round_trip, &r), 0);
  /* gcevents: 71 events, 69 with an EVENT_HEADER (the two others are
   * events real time delivers in another form, skipped here). */
  assert_int_equal(r.events, 71);
  assert_int_equal(r.compared, 69);
}

/* A /Process name resolves from real-time classic kernel events exactly
 * as from the recorded ones: two process maps, one fed the reader's
 * events, one the same events through EVENT_RECORD fields. */
struct maps {
  struct trigger_procmap direct, live;
  uint64_t kernel;
};

static int feed_maps(void *ctx, const struct etw_event *ev, const struct etl_logfile *lf,
                     const struct etl_clock *clock)
{
  struct maps *m = ctx;
  struct etw_record_ext ext[ETW_EVENT_MAX_EXT];
  struct etw_record_fields f;
  struct etw_event out;
  (void)lf, (void)clock;
  trigger_procmap_event(&m->direct, ev);
  if (!fake_record_fields(ev, &f, ext))
    return 0;
  etw_event_from_record(&out, &f);
  if (ev->is_kernel)
    m->kernel++;
  trigger_procmap_event(&m->live, &out);
  return 0;
}

static void process_names_resolve_from_classic_kernel_events(void **state)
{
  static const char *const names[] = { "svchost", "explorer", "csrss", "lsass", "winlogon",
                                       "services", "System" };
  static struct maps m;
  char path[1024];
  size_t i, ever = 0;
  (void)state;
  if (!test_sample_path("ms-perfview__net.4.5.2.x64.etl.zip", path, sizeof(path)))
    skip();
  memset(&m, 0, sizeof(m));
  for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    assert_true(trigger_procmap_add(&m.direct, names[i]) >= 0);
    assert_true(trigger_procmap_add(&m.live, names[i]) >= 0);
  }
  assert_int_equal(fake_trace_foreach(path, feed_maps, &m), 0);
  assert_true(m.kernel > 0);
  for (i = 0; i < m.direct.count; i++) {
    assert_int_equal(m.live.slots[i].ever, m.direct.slots[i].ever);
    assert_int_equal(m.live.slots[i].mapped, m.direct.slots[i].mapped);
    assert_int_equal(m.live.slots[i].pid, m.direct.slots[i].pid);
    ever += m.direct.slots[i].ever != 0;
  }
  assert_true(ever > 0); /* the trace does name some of these */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(fields_map_one_to_one),
    cmocka_unit_test(thirty_two_bit_logger_and_no_cpu_time),
    cmocka_unit_test(extended_items_beyond_the_view_are_dropped),
    cmocka_unit_test(clock_qpc_and_system_time),
    cmocka_unit_test(sample_events_survive_the_round_trip),
    cmocka_unit_test(process_names_resolve_from_classic_kernel_events),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
