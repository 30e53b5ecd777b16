/* What `etwcap info` reports about one ETL: time range, OS, CPUs, clock,
 * logger, events and bytes per provider, header kinds, extended items,
 * events and buffers lost, compression, containers.  Collected in one file-order pass;
 * memory is bounded (at most ETL_SUMMARY_MAX_PROVIDERS providers are told
 * apart, the rest are counted together). */
#ifndef ETWCAP_ETL_SUMMARY_H
#define ETWCAP_ETL_SUMMARY_H

#include "etw/etl/etl_containers.h"
#include "etw/etl/etl_reader.h"

#include <stddef.h>
#include <stdint.h>

#define ETL_SUMMARY_MAX_PROVIDERS 1024
#define ETL_SUMMARY_MAX_CPUS 256

struct etl_provider_stat {
  int is_kernel;          /* kernel group events (key: group) */
  uint8_t group;
  struct etw_guid guid;   /* otherwise */
  uint64_t events;
  uint64_t bytes;         /* user data bytes */
};

struct etl_summary {
  struct etl_logfile lf;
  unsigned compression;
  uint64_t events;
  uint64_t user_bytes;
  uint64_t buffers, buffers_compressed, buffers_events_lost, buffers_lost_flag;
  uint64_t file_bytes;              /* sum of on-disk buffer sizes */
  uint64_t by_header_type[0x16];
  uint64_t by_cpu[ETL_SUMMARY_MAX_CPUS];
  uint64_t other_cpus;
  uint64_t by_ext_type[ETW_EXT_TYPE_COUNT];
  uint64_t first_ts, last_ts, min_ts, max_ts;
  int have_ts;
  int64_t min_filetime, max_filetime;
  struct etl_provider_stat *providers; /* sorted by events, descending, after collect */
  size_t provider_count;
  uint64_t other_provider_events, other_provider_bytes;
  struct etl_containers containers; /* see etl_containers.h */
  /* Iteration state of etl_summary_add. */
  unsigned files;
  uint32_t last_buffer;
  uint64_t file_buffers_before;
  size_t hint;
};

/* Reads every event of r.  Returns 0 or the reader's error. */
int etl_summary_collect(struct etl_summary *s, struct etl_reader *r);

/* The same, one event at a time, for a caller that reads the events itself
 * (the report computes more in the same pass): init; for each file
 * begin_file, add each event, end_file; then finish (sorts the providers).
 * The header fields (lf, compression) are the first file's; counts add up
 * over files.  etl_summary_add takes the event's FILETIME (etl_clock_filetime
 * of its timestamp, read only when it has one: a caller that needs the time
 * too converts it once) and returns the event's provider row (stable until
 * finish), or NULL when it is counted with the others. */
int etl_summary_init(struct etl_summary *s);
void etl_summary_begin_file(struct etl_summary *s, struct etl_reader *r);
struct etl_provider_stat *etl_summary_add(struct etl_summary *s, struct etl_reader *r,
                                          const struct etw_event *ev, int64_t filetime);
void etl_summary_end_file(struct etl_summary *s, struct etl_reader *r);
/* 0, or ETWCAP_E_NOMEM when the containers could not be told. */
int etl_summary_finish(struct etl_summary *s);
void etl_summary_release(struct etl_summary *s);

/* A provider row's label: "kernel:Process" (or "kernel:N") or its GUID into
 * id; returns its well-known name, or NULL. */
const char *etl_summary_provider_label(const struct etl_provider_stat *p, char *id, size_t cap);

/* Writes the human report, one line per call. */
typedef int (*etl_summary_write_fn)(void *ctx, const char *line);
int etl_summary_report(const struct etl_summary *s, const char *display,
                       etl_summary_write_fn write, void *ctx);

#endif
