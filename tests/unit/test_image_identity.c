/* The image identity encoder against the real merged samples: the fields of
 * one identity group are typed in (from the sample, as noted at each one),
 * the kernel Image event is read from the sample, and the records we encode
 * must equal, byte for byte, the records KernelTraceControl wrote next to it
 * (header included), and match the golden listing's size and CRC-32 (cols 8
 * and 10).  Then a PE the build makes is encoded and every field is checked
 * against the PE itself. */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_source.h"
#include "etw/image/image_identity.h"
#include "etw/image/pe_image.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_GROUP 8
#define MAX_RECORD 1024

/* ---- reading one group and its Image event from a sample ---- */

struct group {
  /* what to look for */
  const char *member_suffix; /* "" = every member */
  uint16_t cpu;
  uint64_t timestamp;
  /* what was found, in file order */
  unsigned n;
  uint8_t raw[MAX_GROUP][MAX_RECORD];
  uint32_t size[MAX_GROUP];
  uint32_t payload_size[MAX_GROUP];
  int have_image;
  struct etw_event image;
  uint8_t image_raw[MAX_RECORD];
  int image_follows_group; /* the Image event came right after the group */
  int same_file;           /* group and Image event are in the same ETL */
};

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int collect(void *ctx, const char *display, struct etl_reader *r)
{
  struct group *g = ctx;
  struct etw_event ev;
  int rc, last_was_identity = 0;
  if (!ends_with(display, g->member_suffix))
    return 0;
  while ((rc = etl_reader_next(r, &ev)) > 0) {
    int match = ev.cpu == g->cpu && ev.timestamp == g->timestamp;
    int identity = (ev.has & ETW_HAS_PROVIDER) && guid_equal(&ev.provider, &image_identity_guid);
    if (match && identity) {
      assert_true(g->n < MAX_GROUP);
      assert_true(ev.raw_size <= MAX_RECORD);
      memcpy(g->raw[g->n], ev.raw, ev.raw_size);
      g->size[g->n] = ev.raw_size;
      g->payload_size[g->n] = ev.user_len;
      g->n++;
    } else if (match && image_identity_is_image_event(&ev)) {
      assert_true(ev.raw_size <= MAX_RECORD);
      memcpy(g->image_raw, ev.raw, ev.raw_size);
      g->image = ev;
      g->image.raw = g->image_raw;
      g->image.user_data = g->image_raw + (ev.user_data - ev.raw);
      g->have_image = 1;
      g->image_follows_group = last_was_identity;
    }
    last_was_identity = match && identity;
  }
  return rc;
}

static void find_group(const char *sample, struct group *g)
{
  char path[1024], err[512];
  test_sample_path(sample, path, sizeof path);
  assert_int_equal(etl_source_foreach(path, collect, g, err, sizeof err), 0);
}

/* ---- building a pe_image by hand from fields typed in from a sample ---- */

static void wset(struct pe_wstr *w, const char *utf8)
{
  size_t n = 0;
  const unsigned char *p = (const unsigned char *)utf8;
  w->s = etwcap_malloc((strlen(utf8) + 1) * sizeof *w->s);
  assert_non_null(w->s);
  while (*p) {
    uint32_t c = *p++;
    if (c >= 0xE0) {
      c = (c & 0x0F) << 12 | (uint32_t)(p[0] & 0x3F) << 6 | (p[1] & 0x3F);
      p += 2;
    } else if (c >= 0xC0) {
      c = (c & 0x1F) << 6 | (p[0] & 0x3F);
      p += 1;
    }
    w->s[n++] = (uint16_t)c;
  }
  w->s[n] = 0;
  w->len = n;
}

static struct pe_debug_entry *add_debug(struct pe_image *pe, uint32_t type, uint32_t tds,
                                        uint16_t major, uint16_t minor)
{
  struct pe_debug_entry *d;
  pe->debug = etwcap_reallocarray(pe->debug, pe->debug_count + 1, sizeof *pe->debug);
  assert_non_null(pe->debug);
  d = &pe->debug[pe->debug_count++];
  memset(d, 0, sizeof *d);
  d->type = type;
  d->time_date_stamp = tds;
  d->major_version = major;
  d->minor_version = minor;
  return d;
}

static void add_rsds(struct pe_image *pe, uint32_t tds, uint16_t major, uint16_t minor,
                     const char *guid, uint32_t age, const char *pdb)
{
  struct pe_debug_entry *d = add_debug(pe, PE_DEBUG_CODEVIEW, tds, major, minor);
  d->cv_format = PE_CV_RSDS;
  assert_int_equal(guid_parse(guid, &d->pdb_guid), 0);
  d->pdb_age = age;
  d->pdb_path = etwcap_strdup(pdb);
  d->pdb_path_len = strlen(pdb);
}

static void set_version(struct pe_image *pe, const char *orig, const char *desc,
                        const char *filever, uint32_t ms, uint32_t ls, uint16_t lang,
                        const char *product, const char *company, const char *prodver)
{
  struct pe_version *v = &pe->version;
  v->present = 1;
  v->has_fixed = 1;
  v->file_version_ms = ms;
  v->file_version_ls = ls;
  v->has_language = 1;
  v->language = lang;
  wset(&v->original_filename, orig);
  wset(&v->file_description, desc);
  wset(&v->file_version, filever);
  wset(&v->product_name, product);
  wset(&v->company_name, company);
  wset(&v->product_version, prodver);
}

/* Encodes img/pe and compares every record with the sample's group, and the
 * payloads with the golden listing's sizes and CRCs. */
static void check_group(const struct group *g, const struct pe_image *pe, unsigned flags,
                        const uint8_t *opcodes, const uint32_t *golden_size,
                        const uint32_t *golden_crc, unsigned count)
{
  struct image_event img;
  struct image_identity_set set;
  unsigned i;
  assert_true(g->have_image);
  if (g->same_file)
    assert_true(g->image_follows_group); /* placement: right before the Image event */
  assert_int_equal(g->n, count);
  assert_int_equal(image_identity_parse_image_event(&g->image, &img), 0);
  assert_int_equal(image_identity_build(&set, &img, pe, flags), 0);
  assert_int_equal(set.count, count);
  for (i = 0; i < count; i++) {
    uint8_t out[MAX_RECORD];
    const struct image_identity_event *e = &set.ev[i];
    int n = image_identity_write_record(e, out, sizeof out);
    assert_int_equal(e->opcode, opcodes[i]);
    assert_int_equal(e->payload_size, golden_size[i]);
    assert_int_equal(g->payload_size[i], golden_size[i]);
    assert_int_equal(crc32(0, e->payload, e->payload_size), golden_crc[i]);
    assert_int_equal(n, (int)g->size[i]);
    assert_memory_equal(out, g->raw[i], g->size[i]);
  }
  image_identity_release(&set);
}

/* diaghub.etl, CPU 2, raw timestamp 13764898511: the group of ntoskrnl.exe's
 * Image DCStart (SYSTEM64, in diaghub.kernel.1.etl).  A deterministic image:
 * FileVersion, Info, DbgID_RSDS, DbgPPDB, DbgDeterm. */
