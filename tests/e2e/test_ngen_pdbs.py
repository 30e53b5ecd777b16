"""NGEN PDBs through `etwcap merge`: a trace whose CPU sample falls in a .NET
native image (*.ni.dll in a native image cache) gets the NGEN step, which
here cannot make the PDB: off Windows ngen cannot run, under Wine there is
no .NET Framework 4 ngen.exe, and a file that is no image has no PDB name.
The zip's LogFile.txt says so in one warning and the zip has no symbols/
member; /NoNGenPdbs skips the step.  The image is tests/pe's mscorlib.ni.dll
(its RSDS record names mscorlib.ni.pdb) when the PE fixtures were built.

The trace is assembled here from the documented layouts (docs/etl.md §2-§4:
WMI_BUFFER_HEADER, the SYSTEM64 logfile-header event with the x64
TRACE_LOGFILE_HEADER; SYSTEM64 and PERFINFO64 event headers) with the
payloads of PerfView's KernelTraceEventParser.cs (Thread/Start,
Image/Load v3, PerfInfo/SampledProfile)."""
import os
import shutil
import struct
import zipfile

from etwcap_e2e import Etwcap, tmp_dir, to_target_path

t = Etwcap()
work = os.path.join(tmp_dir(), "e2e-ngen-" + t.target)
shutil.rmtree(work, ignore_errors=True)
cache = os.path.join(work, "Windows", "assembly", "NativeImages_v4.0.30319_64", "mscorlib", "0a1b")
os.makedirs(cache)
image = os.path.join(cache, "mscorlib.ni.dll")
fixtures = os.environ.get("ETWCAP_PE_FIXTURES")
if fixtures:
    shutil.copy(os.path.join(fixtures, "mscorlib.ni.dll"), image)
    # Where ngen's absence shows: off Windows, and under Wine (no Framework64 ngen.exe).
    reason = "ngen.exe is not there" if t.windows else \
        "ngen.exe runs only on the Windows"
else:
    with open(image, "wb") as f:
        f.write(b"MZ but not an image")
    reason = "cannot be read as an image"

BUFFER = 65536
START_TIME = 133000000000000000  # FILETIME
HDR_TS = 1000


def buffer(body, index, flags, kind):
    """A WMI_BUFFER_HEADER (72 bytes) and its events, padded with 0xFF."""
    filled = 72 + len(body)
    head = struct.pack("<IIIIQQQHHIIHH16x", BUFFER, filled, filled, 0, 0, index, 0, 0, 1, 3,
                       filled, flags, kind)
    assert len(head) == 72
    return (head + body).ljust(BUFFER, b"\xff")


def align8(b):
    return b + b"\0" * (-len(b) % 8)


def logfile_event():
    """Hook 0x0000 with the x64 TRACE_LOGFILE_HEADER (0x118 bytes) and its two names."""
    p = bytearray(0x118)
    struct.pack_into("<I", p, 0x00, BUFFER)
    p[0x04] = 10                                           # Version: 10.0
    struct.pack_into("<III", p, 0x08, 19041, 1, 0)          # ProviderVersion, CPUs
    struct.pack_into("<q", p, 0x10, START_TIME + 10000000)  # EndTime
    struct.pack_into("<I", p, 0x24, 2)                      # BuffersWritten
    struct.pack_into("<I", p, 0x2C, 8)                      # PointerSize
    struct.pack_into("<I", p, 0x34, 3000)                   # CpuSpeedInMHz
    struct.pack_into("<qqqI", p, 0xF8, START_TIME - 1000, 10000000, START_TIME, 1)
    names = "etwcapKernel\0x.etl\0".encode("utf-16-le")
    payload = bytes(p) + names
    head = struct.pack("<HBBHHIIQQ", 2, 0x02, 0xC0, 0x20 + len(payload), 0x0000, 100, 200,
                       HDR_TS, 0)
    return head + payload


def system64(hook, pid, tid, ts, payload):
    return align8(struct.pack("<HBBHHIIQQ", 3, 0x02, 0xC0, 0x20 + len(payload), hook, tid, pid,
                              ts, 0) + payload)


def perfinfo64(hook, ts, payload):
    return align8(struct.pack("<HBBHHQ", 2, 0x11, 0xC0, 0x10 + len(payload), hook, ts) + payload)


def trace(path, logged_image):
    base, size, pid, tid = 0x7FF800000000, 0x30000, 1234, 55
    events = system64(0x0501, pid, tid, HDR_TS + 10, struct.pack("<II", pid, tid) + bytes(64))
    load = struct.pack("<QQIIII", base, size, pid, 0, 0, 0) + bytes(24)
    events += system64(0x030A, pid, tid, HDR_TS + 11, load + (logged_image + "\0").encode(
        "utf-16-le"))
    events += perfinfo64(0x0F2E, HDR_TS + 12, struct.pack("<QII", base + 0x12345, tid, 1))
    with open(path, "wb") as f:
        f.write(buffer(align8(logfile_event()), 0, 0x0001, 4))
        f.write(buffer(events, 1, 0x0020, 0))


def merge(name, *qualifiers):
    etl = os.path.join(work, name)
    trace(etl, to_target_path(t, image))
    rc, out, err = t.run("merge", to_target_path(t, etl), *qualifiers)
    zpath = etl + ".zip"
    t.check(rc == 0 and os.path.exists(zpath), "merge %s writes the zip: %d %r %r"
            % (" ".join(qualifiers), rc, out, err))
    if not os.path.exists(zpath):
        return "", []
    with zipfile.ZipFile(zpath) as z:
        return z.read("LogFile.txt").decode("utf-8", "replace"), z.namelist()


log, names = merge("with.etl")
if fixtures:
    t.check("NGEN PDBs not made (native images needing one: 1): " in log and reason in log,
            "one line says ngen cannot run here: %r" % log[-2000:])
else:
    t.check("NGEN PDBs made for 0 of the 1 native images with samples or stacks" in log
            and "mscorlib.ni.dll: " + reason in log,
            "the sampled native image is named and its PDB's loss said: %r" % log[-2000:])
t.check(not [n for n in names if n.startswith("symbols/")], "no PDB in the zip: %r" % names)

log, names = merge("without.etl", "/NoNGenPdbs")
t.check("NGEN" not in log, "/NoNGenPdbs skips the step: %r" % log[-2000:])
t.check(sorted(names) == ["LogFile.txt", "etwcap-capture.json", "without.etl"],
        "the zip holds the trace, its log and manifest: %r" % names)

t.check(sorted(os.listdir(work)) == ["Windows", "with.etl.zip", "without.etl.zip"],
        "nothing else is left: %r" % os.listdir(work))
t.finish()
