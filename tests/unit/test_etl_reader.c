/* The ETL reader against bytes assembled here from the layouts of
 * docs/etl.md §2-§4 (test_etl_bytes.h): every header kind, including the
 * ones no real sample has (MESSAGE/WPP, INSTANCE, COMPACT, PMC-extended
 * PERFINFO), the 32-bit logfile header, pre-Windows 8 CPU numbers,
 * SavedOffset < Offset, the golden listings' line format and UTC
 * arithmetic, and the container ID item. */
#include "tests/fakes/test_support.h"

#include "tests/unit/test_etl_bytes.h"

#include "etw/etl/etl_dump.h"
#include "etw/etl/etl_reader.h"
#include "src/base/byte_source.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/os/os_time.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define START_TIME INT64_C(132000000000000000) /* 2019-04-17T18:40:00Z */
#define HDR_TS UINT64_C(1000)

static uint8_t image[1024 + 4096];

static const char d4_a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

/* Writes the kernel-style header shared by SYSTEM/COMPACT (§4 table). */
static void kernel_head(uint8_t *r, uint8_t type, uint16_t version, uint16_t size,
                        uint16_t hook)
{
  tb16(r + 0, version);
  r[2] = type;
  r[3] = 0xC0;
  tb16(r + 4, size);
  tb16(r + 6, hook);
}

/* Buffer 0: the header buffer (1 KiB, smaller than BufferSize as in relogged
 * files); buffer 1: one event of every kind, on CPU 3 (PROC_INDEX). */
