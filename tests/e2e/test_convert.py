"""`etwcap convert` on a trace assembled here byte by byte from the layouts of
docs/etl.md (sections 2-4) and docs/stacks.md, not by etwcap's writer, and on
the real net.4.5.2.x64 sample.

The hand-made trace holds what docs/stacks.md describes, each form once
(and one blocked span of a thread, switched out and in by CSwitch events):
a plain StackWalk right after its sample; a StackKeyUser reference whose
KeyRundown definition comes at the end; a kernel-mode sample whose kernel
part is a StackKeyKernel reference (defined by a KeyDelete) and whose user
part is a StackWalk logged later on another CPU, stored in a buffer the file
holds before the sample's; a sample without any stack; an address no image
or method holds; an Idle sample (process 0, kernel part only).  Frames are
named by a CLR rundown MethodDCEndVerbose (live from before the trace) and
by kernel Image DCStart events.  The folded lines expected are written out
by hand from those rules; the real sample's figures are the issue's."""
import gzip
import json
import os
import shutil
import struct
import sys
import uuid
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import Etwcap, samples_dir, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()
work = os.path.join(tmp_dir(), "e2e-convert-" + t.target)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

CLOCK_HZ = 10000000
T0 = 1000000                 # raw timestamp of the logfile header event
FT0 = 133601526000000000     # its FILETIME
PAGE = 65536

APP = 0x7FF700000000         # app.dll, in process 40
NT = 0xFFFFF80000000000      # ntoskrnl.exe, in process 0
MAIN, RUN = 0x100000, 0x200000  # JIT code of App.Program.Main and App.Work.Run
K1, K2 = NT + 0x1000, NT + 0x2000
KERNEL_KEY, USER_KEY = 0xFFFFC00000000010, 0x5000


def at(ms):
    return T0 + int(ms * CLOCK_HZ / 1000)


def wide(s):
    return s.encode("utf-16-le") + b"\0\0"


def classic(header_type, hook, ts, payload, pid=0, tid=0, version=2):
    """SYSTEM64 (0x02, with thread and process) or PERFINFO64 (0x11); the
    version is the event's (its payload layout)."""
    if header_type == 0x11:
        head = struct.pack("<HBBHHQ", version, 0x11, 0xC0, 0x10 + len(payload), hook, ts)
    else:
        head = struct.pack("<HBBHHIIQII", version, 0x02, 0xC0, 0x20 + len(payload), hook, tid,
                           pid, ts, 0, 0)
    return head + payload


def manifest_event(provider, event_id, version, opcode, pid, tid, ts, payload):
    """EVENT_HEADER64 (0x13) without extended items."""
    return struct.pack("<HBBHHIIQ", 0x50 + len(payload), 0x13, 0xC0, 0, 0, tid, pid, ts) + \
        uuid.UUID(provider).bytes_le + \
        struct.pack("<HBBBBHQQ", event_id, version, 0, 4, opcode, 1, 0x30, 0) + bytes(16) + \
        payload


def process_dcstart(pid, name):
    """Process v4 (ProcessTraceData): key, pid, parent, session, exit status,
    directory table base, flags, an empty SID, the image name, the command
    line, and two empty strings."""
    return classic(0x11, 0x0303, at(1), struct.pack("<QIIIIQI", 0xFFFF000000001000 + pid, pid, 4,
                                                     0, 259, 0x1000, 0) + bytes(4) +
                   name.encode() + b"\0" + wide(name) + wide("") + wide(""), version=4)


def thread_dcstart(pid, tid):
    return classic(0x02, 0x0503, at(1.5), struct.pack("<IIQQQQQQQIBBBB", pid, tid, 0, 0, 0, 0, 0,
                                                       0, 0, 0, 8, 5, 2, 0), pid, tid, 3)


def image_dcstart(pid, base, path):
    """Image v2 (ImageLoadTraceData): base, size, pid, checksum, time stamp,
    reserved, default base, four reserved, then the file name."""
    return classic(0x02, 0x1403, at(2), struct.pack("<QQIIIIQIIII", base, 0x100000, pid, 1, 2, 0,
                                                     base, 0, 0, 0, 0) + wide(path), pid, 0)


