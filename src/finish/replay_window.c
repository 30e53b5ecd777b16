/* See replay_window.h. */
#include "src/finish/replay_window.h"

#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_source.h"
#include "etw/etl/etl_timeorder.h"
#include "etw/etl/etl_writer.h"
#include "etw/merge/etl_merge.h"
#include "etw/merge/merge_inputs.h"
#include "src/base/alloc.h"
#include "src/base/cancel.h"
#include "src/base/error.h"
#include "src/base/file_error.h"
#include "src/base/os/os_file.h"
#include "src/base/path_name.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

/* Each file becomes one input of the capture's merge. */
#define WINDOW_MAX_FILES ETL_MERGE_MAX_INPUTS

static int contains_case(const char *s, const char *word)
{
  size_t n = strlen(word);
  for (; *s; s++)
    if (str_ncaseeq(s, word, n))
      return 1;
  return 0;
}

int replay_window_file_name(const char *data_file, const char *member, unsigned index,
                            int main_taken, char *out, size_t cap)
{
  size_t n = path_stem_len(data_file, ".etl");
  const char *kind;
  int len;
  if (n == strlen(data_file))
    return ETWCAP_E_USAGE;
  if (contains_case(member, "kernel"))
    kind = "kernel";
  else if (contains_case(member, "rundown"))
    kind = "clrRundown";
  else if (!main_taken)
    kind = NULL;
  else
    kind = "user";
  if (!kind)
    len = snprintf(out, cap, "%.*s.etl", (int)n, data_file);
  else if (index == 0)
    len = snprintf(out, cap, "%.*s.%s.etl", (int)n, data_file, kind);
  else
    len = snprintf(out, cap, "%.*s.%s%u.etl", (int)n, data_file, kind, index + 1);
  return len < 0 || (size_t)len >= cap ? ETWCAP_E_RANGE : 0;
}

struct job {
  int64_t from, to;
  const char *data_file;
  char written[WINDOW_MAX_FILES][1100];
  unsigned count;
  int main_taken;
  struct replay_window_stats *stats;
  char *err;
  size_t cap;
};

static int write_one(void *ctx, const char *display, struct etl_reader *r)
{
  struct job *j = ctx;
  struct etl_writer_config cfg;
  struct etl_writer *w = NULL;
  struct etl_timeorder *t = NULL;
  struct etw_event ev;
  const struct etl_clock *clock = etl_reader_clock(r);
  const char *member = strrchr(display, '!') ? strrchr(display, '!') + 1 : display;
  char *path;
  int64_t size;
  int rc;
  if (j->count == WINDOW_MAX_FILES) {
    snprintf(j->err, j->cap, "%s: more than %d .etl files", display, WINDOW_MAX_FILES);
    return ETWCAP_E_UNSUPPORTED;
  }
  path = j->written[j->count];
  rc = replay_window_file_name(j->data_file, member, j->count, j->main_taken, path,
                               sizeof(j->written[0]));
  if (rc == ETWCAP_E_RANGE) {
    snprintf(j->err, j->cap,
             "/Out: the path is too long for the session files written beside it (each "
             "name must fit in %zu bytes): choose a shorter /Out path than '%s'",
             sizeof(j->written[0]) - 1, j->data_file);
    return ETWCAP_E_NAMETOOLONG;
  }
  if (rc) {
    snprintf(j->err, j->cap, "/Out: '%s' is not a usable NAME.etl(.zip)", j->data_file);
    return rc;
  }
  if (os_file_size(path, &size) == 0) {
    snprintf(j->err, j->cap, "%s already exists: choose another /Out name or remove it", path);
    return ETWCAP_E_EXIST;
  }
  if (!contains_case(member, "kernel") && !contains_case(member, "rundown"))
    j->main_taken = 1;
  memset(&cfg, 0, sizeof(cfg));
  cfg.header = *etl_reader_logfile(r);
  cfg.buffer_size = cfg.header.buffer_size >= 4096 && cfg.header.buffer_size % 8 == 0
                      ? cfg.header.buffer_size
                      : 65536;
  rc = etl_writer_open(&w, path, &cfg);
  if (rc) {
    file_create_error(j->err, j->cap, path, rc);
    return rc;
  }
  j->count++;
  rc = etl_timeorder_open(&t, r);
  while (!rc && (rc = etl_timeorder_next(t, &ev)) == 1) {
    int64_t ft;
    rc = 0;
    j->stats->events_in++;
    if (ev.buffer_index == 0) {
      /* The header buffer: the writer makes the logfile header itself; the
       * other header events (build info, ...) are kept as they are. */
      if ((ev.header_type == ETW_HDR_SYSTEM32 || ev.header_type == ETW_HDR_SYSTEM64) &&
          ev.hook_id != 0 && ev.raw_size >= 8)
        rc = etl_writer_add_header_event(w, ev.raw);
      continue;
    }
    if (!(ev.has & ETW_HAS_TIMESTAMP))
      continue;
    ft = etl_clock_filetime(clock, ev.timestamp);
    if (ft < j->from || ft > j->to)
      continue;
    rc = etl_writer_write(w, ev.cpu, ev.timestamp, ev.raw, ev.raw_size);
    if (!rc)
      j->stats->events_kept++;
    if (!rc && (j->stats->events_kept & 0xFFFu) == 0 && cancel_requested())
      rc = ETWCAP_E_CANCELLED;
  }
  etl_timeorder_free(t);
  if (rc < 0) {
    if (!j->err[0])
      snprintf(j->err, j->cap, "%s: %s", etl_reader_error(r)[0] ? etl_reader_error(r) : display,
               etwcap_strerror(rc));
    etl_writer_abort(w);
    j->count--;
    return rc;
  }
  etl_writer_header(w)->end_time = j->to;
  rc = etl_writer_finish(w);
  if (rc) {
    snprintf(j->err, j->cap, "%s: cannot write: %s", path, etwcap_strerror(rc));
    j->count--;
    return rc;
  }
  j->stats->files++;
  return 0;
}

