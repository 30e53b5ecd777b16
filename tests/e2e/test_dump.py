"""`etwcap dump` as a user sees it: the line format on a real trace, several
files in one call, /TimeOrder, and bad input (missing, not an ETL,
truncated, corrupted, a zip without traces): a message naming the file and
the byte offset, a non-zero exit code (5 for bad data, 6 for a missing
file), never a crash."""
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()
samples = samples_dir()
if not samples:
    print("skipped: the shared samples folder is absent (set ETWCAP_SAMPLES)")
    sys.exit(SKIP)
tmp = os.path.join(tmp_dir(), "e2e_dump")
os.makedirs(tmp, exist_ok=True)


def target(path):
    return to_target_path(t, path)


def events(out):
    return [l for l in out.splitlines() if l and not l.startswith("#")]


amsi = os.path.join(samples, "airbus-etl-parser__AMSITrace.etl")
hw3d = os.path.join(samples, "rbeesley+hw3d__trace.etl")

rc, out, err = t.run("dump", target(amsi), target(hw3d))
t.check(rc == 0, "dump of two files exits 0: rc=%d %r" % (rc, err))
files = [l for l in out.splitlines() if l.startswith("# FILE ")]
t.check(len(files) == 2 and files[0].endswith("airbus-etl-parser__AMSITrace.etl")
        and files[1].endswith("rbeesley+hw3d__trace.etl"), "one '# FILE' line per file: %r" % files)
lines = events(out)
t.check(len(lines) == 21 + 3, "21 + 3 events: %d" % len(lines))
t.check(all(len(l.split("\t")) == 10 for l in lines), "10 tab-separated columns")
t.check(lines[0].split("\t")[4:7] == ["SYSTEM64", "kernel:Header", "hook=0x0000(grp=0,op=0)"],
        "the first event is the logfile header: %r" % lines[0])

# Non-ASCII names, for a plain file and for a zip (UTF-8 paths on Windows).
import shutil  # noqa: E402
uni = os.path.join(tmp, "tr\u00e2ce_\u00e9.etl")
shutil.copyfile(hw3d, uni)
unizip = os.path.join(tmp, "pr\u00eem.etl.zip")
shutil.copyfile(os.path.join(samples, "ms-perfview__primitive-types.etl.zip"), unizip)
rc, out, err = t.run("dump", target(uni), target(unizip))
t.check(rc == 0 and len(events(out)) == 3 + 7,
        "non-ASCII paths read: rc=%d events=%d %r" % (rc, len(events(out)), err))

# /TimeOrder: the same events, timestamps never step back within a file.
ms = os.path.join(samples, "ms-Tx__CrossMachineHTTP.etl")
rc, fo, err = t.run("dump", target(ms))
rc2, to, err2 = t.run("dump", "/TimeOrder", target(ms))
t.check(rc == 0 and rc2 == 0, "dump and dump /TimeOrder exit 0")
fo_lines, to_lines = events(fo), events(to)
t.check(sorted(fo_lines) == sorted(to_lines), "/TimeOrder lists the same events")
ts = [int(l.split("\t")[2]) for l in to_lines]
t.check(all(a <= b for a, b in zip(ts, ts[1:])), "/TimeOrder is in time order")
t.check(fo_lines != to_lines, "this file's order on disk is not time order")


def bad(path, code, what, *expect):
    rc, out, err = t.run("dump", target(path))
    t.check(rc == code, "%s: exit code %d, got %d (%r)" % (what, code, rc, err))
    t.check(os.path.basename(path) in err, "%s: the message names the file: %r" % (what, err))
    for e in expect:
        t.check(e in err, "%s: the message says %r: %r" % (what, e, err))
    t.check("Traceback" not in err and "Assertion" not in err and "Sanitizer" not in err,
            "%s: no crash: %r" % (what, err))


bad(os.path.join(tmp, "missing.etl"), 6, "missing file")

text = os.path.join(tmp, "notes.etl")
with open(text, "w") as f:
    f.write("This is not a trace, just text that happens to be named .etl.\n" * 4)
bad(text, 5, "text file", "not an ETL file", "byte offset")

with open(os.path.join(samples, "airbus-etl-parser__ShutdownPerfDiagLogger.etl"), "rb") as f:
    data = f.read()
cut = os.path.join(tmp, "truncated.etl")
with open(cut, "wb") as f:
    f.write(data[:100000])
bad(cut, 5, "truncated file", "byte offset", "ends")

corrupt = bytearray(data[:65536 * 3])
corrupt[65536 + 72 + 3] = 0x12  # the marker of buffer 1's first event
broken = os.path.join(tmp, "corrupt.etl")
with open(broken, "wb") as f:
    f.write(bytes(corrupt))
bad(broken, 5, "corrupted event marker", "byte offset %d" % (65536 + 72))

nozip = os.path.join(tmp, "nothing.zip")
with zipfile.ZipFile(nozip, "w") as z:
    z.writestr("LogFile.txt", "no trace here")
bad(nozip, 5, "zip without .etl", "no .etl")

t.finish()