static size_t build_all_kinds(void)
{
  uint8_t *b0 = image, *b1 = image + 1024, *r;
  uint32_t pos, size;
  size = tb_logfile_event(b0, 72, 1, HDR_TS, 10000000, START_TIME, 2, 0x1, 1, 4);
  tb_buffer(b0, 1024, 72 + size, 0, 0, 0x0001, 4);
  tb_logfile_event(b0, 72, 1, HDR_TS, 10000000, START_TIME, 2, 0x1, 1, 4);

  tb_buffer(b1, 4096, 0, 1, 3, 0x0020, 0);
  pos = 72;
  /* SYSTEM64, hook 0x0301 (Process start), 4 bytes of payload. */
  r = b1 + pos;
  kernel_head(r, 0x02, 2, 0x20 + 4, 0x0301);
  tb32(r + 8, 11);
  tb32(r + 12, 22);
  tb64(r + 16, 5000);
  memcpy(r + 0x20, "ABCD", 4);
  pos += TB_ALIGN8(0x20 + 4);
  /* COMPACT64, hook 0x0524 (Thread/CSwitch), 8 bytes of payload. */
  r = b1 + pos;
  kernel_head(r, 0x04, 2, 0x18 + 8, 0x0524);
  tb32(r + 8, 33);
  tb32(r + 12, 44);
  tb64(r + 16, 5001);
  memcpy(r + 0x18, "12345678", 8);
  pos += TB_ALIGN8(0x18 + 8);
  /* PERFINFO64 with two PMC counters (Version bits 0x0700 = 2): 16 bytes
   * of counters between the header and 3 bytes of payload. */
  r = b1 + pos;
  kernel_head(r, 0x11, 0x0202, 0x10 + 16 + 3, 0x0F2E);
  tb64(r + 8, 5002);
  memset(r + 0x10, 0xAA, 16);
  memcpy(r + 0x20, "xyz", 3);
  pos += TB_ALIGN8(0x10 + 16 + 3);
  /* FULL_HEADER64 (classic): Type 33, Level 4, Version 2, 5 bytes. */
  r = b1 + pos;
  tb16(r + 0, 0x30 + 5);
  r[2] = 0x14;
  r[3] = 0xC0;
  r[4] = 33;
  r[5] = 4;
  tb16(r + 6, 2);
  tb32(r + 8, 55);
  tb32(r + 12, 66);
  tb64(r + 16, 5003);
  tbguid(r + 0x18, 0x9b79ee91, 0xb5fd, 0x41c0, d4_a);
  memcpy(r + 0x30, "hello", 5);
  pos += TB_ALIGN8(0x30 + 5);
  /* INSTANCE64: as FULL, then InstanceId, ParentInstanceId, ParentGuid. */
  r = b1 + pos;
  tb16(r + 0, 0x48 + 2);
  r[2] = 0x15;
  r[3] = 0xC0;
  r[4] = 1;
  r[5] = 5;
  tb16(r + 6, 0);
  tb32(r + 8, 77);
  tb32(r + 12, 88);
  tb64(r + 16, 5004);
  tbguid(r + 0x18, 0x11111111, 0x2222, 0x3333, d4_a);
  tb32(r + 0x30, 9);
  tb32(r + 0x34, 8);
  tbguid(r + 0x38, 0x44444444, 0x5555, 0x6666, d4_a);
  memcpy(r + 0x48, "hi", 2);
  pos += TB_ALIGN8(0x48 + 2);
  /* EVENT_HEADER64 with RELATED_ACTIVITYID and STACK_TRACE64 (2 frames). */
  r = b1 + pos;
  size = 0x50 + 24 + 32 + 6;
  tb16(r + 0, (uint16_t)size);
  r[2] = 0x13;
  r[3] = 0xC0;
  tb16(r + 4, 0x0001); /* EXTENDED_INFO */
  tb16(r + 6, 0);
  tb32(r + 8, 99);
  tb32(r + 12, 98);
  tb64(r + 16, 5005);
  tbguid(r + 0x18, 0xe13c0d23, 0xccbc, 0x4e12, "\x93\x1b\xd9\xcc\x2e\xee\x27\xe4");
  tb16(r + 0x28, 14);   /* Id */
  r[0x2A] = 1;          /* Version */
  r[0x2B] = 0;          /* Channel */
  r[0x2C] = 4;          /* Level */
  r[0x2D] = 19;         /* Opcode */
  tb16(r + 0x2E, 1);    /* Task */
  tb64(r + 0x30, 0x8000000000000001ull);
  tb16(r + 0x50, 24);   /* item 1: size, type 1, linkage 1, 16 data bytes */
  tb16(r + 0x52, 1);
  tb16(r + 0x54, 1);
  tb16(r + 0x56, 16);
  tbguid(r + 0x58, 0xabcdef01, 0x1, 0x2, d4_a);
  tb16(r + 0x68, 32);   /* item 2: STACK_TRACE64, MatchId + 2 frames */
  tb16(r + 0x6A, 6);
  tb16(r + 0x6C, 0);
  tb16(r + 0x6E, 24);
  memset(r + 0x70, 0x11, 24);
  memcpy(r + 0x88, "GCDATA", 6);
  pos += TB_ALIGN8(size);
  /* MESSAGE (WPP): OptionFlags 0x2B = sequence, GUID, timestamp, ids. */
  r = b1 + pos;
  size = 8 + 4 + 16 + 8 + 8 + 3;
  tb16(r + 0, (uint16_t)size);
  r[2] = 0x00;
  r[3] = 0x90;
  tb16(r + 4, 12);      /* MessageNumber */
  tb16(r + 6, 0x2B);
  tb32(r + 8, 4242);    /* sequence */
  tbguid(r + 12, 0xdeadbeef, 0xbeef, 0xcafe, d4_a);
  tb64(r + 28, 5006);   /* timestamp */
  tb32(r + 36, 123);    /* TID */
  tb32(r + 40, 456);    /* PID */
  memcpy(r + 44, "wpp", 3);
  pos += TB_ALIGN8(size);
  /* Offset (filled) = end of the last event; 0xFF padding follows. */
  tb32(b1 + 0x30, pos);
  tb32(b1 + 0x04, pos);
  return 1024 + 4096;
}

struct collected {
  struct etw_event ev[16];
  uint8_t data[16][64]; /* copies of the user data: the views die with the reader */
  char lines[16][ETL_DUMP_LINE_MAX];
  char container[16][ETW_CONTAINER_ID_SIZE]; /* etw_event_container_id while read */
  int container_rc[16];
  unsigned count;
};

