/* In-memory log lines (see log_memory.h). */
#include "src/base/log_memory.h"

#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/os/os_time.h"

#include <stdio.h>
#include <string.h>

static const char dropped_note[] = "(earlier lines dropped: the log is kept to 8 MiB)\n";

static void drop_oldest_half(struct log_memory *m)
{
  size_t cut = m->len / 2;
  const char *nl = memchr(m->text + cut, '\n', m->len - cut);
  cut = nl ? (size_t)(nl + 1 - m->text) : m->len;
  memmove(m->text, m->text + cut, m->len - cut);
  m->len -= cut;
  m->dropped = 1;
}

void log_memory_sink(void *ctx, enum log_level level, const char *line)
{
  struct log_memory *m = ctx;
  char stamp[32];
  size_t need;
  os_time_format_utc(os_time_now_utc_filetime(), stamp, sizeof(stamp));
  need = strlen(stamp) + 7 + strlen(line) + 2 + sizeof(dropped_note);
  if (m->len + need > LOG_MEMORY_MAX_BYTES)
    drop_oldest_half(m);
  if (m->len + need > m->cap) {
    size_t cap = m->cap ? m->cap : 4096;
    char *grown;
    while (cap < m->len + need)
      cap *= 2;
    grown = etwcap_realloc(m->text, cap);
    if (!grown)
      return; /* a log line is not worth failing the capture for */
    m->text = grown;
    m->cap = cap;
  }
  if (m->dropped && m->len == 0) {
    memcpy(m->text, dropped_note, sizeof(dropped_note) - 1);
    m->len = sizeof(dropped_note) - 1;
  }
  m->len += (size_t)snprintf(m->text + m->len, m->cap - m->len, "%s %-5s %s\n", stamp,
                             log_level_name(level), line);
}

void log_memory_release(struct log_memory *m)
{
  etwcap_free(m->text);
  memset(m, 0, sizeof(*m));
}
