/* Statistics and the human report behind `etwcap info` (see etl_summary.h). */
#include "etw/etl/etl_summary.h"

#include "etw/etl/etl_decompress.h"
#include "etw/etl/etl_dump.h"
#include "etw/etl/etl_names.h"
#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/os/os_time.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct etl_provider_stat *find_provider(struct etl_summary *s, const struct etw_event *ev,
                                               size_t *hint)
{
  size_t i;
  struct etl_provider_stat *p;
  int kernel = ev->is_kernel;
  /* Events of one provider come in runs: try the last hit first. */
  if (*hint < s->provider_count) {
    p = &s->providers[*hint];
    if (p->is_kernel == kernel &&
        (kernel ? p->group == ev->group : guid_equal(&p->guid, &ev->provider)))
      return p;
  }
  for (i = 0; i < s->provider_count; i++) {
    p = &s->providers[i];
    if (p->is_kernel == kernel &&
        (kernel ? p->group == ev->group : guid_equal(&p->guid, &ev->provider))) {
      *hint = i;
      return p;
    }
  }
  if (s->provider_count >= ETL_SUMMARY_MAX_PROVIDERS)
    return NULL;
  p = &s->providers[s->provider_count];
  memset(p, 0, sizeof(*p));
  p->is_kernel = kernel;
  p->group = ev->group;
  if (!kernel)
    p->guid = ev->provider;
  *hint = s->provider_count++;
  return p;
}

static int by_events_desc(const void *a, const void *b)
{
  const struct etl_provider_stat *x = a, *y = b;
  if (x->events != y->events)
    return x->events > y->events ? -1 : 1;
  return 0;
}

int etl_summary_init(struct etl_summary *s)
{
  memset(s, 0, sizeof(*s));
  etl_containers_init(&s->containers);
  s->providers = etwcap_calloc(ETL_SUMMARY_MAX_PROVIDERS, sizeof(*s->providers));
  return s->providers ? 0 : ETWCAP_E_NOMEM;
}

void etl_summary_begin_file(struct etl_summary *s, struct etl_reader *r)
{
  if (!s->files++) {
    s->lf = *etl_reader_logfile(r);
    s->compression = etl_reader_compression(r);
  }
  s->last_buffer = UINT32_MAX;
  s->file_buffers_before = s->buffers;
}

struct etl_provider_stat *etl_summary_add(struct etl_summary *s, struct etl_reader *r,
                                          const struct etw_event *ev, int64_t filetime)
{
  struct etl_provider_stat *p;
  unsigned i;
  if (ev->buffer_index != s->last_buffer) {
    const struct etl_buffer *b = etl_reader_current_buffer(r);
    s->last_buffer = ev->buffer_index;
    s->buffers++;
    s->file_bytes += b->h.buffer_size;
    if (b->h.flags & ETL_BUFFER_FLAG_COMPRESSED)
      s->buffers_compressed++;
    if (b->h.flags & ETL_BUFFER_FLAG_EVENTS_LOST)
      s->buffers_events_lost++;
    if (b->h.flags & ETL_BUFFER_FLAG_BUFFER_LOST)
      s->buffers_lost_flag++;
  }
  s->events++;
  s->user_bytes += ev->user_len;
  if ((unsigned)ev->header_type < sizeof(s->by_header_type) / sizeof(s->by_header_type[0]))
    s->by_header_type[ev->header_type]++;
  if (ev->cpu < ETL_SUMMARY_MAX_CPUS)
    s->by_cpu[ev->cpu]++;
  else
    s->other_cpus++;
  for (i = 0; i < ev->ext_count; i++)
    if (ev->ext[i].type < ETW_EXT_TYPE_COUNT)
      s->by_ext_type[ev->ext[i].type]++;
  if (ev->has & ETW_HAS_TIMESTAMP) {
    etl_containers_event(&s->containers, ev, filetime);
    if (!s->have_ts) {
      s->first_ts = s->min_ts = s->max_ts = ev->timestamp;
      s->have_ts = 1;
    }
    if (ev->timestamp < s->min_ts)
      s->min_ts = ev->timestamp;
    if (ev->timestamp > s->max_ts)
      s->max_ts = ev->timestamp;
    s->last_ts = ev->timestamp;
  }
  p = find_provider(s, ev, &s->hint);
  if (p) {
    p->events++;
    p->bytes += ev->user_len;
  } else {
    s->other_provider_events++;
    s->other_provider_bytes += ev->user_len;
  }
  return p;
}

