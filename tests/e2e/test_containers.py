"""Two process-isolated containers seen from the host: a trace assembled
here byte by byte from docs/etl.md's layouts (sections 2-4.4), not by
etwcap's writer, then read by `dump`, `info` and `report`.

What the trace holds is what a host capture with /EnableEventsInContainers
/EnableSourceContainerTracking holds (TraceEvent's baseline of a real one,
microsoft/perfview src/TraceEvent/TraceEvent.Tests/inputs/
netcore.3.1.x64.twocontainers.baseline.txt):
- classic kernel events (Process, Thread, Image, SampleProf) without any
  container item, also for the containers' processes;
- Microsoft-Windows-Kernel-Process ProcessStart/ProcessStop with the
  container's ID item (36 ASCII characters) when logged inside a container:
  ProcessStart is logged by the creating process, so the new process, the
  payload's ProcessID, is in the creator's container;
- CLR events (GCStart/GCEnd, Exception) emitted inside a container, with
  the item.
Images load from letterless volumes (\\Device\\HarddiskVolumeN\\...), as the
containers' sandbox volumes have no drive letter.

The script below says which process runs where; the test checks that
`info` and the report's JSON say the same, pid by pid, and that `dump`
shows the ID after CONTAINER_ID on exactly the events that carry it.
A pid (4000) is reused: first in container A, then on the host."""
import json
import os
import re
import shutil
import struct
import sys
import uuid
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import Etwcap, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()
work = os.path.join(tmp_dir(), "e2e-containers-" + t.target)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

ID_A = "6D9F6D0C-57F8-5F0C-898D-2DC82CC922E0"  # the two IDs of TraceEvent's baseline
ID_B = "9F880481-6385-5528-93E5-5B918386652D"

PERF_FREQ = 10000000          # QPC at 10 MHz: one tick is 100 ns
HDR_TS = 5000000              # raw timestamp of the logfile header event
START = 133601526000000000    # FILETIME of the header event
BUFFER = 65536


def ms(x):
    """Raw timestamp x milliseconds after the header event."""
    return HDR_TS + int(x * 10000)


def guid(text):
    return uuid.UUID(text).bytes_le


KERNEL_PROCESS = guid("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716")
CLR = guid("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")


def utf16z(s):
    return s.encode("utf-16-le") + b"\0\0"


# --- payloads (the kernel MOF classes and manifests TraceEvent decodes) ---

def process_v4(pid, ppid, image, cmdline):
    sid = struct.pack("<QQ", 0xFFFF9A8C3E6F2D60, 0) + bytes([1, 1, 0, 0, 0, 0, 0, 5]) + \
        struct.pack("<I", 18)  # TOKEN_USER, then S-1-5-18
    return struct.pack("<QIIIIQI", 0xFFFF9A8C40000080 + pid * 0x340, pid, ppid, 0, 259,
                       0x1AD000 + pid * 0x1000, 0) + sid + image.encode() + b"\0" + \
        utf16z(cmdline) + utf16z("") + utf16z("")


def thread_v3(pid, tid):
    return struct.pack("<IIQQQQQQQIBBBB", pid, tid, 0xFFFFF58A10000000, 0xFFFFF58A0FFFA000,
                       0xB0C0000000, 0xB0BFFF0000, 0xF, 0x7FFB3E52A2E0, 0xB0A0000000, 0,
                       8, 5, 2, 0)


def image_v3(pid, base, size, path):
    return struct.pack("<QQIIIBBHQIIII", base, size, pid, 0x2A0F1, 0x5E6A1B2C, 12, 1, 0, base,
                       0, 0, 0, 0) + utf16z(path)


def sample(tid):
    return struct.pack("<QIHH", 0x7FFB3E52A2E0, tid, 1, 0)


def process_start(pid, ppid, image):
    """Kernel-Process ProcessStart_V2 (ProcessStartArgs_V2)."""
    return struct.pack("<IQIII", pid, START, ppid, 1, 0) + utf16z(image) + \
        struct.pack("<II", 0, 0) + utf16z("") + utf16z("")


def process_stop(pid):
    """Kernel-Process ProcessStop (ProcessStopArgs: ProcessID first)."""
    return struct.pack("<IQQII", pid, START, START, 0, 0) + b"x\0"


def gc_start(count):
    return struct.pack("<IIIIHQ", count, 0, 0, 0, 8, 0)


def gc_end(count):
    return struct.pack("<IIH", count, 0, 8)


def exception(type_name):
    return utf16z(type_name) + utf16z("boom") + struct.pack("<QIHH", 0x7FFB1B1C4E10,
                                                           0x80131500, 0x10, 8)


# --- headers (docs/etl.md section 4) ---

