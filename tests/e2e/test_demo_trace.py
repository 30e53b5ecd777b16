"""The demo collection README command (1) replays (tests/tools/make_demo_trace),
end to end, natively and under Wine: the generator writes DEMO.etl (CLR) and
DEMO.kernel.etl, `dump` shows the event mix the generator's script defines,
`merge` accepts the pair (one clock), and `replay` fires at the script's
instants: the first HttpRequestException for /StopOnException, the end of the
long blocking gen2 for /StopOnGCOverMsec, and so on.

Every expected value is computed here from the script's constants
(tests/tools/demo_script.h, demo_tables.h/.c, demo_kernel.c, demo_clr.c),
mirrored below; `make_demo_trace --describe` is only compared with them.
The generator's path comes from ETWCAP_DEMO_TOOL (a native binary, or an .exe
run through the same Wine command as etwcap.exe); skips (77) without it."""
import collections
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import SKIP, Etwcap, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()

tool = os.environ.get("ETWCAP_DEMO_TOOL", "")
if tool[:2].upper() == "Z:":
    tool = tool[2:]
if not tool:
    print("skipped: ETWCAP_DEMO_TOOL (the path of make_demo_trace) is not set")
    sys.exit(SKIP)
tool_is_exe = tool.lower().endswith(".exe")

# --- the script, mirrored (all times in microseconds after the kernel session starts) --
QPC_BASE = 1234500000000
START_FILETIME = 133601526000000000  # 2024-05-14T09:30:00Z
PERF_FREQ = 10000000
USER_START_US = 2500
RUN_US = 60000000
CPUS = 4
SERVICE_PID = 6412
SURGE = (42000000, 48000000)
BLACKOUT = (44300000, 45900000)
LONG_GC_START_US = 44810030
LONG_GC_END_US = 45680030
LONG_GC_SUSPEND_US = 44500010
LONG_GC_SUSPENDED_US = 44810010
FIRST_HTTP_US = SURGE[0]
SOCKET_BEFORE_HTTP_US = 300


def raw(us):
    return QPC_BASE + 10 * us


def in_surge(us):
    return SURGE[0] <= us < SURGE[1]


def in_blackout(us):
    return BLACKOUT[0] <= us < BLACKOUT[1]


def grid(start, end, step, surge_step):
    us = start
    while us < end:
        yield us
        us += surge_step if in_surge(us) else step


# demo_tables.c: 15 service threads, 10 of them thread-pool workers; 42
# modules, 24 of them managed assemblies.
SERVICE_TIDS = {6416, 6420, 6424, 6428, 6432, 6436, 6440, 6444, 6448,
                6452, 6456, 6460, 6464, 6468, 6472}
POOL_WORKERS = 10
MODULES = 42
ASSEMBLIES = 24
# demo_kernel.c: 9 processes in the rundown (threads 6+1+3+2+4+3+4+3+3),
# System's 5 kernel images, 4 images each for the other 8; 12 svchost threads.
BG_PROCESSES = 9
BG_THREADS = 6 + 1 + 3 + 2 + 4 + 3 + 4 + 3 + 3
BG_IMAGES = 5 + 8 * 4
KERNEL_IMAGES = 5
SVCHOST_CHURN = 12

ephemeral = [us for us in grid(2000000, 59800000, 400000, 200000) if not in_blackout(us)]
n_eph = len(ephemeral)
n_gc = n_eph + 2 + 1  # two background gen2s, the blocking gen2
n_tier1 = len(range(4000000, 59800000, 250000))
n_tp_samples = len([us for us in range(2000000, RUN_US, 500000) if not in_blackout(us)])
n_http = len([k for k in range(120) if not in_blackout(SURGE[0] + k * 50000)])
n_contention = len([us for us in grid(3000000, 59800000, 1000000, 100000)
                    if not in_blackout(us)])

