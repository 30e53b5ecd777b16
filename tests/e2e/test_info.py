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

tmp = os.path.join(tmp_dir(), "e2e_info")
os.makedirs(tmp, exist_ok=True)
text = os.path.join(tmp, "notes.txt")
with open(text, "w") as f:
    f.write("not a trace\n" * 20)
rc, out, err = t.run("info", to_target_path(t, text))
t.check(rc == 5 and "notes.txt" in err and "not an ETL file" in err,
        "info of a text file: exit 5 and a clear message: rc=%d %r" % (rc, err))
t.finish()
