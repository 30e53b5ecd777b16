"""Hostile inputs to the offline commands, each of which once wrote past a
buffer, hung, or lost a file: every one gets a clear error (exit 5 for bad
input) or a correct result, within 60 s, natively (ASan/UBSan/LSan) and
under Wine.
  - zip members with names of 60,004 and 1,025 bytes (APPNOTE 6.3.10 4.4.10:
    a name holds up to 65,535): dump, info and report read them; unzip
    refuses a PDB name no file system holds and writes nothing;
  - 65 session files beside X.etl: merge refuses them and keeps every one;
  - a FIFO named like a session file, or standing where a trace's image
    event says an image is: the merge never waits on it;
  - replay /Out beside a stray file of the same name: neither merged nor
    deleted;
  - a path too long for unzip to write beside: refused, nothing cut short;
  - a member name with a line break and a terminal escape: no forged line;
  - a folder at the output name (said before merging), a backslash in a
    Linux file name (part of the name, not a separator);
  - a StartTime at either end of int64: times are held in range, no
    signed overflow (UBSan) and no garbage date.
Skips (77) without the samples."""
import os
import shutil
import struct
import subprocess
import sys
import zipfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import Etwcap, samples_and_work, to_target_path  # noqa: E402

t = Etwcap()
samples, work = samples_and_work("hostile-inputs")
with open(os.path.join(samples, "rbeesley+hw3d__trace.etl"), "rb") as f:
    ETL = f.read()
LIMIT = 60  # seconds: a hang guard, not a measurement


def run(*args):
    """etwcap with args, stopped after LIMIT seconds (then a failure)."""
    try:
        proc = subprocess.run(t.command + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=LIMIT)
    except subprocess.TimeoutExpired:
        return None, "", "still running after %d s" % LIMIT
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"))


def target(path):
    return to_target_path(t, path)


def stored_zip(members):
    """An archive of stored members, names as given (bytes), built by hand:
    Python's zipfile would write the same, but this is what we control."""
    out, central = bytearray(), bytearray()
    for name, data in members:
        offset, crc = len(out), zlib.crc32(data)
        out += struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0x21, crc, len(data),
                           len(data), len(name), 0) + name + data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0x031e, 20, 0, 0, 0, 0x21,
                               crc, len(data), len(data), len(name), 0, 0, 0, 0, 0,
                               offset) + name
    start = len(out)
    out += central + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, len(members), len(members),
                                 len(central), start, 0)
    return bytes(out)


def events(out):
    return [line for line in out.splitlines() if not line.startswith("# FILE")]


def fresh(name):
    d = os.path.join(work, name)
    os.makedirs(d)
    return d


def put(path, data):
    with open(path, "wb") as f:
        f.write(data)


plain = os.path.join(work, "plain.etl")
put(plain, ETL)
rc, out, err = run("dump", target(plain))
t.check(rc == 0, "dump of the plain sample: exit %s %s" % (rc, err))
plain_events = events(out)

# --- member names past every buffer ---------------------------------------------
long_names = {
    "etl-name-60004": [(b"a" * 60000 + b".etl", ETL)],
    "pdb-name-1025": [(b"trace.etl", ETL), (b"symbols/" + b"p" * 1013 + b".pdb", b"x" * 100)],
}
for label, members in long_names.items():
    path = os.path.join(work, label + ".etl.zip")
    put(path, stored_zip(members))
    with zipfile.ZipFile(path) as z:  # an independent reader takes it
        t.check(z.testzip() is None, "%s: Python's zipfile reads it" % label)
    rc, out, err = run("dump", target(path))
    t.check(rc == 0 and events(out) == plain_events,
            "%s: dump reads the member's events: exit %s %s" % (label, rc, err[:300]))
    rc, out, err = run("info", target(path))
    t.check(rc == 0, "%s: info: exit %s %s" % (label, rc, err[:300]))
    rc, out, err = run("report", target(path))
    t.check(rc == 0, "%s: report: exit %s %s" % (label, rc, err[:300]))

d = fresh("unzip-long-pdb")
shutil.copy(os.path.join(work, "pdb-name-1025.etl.zip"), os.path.join(d, "X.etl.zip"))
rc, out, err = run("unzip", target(os.path.join(d, "X.etl.zip")))
t.check(rc == 5 and "no file system holds" in err,
        "unzip of a 1,021-byte PDB file name: exit 5 naming the member, got %s %s"
        % (rc, err[:300]))
t.check(sorted(os.listdir(d)) == ["X.etl.zip"], "unzip refused: nothing written: %r"
        % os.listdir(d))

