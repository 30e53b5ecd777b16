/* Encoder of KernelTraceControl's ImageID events (see image_identity.h for
 * how the merger calls it).  Everything below was derived from the real
 * merged samples and is checked by tests/unit/test_image_identity.c against
 * their bytes:
 *   diaghub.etl (diaghub-dotnetcore3.1-win-x64-diagsession.zip; 10.0.19041;
 *     62341 ImageID events; its image events are in diaghub.kernel.1.etl of
 *     the same collection, matched by CPU and raw timestamp), and
 *   net.4.5.2.x64.etl (6.2.9200; image and identity events in one file).
 *
 * Header (every one of the 62341 + 7885 events): a classic FULL_HEADER64
 * record, marker 0xC014 (HeaderType 0x14, Flags 0xC0), Size = 48 + payload,
 * Class {Type = opcode, Level 0, Version}, GUID = the ImageID task GUID
 * b3e675d7-2554-4f18-830b-2762732560de (not the provider GUID 28ad2447-...).
 * Versions: FileVersion 0, Info 2, DbgID_RSDS 2, DbgID_ILRSDS 2, None 2,
 * DbgPPDB 2, DbgDeterm 1.
 *
 * Which events: Image Load (hook 0x030A, in the Process group), Unload
 * (0x1402), DCStart (0x1403), DCEnd (0x1404).  Not KernelImageBase (0x1421)
 * nor HypercallPage (0x1422).
 * Placement: the group sits in the same CPU stream as its kernel Image event,
 * immediately before it, with the same raw timestamp (net.4.5.2: all 3590
 * groups, and 3590 of the 3596 image events have one: the 6 others are
 * dump_*.sys crash-dump drivers, which have no file on disk; diaghub: all
 * 15434 groups match a kernel.1 Image event on (CPU, timestamp)).
 *
 * ImageBase and ProcessId in the payloads are the Image event's (every
 * event of both samples).  ImageSize (Info, FileVersion) is the PE header's
 * SizeOfImage, not the event's: they differ only for VMBusHID.sys and
 * swenum.sys in net.4.5.2, whose SizeOfImage (0x5680, 0x1480) is not a
 * multiple of the page size and whose events say 0x6000, 0x2000.
 * Header pid/tid/time: ProcessId = the Image payload's ProcessId (0 for
 * drivers), for every event of the group.  ThreadId = the Image event's
 * header ThreadId when it has one (SYSTEM64), else 0xFFFFFFFF (PERFINFO64).
 * The 8 bytes at 0x28 (KernelTime/UserTime) = those of the SYSTEM64 Image
 * event (all 2784 in diaghub), 0 for PERFINFO64 (all 59557).
 *
 * Order inside a group: FileVersion, Info,
 * then one DbgID_ILRSDS/DbgID_RSDS per RSDS CodeView entry or a single None
 * when there is no RSDS entry, then the DbgPPDB events, then DbgDeterm.
 * Opcode sequences in diaghub, by (CPU, timestamp): (0,36,38,40) 10678,
 * (64,0,36,38,40) 1628, (0,37,36) 727, (0,36) 589, (0,37,36,38,38,40) 488,
 * (64,0,36) 467, (64,0,37,36,38,38,40) 249, (64,0,37,36) 141, ...
 *
 * FileVersion is written once per image identity, the key being what Info
 * says: (ImageSize, TimeDateStamp, OriginalFileName), in time order.  Keyed
 * so, diaghub has 2605 first sightings with FileVersion, no repeat with one,
 * and 24 first sightings without (each named after its path: no version
 * resource); net.4.5.2 has 705 first sightings, all with FileVersion.  Keyed
 * by path instead, net.4.5.2 would miss 29 (the same DLL as \SystemRoot\...
 * and \Device\HarddiskVolume2\...) and diaghub 2 (two WinSxS wdscore.dll).
 *
 * Payloads (P = pointer size, 8 in both samples):
 *   Info (0):        ImageBase P, SizeOfImage P, ProcessId u32,
 *                    TimeDateStamp u32, OriginalFileName UTF-16 + NUL.
 *   DbgID_RSDS (36), DbgID_ILRSDS (37):
 *                    ImageBase P, ProcessId u32, GUID 16, Age u32,
 *                    PdbFileName as stored in the PE (UTF-8) + NUL.
 *   DbgPPDB (38):    ImageBase P, ProcessId u32, TimeDateStamp u32 (of the
 *                    debug entry), MajorVersion u16, MinorVersion u16.
 *   None (32), DbgDeterm (40): ImageBase P, ProcessId u32.
 *   FileVersion (64): SizeOfImage u32, TimeDateStamp u32, then ten UTF-16 +
 *                    NUL strings: OriginalFilename, FileDescription,
 *                    FileVersion, BinFileVersion ("a.b.c.d" from
 *                    VS_FIXEDFILEINFO, e.g. "4.6.26515.6" next to the string
 *                    "4.6.26515.06"), VerLanguage (decimal LANGID: "1033",
 *                    "0"), ProductName, CompanyName, ProductVersion, FileId
 *                    (""), ProgramId ("").
 * TimeDateStamp (Info, FileVersion) = the PE header's, but 0 when the image
 * is deterministic: Info.TimeDateStamp is 0 exactly in the groups that have
 * DbgDeterm, e.g. ntkrnlmp.exe (PE TimeDateStamp 0x07503e39) -> 0.
 * OriginalFileName = the version resource's OriginalFilename ("ntkrnlmp.exe"
 * for ntoskrnl.exe, "clipsp.dll" for clipsp.sys, even ".NET Host Resolver -
 * 5.0.0-preview..." for hostfxr.dll), else the file name of the path (the
 * 24 diaghub first sightings without FileVersion are all named so).
 *
 * Inferred, not provable from the samples without the PE files themselves:
 *   - DbgPPDB: one per CodeView entry (any format) whose TimeDateStamp
 *     differs from the Info TimeDateStamp written (so every CodeView entry
 *     of a deterministic image; a portable-PDB entry, whose stamp is a hash;
 *     none for an ordinary native image).  Not contradicted by any group:
 *     in all 13043 deterministic diaghub groups with RSDS events there are
 *     as many DbgPPDB as RSDS events (2 for R2R/NGEN images); in the others
 *     DbgPPDB comes with a portable PDB (Major 0x100, Minor "PM") or with
 *     None (a CodeView entry that is not RSDS).  ld (mingw) writes 0 in the
 *     CodeView entry's stamp, so its images get one DbgPPDB.
 *   - DbgID_ILRSDS: when an image has several RSDS entries, all but the last
 *     (the IL PDB listed before the native-image .ni.pdb); a single RSDS is
 *     DbgID_RSDS (diaghub: IL-only portable assemblies get 36).
 *     net.4.5.2 was merged by an older KernelTraceControl that writes 37 for
 *     IL-only assemblies and never writes 38/40: we follow diaghub.
 *   - DbgDeterm: when the debug directory has a REPRO entry.
 *   - 32-bit traces: the same records with HeaderType FULL_HEADER32 and
 *     4-byte pointers (no sample has 32-bit identity events).
 * Known divergence: diaghub has 188 groups with None and a DbgPPDB, mostly
 * 32-bit IL-only assemblies under Program Files (x86) (e.g.
 * Microsoft.VisualStudio.ProductKeyDialog.resources.dll, whose DbgPPDB says
 * portable PDB) plus Sentinel64.sys; one DbgPPDB stamp is "CDR!" read as a
 * number.  KernelTraceControl apparently failed to read their CodeView
 * record (the OS maps IL-only PE32 images as PE32+, which may be why); we
 * write the RSDS record the file holds. */
