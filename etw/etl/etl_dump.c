/* Event line formatting (see etl_dump.h).  Column 4 uses etl_clock, whose
 * arithmetic is the listings' own; stack trace items show their frame count
 * in brackets as the listings do, and a container ID item is followed by
 * the ID (`container=...`), which the listings' samples never carry. */
#include "etw/etl/etl_dump.h"

#include "etw/etl/etl_names.h"
#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_timeorder.h"
#include "src/base/civil_time.h"
#include "src/base/os/os_time.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

char *etl_dump_provider(const struct etw_event *ev, char *out, size_t cap)
{
  if (ev->is_kernel) {
    const char *g = etl_kernel_group_name(ev->group);
    if (g)
      snprintf(out, cap, "kernel:%s", g);
    else
      snprintf(out, cap, "kernel:%u", (unsigned)ev->group);
  } else if (ev->has & ETW_HAS_PROVIDER) {
    char buf[GUID_STRING_SIZE];
    snprintf(out, cap, "%s", guid_format(&ev->provider, buf));
  } else if (ev->header_type == ETW_HDR_MESSAGE && (ev->event_property & 0x04)) {
    snprintf(out, cap, "component:%u", (unsigned)ev->component_id);
  } else {
    snprintf(out, cap, "-");
  }
  return out;
}

/* Appends with vsnprintf, never past cap. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void add(char *out, size_t cap, size_t *len, const char *fmt, ...)
{
  va_list ap;
  int n;
  if (*len >= cap)
    return;
  va_start(ap, fmt);
  n = vsnprintf(out + *len, cap - *len, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  *len += (size_t)n < cap - *len ? (size_t)n : cap - *len - 1;
}

/* The container the event came from, after the item list: the ID is what
 * a reader of the dump looks for, its type name alone says nothing. */
static void add_container(const struct etw_event *ev, char *out, size_t cap, size_t *len)
{
  char id[ETW_CONTAINER_ID_SIZE];
  int rc = etw_event_container_id(ev, id);
  if (rc > 0)
    add(out, cap, len, " container=%s", id);
  else if (rc < 0)
    add(out, cap, len, " container=invalid");
}

size_t etl_dump_format_event(const struct etw_event *ev, const struct etl_clock *clock,
                             char *out, size_t cap)
{
  size_t len = 0;
  char when[40], prov[64];
  unsigned i;
  unsigned long crc;

  if (!cap)
    return 0;
  out[0] = '\0';
  add(out, cap, &len, "%u\t%u\t", (unsigned)ev->buffer_index, (unsigned)ev->cpu);
  if (ev->has & ETW_HAS_TIMESTAMP)
    add(out, cap, &len, "%llu\t%s\t", (unsigned long long)ev->timestamp,
        filetime_format_iso7(etl_clock_filetime(clock, ev->timestamp), when, sizeof(when)));
  else
    add(out, cap, &len, "-\t-\t");
  add(out, cap, &len, "%s\t%s\t", etw_header_type_name(ev->header_type),
      etl_dump_provider(ev, prov, sizeof(prov)));

  if (ev->is_kernel)
    add(out, cap, &len, "hook=0x%04x(grp=%u,op=%u)", (unsigned)ev->hook_id,
        (unsigned)ev->group, (unsigned)ev->opcode);
  else if (ev->has & ETW_HAS_DESCRIPTOR)
    add(out, cap, &len, "id=%u v=%u op=%u task=%u lvl=%u kw=0x%llx", (unsigned)ev->id,
        (unsigned)ev->version, (unsigned)ev->opcode, (unsigned)ev->task, (unsigned)ev->level,
        (unsigned long long)ev->keyword);
  else if (ev->header_type == ETW_HDR_MESSAGE)
    add(out, cap, &len, "msg=%u opt=0x%x", (unsigned)ev->id, (unsigned)ev->event_property);
  else
    add(out, cap, &len, "type(op)=%u lvl=%u v=%u", (unsigned)ev->opcode, (unsigned)ev->level,
        (unsigned)ev->version);

  add(out, cap, &len, "\t%u\t", (unsigned)ev->user_len);
  if (ev->has & ETW_HAS_PID_TID)
    add(out, cap, &len, "pid=%u tid=%u", (unsigned)ev->pid, (unsigned)ev->tid);
  if (ev->has & ETW_HAS_DESCRIPTOR) {
    add(out, cap, &len, " flags=0x%x", (unsigned)ev->flags);
    for (i = 0; i < ev->ext_count; i++) {
      const struct etw_ext_item *x = &ev->ext[i];
      const char *name = etw_ext_type_name(x->type);
      add(out, cap, &len, "%s", i ? "," : " ext=");
      if (name)
        add(out, cap, &len, "%s", name);
      else
        add(out, cap, &len, "EXT%u", (unsigned)x->type);
      /* Stack items: u64 MatchId, then 4- or 8-byte frames. */
      if (x->type == ETW_EXT_STACK_TRACE64 && x->size >= 8)
        add(out, cap, &len, "[%u]", (unsigned)((x->size - 8u) / 8u));
      else if (x->type == ETW_EXT_STACK_TRACE32 && x->size >= 8)
        add(out, cap, &len, "[%u]", (unsigned)((x->size - 8u) / 4u));
    }
    add_container(ev, out, cap, &len);
  } else if (ev->header_type == ETW_HDR_MESSAGE && (ev->event_property & 0x01)) {
    add(out, cap, &len, "%sseq=%u", (ev->has & ETW_HAS_PID_TID) ? " " : "",
        (unsigned)ev->sequence);
  }
  crc = crc32(0L, Z_NULL, 0);
  if (ev->user_len)
    crc = crc32(crc, ev->user_data, ev->user_len);
  add(out, cap, &len, "\tcrc=%08lx", crc);
  return len;
}

