"""etwcap mark: the help documents it; off Windows it says it needs Windows;
under Wine (whose ETW records nothing, so no session listens) it says
plainly that no capture records etwcap's provider and exits 7.  The
provider is in every collection plan, under the GUID Python computes here
from the name by TraceEvent's EventSource algorithm."""
import hashlib
import uuid

from etwcap_e2e import Etwcap

t = Etwcap()


def eventsource_guid(name):
    ns = bytes.fromhex("482C2DB2C39047C887F81A15BFC130FB")
    h = bytearray(hashlib.sha1(ns + name.upper().encode("utf-16-be")).digest()[:16])
    h[7] = (h[7] & 0x0F) | 0x50
    return str(uuid.UUID(bytes_le=bytes(h)))


guid = eventsource_guid("etwcap")
rc, out, err = t.run("mark", "/?")
t.check(rc == 0 and guid in out, "mark /? documents the provider's GUID: %d %r" % (rc, out))

rc, out, err = t.run("plan", "collect", "/Json")
t.check(rc == 0 and guid in out.lower(), "the plan enables etwcap's provider: %d" % rc)
rc, out, err = t.run("plan", "collect", "/OnlyProviders:*Acme-App", "/Json")
t.check(rc == 0 and guid in out.lower(), "also with /OnlyProviders, as PerfView keeps its "
        "logger: %d" % rc)

rc, out, err = t.run("mark", "a message")
if t.windows:
    t.check(rc == 7 and "no trace session records etwcap's provider" in err and guid in err,
            "no session: said plainly, exit 7: %d %r" % (rc, err))
else:
    t.check(rc == 4 and "Windows" in err, "needs Windows: %d %r" % (rc, err))
t.finish()
