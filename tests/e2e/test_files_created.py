"""Files are created, never followed: a symbolic link planted where etwcap
used to put its temporaries (X.etl.zip.tmp, X.etl.merged.tmp,
X.etl.zip.part0.tmp) or at the final name never gets its target written,
and (natively, under strace when it is installed) every file etwcap creates
in the output folder is opened with O_CREAT|O_EXCL|O_NOFOLLOW, under a name
with a random part (open(2): O_EXCL with O_CREAT fails on an existing name,
a symbolic link included; O_NOFOLLOW never follows one).
Skips (77) without the samples."""
import os
import re
import shutil
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()
samples = samples_dir()
if not samples:
    print("skipped: the shared samples folder is absent (set ETWCAP_SAMPLES)")
    sys.exit(SKIP)
SAMPLE = os.path.join(samples, "ms-Tx__Process.etl")
SECRET = b"a file the attacker wants overwritten\n"


def fresh(name):
    d = os.path.join(tmp_dir(), name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    shutil.copy(SAMPLE, os.path.join(d, "X.etl"))
    # Writable, as a capture's own files are: the samples may be read-only,
    # and a read-only input would stay whatever the merge did.
    os.chmod(os.path.join(d, "X.etl"), 0o644)
    with open(os.path.join(d, "target"), "wb") as f:
        f.write(SECRET)
    return d


def plant(d, names):
    for n in names:
        os.symlink(os.path.join(d, "target"), os.path.join(d, n))


def target_intact(d):
    with open(os.path.join(d, "target"), "rb") as f:
        return f.read() == SECRET


OLD_TEMPS = ["X.etl.zip.tmp", "X.etl.merged.tmp", "X.etl.zip.part0.tmp", "X.etl.new"]

# Links at the old fixed temporary names: merge goes on, the target is untouched.
d = fresh("created-links")
plant(d, OLD_TEMPS)
rc, out, err = t.run("merge", to_target_path(t, os.path.join(d, "X.etl")))
t.check(rc == 0, "merge with links at the old temporary names: exit 0, got %d %s" % (rc, err))
t.check(target_intact(d), "the links' target is not written")
t.check(all(os.path.islink(os.path.join(d, n)) for n in OLD_TEMPS), "the planted links stay")

# /ImageIDsOnly on that zip, links at its old temporary names.
zip_path = os.path.join(d, "X.etl.zip")
rc, out, err = t.run("merge", to_target_path(t, zip_path), "/ImageIDsOnly")
t.check(rc == 0, "/ImageIDsOnly with links planted: exit 0, got %d %s" % (rc, err))
t.check(target_intact(d), "/ImageIDsOnly: the links' target is not written")

# A link at the final name: never followed.  Natively, and on Windows for
# a reparse point, it is refused and the input stays.  Wine shows a Unix
# link as the file it points to (no FILE_ATTRIBUTE_REPARSE_POINT), so the
# rename replaces the link itself: then the capture is whole under the
# final name, and its input is deleted as after any merge.
d = fresh("created-final-link")
plant(d, ["X.etl.zip"])
rc, out, err = t.run("merge", to_target_path(t, os.path.join(d, "X.etl")))
final = os.path.join(d, "X.etl.zip")
t.check(target_intact(d), "a link at the final name: its target is not written")
if rc != 0 or not t.windows:
    t.check(rc != 0 and os.path.islink(final),
            "the link at the final name is refused, not replaced: exit %d %s" % (rc, err))
    t.check(os.path.exists(os.path.join(d, "X.etl")), "refused: the input stays")
else:
    with zipfile.ZipFile(final) as z:
        names = z.namelist()
    t.check(not os.path.islink(final) and "X.etl" in names,
            "the link was replaced by the whole capture, not followed: %r" % names)
t.check(not [f for f in os.listdir(d) if f.endswith(".tmp")], "no temporary left: %r"
        % os.listdir(d))

# Under strace: every file created in the output folder is created exclusively.
# With /Zip the merged ETL is compressed as it is written (one pass), so the
# zip's temporary is the file created; /Zip:false creates the merged ETL's.
if not t.windows and shutil.which("strace"):
    for extra in ([], ["/Zip:false"]):
        d = fresh("created-strace" + "".join(extra).replace("/", "-").replace(":", "-"))
        trace = os.path.join(tmp_dir(), "created.strace")
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")  # LeakSanitizer cannot run under ptrace
        subprocess.run(["strace", "-f", "-qq", "-o", trace, "-e", "trace=open,openat,creat"] +
                       t.command + ["merge", os.path.join(d, "X.etl")] + extra, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        writes = []
        with open(trace) as f:
            for line in f:
                m = re.search(r'open(?:at)?\((?:AT_FDCWD, )?"([^"]*)", ([A-Z_|]+)', line)
                if m and os.path.dirname(m.group(1)) == d and re.search(
                        r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC", m.group(2)):
                    writes.append((os.path.basename(m.group(1)), m.group(2)))
        t.check(len(writes) >= 1, "strace saw merge %s create its output: %r" % (extra, writes))
        for name, flags in writes:
            t.check("O_EXCL" in flags and "O_NOFOLLOW" in flags and "O_CREAT" in flags,
                    "%s opened with %s" % (name, flags))
            t.check(re.search(r"\.[0-9a-f]{16}\.tmp$", name) is not None,
                    "%s has a random part" % name)
        os.remove(trace)
else:
    print("note: the strace check runs natively with strace installed (install-deps.sh)")

t.finish()