static void diaghub_ntoskrnl_group_is_byte_exact(void **state)
{
  static const uint8_t opcodes[] = { 0x40, 0x00, 0x24, 0x26, 0x28 };
  /* golden: ms-perfview__diaghub-...zip.tsv.gz lines 4-8, cols 8 and 10 */
  static const uint32_t sizes[] = { 340, 50, 45, 20, 12 };
  static const uint32_t crcs[] = { 0xf5af0434, 0xb8f47ee9, 0xbaa5bf49, 0x4a1d1c23, 0xae5bdfe4 };
  struct group g;
  struct pe_image pe;
  struct image_event img;
  (void)state;
  memset(&g, 0, sizeof g);
  g.member_suffix = "";
  g.cpu = 2;
  g.timestamp = 13764898511ull;
  find_group("ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip", &g);

  /* The Image event, from kernel.1: the fields the group repeats. */
  assert_int_equal(image_identity_parse_image_event(&g.image, &img), 0);
  assert_int_equal(img.opcode, IMAGE_EVENT_DCSTART);
  assert_true(img.image_base == 0xfffff8016aa00000ull);
  assert_true(img.image_size == 0x1046000);
  assert_int_equal(img.process_id, 0);
  assert_true(img.has_thread);
  assert_int_equal(img.thread_id, 13392);
  assert_int_equal(img.time_date_stamp, 0x07503e39);

  /* ntkrnlmp.exe as the group describes it (FileVersion strings, RSDS GUID,
   * age and PDB name, the PPDB entry's stamp; REPRO because of DbgDeterm). */
  memset(&pe, 0, sizeof pe);
  pe.time_date_stamp = 0x07503e39;
  pe.size_of_image = 0x1046000;
  add_rsds(&pe, 0x07503e39, 0, 0, "1c9875f7-6c8f-0fbf-3eb9-a9d7c1c27406", 1, "ntkrnlmp.pdb");
  add_debug(&pe, PE_DEBUG_REPRO, 0x07503e39, 0, 0);
  set_version(&pe, "ntkrnlmp.exe", "NT Kernel & System", "10.0.19041.450 (WinBuild.160101.0800)",
              10u << 16 | 0, 19041u << 16 | 450, 1033,
              "Microsoft\xc2\xae Windows\xc2\xae Operating System", "Microsoft Corporation",
              "10.0.19041.450");
  check_group(&g, &pe, IMAGE_IDENTITY_FILE_VERSION, opcodes, sizes, crcs, 5);
  pe_image_release(&pe);
}

/* net.4.5.2.x64.etl, CPU 7, raw timestamp 1942895044: ntoskrnl.exe's Image
 * DCStart (SYSTEM64, pid 3988 tid 3780 in its header): FileVersion, Info,
 * DbgID_RSDS, with header pid 0 (the payload's), tid 3780 and the Image
 * event's KernelTime/UserTime. */
static void net452_ntoskrnl_triple_is_byte_exact(void **state)
{
  static const uint8_t opcodes[] = { 0x40, 0x00, 0x24 };
  /* golden: ms-perfview__net.4.5.2.x64.etl.zip.tsv.gz lines 199-201 */
  static const uint32_t sizes[] = { 340, 50, 45 };
  static const uint32_t crcs[] = { 0x5900ed71, 0xc8a04a12, 0x985c17e9 };
  struct group g;
  struct pe_image pe;
  (void)state;
  memset(&g, 0, sizeof g);
  g.member_suffix = "";
  g.cpu = 7;
  g.timestamp = 1942895044ull;
  g.same_file = 1;
  find_group("ms-perfview__net.4.5.2.x64.etl.zip", &g);
  assert_int_equal(g.image.pid, 3988);
  memset(&pe, 0, sizeof pe);
  pe.time_date_stamp = 0x5010ac4b;
  pe.size_of_image = 0x748000;
  add_rsds(&pe, 0x5010ac4b, 0, 0, "72482100-1c1c-4a03-aed8-c4c71c2e8d1d", 2, "ntkrnlmp.pdb");
  set_version(&pe, "ntkrnlmp.exe", "NT Kernel & System", "6.2.9200.16384 (win8_rtm.120725-1247)",
              6u << 16 | 2, 9200u << 16 | 16384, 1033,
              "Microsoft\xc2\xae Windows\xc2\xae Operating System", "Microsoft Corporation",
              "6.2.9200.16384");
  check_group(&g, &pe, IMAGE_IDENTITY_FILE_VERSION, opcodes, sizes, crcs, 3);
  pe_image_release(&pe);
}

/* net.4.5.2.x64.etl, CPU 7, raw timestamp 1942894963: SysWOW64\ntdll.dll's
 * Image DCStart with a PERFINFO64 header (no thread): header pid 4 (the
 * payload's), tid 0xFFFFFFFF, zero KernelTime/UserTime. */
static void net452_perfinfo_triple_is_byte_exact(void **state)
{
  static const uint8_t opcodes[] = { 0x40, 0x00, 0x24 };
  /* golden: lines 191-193 */
  static const uint32_t sizes[] = { 322, 44, 43 };
  static const uint32_t crcs[] = { 0x1c1adbd7, 0x97d90566, 0xd495142d };
  struct group g;
  struct pe_image pe;
  (void)state;
  memset(&g, 0, sizeof g);
  g.member_suffix = "";
  g.cpu = 7;
  g.timestamp = 1942894963ull;
  g.same_file = 1;
  find_group("ms-perfview__net.4.5.2.x64.etl.zip", &g);
  assert_int_equal(g.image.header_type, ETW_HDR_PERFINFO64);
  memset(&pe, 0, sizeof pe);
  pe.time_date_stamp = 0x5010ae7a;
  pe.size_of_image = 0x157000;
  add_rsds(&pe, 0x5010ae7a, 0, 0, "ec83d8df-5559-46e0-b630-133ebd979266", 2, "wntdll.pdb");
  set_version(&pe, "ntdll.dll", "NT Layer DLL", "6.2.9200.16384 (win8_rtm.120725-1247)",
              6u << 16 | 2, 9200u << 16 | 16384, 1033,
              "Microsoft\xc2\xae Windows\xc2\xae Operating System", "Microsoft Corporation",
              "6.2.9200.16384");
  check_group(&g, &pe, IMAGE_IDENTITY_FILE_VERSION, opcodes, sizes, crcs, 3);
  pe_image_release(&pe);
}

/* net.4.5.2.x64.etl, CPU 7, raw timestamp 1942895281: VMBusHID.sys, whose
 * SizeOfImage 0x5680 is not page-aligned: the Image event says 0x6000, the
 * Info and FileVersion events say 0x5680 (the PE header's). */
static void net452_unaligned_size_of_image_is_the_pe_one(void **state)
{
  static const uint8_t opcodes[] = { 0x40, 0x00, 0x24 };
  /* golden: ms-perfview__net.4.5.2.x64.etl.zip.tsv.gz lines 6160-6162 */
  static const uint32_t sizes[] = { 360, 50, 45 };
  static const uint32_t crcs[] = { 0xdaa29d8c, 0xbf190789, 0x8e7543cd };
  struct group g;
  struct pe_image pe;
  struct image_event img;
  (void)state;
  memset(&g, 0, sizeof g);
  g.member_suffix = "";
  g.cpu = 7;
  g.timestamp = 1942895281ull;
  g.same_file = 1;
  find_group("ms-perfview__net.4.5.2.x64.etl.zip", &g);
  assert_int_equal(image_identity_parse_image_event(&g.image, &img), 0);
  assert_true(img.image_size == 0x6000);
  memset(&pe, 0, sizeof pe);
  pe.time_date_stamp = 0x5010ab16;
  pe.size_of_image = 0x5680;
  add_rsds(&pe, 0x5010ab16, 0, 0, "bd7c8d3d-0144-4151-8834-eefc99e6e055", 1, "vmbushid.pdb");
  set_version(&pe, "vmbushid.sys", "Microsoft VMBus HID Miniport",
              "6.2.9200.16384 (win8_rtm.120725-1247)", 6u << 16 | 2, 9200u << 16 | 16384, 1033,
              "Microsoft\xc2\xae Windows\xc2\xae Operating System", "Microsoft Corporation",
              "6.2.9200.16384");
  check_group(&g, &pe, IMAGE_IDENTITY_FILE_VERSION, opcodes, sizes, crcs, 3);
  pe_image_release(&pe);
}

