/* The image identity events KernelTraceControl's merge injects (ImageID
 * task of the "KernelTraceControl" classic provider), built from a kernel
 * Image event and the PE file it names, byte for byte as the real merged
 * samples carry them.  No printing; allocation through alloc.h; the only
 * I/O is image_identity_build_file's reading of the PE.
 *
 * What the merger does, per kernel Image event (image_identity_parse_image_event
 * accepts it) in time order:
 *     image_identity_parse_image_event(ev, &img) -> map the NT path in
 *     img.file_name to a local one -> image_identity_build_file(set, &img,
 *     path, seen) (or pe_image_read + image_identity_build_once) -> write
 *     set.ev[0..count) with image_identity_write_record, in that order, into
 *     the image event's CPU stream immediately before it (same timestamp).
 * `seen` (image_identity_seen.h) is one per output trace, fed in time order.
 * An image that cannot be read gets no identity events.
 *
 * Facts, as observed in the two merged samples (diaghub.etl, whose image
 * events are in diaghub.kernel.1.etl of the same collection, and
 * net.4.5.2.x64.etl, which holds both), are written next to the code in
 * image_identity.c. */
#ifndef ETWCAP_IMAGE_IDENTITY_H
#define ETWCAP_IMAGE_IDENTITY_H

#include "etw/event/etw_event.h"
#include "etw/event/guid.h"
#include "etw/image/image_identity_seen.h"
#include "etw/image/pe_image.h"

#include <stddef.h>
#include <stdint.h>

/* The ImageID task GUID: the GUID in the classic header of every identity
 * event (SymbolTraceEventParser calls the provider KernelTraceControl,
 * 28ad2447-105b-4fe2-9599-e59b2aa9a634, but that GUID is never in the file). */
#define IMAGE_IDENTITY_GUID_TEXT "b3e675d7-2554-4f18-830b-2762732560de"
extern const struct etw_guid image_identity_guid;

/* Opcodes (Class.Type) of the ImageID task. */
enum image_identity_opcode {
  IMAGE_ID_INFO = 0x00,         /* ImageID/Info: base, size, pid, TimeDateStamp, name */
  IMAGE_ID_NONE = 0x20,         /* no RSDS debug record */
  IMAGE_ID_DBG_RSDS = 0x24,     /* CodeView RSDS: GUID, age, PDB path */
  IMAGE_ID_DBG_ILRSDS = 0x25,   /* the IL PDB of a native-compiled .NET image */
  IMAGE_ID_DBG_PPDB = 0x26,     /* a CodeView entry's TimeDateStamp and versions */
  IMAGE_ID_DBG_DETERM = 0x28,   /* deterministic build (REPRO entry) */
  IMAGE_ID_FILE_VERSION = 0x40  /* VS_VERSIONINFO strings */
};

/* The kernel Image events that get identity events, by opcode.  Unload,
 * DCStart and DCEnd are logged in the Image group (hooks 0x1402-0x1404);
 * the load is logged in the Process group (hook 0x030A) in both samples
 * (net.4.5.2: 35, diaghub.kernel.1: 87, each preceded by its group).  All
 * carry the Image_Load payload. */
enum image_event_opcode {
  IMAGE_EVENT_UNLOAD = 2,
  IMAGE_EVENT_DCSTART = 3,
  IMAGE_EVENT_DCEND = 4,
  IMAGE_EVENT_LOAD = 10
};
#define IMAGE_EVENT_GROUP 0x14
#define IMAGE_EVENT_LOAD_GROUP 0x03 /* hook 0x030A */

/* The fields of a kernel Image event that identity events depend on.
 * file_name points into the event (UTF-16LE, as in the payload, without
 * the NUL): valid as long as the event is. */
struct image_event {
  uint8_t opcode;          /* enum image_event_opcode */
  uint8_t pointer_size;    /* 4 or 8: the trace's pointers */
  uint16_t cpu;
  uint64_t timestamp;      /* raw, header clock */
  int has_thread;          /* SYSTEM/COMPACT header: has a thread id; PERFINFO: none */
  uint32_t thread_id;
  uint64_t processor_time; /* SYSTEM header KernelTime/UserTime (8 bytes at 0x18), else 0 */
  uint64_t image_base;
  /* As the event says (page-rounded): the identity events carry the PE's
   * SizeOfImage instead. */
  uint64_t image_size;
  uint32_t process_id;
  uint32_t image_checksum, time_date_stamp;
  const uint8_t *file_name;
  size_t file_name_bytes;
};

