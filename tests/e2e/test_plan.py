"""End-to-end checks of `etwcap plan`: the command lines users type
(docs/perfview-collection.md §10) pasted after `etwcap plan` give a JSON plan
(docs/plan-json.md) with the numbers of docs/perfview-collection.md §3-§4,
natively and as etwcap.exe under Wine.  /TargetOS pins the Windows version
so both give the same plan."""
import json

from etwcap_e2e import Etwcap

t = Etwcap()
SERVER = "/TargetOS:10.0.20348"


def plan(*args):
    rc, out, err = t.run("plan", SERVER, "/Json", *args)
    if rc != 0:
        t.check(False, "plan %s exits 0 (got %d: %s)" % (" ".join(args), rc, err))
        return None
    try:
        return json.loads(out)
    except ValueError as e:
        t.check(False, "plan %s prints JSON: %s\n%s" % (" ".join(args), e, out[:500]))
        return None


def session(doc, role):
    for s in doc["sessions"]:
        if s["role"] == role:
            return s
    return None


def provider(s, guid, pass_=0):
    for p in s["providers"]:
        if p["guid"] == guid and p["pass"] == pass_:
            return p
    return None


CLR = "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"

# PerfView /ThreadTime collect /BufferSizeMB:1024 /CircularMB:2048
doc = plan("/ThreadTime", "collect", "/BufferSizeMB:1024", "/CircularMB:2048")
if doc:
    t.check(doc["schema"] == "etwcap-plan/1", "schema name")
    t.check(doc["windows"] == {"version": "10.0.20348", "major": 10, "minor": 0,
                               "build": 20348, "assumed": True}, "target Windows is printed")
    t.check(doc["dataFile"] == "etwcapData.etl" and doc["zipFile"] == "etwcapData.etl.zip",
            "default data file")
    k = session(doc, "kernel")
    t.check(k and k["name"] == "etwcapKernel", "kernel session is a private system logger")
    t.check(k and k["kernel"]["keywords"] == "0x1012F1F", "ThreadTime kernel keywords 0x01012F1F")
    t.check(k and "SYSTEM_LOGGER_MODE" in k["logFileModeNames"] and
            "FILE_MODE_CIRCULAR" in k["logFileModeNames"], "kernel: circular system logger")
    t.check(k and k["maximumFileSizeMB"] == 2048, "kernel circular size = CircularMB")
    t.check(k and k["minimumBuffers"] == 16384 and k["maximumBuffers"] == 20490
            and k["bufferSizeKB"] == 64, "1024 MB of 64 KB buffers")
    t.check(k and k["kernel"]["profileInterval100ns"] == 10000, "1 ms sampling")
    u = session(doc, "user")
    t.check(u and u["name"] == "etwcap" and u["file"] == "etwcapData.etl", "user session")
    t.check(u and u["maximumFileSizeMB"] == 2348, "user circular size = CircularMB + 300")
    clr = u and provider(u, CLR)
    t.check(clr and clr["matchAnyKeyword"] == "0x14C14FCC9D" and clr["level"] == 5,
            "CLR Default without NGen at Verbose")
    t.check(clr and "Loader" in clr["keywordNames"], "CLR keywords by name")
    r = session(doc, "rundown")
    t.check(r and r["when"] == "stop" and r["file"] == "etwcapData.clrRundown.etl",
            "rundown session at stop")
    t.check(r and provider(r, "a669021c-c450-4609-a035-5af59af4df18", 1)["matchAnyKeyword"]
            == "0x1080060111", "method rundown keywords")

