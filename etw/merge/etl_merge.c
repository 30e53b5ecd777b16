/* The k-way merge of session files (see etl_merge.h). */
#include "etw/merge/etl_merge.h"

#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_timeorder.h"
#include "src/base/alloc.h"
#include "src/base/cancel.h"
#include "src/base/error.h"
#include "src/base/file_error.h"

#include <stdio.h>
#include <string.h>

struct source {
  const struct etl_merge_input *input;
  struct etl_reader *reader;
  struct etl_timeorder *order;
  struct etw_event next; /* valid while has_next */
  int has_next;
};

static int advance(struct source *s, char *why, size_t why_size)
{
  int rc = etl_timeorder_next(s->order, &s->next);
  if (rc < 0) {
    snprintf(why, why_size, "%s", etl_reader_error(s->reader));
    return rc;
  }
  s->has_next = rc;
  return 0;
}

/* Inputs compared with the first: same clock, frequency and boot. */
static int check_clocks(struct source *src, size_t n, char *why, size_t why_size)
{
  const struct etl_logfile *a = etl_reader_logfile(src[0].reader);
  size_t i;
  for (i = 1; i < n; i++) {
    const struct etl_logfile *b = etl_reader_logfile(src[i].reader);
    const char *what = a->clock_type != b->clock_type ? "clock type"
                       : a->perf_freq != b->perf_freq ? "PerfFreq"
                       : a->boot_time != b->boot_time ? "boot time"
                                                      : NULL;
    if (what) {
      snprintf(why, why_size,
               "cannot merge '%s' with '%s': their %s differs (%lld vs %lld), so their raw "
               "timestamps are not on one clock. Merge only the files of one collection.",
               src[0].input->name, src[i].input->name, what,
               (long long)(what[0] == 'c' ? a->clock_type
                           : what[0] == 'P' ? a->perf_freq : a->boot_time),
               (long long)(what[0] == 'c' ? b->clock_type
                           : what[0] == 'P' ? b->perf_freq : b->boot_time));
      return ETWCAP_E_UNSUPPORTED;
    }
  }
  return 0;
}

/* The merged file's header (rules in etl_merge.h). */
static void merged_header(struct source *src, size_t n, struct etl_writer_config *cfg)
{
  const struct etl_logfile *first = etl_reader_logfile(src[0].reader);
  struct etl_logfile *h = &cfg->header;
  size_t i;
  *h = *first;
  h->events_lost = 0;
  h->buffers_lost = 0;
  cfg->buffer_size = ETL_WRITER_DEFAULT_BUFFER_SIZE;
  /* The first input's time zone block and header event are kept whole:
   * StandardDate, DaylightName, DaylightDate and DaylightBias are what a
   * reader needs to show local times across a DST change. */
  cfg->tz_raw = first->tz_raw;
  cfg->header_pid = first->header_pid;
  cfg->header_tid = first->header_tid;
  for (i = 0; i < n; i++) {
    const struct etl_logfile *lf = etl_reader_logfile(src[i].reader);
    if (lf->start_time < h->start_time) {
      /* StartTime and the header event's timestamp are one pair: the clock. */
      h->start_time = lf->start_time;
      h->header_timestamp = lf->header_timestamp;
    }
    if (lf->end_time > h->end_time)
      h->end_time = lf->end_time;
    if (lf->cpus > h->cpus)
      h->cpus = lf->cpus;
    h->events_lost += lf->events_lost;
    h->buffers_lost += lf->buffers_lost;
    /* Keep buffers big enough for the largest event any input could hold. */
    if (lf->buffer_size > cfg->buffer_size && lf->buffer_size <= ETL_MAX_BUFFER_SIZE)
      cfg->buffer_size = (lf->buffer_size + 7u) & ~7u;
  }
  h->log_file_mode = (h->log_file_mode & ~(ETL_MODE_CIRCULAR | ETL_MODE_COMPRESSED)) |
                     ETL_MODE_RELOG | ETL_MODE_SEQUENTIAL;
}

static int open_sources(struct source *src, const struct etl_merge_input *inputs, size_t n,
                        char *why, size_t why_size)
{
  size_t i;
  int rc = 0;
  for (i = 0; i < n && !rc; i++) {
    src[i].input = &inputs[i];
    rc = etl_reader_open(&src[i].reader, &inputs[i].io, inputs[i].name);
    if (!rc)
      rc = etl_timeorder_open(&src[i].order, src[i].reader);
    if (rc && src[i].reader)
      snprintf(why, why_size, "%s", etl_reader_error(src[i].reader));
    if (!rc)
      rc = advance(&src[i], why, why_size);
  }
  return rc;
}

