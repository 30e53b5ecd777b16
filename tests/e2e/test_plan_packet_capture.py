"""End-to-end check of /NetworkCapture and /NetMonCapture in `etwcap plan`
(docs/plan-json.md, packetCapture): the JSON parses, netsh's arguments are
PerfView's (CommandProcessor.cs Start), the user session enables the packet
provider, and the table names netsh and its file; natively and as etwcap.exe
under Wine.  /TargetOS pins the Windows version."""
import json

from etwcap_e2e import Etwcap

t = Etwcap()
NDIS = "2ed6006e-4729-4609-b423-3ee7bcd678ef"


def plan(*args):
    rc, out, err = t.run("plan", "/Json", *args)
    t.check(rc == 0, "plan %s exits 0 (%d %s)" % (" ".join(args), rc, err.strip()))
    try:
        return json.loads(out) if rc == 0 else None
    except ValueError as e:
        t.check(False, "plan %s prints JSON: %s" % (" ".join(args), e))
        return None


p = plan("/TargetOS:10.0.20348", "collect", "/DataFile:web.etl", "/NetworkCapture")
pc = p and p["packetCapture"]
t.check(pc is not None and pc["tool"] == "netsh.exe"
        and pc["startArguments"] == "trace start scenario=InternetClient capture=yes "
                                   "correlation=no report=disabled maxSize=1 perfMerge=no "
                                   "\"traceFile=web.netmon.etl\""
        and pc["stopArguments"] == "trace stop" and pc["traceFile"] == "web.netmon.etl"
        and pc["traceFileKept"] is False,
        "plan /NetworkCapture: PerfView's netsh line (%r)" % (pc,))
user = p and [s for s in p["sessions"] if s["role"] == "user"][0]
t.check(user is not None
        and any(pr["guid"] == NDIS and pr["level"] == 4 for pr in user["providers"]),
        "plan /NetworkCapture: the user session records NDIS-PacketCapture")

p = plan("/TargetOS:6.1", "collect", "/DataFile:web.etl", "/NetworkCapture")
pc = p and p["packetCapture"]
t.check(pc is not None and pc["traceFileKept"] is True and pc["traceFile"] == "web_netmon.etl"
        and pc["startArguments"] == "trace start scenario=InternetClient capture=yes "
                                   "\"traceFile=web_netmon.etl\"",
        "plan /NetworkCapture before Windows 8: the NetMon form (%r)" % (pc,))

p = plan("/TargetOS:10.0.20348", "collect")
t.check(p is not None and p["packetCapture"] is None, "plan without the switch: packetCapture null")

rc, out, err = t.run("plan", "/TargetOS:10.0.20348", "collect", "/NetMonCapture")
t.check(rc == 0 and "netsh.exe trace start scenario=InternetClient capture=yes" in out
        and "etwcapData_netmon.etl" in out and "kept for Network Monitor" in out,
        "plan /NetMonCapture: the table shows netsh and its file")

t.finish()