#include "etw/image/image_identity.h"

#include "etw/etl/etl_bytes.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

const struct etw_guid image_identity_guid = {
  0xb3e675d7, 0x2554, 0x4f18, { 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde }
};

/* Payload versions seen in the samples (Class.Version). */
#define VERSION_FILE_VERSION 0
#define VERSION_INFO 2
#define VERSION_DBG 2
#define VERSION_DETERM 1
#define RECORD_MAX 0xFFFF /* Size is a u16 */

int image_identity_is_image_event(const struct etw_event *ev)
{
  if (!ev->is_kernel)
    return 0;
  if (ev->group == IMAGE_EVENT_LOAD_GROUP)
    return ev->opcode == IMAGE_EVENT_LOAD;
  if (ev->group != IMAGE_EVENT_GROUP)
    return 0;
  switch (ev->opcode) {
  case IMAGE_EVENT_UNLOAD:
  case IMAGE_EVENT_DCSTART:
  case IMAGE_EVENT_DCEND:
  case IMAGE_EVENT_LOAD:
    return 1;
  default:
    return 0;
  }
}

static uint64_t load_ptr(const uint8_t *p, unsigned size)
{
  return size == 8 ? etl_le64(p) : etl_le32(p);
}

/* The bytes of the UTF-16 text at p (n bytes at most) before its NUL.
 * Image names are most of the bytes of a kernel rundown, so this looks at
 * four characters at a time: (v - 0x0001...) & ~v & 0x8000... is not 0
 * exactly when one of the four 16-bit lanes of v is 0, whatever the byte
 * order of the host; the loop below then finds which. */