def method_dcend(pid, start, size, namespace, name, ms):
    """MethodDCEndVerbose v1 of the CLR rundown provider (event 144)."""
    payload = struct.pack("<QQQIII", start, 7, start, size, 0x06000001, 0) + wide(namespace) + \
        wide(name) + wide("void ()") + struct.pack("<H", 9)
    return manifest_event("a669021c-c450-4609-a035-5af59af4df18", 144, 1, 40, pid, pid + 4, at(ms),
                          payload)


def interval(opcode, ms, new, old):
    """PerfInfo SetInterval (72) or CollectionStart (73) of the timer
    (SampledProfileIntervalTraceData): source 0, NewInterval, OldInterval in
    100 ns units, then the source's name."""
    return classic(0x02, 0x0F00 | opcode, at(ms), struct.pack("<III", 0, new, old) + wide("Timer"),
                   4, 8, 3)


def sample(ms, tid, ip):
    return classic(0x11, 0x0F2E, at(ms), struct.pack("<QIHH", ip, tid, 1, 0))


def stackwalk(ms, names_ms, pid, tid, frames):
    return classic(0x11, 0x1820, at(ms), struct.pack("<QII", at(names_ms), pid, tid) +
                   b"".join(struct.pack("<Q", f) for f in frames))


def cswitch(ms, new_tid, old_tid):
    """CSwitch (CSwitchTraceData): NewThreadId, OldThreadId, priorities,
    C-state, wait reason, mode and state, ideal processor, wait time."""
    return classic(0x11, 0x0524, at(ms), struct.pack("<IIbbBbbbbbII", new_tid, old_tid, 8, 8, 0, 0,
                                                      6, 1, 5, 0, 0, 0))


def key_use(opcode, ms, names_ms, pid, tid, key):
    return classic(0x11, 0x1800 | opcode, at(ms), struct.pack("<QIIQ", at(names_ms), pid, tid, key))


def key_definition(opcode, ms, key, frames):
    return classic(0x11, 0x1800 | opcode, at(ms), struct.pack("<Q", key) +
                   b"".join(struct.pack("<Q", f) for f in frames))


def logfile_header(buffers, cpus):
    """The header event's TRACE_LOGFILE_HEADER (docs/etl.md section 3)."""
    h = bytearray(0x118)
    struct.pack_into("<IB", h, 0x00, PAGE, 10)
    struct.pack_into("<III", h, 0x08, 19041, cpus, 0)
    struct.pack_into("<q", h, 0x10, FT0 + 10000000)
    struct.pack_into("<II", h, 0x20, 1, buffers)
    struct.pack_into("<I", h, 0x2C, 8)
    struct.pack_into("<I", h, 0x34, 2500)
    struct.pack_into("<qqqI", h, 0xF8, FT0 - T0, CLOCK_HZ, FT0, 1)
    return classic(0x02, 0x0000, T0, bytes(h) + wide("etwcap") + wide("stacks.etl"), 8, 12)


def page(cpu, seq, records, flags=0x0020, kind=0):
    body = b"".join(r + bytes(-len(r) % 8) for r in records)
    used = 72 + len(body)
    head = struct.pack("<IIIIQQQHHIIHH", PAGE, used, used, 0, 0, seq, 0, cpu, 1, 3, used, flags,
                       kind)
    return head + bytes(72 - len(head)) + body + b"\xff" * (PAGE - used)


# Each CPU's records in time order; CPU 2 (the late user part) is stored
# before CPU 1, whose sample it completes.
per_cpu = {
    0: [process_dcstart(0, "Idle"), process_dcstart(40, "App.exe"), thread_dcstart(40, 44),
        image_dcstart(40, APP, "\\Device\\HarddiskVolume3\\App\\app.dll"),
        image_dcstart(0, NT, "\\SystemRoot\\system32\\ntoskrnl.exe"),
        sample(10, 44, RUN + 0x10),
        stackwalk(10.001, 10, 40, 44, [RUN + 0x10, MAIN + 0x10, APP + 0x1000]),
        sample(11, 44, RUN + 0x20),
        key_use(38, 11.001, 11, 40, 44, USER_KEY),
        sample(15, 44, APP + 0x2000),
        sample(17, 44, 0x1234),
        stackwalk(17.001, 17, 40, 44, [0x1234, APP + 0x1000]),
        cswitch(20, 0, 44)],
    2: [stackwalk(14, 12, 40, 44, [MAIN + 0x30, APP + 0x1000])],
    1: [sample(12, 44, K1),
        key_use(37, 12.001, 12, 40, 44, KERNEL_KEY),
        key_definition(35, 13, KERNEL_KEY, [K1, K2]),
        cswitch(25, 44, 0),
        stackwalk(25.001, 25, 40, 44, [MAIN + 0x40, APP + 0x1000])],
    3: [sample(16, 0, K2),
        stackwalk(16.001, 16, 0, 0, [K2]),
        method_dcend(40, MAIN, 0x100, "App.Program", "Main", 90),
        method_dcend(40, RUN, 0x100, "App.Work", "Run", 90),
        key_definition(36, 91, USER_KEY, [RUN + 0x20, MAIN + 0x20, APP + 0x1000])],
}