def system64(hook, version, pid, tid, ts, payload):
    size = 0x20 + len(payload)
    return struct.pack("<HBBHHIIQII", version, 0x02, 0xC0, size, hook, tid, pid, ts, 0, 0) + \
        payload


def perfinfo64(hook, version, ts, payload):
    size = 0x10 + len(payload)
    return struct.pack("<HBBHHQ", version, 0x11, 0xC0, size, hook, ts) + payload


def event64(provider, event_id, version, opcode, task, keyword, pid, tid, ts, payload,
            container=None):
    items = b""
    if container:
        data = container.encode("ascii")
        item_size = 8 + ((len(data) + 7) & ~7)
        items = struct.pack("<HHHH", item_size, 0x10, 0, len(data)) + \
            data.ljust(item_size - 8, b"\0")
    size = 0x50 + len(items) + len(payload)
    flags = 0x0001 if items else 0  # EVENT_HEADER_FLAG_EXTENDED_INFO
    return struct.pack("<HBBHHIIQ", size, 0x13, 0xC0, flags, 0, tid, pid, ts) + provider + \
        struct.pack("<HBBBBHQQ", event_id, version, 0, 4, opcode, task, keyword, 0) + \
        bytes(16) + items + payload


def kp_start(creator, pid, image, x, container):
    return event64(KERNEL_PROCESS, 1, 2, 1, 1, 0x10, creator, creator + 4, ms(x),
                   process_start(pid, creator, image), container)


def kp_stop(pid, x, container):
    return event64(KERNEL_PROCESS, 2, 1, 2, 2, 0x10, pid, pid + 4, ms(x), process_stop(pid),
                   container)


def clr(pid, event_id, version, opcode, task, keyword, x, payload, container):
    return event64(CLR, event_id, version, opcode, task, keyword, pid, pid + 4, ms(x), payload,
                   container)


# --- the run ---

events = []  # (cpu, raw timestamp, bytes)


def add(cpu, rec):
    ts = struct.unpack_from("<Q", rec, 0x08 if rec[2] == 0x11 else 0x10)[0]
    events.append((cpu, ts, rec))


# Who runs where: pid -> (image, container or None); ran before the trace
# (rundown) or starts at a time, created by a parent.
BEFORE = [(4, 0, "System", None), (712, 632, "services.exe", None),
          (3000, 712, "vmcompute.exe", None),
          (1200, 3000, "powershell.exe", ID_A), (2200, 3000, "powershell.exe", ID_B)]
STARTS = [  # pid, parent, image, container, start ms, stop ms or None
    (1676, 1200, "dotnet.exe", ID_A, 20, None),
    (3476, 2200, "dotnet.exe", ID_B, 30, None),
    (4000, 1676, "cmd.exe", ID_A, 40, 50),
    (5120, 712, "svchost.exe", None, 10, None),
    (4000, 712, "conhost.exe", None, 60, None),
]
VOLUME = {ID_A: "\\Device\\HarddiskVolume7", ID_B: "\\Device\\HarddiskVolume9",
          None: "\\Device\\HarddiskVolume2"}

x = 1.0
for pid, ppid, image, cid in BEFORE:
    add(0, perfinfo64(0x0303, 4, ms(x), process_v4(pid, ppid, image, image)))
    add(0, system64(0x0503, 3, pid, pid + 4, ms(x + 0.1), thread_v3(pid, pid + 4)))
    x += 0.5
for pid, ppid, image, cid, start, stop in STARTS:
    cpu = 1 if cid == ID_A else 2 if cid == ID_B else 3
    add(cpu, system64(0x0301, 4, ppid, ppid + 4, ms(start), process_v4(pid, ppid, image, image)))
    add(cpu, kp_start(ppid, pid, VOLUME[cid] + "\\Windows\\System32\\" + image, start + 0.01, cid))
    add(cpu, system64(0x0501, 3, pid, pid + 4, ms(start + 0.1), thread_v3(pid, pid + 4)))
    for k, dll in enumerate((image, "ntdll.dll", "coreclr.dll")):
        path = VOLUME[cid] + ("\\Program Files\\dotnet\\" if k == 2 else "\\Windows\\System32\\")
        add(cpu, system64(0x140A, 3, pid, pid + 4, ms(start + 0.2 + k * 0.01),
                          image_v3(pid, 0x7FF600000000 + k * 0x1000000, 0x20000, path + dll)))
    if stop is not None:
        add(cpu, system64(0x0502, 3, pid, pid + 4, ms(stop - 0.1), thread_v3(pid, pid + 4)))
        add(cpu, kp_stop(pid, stop - 0.05, cid))
        add(cpu, system64(0x0302, 4, pid, pid + 4, ms(stop), process_v4(pid, ppid, image, image)))

