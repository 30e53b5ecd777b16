"""The one zip reader against two independent ones: odd and hostile archives
built here (Python's zipfile and hand-built bytes, layouts from PKWARE's
APPNOTE 6.3.10 §4.3-4.5) are judged by Python's zipfile (every member read,
CRC-32 checked) and Info-ZIP's `unzip -t`.  The rule checked, per archive:
  - both accept it: `etwcap dump` of the archive prints what `etwcap dump`
    of its .etl member (extracted by Python) prints, exit 0;
  - either refuses it: exit 5 (input damaged);
  - a member is encrypted or uses a method other than stored/deflated:
    exit 4 (not supported), whatever the references say.
Also: `info` and `replay` read through the same reader (a damaged archive is
exit 5 for them too, and replay frees what it opened: the native build runs
under ASan/LSan), and a 20,000-member archive is read.
Skips (77) without the samples or without unzip."""
import os
import shutil
import struct
import subprocess
import sys
import zipfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()
samples = samples_dir()
if not samples or not shutil.which("unzip"):
    print("skipped: needs the shared samples (ETWCAP_SAMPLES) and unzip (install-deps.sh)")
    sys.exit(SKIP)
with open(os.path.join(samples, "rbeesley+hw3d__trace.etl"), "rb") as f:
    ETL = f.read()
work = os.path.join(tmp_dir(), "zip-hostile")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


# --- hand-built archives ---------------------------------------------------------
class Member:
    def __init__(self, name, data, method=8, flags=0, descriptor=False, descriptor_sig=True,
                 zip64_central=(), zip64_local=False, crc=None, usize=None, csize=None,
                 local_name=None, offset=None, extra_central=b""):
        self.name = name.encode() if isinstance(name, str) else name
        self.data = data
        self.method = method
        self.flags = flags | (8 if descriptor else 0)
        self.descriptor = descriptor
        self.descriptor_sig = descriptor_sig
        self.zip64_central = zip64_central  # fields sent to the Zip64 extra: "u", "c", "o"
        self.zip64_local = zip64_local
        self.crc = zlib.crc32(data) if crc is None else crc
        if method == 8:
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            self.packed = c.compress(data) + c.flush()
        else:
            self.packed = data
        self.usize = len(data) if usize is None else usize
        self.csize = len(self.packed) if csize is None else csize
        self.local_name = self.name if local_name is None else local_name
        self.offset = offset  # a forced central offset
        self.extra_central = extra_central


def zip_bytes(members, comment=b"", comment_len=None, prefix=b"", adjust=False, trailer=b"",
              zip64_end=False, eocd_markers=False, count=None, disk=0, gap=b""):
    """An archive: prefix + local records + gap + central directory + end
    records + comment + trailer.  adjust: offsets count the prefix (a
    self-extractor fixed by `zip -A`)."""
    out = bytearray(prefix)
    base = 0 if adjust else len(prefix)
    offsets = []
    for m in members:
        offsets.append(len(out) - base)
        lextra = b""
        crc, cs, us = m.crc, m.csize, m.usize
        if m.zip64_local:
            lextra = struct.pack("<HHQQ", 1, 16, us, cs)
            cs = us = 0xFFFFFFFF
        if m.descriptor:
            crc = cs = us = 0
            if m.zip64_local:
                cs = us = 0xFFFFFFFF
        out += struct.pack("<IHHHHHIIIHH", 0x04034b50, 45 if m.zip64_local else 20, m.flags,
                           m.method, 0, 0x21, crc, cs, us, len(m.local_name), len(lextra))
        out += m.local_name + lextra + m.packed
        if m.descriptor:
            sig = struct.pack("<I", 0x08074b50) if m.descriptor_sig else b""
            if m.zip64_local:
                out += sig + struct.pack("<IQQ", m.crc, m.csize, m.usize)
            else:
                out += sig + struct.pack("<III", m.crc, m.csize, m.usize)
    out += gap
    cd_start = len(out) - base
    for m, off in zip(members, offsets):
        off = m.offset if m.offset is not None else off
        fields = {"u": m.usize, "c": m.csize, "o": off}
        cextra = b""
        if m.zip64_central:
            payload = b"".join(struct.pack("<Q", fields[k]) for k in "uco" if k in m.zip64_central)
            cextra = struct.pack("<HH", 1, len(payload)) + payload
        us = 0xFFFFFFFF if "u" in m.zip64_central else m.usize
        cs = 0xFFFFFFFF if "c" in m.zip64_central else m.csize
        co = 0xFFFFFFFF if "o" in m.zip64_central else off
        cextra += m.extra_central
        out += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0x031e, 45 if m.zip64_central else 20,
                           m.flags, m.method, 0, 0x21, m.crc, cs, us, len(m.name),
                           len(cextra), 0, 0, 0, 0, co)
        out += m.name + cextra
    cd_size = len(out) - base - cd_start
    n = len(members) if count is None else count
    if zip64_end:
        rec_at = len(out) - base
        out += struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, disk, disk, n, n, cd_size,
                           cd_start)
        out += struct.pack("<IIQI", 0x07064b50, 0, rec_at, 1)
    if eocd_markers:
        e_n, e_size, e_off = 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF
    else:
        e_n, e_size, e_off = min(n, 0xFFFF), cd_size, cd_start
    out += struct.pack("<IHHHHIIH", 0x06054b50, disk, disk, e_n, e_n, e_size, e_off,
                       len(comment) if comment_len is None else comment_len)
    out += comment + trailer
    return bytes(out)