def write_trace(name, first=()):
    """The trace above, with `first` at the start of CPU 0's buffer."""
    pages = [page(0, 0, [logfile_header(1 + len(per_cpu), 4)], 0x0001, 4)]
    for seq, cpu in enumerate([0, 2, 1, 3], 1):
        pages.append(page(cpu, seq, list(first if cpu == 0 else []) + per_cpu[cpu]))
    path = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(b"".join(pages))
    return path, pages


trace, pages = write_trace("stacks.etl")

WANT = {
    "App.exe;app.dll!?;App.Program.Main;App.Work.Run": 2,
    "App.exe;app.dll!?;App.Program.Main;ntoskrnl.exe!?;ntoskrnl.exe!?": 1,
    "App.exe;app.dll!?": 1,
    "App.exe;app.dll!?;?!?": 1,
    "Idle;ntoskrnl.exe!?": 1,
}

# --- folded ---
folded = os.path.join(work, "stacks.folded")
rc, out, err = t.run("convert", to_target_path(t, trace), "/Format:Folded",
                     "/Out:" + to_target_path(t, folded))
t.check(rc == 0 and os.path.isfile(folded), "convert /Format:Folded writes: %d %r" % (rc, err))
got = {}
with open(folded, encoding="utf-8") as f:
    for line in f.read().splitlines():
        stack, _, count = line.rpartition(" ")
        got[stack] = got.get(stack, 0) + int(count)
for stack, count in WANT.items():
    t.check(got.get(stack) == count, "folded %r: %r, want %d" % (stack, got.get(stack), count))
t.check(sorted(got) == sorted(WANT), "no other folded line: %r" % sorted(set(got) - set(WANT)))

# --- the report counts the same samples ---
html = os.path.join(work, "stacks.html")
rc, out, err = t.run("report", to_target_path(t, trace), "/Out:" + to_target_path(t, html))
t.check(rc == 0, "report exits 0: %d %r" % (rc, err))
with open(html, encoding="utf-8") as f:
    text = f.read()
doc = json.loads(text.split('id="etwcap-report">', 1)[1].split("</script>", 1)[0])
cpu = {p["name"]: p for p in doc["cpu"]}
t.check(cpu.get("App.exe", {}).get("samples") == 5 and
        cpu.get("App.exe", {}).get("samplesWithStack") == 4,
        "report: App.exe 5 samples, 4 with a stack: %r" % cpu.get("App.exe"))
top = {f["frame"]: (f["self"], f["total"]) for f in cpu.get("App.exe", {}).get("top", [])}
# Thread 44 switched out at 20 ms (CPU 0) and in at 25 ms (CPU 1, stored
# after CPU 2): 5 ms blocked, as the thread-time view counts it.
t.check(cpu.get("App.exe", {}).get("blockedMs") == 5.0,
        "report: App.exe blocked 5 ms: %r" % cpu.get("App.exe", {}).get("blockedMs"))
t.check("BLOCKED_TIME" in text and "CPU_TIME" in text, "the page draws the thread-time view")


def cpu_time_drawn(text):
    """The CPU_TIME the page's thread-time graphs draw, in 100 ns (the
    weight of each CPU_TIME frame, data-w)."""
    total = 0
    for part in text.split('<g class="f" data-x="')[1:]:
        if "<title>CPU_TIME\n" in part.split("</title>", 1)[0]:
            total += int(part.split('data-w="', 1)[1].split('"', 1)[0])
    return total


