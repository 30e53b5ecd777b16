"""Messages that point the right way: a folder that refuses writing is a file
error (exit 6, "cannot write to FOLDER: permission denied"), not a call for
an elevated prompt; a name too long says so; a folder given as a file says
so; `merge X.etl.zip` without /ImageIDsOnly says what to run; an unknown
keyword name points to `plan /?`, which prints the names (checked against
names TraceEvent's KernelTraceEventParser.Keywords and ClrTraceEventParser.
Keywords define); on Linux a file name that is not UTF-8 is refused before
anything is written.  Skips (77) without the samples."""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()
samples = samples_dir()
if not samples:
    print("skipped: the shared samples folder is absent (set ETWCAP_SAMPLES)")
    sys.exit(SKIP)
work = os.path.join(tmp_dir(), "messages")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "a folder.etl"))

rc, out, err = t.run("dump", to_target_path(t, os.path.join(work, "a folder.etl")))
t.check(rc == 6 and "is a folder, not a file" in err, "a folder given as a file: %d %r"
        % (rc, err))

if not t.windows:  # NAME_MAX is 255 bytes (POSIX <limits.h>, Linux file systems)
    rc, out, err = t.run("dump", os.path.join(work, "n" * 300 + ".etl"))
    t.check(rc == 6 and "name too long" in err, "a name too long: %d %r" % (rc, err))

rc, out, err = t.run("merge", to_target_path(t, os.path.join(work, "X.etl.zip")))
t.check(rc == 2 and "/ImageIDsOnly" in err and "etwcap merge" in err,
        "merge X.etl.zip says what to run: %d %r" % (rc, err))

# /sys refuses new files even to root: a folder that refuses writing.
if not t.windows and os.path.isdir("/sys"):
    gc = os.path.join(samples, "ms-perfview__gcevents.etl.zip")
    rc, out, err = t.run("replay", gc, "/StopOnGen2GC", "/Out:/sys/window.etl.zip")
    t.check(rc == 6 and "cannot write to /sys: permission denied" in err and
            "elevated" not in err, "a folder that refuses writing: %d %r" % (rc, err))

for qualifier, known in (("KernelEvents", ("ContextSwitch", "ImageLoad", "Process")),
                         ("ClrEvents", ("GC", "Jit", "Loader"))):
    rc, out, err = t.run("plan", "collect", "X.etl", "/%s:NoSuchName" % qualifier)
    t.check(rc == 2 and "etwcap plan /?" in err, "%s: points to plan /?: %r" % (qualifier, err))
    rc, out, err = t.run("plan", "/?")
    names = [line for line in out.replace("\r\n", "\n").split("\n\n") if line.startswith("Names for /%s:" % qualifier)]
    t.check(names and all(k in names[0].split() for k in known),
            "plan /? prints the %s names: %r" % (qualifier, names))

if not t.windows:
    bad = os.path.join(work.encode(), b"tr\xffce.etl")
    shutil.copy(os.path.join(samples, "ms-Tx__Process.etl"), bad)
    rc, out, err = t.run("merge", bad.decode("utf-8", "surrogateescape"))
    t.check(rc == 2 and "not valid UTF-8" in err, "a name that is not UTF-8 is refused: %d %r"
            % (rc, err))
    t.check(sorted(os.listdir(work.encode())) == sorted([b"a folder.etl", b"tr\xffce.etl"]),
            "nothing was written: %r" % os.listdir(work.encode()))

shutil.rmtree(work, ignore_errors=True)
t.finish()