# ... with the ASP.NET Core and System.Net EventSources
for spec, guids in (
        ("/Providers:*Microsoft.AspNetCore.Hosting,*Microsoft-AspNetCore-Server-Kestrel",
         ["9ded64a4-414c-5251-dcf7-1e4e20c15e70", "bdeb4676-a36e-5442-db99-4764e2326c7d"]),
        ("/Providers:*System.Net.Http,*System.Net.NameResolution,*System.Net.Security,"
         "*System.Net.Sockets",
         ["d30b5633-7ef1-5485-b4e0-94979b102068", "4b326142-bfb5-5ed3-8585-7714181d14b0",
          "7beee6b1-e3fa-5ddb-34be-1404ad0e2520", "d5b2e7d4-b6ec-50ae-7cde-af89427ad21f"])):
    doc = plan("/ThreadTime", "collect", "/BufferSizeMB:1024", "/CircularMB:2048", spec)
    if doc:
        u = session(doc, "user")
        r = session(doc, "rundown")
        for g in guids:
            p = provider(u, g)
            t.check(p and p["matchAnyKeyword"] == "0xFFFFFFFFFFFFFFFF" and p["level"] == 5,
                    "%s enabled at Verbose, all keywords" % g)
            p = provider(r, g)
            t.check(p and p["matchAnyKeyword"] == "0x80000000000" and p["level"] == 1,
                    "%s manifest rundown" % g)

# PerfView collect /GCCollectOnly
doc = plan("collect", "/GCCollectOnly")
if doc:
    k = session(doc, "kernel")
    t.check(k["kernel"]["enableFlags"] == "0x00000003" and k["kernel"]["stackIds"] == [],
            "GCCollectOnly: process+thread, no stacks")
    clr = provider(session(doc, "user"), CLR)
    t.check(clr["matchAnyKeyword"] == "0x1" and clr["level"] == 4, "GCCollectOnly: GC at Info")

# PerfView collect /ClrEvents:Default-Profile
doc = plan("collect", "/ClrEvents:Default-Profile")
if doc:
    clr = provider(session(doc, "user"), CLR)
    t.check(clr["matchAnyKeyword"] == "0x14C14FCC9D", "Default-Profile = Default")
    t.check(any("Profile" in n for n in doc["notes"]), "Default-Profile is explained")

# PerfView /EnableEventsInContainers collect
doc = plan("/EnableEventsInContainers", "collect")
if doc:
    for role in ("user", "rundown"):
        t.check(all(p["enableProperty"] & 0x400 for p in session(doc, role)["providers"]),
                "ENABLE_SILOS on every %s enable" % role)

# A container host (issue: containers from the host): both container bits
# (EVENT_ENABLE_PROPERTY_ENABLE_SILOS 0x400, SOURCE_CONTAINER_TRACKING 0x800,
# TraceEvent's TraceEventNativeMethods.cs) on every provider of the user,
# rundown and trigger sessions, EventSources (*Name) included, and on
# Microsoft-Windows-Kernel-Process, whose ProcessStart carries the ID that
# joins processes to containers.
doc = plan("/EnableEventsInContainers", "/EnableSourceContainerTracking",
           "/Providers:*MyCompany-Billing", "/StopOnEtwEvent:*MyCompany-Orders/OrderFailed",
           "collect")
if doc:
    for role in ("user", "rundown", "trigger"):
        s = session(doc, role)
        t.check(s is not None and s["providers"], "a %s session with providers" % role)
        lacking = [p["name"] for p in (s["providers"] if s else [])
                   if p["enableProperty"] & 0xC00 != 0xC00]
        t.check(not lacking, "0x400|0x800 on every %s enable; lacking: %r" % (role, lacking))
    names = {(role, p["name"]) for role in ("user", "rundown", "trigger")
             for p in session(doc, role)["providers"]}
    for want in (("user", "MyCompany-Billing"), ("trigger", "MyCompany-Orders"),
                 ("user", "Microsoft-Windows-Kernel-Process")):
        t.check(want in names, "%s enables %s" % want)

# PerfView /FocusProcess:1234
doc = plan("collect", "/FocusProcess:1234")
if doc:
    for role in ("user", "rundown"):
        t.check(all({"type": "0x80000004", "kind": "pid", "size": 4, "data": "d2040000"}
                    in p["filters"] for p in session(doc, role)["providers"]),
                "PID filter on every %s enable" % role)

# Without /TargetOS: the running Windows under Wine/Windows, else the assumed default.
rc, out, err = t.run("plan", "/Json")
try:
    w = json.loads(out)["windows"] if rc == 0 else None
except ValueError:
    w = None
