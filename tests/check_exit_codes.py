"""Checks README.md's exit-code table against the error list in src/error.h:
every error name appears in the row of its exit code, and no row names an
error that does not exist.  Usage: check_exit_codes.py SOURCE_DIR"""
import re
import sys

root = sys.argv[1]
header = open(root + "/src/error.h").read()
codes = {name: int(exit_code) for name, exit_code in
         re.findall(r"X\((\w+),\s*-\d+,\s*(\d+),", header)}
if len(codes) < 5:
    print("FAIL: could not read the error list from src/error.h")
    sys.exit(1)

readme = open(root + "/README.md").read()
section = readme.split("### Exit codes", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
rows = {}
for line in section.splitlines():
    m = re.match(r"\|\s*(\d+)\s*\|[^|]*\|([^|]*)\|", line)
    if m:
        rows[int(m.group(1))] = {n.strip() for n in m.group(2).split(",") if n.strip()}

failures = 0
for name, exit_code in codes.items():
    if name not in rows.get(exit_code, set()):
        print("FAIL: %s (exit %d in src/error.h) is not in README's row %d" % (name, exit_code, exit_code))
        failures += 1
for exit_code, names in rows.items():
    for name in names - set(codes):
        print("FAIL: README's row %d names %s, which src/error.h does not have" % (exit_code, name))
        failures += 1
print("%d passed, %d failed" % (len(codes) - failures if failures < len(codes) else 0, failures))
sys.exit(1 if failures else 0)
