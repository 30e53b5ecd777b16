/* consumer.h off Windows: there is no real-time ETW to attach to.  The
 * commands that would use it need Windows and are refused before; this
 * keeps the portable collection code linking. */
#include "etw/session/consumer.h"

#include "src/base/error.h"

#include <string.h>

static int open_none(struct consumer *c, const char *session, consumer_event_fn fn, void *ctx)
{
  (void)session, (void)fn, (void)ctx;
  c->api = "OpenTraceW";
  c->os_code = 0;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static void close_none(struct consumer *c, struct consumer_stats *stats)
{
  (void)c;
  if (stats)
    memset(stats, 0, sizeof(*stats));
}

static const struct consumer_ops none_ops = { "none", open_none, close_none };

void consumer_system(struct consumer *c)
{
  memset(c, 0, sizeof(*c));
  c->ops = &none_ops;
}