if t.windows:
    t.check(w is not None and w["assumed"] is False, "etwcap.exe plans for the running Windows: %r" % w)
else:
    t.check(w == {"version": "10.0.20348", "major": 10, "minor": 0, "build": 20348,
                  "assumed": True}, "off Windows the plan assumes 10.0.20348: %r" % w)

# The table for people.
rc, out, err = t.run("plan", SERVER, "/ThreadTime", "collect")
t.check(rc == 0 and "etwcapKernel" in out and "ContextSwitch" in out
        and "Microsoft-Windows-DotNETRuntime" in out, "readable plan")

# Errors name the token and exit 2.
for args, token in ((["/ClrEvents:Default+Bogus"], "'Bogus'"),
                    (["/Providers:NoSuchProvider"], "'NoSuchProvider'"),
                    (["/Providers:Clr:0xZZ"], "'0xZZ'"),
                    (["/GCOnly", "/GCCollectOnly"], "/GCCollectOnly")):
    rc, out, err = t.run("plan", SERVER, *args)
    t.check(rc == 2 and token in err, "plan %s: exit 2 naming %s (got %d: %s)"
            % (" ".join(args), token, rc, err.strip()))

# /GCCollectOnly: what help says is what the plan does (PerfView's preset,
# docs/perfview-collection.md §3.2, §3.1: NoRundown, so only the minimal CLR
# rundown, and the data file PerfViewGCCollectOnly.etl with etwcap's prefix).
rc, out, err = t.run("collect", "/?")
start = out.find("  /GCCollectOnly")
gc_help = out[start:out.find("\n  /", start + 1)]
t.check("minimal CLR rundown" in " ".join(gc_help.split())
        and "etwcapGCCollectOnly.etl.zip" in gc_help.replace("\n", "").replace(" ", ""),
        "help of /GCCollectOnly names the minimal rundown and the zip: %r" % gc_help)
p = plan("/GCCollectOnly")
rundown = [s for s in p["sessions"] if s["role"] == "rundown"]
t.check(p["dataFile"].endswith("etwcapGCCollectOnly.etl") and len(rundown) == 1
        and all(pr["origin"] == "minimal rundown" for pr in rundown[0]["providers"]
                if "Rundown" in pr["name"]),
        "plan /GCCollectOnly: the help's data file and a minimal rundown only")

# Staying armed (docs/plan-json.md: snapshots, segments, rundownPeriodSec):
# the numbers as given, the cooldown from DelayAfterTriggerSec by default.
p = plan("collect", "/InMemoryCircularBuffer", "/CircularMB:512", "/SnapshotOnTrigger",
         "/StopOnGen2GC", "/CollectMultiple:3", "/DelayAfterTriggerSec:7")
t.check(p is not None and p["snapshots"] == {"onTrigger": True, "max": 3, "cooldownSec": 7}
        and p["segments"]["seconds"] == 0,
        "plan /SnapshotOnTrigger: %r" % (p and p["snapshots"]))
p = plan("collect", "/SegmentSec:3600", "/SegmentMB:2048", "/KeepSegments:24", "/KeepDays:7",
         "/MaxDiskMB:100000")
t.check(p is not None and p["segments"] == {"seconds": 3600, "megabytes": 2048, "keep": 24,
                                           "keepDays": 7, "maxDiskMB": 100000}
        and p["snapshots"]["onTrigger"] is False
        and all(s["logFileMode"] & 0x2 == 0 for s in p["sessions"] if s["role"] in ("kernel", "user")),
        "plan /SegmentSec: the numbers, files that grow: %r" % (p and p["segments"]))
for args, why in ((["/SegmentSec:60", "/InMemoryCircularBuffer", "/CircularMB:64"], "replace"),
                  (["/SnapshotOnTrigger", "/StopOnGen2GC"], "/InMemoryCircularBuffer"),
                  (["/KeepDays:3"], "/SegmentSec"),
                  (["/SegmentSec:60", "/OSHeapExe:app.exe"], "do not combine with /SegmentSec"),
                  (["/SegmentMB:100", "/OSHeapProcess:4242"], "Windows does not document")):
    rc, out, err = t.run("plan", SERVER, "collect", *args)
    t.check(rc == 2 and why in err, "plan %s: exit 2 with the reason (%d %s)"
            % (" ".join(args), rc, err.strip()))