static int read_all(const uint8_t *data, size_t len, struct collected *c, char *err,
                    size_t errcap)
{
  struct byte_source io;
  struct etl_reader *r = NULL;
  int rc;
  memset(c, 0, sizeof(*c));
  assert_int_equal(byte_source_open_memory(&io, data, len), 0);
  rc = etl_reader_open(&r, &io, "mem.etl");
  while (rc == 0) {
    struct etw_event ev;
    rc = etl_reader_next(r, &ev);
    if (rc <= 0)
      break;
    if (c->count < 16) {
      size_t keep = ev.user_len < 64 ? ev.user_len : 64;
      memcpy(c->data[c->count], ev.user_data, keep);
      c->ev[c->count] = ev;
      c->ev[c->count].user_data = c->data[c->count];
      etl_dump_format_event(&ev, etl_reader_clock(r), c->lines[c->count], ETL_DUMP_LINE_MAX);
      c->container_rc[c->count] = etw_event_container_id(&ev, c->container[c->count]);
    }
    c->count++;
    rc = 0;
  }
  if (err)
    snprintf(err, errcap, "%s", r ? etl_reader_error(r) : "");
  etl_reader_free(r);
  byte_source_close(&io);
  return rc;
}

static void every_header_kind_decodes(void **state)
{
  static struct collected c;
  size_t len = build_all_kinds();
  const struct etw_event *e;
  (void)state;
  assert_int_equal(read_all(image, len, &c, NULL, 0), 0);
  assert_int_equal(c.count, 8);

  e = &c.ev[0]; /* the logfile header event itself */
  assert_int_equal(e->header_type, ETW_HDR_SYSTEM64);
  assert_int_equal(e->hook_id, 0);
  assert_int_equal(e->buffer_index, 0);

  e = &c.ev[1];
  assert_int_equal(e->header_type, ETW_HDR_SYSTEM64);
  assert_int_equal(e->hook_id, 0x0301);
  assert_int_equal(e->group, 3);
  assert_int_equal(e->opcode, 1);
  assert_int_equal(e->tid, 11);
  assert_int_equal(e->pid, 22);
  assert_int_equal(e->cpu, 3);
  assert_int_equal(e->user_len, 4);
  assert_memory_equal(e->user_data, "ABCD", 4);

  e = &c.ev[2];
  assert_int_equal(e->header_type, ETW_HDR_COMPACT64);
  assert_int_equal(e->hook_id, 0x0524);
  assert_int_equal(e->tid, 33);
  assert_int_equal(e->pid, 44);
  assert_int_equal(e->timestamp, 5001);
  assert_int_equal(e->user_len, 8);
  assert_memory_equal(e->user_data, "12345678", 8);

  e = &c.ev[3];
  assert_int_equal(e->header_type, ETW_HDR_PERFINFO64);
  assert_int_equal(e->hook_id, 0x0F2E);
  assert_int_equal(e->timestamp, 5002);
  assert_false(e->has & ETW_HAS_PID_TID);
  assert_int_equal(e->user_len, 3); /* the PMC counters are not user data */
  assert_memory_equal(e->user_data, "xyz", 3);

  e = &c.ev[4];
  assert_int_equal(e->header_type, ETW_HDR_FULL64);
  assert_int_equal(e->opcode, 33);
  assert_int_equal(e->level, 4);
  assert_int_equal(e->version, 2);
  assert_int_equal(e->provider.data1, 0x9b79ee91);
  assert_int_equal(e->user_len, 5);

  e = &c.ev[5];
  assert_int_equal(e->header_type, ETW_HDR_INSTANCE64);
  assert_int_equal(e->instance_id, 9);
  assert_int_equal(e->parent_instance_id, 8);
  assert_int_equal(e->parent_guid.data1, 0x44444444);
  assert_int_equal(e->user_len, 2);
  assert_memory_equal(e->user_data, "hi", 2);

  e = &c.ev[6];
  assert_int_equal(e->header_type, ETW_HDR_EVENT_HEADER64);
  assert_int_equal(e->id, 14);
  assert_int_equal(e->opcode, 19);
  assert_int_equal(e->keyword, 0x8000000000000001ull);
  assert_int_equal(e->ext_count, 2);
  assert_int_equal(e->ext[0].type, ETW_EXT_RELATED_ACTIVITYID);
  assert_int_equal(e->ext[0].size, 16);
  assert_int_equal(e->ext[1].type, ETW_EXT_STACK_TRACE64);
  assert_int_equal(e->ext[1].size, 24);
  assert_int_equal(e->user_len, 6);
  assert_memory_equal(e->user_data, "GCDATA", 6);

  e = &c.ev[7];
  assert_int_equal(e->header_type, ETW_HDR_MESSAGE);
  assert_int_equal(e->id, 12);
  assert_int_equal(e->sequence, 4242);
  assert_int_equal(e->provider.data1, 0xdeadbeef);
  assert_int_equal(e->timestamp, 5006);
  assert_int_equal(e->tid, 123);
  assert_int_equal(e->pid, 456);
  assert_int_equal(e->user_len, 3);
  assert_memory_equal(e->user_data, "wpp", 3);
}