void etl_summary_end_file(struct etl_summary *s, struct etl_reader *r)
{
  const struct etl_clock *clock = etl_reader_clock(r);
  /* Buffers without events are counted too. */
  if (s->file_buffers_before + etl_reader_buffers_seen(r) > s->buffers)
    s->buffers = s->file_buffers_before + etl_reader_buffers_seen(r);
  if (s->have_ts) {
    s->min_filetime = etl_clock_filetime(clock, s->min_ts);
    s->max_filetime = etl_clock_filetime(clock, s->max_ts);
  }
}

int etl_summary_finish(struct etl_summary *s)
{
  qsort(s->providers, s->provider_count, sizeof(*s->providers), by_events_desc);
  return etl_containers_finish(&s->containers);
}

int etl_summary_collect(struct etl_summary *s, struct etl_reader *r)
{
  struct etw_event ev;
  int rc = etl_summary_init(s);
  if (rc)
    return rc;
  etl_summary_begin_file(s, r);
  while ((rc = etl_reader_next(r, &ev)) == 1)
    etl_summary_add(s, r, &ev,
                    ev.has & ETW_HAS_TIMESTAMP
                        ? etl_clock_filetime(etl_reader_clock(r), ev.timestamp)
                        : 0);
  etl_summary_end_file(s, r);
  if (rc >= 0)
    rc = etl_summary_finish(s);
  return rc < 0 ? rc : 0;
}

void etl_summary_release(struct etl_summary *s)
{
  etwcap_free(s->providers);
  etl_containers_release(&s->containers);
  memset(s, 0, sizeof(*s));
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int line(etl_summary_write_fn write, void *ctx, const char *fmt, ...)
{
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return write(ctx, buf);
}

static void mode_text(uint32_t mode, char *out, size_t cap)
{
  static const struct { uint32_t bit; const char *name; } bits[] = {
    { 0x00000001, "SEQUENTIAL" }, { 0x00000002, "CIRCULAR" }, { 0x00000004, "APPEND" },
    { 0x00000008, "NEWFILE" }, { 0x00000020, "PREALLOCATE" }, { 0x00000100, "REAL_TIME" },
    { 0x00000080, "NONSTOPPABLE" }, { 0x00010000, "RELOG" },
    { 0x00000800, "PRIVATE_LOGGER" }, { 0x02000000, "SYSTEM_LOGGER" },
    { 0x04000000, "COMPRESSED" }, { 0x08000000, "INDEPENDENT_SESSION" },
  };
  size_t i, len = 0;
  out[0] = '\0';
  for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
    if (mode & bits[i].bit) {
      int n = snprintf(out + len, cap - len, "%s%s", len ? "|" : "", bits[i].name);
      if (n < 0 || (size_t)n >= cap - len)
        break;
      len += (size_t)n;
    }
  }
  if (!out[0])
    snprintf(out, cap, "none");
}

const char *etl_summary_provider_label(const struct etl_provider_stat *p, char *id, size_t cap)
{
  const char *name;
  char text[GUID_STRING_SIZE];
  if (!p->is_kernel) {
    snprintf(id, cap, "%s", guid_format(&p->guid, text));
    return etl_provider_name(&p->guid);
  }
  name = etl_kernel_group_name(p->group);
  if (name)
    snprintf(id, cap, "kernel:%s", name);
  else
    snprintf(id, cap, "kernel:%u", (unsigned)p->group);
  return "Windows Kernel (classic)";
}

