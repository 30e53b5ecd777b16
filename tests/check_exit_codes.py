"""Checks README.md's exit-code table against the error list in src/base/error.h:
every error name appears in the row of its exit code, no row names an error
that does not exist, and a row for a single error says what that error's
message says (its words before any parenthesis).
Usage: check_exit_codes.py SOURCE_DIR"""
import re
import sys

root = sys.argv[1]
header = open(root + "/src/base/error.h").read()
entries = re.findall(r'X\((\w+),\s*-\d+,\s*(\d+),\s*"([^"]*)"', header)
codes = {name: int(exit_code) for name, exit_code, _ in entries}
messages = {name: message.split("(")[0].strip() for name, _, message in entries}
if len(codes) < 5:
    print("FAIL: could not read the error list from src/base/error.h")
    sys.exit(1)

readme = open(root + "/README.md").read()
section = readme.split("### Exit codes", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
rows, meanings = {}, {}
for line in section.splitlines():
    m = re.match(r"\|\s*(\d+)\s*\|([^|]*)\|([^|]*)\|", line)
    if m:
        rows[int(m.group(1))] = {n.strip() for n in m.group(3).split(",") if n.strip()}
        meanings[int(m.group(1))] = m.group(2).strip()

failures = 0
for name, exit_code in codes.items():
    if name not in rows.get(exit_code, set()):
        print("FAIL: %s (exit %d in src/base/error.h) is not in README's row %d" % (name, exit_code, exit_code))
        failures += 1
for exit_code, names in rows.items():
    for name in names - set(codes):
        print("FAIL: README's row %d names %s, which src/base/error.h does not have" % (exit_code, name))
        failures += 1
for exit_code, names in rows.items():
    if len(names) == 1 and next(iter(names)) in messages:
        message = messages[next(iter(names))]
        if message.lower() not in meanings[exit_code].lower():
            print("FAIL: README's row %d says %r, not what %s says (%r)"
                  % (exit_code, meanings[exit_code], next(iter(names)), message))
            failures += 1
print("%d passed, %d failed" % (len(codes) - failures if failures < len(codes) else 0, failures))
sys.exit(1 if failures else 0)