static size_t utf16_bytes(const uint8_t *p, size_t n)
{
  size_t i;
  uint64_t v;
  for (i = 0; i + 8 <= n; i += 8) {
    memcpy(&v, p + i, 8);
    if ((v - 0x0001000100010001u) & ~v & 0x8000800080008000u)
      break;
  }
  for (; i + 2 <= n && etl_le16(p + i) != 0; i += 2)
    ;
  return i;
}

int image_identity_parse_image_fields(const struct etw_event *ev, struct image_event *img)
{
  unsigned p = ev->pointer_size == 4 ? 4 : 8;
  /* Image_Load v2/v3 (Vista+): ImageBase P, ImageSize P, ProcessId,
   * ImageCheckSum, TimeDateStamp, Reserved0, DefaultBase P, Reserved1..4,
   * FileName (UTF-16, NUL-terminated). */
  size_t fixed = 3 * (size_t)p + 32;
  const uint8_t *d = ev->user_data;
  int rc = 0;
  if (!image_identity_is_image_event(ev) || ev->version < 2)
    rc = ETWCAP_E_UNSUPPORTED;
  else if (!d || ev->user_len < fixed)
    rc = ETWCAP_E_CORRUPT;
  if (rc) {
    memset(img, 0, sizeof *img);
    return rc;
  }
  /* Every field is set below, without clearing the struct first: a
   * rundown has an image event for each image of each process. */
  img->opcode = ev->opcode;
  img->pointer_size = (uint8_t)p;
  img->cpu = ev->cpu;
  img->timestamp = ev->timestamp;
  img->has_thread = (ev->has & ETW_HAS_PID_TID) != 0;
  img->thread_id = img->has_thread ? ev->tid : 0xFFFFFFFFu;
  img->processor_time =
      (ev->header_type == ETW_HDR_SYSTEM32 || ev->header_type == ETW_HDR_SYSTEM64)
          ? ev->processor_time
          : 0;
  img->image_base = load_ptr(d, p);
  img->image_size = load_ptr(d + p, p);
  img->process_id = etl_le32(d + 2 * p);
  img->image_checksum = etl_le32(d + 2 * p + 4);
  img->time_date_stamp = etl_le32(d + 2 * p + 8);
  img->file_name = d + fixed;
  img->file_name_bytes = ev->user_len - fixed;
  return 0;
}

void image_identity_measure_name(struct image_event *img)
{
  img->file_name_bytes = utf16_bytes(img->file_name, img->file_name_bytes);
}

int image_identity_parse_image_event(const struct etw_event *ev, struct image_event *img)
{
  int rc = image_identity_parse_image_fields(ev, img);
  if (rc == 0)
    image_identity_measure_name(img);
  return rc;
}

/* ---- payload building ---- */

struct out {
  uint8_t *p;
  size_t len, cap;
  int err;
};

