"""`merge X.etl.zip /ImageIDsOnly` rewrites a zip it did not write: what the
new zip keeps is judged by Python's zipfile, an independent reader.  The zip
holds folder entries, an archive comment, members with their own
modification times and extra fields (PKWARE APPNOTE 6.3.10 4.4.6, 4.5:
Info-ZIP's extended timestamp 0x5455 and a private tag), and member names
with control characters.  After the rewrite every member is there, in
order, with its time and its extra fields (less any Zip64 field, which the
writer recomputes), the folder entries are still folders, the comment is
the same, image identity was added, and no control character of a member
name reached the terminal.  Skips (77) without the samples or without
Wine's DLLs (the images identity is read from)."""
import os
import shutil
import struct
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path  # noqa: E402

IDENTITY = "b3e675d7-2554-4f18-830b-2762732560de"
WINE_DLLS = "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows"

t = Etwcap()
samples = samples_dir()
if not samples or not os.path.isdir(WINE_DLLS):
    print("skipped: needs the shared samples (ETWCAP_SAMPLES) and Wine's DLLs")
    sys.exit(SKIP)
work = os.path.join(tmp_dir(), "e2e-image-ids-zip-" + t.target)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

with zipfile.ZipFile(os.path.join(
        samples, "ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip")) as hub:
    kernel = next(hub.read(n) for n in hub.namelist() if n.endswith("diaghub.kernel.1.etl"))
# The images the trace names, found through /PathMap (test_merge.py does the same).
img = os.path.join(work, "img", "Windows", "System32")
os.makedirs(img)
for dll in ("ntdll.dll", "kernel32.dll", "kernelbase.dll"):
    shutil.copy(os.path.join(WINE_DLLS, dll),
                os.path.join(img, "KernelBase.dll" if dll == "kernelbase.dll" else dll))
pathmap = "/PathMap:\\Device\\HarddiskVolume1=" + to_target_path(t, os.path.join(work, "img"))


def field(tag, data):
    return struct.pack("<HH", tag, len(data)) + data


# Info-ZIP's extended timestamp (flags: modification time), and a private tag.
STAMP = field(0x5455, struct.pack("<BI", 1, 1700000000))
PRIVATE = field(0xCAFE, b"kept as it is")
HOSTILE = "notes\r\nFORGED LINE\x1b[2J.txt"
COMMENT = b"captured on host 7; see ticket 1234"


def entry(name, when, extra=b""):
    info = zipfile.ZipInfo(name, date_time=when)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.extra = extra
    return info


entries = [
    (entry("data/", (2019, 5, 6, 7, 8, 10)), b""),
    (entry("data/trace.etl", (2020, 1, 2, 3, 4, 6), STAMP), kernel),
    (entry("data/empty/", (2021, 2, 3, 4, 5, 8), PRIVATE), b""),
    (entry("LogFile.txt", (2022, 12, 31, 23, 59, 58), STAMP + PRIVATE), b"log\r\n" * 40),
    (entry(HOSTILE, (1999, 9, 9, 9, 9, 8)), b"hostile name"),
]


def without_zip64(extra):
    out, p = b"", 0
    while p + 4 <= len(extra):
        tag, size = struct.unpack_from("<HH", extra, p)
        if tag != 1:
            out += extra[p:p + 4 + size]
        p += 4 + size
    return out


def raw_controls(text):
    """True when a member name's control characters reached the output as
    they are: an escape, a lone CR, or the forged line starting a line
    (the console's own line ends are CRLF on Windows)."""
    lines = text.replace("\r\n", "\n")
    return "\x1b" in lines or "\r" in lines or \
        any(line.startswith("FORGED LINE") for line in lines.split("\n"))


def identity_events(zpath):
    rc, out, err = t.run("dump", to_target_path(t, zpath))
    t.check(rc == 0, "dump %s: exit %d %s" % (zpath, rc, err.strip()))
    return sum(1 for line in out.splitlines()
               if not line.startswith("#") and line.split("\t")[5:6] == [IDENTITY])


def rewrite(label, entries):
    """Writes the entries and the comment to a zip, runs /ImageIDsOnly on it
    and checks what the new zip kept; returns its path."""
    path = os.path.join(work, "X.etl.zip")
    with zipfile.ZipFile(path, "w") as z:
        for info, data in entries:
            z.writestr(info, data)
        z.comment = COMMENT
    before = identity_events(path)
    rc, out, err = t.run("merge", to_target_path(t, path), "/ImageIDsOnly", pathmap)
    t.check(rc == 0, "%s: exit %d %s" % (label, rc, err.strip()))
    t.check(identity_events(path) > before, "%s: image identity was added" % label)
    for stream, text in (("stdout", out), ("stderr", err)):
        t.check(not raw_controls(text), "%s: no control character of a member name on %s: %r"
                % (label, stream, text))
    with zipfile.ZipFile(path) as z:
        t.check(z.testzip() is None, "%s: Python's zipfile reads every member back" % label)
        t.check(z.comment == COMMENT, "%s: the archive comment is kept: %r" % (label, z.comment))
        got = z.infolist()
        t.check([i.filename for i in got] == [i.filename for i, _ in entries],
                "%s: every member, in order: %r" % (label, [i.filename for i in got]))
        for (want, data), have in zip(entries, got):
            what = "%s: %r" % (label, want.filename)
            t.check(have.date_time == want.date_time, "%s keeps its time: %r, not %r"
                    % (what, have.date_time, want.date_time))
            t.check(without_zip64(have.extra) == want.extra, "%s keeps its extra fields: %r, "
                    "not %r" % (what, have.extra, want.extra))
            t.check(have.is_dir() == want.is_dir() and
                    (have.is_dir() or want.filename.endswith(".etl") or z.read(have) == data),
                    "%s holds what it held" % what)
            # The local header carries the same extra fields (Python wrote
            # them to both headers).
            z.fp.seek(have.header_offset + 26)
            name_len, extra_len = struct.unpack("<HH", z.fp.read(4))
            z.fp.seek(have.header_offset + 30 + name_len)
            t.check(without_zip64(z.fp.read(extra_len)) == want.extra,
                    "%s keeps its local extra fields" % what)
    return path


rewrite("no folder entries", [e for e in entries if not e[0].is_dir()])
path = rewrite("folder entries", entries)

# The other commands that read the zip: no control character of a member
# name on the terminal either.
for cmd in (["info"], ["dump"], ["replay", "/StopOnGen2GC"]):
    rc, out, err = t.run(*(cmd[:1] + [to_target_path(t, path)] + cmd[1:]))
    t.check(not raw_controls(out + err),
            "%s: no control character of a member name on the terminal" % cmd[0])

shutil.rmtree(work, ignore_errors=True)
t.finish()