# Paths near unzip's limit: 1,100 bytes is written whole (the ETL keeps its
# whole name), 1,110 is refused; nothing is ever cut short.
deep = os.path.join(work, "deep")
while len(target(deep)) < 1100 - 200 - 20:
    deep = os.path.join(deep, "d" * 200)  # parts a file system holds
os.makedirs(deep)
for size, fits in ((1100, True), (1110, False)):
    stem = "s" * (size - len(target(deep)) - len("/.etl.zip"))
    deep_zip = os.path.join(deep, stem + ".etl.zip")
    put(deep_zip, stored_zip([(b"trace.etl", ETL)]))
    rc, out, err = run("unzip", target(deep_zip))
    written = sorted(os.listdir(deep))
    if fits:
        t.check(rc == 0 and written == sorted([stem + ".etl", stem + ".etl.zip"]),
                "unzip of a %d-byte path writes X.etl whole: exit %s %s %r"
                % (len(target(deep_zip)), rc, err[-200:], [n[-12:] for n in written]))
    else:
        t.check(rc == 6 and "too long" in err and written == [stem + ".etl.zip"],
                "unzip of a %d-byte path: exit 6, nothing written: %s %s %r"
                % (len(target(deep_zip)), rc, err[-200:], [n[-12:] for n in written]))
    for name in written:
        os.remove(os.path.join(deep, name))

# --- a name that would forge a log line ------------------------------------------
d = fresh("forged-line")
forger = b"../\x1b[2Jx\r\n2026-01-01T00:00:00.000Z ERROR forged.pdb"
put(os.path.join(d, "X.etl.zip"), stored_zip([(b"trace.etl", ETL), (forger, b"pdb")]))
rc, out, err = run("unzip", target(os.path.join(d, "X.etl.zip")))
t.check(rc == 0, "unzip with a member that would leave the folder: exit %s %s" % (rc, err))
t.check("\x1b" not in err and not any(line.startswith("2026-01-01") for line in err.splitlines()),
        "the member's name forges no line and sends no escape: %r" % err)

# --- times at the ends of int64 -------------------------------------------------
# The sample's logfile header holds its StartTime (FILETIME) at byte 368
# (2024-01-14T07:36:02.3923820Z); every event's time is reckoned from it.
start_at = 368
(start,) = struct.unpack_from("<q", ETL, start_at)
t.check(133496913623923820 == start, "the sample's StartTime is where this test expects it")
for label, value in (("latest", 0x7FFFFFFFFFFFFF00), ("earliest", -0x7FFFFFFFFFFFFF00)):
    path = os.path.join(work, "time-%s.etl" % label)
    put(path, ETL[:start_at] + struct.pack("<q", value) + ETL[start_at + 8:])
    for cmd in ("dump", "info", "report"):
        rc, out, err = run(cmd, target(path))
        t.check(rc == 0 and "runtime error" not in err,
                "%s of a trace whose StartTime is the %s int64: exit %s %s"
                % (cmd, label, rc, err[:300]))

# The logger name in the header (UTF-16 "trace" at byte 384) with an escape.
name_at = 384
t.check(ETL[name_at:name_at + 10] == "trace".encode("utf-16-le"),
        "the sample's logger name is where this test expects it")
path = os.path.join(work, "escape-logger.etl")
put(path, ETL[:name_at] + "\x1b[".encode("utf-16-le") + ETL[name_at + 4:])
for cmd in ("info", "dump"):
    rc, out, err = run(cmd, target(path))
    t.check(rc == 0 and "\x1b" not in out + err and "?[ace" in out,
            "%s of a logger name holding an escape prints it as '?': exit %s %r"
            % (cmd, rc, out[:200]))

# --- 65 session files ------------------------------------------------------------
d = fresh("sixty-five")
put(os.path.join(d, "X.etl"), ETL)
for i in range(1, 65):
    put(os.path.join(d, "X.user%d.etl" % i), ETL)
rc, out, err = run("merge", target(os.path.join(d, "X.etl")))
t.check(rc == 5 and "at most 64" in err, "65 session files: exit 5 saying the limit, got %s %s"
        % (rc, err[:300]))
t.check(len(os.listdir(d)) == 65, "65 session files: all stay, nothing written: %d files"
        % len(os.listdir(d)))
os.remove(os.path.join(d, "X.user64.etl"))
rc, out, err = run("merge", target(os.path.join(d, "X.etl")))
t.check(rc == 0 and os.listdir(d) == ["X.etl.zip"], "64 session files merge: exit %s %s %r"
        % (rc, err[:300], os.listdir(d)[:3]))