# /MonitorPerfCounter: PerfView's example (UsersGuide), the default interval
# of 2 s, and a spec that is not one.
p = plan("collect", "/MonitorPerfCounter:Memory:Available MBytes:@10,Processor:% Processor Time:_Total")
t.check(p is not None and p["monitors"] == [
    {"category": "Memory", "counter": "Available MBytes", "instance": "", "intervalSec": 10},
    {"category": "Processor", "counter": "% Processor Time", "instance": "_Total", "intervalSec": 2}],
    "plan /MonitorPerfCounter lists the counters: %r" % (p and p.get("monitors")))
t.check(p is None or any(pr["name"] == "etwcap" for pr in session(p, "user")["providers"]),
        "the user session records etwcap's provider, which writes the values")
rc, out, err = t.run("plan", SERVER, "collect", "/MonitorPerfCounter:Memory:Available MBytes@10")
t.check(rc == 2 and "/MonitorPerfCounter" in err and "position" in err,
        "a malformed /MonitorPerfCounter is an error saying where: %d %r" % (rc, err))
# OS heap tracing (PerfView's CommandProcessor Start): a <name>Heap session into
# X.userheap.etl, Max(256, 2 * BufferSizeMB) MB, sequential, OSHeapMaxMB as
# MaximumFileSize, stacks on Alloc/ReAlloc (0x1021, 0x1022), kernel VirtualAlloc (0x4000).
p = plan("collect", "/OSHeapProcess:1234", "/OSHeapMaxMB:100")
h = p and session(p, "heap")
t.check(h is not None and h["name"] == "etwcapHeap" and h["file"] == "etwcapData.userheap.etl"
        and h["minimumBuffers"] == 512 * 1024 // 64 and h["maximumFileSizeMB"] == 100
        and "FILE_MODE_SEQUENTIAL" in h["logFileModeNames"]
        and h["heap"] == {"provider": "222962ab-6180-4b88-a825-346b75f2a24a", "pid": 1234,
                          "exe": None, "stackHooks": ["0x1021", "0x1022"]},
        "plan /OSHeapProcess: PerfView's heap session: %r" % h)
t.check(p is not None and int(session(p, "kernel")["kernel"]["keywords"], 16) & 0x4000,
        "plan /OSHeapProcess: the kernel session adds VirtualAlloc")
for args, why in ((["/OSHeapProcess:0"], "/OSHeapProcess"),
                  (["/OSHeapProcess:-3"], "/OSHeapProcess"),
                  (["/OSHeapExe:C:\\Windows\\notepad.exe"], "without a folder"),
                  (["/OSHeapExe:app.dll"], ".exe"),
                  (["/OSHeapExe:app.exe", "/OSHeapProcess:8"], "cannot both be given")):
    rc, out, err = t.run("plan", SERVER, "collect", *args)
    t.check(rc == 2 and why in err, "plan %s: exit 2 with the reason (%d %s)"
            % (" ".join(args), rc, err.strip()))

# /Wpr (PerfView CommandLineArgs.cs: KernelEvents = ThreadTime|DPC|Driver|Interrupt,
# ShouldZip false; CommandProcessor.cs SetWPRProviders: 136 enables of 135 names,
# Kernel-Power twice, in place of the defaults and the CLR block).
p = plan("collect", "/Wpr")
u = p and session(p, "user")
t.check(p is not None and int(session(p, "kernel")["kernel"]["keywords"], 16) == 0x01812F7F
        and p["zip"] is False,
        "plan /Wpr: WPR's kernel events, not zipped: %r" % ((p and (session(p, "kernel")["kernel"], p["zip"])),))
clr = u and provider(u, CLR)
t.check(clr is not None and clr["level"] == 5 and int(clr["matchAnyKeyword"], 16) == 0x98,
        "plan /Wpr: .NET Common Language Runtime at Verbose with 0x98: %r" % clr)