static void put(struct out *o, const void *src, size_t n)
{
  if (o->err)
    return;
  if (o->len + n > RECORD_MAX - IMAGE_IDENTITY_HEADER_SIZE) {
    o->err = ETWCAP_E_RANGE;
    return;
  }
  if (o->len + n > o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 128;
    uint8_t *q;
    while (cap < o->len + n)
      cap *= 2;
    q = etwcap_realloc(o->p, cap);
    if (!q) {
      o->err = ETWCAP_E_NOMEM;
      return;
    }
    o->p = q;
    o->cap = cap;
  }
  memcpy(o->p + o->len, src, n);
  o->len += n;
}

static void put_u16(struct out *o, uint16_t v)
{
  uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
  put(o, b, 2);
}

static void put_u32(struct out *o, uint32_t v)
{
  uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
  put(o, b, 4);
}

static void put_ptr(struct out *o, uint64_t v, unsigned size)
{
  put_u32(o, (uint32_t)v);
  if (size == 8)
    put_u32(o, (uint32_t)(v >> 32));
}

static void put_wstr(struct out *o, const struct pe_wstr *w)
{
  size_t i;
  for (i = 0; w && w->s && i < w->len; i++)
    put_u16(o, w->s[i]);
  put_u16(o, 0);
}

/* An ASCII string as UTF-16 + NUL. */
static void put_ascii_w(struct out *o, const char *s)
{
  for (; *s; s++)
    put_u16(o, (uint8_t)*s);
  put_u16(o, 0);
}

static int add(struct image_identity_set *set, const struct image_event *img, uint8_t opcode,
               uint16_t version, struct out *o)
{
  struct image_identity_event *e;
  if (o->err) {
    etwcap_free(o->p);
    return o->err;
  }
  if (set->count >= IMAGE_IDENTITY_MAX_EVENTS) {
    etwcap_free(o->p);
    return ETWCAP_E_INTERNAL;
  }
  e = &set->ev[set->count++];
  memset(e, 0, sizeof *e);
  e->opcode = opcode;
  e->level = 0;
  e->version = version;
  e->header_type = img->pointer_size == 4 ? ETW_HDR_FULL32 : ETW_HDR_FULL64;
  e->process_id = img->process_id;
  e->thread_id = img->has_thread ? img->thread_id : 0xFFFFFFFFu;
  e->timestamp = img->timestamp;
  e->cpu = img->cpu;
  e->processor_time = img->processor_time;
  e->payload = o->p;
  e->payload_size = (uint32_t)o->len;
  return 0;
}

/* The file name part of a UTF-16LE path (after the last '\' or '/'). */
static void put_base_name(struct out *o, const uint8_t *name, size_t bytes)
{
  size_t i, start = 0;
  for (i = 0; i + 2 <= bytes; i += 2) {
    uint16_t c = etl_le16(name + i);
    if (c == '\\' || c == '/')
      start = i + 2;
  }
  put(o, name + start, (bytes - start) & ~(size_t)1);
  put_u16(o, 0);
}

static int add_file_version(struct image_identity_set *set, const struct image_event *img,
                            const struct pe_image *pe, uint32_t tds)
{
  const struct pe_version *v = &pe->version;
  struct out o = { NULL, 0, 0, 0 };
  char text[48];
  put_u32(&o, pe->size_of_image);
  put_u32(&o, tds);
  put_wstr(&o, &v->original_filename);
  put_wstr(&o, &v->file_description);
  put_wstr(&o, &v->file_version);
  pe_version_file_version_text(v, text, sizeof text);
  put_ascii_w(&o, text);
  snprintf(text, sizeof text, "%u", v->has_language ? (unsigned)v->language : 0u);
  put_ascii_w(&o, text);
  put_wstr(&o, &v->product_name);
  put_wstr(&o, &v->company_name);
  put_wstr(&o, &v->product_version);
  put_ascii_w(&o, ""); /* FileId: empty in every sample event */
  put_ascii_w(&o, ""); /* ProgramId: likewise */
  return add(set, img, IMAGE_ID_FILE_VERSION, VERSION_FILE_VERSION, &o);
}