/* One line per container: its ID, the events that carried it, and its
 * processes; nothing when the trace has none. */
static int containers_report(const struct etl_containers *c, etl_summary_write_fn write,
                             void *ctx)
{
  char list[900];
  size_t i, j, len;
  int rc;
  if (!c->count && !c->invalid_items)
    return 0;
  rc = line(write, ctx, "Containers:    %u (from CONTAINER_ID items and Kernel-Process starts)",
            (unsigned)c->count);
  if (!rc && c->invalid_items)
    rc = line(write, ctx, "  %llu container ID items were no GUID and were left out",
              (unsigned long long)c->invalid_items);
  if (!rc && (c->events_dropped || c->facts_dropped))
    rc = line(write, ctx, "  more than %u containers or %u process facts: the rest were left out",
              (unsigned)ETL_CONTAINERS_MAX, (unsigned)ETL_CONTAINER_RECORDS_MAX);
  for (i = 0; i < c->count && !rc; i++) {
    const struct etl_container *k = &c->list[i];
    len = 0;
    list[0] = '\0';
    for (j = 0; j < k->pid_count; j++) {
      int n = snprintf(list + len, sizeof(list) - len, "%s%u", j ? ", " : "",
                       (unsigned)k->pids[j]);
      if (n < 0 || (size_t)n >= sizeof(list) - len - 16) {
        snprintf(list + len, sizeof(list) - len, " (and %u more)", (unsigned)(k->pid_count - j));
        break;
      }
      len += (size_t)n;
    }
    rc = line(write, ctx, "  %s %10llu events, processes: %s", k->id,
              (unsigned long long)k->events, k->pid_count ? list : "none");
  }
  return rc;
}