CLR_EXPECTED = {
    187: 1,                      # RuntimeInformationStart
    156: 1,                      # AppDomainLoad_V1
    154: ASSEMBLIES,             # AssemblyLoad_V1
    152: ASSEMBLIES,             # ModuleLoad_V2
    145: 600 + n_tier1,          # MethodJittingStarted_V1
    143: 600 + n_tier1,          # MethodLoadVerbose_V2
    50: POOL_WORKERS,            # ThreadPoolWorkerThreadStart
    55: 6 + 5,                   # Adjustment: 6 starvation injections, 5 climbing moves
    54: n_tp_samples,            # AdjustmentSample
    35: n_gc,                    # GCTriggered
    1: n_gc,                     # GCStart_V2
    2: n_gc,                     # GCEnd_V1
    4: n_gc,                     # GCHeapStats_V2
    9: n_eph + 2 * 2 + 1,        # GCSuspendEEBegin_V1 (a BGC suspends twice)
    8: n_eph + 2 * 2 + 1,        # GCSuspendEEEnd_V1
    7: n_eph + 2 * 2 + 1,        # GCRestartEEBegin_V1
    3: n_eph + 2 * 2 + 1,        # GCRestartEEEnd_V1
    10: 40 * n_eph + 1,          # GCAllocationTick_V3 (+ the LOH one before the gen2)
    11: 1,                       # GCCreateConcurrentThread_V1
    80: 8 + 2 * n_http,          # ExceptionThrown_V1: 8 ordinary, SocketException + HRE pairs
    81: n_contention,            # ContentionStart_V1
    91: n_contention,            # ContentionStop_V1
}
CLR_VERSIONS = {187: 0, 156: 1, 154: 1, 152: 2, 145: 1, 143: 2, 50: 0, 55: 0, 54: 0, 35: 0,
                1: 2, 2: 1, 4: 2, 9: 1, 8: 1, 7: 1, 3: 1, 10: 3, 11: 1, 80: 1, 81: 1, 91: 1}