static void info_payload(struct out *o, const struct image_event *img, const struct pe_image *pe,
                         uint32_t tds)
{
  unsigned p = img->pointer_size;
  put_ptr(o, img->image_base, p);
  put_ptr(o, pe->size_of_image, p);
  put_u32(o, img->process_id);
  put_u32(o, tds);
  if (pe->version.present && pe->version.original_filename.len)
    put_wstr(o, &pe->version.original_filename);
  else
    put_base_name(o, img->file_name, img->file_name_bytes);
}

int image_identity_info_key(const uint8_t *info, size_t info_size, unsigned pointer_size,
                            uint8_t *key, size_t cap)
{
  size_t p = pointer_size == 4 ? 4 : 8, name = 2 * p + 8, n;
  if (info_size < name)
    return ETWCAP_E_CORRUPT;
  n = p + 4 + (info_size - name);
  if (n > cap || n > (size_t)INT32_MAX)
    return ETWCAP_E_RANGE;
  memcpy(key, info + p, p);                          /* ImageSize */
  memcpy(key + p, info + 2 * p + 4, 4);              /* TimeDateStamp */
  memcpy(key + p + 4, info + name, info_size - name); /* OriginalFileName */
  return (int)n;
}

static int add_rsds(struct image_identity_set *set, const struct image_event *img,
                    const struct pe_debug_entry *d, uint8_t opcode)
{
  struct out o = { NULL, 0, 0, 0 };
  uint8_t g[16];
  put_ptr(&o, img->image_base, img->pointer_size);
  put_u32(&o, img->process_id);
  guid_to_bytes(&d->pdb_guid, g);
  put(&o, g, sizeof g);
  put_u32(&o, d->pdb_age);
  put(&o, d->pdb_path ? d->pdb_path : "", d->pdb_path_len);
  put(&o, "", 1);
  return add(set, img, opcode, VERSION_DBG, &o);
}

static int add_base_pid(struct image_identity_set *set, const struct image_event *img,
                        uint8_t opcode, uint16_t version)
{
  struct out o = { NULL, 0, 0, 0 };
  put_ptr(&o, img->image_base, img->pointer_size);
  put_u32(&o, img->process_id);
  return add(set, img, opcode, version, &o);
}

static int add_ppdb(struct image_identity_set *set, const struct image_event *img,
                    const struct pe_debug_entry *d)
{
  struct out o = { NULL, 0, 0, 0 };
  put_ptr(&o, img->image_base, img->pointer_size);
  put_u32(&o, img->process_id);
  put_u32(&o, d->time_date_stamp);
  put_u16(&o, d->major_version);
  put_u16(&o, d->minor_version);
  return add(set, img, IMAGE_ID_DBG_PPDB, VERSION_DBG, &o);
}