def etl(**kw):
    return Member("trace.etl", ETL, **kw)


def text(name="LogFile.txt", data=b"collected by a test\r\n" * 50, **kw):
    return Member(name, data, **kw)


def python_zip(entries, compression=zipfile.ZIP_DEFLATED, comment=b""):
    path = os.path.join(work, "py.zip")
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in entries:
            z.writestr(name, data)
        z.comment = comment
    with open(path, "rb") as f:
        return f.read()


def flip(data, at):
    b = bytearray(data)
    b[at] ^= 0x55
    return bytes(b)


plain = zip_bytes([etl()])
etl_data_at = 30 + len(b"trace.etl")
cases = [
    ("python deflated", python_zip([("trace.etl", ETL)]), None),
    ("python stored", python_zip([("trace.etl", ETL)], zipfile.ZIP_STORED), None),
    ("python with other members", python_zip([("LogFile.txt", b"log\r\n" * 99),
                                              ("trace.etl", ETL),
                                              ("etwcap-capture.json", b"{}")]), None),
    ("hand-built deflated", plain, None),
    ("hand-built stored", zip_bytes([etl(method=0)]), None),
    ("data descriptor with signature", zip_bytes([etl(descriptor=True)]), None),
    ("data descriptor without signature",
     zip_bytes([etl(descriptor=True, descriptor_sig=False)]), None),
    ("stored member with data descriptor", zip_bytes([etl(method=0, descriptor=True)]), None),
    ("comment of 1 byte", zip_bytes([etl()], comment=b"x"), None),
    ("comment of 65,535 bytes", zip_bytes([etl()], comment=b"c" * 65535), None),
    ("comment holding an end signature", zip_bytes([etl()], comment=b"PK\x05\x06" + b"z" * 40),
     None),
    ("comment length past the end", zip_bytes([etl()], comment=b"abc", comment_len=200), None),
    ("trailing garbage", zip_bytes([etl()], trailer=b"garbage after the archive"), None),
    ("trailing zeros", zip_bytes([etl()], trailer=bytes(1000)), None),
    ("prepended stub, offsets not adjusted", zip_bytes([etl()], prefix=b"MZ" + bytes(4094)),
     None),
    ("prepended stub, offsets adjusted (zip -A)",
     zip_bytes([etl()], prefix=b"MZ" + bytes(4094), adjust=True), None),
    ("folder entries", zip_bytes([Member("data/", b"", method=0), Member("data/trace.etl", ETL)]),
     None),
    ("name with ..", zip_bytes([Member("../../trace.etl", ETL)]), None),
    ("absolute name", zip_bytes([Member("/tmp/trace.etl", ETL)]), None),
    ("backslash name", zip_bytes([Member("dir\\trace.etl", ETL)]), None),
    ("duplicate names, same bytes", zip_bytes([etl(), etl()]), None),
    ("duplicate names, first damaged", zip_bytes([etl(crc=1), etl()]), None),
    ("duplicate names, last damaged", zip_bytes([etl(), etl(crc=1)]), None),
    ("Zip64 end records", zip_bytes([etl()], zip64_end=True), None),
    ("Zip64 end records, end record defers",
     zip_bytes([etl()], zip64_end=True, eocd_markers=True), None),
    ("end record defers, no Zip64 record", zip_bytes([etl()], eocd_markers=True), None),
    ("Zip64 central sizes", zip_bytes([etl(zip64_central="uc")], zip64_end=True), None),
    ("Zip64 central offset only", zip_bytes([text(), etl(zip64_central="o")]), None),
    ("Zip64 central sizes and offset", zip_bytes([etl(zip64_central="uco")]), None),
    ("Zip64 local sizes", zip_bytes([etl(zip64_local=True, zip64_central="uc")]), None),
    ("Zip64 local sizes, descriptor",
     zip_bytes([etl(zip64_local=True, descriptor=True, zip64_central="uc")]), None),
    ("Zip64 sizes flagged, no Zip64 field",
     zip_bytes([etl(usize=0xFFFFFFFF, csize=0xFFFFFFFF)]), None),
    ("Zip64 field too short for what is flagged",
     zip_bytes([etl(usize=0xFFFFFFFF, extra_central=struct.pack("<HHI", 1, 4, 7))]), None),
    ("extra field running past its end", zip_bytes([etl(extra_central=b"\x99\x99\x40\x00ab")]),
     None),
    ("CRC-32 of the ETL member wrong", zip_bytes([etl(crc=0x12345678)]), None),
    ("ETL data bit flipped (deflated)", flip(plain, etl_data_at + len(etl().packed) // 2), None),
    ("ETL data bit flipped (stored)", flip(zip_bytes([etl(method=0)]), etl_data_at + 5000), None),
    ("CRC-32 of another member wrong", zip_bytes([text(crc=7), etl()]), None),
    ("ETL member larger than listed", zip_bytes([etl(usize=len(ETL) - 10)]), None),
    ("ETL member smaller than listed", zip_bytes([etl(usize=len(ETL) + 10)]), None),
    ("stored sizes disagree", zip_bytes([etl(method=0, csize=len(ETL) + 4)]), None),
    ("bad local header offset", zip_bytes([etl(offset=7)]), None),
    ("local header offset past the end", zip_bytes([etl(offset=0x7FFFFFF0)]), None),
    ("local and central names differ", zip_bytes([etl(local_name=b"other.etl")]), None),
    ("two entries on one local record",
     zip_bytes([etl(), Member("copy.etl", ETL, offset=0)]), None),
    ("end record counts one entry too many", zip_bytes([etl()], count=2), None),
    ("end record counts one entry too few", zip_bytes([text(), etl()], count=1), None),
    ("spans disks", zip_bytes([etl()], disk=1), None),
    ("bytes between data and directory", zip_bytes([etl()], gap=b"G" * 100), None),
    ("cut in half", plain[:len(plain) // 2], None),
    ("cut before its end record", plain[:-10], None),
    ("deflate data truncated", zip_bytes([etl(csize=len(etl().packed) // 2)]), None),
    ("UTF-8 flag on a name that is not UTF-8",
     zip_bytes([Member(b"tr\xffce.etl", ETL, flags=0x800)]), None),
    ("encrypted ETL member", zip_bytes([etl(flags=1)]), 4),
    ("encrypted other member", zip_bytes([text(flags=1), etl()]), 4),
    ("ETL member compressed with bzip2", zip_bytes([etl(method=12)]), 4),
    ("ETL member with method 99", zip_bytes([etl(method=99)]), 4),
    ("no ETL member", python_zip([("readme.txt", b"hello")]), None),
    ("empty archive", python_zip([]), None),
]


def overlapped(z):
    """Python 3.11.8+/3.12.2+ (and Debian 12's 3.11.2, patched) refuse a member
    whose data runs into the next member or the central directory
    (CVE-2024-0450, "Overlapped entries ... (possible zip bomb)").  Older
    zipfile modules lack the check: this does what the newer ones do, so the
    verdict does not depend on which Python runs the test."""
    ends, end = {}, z.start_dir
    for info in sorted(z.infolist(), key=lambda i: i.header_offset, reverse=True):
        ends[id(info)] = end
        end = info.header_offset
    for info in z.infolist():
        z.fp.seek(info.header_offset)
        head = z.fp.read(30)
        if len(head) < 30:
            return True
        name_len, extra_len = struct.unpack("<HH", head[26:30])
        if info.header_offset + 30 + name_len + extra_len + info.compress_size > ends[id(info)]:
            return True
    return False


def python_accepts(path):
    try:
        with zipfile.ZipFile(path) as z:
            if overlapped(z):
                return False
            for info in z.infolist():
                z.read(info)
        return True
    except Exception:  # any refusal: BadZipFile, NotImplementedError, RuntimeError, ...
        return False


def unzip_accepts(path):
    p = subprocess.run(["unzip", "-t", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL)
    # Only 0 is acceptance: 1 is "one or more warning errors were
    # encountered" (unzip(1)), e.g. a stub before the archive that its offsets
    # do not count, a comment that runs past the end, a disk number.
    return p.returncode == 0


def etl_member(path):
    """The bytes Python extracts for the archive's (last) .etl member."""
    with zipfile.ZipFile(path) as z:
        names = [i for i in z.infolist() if i.filename.lower().endswith(".etl")]
        return z.read(names[-1]) if names else None


def events(out):
    return [line for line in out.splitlines() if not line.startswith("# FILE")]


member_dumps = {}
for label, data, forced in cases:
    path = os.path.join(work, "case.zip")
    with open(path, "wb") as f:
        f.write(data)
    py, uz = python_accepts(path), unzip_accepts(path)
    rc, out, err = t.run("dump", to_target_path(t, path))
    if forced is not None:
        t.check(rc == forced, "%s: exit %d expected, got %d: %s" % (label, forced, rc, err.strip()))
        continue
    member = etl_member(path) if py and uz else None
    if member is None:
        t.check(rc == 5, "%s (python %s, unzip %s): exit 5 expected, got %d: %s"
                % (label, py, uz, rc, err.strip()))
        continue
    if member not in member_dumps:
        mpath = os.path.join(work, "member.etl")
        with open(mpath, "wb") as f:
            f.write(member)
        mrc, mout, _ = t.run("dump", to_target_path(t, mpath))
        member_dumps[member] = events(mout) if mrc == 0 else None
    t.check(rc == 0 and events(out) == member_dumps[member],
            "%s (both accept): dumps like its member: exit %d %s" % (label, rc, err.strip()))

# The other read paths: info and replay refuse a damaged member the same way.
for label, data in (("bad CRC", zip_bytes([etl(crc=0x12345678)])),
                    ("bad local header", zip_bytes([etl(offset=7)]))):
    path = os.path.join(work, "damaged.etl.zip")
    with open(path, "wb") as f:
        f.write(data)
    for cmd in (["info"], ["replay", "/StopOnGen2GC"]):
        rc, out, err = t.run(*(cmd[:1] + [to_target_path(t, path)] + cmd[1:]))
        t.check(rc == 5, "%s %s: exit 5, got %d: %s" % (cmd[0], label, rc, err.strip()))
        if label == "bad CRC":
            t.check("trace.etl" in err, "%s %s names the member: %r" % (cmd[0], label, err))

# 20,000 members (the reader walks one directory; no thread or file per member).
many = [Member("d/f%05d.txt" % i, b"", method=0) for i in range(19999)] + [etl()]
path = os.path.join(work, "many.zip")
with open(path, "wb") as f:
    f.write(zip_bytes(many, zip64_end=False))
rc, out, err = t.run("dump", to_target_path(t, path))
t.check(rc == 0 and events(out) == member_dumps.get(ETL, events(out)),
        "20,000 members: exit %d %s" % (rc, err.strip()))

shutil.rmtree(work, ignore_errors=True)
t.finish()
