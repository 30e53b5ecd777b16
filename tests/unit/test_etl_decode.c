/* One record at a time (etl_decode.h), on records built by hand from the
 * layouts of docs/etl.md §4 (not from etwcap's writer): a SYSTEM64 kernel
 * event, a PERFINFO64 one whose PMC counters sit between header and data,
 * an EVENT_HEADER64 event with an extended item; the 8-byte alignment of
 * the next record; the end marker; and the malformed sizes, refused with a
 * reason and never read past. */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_decode.h"
#include "src/base/error.h"

#include <string.h>

static uint8_t buf[4096];

static void put16(uint32_t at, uint16_t v)
{
  buf[at] = (uint8_t)v;
  buf[at + 1] = (uint8_t)(v >> 8);
}

static void put32(uint32_t at, uint32_t v)
{
  put16(at, (uint16_t)v);
  put16(at + 2, (uint16_t)(v >> 16));
}

static void put64(uint32_t at, uint64_t v)
{
  put32(at, (uint32_t)v);
  put32(at + 4, (uint32_t)(v >> 32));
}

/* The marker: u16 Version (or Size), u8 HeaderType, u8 Flags 0xC0. */
static void marker(uint32_t at, uint16_t first, uint8_t type)
{
  put16(at, first);
  buf[at + 2] = type;
  buf[at + 3] = 0xC0;
}

static void decode_one(uint32_t pos, uint32_t end, struct etw_event *ev, uint32_t *next)
{
  const char *why = NULL;
  memset(ev, 0, sizeof(*ev));
  assert_int_equal(etl_decode_event(buf, end, pos, ev, next, &why), ETL_DECODE_EVENT);
}

static void system64_kernel_event(void **state)
{
  struct etw_event ev;
  uint32_t next;
  uint64_t ts = 0;
  (void)state;
  memset(buf, 0xFF, sizeof(buf));
  marker(64, 2, 0x02);
  put16(64 + 4, 0x20 + 12);       /* Size: header and a 12-byte payload */
  put16(64 + 6, 0x0301);          /* HookId: group 0x03 (Process), opcode 1 (Start) */
  put32(64 + 8, 4242);            /* TID */
  put32(64 + 0xC, 77);            /* PID */
  put64(64 + 0x10, 0x0123456789ABull);
  put32(64 + 0x18, 5);            /* KernelTime */
  put32(64 + 0x1C, 6);            /* UserTime */
  memcpy(buf + 64 + 0x20, "payload-12by", 12);
  decode_one(64, 200, &ev, &next);
  assert_int_equal(ev.header_type, ETW_HDR_SYSTEM64);
  assert_int_equal(ev.pointer_size, 8);
  assert_true(ev.is_kernel);
  assert_int_equal(ev.hook_id, 0x0301);
  assert_int_equal(ev.group, 0x03);
  assert_int_equal(ev.opcode, 1);
  assert_int_equal(ev.version, 2);
  assert_int_equal(ev.tid, 4242);
  assert_int_equal(ev.pid, 77);
  assert_true(ev.timestamp == 0x0123456789ABull);
  assert_int_equal(ev.user_len, 12);
  assert_memory_equal(ev.user_data, "payload-12by", 12);
  assert_int_equal(ev.raw_size, 0x2C);
  assert_int_equal(next, 64 + 0x30); /* 0x2C rounded up to 8 */
  assert_int_equal(etl_decode_peek_timestamp(buf, 200, 64, &ts), ETL_PEEK_TIMESTAMP);
  assert_true(ts == 0x0123456789ABull);
  /* 0xFFFFFFFF where the next record would start: the end of the events. */
  assert_int_equal(etl_decode_event(buf, 200, next, &ev, &next, &(const char *){ NULL }),
                   ETL_DECODE_END);
}

/* PERFINFO: Version bits 0x0700 count the PMC counters, 8 bytes each,
 * between the 0x10-byte header and the data; the payload excludes them. */
static void perfinfo64_with_pmc_counters(void **state)
{
  struct etw_event ev;
  uint32_t next;
  (void)state;
  memset(buf, 0xFF, sizeof(buf));
  marker(0, 0x0202, 0x11);         /* Version 2, two PMC counters */
  put16(4, 0x10 + 16 + 8);         /* Size: header, counters, 8 bytes of data */
  put16(6, 0x0F2E);                /* SampledProfile */
  put64(8, 99);
  put64(0x10, 0x1111111111111111ull);
  put64(0x18, 0x2222222222222222ull);
  memcpy(buf + 0x20, "IP-addrs", 8);
  decode_one(0, 100, &ev, &next);
  assert_int_equal(ev.header_type, ETW_HDR_PERFINFO64);
  assert_true(ev.is_kernel);
  assert_int_equal(ev.hook_id, 0x0F2E);
  assert_true(ev.timestamp == 99);
  assert_int_equal(ev.user_len, 8);
  assert_memory_equal(ev.user_data, "IP-addrs", 8);
  assert_int_equal(next, 0x28);
}