/* The files written, data_file first, as capture_finish takes them. */
static int list_written(const struct job *j, struct merge_inputs *out)
{
  unsigned i;
  int rc = merge_inputs_add(out, j->data_file);
  for (i = 0; i < j->count && !rc; i++)
    if (strcmp(j->written[i], j->data_file) != 0)
      rc = merge_inputs_add(out, j->written[i]);
  merge_inputs_sort(out);
  return rc;
}

int replay_window_write(const char *trace, int64_t from, int64_t to, const char *data_file,
                        struct replay_window_stats *stats, struct merge_inputs *written,
                        char *err, size_t cap)
{
  struct job *j = etwcap_calloc(1, sizeof(*j));
  char msg[1024];
  unsigned i;
  int rc;
  memset(stats, 0, sizeof(*stats));
  err[0] = '\0';
  if (!j)
    return ETWCAP_E_NOMEM;
  j->from = from;
  j->to = to;
  j->data_file = data_file;
  j->stats = stats;
  j->err = err;
  j->cap = cap;
  rc = etl_source_foreach(trace, write_one, j, msg, sizeof(msg));
  if (rc && !err[0])
    snprintf(err, cap, "%s", msg);
  if (rc == 0 && !j->main_taken && j->count) {
    /* Only kernel or rundown files: the first becomes the main one. */
    char main[1100];
    snprintf(main, sizeof(main), "%.*s.etl", (int)path_stem_len(data_file, ".etl"), data_file);
    rc = os_rename_replace(j->written[0], main);
    if (rc)
      snprintf(err, cap, "%s: cannot rename: %s", main, etwcap_strerror(rc));
    else
      snprintf(j->written[0], sizeof(j->written[0]), "%s", main);
  }
  memset(written, 0, sizeof(*written));
  if (!rc && j->count && (rc = list_written(j, written)) != 0) {
    snprintf(err, cap, "%s", etwcap_strerror(rc));
    merge_inputs_release(written);
  }
  if (rc)
    for (i = 0; i < j->count; i++)
      os_remove(j->written[i]);
  etwcap_free(j);
  return rc;
}
