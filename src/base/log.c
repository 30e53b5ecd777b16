/* Fan-out of log lines to the installed sinks (see log.h).  A line goes
 * to every sink under one lock, so a background snapshot's merge can log
 * beside the collection's main thread without interleaving.  The lock is
 * made with the first sink, before any thread that logs exists. */
#include "src/base/log.h"

#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/os/os_thread.h"
#include "src/base/os/os_time.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

struct sink {
  log_sink_fn fn;
  void *ctx;
  enum log_level min_level;
};

static struct sink sinks[LOG_MAX_SINKS];
static int sink_count;
static os_mutex lock;
static int lock_made;

int log_add_sink(log_sink_fn fn, void *ctx, enum log_level min_level)
{
  if (!lock_made) {
    os_mutex_init(&lock);
    lock_made = 1;
  }
  os_mutex_lock(&lock);
  if (sink_count == LOG_MAX_SINKS) {
    os_mutex_unlock(&lock);
    return ETWCAP_E_RANGE;
  }
  sinks[sink_count].fn = fn;
  sinks[sink_count].ctx = ctx;
  sinks[sink_count].min_level = min_level;
  sink_count++;
  os_mutex_unlock(&lock);
  return 0;
}

void log_remove_sink(log_sink_fn fn, void *ctx)
{
  int i;
  if (!lock_made)
    return;
  os_mutex_lock(&lock);
  for (i = 0; i < sink_count; i++) {
    if (sinks[i].fn == fn && sinks[i].ctx == ctx) {
      memmove(&sinks[i], &sinks[i + 1], (size_t)(sink_count - i - 1) * sizeof(sinks[0]));
      sink_count--;
      break;
    }
  }
  os_mutex_unlock(&lock);
}

void log_remove_all_sinks(void)
{
  if (!lock_made)
    return;
  os_mutex_lock(&lock);
  sink_count = 0;
  os_mutex_unlock(&lock);
}

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
  char line[2048];
  int i;

  if (!lock_made)
    return; /* no sink yet */
  vsnprintf(line, sizeof(line), fmt, ap);
  /* A message is one line, whatever the names from files in it hold; no
   * message of ours uses a control character. */
  str_neutralise_controls(line);
  os_mutex_lock(&lock);
  for (i = 0; i < sink_count; i++)
    if (level >= sinks[i].min_level)
      sinks[i].fn(sinks[i].ctx, level, line);
  os_mutex_unlock(&lock);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  log_vmsg(level, fmt, ap);
  va_end(ap);
}

const char *log_level_name(enum log_level level)
{
  switch (level) {
  case LOG_DEBUG:
    return "DEBUG";
  case LOG_INFO:
    return "INFO";
  case LOG_WARN:
    return "WARN";
  case LOG_ERROR:
    return "ERROR";
  }
  return "?";
}

void log_stream_sink(void *ctx, enum log_level level, const char *line)
{
  FILE *out = ctx;
  if (level >= LOG_ERROR)
    fprintf(out, "etwcap: error: %s\n", line);
  else if (level == LOG_WARN)
    fprintf(out, "etwcap: warning: %s\n", line);
  else
    fprintf(out, "%s\n", line);
  fflush(out);
}

void log_file_sink(void *ctx, enum log_level level, const char *line)
{
  FILE *out = ctx;
  char stamp[32];
  os_time_format_utc(os_time_now_utc_filetime(), stamp, sizeof(stamp));
  fprintf(out, "%s %-5s %s\n", stamp, log_level_name(level), line);
  fflush(out);
}