static const uint8_t provider[16] = { 0xA0, 0x85, 0xC1, 0x3B, 0x40, 0x5C, 0x15, 0x4B,
                                      0x86, 0xC1, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06 };

/* EVENT_HEADER: the descriptor at 0x28, one extended item (ItemSize 0x18,
 * its Linkage bit clear) before the user data. */
static void event_header64_with_an_extended_item(void **state)
{
  struct etw_event ev;
  uint32_t next;
  (void)state;
  memset(buf, 0xFF, sizeof(buf));
  put16(0, 0x50 + 0x18 + 5);       /* Size: header, item, 5 bytes of data */
  buf[2] = 0x13;                   /* EVENT_HEADER64 */
  buf[3] = 0xC0;
  put16(4, 0x0001);                /* Flags: extended items follow */
  put16(6, 0);                     /* EventProperty */
  put32(8, 10);                    /* TID */
  put32(0xC, 20);                  /* PID */
  put64(0x10, 123456);
  memcpy(buf + 0x18, provider, 16);
  put16(0x28, 42);                 /* Id */
  buf[0x2A] = 3;                   /* Version */
  buf[0x2B] = 0x10;                /* Channel */
  buf[0x2C] = 4;                   /* Level */
  buf[0x2D] = 0x0B;                /* Opcode */
  put16(0x2E, 7);                  /* Task */
  put64(0x30, 0x8000000000000001ull);
  put64(0x38, 0);                  /* ProcessorTime */
  memset(buf + 0x40, 0, 16);       /* ActivityId */
  put16(0x50, 0x18);               /* ItemSize */
  put16(0x52, 0x000B);             /* ExtType */
  put16(0x54, 0);                  /* Linkage: the last item */
  put16(0x56, 0x0C);               /* DataSize */
  memcpy(buf + 0x58, "ext-data-12b", 12);
  memcpy(buf + 0x68, "hello", 5);
  decode_one(0, 0x100, &ev, &next);
  assert_int_equal(ev.header_type, ETW_HDR_EVENT_HEADER64);
  assert_false(ev.is_kernel);
  assert_true(ev.has & ETW_HAS_PROVIDER);
  assert_true(ev.has & ETW_HAS_DESCRIPTOR);
  /* Data1..Data3 little-endian: 3bc185a0-5c40-4b15-86c1-010203040506. */
  assert_int_equal(ev.provider.data1, 0x3BC185A0u);
  assert_int_equal(ev.provider.data2, 0x5C40);
  assert_int_equal(ev.provider.data3, 0x4B15);
  assert_int_equal(ev.id, 42);
  assert_int_equal(ev.version, 3);
  assert_int_equal(ev.channel, 0x10);
  assert_int_equal(ev.level, 4);
  assert_int_equal(ev.opcode, 0x0B);
  assert_int_equal(ev.task, 7);
  assert_true(ev.keyword == 0x8000000000000001ull);
  assert_int_equal(ev.pid, 20);
  assert_int_equal(ev.tid, 10);
  assert_int_equal(ev.ext_count, 1);
  assert_int_equal(ev.ext[0].type, 0x000B);
  assert_int_equal(ev.ext[0].size, 0x0C);
  assert_memory_equal(ev.ext[0].data, "ext-data-12b", 12);
  assert_int_equal(ev.user_len, 5);
  assert_memory_equal(ev.user_data, "hello", 5);
  assert_int_equal(next, 0x70); /* 0x6D rounded up to 8 */
}

/* A Size shorter than the header, or reaching past the filled end, is
 * corrupt, with a reason. */
static void malformed_sizes_are_refused(void **state)
{
  struct etw_event ev;
  uint32_t next;
  const char *why = NULL;
  (void)state;
  memset(buf, 0xFF, sizeof(buf));
  marker(0, 2, 0x02);
  put16(4, 0x10); /* shorter than SYSTEM's 0x20 */
  assert_int_equal(etl_decode_event(buf, 0x100, 0, &ev, &next, &why), ETWCAP_E_CORRUPT);
  assert_non_null(why);
  why = NULL;
  put16(4, 0x80); /* past the end at 0x40 */
  assert_int_equal(etl_decode_event(buf, 0x40, 0, &ev, &next, &why), ETWCAP_E_CORRUPT);
  assert_non_null(why);
  /* An EVENT_HEADER whose extended item claims more than the record holds. */
  memset(buf, 0xFF, sizeof(buf));
  put16(0, 0x50 + 8);
  buf[2] = 0x13;
  buf[3] = 0xC0;
  put16(4, 0x0001);
  put16(0x50, 0x40); /* ItemSize beyond the record */
  put16(0x54, 0);
  put16(0x56, 0x38);
  why = NULL;
  assert_int_equal(etl_decode_event(buf, 0x100, 0, &ev, &next, &why), ETWCAP_E_CORRUPT);
  assert_non_null(why);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(system64_kernel_event),
    cmocka_unit_test(perfinfo64_with_pmc_counters),
    cmocka_unit_test(event_header64_with_an_extended_item),
    cmocka_unit_test(malformed_sizes_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