/* 1 when ev is a kernel Image Load (0x030A; 0x140A is accepted too, though
 * no sample has it) / Unload / DCStart / DCEnd event. */
int image_identity_is_image_event(const struct etw_event *ev);
/* Decodes ev (which image_identity_is_image_event accepts) into *img.
 * 0, ETWCAP_E_UNSUPPORTED (payload version < 2) or ETWCAP_E_CORRUPT. */
int image_identity_parse_image_event(const struct etw_event *ev, struct image_event *img);
/* The same in two steps, for a reader that meets the same names again and
 * again (a rundown logs each image of each process): finding where a name
 * ends costs about as much as comparing it with one already known.
 * _fields decodes all but the name's length, leaving in file_name_bytes
 * the bytes from the name to the payload's end; image_identity_measure_name
 * then makes it the name's length (before its first NUL character). */
int image_identity_parse_image_fields(const struct etw_event *ev, struct image_event *img);
void image_identity_measure_name(struct image_event *img);

/* One identity event to inject.  The header fields are what goes into the
 * classic FULL_HEADER (32 or 64) record; payload is owned by the set. */
struct image_identity_event {
  uint8_t opcode;       /* enum image_identity_opcode */
  uint8_t level;        /* always 0 */
  uint16_t version;
  uint8_t header_type;  /* ETW_HDR_FULL64 (64-bit trace) or ETW_HDR_FULL32 */
  uint32_t process_id, thread_id;
  uint64_t timestamp;
  uint16_t cpu;
  uint64_t processor_time;
  uint8_t *payload;
  uint32_t payload_size;
};

/* FileVersion + Info + an RSDS/None per CodeView entry + a PPDB per
 * CodeView entry + Determ. */
#define IMAGE_IDENTITY_MAX_EVENTS (2 * PE_MAX_DEBUG_ENTRIES + 4)

struct image_identity_set {
  size_t count;
  struct image_identity_event ev[IMAGE_IDENTITY_MAX_EVENTS];
};

enum image_identity_flags {
  /* Emit the FileVersion event (when the PE has a version resource). */
  IMAGE_IDENTITY_FILE_VERSION = 1 << 0
};

/* Builds the identity events of img, whose file is pe, in injection order.
 * 0, or ETWCAP_E_NOMEM / ETWCAP_E_RANGE (a string too long for a record);
 * on failure the set is empty.  Release with image_identity_release. */
int image_identity_build(struct image_identity_set *set, const struct image_event *img,
                         const struct pe_image *pe, unsigned flags);
/* The same, deciding FileVersion as the samples do: it is written when the
 * Info key (image_identity_info_key) is not yet in `seen`, which then
 * remembers it.  The merger's entry point. */
int image_identity_build_once(struct image_identity_set *set, const struct image_event *img,
                              const struct pe_image *pe, struct image_identity_seen *seen);
void image_identity_release(struct image_identity_set *set);

/* Reads the PE at `path` (UTF-8) and builds its events with
 * image_identity_build_once (or, when seen is NULL, with FileVersion).
 * The PE reader's errors (ETWCAP_E_NOENT, IO, FORMAT, TRUNCATED, CORRUPT)
 * mean "this image gets no identity events": count it and go on.
 * (image_identity_file.c: the only part that does I/O.) */
int image_identity_build_file(struct image_identity_set *set, const struct image_event *img,
                              const char *path, struct image_identity_seen *seen);

/* The key FileVersion is written once per: ImageSize (pointer-sized),
 * TimeDateStamp and OriginalFileName (UTF-16 + NUL), as the Info payload
 * `info` (P = pointer size) holds them.  Writes it into key: its length, or
 * ETWCAP_E_RANGE (cap too small) / ETWCAP_E_CORRUPT (payload too short). */
int image_identity_info_key(const uint8_t *info, size_t info_size, unsigned pointer_size,
                            uint8_t *key, size_t cap);
#define IMAGE_IDENTITY_MAX_KEY 0x10000

/* Size of the whole record (classic header + payload, before the 8-byte
 * alignment padding of the buffer). */
#define IMAGE_IDENTITY_HEADER_SIZE 48
uint32_t image_identity_record_size(const struct image_identity_event *e);
/* Writes the record (header + payload) into out: its size, or
 * ETWCAP_E_RANGE when cap is too small. */
int image_identity_write_record(const struct image_identity_event *e, uint8_t *out, size_t cap);

#endif