static void lines_follow_the_golden_format(void **state)
{
  static struct collected c;
  char want[256];
  size_t len = build_all_kinds();
  (void)state;
  assert_int_equal(read_all(image, len, &c, NULL, 0), 0);
  /* PerfFreq 10 MHz: UTC = StartTime - 1000 + ts (in 100 ns). */
  snprintf(want, sizeof(want),
           "1\t3\t5001\t2019-04-17T18:40:00.0004001Z\tCOMPACT64\tkernel:Thread\t"
           "hook=0x0524(grp=5,op=36)\t8\tpid=44 tid=33\tcrc=%08lx",
           crc32(0, (const Bytef *)"12345678", 8));
  assert_string_equal(c.lines[2], want);
  snprintf(want, sizeof(want),
           "1\t3\t5002\t2019-04-17T18:40:00.0004002Z\tPERFINFO64\tkernel:PerfInfo\t"
           "hook=0x0f2e(grp=15,op=46)\t3\t\tcrc=%08lx",
           crc32(0, (const Bytef *)"xyz", 3));
  assert_string_equal(c.lines[3], want);
  snprintf(want, sizeof(want),
           "1\t3\t5004\t2019-04-17T18:40:00.0004004Z\tINSTANCE64\t"
           "11111111-2222-3333-0102-030405060708\ttype(op)=1 lvl=5 v=0\t2\tpid=88 tid=77\t"
           "crc=%08lx",
           crc32(0, (const Bytef *)"hi", 2));
  assert_string_equal(c.lines[5], want);
  snprintf(want, sizeof(want),
           "1\t3\t5005\t2019-04-17T18:40:00.0004005Z\tEVENT_HEADER64\t"
           "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4\tid=14 v=1 op=19 task=1 lvl=4 "
           "kw=0x8000000000000001\t6\tpid=98 tid=99 flags=0x1 "
           "ext=RELATED_ACTIVITYID,STACK_TRACE64[2]\tcrc=%08lx",
           crc32(0, (const Bytef *)"GCDATA", 6));
  assert_string_equal(c.lines[6], want);
  assert_non_null(strstr(c.lines[7], "\tMESSAGE\tdeadbeef-beef-cafe-0102-030405060708\t"));
  assert_non_null(strstr(c.lines[7], "\t3\tpid=456 tid=123"));
}

static void logfile_header_fields(void **state)
{
  struct byte_source io;
  struct etl_reader *r = NULL;
  const struct etl_logfile *lf;
  size_t len = build_all_kinds();
  (void)state;
  assert_int_equal(byte_source_open_memory(&io, image, len), 0);
  assert_int_equal(etl_reader_open(&r, &io, "mem.etl"), 0);
  lf = etl_reader_logfile(r);
  assert_int_equal(lf->build, 19041);
  assert_int_equal(lf->os_major, 10);
  assert_int_equal(lf->cpus, 4);
  assert_int_equal(lf->pointer_size, 8);
  assert_int_equal(lf->perf_freq, 10000000);
  assert_int_equal(lf->start_time, START_TIME);
  assert_int_equal(lf->clock_type, 1);
  assert_int_equal(lf->events_lost, 7);
  assert_int_equal(lf->buffers_lost, 2);
  assert_int_equal(lf->tz_bias, -60);
  assert_int_equal(lf->header_timestamp, HDR_TS);
  assert_string_equal(lf->logger_name, "Test");
  assert_string_equal(lf->log_file_name, "t.etl");
  assert_int_equal(etl_reader_compression(r), 0);
  etl_reader_free(r);
  byte_source_close(&io);
}

/* A 32-bit logging session: SYSTEM32 logfile header with the x86 layout
 * (4-byte name pointers move every later field 8 bytes down) and 32-bit
 * event headers. */
