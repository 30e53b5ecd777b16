/* The events of etwcap's own provider, as TraceLogging bytes (see
 * own_provider.h); the OS side is own_provider_win32.c. */
#include "src/os/own_provider.h"

#include "etw/event/eventsource_guid.h"

int own_provider_guid(struct etw_guid *out)
{
  return eventsource_guid(OWN_PROVIDER_NAME, out);
}

int own_event_mark(struct tl_encoded *e, const char *message)
{
  tl_encode_begin(e, OWN_EVENT_MARK);
  tl_encode_utf8(e, "Message", message);
  return tl_encode_end(e);
}

int own_event_counter(struct tl_encoded *e, const char *category, const char *counter,
                      const char *instance, double value)
{
  tl_encode_begin(e, OWN_EVENT_COUNTER);
  tl_encode_utf8(e, "Category", category);
  tl_encode_utf8(e, "Counter", counter);
  tl_encode_utf8(e, "Instance", instance);
  tl_encode_double(e, "Value", value);
  return tl_encode_end(e);
}