/* Builds the group; with `seen`, FileVersion is decided by the Info key. */
static int build(struct image_identity_set *set, const struct image_event *img,
                 const struct pe_image *pe, unsigned flags, struct image_identity_seen *seen)
{
  int deterministic = pe_image_is_deterministic(pe);
  uint32_t tds = deterministic ? 0 : pe->time_date_stamp;
  size_t i, rsds = 0, nrsds = 0;
  struct out info = { NULL, 0, 0, 0 };
  uint8_t *key = NULL;
  int key_len = 0, rc = 0;
  memset(set, 0, sizeof *set);
  if (img->pointer_size != 4 && img->pointer_size != 8)
    return ETWCAP_E_INTERNAL;
  for (i = 0; i < pe->debug_count; i++)
    if (pe->debug[i].type == PE_DEBUG_CODEVIEW && pe->debug[i].cv_format == PE_CV_RSDS)
      rsds++;
  info_payload(&info, img, pe, tds);
  if (info.err) {
    etwcap_free(info.p);
    return info.err;
  }
  if (seen) {
    key = etwcap_malloc(info.len + 8);
    if (!key) {
      etwcap_free(info.p);
      return ETWCAP_E_NOMEM;
    }
    key_len = image_identity_info_key(info.p, info.len, img->pointer_size, key, info.len + 8);
    if (key_len >= 0 && !image_identity_seen_contains(seen, key, (size_t)key_len))
      flags |= IMAGE_IDENTITY_FILE_VERSION;
  }
  if ((flags & IMAGE_IDENTITY_FILE_VERSION) && pe->version.present)
    rc = add_file_version(set, img, pe, tds);
  if (rc == 0)
    rc = add(set, img, IMAGE_ID_INFO, VERSION_INFO, &info);
  else
    etwcap_free(info.p);
  for (i = 0; rc == 0 && i < pe->debug_count; i++) {
    const struct pe_debug_entry *d = &pe->debug[i];
    if (d->type != PE_DEBUG_CODEVIEW || d->cv_format != PE_CV_RSDS)
      continue;
    nrsds++;
    rc = add_rsds(set, img, d, nrsds < rsds ? IMAGE_ID_DBG_ILRSDS : IMAGE_ID_DBG_RSDS);
  }
  if (rc == 0 && rsds == 0)
    rc = add_base_pid(set, img, IMAGE_ID_NONE, VERSION_DBG);
  for (i = 0; rc == 0 && i < pe->debug_count; i++) {
    const struct pe_debug_entry *d = &pe->debug[i];
    if (d->type == PE_DEBUG_CODEVIEW && d->time_date_stamp != tds)
      rc = add_ppdb(set, img, d);
  }
  if (rc == 0 && deterministic)
    rc = add_base_pid(set, img, IMAGE_ID_DBG_DETERM, VERSION_DETERM);
  /* Remembered only once the group is complete, so a failure leaves
   * `seen` as it was. */
  if (rc == 0 && seen && key_len >= 0)
    rc = image_identity_seen_add(seen, key, (size_t)key_len) < 0 ? ETWCAP_E_NOMEM : 0;
  etwcap_free(key);
  if (rc < 0)
    image_identity_release(set);
  return rc;
}

int image_identity_build(struct image_identity_set *set, const struct image_event *img,
                         const struct pe_image *pe, unsigned flags)
{
  return build(set, img, pe, flags, NULL);
}

int image_identity_build_once(struct image_identity_set *set, const struct image_event *img,
                              const struct pe_image *pe, struct image_identity_seen *seen)
{
  return build(set, img, pe, 0, seen);
}

void image_identity_release(struct image_identity_set *set)
{
  size_t i;
  for (i = 0; i < set->count; i++)
    etwcap_free(set->ev[i].payload);
  memset(set, 0, sizeof *set);
}

uint32_t image_identity_record_size(const struct image_identity_event *e)
{
  return IMAGE_IDENTITY_HEADER_SIZE + e->payload_size;
}

static void store32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

int image_identity_write_record(const struct image_identity_event *e, uint8_t *out, size_t cap)
{
  uint32_t size = image_identity_record_size(e);
  if (size > RECORD_MAX || cap < size)
    return ETWCAP_E_RANGE;
  /* EVENT_TRACE_HEADER (docs/etl.md §4.2): Size, HeaderType,
   * MarkerFlags 0xC0, Class {Type, Level, Version}, ThreadId, ProcessId,
   * TimeStamp, Guid, Kernel/UserTime. */
  out[0] = (uint8_t)size;
  out[1] = (uint8_t)(size >> 8);
  out[2] = e->header_type;
  out[3] = 0xC0;
  out[4] = e->opcode;
  out[5] = e->level;
  out[6] = (uint8_t)e->version;
  out[7] = (uint8_t)(e->version >> 8);
  store32(out + 8, e->thread_id);
  store32(out + 12, e->process_id);
  store32(out + 16, (uint32_t)e->timestamp);
  store32(out + 20, (uint32_t)(e->timestamp >> 32));
  guid_to_bytes(&image_identity_guid, out + 24);
  store32(out + 40, (uint32_t)e->processor_time);
  store32(out + 44, (uint32_t)(e->processor_time >> 32));
  if (e->payload_size)
    memcpy(out + IMAGE_IDENTITY_HEADER_SIZE, e->payload, e->payload_size);
  return (int)size;
}