static void pointer32_trace(void **state)
{
  static struct collected c;
  struct byte_source io;
  struct etl_reader *r = NULL;
  const struct etl_logfile *lf;
  uint8_t *b0 = image, *b1 = image + 1024, *rec;
  uint32_t size;
  (void)state;
  size = tb_logfile_event(b0, 72, 0, 777, 2630627, START_TIME, 2, 0, 1, 2);
  tb_buffer(b0, 1024, 72 + size, 0, 0, 0, 4);
  tb_logfile_event(b0, 72, 0, 777, 2630627, START_TIME, 2, 0, 1, 2);
  tb_buffer(b1, 4096, 72 + 0x50 + 4, 1, 1, 0x20, 0);
  rec = b1 + 72;
  memset(rec, 0, 0x50 + 4);
  tb16(rec, 0x50 + 4);
  rec[2] = 0x12; /* EVENT_HEADER32 */
  rec[3] = 0xC0;
  tb32(rec + 8, 5);
  tb32(rec + 12, 6);
  tb64(rec + 16, 2630627 + 777);
  memcpy(rec + 0x50, "\x01\x00\x00\x00", 4);

  assert_int_equal(byte_source_open_memory(&io, image, 1024 + 4096), 0);
  assert_int_equal(etl_reader_open(&r, &io, "x86.etl"), 0);
  lf = etl_reader_logfile(r);
  assert_int_equal(lf->header_is_64, 0);
  assert_int_equal(lf->pointer_size, 4);
  assert_int_equal(lf->perf_freq, 2630627);
  assert_int_equal(lf->start_time, START_TIME);
  assert_int_equal(lf->buffers_lost, 2);
  assert_string_equal(lf->logger_name, "Test");
  etl_reader_free(r);
  byte_source_close(&io);

  assert_int_equal(read_all(image, 1024 + 4096, &c, NULL, 0), 0);
  assert_int_equal(c.count, 2);
  assert_int_equal(c.ev[0].header_type, ETW_HDR_SYSTEM32);
  assert_int_equal(c.ev[1].header_type, ETW_HDR_EVENT_HEADER32);
  assert_int_equal(c.ev[1].pointer_size, 4);
  assert_int_equal(c.ev[1].user_len, 4);
  /* One second of QPC ticks after the header event. */
  assert_non_null(strstr(c.lines[1], "\t2019-04-17T18:40:01.0000000Z\tEVENT_HEADER32\t"));
}

/* Before Windows 8 the u16 at 0x28 is ProcessorNumber + Alignment (Win7
 * files show 0x0800 for CPU 0); with PROC_INDEX it is a u16 index. */
static void cpu_number_before_and_after_windows8(void **state)
{
  static struct collected c;
  uint8_t *b1 = image + 1024;
  size_t len = build_all_kinds();
  (void)state;
  tb16(b1 + 0x28, 0x0802);
  tb16(b1 + 0x34, 0x0000);
  assert_int_equal(read_all(image, len, &c, NULL, 0), 0);
  assert_int_equal(c.ev[1].cpu, 2);
  tb16(b1 + 0x28, 0x0102);
  tb16(b1 + 0x34, 0x0020);
  assert_int_equal(read_all(image, len, &c, NULL, 0), 0);
  assert_int_equal(c.ev[1].cpu, 258);
}

/* Relogged header buffers have SavedOffset < Offset: the events between
 * them must still be read (§2). */
static void events_end_at_offset_not_saved_offset(void **state)
{
  static struct collected c;
  uint8_t *b1 = image + 1024;
  size_t len = build_all_kinds();
  (void)state;
  tb32(b1 + 0x04, 72 + 40);
  assert_int_equal(read_all(image, len, &c, NULL, 0), 0);
  assert_int_equal(c.count, 8);
}

/* The golden listing of ms-Tx__BondEtwSample.etl: PerfFreq 2630627, header
 * event at 567950583137, StartTime 130901521016330301; the event at
 * 567952334084 is listed at 2015-10-24T09:21:42.2986307Z. */
static void utc_uses_the_listings_arithmetic(void **state)
{
  struct etl_logfile lf;
  struct etl_clock clk;
  char buf[40];
  (void)state;
  memset(&lf, 0, sizeof(lf));
  lf.clock_type = 1;
  lf.perf_freq = 2630627;
  lf.start_time = INT64_C(130901521016330301);
  lf.header_timestamp = UINT64_C(567950583137);
  etl_clock_init(&clk, &lf);
  filetime_format_iso7(etl_clock_filetime(&clk, UINT64_C(567952334084)), buf, sizeof(buf));
  assert_string_equal(buf, "2015-10-24T09:21:42.2986307Z");
  assert_int_equal(etl_clock_filetime(&clk, lf.header_timestamp), lf.start_time);
  lf.clock_type = 2; /* system time: raw ticks are 100 ns */
  etl_clock_init(&clk, &lf);
  assert_int_equal(etl_clock_filetime(&clk, lf.header_timestamp + 10), lf.start_time + 10);
  lf.clock_type = 3; /* CPU cycles at 1000 MHz: 100 cycles = 1 tick */
  lf.cpu_mhz = 1000;
  etl_clock_init(&clk, &lf);
  assert_int_equal(etl_clock_filetime(&clk, UINT64_C(567950583137) + 1000),
                   lf.start_time + 10);
}