/* diaghub.etl, CPU 1, raw timestamp 13874882790: the Image Unload of the
 * ReadyToRun System.Text.Encoding.Extensions.dll (pid 2140): Info,
 * DbgID_ILRSDS (IL portable PDB), DbgID_RSDS (.ni.pdb), two DbgPPDB,
 * DbgDeterm; no FileVersion (the path was seen before). */
static void diaghub_readytorun_group_is_byte_exact(void **state)
{
  static const uint8_t opcodes[] = { 0x00, 0x25, 0x24, 0x26, 0x26, 0x28 };
  struct group g;
  struct pe_image pe;
  uint32_t golden_sizes[6], golden_crcs[6];
  unsigned i;
  (void)state;
  memset(&g, 0, sizeof g);
  g.member_suffix = "";
  g.cpu = 1;
  g.timestamp = 13874882790ull;
  find_group("ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip", &g);
  memset(&pe, 0, sizeof pe);
  pe.time_date_stamp = 0xfc179488;
  pe.size_of_image = 0x3000;
  pe.dir[PE_DIR_CLR].rva = 0x2000; /* a .NET image */
  pe.dir[PE_DIR_CLR].size = 0x48;
  add_rsds(&pe, 0xfc179488, 0x100, PE_CODEVIEW_PORTABLE_MINOR,
           "3cdbf693-b14a-45dd-a2be-b349156a63a2", 1, "System.Text.Encoding.Extensions.pdb");
  add_rsds(&pe, 0xfc179488, 0x100, 0, "6cb54e22-8536-4ca7-b8c4-f68b63c79507", 1,
           "System.Text.Encoding.Extensions.ni.pdb");
  add_debug(&pe, PE_DEBUG_REPRO, 0xfc179488, 0, 0);
  /* The sizes and CRCs of the sample's own records (read above): the
   * comparison below is byte for byte anyway. */
  for (i = 0; i < 6 && i < g.n; i++) {
    golden_sizes[i] = g.payload_size[i];
    golden_crcs[i] = (uint32_t)crc32(0, g.raw[i] + 48, g.payload_size[i]);
  }
  check_group(&g, &pe, 0, opcodes, golden_sizes, golden_crcs, 6);
  pe_image_release(&pe);
}

/* ---- the header rules over every group of both samples ---- */

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
  return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}


struct image_key {
  uint16_t cpu;
  uint64_t timestamp;
  struct image_event img;
};

struct sweep {
  /* diaghub: the Image events of kernel.1, sorted by (cpu, timestamp) */
  struct image_key *images;
  size_t image_count, image_cap;
  int pass; /* 1: collect images (kernel.1), 2: check groups (diaghub.etl) */
  /* net.4.5.2: the identity records pending before the next event, per CPU */
  unsigned pending[64];
  uint8_t pending_hdr[64][MAX_GROUP][48 + 24];
  /* results */
  unsigned long events, groups, mismatches, orphans, unmatched;
};

static int version_ok(const uint8_t *r)
{
  static const struct {
    uint8_t opcode;
    uint16_t version;
  } table[] = { { 0x00, 2 }, { 0x20, 2 }, { 0x24, 2 }, { 0x25, 2 },
                { 0x26, 2 }, { 0x28, 1 }, { 0x40, 0 } };
  size_t i;
  for (i = 0; i < sizeof table / sizeof table[0]; i++)
    if (r[4] == table[i].opcode)
      return (r[6] | r[7] << 8) == table[i].version && r[5] == 0;
  return 0;
}

/* 1 when the classic header r is what image_identity_build writes for img
 * (image_identity_write_record: marker, opcode/version, tid, pid, timestamp,
 * GUID, KernelTime/UserTime), and the payload starts with img's fields.
 * r holds at least the header and the first 24 payload bytes (or the whole
 * record when shorter). */
static int header_matches(const uint8_t *r, const struct image_event *img)
{
  struct etw_guid g = guid_from_bytes(r + 24);
  uint32_t tid = img->has_thread ? img->thread_id : 0xFFFFFFFFu;
  const uint8_t *pl = r + 48;
  uint32_t size = (uint32_t)(r[0] | r[1] << 8);
  int payload_ok;
  /* The payload's ImageBase and ProcessId are the Image event's; its
   * ImageSize is the PE's SizeOfImage, which the event rounds up to pages. */
  if (r[4] == IMAGE_ID_FILE_VERSION)
    payload_ok = size >= 48 + 8 && ((le32(pl) + 0xFFFu) & ~0xFFFu) == img->image_size;
  else if (r[4] == IMAGE_ID_INFO)
    payload_ok = size >= 48 + 24 && le64(pl) == img->image_base &&
                 ((le64(pl + 8) + 0xFFFu) & ~(uint64_t)0xFFF) == img->image_size &&
                 le32(pl + 16) == img->process_id;
  else
    payload_ok = size >= 48 + 12 && le64(pl) == img->image_base && le32(pl + 8) == img->process_id;
  return payload_ok && r[2] == 0x14 && r[3] == 0xC0 && version_ok(r) &&
         guid_equal(&g, &image_identity_guid) && le32(r + 8) == tid &&
         le32(r + 12) == img->process_id && le64(r + 16) == img->timestamp &&
         le64(r + 40) == img->processor_time;
}

static int key_cmp(const void *a, const void *b)
{
  const struct image_key *x = a, *y = b;
  if (x->cpu != y->cpu)
    return x->cpu < y->cpu ? -1 : 1;
  if (x->timestamp != y->timestamp)
    return x->timestamp < y->timestamp ? -1 : 1;
  return 0;
}

static int sweep_diaghub(void *ctx, const char *display, struct etl_reader *r)
{
  struct sweep *s = ctx;
  struct etw_event ev;
  int rc;
  if (s->pass == 1 && !ends_with(display, "diaghub.kernel.1.etl"))
    return 0;
  if (s->pass == 2 && !ends_with(display, "/diaghub.etl"))
    return 0;
  while ((rc = etl_reader_next(r, &ev)) > 0) {
    if (s->pass == 1 && image_identity_is_image_event(&ev)) {
      struct image_key *k;
      if (s->image_count == s->image_cap) {
        s->image_cap = s->image_cap ? 2 * s->image_cap : 1024;
        s->images = realloc(s->images, s->image_cap * sizeof *s->images);
        assert_non_null(s->images);
      }
      k = &s->images[s->image_count++];
      k->cpu = ev.cpu;
      k->timestamp = ev.timestamp;
      assert_int_equal(image_identity_parse_image_event(&ev, &k->img), 0);
      k->img.file_name = NULL; /* points into the reader's buffer */
    } else if (s->pass == 2 && (ev.has & ETW_HAS_PROVIDER) &&
               guid_equal(&ev.provider, &image_identity_guid)) {
      struct image_key key, *found;
      key.cpu = ev.cpu;
      key.timestamp = ev.timestamp;
      found = bsearch(&key, s->images, s->image_count, sizeof key, key_cmp);
      s->events++;
      if (!found)
        s->unmatched++;
      else if (!header_matches(ev.raw, &found->img))
        s->mismatches++;
    }
  }
  return rc;
}