t.check(u is not None and provider(u, "319dc449-ada5-50f7-428e-957db6791668") is None,
        "plan /Wpr: not the default list (no DotNet telemetry)")
km = u and provider(u, "d1d93ef7-e1f2-4f45-9943-03d245fe6c00")
t.check(km is not None and int(km["matchAnyKeyword"], 16) == 0x60 and km["level"] == 4,
        "plan /Wpr: Kernel-Memory 0x60 at Informational: %r" % km)
# 135 names, five without a GUID (named in a note), plus PerfView's and etwcap's loggers.
t.check(u is not None and len(u["providers"]) == 135 - 5 + 2
        and any("SkyDrive-SyncEngine" in n for n in p["notes"]),
        "plan /Wpr: the WPR list: %d providers" % (u and len(u["providers"]) or 0))
p = plan("collect", "/Wpr", "/Zip:true")
t.check(p is not None and p["zip"] is True, "plan /Wpr /Zip:true zips")

# The kernel route (docs/plan-json.md `route`; issue acceptance): the group
# mask by default on the default target (20348) and on Windows 11 (26100),
# with /ThreadTime's flags at start (0x01012F1F: PerfView's ThreadTime,
# docs/perfview-collection.md §4.1); the System Providers only when asked.
# Without /TargetOS, Wine plans for the Windows it reports (6.1): that run
# checks the other target only.
for target in (None, "/TargetOS:10.0.26100"):
    args = ["plan", "/ThreadTime", "collect", "/Json"] + ([target] if target else [])
    rc, out, err = t.run(*args)
    if rc == 0 and json.loads(out)["windows"]["build"] != 20348 and not target:
        continue
    k = rc == 0 and session(json.loads(out), "kernel")["kernel"]
    t.check(k and k["route"] == "groupMask" and k["enableFlagsAtStart"] == "0x01012F1F"
            and "systemProviders" not in k,
            "%s: group mask, EnableFlags at start: %r" % (" ".join(args), k))
    rc, out, err = t.run(*(args + ["/KernelRoute:systemProviders"]))
    d = rc == 0 and json.loads(out)
    k = d and session(d, "kernel")["kernel"]
    t.check(k and k["route"] == "systemProviders" and k["enableFlagsAtStart"] == "0x00000000"
            and any(sp["guid"] == "599a2a76-4d91-4910-9ac7-7d33f2e97a6c" and sp["keywords"] == "0x202"
                    for sp in k["systemProviders"])
            and any("DCStart" in n for n in d["notes"]),
            "%s /KernelRoute:systemProviders: the System Providers, a note: %r" % (" ".join(args), k))

# /RundownPeriodSec (docs/plan-json.md periodicRundown; issue acceptance): the
# command as given exits 0 with the period, the CLR rundown keywords with Jit
# 0x10 and NGen 0x20 (and EndRundown 0x100, without SupressNGen 0x40000:
# "CLR ETW Keywords and Levels"), beside the existing rundownPeriodSec.
rc, out, err = t.run("plan", "collect", "/RundownPeriodSec:600", "/Json")
d = rc == 0 and json.loads(out)
pr = d and d.get("periodicRundown")
t.check(pr and pr["seconds"] == 600 and d["rundownPeriodSec"] == 600
        and int(pr["clrKeywords"], 16) & 0x40138 == 0x138,
        "plan collect /RundownPeriodSec:600 /Json: periodicRundown %r (%d %s)" % (pr, rc, err))
for route, kernel in (("groupMask", "kernelRundownSession"), ("systemProviders", "captureState")):
    p = plan("collect", "/RundownPeriodSec:600", "/KernelRoute:" + route)
    t.check(p is not None and p["periodicRundown"]["kernel"] == kernel
            and any(s["role"] == "kernelRundown" for s in p["sessions"]),
            "/RundownPeriodSec on %s: kernel part %r" % (route, p and p["periodicRundown"]))
p = plan("collect")
t.check(p is not None and p["periodicRundown"] is None, "no /RundownPeriodSec: periodicRundown null")

# /TargetOS belongs to plan only.
rc, out, err = t.run("collect", SERVER)
t.check(rc == 2, "collect refuses /TargetOS")

t.finish()