# CPU samples on each started process's thread, a few ms after its start.
SAMPLES = {(1676, 20): 5, (3476, 30): 7, (4000, 40): 2, (4000, 60): 3, (5120, 10): 4}
for (pid, start), n in SAMPLES.items():
    for k in range(n):
        add(0, perfinfo64(0x0F2E, 2, ms(start + 1 + k * 0.5), sample(pid + 4)))

# .NET in both dotnet processes: GCs and exceptions, each carrying the ID.
GCS = {1676: (ID_A, 3), 3476: (ID_B, 2)}
for pid, (cid, n) in GCS.items():
    for k in range(n):
        add(1, clr(pid, 1, 2, 1, 1, 0x1, 70 + k, gc_start(k + 1), cid))
        add(1, clr(pid, 2, 1, 2, 1, 0x1, 70.5 + k, gc_end(k + 1), cid))
EXCEPTIONS = {1676: (ID_A, 4), 3476: (ID_B, 1)}
for pid, (cid, n) in EXCEPTIONS.items():
    for k in range(n):
        add(2, clr(pid, 80, 1, 1, 7, 0x8000, 80 + k, exception("System.TimeoutException"), cid))


def logfile_header(buffers, cpus):
    names = utf16z("Relogger") + utf16z("containers.etl")
    p = bytearray(0x118)
    struct.pack_into("<I", p, 0x00, BUFFER)
    p[0x04] = 10
    struct.pack_into("<III", p, 0x08, 17763, cpus, 0)
    struct.pack_into("<q", p, 0x10, START + 1000000000)          # EndTime
    struct.pack_into("<II", p, 0x20, 0x00000001, buffers)       # SEQUENTIAL, BuffersWritten
    struct.pack_into("<I", p, 0x2C, 8)                          # PointerSize
    struct.pack_into("<I", p, 0x34, 3000)                       # CpuSpeedInMHz
    # BootTime, PerfFreq, StartTime, ReservedFlags (1: QPC clock)
    struct.pack_into("<qqqI", p, 0xF8, START - HDR_TS, PERF_FREQ, START, 1)
    payload = bytes(p) + names
    return system64(0x0000, 2, 200, 100, HDR_TS, payload)


def buffer(cpu, seq, records, flags=0x0020, kind=0):
    body = b"".join(r + bytes(-len(r) % 8) for r in records)
    filled = 72 + len(body)
    assert filled <= BUFFER
    head = struct.pack("<IIIIQQ", BUFFER, filled, filled, 0, 0, seq)
    head += struct.pack("<QHHIIHH", 0, cpu, 1, 3, filled, flags, kind)
    head += bytes(72 - len(head))
    return head + body + b"\xff" * (BUFFER - filled)


cpus = 4
by_cpu = {}
for cpu, ts, rec in sorted(events, key=lambda e: (e[0], e[1])):
    by_cpu.setdefault(cpu, []).append(rec)
buffers = [buffer(0, 0, [logfile_header(1 + len(by_cpu), cpus)], 0x0001, 4)]
for seq, cpu in enumerate(sorted(by_cpu), 1):
    buffers.append(buffer(cpu, seq, by_cpu[cpu]))
trace = os.path.join(work, "containers.etl")
with open(trace, "wb") as f:
    f.write(b"".join(buffers))

# What each process is: a container or the host.
IN = {1200: ID_A, 1676: ID_A, 2200: ID_B, 3476: ID_B}
HOST = [4, 712, 3000, 5120]
# The events logged inside a container: three starts, cmd's stop, the GCs'
# starts and ends, the exceptions.
events_a = 2 + 1 + 2 * 3 + 4
events_b = 1 + 2 * 2 + 1
WITH_ID = events_a + events_b

# --- dump ---
rc, out, err = t.run("dump", to_target_path(t, trace))
t.check(rc == 0, "dump exits 0: %d %r" % (rc, err))
lines = [l for l in out.splitlines() if not l.startswith("#")]
t.check(len(lines) == len(events) + 1, "dump lists every event: %d, %d made"
        % (len(lines), len(events) + 1))
marked = [l for l in lines if "CONTAINER_ID" in l]
t.check(len(marked) == WITH_ID, "%d lines name CONTAINER_ID, %d events carry it"
        % (len(marked), WITH_ID))
t.check(all(re.search(r" ext=CONTAINER_ID container=(%s|%s)\t" % (ID_A, ID_B), l)
            for l in marked),
        "each such line holds ext=CONTAINER_ID then container=ID: %r" % marked[:1])
t.check(all("container=" not in l for l in lines if l not in marked),
        "no other line holds an ID")