static int write_header_line(struct etl_reader *r, etl_dump_write_fn write, void *ctx)
{
  const struct etl_logfile *lf = etl_reader_logfile(r);
  char line[1400], start[40], end[40];
  int n = snprintf(line, sizeof(line),
                   "#   logger='%s' logfile='%s' os=%u.%u build=%u cpus=%u ptr=%u "
                   "BufferSize=%u BuffersWritten=%u LogFileMode=0x%08x "
                   "ReservedFlags(clock)=%u PerfFreq=%lld CpuMHz=%u StartTime=%lld(%s) "
                   "EndTime=%lld(%s) EventsLost=%u BuffersLost=%u hdr-event-raw-ts=%llu",
                   lf->logger_name, lf->log_file_name, (unsigned)lf->os_major,
                   (unsigned)lf->os_minor, (unsigned)lf->build, (unsigned)lf->cpus,
                   (unsigned)lf->pointer_size, (unsigned)lf->buffer_size,
                   (unsigned)lf->buffers_written, (unsigned)lf->log_file_mode,
                   (unsigned)lf->clock_type, (long long)lf->perf_freq, (unsigned)lf->cpu_mhz,
                   (long long)lf->start_time,
                   filetime_format_iso7(lf->start_time, start, sizeof(start)),
                   (long long)lf->end_time, filetime_format_iso7(lf->end_time, end, sizeof(end)),
                   (unsigned)lf->events_lost, (unsigned)lf->buffers_lost,
                   (unsigned long long)lf->header_timestamp);
  if (n < 0)
    return 0;
  return write(ctx, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

int etl_dump_reader(struct etl_reader *r, int time_order, etl_dump_write_fn write, void *ctx)
{
  struct etl_timeorder *t = NULL;
  const struct etl_clock *clock = etl_reader_clock(r);
  struct etw_event ev;
  char line[ETL_DUMP_LINE_MAX];
  int rc = write_header_line(r, write, ctx);
  if (rc)
    return rc;
  if (time_order) {
    rc = etl_timeorder_open(&t, r);
    if (rc)
      return rc;
  }
  for (;;) {
    size_t len;
    rc = t ? etl_timeorder_next(t, &ev) : etl_reader_next(r, &ev);
    if (rc <= 0)
      break;
    len = etl_dump_format_event(&ev, clock, line, sizeof(line));
    rc = write(ctx, line, len);
    if (rc)
      break;
  }
  etl_timeorder_free(t);
  return rc < 0 ? rc : 0;
}