static void sweep_flush_cpu(struct sweep *s, unsigned cpu, const struct etw_event *next)
{
  unsigned i;
  struct image_event img;
  if (!s->pending[cpu])
    return;
  if (!next || !image_identity_is_image_event(next) ||
      image_identity_parse_image_event(next, &img) != 0) {
    s->orphans++;
  } else {
    s->groups++;
    for (i = 0; i < s->pending[cpu]; i++)
      if (!header_matches(s->pending_hdr[cpu][i], &img))
        s->mismatches++;
  }
  s->pending[cpu] = 0;
}

static int sweep_net452(void *ctx, const char *display, struct etl_reader *r)
{
  struct sweep *s = ctx;
  struct etw_event ev;
  unsigned cpu;
  int rc;
  (void)display;
  while ((rc = etl_reader_next(r, &ev)) > 0) {
    assert_true(ev.cpu < 64);
    if ((ev.has & ETW_HAS_PROVIDER) && guid_equal(&ev.provider, &image_identity_guid)) {
      assert_true(s->pending[ev.cpu] < MAX_GROUP);
      assert_true(ev.raw_size >= 48 + 12);
      memcpy(s->pending_hdr[ev.cpu][s->pending[ev.cpu]++], ev.raw,
             ev.raw_size < 48 + 24 ? ev.raw_size : 48 + 24);
      s->events++;
    } else {
      sweep_flush_cpu(s, ev.cpu, &ev);
    }
  }
  for (cpu = 0; cpu < 64; cpu++)
    sweep_flush_cpu(s, cpu, NULL);
  return rc;
}

/* Every identity record of net.4.5.2 sits right before an Image event of
 * its CPU (file order within a CPU is time order), and every one of both
 * samples has the header image_identity_build writes for that event:
 * pid/tid/timestamp/KernelTime-UserTime, marker, GUID, opcode/version. */
static void every_sample_group_has_the_derived_header(void **state)
{
  char path[1024], err[512];
  struct sweep *s;
  (void)state;
  test_sample_path("ms-perfview__net.4.5.2.x64.etl.zip", path, sizeof path); /* may skip */
  s = calloc(1, sizeof *s);
  assert_non_null(s);
  assert_int_equal(etl_source_foreach(path, sweep_net452, s, err, sizeof err), 0);
  assert_int_equal(s->events, 7885); /* golden SUMMARY: b3e675d7-...=7885 */
  assert_int_equal(s->orphans, 0);
  assert_int_equal(s->mismatches, 0);
  assert_int_equal(s->groups, 3590);

  memset(s, 0, sizeof *s);
  test_sample_path("ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip", path,
                   sizeof path);
  s->pass = 1;
  assert_int_equal(etl_source_foreach(path, sweep_diaghub, s, err, sizeof err), 0);
  /* golden: kernel:Image 15349 minus KernelImageBase and HypercallPage,
   * plus the 87 loads (hook 0x030A, kernel:Process). */
  assert_int_equal(s->image_count, 15349 - 2 + 87);
  qsort(s->images, s->image_count, sizeof *s->images, key_cmp);
  s->pass = 2;
  assert_int_equal(etl_source_foreach(path, sweep_diaghub, s, err, sizeof err), 0);
  assert_int_equal(s->events, 62341); /* golden SUMMARY */
  assert_int_equal(s->mismatches, 0);
  assert_int_equal(s->unmatched, 0);
  free(s->images);
  free(s);
}

/* ---- FileVersion: once per Info key, in time order ---- */

struct info_rec {
  uint64_t timestamp;
  uint16_t cpu;
  int has_file_version;
  uint8_t *key;
  int key_len;
};

struct info_sweep {
  const char *member_suffix;
  struct info_rec *recs;
  size_t count, cap;
  uint8_t last_opcode[64];
  uint64_t last_ts[64];
};

static int collect_infos(void *ctx, const char *display, struct etl_reader *r)
{
  struct info_sweep *s = ctx;
  struct etw_event ev;
  int rc;
  if (!ends_with(display, s->member_suffix))
    return 0;
  while ((rc = etl_reader_next(r, &ev)) > 0) {
    if (!(ev.has & ETW_HAS_PROVIDER) || !guid_equal(&ev.provider, &image_identity_guid))
      continue;
    assert_true(ev.cpu < 64);
    if (ev.opcode == IMAGE_ID_INFO) {
      struct info_rec *rec;
      uint8_t key[2048];
      if (s->count == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->recs = realloc(s->recs, s->cap * sizeof *s->recs);
        assert_non_null(s->recs);
      }
      rec = &s->recs[s->count++];
      rec->timestamp = ev.timestamp;
      rec->cpu = ev.cpu;
      rec->has_file_version = s->last_opcode[ev.cpu] == IMAGE_ID_FILE_VERSION &&
                              s->last_ts[ev.cpu] == ev.timestamp;
      rec->key_len = image_identity_info_key(ev.user_data, ev.user_len, 8, key, sizeof key);
      assert_true(rec->key_len > 0);
      rec->key = malloc((size_t)rec->key_len);
      assert_non_null(rec->key);
      memcpy(rec->key, key, (size_t)rec->key_len);
    }
    s->last_opcode[ev.cpu] = ev.opcode;
    s->last_ts[ev.cpu] = ev.timestamp;
  }
  return rc;
}