# No interval event: each of App.exe's 5 samples is 1 ms, and the page says
# so; the trace gives no interval (null).
t.check(cpu.get("App.exe", {}).get("cpuMs") == 5.0 and doc.get("cpuSampleIntervalMs") is None,
        "report: 5 ms of CPU at the 1 ms fallback: %r %r" %
        (cpu.get("App.exe", {}).get("cpuMs"), doc.get("cpuSampleIntervalMs")))
t.check(cpu_time_drawn(text) == 50000, "the thread-time view draws 5 ms of CPU_TIME: %d" %
        cpu_time_drawn(text))
t.check("does not give its sampling interval" in text, "the page notes the 1 ms fallback")


def report_of(path):
    page_path = path + ".html"
    rc, out, err = t.run("report", to_target_path(t, path), "/Out:" + to_target_path(t, page_path))
    t.check(rc == 0, "report %s exits 0: %d %r" % (path, rc, err))
    with open(page_path, encoding="utf-8") as f:
        page_text = f.read()
    data = json.loads(page_text.split('id="etwcap-report">', 1)[1].split("</script>", 1)[0])
    return page_text, data, {p["name"]: p for p in data["cpu"]}


# A CollectionStart of 0.5 ms (5000 in 100 ns units): half the CPU time,
# the same samples.
half_text, half, half_cpu = report_of(write_trace("half.etl", [interval(73, 0.5, 5000, 10000)])[0])
t.check(half_cpu.get("App.exe", {}).get("samples") == 5 and
        half_cpu.get("App.exe", {}).get("cpuMs") == 2.5 and half.get("cpuSampleIntervalMs") == 0.5,
        "report: 0.5 ms samples, 2.5 ms of CPU: %r %r" %
        (half_cpu.get("App.exe"), half.get("cpuSampleIntervalMs")))
t.check(cpu_time_drawn(half_text) == 25000 and "does not give" not in half_text,
        "the thread-time view draws half the CPU_TIME: %d" % cpu_time_drawn(half_text))
t.check(half_cpu.get("App.exe", {}).get("blockedMs") == 5.0, "blocked time does not change")
# A SetInterval at 14 ms from 1 ms to 0.5 ms: App.exe's samples at 10, 11
# and 12 ms count 1 ms each, those at 15 and 17 ms 0.5 ms each.
_, _, set_cpu = report_of(write_trace("set.etl", [interval(72, 14, 5000, 10000)])[0])
t.check(set_cpu.get("App.exe", {}).get("cpuMs") == 4.0,
        "report: each sample at the interval of its time (4 ms): %r" % set_cpu.get("App.exe"))
t.check(top.get("App.Work.Run") == (2, 2) and top.get("App.Program.Main") == (0, 3) and
        top.get("app.dll!?") == (1, 5) and top.get("ntoskrnl.exe!?") == (1, 1),
        "report: self and total per frame: %r" % top)

# --- speedscope, one process ---
scope = os.path.join(work, "stacks.speedscope.json")
rc, out, err = t.run("convert", to_target_path(t, trace), "/Process:App",
                     "/Out:" + to_target_path(t, scope))
t.check(rc == 0, "convert /Process:App exits 0: %d %r" % (rc, err))
with open(scope, encoding="utf-8") as f:
    doc = json.load(f)
t.check(doc.get("$schema") == "https://www.speedscope.app/file-format-schema.json",
        "the speedscope schema: %r" % doc.get("$schema"))
names = [fr["name"] for fr in doc["shared"]["frames"]]
profiles = doc["profiles"]
t.check([p["name"] for p in profiles] == ["App.exe (40)"] and profiles[0]["type"] == "sampled",
        "one sampled profile, App.exe's: %r" % [p["name"] for p in profiles])
scoped = {}
for stack, weight in zip(profiles[0]["samples"], profiles[0]["weights"]):
    key = ";".join(["App.exe"] + [names[i] for i in stack])
    scoped[key] = scoped.get(key, 0) + weight
t.check(scoped == {k: v for k, v in WANT.items() if k.startswith("App.exe")},
        "speedscope holds the folded stacks of App.exe: %r" % scoped)
t.check(profiles[0]["endValue"] == 5, "endValue is the samples: %r" % profiles[0]["endValue"])

