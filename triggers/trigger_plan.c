/* See trigger_plan.h. */
#include "triggers/trigger_plan.h"

#include "src/base/error.h"
#include "triggers/trigger_engine.h"

#include <string.h>

struct collect {
  struct session_provider_need *out;
  size_t max, count;
  int overflow;
};

static void add_why(char *why, size_t cap, const char *q)
{
  char item[80];
  size_t n = strlen(q);
  const char *p = why;
  while ((p = strstr(p, q)) != NULL) { /* already listed? */
    if ((p == why || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
      return;
    p += n;
  }
  item[0] = '\0';
  if (why[0])
    tv_append(item, sizeof(item), ", ");
  tv_append(item, sizeof(item), q);
  tv_append(why, cap, item);
}

static void need(void *ctx, const struct etw_guid *guid, const char *name, int kernel,
                 uint64_t keywords, uint8_t level, const char *args, const char *qualifier)
{
  struct collect *c = ctx;
  struct session_provider_need *p = NULL;
  size_t i;
  for (i = 0; i < c->count; i++)
    if (guid_equal(&c->out[i].guid, guid))
      p = &c->out[i];
  if (!p) {
    if (c->count == c->max) {
      c->overflow = 1;
      return;
    }
    p = &c->out[c->count++];
    memset(p, 0, sizeof(*p));
    p->guid = *guid;
    tv_copy(p->name, sizeof(p->name), name);
    p->kernel = kernel;
  }
  p->keywords |= keywords;
  if (level > p->level)
    p->level = level;
  if (args[0] && !p->args[0])
    tv_copy(p->args, sizeof(p->args), args);
  add_why(p->why, sizeof(p->why), qualifier);
}

int trigger_session_providers(const struct trigger_engine *e, struct session_provider_need *out,
                              size_t max, size_t *count)
{
  struct collect c = { out, max, 0, 0 };
  trigger_engine_needs(e, need, &c);
  *count = c.count;
  return c.overflow ? ETWCAP_E_RANGE : 0;
}
