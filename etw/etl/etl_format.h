/* The fixed on-disk structures of an ETL file, decoded into plain structs
 * (docs/etl.md §2, §3): WMI_BUFFER_HEADER and TRACE_LOGFILE_HEADER.
 * Pure functions over byte buffers; the reader (etl_reader.c) decides what
 * to do with the values. */
#ifndef ETWCAP_ETL_FORMAT_H
#define ETWCAP_ETL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define ETL_BUFFER_HEADER_SIZE 72u

/* BufferFlag bits (§2). */
#define ETL_BUFFER_FLAG_FLUSH_MARKER 0x0001u
#define ETL_BUFFER_FLAG_EVENTS_LOST 0x0002u
#define ETL_BUFFER_FLAG_BUFFER_LOST 0x0004u
#define ETL_BUFFER_FLAG_RTBACKUP_CORRUPT 0x0008u
#define ETL_BUFFER_FLAG_RTBACKUP 0x0010u
#define ETL_BUFFER_FLAG_PROC_INDEX 0x0020u
#define ETL_BUFFER_FLAG_COMPRESSED 0x0040u

/* BufferType values (§2). */
#define ETL_BUFFER_TYPE_GENERIC 0u
#define ETL_BUFFER_TYPE_HEADER 4u

/* LogFileMode bits etwcap looks at. */
#define ETL_MODE_SEQUENTIAL 0x00000001u
#define ETL_MODE_CIRCULAR 0x00000002u
#define ETL_MODE_RELOG 0x00010000u
#define ETL_MODE_SYSTEM_LOGGER 0x02000000u
#define ETL_MODE_COMPRESSED 0x04000000u

/* COMPRESSION_FORMAT_* in the first buffer's State (§6). */
#define ETL_COMPRESSION_LZNT1 2u
#define ETL_COMPRESSION_XPRESS 3u
#define ETL_COMPRESSION_XPRESS_HUFF 4u

/* ReservedFlags / ClientContext clock types (§5). */
#define ETL_CLOCK_QPC 1u
#define ETL_CLOCK_SYSTEM_TIME 2u
#define ETL_CLOCK_CPU_CYCLES 3u

struct etl_buffer_header {
  uint32_t buffer_size;  /* on-disk size, header included (compressed size if compressed) */
  uint32_t saved_offset;
  uint64_t timestamp;    /* flush time; not the event clock */
  uint64_t sequence;
  uint16_t cpu;          /* ProcessorIndex with PROC_INDEX, else the pre-Win8 byte */
  uint16_t logger_id;
  uint32_t state;
  uint32_t filled;       /* Offset @0x30: filled length incl. the header (uncompressed) */
  uint16_t flags;
  uint16_t type;
};

/* Decodes the 72 bytes at p. */
void etl_buffer_header_decode(const uint8_t *p, struct etl_buffer_header *h);

#define ETL_NAME_MAX 260 /* UTF-8 bytes kept of each logfile-header string */

/* TRACE_LOGFILE_HEADER plus what its event header says. */
struct etl_logfile {
  uint32_t buffer_size;
  uint8_t os_major, os_minor, os_sub, os_subminor;
  uint32_t build; /* ProviderVersion */
  uint32_t cpus;
  int64_t end_time;
  uint32_t timer_resolution;
  uint32_t max_file_size;
  uint32_t log_file_mode;
  uint32_t buffers_written;
  uint32_t start_buffers;
  uint32_t pointer_size;
  uint32_t events_lost;
  uint32_t cpu_mhz;
  int32_t tz_bias;                 /* minutes, UTC = local + bias */
  char tz_standard_name[96];       /* UTF-8 */
  uint8_t tz_raw[172];             /* the whole TIME_ZONE_INFORMATION, as written */
  int64_t boot_time;
  int64_t perf_freq;
  int64_t start_time;
  uint32_t clock_type;             /* ReservedFlags */
  uint32_t buffers_lost;
  char logger_name[ETL_NAME_MAX];  /* UTF-8 */
  char log_file_name[ETL_NAME_MAX];
  uint64_t header_timestamp;       /* raw timestamp of the logfile-header event */
  uint32_t header_pid, header_tid; /* the logfile-header event's process and thread */
  int header_is_64;                /* SYSTEM64 (x64 layout) or SYSTEM32 */
};

/* Decodes the payload of the logfile-header event (hook 0x0000).
 * Returns 0, or ETWCAP_E_CORRUPT when the payload is too short. */
int etl_logfile_decode(const uint8_t *payload, size_t len, int is64, struct etl_logfile *lf);

/* UTF-16LE (len bytes, stops at NUL) to UTF-8, truncated to fit, always
 * NUL-terminated.  Returns the number of bytes consumed including the NUL
 * (len when no NUL was found). */
size_t etl_utf16_to_utf8(const uint8_t *p, size_t len, char *out, size_t cap);
/* The same conversion for a name that is used (opened, compared): 0 when
 * it fit whole, ETWCAP_E_NAMETOOLONG when it was cut (out then holds the
 * part that fit, which names something else). */
int etl_utf16_to_utf8_whole(const uint8_t *p, size_t len, char *out, size_t cap);

#endif
