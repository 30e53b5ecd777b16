"""End-to-end `etwcap merge`: the diaghub session files become one .etl.zip
that unzip and Python's zipfile (two independent readers) accept, holding
every input event once; bad inputs fail cleanly and are never deleted."""
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections import Counter

from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path

t = Etwcap()
samples = samples_dir()
if not samples:
    print("skipped: ../shared/samples is absent")
    sys.exit(SKIP)

work = os.path.join(tmp_dir(), "e2e-merge-" + t.target)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
hub = zipfile.ZipFile(os.path.join(samples, "ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip"))


def member(suffix):
    return next(hub.read(n) for n in hub.namelist() if n.endswith(suffix))


def make_collection(name):
    """X.etl (user_injected), X.kernel.etl, X.user_paged.etl, as PerfView names them."""
    files = {name + ".etl": member("diaghub.user_injected.1.etl"),
             name + ".kernel.etl": member("diaghub.kernel.1.etl"),
             name + ".user_paged.etl": member("diaghub.user_paged.1.etl")}
    for f, data in files.items():
        with open(os.path.join(work, f), "wb") as out:
            out.write(data)
    return sorted(files)


IDENTITY = "b3e675d7-2554-4f18-830b-2762732560de"


def event_keys(path):
    """Columns 2, 3 and 5-10 of every event outside the header buffer, and
    apart: how many image identity events there are.  (On Windows, and under
    Wine, the drive table finds system DLLs at the paths a trace names, so a
    merge may add identity events without /PathMap.)"""
    rc, out, err = t.run("dump", to_target_path(t, path))
    t.check(rc == 0, "dump %s: %s" % (path, err))
    keys = Counter()
    identity = 0
    for line in out.splitlines():
        if line.startswith("#") or not line:
            continue
        cols = line.split("\t")
        if cols[5] == IDENTITY:
            identity += 1
        elif cols[0] != "0":
            keys[tuple(cols[1:3] + cols[4:10])] += 1
    return keys, identity


names = make_collection("cap")
expected = Counter()
for f in names:
    expected += event_keys(os.path.join(work, f))[0]

rc, out, err = t.run("merge", to_target_path(t, os.path.join(work, "cap.etl")))
t.check(rc == 0, "merge exits 0: %d %s" % (rc, err))
zpath = os.path.join(work, "cap.etl.zip")
t.check(os.path.exists(zpath), "cap.etl.zip written")
t.check(not any(os.path.exists(os.path.join(work, f)) for f in names),
        "session files deleted after a verified zip")
t.check(not os.path.exists(zpath + ".tmp"), "no temporary zip left")
t.check("Wrote" in out, "merge reports what it wrote: %r" % out)

unz = subprocess.run(["unzip", "-t", zpath], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
t.check(unz.returncode == 0 and b"No errors detected" in unz.stdout, "unzip -t accepts the zip")
with zipfile.ZipFile(zpath) as z:
    t.check(z.testzip() is None, "Python's zipfile finds every CRC right")
    t.check(sorted(z.namelist()) == ["LogFile.txt", "cap.etl", "etwcap-capture.json"],
            "zip members: %r" % z.namelist())
    manifest = json.loads(z.read("etwcap-capture.json"))
    t.check(manifest["schema"] == "etwcap-capture/1", "manifest schema")
    got, injected = event_keys(zpath)
    t.check(manifest["merged"]["events"] == sum(expected.values()) + injected,
            "manifest counts the events: %r" % manifest["merged"])
    t.check(len(manifest["sessions"]) == 3, "manifest lists the 3 sessions")
    t.check(b"merged 3 files" in z.read("LogFile.txt"), "LogFile.txt holds the merge log")

t.check(got == expected, "every input event appears once in the merged trace (%d vs %d)"
        % (sum(got.values()), sum(expected.values())))

# /Zip:false: the merged ETL replaces cap.etl; the siblings go.
names = make_collection("flat")
rc, out, err = t.run("merge", to_target_path(t, os.path.join(work, "flat.etl")), "/Zip:false")
t.check(rc == 0, "merge /Zip:false: %s" % err)
t.check(os.path.exists(os.path.join(work, "flat.etl"))
        and not os.path.exists(os.path.join(work, "flat.kernel.etl"))
        and not os.path.exists(os.path.join(work, "flat.etl.zip")), "merged flat.etl only")
t.check(event_keys(os.path.join(work, "flat.etl"))[0] == expected, "flat.etl holds every event")

# Not an ETL: exit 5, the input stays, nothing under the final name.
bad = os.path.join(work, "bad.etl")
with open(bad, "wb") as f:
    f.write(b"not a trace at all" * 100)
rc, out, err = t.run("merge", to_target_path(t, bad))
t.check(rc == 5, "not an ETL exits 5, got %d" % rc)
t.check("bad.etl" in err, "the message names the file: %r" % err)
t.check(os.path.exists(bad) and not os.path.exists(bad + ".zip"), "input kept, no zip")

# Missing: exit 6.
rc, out, err = t.run("merge", to_target_path(t, os.path.join(work, "missing.etl")))
t.check(rc == 6 and "missing.etl" in err, "missing file: %d %r" % (rc, err))

# Files from different machines/clocks: refused, inputs kept.
shutil.copy(os.path.join(samples, "ms-Tx__Process.etl"), os.path.join(work, "mix.etl"))
shutil.copy(os.path.join(samples, "airbus-etl-parser__AMSITrace.etl"),
            os.path.join(work, "mix.kernel.etl"))
rc, out, err = t.run("merge", to_target_path(t, os.path.join(work, "mix.etl")))
t.check(rc == 4 and "clock" in err, "different clocks refused: %d %r" % (rc, err))
t.check(os.path.exists(os.path.join(work, "mix.kernel.etl"))
        and not os.path.exists(os.path.join(work, "mix.etl.zip")), "inputs kept, no zip")

# Image identity: images reachable through /PathMap get KernelTraceControl's
# ImageID events just before their image event (same CPU, timestamp, pid, tid).
wine_dlls = "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows"
if os.path.isdir(wine_dlls):
    img = os.path.join(work, "img", "Windows", "System32")
    os.makedirs(img)
    for dll in ("ntdll.dll", "ucrtbase.dll", "kernelbase.dll"):
        src = os.path.join(wine_dlls, dll)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(img, "KernelBase.dll" if dll == "kernelbase.dll" else dll))
    with open(os.path.join(work, "ids.etl"), "wb") as f:
        f.write(member("diaghub.kernel.1.etl"))
    rc, out, err = t.run("merge", to_target_path(t, os.path.join(work, "ids.etl")),
                         "/PathMap:\\Device\\HarddiskVolume1=" + to_target_path(t, os.path.join(work, "img")))
    t.check(rc == 0, "merge with /PathMap: %s" % err)
    rc, out, err = t.run("dump", to_target_path(t, os.path.join(work, "ids.etl.zip")))
    rows = [l.split("\t") for l in out.splitlines() if l and not l.startswith("#")]
    # Each CPU's stream in file order is its time order: adjacency is per CPU.
    streams = {}
    for c in rows:
        streams.setdefault(c[1], []).append(c)
    total = placed = 0
    for lines in streams.values():
        for i, c in enumerate(lines):
            if c[5] != "b3e675d7-2554-4f18-830b-2762732560de":
                continue
            total += 1
            j = i
            while j < len(lines) and lines[j][5] == c[5]:
                j += 1
            after = lines[j] if j < len(lines) else None
            # PERFINFO image events (DCEnd) have no pid/tid in their header.
            if after and after[5] in ("kernel:Process", "kernel:Image") and after[2] == c[2] \
                    and (not after[8] or after[8] == c[8]):
                placed += 1
    t.check(total > 0, "identity events were injected")
    t.check(placed == total, "every identity event precedes its image event on its CPU (%d of %d)"
            % (placed, total))
    with zipfile.ZipFile(os.path.join(work, "ids.etl.zip")) as z:
        m = json.loads(z.read("etwcap-capture.json"))
        t.check(m["merged"]["imagesIdentified"] > 0, "manifest counts identified images: %r" % m["merged"])