static struct source *earliest(struct source *src, size_t n)
{
  struct source *best = NULL;
  size_t i;
  /* A handful of inputs: a linear scan beats a heap.  Ties go to the
   * earlier input, so the merge is deterministic. */
  for (i = 0; i < n; i++)
    if (src[i].has_next && (!best || src[i].next.timestamp < best->next.timestamp))
      best = &src[i];
  return best;
}

static int is_logfile_header_event(const struct etw_event *ev)
{
  return ev->is_kernel && ev->hook_id == 0x0000;
}

int etl_merge(const struct etl_merge_input *inputs, size_t count, const char *out_path,
              const struct etl_merge_options *options, struct etl_merge_stats *stats, char *why,
              size_t why_size)
{
  struct etl_merge_options none;
  struct source *src = NULL, *s;
  struct etl_writer_config cfg;
  struct etl_writer *w = NULL;
  uint64_t total = 0, done = 0, next_report = 0;
  size_t i;
  int rc;

  memset(stats, 0, sizeof(*stats));
  why[0] = '\0';
  if (!options) {
    memset(&none, 0, sizeof(none));
    options = &none;
  }
  if (count == 0 || count > ETL_MERGE_MAX_INPUTS) {
    snprintf(why, why_size, "%s", count ? "more than 64 files to merge" : "nothing to merge");
    return ETWCAP_E_USAGE;
  }
  src = etwcap_calloc(count, sizeof(*src));
  if (!src)
    return ETWCAP_E_NOMEM;
  rc = open_sources(src, inputs, count, why, why_size);
  if (!rc)
    rc = check_clocks(src, count, why, why_size);
  if (rc)
    goto cleanup;
  for (i = 0; i < count; i++) {
    const struct etl_logfile *lf = etl_reader_logfile(src[i].reader);
    total += inputs[i].io.size > 0 ? (uint64_t)inputs[i].io.size : 0;
    stats->input[i].events_lost = lf->events_lost;
    stats->input[i].buffers_lost = lf->buffers_lost;
    snprintf(stats->input[i].logger, sizeof(stats->input[i].logger), "%s", lf->logger_name);
  }

  memset(&cfg, 0, sizeof(cfg));
  merged_header(src, count, &cfg);
  cfg.io = options->io;
  rc = etl_writer_open(&w, out_path, &cfg);
  if (rc) {
    file_create_error(why, why_size, out_path, rc);
    goto cleanup;
  }

  while (!rc && (s = earliest(src, count)) != NULL) {
    const struct etw_event *ev = &s->next;
    done += ev->raw_size;
    if (ev->buffer_index == 0) {
      /* Header buffers are rebuilt: the first input's extra header events
       * are kept once, every logfile-header event is replaced. */
      if (s == &src[0] && ev->is_kernel && !is_logfile_header_event(ev))
        rc = etl_writer_add_header_event(w, ev->raw);
    } else {
      stats->events_in++;
      stats->input[s - src].events++;
      if (options->inject)
        rc = options->inject(options->inject_ctx, ev, w);
      if (!rc)
        rc = etl_writer_write(w, ev->cpu, ev->timestamp, ev->raw, ev->raw_size);
    }
    if (!rc)
      rc = advance(s, why, why_size);
    if (!rc && (stats->events_in & 0xFFFu) == 0 && cancel_requested())
      rc = ETWCAP_E_CANCELLED;
    if (options->progress && done >= next_report) {
      options->progress(options->progress_ctx, done, total);
      next_report = done + (4u << 20);
    }
  }
  stats->bytes_in = done;
  if (rc) {
    if (!why[0])
      snprintf(why, why_size, "cannot write '%s': %s", out_path, etwcap_strerror(rc));
    etl_writer_abort(w);
    goto cleanup;
  }
  stats->events_out = etl_writer_events(w);
  stats->header = *etl_writer_header(w);
  rc = etl_writer_finish(w);
  if (rc)
    snprintf(why, why_size, "cannot write '%s': %s", out_path, etwcap_strerror(rc));
  else if (options->progress)
    options->progress(options->progress_ctx, total, total);

cleanup:
  for (i = 0; i < count; i++) {
    if (src[i].order)
      etl_timeorder_free(src[i].order);
    if (src[i].reader)
      etl_reader_free(src[i].reader);
  }
  etwcap_free(src);
  return rc;
}