if rc == 0:
    with zipfile.ZipFile(os.path.join(d, "X.etl.zip")) as z:
        t.check("X.etl" in z.namelist(), "the 64 files' capture holds X.etl")

# A folder at the output name is said before the merge; nothing is lost.
d = fresh("folder-at-output")
put(os.path.join(d, "X.etl"), ETL)
os.makedirs(os.path.join(d, "X.etl.zip"))
rc, out, err = run("merge", target(os.path.join(d, "X.etl")))
t.check(rc == 6 and "is a folder" in err and "files (" not in err,
        "a folder at X.etl.zip: exit 6 before merging, got %s %s" % (rc, err[:300]))
t.check(sorted(os.listdir(d)) == ["X.etl", "X.etl.zip"], "the folder's case: X.etl stays")

# On Linux a backslash is part of a file name, not a folder separator.
if not t.windows:
    d = fresh("backslash")
    put(os.path.join(d, "a\\b.etl"), ETL)
    put(os.path.join(d, "a\\b.user.etl"), ETL)
    proc = subprocess.run(t.command + ["merge", "a\\b.etl"], cwd=d, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=LIMIT)
    t.check(proc.returncode == 0 and os.listdir(d) == ["a\\b.etl.zip"],
            "merge of 'a\\b.etl' on Linux takes its sibling and writes 'a\\b.etl.zip': %s %r"
            % (proc.returncode, os.listdir(d)))

# --- FIFOs where files are expected ----------------------------------------------
if hasattr(os, "mkfifo"):
    d = fresh("fifo-sibling")
    put(os.path.join(d, "X.etl"), ETL)
    os.mkfifo(os.path.join(d, "X.user.etl"))
    rc, out, err = run("merge", target(os.path.join(d, "X.etl")))
    t.check(rc is not None and rc != 0 and "X.user.etl" in err,
            "a FIFO named like a session file: refused, not waited on: %s %s" % (rc, err[:300]))
    t.check(os.path.exists(os.path.join(d, "X.etl")), "the FIFO's capture: X.etl stays")

    # The diaghub kernel session names its images on \Device\HarddiskVolume1;
    # /PathMap sends them to a folder where each is a FIFO.
    hub = os.path.join(samples, "ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip")
    with zipfile.ZipFile(hub) as z:
        kernel = z.read(next(n for n in z.namelist() if n.endswith("diaghub.kernel.1.etl")))
    d = fresh("fifo-images")
    put(os.path.join(d, "X.etl"), kernel)
    sys32 = os.path.join(d, "images", "Windows", "System32")
    os.makedirs(sys32)
    for name in ("ntdll.dll", "KernelBase.dll", "kernel32.dll", "ucrtbase.dll", "clr.dll",
                 "coreclr.dll", "combase.dll", "msvcrt.dll", "user32.dll", "win32u.dll"):
        os.mkfifo(os.path.join(sys32, name))
    rc, out, err = run("merge", target(os.path.join(d, "X.etl")),
                       "/PathMap:\\Device\\HarddiskVolume1=" + target(os.path.join(d, "images")))
    t.check(rc == 0, "images that are FIFOs: the merge finishes without them: %s %s"
            % (rc, err[:300]))
else:
    print("note: the FIFO cases need os.mkfifo")

# --- replay /Out beside a stray file ---------------------------------------------
d = fresh("replay-stray")
gc = os.path.join(samples, "ms-perfview__gcevents.etl.zip")
stray = os.path.join(d, "O.user.etl")
put(stray, ETL)
rc, out, err = run("replay", target(gc), "/StopOnGen2GC", "/Out:" + target(os.path.join(d, "O.etl.zip")))
if rc == 9:
    print("note: /StopOnGen2GC did not fire on gcevents; the stray-file case says nothing")
else:
    t.check(rc == 0, "replay /Out beside a stray file: exit %s %s" % (rc, err[:300]))
    t.check(os.path.exists(stray), "replay /Out: the stray O.user.etl is not deleted")
    with zipfile.ZipFile(os.path.join(d, "O.etl.zip")) as z:
        manifest = z.read("etwcap-capture.json").decode()
    t.check("O.user.etl" not in manifest, "replay /Out: the stray file is not merged in")
    t.check(sorted(os.listdir(d)) == ["O.etl.zip", "O.user.etl"],
            "replay /Out leaves only its zip beside the stray: %r" % os.listdir(d))

shutil.rmtree(work, ignore_errors=True)
t.finish()