/* MESSAGE variants: HeaderType 0x0F under the 0xC0 flags, a component id
 * instead of a GUID, and no timestamp at all (OptionFlags 0). */
static void message_variants(void **state)
{
  static struct collected c;
  uint8_t *b1 = image + 1024, *r;
  uint32_t pos = 72;
  (void)state;
  build_all_kinds();
  tb_buffer(b1, 4096, 0, 1, 0, 0x20, 0);
  r = b1 + pos;
  tb16(r, 8 + 4 + 8 + 2);
  r[2] = 0x0F;
  r[3] = 0xC0;
  tb16(r + 4, 3);
  tb16(r + 6, 0x24); /* component id, thread/process ids */
  tb32(r + 8, 7);
  tb32(r + 12, 1);
  tb32(r + 16, 2);
  memcpy(r + 20, "ok", 2);
  pos += TB_ALIGN8(8 + 4 + 8 + 2);
  r = b1 + pos;
  tb16(r, 8 + 1);
  r[2] = 0x00;
  r[3] = 0x90;
  tb16(r + 4, 4);
  tb16(r + 6, 0);
  r[8] = 'z';
  pos += TB_ALIGN8(8 + 1);
  tb32(b1 + 0x30, pos);
  assert_int_equal(read_all(image, 1024 + 4096, &c, NULL, 0), 0);
  assert_int_equal(c.count, 3);
  assert_int_equal(c.ev[1].header_type, ETW_HDR_MESSAGE);
  assert_int_equal(c.ev[1].component_id, 7);
  assert_int_equal(c.ev[1].tid, 1);
  assert_int_equal(c.ev[1].pid, 2);
  assert_int_equal(c.ev[1].user_len, 2);
  assert_non_null(strstr(c.lines[1], "\tMESSAGE\tcomponent:7\tmsg=3 opt=0x24\t2\tpid=2 tid=1\t"));
  assert_false(c.ev[2].has & ETW_HAS_TIMESTAMP);
  assert_int_equal(c.ev[2].user_len, 1);
  assert_non_null(strstr(c.lines[2], "1\t0\t-\t-\tMESSAGE\t-\tmsg=4 opt=0x0\t1\t\t"));
}

/* An EVENT_HEADER64 at r with the given items (each: type, data bytes) and
 * the user data "ok"; returns its aligned size. */
struct test_item {
  uint16_t type, size;
  const uint8_t *data;
};

static uint32_t event_with_items(uint8_t *r, const struct test_item *items, unsigned n)
{
  uint32_t size = 0x50, at, i;
  for (i = 0; i < n; i++)
    size += 8 + TB_ALIGN8(items[i].size);
  size += 2;
  memset(r, 0, size);
  tb16(r + 0, (uint16_t)size);
  r[2] = 0x13;
  r[3] = 0xC0;
  tb16(r + 4, 0x0001); /* EXTENDED_INFO */
  tb32(r + 8, 7);      /* TID */
  tb32(r + 12, 1676);  /* PID */
  tb64(r + 16, 5010);
  tbguid(r + 0x18, 0x22fb2cd6, 0x0e7b, 0x422b, "\xa0\xc7\x2f\xad\x1f\xd0\xe7\x16");
  tb16(r + 0x28, 1);   /* Kernel-Process ProcessStart */
  r[0x2C] = 4;
  r[0x2D] = 1;
  tb64(r + 0x30, 0x10);
  for (at = 0x50, i = 0; i < n; i++) {
    tb16(r + at, (uint16_t)(8 + TB_ALIGN8(items[i].size)));
    tb16(r + at + 2, items[i].type);
    tb16(r + at + 4, i + 1 < n); /* Linkage */
    tb16(r + at + 6, items[i].size);
    memcpy(r + at + 8, items[i].data, items[i].size);
    at += 8 + TB_ALIGN8(items[i].size);
  }
  memcpy(r + at, "ok", 2);
  return TB_ALIGN8(size);
}

