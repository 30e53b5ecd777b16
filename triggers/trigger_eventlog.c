/* See trigger_eventlog.h. */
#include "triggers/trigger_eventlog.h"

#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/os/os_time.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

char *trigger_eventlog_text(const struct trigger_message *m, char *buf, size_t cap)
{
  struct civil_time t;
  filetime_to_civil(m->ft, &t);
  snprintf(buf, cap, "%02u:%02u: Type: %s EventId: %lu Message: %s", t.hour, t.minute,
           m->type ? m->type : "", (unsigned long)m->event_id, m->message ? m->message : "");
  return buf;
}

int trigger_eventlog_message(const struct trigger_eventlog_spec *s, const struct trigger_message *m,
                             struct trigger_hit *hit)
{
  char small[1024], *text = small;
  size_t cap, i;
  int matched;
  if (!str_caseeq(m->log ? m->log : "", s->log))
    return 0;
  /* The regex sees the whole message, however long: the words around the
   * type and the message take 43 bytes at most. */
  cap = strlen(m->type ? m->type : "") + strlen(m->message ? m->message : "") + 64;
  if (cap > sizeof(small) && !(text = etwcap_malloc(cap)))
    return ETWCAP_E_NOMEM;
  trigger_eventlog_text(m, text, cap);
  matched = trigger_regex_match(&s->re, text, strlen(text));
  if (matched) {
    hit->value = m->event_id;
    tv_copy(hit->detail, sizeof(hit->detail), s->log);
    tv_append(hit->detail, sizeof(hit->detail), "@");
    tv_append(hit->detail, sizeof(hit->detail), text);
    for (i = 0; hit->detail[i]; i++)
      if (hit->detail[i] == '\t' || hit->detail[i] == '\n' || hit->detail[i] == '\r')
        hit->detail[i] = ' ';
  }
  if (text != small)
    etwcap_free(text);
  return matched;
}
