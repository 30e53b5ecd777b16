"""Checks that etwcap.exe imports only allowed DLL!function pairs, so it starts
on a bare Windows Server Core / Nano Server (no zlib1.dll, libwinpthread,
libgcc, and pdh/wevtapi/tdh only through LoadLibrary).

Usage: check_imports.py etwcap.exe imports-allowed.txt
The allow-list has one "dll!function" per line ("dll!*" allows a whole DLL)."""
import re
import subprocess
import sys

exe, allow_file = sys.argv[1], sys.argv[2]
allowed = set()
for line in open(allow_file):
    line = line.split("#", 1)[0].strip().lower()
    if line:
        allowed.add(line)

dump = subprocess.run(["x86_64-w64-mingw32-objdump", "-p", exe], check=True,
                      stdout=subprocess.PIPE).stdout.decode()
imports = []
dll = None
in_table = False
for line in dump.splitlines():
    m = re.match(r"\s*DLL Name: (\S+)", line)
    if m:
        dll = m.group(1).lower()
        in_table = False
        continue
    if dll and re.match(r"\s*vma:\s+Hint/Ord", line):
        in_table = True
        continue
    if in_table:
        m = re.match(r"\s*[0-9a-f]+\s+\d+\s+(\S+)", line)
        if m:
            imports.append((dll, m.group(1)))
        elif not line.strip():
            in_table = False

if not imports:
    print("FAIL: no imports found in %s (objdump format changed?)" % exe)
    sys.exit(1)
bad = [(d, f) for d, f in imports
       if "%s!%s" % (d, f.lower()) not in allowed and "%s!*" % d not in allowed]
dlls = sorted({d for d, _ in imports})
print("%s imports %d functions from %s" % (exe, len(imports), ", ".join(dlls)))
for d, f in bad:
    print("FAIL: %s!%s is not in the allow-list %s" % (d, f, allow_file))
print("%d passed, %d failed" % (len(imports) - len(bad), len(bad)))
sys.exit(1 if bad else 0)