KERNEL_EXPECTED = {
    "0x0303": BG_PROCESSES,                          # Process/DCStart
    "0x0301": 1,                                     # Process/Start (the service)
    "0x0304": BG_PROCESSES + 1,                      # Process/DCEnd
    "0x0503": BG_THREADS,                            # Thread/DCStart
    "0x0501": len(SERVICE_TIDS) + SVCHOST_CHURN,     # Thread/Start
    "0x0502": SVCHOST_CHURN,                         # Thread/End
    "0x1403": BG_IMAGES,                             # Image/DCStart
    "0x140a": MODULES,                               # Image/Load
    "0x1404": KERNEL_IMAGES + MODULES,               # Image/DCEnd
    "0x0f2e": CPUS * (RUN_US // 1000 - 1),           # SampledProfile, 1 kHz per CPU
}
CLR = "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"
IMAGE_ID = "b3e675d7-2554-4f18-830b-2762732560de"

# --- generate ----------------------------------------------------------------------------
work = os.path.join(tmp_dir(), "demo-trace-" + t.target)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def run_tool(*args):
    if tool_is_exe:
        cmd = t.command[:-1] + [tool] + [to_target_path(t, a) if a.startswith("/") else a
                                         for a in args]
    else:
        cmd = [tool] + list(args)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"))


rc, out, err = run_tool(work)
t.check(rc == 0, "make_demo_trace writes the collection (%d: %s)" % (rc, err))
user_etl = os.path.join(work, "DEMO.etl")
kernel_etl = os.path.join(work, "DEMO.kernel.etl")
for path in (user_etl, kernel_etl):
    t.check(os.path.isfile(path), "%s is written" % path)
if t.failures:
    t.finish()

rc, out, err = run_tool("--describe")
described = dict(line.strip().split("=", 1) for line in out.splitlines() if "=" in line)
t.check(rc == 0, "--describe exits 0")
for key, value in (("start_filetime", START_FILETIME), ("qpc_base", QPC_BASE),
                   ("perf_freq", PERF_FREQ), ("first_http_exception_raw", raw(FIRST_HTTP_US)),
                   ("long_gc_start_raw", raw(LONG_GC_START_US)),
                   ("long_gc_end_raw", raw(LONG_GC_END_US)),
                   ("long_gc_suspend_end_raw", raw(LONG_GC_SUSPENDED_US))):
    t.check(described.get(key) == str(value),
            "--describe %s is the script's %d (got %r)" % (key, value, described.get(key)))


# --- dump: the event mix ---------------------------------------------------------------------
def dump_events(path):
    """(header lines, event rows) of `etwcap dump PATH`."""
    rc, out, err = t.run("dump", to_target_path(t, path))
    t.check(rc == 0, "dump %s exits 0 (%d: %s)" % (path, rc, err))
    heads = [line for line in out.splitlines() if line.startswith("#")]
    rows = [line.split("\t") for line in out.splitlines() if line and not line.startswith("#")]
    return heads, rows


def field(identity, name):
    for part in identity.split():
        if part.startswith(name + "="):
            return part[len(name) + 1:]
    return None


heads, rows = dump_events(user_etl)
t.check(any("StartTime=%d(" % (START_FILETIME + 10 * USER_START_US) in h for h in heads),
        "the CLR session starts 2.5 ms after the kernel session")
t.check(any("PerfFreq=%d " % PERF_FREQ in h and "cpus=%d " % CPUS in h for h in heads),
        "the CLR session's header: QPC at 10 MHz, 4 CPUs")
clr_rows = [r for r in rows if r[5] == CLR]
t.check(len(clr_rows) == len(rows) - 1, "every event but the logfile header is a CLR event")
counts = collections.Counter(int(field(r[6], "id")) for r in clr_rows)
for event_id, expected in sorted(CLR_EXPECTED.items()):
    t.check(counts.get(event_id, 0) == expected,
            "CLR event %d: %d in the script, %d in the dump" % (event_id, expected,
                                                               counts.get(event_id, 0)))
t.check(set(counts) == set(CLR_EXPECTED), "no other CLR events: %r" % sorted(set(counts)))
bad_version = [r for r in clr_rows if int(field(r[6], "v")) != CLR_VERSIONS.get(
    int(field(r[6], "id")), -1)]
t.check(not bad_version, "each event has its template's version: %r" % bad_version[:1])
t.check(all(r[8].startswith("pid=%d tid=" % SERVICE_PID) for r in clr_rows),
        "every CLR event is the service's")
tids = {int(r[8].split("tid=")[1].split()[0]) for r in clr_rows}
t.check(tids <= SERVICE_TIDS, "CLR events come from the service's threads: %r" %
        sorted(tids - SERVICE_TIDS))
t.check(all(raw(USER_START_US) <= int(r[2]) < raw(RUN_US) for r in clr_rows),
        "CLR timestamps lie inside the session")
exc = sorted(int(r[2]) for r in clr_rows if field(r[6], "id") == "80")
t.check(exc.count(raw(FIRST_HTTP_US)) == 1, "an exception at the symptom's instant")

heads, krows = dump_events(kernel_etl)
t.check(any("StartTime=%d(" % START_FILETIME in h and "LogFileMode=0x02000002" in h
            for h in heads), "the kernel session: its start, a circular private system logger")
hooks = collections.Counter(r[6].split("(")[0][len("hook="):] for r in krows[1:])
for hook, expected in sorted(KERNEL_EXPECTED.items()):
    t.check(hooks.get(hook, 0) == expected,
            "kernel hook %s: %d in the script, %d in the dump" % (hook, expected,
                                                                  hooks.get(hook, 0)))
t.check(set(hooks) == set(KERNEL_EXPECTED), "no other kernel events: %r" % sorted(set(hooks)))
service_threads = {r[8] for r in krows if r[6].startswith("hook=0x0501")}
t.check("pid=712 tid=716" in service_threads, "services.exe creates the service's main thread")
loads = {r[8] for r in krows if r[6].startswith("hook=0x140a")}
t.check(loads == {"pid=%d tid=6416" % SERVICE_PID}, "the service's main thread maps its images")
t.check(all(QPC_BASE <= int(r[2]) < raw(RUN_US) for r in krows),
        "kernel timestamps lie inside the session")

# --- merge: one clock ---------------------------------------------------------------------------
merge_dir = os.path.join(work, "merge")
os.makedirs(merge_dir)
shutil.copy(user_etl, merge_dir)
shutil.copy(kernel_etl, merge_dir)
rc, out, err = t.run("merge", to_target_path(t, os.path.join(merge_dir, "DEMO.etl")))
merged = os.path.join(merge_dir, "DEMO.etl.zip")
t.check(rc == 0 and os.path.isfile(merged), "merge accepts the pair (%d: %s)" % (rc, err))
if os.path.isfile(merged):
    heads, mrows = dump_events(merged)
    # Merge adds KernelTraceControl's image identity events (docs/etl.md
    # §7) for the images it can read: under Wine, C:\Windows\System32's.
    kept = [r for r in mrows if r[0] != "0" and r[5] != IMAGE_ID]
    t.check(len(kept) == len(rows) - 1 + len(krows) - 1,
            "the merged trace holds every event of both sessions (%d, expected %d)"
            % (len(kept), len(rows) - 1 + len(krows) - 1))

# --- replay: fires at the script's instants -------------------------------------------------------
def fire(trace, *triggers):
    rc, out, err = t.run("replay", to_target_path(t, trace), *triggers)
    lines = [line.split("\t") for line in out.splitlines() if line.startswith("fired\t")]
    t.check(rc == 0 and len(lines) == 1, "%s fires once (%d: %r %s)" % (triggers, rc, out, err))
    return lines[0] if lines else ["", "", "", "", ""]


line = fire(user_etl, "/StopOnException:HttpRequestException")
t.check(line[2] == str(raw(FIRST_HTTP_US)),
        "StopOnException fires at the first HttpRequestException: %r" % line)
t.check("System.Net.Http.HttpRequestException: No connection could be made" in line[4],
        "the detail is the exception's type and message: %r" % line[4])
line = fire(user_etl, "/StopOnException:SocketException")
t.check(line[2] == str(raw(FIRST_HTTP_US - SOCKET_BEFORE_HTTP_US)),
        "the SocketException it wraps is 300 us earlier: %r" % line)
line = fire(user_etl, "/StopOnGCOverMsec:200")
t.check(line[1] == "StopOnGCOverMsec" and line[2] == str(raw(LONG_GC_END_US)),
        "StopOnGCOverMsec fires at the blocking gen2's GC/Stop: %r" % line)
t.check("870.000 ms" in line[4], "its detail gives the 870 ms: %r" % line[4])
line = fire(user_etl, "/StopOnGen2GC")
t.check(line[2] == str(raw(LONG_GC_START_US)) and "Depth=2" in line[4],
        "StopOnGen2GC skips the background gen2s and fires at the blocking one: %r" % line)
line = fire(user_etl, "/StopOnGCSuspendOverMSec:100")
t.check(line[2] == str(raw(LONG_GC_SUSPENDED_US)) and "310.000 ms" in line[4],
        "StopOnGCSuspendOverMSec fires when the 310 ms suspension ends: %r" % line)
if os.path.isfile(merged):
    line = fire(merged, "/StopOnException:HttpRequestException", "/StopOnGCOverMsec:200",
                "/Process:OrderService")
    t.check(line[1] == "StopOnException" and line[2] == str(raw(FIRST_HTTP_US)),
            "on the merged trace, with both triggers, the symptom fires first: %r" % line)

t.finish()