# --- info ---
rc, out, err = t.run("info", to_target_path(t, trace))
out = out.replace("\r\n", "\n")
t.check(rc == 0, "info exits 0: %d %r" % (rc, err))
t.check("CONTAINER_ID=%d" % WITH_ID in out, "info counts the items: %r" % out)
t.check("Containers:    2 " in out, "info lists two containers")
m_a = re.search(r"^  %s +(\d+) events, processes: (.*)$" % ID_A, out, re.M)
m_b = re.search(r"^  %s +(\d+) events, processes: (.*)$" % ID_B, out, re.M)
t.check(m_a and int(m_a.group(1)) == events_a and m_a.group(2) == "1200, 1676, 4000",
        "container A: %d events, processes 1200, 1676, 4000: %r"
        % (events_a, m_a.group(0) if m_a else out))
t.check(m_b and int(m_b.group(1)) == events_b and m_b.group(2) == "2200, 3476",
        "container B: %d events, processes 2200, 3476: %r"
        % (events_b, m_b.group(0) if m_b else out))

# --- report ---
def report_of(path, name):
    """The page `report` writes for path, and the JSON embedded in it."""
    page = os.path.join(work, name)
    rc, out, err = t.run("report", to_target_path(t, path), "/Out:" + to_target_path(t, page))
    t.check(rc == 0 and os.path.isfile(page), "report writes %s: %d %r" % (name, rc, err))
    with open(page, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'<script type="application/json" id="etwcap-report">(.*?)</script>', text,
                  re.S)
    return text, json.loads(m.group(1))


html, doc = report_of(trace, "containers.html")
got = {c["id"]: c for c in doc["containers"]}
t.check(sorted(got) == sorted([ID_A, ID_B]), "two containers in the JSON: %r" % sorted(got))
# Image loads: three for each started process (its exe, ntdll, coreclr).
want = {ID_A: dict(processes=[1200, 1676, 4000], events=events_a, cpuSamples=5 + 2, gcs=3,
                   exceptions=4, imageLoads=3 + 3),
        ID_B: dict(processes=[2200, 3476], events=events_b, cpuSamples=7, gcs=2,
                   exceptions=1, imageLoads=3)}
for cid, w in want.items():
    c = got.get(cid, {})
    t.check(c.get("name", "missing") is None, "%s: name null without an inventory" % cid)
    for key, value in w.items():
        t.check(c.get(key) == value, "%s: %s = %r, want %r" % (cid, key, c.get(key), value))
procs = [(p["pid"], p["name"], p["containerId"]) for p in doc["processes"]]
want_procs = [(pid, image, cid) for pid, _, image, cid in BEFORE] + \
    [(pid, image, cid) for pid, _, image, cid, _, _ in STARTS]
t.check(sorted(procs, key=str) == sorted(want_procs, key=str),
        "every process in its container (the reused pid 4000 once in A, once on the host): "
        "%r" % procs)
t.check(all(p[2] is None for p in procs if p[0] in HOST), "the host's processes in none")
t.check('<section id="containers">' in html and "<th>Container</th>" in html,
        "the page has a Containers section and a Container column")

# --- report of the capture's zip, whose manifest holds the host inventory ---
# The manifest as README.md's "capture manifest" documents it: HCS's compute
# systems with their host PIDs (HCS's Ids, not the ETW IDs: they are tied by
# the processes both list), a Hyper-V isolated one and its utility VM, and
# an image the merge could not identify.
def system(sid, name, pids, isolation="process"):
    return {"id": sid, "name": name, "owner": "docker", "systemType": "Container",
            "runtimeId": None, "state": "Running", "hostingSystemId": None,
            "isolation": isolation, "processes": pids, "processesWhy": None, "warning": None}


manifest = {
    "schema": "etwcap-capture/1",
    "containers": {"inventory": True, "why": None,
                   "atStart": {"utc": "2024-05-13T10:30:00.0000000Z", "skipped": 0,
                               "systems": [system("a1b2", "web", [1200]),
                                           system("c3d4", "worker", [2200, 3476]),
                                           system("e5f6", "iis", None, "hyperv")]},
                   "atStop": {"utc": "2024-05-13T10:31:40.0000000Z", "skipped": 0,
                              "systems": [system("a1b2", "web", [1200, 1676])]}},
    "containerImagesUnread": [
        {"path": "\\Device\\HarddiskVolume7\\Windows\\System32\\cmd.exe", "pid": 4000,
         "reason": "container stopped before its identity could be read"}],
}
zipped = os.path.join(work, "containers.etl.zip")
with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as z:
    z.write(trace, "containers.etl")
    z.writestr("etwcap-capture.json", json.dumps(manifest))
html, doc = report_of(zipped, "named.html")
names = {c["id"]: c["name"] for c in doc["containers"]}
t.check(names == {ID_A: "web", ID_B: "worker"},
        "each container named by the HCS system whose PIDs it shares: %r" % names)
t.check("HarddiskVolume7\\Windows\\System32\\cmd.exe" in html and
        "container stopped before its identity could be read" in html,
        "the Symbols section lists the container image found nowhere")
t.finish()