/* The container ID item (EVENT_HEADER_EXT_TYPE_CONTAINER_ID, 0x10): 36
 * ASCII characters without braces or NUL, as in TraceEvent's two-container
 * baseline (netcore.3.1.x64.twocontainers.baseline.txt); a 16-byte binary
 * GUID is read too; anything else is shown as invalid.  The stack-key
 * types 0x11/0x12 have their names (evntcons.h). */
static void container_id_items_are_named_and_shown(void **state)
{
  static const char *const id = "6D9F6D0C-57F8-5F0C-898D-2DC82CC922E0";
  static const char *const tabbed = "6D9F6D0C-57F8-5F0C-898D\t2DC82CC922E0";
  static const uint8_t binary[16] = { 0x81, 0x04, 0x88, 0x9F, 0x85, 0x63, 0x28, 0x55,
                                      0x93, 0xE5, 0x5B, 0x91, 0x83, 0x86, 0x65, 0x2D };
  static const uint8_t key[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  static struct collected c;
  uint8_t guid[16];
  struct test_item items[2];
  uint8_t *b1 = image + 1024;
  uint32_t pos = 72;
  (void)state;
  build_all_kinds();
  tb_buffer(b1, 4096, 0, 1, 0, 0x20, 0);
  tbguid(guid, 0xabcdef01, 0x1, 0x2, d4_a);
  items[0] = (struct test_item){ 1, 16, guid };
  items[1] = (struct test_item){ 0x10, 36, (const uint8_t *)id };
  pos += event_with_items(b1 + pos, items, 2);
  items[0] = (struct test_item){ 0x10, 16, binary };
  items[1] = (struct test_item){ 0x12, 8, key };
  pos += event_with_items(b1 + pos, items, 2);
  items[0] = (struct test_item){ 0x11, 8, key };
  items[1] = (struct test_item){ 0x10, 35, (const uint8_t *)id }; /* one short */
  pos += event_with_items(b1 + pos, items, 2);
  items[0] = (struct test_item){ 0x10, 36, (const uint8_t *)tabbed };
  pos += event_with_items(b1 + pos, items, 1);
  tb32(b1 + 0x30, pos);
  assert_int_equal(read_all(image, 1024 + 4096, &c, NULL, 0), 0);
  assert_int_equal(c.count, 5);

  assert_int_equal(c.container_rc[1], 1);
  assert_string_equal(c.container[1], id);
  assert_non_null(strstr(c.lines[1], "\tpid=1676 tid=7 flags=0x1 ext=RELATED_ACTIVITYID,"
                                     "CONTAINER_ID container="
                                     "6D9F6D0C-57F8-5F0C-898D-2DC82CC922E0\t"));
  assert_int_equal(c.container_rc[2], 1);
  assert_string_equal(c.container[2], "9F880481-6385-5528-93E5-5B918386652D");
  assert_non_null(strstr(c.lines[2], " ext=CONTAINER_ID,STACK_KEY64 container="
                                     "9F880481-6385-5528-93E5-5B918386652D\t"));
  assert_int_equal(c.container_rc[3], -1);
  assert_string_equal(c.container[3], "");
  assert_non_null(strstr(c.lines[3], " ext=STACK_KEY32,CONTAINER_ID container=invalid\t"));
  /* A tab inside the item would split the dump's columns. */
  assert_int_equal(c.container_rc[4], -1);
  assert_non_null(strstr(c.lines[4], " ext=CONTAINER_ID container=invalid\t"));
  assert_int_equal(c.container_rc[0], 0);
  assert_null(strstr(c.lines[0], "CONTAINER_ID"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_header_kind_decodes),
    cmocka_unit_test(lines_follow_the_golden_format),
    cmocka_unit_test(logfile_header_fields),
    cmocka_unit_test(pointer32_trace),
    cmocka_unit_test(cpu_number_before_and_after_windows8),
    cmocka_unit_test(events_end_at_offset_not_saved_offset),
    cmocka_unit_test(utc_uses_the_listings_arithmetic),
    cmocka_unit_test(message_variants),
    cmocka_unit_test(container_id_items_are_named_and_shown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
