"""Interrupted work leaves nothing behind: SIGINT or SIGTERM at many moments
of a merge (and of merge /ImageIDsOnly) of a ~90 MB collection leaves the
folder holding exactly the inputs, byte for byte (SHA-256), and exit 8 --
or, when the signal came too late to matter, the finished zip (which
Python's zipfile reads back whole) and exit 0.  README's exit-code table
says 8 is "cancelled".  The moments are spread over the time one
uninterrupted run takes here; nothing is asserted about time itself.
POSIX signals: natively only (the Windows build's console handler takes
Ctrl+C and console close; Wine does not deliver them to it reliably).
Skips (77) without the samples or under Wine."""
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir  # noqa: E402

t = Etwcap()
samples = samples_dir()
if not samples or t.windows:
    print("skipped: needs the shared samples (ETWCAP_SAMPLES) and the native build")
    sys.exit(SKIP)
SAMPLE = os.path.join(samples, "ms-Tx__BondEtwSample.etl")
COPIES = 30
MOMENTS = 8


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def folder_state(d):
    return {name: digest(os.path.join(d, name)) for name in sorted(os.listdir(d))}


def make_collection(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    shutil.copy(SAMPLE, os.path.join(d, "X.etl"))
    for i in range(COPIES):
        # X.user<N>.etl: siblings by PerfView's naming (docs/perfview-collection.md §8.1).
        shutil.copy(SAMPLE, os.path.join(d, "X.user%d.etl" % i))
    return folder_state(d)


def started(d):
    """The work has begun once a temporary file appears (the signal
    handler is installed before the first one is created)."""
    return any(name.endswith(".tmp") for name in os.listdir(d))


def run(d, args, delay, signo):
    proc = subprocess.Popen(t.command + args, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while proc.poll() is None and not started(d) and time.monotonic() < deadline:
        time.sleep(0.002)
    if proc.poll() is None:
        time.sleep(delay)
        proc.send_signal(signo)
    _, err = proc.communicate(timeout=600)
    return proc.returncode, err.decode("utf-8", "replace")


def zip_reads(path):
    try:
        with zipfile.ZipFile(path) as z:
            return z.testzip() is None
    except zipfile.BadZipFile:
        return False


d = os.path.join(tmp_dir(), "interrupt")
before = make_collection(d)
t0 = time.monotonic()
proc = subprocess.run(t.command + ["merge", os.path.join(d, "X.etl")], stdout=subprocess.DEVNULL,
                      stderr=subprocess.PIPE)
whole = time.monotonic() - t0
t.check(proc.returncode == 0 and sorted(os.listdir(d)) == ["X.etl.zip"],
        "an uninterrupted merge leaves only the zip: %r" % os.listdir(d))
cut = 0
for k in range(MOMENTS):
    signo = signal.SIGINT if k % 2 == 0 else signal.SIGTERM
    before = make_collection(d)
    rc, err = run(d, ["merge", os.path.join(d, "X.etl")], whole * k / MOMENTS, signo)
    after = folder_state(d)
    what = "merge, %s after %.0f%% of a run" % (signal.Signals(signo).name, 100.0 * k / MOMENTS)
    if rc == 8:
        cut += 1
        t.check(after == before, "%s: exit 8 and the folder holds the inputs unchanged: %r"
                % (what, sorted(after)))
        t.check("stopped by" in err, "%s: says it was stopped: %r" % (what, err))
    else:
        t.check(rc == 0 and list(after) == ["X.etl.zip"] and
                zip_reads(os.path.join(d, "X.etl.zip")),
                "%s: exit %d, folder %r (expected exit 8 with the inputs, or the finished zip)"
                % (what, rc, sorted(after)))
t.check(cut > 0, "at least one merge was cut short (%d of %d)" % (cut, MOMENTS))

# /ImageIDsOnly rewrites the zip in place: cut short, the zip is as it was.
make_collection(d)
subprocess.run(t.command + ["merge", os.path.join(d, "X.etl")],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
zip_path = os.path.join(d, "X.etl.zip")
zipped = folder_state(d)
for k in range(MOMENTS // 2):
    rc, err = run(d, ["merge", zip_path, "/ImageIDsOnly"], whole * k / MOMENTS, signal.SIGINT)
    after = folder_state(d)
    t.check((rc == 8 or rc == 0) and list(after) == ["X.etl.zip"] and
            (rc == 0 or after == zipped) and zip_reads(zip_path),
            "/ImageIDsOnly, SIGINT at moment %d: exit %d, folder %r" % (k, rc, sorted(after)))

shutil.rmtree(d, ignore_errors=True)
t.finish()
