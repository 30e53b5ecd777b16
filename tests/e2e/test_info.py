"""`etwcap info`: the summary of real traces says what SOURCES.md and the
golden SUMMARY blocks say (OS, build, CPUs, clock, logger, event counts per
provider, extended items, compression), and bad input is a clear error."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()
samples = samples_dir()
if not samples:
    print("skipped: the shared samples folder is absent (set ETWCAP_SAMPLES)")
    sys.exit(SKIP)


def info(name):
    rc, out, err = t.run("info", to_target_path(t, os.path.join(samples, name)))
    t.check(rc == 0, "info %s exits 0: rc=%d %r" % (name, rc, err))
    return out.replace("\r\n", "\n")


out = info("ms-perfview__net.4.5.2.x64.etl.zip")
for want in ("net.4.5.2.x64.etl.zip!net.4.5.2.x64.etl",
             "Logger:        'Relogger' (log file '[multiple files]')",
             "OS:            Windows 6.2 build 9200",
             "CPUs:          8",
             "QPC (performance counter) at 10000000 Hz",
             "0x04010001 (SEQUENTIAL|RELOG|COMPRESSED)",
             "Compression:   XPRESS, 359 of 360 buffers compressed",
             "Events:        179474,",
             "STACK_TRACE64=655",
             "RELATED_ACTIVITYID=3",
             "Events by CPU: 0=12133, 1=13923, 2=62722, 3=18055, 4=10454, 5=24696, 6=16527, 7=20964",
             "Events from:   2020-07-29T00:07:00.6236167Z",
             "Events to:     2020-07-29T00:07:13.2051815Z",
             "Providers:     26"):
    t.check(want in out, "net.4.5.2 info shows %r" % want)
prov = [l.split() for l in out.splitlines() if l.startswith("  ") and "provider" not in l]
counts = {p[2]: int(p[0]) for p in prov if len(p) >= 3}
t.check(counts.get("kernel:PerfInfo") == 79530, "kernel:PerfInfo=79530: %r" % counts.get("kernel:PerfInfo"))
t.check(counts.get("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4") == 32730, "CLR=32730")
t.check("Microsoft-Windows-DotNETRuntimeRundown" in out, "the CLR rundown provider is named")
t.check("KernelTraceControl/ImageID" in out, "KernelTraceControl ImageID is named")

out = info("ms-Tx__Process.etl")
t.check("Windows 6.1 build 7600" in out, "Win7 build: %r" % out[:400])
t.check("Events by CPU: 0=5205, 1=5139" in out, "Win7 CPU numbers from the low byte")
t.check("Compression:   none" in out, "not compressed")

out = info("airbus-etl-parser__AMSITrace.etl")
t.check("Lost:          3 events" in out, "EventsLost=3 from the header")
t.check("PROV_TRAITS=" in out and "EVENT_SCHEMA_TL=" in out, "TraceLogging items counted")

# Every sample against the golden SUMMARY blocks: events, CPUs, header
# types, extended items, providers and the time range.
import gzip  # noqa: E402
import re  # noqa: E402


def golden_summaries(path):
    out, name = {}, None
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("# SUMMARY "):
                name = line[len("# SUMMARY "):].strip()
                out[name] = {}
            elif name and line.startswith("#   ") and ":" in line:
                key, _, value = line[4:].strip().partition(":")
                if key.startswith("providers ("):  # "providers (N): list"
                    value = key[len("providers "):] + ": " + value.strip()
                    key = "providers"
                out[name][key] = value.strip()
            elif not line.startswith("#"):
                name = None
    return out


def pairs(text):
    return dict(p.split("=", 1) for p in text.split(", ") if "=" in p)


def info_blocks(out):
    blocks, name = {}, None
    for line in out.splitlines():
        if line.startswith("File:"):
            path = line.split(None, 1)[1]
            base, bang, member = path.partition("!")
            name = os.path.basename(base.replace("\\", "/")) + bang + member
            blocks[name] = {"providers": {}}
        elif name and line.startswith("  ") and re.match(r"^\s+\d+\s+\d+\s+\S", line):
            f = line.split()
            blocks[name]["providers"][f[2]] = f[0]
        elif name and ":" in line:
            key, _, value = line.partition(":")
            blocks[name][key.strip()] = value.strip()
    return blocks


golden = os.path.join(samples, "golden")
for name in sorted(os.listdir(samples)):
    if not (name.endswith(".etl") or name.endswith(".zip")):
        continue
    want_all = golden_summaries(os.path.join(golden, name + ".tsv.gz"))
    got_all = info_blocks(info(name))
    t.check(sorted(got_all) == sorted(want_all),
            "%s: reports for %r, golden %r" % (name, sorted(got_all), sorted(want_all)))
    for member, want in want_all.items():
        got = got_all.get(member, {"providers": {}})
        t.check(got.get("Events", "").split(",")[0] == want["events"],
                "%s: events %r vs %r" % (member, got.get("Events"), want["events"]))
        t.check(pairs(got.get("Events by CPU", "")) == pairs(want["by cpu"]),
                "%s: by cpu %r vs %r" % (member, got.get("Events by CPU"), want["by cpu"]))
        t.check(pairs(got.get("Header types", "")) == pairs(want["by header type"]),
                "%s: header types %r vs %r" % (member, got.get("Header types"),
                                               want["by header type"]))
        t.check(pairs(got.get("Extended items", "")) == pairs(want.get("extended items", "")),
                "%s: extended items %r vs %r" % (member, got.get("Extended items"),
                                                 want.get("extended items")))
        m = re.match(r"\((\d+)\): (.*)", want["providers"])
        t.check(m and got.get("Providers", "").split()[0] == m.group(1),
                "%s: provider count %r vs %r" % (member, got.get("Providers"), want["providers"]))
        if m:
            for prov, count in pairs(m.group(2)).items():
                t.check(got["providers"].get(prov) == count,
                        "%s: provider %s %r vs %s" % (member, prov, got["providers"].get(prov),
                                                      count))
        rng = re.search(r"\((\S+) \.\. (\S+)\)", want["raw ts range"])
        t.check(rng and got.get("Events from") == rng.group(1) and
                got.get("Events to") == rng.group(2),
                "%s: time range %r..%r vs %r" % (member, got.get("Events from"),
                                                 got.get("Events to"), want["raw ts range"]))

tmp = os.path.join(tmp_dir(), "e2e_info")
os.makedirs(tmp, exist_ok=True)
text = os.path.join(tmp, "notes.txt")
with open(text, "w") as f:
    f.write("not a trace\n" * 20)
rc, out, err = t.run("info", to_target_path(t, text))
t.check(rc == 5 and "notes.txt" in err and "not an ETL file" in err,
        "info of a text file: exit 5 and a clear message: rc=%d %r" % (rc, err))
t.finish()