static int rec_cmp(const void *a, const void *b)
{
  const struct info_rec *x = a, *y = b;
  if (x->timestamp != y->timestamp)
    return x->timestamp < y->timestamp ? -1 : 1;
  return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static void file_version_once_per_key(const char *sample, const char *member_suffix,
                                      unsigned long first_with, unsigned long first_without)
{
  char path[1024], err[512];
  struct info_sweep s;
  struct image_identity_seen *seen;
  unsigned long with = 0, without = 0, repeats = 0;
  size_t i;
  memset(&s, 0, sizeof s);
  s.member_suffix = member_suffix;
  test_sample_path(sample, path, sizeof path);
  assert_int_equal(etl_source_foreach(path, collect_infos, &s, err, sizeof err), 0);
  qsort(s.recs, s.count, sizeof *s.recs, rec_cmp);
  assert_int_equal(image_identity_seen_new(&seen), 0);
  for (i = 0; i < s.count; i++) {
    int is_new = image_identity_seen_add(seen, s.recs[i].key, (size_t)s.recs[i].key_len);
    assert_true(is_new >= 0);
    if (is_new && s.recs[i].has_file_version)
      with++;
    else if (is_new)
      without++;
    else if (s.recs[i].has_file_version)
      repeats++;
    free(s.recs[i].key);
  }
  assert_int_equal(repeats, 0);
  assert_int_equal(with, first_with);
  assert_int_equal(without, first_without);
  image_identity_seen_free(seen);
  free(s.recs);
}

/* The FileVersion rule over every group: never on a key seen before; on
 * every new key of net.4.5.2; on every new key of diaghub but 24 (images
 * named after their path: no version resource). */
static void file_version_is_written_once_per_image_key(void **state)
{
  (void)state;
  file_version_once_per_key("ms-perfview__net.4.5.2.x64.etl.zip", "", 705, 0);
  file_version_once_per_key("ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip",
                            "/diaghub.etl", 2605, 24);
}

/* ---- a PE the build makes ---- */

static int read_pe(const char *path, struct pe_image *pe)
{
  struct byte_source src;
  int rc;
  assert_int_equal(byte_source_open_file(&src, path), 0);
  rc = pe_image_read(pe, &src, PE_READ_ALL);
  byte_source_close(&src);
  return rc;
}

/* Reads a UTF-16LE + NUL string at *off as ASCII into buf; advances *off. */
static const char *wtext(const uint8_t *p, uint32_t len, uint32_t *off, char *buf, size_t cap)
{
  size_t n = 0;
  while (*off + 2 <= len) {
    uint16_t c = (uint16_t)(p[*off] | p[*off + 1] << 8);
    *off += 2;
    if (!c)
      break;
    assert_true(c < 0x80);
    if (n + 1 < cap)
      buf[n++] = (char)c;
  }
  buf[n] = '\0';
  return buf;
}

/* A synthetic Image DCStart event of a 64-bit process for `file_name`. */
static void image_event_for(struct image_event *img, uint16_t *name16, const char *file_name,
                            uint64_t base, uint64_t size)
{
  size_t i;
  memset(img, 0, sizeof *img);
  img->opcode = IMAGE_EVENT_DCSTART;
  img->pointer_size = 8;
  img->cpu = 3;
  img->timestamp = 123456789;
  img->has_thread = 1;
  img->thread_id = 5678;
  img->processor_time = 0x0000000500000007ull;
  img->image_base = base;
  img->image_size = size;
  img->process_id = 1234;
  for (i = 0; file_name[i]; i++) {
    uint8_t *b = (uint8_t *)&name16[i];
    b[0] = (uint8_t)file_name[i];
    b[1] = 0;
  }
  img->file_name = (const uint8_t *)name16;
  img->file_name_bytes = 2 * i;
}

static void fixture_identity_matches_the_pe(void **state)
{
  char path[1024], buf[256];
  struct pe_image pe;
  struct image_event img;
  struct image_identity_set set;
  uint16_t name16[64];
  const struct pe_debug_entry *d;
  const uint8_t *p;
  uint32_t off;
  uint8_t g[16];
  (void)state;
  assert_int_equal(read_pe(test_pe_fixture("pe64_version.dll", path, sizeof path), &pe), 0);
  d = pe_image_first_rsds(&pe);
  assert_non_null(d);
  image_event_for(&img, name16, "\\Device\\HarddiskVolume2\\x\\pe64_version.dll",
                  0x7ff612340000ull, pe.size_of_image);
  assert_int_equal(image_identity_build(&set, &img, &pe, IMAGE_IDENTITY_FILE_VERSION), 0);
  /* FileVersion, Info, DbgID_RSDS, and a DbgPPDB: ld writes 0 in the
   * CodeView entry's TimeDateStamp, which differs from the header's (the
   * inferred DbgPPDB rule, see image_identity.c). */
  assert_int_equal(set.count, 4);

  /* FileVersion: ImageSize, TimeDateStamp, then the .rc strings. */
  assert_int_equal(set.ev[0].opcode, IMAGE_ID_FILE_VERSION);
  assert_int_equal(set.ev[0].version, 0);
  p = set.ev[0].payload;
  assert_int_equal(le32(p), pe.size_of_image);
  assert_int_equal(le32(p + 4), 1400000000u); /* SOURCE_DATE_EPOCH in pe_fixtures.cmake */
  off = 8;
  assert_string_equal(wtext(p, set.ev[0].payload_size, &off, buf, sizeof buf),
                      "etwcap_fixture_orig.dll");
  assert_string_equal(wtext(p, set.ev[0].payload_size, &off, buf, sizeof buf),
                      "PE fixture with a version resource");
  assert_string_equal(wtext(p, set.ev[0].payload_size, &off, buf, sizeof buf), "1.2.3.4 (fixture)");
  assert_string_equal(wtext(p, set.ev[0].payload_size, &off, buf, sizeof buf), "1.2.3.4");
  assert_string_equal(wtext(p, set.ev[0].payload_size, &off, buf, sizeof buf), "1031"); /* 0x0407 */
  assert_string_equal(wtext(p, set.ev[0].payload_size, &off, buf, sizeof buf), "etwcap");
  assert_string_equal(wtext(p, set.ev[0].payload_size, &off, buf, sizeof buf), "etwcap tests");
  assert_string_equal(wtext(p, set.ev[0].payload_size, &off, buf, sizeof buf), "5.6.7.8-fixture");
  assert_string_equal(wtext(p, set.ev[0].payload_size, &off, buf, sizeof buf), "");
  assert_string_equal(wtext(p, set.ev[0].payload_size, &off, buf, sizeof buf), "");
  assert_int_equal(off, set.ev[0].payload_size);

  /* Info: base, size, pid, TimeDateStamp, OriginalFilename. */
  assert_int_equal(set.ev[1].opcode, IMAGE_ID_INFO);
  assert_int_equal(set.ev[1].version, 2);
  p = set.ev[1].payload;
  assert_true(le64(p) == 0x7ff612340000ull);
  assert_true(le64(p + 8) == pe.size_of_image);
  assert_int_equal(le32(p + 16), 1234);
  assert_int_equal(le32(p + 20), 1400000000u);
  off = 24;
  assert_string_equal(wtext(p, set.ev[1].payload_size, &off, buf, sizeof buf),
                      "etwcap_fixture_orig.dll");
  assert_int_equal(off, set.ev[1].payload_size);

  /* DbgID_RSDS: base, pid, GUID, age, the (empty, --build-id) PDB path. */
  assert_int_equal(set.ev[2].opcode, IMAGE_ID_DBG_RSDS);
  p = set.ev[2].payload;
  assert_int_equal(set.ev[2].payload_size, 8 + 4 + 16 + 4 + 1);
  assert_true(le64(p) == 0x7ff612340000ull);
  assert_int_equal(le32(p + 8), 1234);
  guid_to_bytes(&d->pdb_guid, g);
  assert_memory_equal(p + 12, g, 16);
  assert_int_equal(le32(p + 28), d->pdb_age);
  assert_int_equal(p[32], 0);

  /* DbgPPDB: base, pid, the entry's TimeDateStamp and versions. */
  assert_int_equal(set.ev[3].opcode, IMAGE_ID_DBG_PPDB);
  assert_int_equal(set.ev[3].payload_size, 20);
  p = set.ev[3].payload;
  assert_true(le64(p) == 0x7ff612340000ull);
  assert_int_equal(le32(p + 8), 1234);
  assert_int_equal(le32(p + 12), d->time_date_stamp);
  assert_int_equal(p[16] | p[17] << 8, d->major_version);
  assert_int_equal(p[18] | p[19] << 8, d->minor_version);

  /* The header fields of every record. */
  {
    size_t i;
    for (i = 0; i < set.count; i++) {
      uint8_t out[MAX_RECORD];
      struct etw_guid gg;
      int n = image_identity_write_record(&set.ev[i], out, sizeof out);
      assert_int_equal(n, 48 + (int)set.ev[i].payload_size);
      assert_int_equal(out[0] | out[1] << 8, n);
      assert_int_equal(out[2], 0x14);
      assert_int_equal(out[3], 0xC0);
      assert_int_equal(out[4], set.ev[i].opcode);
      assert_int_equal(out[5], 0);
      assert_int_equal(le32(out + 8), 5678);
      assert_int_equal(le32(out + 12), 1234);
      assert_true(le64(out + 16) == 123456789);
      gg = guid_from_bytes(out + 24);
      guid_format(&gg, (char *)buf);
      assert_string_equal(buf, IMAGE_IDENTITY_GUID_TEXT);
      assert_true(le64(out + 40) == 0x0000000500000007ull);
      assert_memory_equal(out + 48, set.ev[i].payload, set.ev[i].payload_size);
      assert_int_equal(set.ev[i].cpu, 3);
    }
  }
  image_identity_release(&set);

  /* Without the flag (a path already seen), no FileVersion. */
  assert_int_equal(image_identity_build(&set, &img, &pe, 0), 0);
  assert_int_equal(set.count, 3);
  assert_int_equal(set.ev[0].opcode, IMAGE_ID_INFO);
  image_identity_release(&set);
  pe_image_release(&pe);

  /* A named PDB: the path as stored in the PE. */
  assert_int_equal(read_pe(test_pe_fixture("pe64_pdb.dll", path, sizeof path), &pe), 0);
  image_event_for(&img, name16, "C:\\x\\pe64_pdb.dll", 0x180000000ull, pe.size_of_image);
  assert_int_equal(image_identity_build(&set, &img, &pe, IMAGE_IDENTITY_FILE_VERSION), 0);
  assert_int_equal(set.count, 3); /* no version resource: no FileVersion */
  off = 24;
  assert_string_equal(wtext(set.ev[0].payload, set.ev[0].payload_size, &off, buf, sizeof buf),
                      "pe64_pdb.dll"); /* the file name of the path */
  assert_int_equal(set.ev[1].payload_size, 32 + sizeof "etwcap_fixture64.pdb");
  assert_string_equal((const char *)set.ev[1].payload + 32, "etwcap_fixture64.pdb");
  image_identity_release(&set);
  pe_image_release(&pe);
}

static void build_file_reads_the_pe_or_reports_why_not(void **state)
{
  char path[1024];
  struct image_event img;
  struct image_identity_set set;
  struct image_identity_seen *seen;
  uint16_t name16[64];
  (void)state;
  image_event_for(&img, name16, "C:\\x\\pe64_version.dll", 0x180000000ull, 0x20000);
  assert_int_equal(image_identity_seen_new(&seen), 0);
  assert_int_equal(
      image_identity_build_file(&set, &img, test_pe_fixture("pe64_version.dll", path, sizeof path),
                                seen),
      0);
  assert_int_equal(set.count, 4); /* FileVersion, Info, DbgID_RSDS, DbgPPDB */
  assert_int_equal(set.ev[0].opcode, IMAGE_ID_FILE_VERSION);
  image_identity_release(&set);
  assert_int_equal(
      image_identity_build_file(&set, &img, test_pe_fixture("pe64_version.dll", path, sizeof path),
                                seen),
      0);
  assert_int_equal(set.count, 3); /* the key is known now */
  image_identity_release(&set);
  assert_int_equal(image_identity_build_file(&set, &img,
                                             test_pe_fixture("no-such.dll", path, sizeof path), seen),
                   ETWCAP_E_NOENT);
  assert_int_equal(set.count, 0);
  /* Not a PE: the objdump listing next to it. */
  assert_int_equal(image_identity_build_file(
                       &set, &img, test_pe_fixture("pe64_version.dll.objdump.txt", path, sizeof path),
                       NULL),
                   ETWCAP_E_FORMAT);
  assert_int_equal(set.count, 0);
  image_identity_seen_free(seen);
}

static void put16le(uint8_t *p, uint16_t v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static void put32le(uint8_t *p, uint32_t v)
{
  put16le(p, (uint16_t)v);
  put16le(p + 2, (uint16_t)(v >> 16));
}

static void put_debug_entry(uint8_t *p, uint32_t tds, uint16_t major, uint16_t minor,
                            uint32_t type, uint32_t size, uint32_t rva, uint32_t ptr)
{
  put32le(p + 4, tds);
  put16le(p + 8, major);
  put16le(p + 10, minor);
  put32le(p + 12, type);
  put32le(p + 16, size);
  put32le(p + 20, rva);
  put32le(p + 24, ptr);
}

static uint32_t put_rsds(uint8_t *p, const char *guid, uint32_t age, const char *pdb)
{
  struct etw_guid g;
  assert_int_equal(guid_parse(guid, &g), 0);
  memcpy(p, "RSDS", 4);
  guid_to_bytes(&g, p + 4);
  put32le(p + 20, age);
  strcpy((char *)p + 24, pdb);
  return (uint32_t)(24 + strlen(pdb) + 1);
}

/* A ReadyToRun-like PE32+ assembled by hand from the PE/COFF layout: a CLR
 * header, a debug directory with a portable-PDB CodeView entry (found
 * through PointerToRawData), a native .ni.pdb CodeView entry (found through
 * AddressOfRawData only), a PDBCHECKSUM and a REPRO entry.  Read back and
 * encoded, it gives the pattern of the diaghub R2R groups. */
static void handmade_readytorun_pe_gives_the_r2r_pattern(void **state)
{
  static const uint8_t opcodes[] = { 0x00, 0x25, 0x24, 0x26, 0x26, 0x28 };
  uint8_t f[0x600];
  const uint32_t opt = 0x58, sec = opt + 0xF0, text = 0x200;
  uint32_t n1, n2;
  struct byte_source src;
  struct pe_image pe;
  struct image_event img;
  struct image_identity_set set;
  uint16_t name16[64];
  size_t i;
  (void)state;
  memset(f, 0, sizeof f);
  f[0] = 'M';
  f[1] = 'Z';
  put32le(f + 0x3C, 0x40);
  memcpy(f + 0x40, "PE\0\0", 4);
  put16le(f + 0x44, PE_MACHINE_AMD64);
  put16le(f + 0x46, 1);            /* NumberOfSections */
  put32le(f + 0x48, 0xfc179488);   /* TimeDateStamp (a hash: deterministic) */
  put16le(f + 0x54, 0xF0);         /* SizeOfOptionalHeader */
  put16le(f + 0x56, 0x2022);
  put16le(f + opt, 0x20B);
  put32le(f + opt + 24, 0x80000000u); /* ImageBase 0x180000000 */
  put32le(f + opt + 28, 0x1);
  put32le(f + opt + 32, 0x1000);   /* SectionAlignment */
  put32le(f + opt + 36, 0x200);    /* FileAlignment */
  put32le(f + opt + 56, 0x3000);   /* SizeOfImage */
  put32le(f + opt + 60, 0x200);    /* SizeOfHeaders */
  put32le(f + opt + 108, 16);      /* NumberOfRvaAndSizes */
  put32le(f + opt + 112 + 8 * 6, 0x1000); /* debug directory: 4 entries */
  put32le(f + opt + 112 + 8 * 6 + 4, 4 * 28);
  put32le(f + opt + 112 + 8 * 14, 0x1200); /* CLR header */
  put32le(f + opt + 112 + 8 * 14 + 4, 0x48);
  memcpy(f + sec, ".text", 5);
  put32le(f + sec + 8, 0x1000);    /* VirtualSize */
  put32le(f + sec + 12, 0x1000);   /* VirtualAddress */
  put32le(f + sec + 16, 0x400);    /* SizeOfRawData */
  put32le(f + sec + 20, text);     /* PointerToRawData */
  n1 = put_rsds(f + 0x300, "3cdbf693-b14a-45dd-a2be-b349156a63a2", 1, "R2R.pdb");
  n2 = put_rsds(f + 0x380, "6cb54e22-8536-4ca7-b8c4-f68b63c79507", 1, "R2R.ni.pdb");
  put_debug_entry(f + text, 0xfc179488, 0x100, PE_CODEVIEW_PORTABLE_MINOR, PE_DEBUG_CODEVIEW, n1,
                  0x1100, 0x300);
  put_debug_entry(f + text + 28, 0xfc179488, 0x100, 0, PE_DEBUG_CODEVIEW, n2, 0x1180, 0);
  put_debug_entry(f + text + 56, 0, 1, 0, PE_DEBUG_PDBCHECKSUM, 0x24, 0x1280, 0x480);
  put_debug_entry(f + text + 84, 0, 0, 0, PE_DEBUG_REPRO, 0, 0, 0);

  assert_int_equal(byte_source_open_memory(&src, f, sizeof f), 0);
  assert_int_equal(pe_image_read(&pe, &src, PE_READ_ALL), 0);
  byte_source_close(&src);
  assert_true(pe.is_pe32plus);
  assert_true(pe.image_base == 0x180000000ull);
  assert_true(pe_image_is_managed(&pe));
  assert_true(pe_image_is_deterministic(&pe));
  assert_int_equal(pe.debug_count, 4);
  assert_true(pe_debug_is_portable_pdb(&pe.debug[0]));
  assert_false(pe_debug_is_portable_pdb(&pe.debug[1]));
  assert_string_equal(pe.debug[0].pdb_path, "R2R.pdb");
  assert_string_equal(pe.debug[1].pdb_path, "R2R.ni.pdb"); /* through the RVA */
  assert_int_equal(pe.debug[2].type, PE_DEBUG_PDBCHECKSUM);
  assert_int_equal(pe.debug[2].cv_format, PE_CV_NONE);
  assert_ptr_equal(pe_image_first_rsds(&pe), &pe.debug[0]);
  assert_false(pe.version.present);

  image_event_for(&img, name16, "C:\\app\\R2R.dll", 0x7ffd2a590000ull, 0x3000);
  assert_int_equal(image_identity_build(&set, &img, &pe, IMAGE_IDENTITY_FILE_VERSION), 0);
  assert_int_equal(set.count, 6); /* no version resource: no FileVersion */
  for (i = 0; i < 6; i++)
    assert_int_equal(set.ev[i].opcode, opcodes[i]);
  assert_int_equal(le32(set.ev[0].payload + 20), 0); /* deterministic: no time stamp */
  assert_string_equal((const char *)set.ev[1].payload + 32, "R2R.pdb");
  assert_string_equal((const char *)set.ev[2].payload + 32, "R2R.ni.pdb");
  assert_int_equal(le32(set.ev[3].payload + 12), 0xfc179488);
  assert_int_equal(set.ev[3].payload[18] | set.ev[3].payload[19] << 8, 0x504D);
  assert_int_equal(set.ev[4].payload[18] | set.ev[4].payload[19] << 8, 0);
  image_identity_release(&set);
  pe_image_release(&pe);
}

static void image_without_debug_info_gets_none(void **state)
{
  const char *dir = getenv("ETWCAP_WINE_PE_DLLS");
  char path[1024];
  struct pe_image pe;
  struct image_event img;
  struct image_identity_set set;
  uint16_t name16[64];
  (void)state;
  if (!dir || !*dir) {
    print_message("Wine's PE DLLs are not here: skipping\n");
    skip();
    return;
  }
  snprintf(path, sizeof path, "%s/kernel32.dll", dir);
  assert_int_equal(read_pe(path, &pe), 0);
  assert_null(pe_image_first_rsds(&pe));
  image_event_for(&img, name16, "C:\\windows\\system32\\kernel32.dll", 0x7ffb00000000ull,
                  pe.size_of_image);
  assert_int_equal(image_identity_build(&set, &img, &pe, 0), 0);
  assert_int_equal(set.count, 2);
  assert_int_equal(set.ev[0].opcode, IMAGE_ID_INFO);
  assert_int_equal(le32(set.ev[0].payload + 20), pe.time_date_stamp);
  assert_int_equal(set.ev[1].opcode, IMAGE_ID_NONE);
  assert_int_equal(set.ev[1].version, 2);
  assert_int_equal(set.ev[1].payload_size, 12);
  assert_true(le64(set.ev[1].payload) == 0x7ffb00000000ull);
  assert_int_equal(le32(set.ev[1].payload + 8), 1234);
  image_identity_release(&set);
  pe_image_release(&pe);
}

/* 32-bit traces: the same records with 4-byte pointers and FULL_HEADER32
 * (bytes assembled by hand from the layout in image_identity.c). */
static void thirty_two_bit_traces_use_four_byte_pointers(void **state)
{
  static const uint8_t expected_info[] = {
    0x00, 0x00, 0x40, 0x77,  /* ImageBase 0x77400000 */
    0x00, 0x30, 0x01, 0x00,  /* ImageSize 0x13000 */
    0x2a, 0x00, 0x00, 0x00,  /* pid 42 */
    0x44, 0x33, 0x22, 0x11,  /* TimeDateStamp */
    'a', 0, '.', 0, 'd', 0, 'l', 0, 'l', 0, 0, 0,
  };
  struct pe_image pe;
  struct image_event img;
  struct image_identity_set set;
  uint16_t name16[8] = { 'a', '.', 'd', 'l', 'l' };
  (void)state;
  memset(&pe, 0, sizeof pe);
  pe.time_date_stamp = 0x11223344;
  pe.size_of_image = 0x13000;
  memset(&img, 0, sizeof img);
  img.pointer_size = 4;
  img.image_base = 0x77400000;
  img.image_size = 0x13000;
  img.process_id = 42;
  img.file_name = (const uint8_t *)name16;
  img.file_name_bytes = 10;
  /* name16 holds host-order units: this test runs on little-endian hosts. */
  assert_int_equal(image_identity_build(&set, &img, &pe, 0), 0);
  assert_int_equal(set.count, 2);
  assert_int_equal(set.ev[0].header_type, ETW_HDR_FULL32);
  assert_int_equal(set.ev[0].payload_size, sizeof expected_info);
  assert_memory_equal(set.ev[0].payload, expected_info, sizeof expected_info);
  assert_int_equal(set.ev[1].payload_size, 8);
  assert_int_equal(set.ev[0].thread_id, 0xFFFFFFFFu); /* no thread in the image event */
  image_identity_release(&set);
}

static void only_image_events_are_accepted(void **state)
{
  struct etw_event ev;
  struct image_event img;
  uint8_t payload[64] = { 0 };
  (void)state;
  memset(&ev, 0, sizeof ev);
  ev.is_kernel = 1;
  ev.group = IMAGE_EVENT_GROUP;
  ev.opcode = 0x21; /* KernelImageBase */
  ev.version = 3;
  ev.pointer_size = 8;
  ev.user_data = payload;
  ev.user_len = sizeof payload;
  assert_false(image_identity_is_image_event(&ev));
  assert_int_equal(image_identity_parse_image_event(&ev, &img), ETWCAP_E_UNSUPPORTED);
  ev.opcode = IMAGE_EVENT_LOAD;
  assert_true(image_identity_is_image_event(&ev));
  assert_int_equal(image_identity_parse_image_event(&ev, &img), 0);
  assert_int_equal(img.file_name_bytes, 0);
  assert_int_equal(img.thread_id, 0xFFFFFFFFu);
  ev.user_len = 55; /* shorter than the fixed part */
  assert_int_equal(image_identity_parse_image_event(&ev, &img), ETWCAP_E_CORRUPT);
  ev.user_len = sizeof payload;
  ev.version = 1;
  assert_int_equal(image_identity_parse_image_event(&ev, &img), ETWCAP_E_UNSUPPORTED);
  ev.version = 3;
  ev.group = 0x03; /* Process group: hook 0x030A is the image load */
  assert_true(image_identity_is_image_event(&ev));
  ev.opcode = 1; /* 0x0301 Process Start */
  assert_false(image_identity_is_image_event(&ev));
}

static void small_output_and_allocation_failures(void **state)
{
  struct pe_image pe;
  struct image_event img;
  struct image_identity_set set;
  uint16_t name16[64];
  uint8_t out[16];
  unsigned n;
  int rc = ETWCAP_E_NOMEM;
  (void)state;
  memset(&pe, 0, sizeof pe);
  add_rsds(&pe, 1, 0, 0, "1c9875f7-6c8f-0fbf-3eb9-a9d7c1c27406", 1, "x.pdb");
  add_debug(&pe, PE_DEBUG_REPRO, 1, 0, 0);
  set_version(&pe, "x.dll", "d", "1.0", 1u << 16, 0, 1033, "p", "c", "1.0");
  image_event_for(&img, name16, "C:\\x.dll", 0x10000, 0x2000);
  for (n = 1; n < 32 && rc == ETWCAP_E_NOMEM; n++) {
    test_fail_alloc_after(n);
    rc = image_identity_build(&set, &img, &pe, IMAGE_IDENTITY_FILE_VERSION);
    test_fail_alloc_after(0);
    if (rc == ETWCAP_E_NOMEM)
      assert_int_equal(set.count, 0);
  }
  assert_int_equal(rc, 0);
  assert_int_equal(set.count, 5);
  assert_int_equal(image_identity_write_record(&set.ev[0], out, sizeof out), ETWCAP_E_RANGE);
  image_identity_release(&set);
  pe_image_release(&pe);
}

static void build_once_writes_file_version_once_per_key(void **state)
{
  struct pe_image pe;
  struct image_event img;
  struct image_identity_set set;
  struct image_identity_seen *seen;
  uint16_t name16[64];
  unsigned n;
  int rc = ETWCAP_E_NOMEM;
  (void)state;
  memset(&pe, 0, sizeof pe);
  pe.time_date_stamp = 0x5010ac4b;
  pe.size_of_image = 0x2000;
  add_rsds(&pe, 0x5010ac4b, 0, 0, "72482100-1c1c-4a03-aed8-c4c71c2e8d1d", 2, "x.pdb");
  set_version(&pe, "x.dll", "d", "1.0", 1u << 16, 0, 1033, "p", "c", "1.0");
  assert_int_equal(image_identity_seen_new(&seen), 0);

  image_event_for(&img, name16, "\\SystemRoot\\system32\\x.dll", 0x10000, 0x2000);
  assert_int_equal(image_identity_build_once(&set, &img, &pe, seen), 0);
  assert_int_equal(set.count, 3);
  assert_int_equal(set.ev[0].opcode, IMAGE_ID_FILE_VERSION);
  image_identity_release(&set);
  /* The same file under another path and base, in another process: same
   * key (OriginalFileName, ImageSize, TimeDateStamp), no FileVersion. */
  image_event_for(&img, name16, "\\Device\\HarddiskVolume2\\Windows\\System32\\x.dll", 0x7ff0000,
                  0x2000);
  img.process_id = 99;
  assert_int_equal(image_identity_build_once(&set, &img, &pe, seen), 0);
  assert_int_equal(set.count, 2);
  assert_int_equal(set.ev[0].opcode, IMAGE_ID_INFO);
  image_identity_release(&set);
  assert_int_equal(image_identity_seen_count(seen), 1);

  /* Another SizeOfImage is another image: FileVersion again.  A failed
   * build leaves `seen` as it was, so the retry still gets its FileVersion. */
  pe.size_of_image = 0x3000;
  image_event_for(&img, name16, "C:\\x.dll", 0x10000, 0x3000);
  for (n = 1; n < 32 && rc == ETWCAP_E_NOMEM; n++) {
    test_fail_alloc_after(n);
    rc = image_identity_build_once(&set, &img, &pe, seen);
    test_fail_alloc_after(0);
    if (rc == ETWCAP_E_NOMEM)
      assert_int_equal(image_identity_seen_count(seen), 1);
  }
  assert_int_equal(rc, 0);
  assert_int_equal(set.count, 3);
  assert_int_equal(set.ev[0].opcode, IMAGE_ID_FILE_VERSION);
  image_identity_release(&set);
  assert_int_equal(image_identity_seen_count(seen), 2);
  image_identity_seen_free(seen);
  pe_image_release(&pe);
}

static void seen_set_grows_and_finds(void **state)
{
  struct image_identity_seen *seen;
  uint32_t i;
  (void)state;
  assert_int_equal(image_identity_seen_new(&seen), 0);
  for (i = 0; i < 5000; i++) {
    uint8_t key[4] = { (uint8_t)i, (uint8_t)(i >> 8), 0, 0 };
    assert_int_equal(image_identity_seen_add(seen, key, sizeof key), 1);
  }
  for (i = 0; i < 5000; i++) {
    uint8_t key[4] = { (uint8_t)i, (uint8_t)(i >> 8), 0, 0 };
    assert_true(image_identity_seen_contains(seen, key, sizeof key));
    assert_int_equal(image_identity_seen_add(seen, key, sizeof key), 0);
  }
  assert_false(image_identity_seen_contains(seen, (const uint8_t *)"abc", 3));
  assert_int_equal(image_identity_seen_add(seen, (const uint8_t *)"", 0), 1);
  assert_int_equal(image_identity_seen_count(seen), 5001);
  image_identity_seen_free(seen);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(diaghub_ntoskrnl_group_is_byte_exact),
    cmocka_unit_test(net452_ntoskrnl_triple_is_byte_exact),
    cmocka_unit_test(net452_perfinfo_triple_is_byte_exact),
    cmocka_unit_test(net452_unaligned_size_of_image_is_the_pe_one),
    cmocka_unit_test(diaghub_readytorun_group_is_byte_exact),
    cmocka_unit_test(every_sample_group_has_the_derived_header),
    cmocka_unit_test(file_version_is_written_once_per_image_key),
    cmocka_unit_test(fixture_identity_matches_the_pe),
    cmocka_unit_test(build_file_reads_the_pe_or_reports_why_not),
    cmocka_unit_test(handmade_readytorun_pe_gives_the_r2r_pattern),
    cmocka_unit_test(image_without_debug_info_gets_none),
    cmocka_unit_test(thirty_two_bit_traces_use_four_byte_pointers),
    cmocka_unit_test(only_image_events_are_accepted),
    cmocka_unit_test(small_output_and_allocation_failures),
    cmocka_unit_test(build_once_writes_file_version_once_per_key),
    cmocka_unit_test(seen_set_grows_and_finds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
