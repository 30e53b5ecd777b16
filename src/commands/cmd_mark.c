/* `etwcap mark [Message]`: PerfView's mark — a Mark event with the message
 * written by etwcap's own provider (own_provider.h), which every etwcap
 * capture's user session enables, so the moment shows in the trace.  ETW
 * drops an event nobody records, so mark asks first (EventEnabled) and says
 * plainly when no session would record it. */
#include "etw/event/guid.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/os/own_provider.h"

#include <stdio.h>

static int run_mark(const struct cli *cli)
{
  const char *message = cli->arg_count ? cli->args[0] : "";
  struct own_provider *p = NULL;
  struct tl_encoded e;
  struct etw_guid g;
  char why[512], gs[40];
  int rc;
  if ((rc = own_event_mark(&e, message)) != 0) {
    log_error("the message is too long for one event (%u bytes at most): shorten it",
              (unsigned)TL_ENCODE_DATA_MAX - 16u);
    return rc;
  }
  if ((rc = own_provider_open(&p, why, sizeof(why))) != 0) {
    log_error("%s", why);
    return rc;
  }
  if (!own_provider_listened(p)) {
    own_provider_guid(&g);
    guid_format(&g, gs);
    log_error("no trace session records etwcap's provider '%s' (%s): no etwcap capture is "
              "running (or its /Providers leave it out), so the mark was not written; start "
              "one with 'etwcap start' or 'etwcap collect'",
              OWN_PROVIDER_NAME, gs);
    own_provider_close(p);
    return ETWCAP_E_NO_SESSION;
  }
  if ((rc = own_provider_write(p, &e, why, sizeof(why))) != 0)
    log_error("the mark was not written: %s", why);
  else
    printf("Mark written: \"%s\"\n", message);
  own_provider_close(p);
  return rc;
}

const struct command cmd_mark = {
  "mark", run_mark, CMD_NEEDS_WINDOWS, "[Message]", 0, 1,
  "Write a Mark event with a message into the running captures.",
  "Writes a Mark event (field Message) from etwcap's own TraceLogging provider 'etwcap' "
  "(GUID e45c2f6f-cd71-5917-d0b1-1a492ba0ca1c, the EventSource hash of the name), which every "
  "etwcap capture's user session enables, so the moment can be found in the trace "
  "(PerfView shows it as etwcap/Mark). PerfView's own mark writes PerfView/Mark instead. When "
  "no session records the provider, mark says so and exits with code 7. Windows only (8 or "
  "later: the provider hands ETW its TraceLogging traits with EventSetInformation); checked "
  "only against a fake of EventRegister/EventSetInformation/EventEnabled/EventWriteTransfer, "
  "not yet on real Windows.",
  NULL,
};