int etl_summary_report(const struct etl_summary *s, const char *display,
                       etl_summary_write_fn write, void *ctx)
{
  const struct etl_logfile *lf = &s->lf;
  char t1[40], t2[40], mode[200], list[900];
  size_t i, len;
  int rc = 0;

#define LINE(...)                                  \
  do {                                             \
    if ((rc = line(write, ctx, __VA_ARGS__)) != 0) \
      return rc;                                   \
  } while (0)

  LINE("File:          %s", display);
  LINE("Logger:        '%s' (log file '%s')", lf->logger_name, lf->log_file_name);
  LINE("OS:            Windows %u.%u build %u", (unsigned)lf->os_major, (unsigned)lf->os_minor,
       (unsigned)lf->build);
  LINE("CPUs:          %u (%u MHz), pointer size %u", (unsigned)lf->cpus,
       (unsigned)lf->cpu_mhz, (unsigned)lf->pointer_size);
  if (lf->clock_type == ETL_CLOCK_QPC)
    LINE("Clock:         %s at %lld Hz", etl_clock_type_name(lf->clock_type), (long long)lf->perf_freq);
  else
    LINE("Clock:         %s", etl_clock_type_name(lf->clock_type));
  mode_text(lf->log_file_mode, mode, sizeof(mode));
  LINE("Log file mode: 0x%08x (%s)", (unsigned)lf->log_file_mode, mode);
  LINE("Start:         %s (logfile header)", filetime_format_iso7(lf->start_time, t1, sizeof(t1)));
  LINE("End:           %s (logfile header)", filetime_format_iso7(lf->end_time, t1, sizeof(t1)));
  if (s->have_ts) {
    /* min <= max, and both are FILETIMEs: the difference is not negative. */
    uint64_t d = (uint64_t)s->max_filetime - (uint64_t)s->min_filetime;
    LINE("Events from:   %s", filetime_format_iso7(s->min_filetime, t1, sizeof(t1)));
    LINE("Events to:     %s", filetime_format_iso7(s->max_filetime, t2, sizeof(t2)));
    LINE("Duration:      %llu.%07llu s", (unsigned long long)(d / 10000000),
         (unsigned long long)(d % 10000000));
  }
  LINE("Buffers:       %llu read, %llu bytes on disk (BufferSize %u, BuffersWritten %u)",
       (unsigned long long)s->buffers, (unsigned long long)s->file_bytes,
       (unsigned)lf->buffer_size, (unsigned)lf->buffers_written);
  if (s->compression || s->buffers_compressed)
    LINE("Compression:   %s, %llu of %llu buffers compressed",
         etl_compression_name(s->compression), (unsigned long long)s->buffers_compressed,
         (unsigned long long)s->buffers);
  else
    LINE("Compression:   none");
  LINE("Events:        %llu, %llu bytes of user data", (unsigned long long)s->events,
       (unsigned long long)s->user_bytes);
  LINE("Lost:          %u events, %u buffers (logfile header); %llu buffers flagged "
       "EVENTS_LOST, %llu BUFFER_LOST",
       (unsigned)lf->events_lost, (unsigned)lf->buffers_lost,
       (unsigned long long)s->buffers_events_lost, (unsigned long long)s->buffers_lost_flag);

  len = 0;
  list[0] = '\0';
  for (i = 0; i < sizeof(s->by_header_type) / sizeof(s->by_header_type[0]); i++) {
    int n;
    if (!s->by_header_type[i])
      continue;
    n = snprintf(list + len, sizeof(list) - len, "%s%s=%llu", len ? ", " : "",
                 etw_header_type_name((enum etw_header_type)i),
                 (unsigned long long)s->by_header_type[i]);
    if (n < 0 || (size_t)n >= sizeof(list) - len)
      break;
    len += (size_t)n;
  }
  LINE("Header types:  %s", len ? list : "none");

  len = 0;
  list[0] = '\0';
  for (i = 0; i < ETL_SUMMARY_MAX_CPUS; i++) {
    int n;
    if (!s->by_cpu[i])
      continue;
    n = snprintf(list + len, sizeof(list) - len, "%s%u=%llu", len ? ", " : "", (unsigned)i,
                 (unsigned long long)s->by_cpu[i]);
    if (n < 0 || (size_t)n >= sizeof(list) - len)
      break;
    len += (size_t)n;
  }
  LINE("Events by CPU: %s%s", len ? list : "none", s->other_cpus ? " (and more)" : "");

  len = 0;
  list[0] = '\0';
  for (i = 0; i < ETW_EXT_TYPE_COUNT; i++) {
    const char *name = etw_ext_type_name((unsigned)i);
    int n;
    if (!s->by_ext_type[i])
      continue;
    n = snprintf(list + len, sizeof(list) - len, "%s%s=%llu", len ? ", " : "",
                 name ? name : "other", (unsigned long long)s->by_ext_type[i]);
    if (n < 0 || (size_t)n >= sizeof(list) - len)
      break;
    len += (size_t)n;
  }
  LINE("Extended items: %s", len ? list : "none");
  if ((rc = containers_report(&s->containers, write, ctx)) != 0)
    return rc;

  LINE("Providers:     %u%s", (unsigned)s->provider_count,
       s->other_provider_events ? " (and more, counted as 'other')" : "");
  LINE("  %10s %12s  %s", "events", "bytes", "provider");
  for (i = 0; i < s->provider_count; i++) {
    const struct etl_provider_stat *p = &s->providers[i];
    char id[GUID_STRING_SIZE + 16];
    const char *name = etl_summary_provider_label(p, id, sizeof(id));
    LINE("  %10llu %12llu  %s%s%s", (unsigned long long)p->events,
         (unsigned long long)p->bytes, id, name ? "  " : "", name ? name : "");
  }
  if (s->other_provider_events)
    LINE("  %10llu %12llu  other", (unsigned long long)s->other_provider_events,
         (unsigned long long)s->other_provider_bytes);
#undef LINE
  return 0;
}
