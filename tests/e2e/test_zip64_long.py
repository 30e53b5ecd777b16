"""Long test (label `long`): a collection over 4 GiB merges into an .etl.zip
that needs Zip64, and both independent readers (unzip -t and Python's
zipfile) accept it.  The input is the diaghub kernel session repeated (its
buffers copied, the header's BuffersWritten raised to match).  Needs about
12 GB free: skipped with a message otherwise."""
import os
import shutil
import struct
import subprocess
import sys
import zipfile

from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path

t = Etwcap()
samples = samples_dir()
if not samples:
    print("skipped: ../shared/samples is absent")
    sys.exit(SKIP)
work = os.path.join(tmp_dir(), "e2e-zip64-" + t.target)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
free = shutil.disk_usage(work).free
if free < 12 * 1024 ** 3:
    print("skipped: %d MB free in %s; the Zip64 test needs 12 GB" % (free >> 20, work))
    sys.exit(SKIP)

hub = zipfile.ZipFile(os.path.join(samples, "ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip"))
kernel = next(hub.read(n) for n in hub.namelist() if n.endswith("diaghub.kernel.1.etl"))
header_size = struct.unpack_from("<I", kernel, 0)[0]
header, body = kernel[:header_size], kernel[header_size:]
copies = (4 * 1024 ** 3 + 300 * 1024 ** 2) // len(body) + 1
buffers = copies * (len(body) // 65536) + 1
# BuffersWritten of the logfile header (docs/etl.md §3: payload at 72 + 0x20, field 0x24).
header = bytearray(header)
struct.pack_into("<I", header, 72 + 0x20 + 0x24, buffers)
path = os.path.join(work, "big.etl")
with open(path, "wb") as f:
    f.write(header)
    for _ in range(copies):
        f.write(body)
size = os.path.getsize(path)
print("input: %d MB in %d buffers" % (size >> 20, buffers))

rc, out, err = t.run("merge", to_target_path(t, path))
print(out.strip())
t.check(rc == 0, "merge of %d MB: %d %s" % (size >> 20, rc, err[-2000:]))
zpath = path + ".zip"
if os.path.exists(zpath):
    unz = subprocess.run(["unzip", "-t", zpath], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    t.check(unz.returncode == 0 and b"No errors detected" in unz.stdout, "unzip -t: %r" % unz.stdout[-300:])
    with zipfile.ZipFile(zpath) as z:
        info = z.getinfo("big.etl")
        t.check(info.file_size > 0xFFFFFFFF, "the member is over 4 GiB: %d" % info.file_size)
        t.check(z.testzip() is None, "Python's zipfile checks every CRC")
shutil.rmtree(work, ignore_errors=True)
t.finish()