# --- bad input and bad qualifiers ---
cut = os.path.join(work, "cut.etl")
with open(cut, "wb") as f:
    f.write(b"".join(pages)[:PAGE + 300])
out_cut = os.path.join(work, "cut.folded")
rc, out, err = t.run("convert", to_target_path(t, cut), "/Format:Folded",
                     "/Out:" + to_target_path(t, out_cut))
t.check(rc == 5, "a truncated trace exits 5: %d %r" % (rc, err))
t.check(not os.path.exists(out_cut), "and leaves no output under the final name")
t.check(not [n for n in os.listdir(work) if n.endswith(".tmp")], "nor a temporary")
rc, out, err = t.run("convert", to_target_path(t, trace), "/Format:Flame")
t.check(rc == 2 and "/Format:Speedscope" in err, "an unknown /Format exits 2 and names the "
        "formats: %d %r" % (rc, err))
rc, out, err = t.run("convert", to_target_path(t, trace), "/Process:4242")
t.check(rc == 2 and "4242" in err, "a pid without samples exits 2: %d %r" % (rc, err))

# --- the real sample: the figures ---
samples = samples_dir()
net = os.path.join(samples, "ms-perfview__net.4.5.2.x64.etl.zip") if samples else None
if net and os.path.isfile(net):
    folded = os.path.join(work, "net.folded")
    rc, out, err = t.run("convert", to_target_path(t, net), "/Format:Folded",
                         "/Out:" + to_target_path(t, folded))
    t.check(rc == 0, "convert net.4.5.2: %d %r" % (rc, err))
    total = main = 0
    with open(folded, encoding="utf-8") as f:
        for line in f.read().splitlines():
            stack, _, count = line.rpartition(" ")
            total += int(count)
            frames = stack.split(";")
            if frames[0] == "Test.x64.exe" and "Test.Program.Main" in frames:
                main += int(count)
    html = os.path.join(work, "net.html")
    rc, out, err = t.run("report", to_target_path(t, net), "/Out:" + to_target_path(t, html))
    with open(html, encoding="utf-8") as f:
        text = f.read()
    doc = json.loads(text.split('id="etwcap-report">', 1)[1].split("</script>", 1)[0])
    t.check(total == 79528 == sum(p["cpuSamples"] for p in doc["processes"]),
            "the folded lines sum to every CPU sample (79,528): %d" % total)
    t.check(main == 4935, "Test.Program.Main's lines sum to 4,935: %d" % main)
    # The trace's CollectionStart gives the timer's interval: the golden
    # listing (an independent parser) has its payload's CRC-32, which must be
    # that of source 0, the interval the report read as new and old, and
    # the source's name (SampledProfileIntervalTraceData).
    golden = os.path.join(samples, "golden", "ms-perfview__net.4.5.2.x64.etl.zip.tsv.gz")
    step = doc.get("cpuSampleIntervalMs")
    if not os.path.isfile(golden):
        print("note: %s is absent: the interval's check is skipped" % golden)
    elif isinstance(step, float):
        with gzip.open(golden, "rt", encoding="utf-8") as f:
            crcs = [line.rstrip("\n").split("\t")[9] for line in f
                    if "\thook=0x0f49(" in line]
        payload = struct.pack("<III", 0, round(step * 10000), round(step * 10000)) + wide("Timer")
        t.check(crcs == ["crc=%08x" % zlib.crc32(payload)],
                "net.4.5.2's interval (%r ms) is its CollectionStart's: %r" % (step, crcs))
        tests = {p["name"]: p for p in doc["cpu"]}
        t.check(tests.get("Test.x64.exe", {}).get("cpuMs") == 5129 * step,
                "Test.x64.exe's CPU time is its 5,129 samples at that interval: %r" %
                tests.get("Test.x64.exe"))
    else:
        t.check(False, "net.4.5.2 gives its sampling interval: %r" % step)
    rc, out, err = t.run("convert", to_target_path(t, net), "/Process:Test.x64.exe",
                         "/Out:" + to_target_path(t, scope))
    with open(scope, encoding="utf-8") as f:
        doc = json.load(f)
    t.check(sum(doc["profiles"][0]["weights"]) == 5129, "speedscope: Test.x64.exe's 5,129")
else:
    print("note: the shared samples are absent: the real-trace checks are skipped")
t.finish()