def identity_count(zpath):
    return event_keys(zpath)[1]


# /ImageIDsOnly: a trace merged where the images were not reachable gets its
# identity later, in place; a second run adds nothing; the members stay.
if os.path.isdir(wine_dlls):
    with open(os.path.join(work, "late.etl"), "wb") as f:
        f.write(member("diaghub.kernel.1.etl"))
    # An image no Windows (or Wine) drive holds, so only /PathMap finds it.
    shutil.copy(os.path.join(wine_dlls, "ntdll.dll"), os.path.join(img, "kernel.appcore.dll"))
    rc, out, err = t.run("merge", to_target_path(t, os.path.join(work, "late.etl")))
    late = os.path.join(work, "late.etl.zip")
    before = identity_count(late)
    t.check(rc == 0 and (before == 0 or t.windows),
            "merged without reachable images: no identity (off Windows)")
    pathmap = "/PathMap:\\Device\\HarddiskVolume1=" + to_target_path(t, os.path.join(work, "img"))
    rc, out, err = t.run("merge", to_target_path(t, late), "/ImageIDsOnly", pathmap)
    first = identity_count(late)
    t.check(rc == 0 and first > before, "/ImageIDsOnly added identity: %d %d->%d %r %r"
            % (rc, before, first, out, err))
    with zipfile.ZipFile(late) as z:
        t.check(z.testzip() is None and sorted(z.namelist()) ==
                ["LogFile.txt", "etwcap-capture.json", "late.etl"], "members kept: %r" % z.namelist())
    with open(late, "rb") as f:
        zipped = f.read()
    rc, out, err = t.run("merge", to_target_path(t, late), "/ImageIDsOnly", pathmap)
    t.check(rc == 0 and identity_count(late) == first, "a second run adds nothing")
    with open(late, "rb") as f:
        t.check(f.read() == zipped, "a run that adds nothing leaves the zip byte for byte")
    t.check("left unchanged" in out + err, "and says so: %r %r" % (out, err))
    t.check(not [f for f in os.listdir(work) if f.endswith(".tmp")], "no temporary files left")

# Bad archives are refused and left exactly as they were.
for label, entries in (("no ETL", [("readme.txt", b"x")]),
                       ("two ETLs", [("a.etl", b"x"), ("b.etl", b"y")]),
                       ("escaping name", [("../evil.etl", b"x")])):
    bad = os.path.join(work, "bad.etl.zip")
    with zipfile.ZipFile(bad, "w") as z:
        for name, data in entries:
            z.writestr(name, data)
    before = open(bad, "rb").read()
    rc, out, err = t.run("merge", to_target_path(t, bad), "/ImageIDsOnly")
    t.check(rc == 5, "%s: exit 5, got %d %r" % (label, rc, err))
    t.check(open(bad, "rb").read() == before, "%s: the archive is untouched" % label)
    t.check(not [f for f in os.listdir(work) if f.endswith(".tmp")], "%s: no temporary files" % label)

shutil.rmtree(work, ignore_errors=True)
t.finish()
