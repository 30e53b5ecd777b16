"""Checks that the folders are layers (DESIGN.md; issue #11): src/base/ <-
etw/ <- triggers/ <- the program (the rest of src/).  A file may include a
header of its own layer or of one below, never of one above.

The redesign moves code a step at a time, so the include edges still going
upward are listed in tests/layer-debts.txt ("file -> header" per line).  The
check fails on an upward include not listed there, and on a listed one that
is gone (so the list only shrinks and says what is left).

Usage: check_layers.py SOURCE_DIR"""
import os
import re
import sys

root = sys.argv[1]
layers = [("src/base", 0), ("etw", 1), ("triggers", 2), ("src", 3)]
names = {0: "src/base", 1: "etw", 2: "triggers", 3: "the program"}


def headers_of(folder):
    path = os.path.join(root, folder)
    return {f for f in os.listdir(path) if f.endswith(".h")}


owner = {}
for folder, level in reversed(layers):  # src/base wins over src for a name in both
    for h in headers_of(folder):
        owner[h] = level

debts = set()
with open(os.path.join(root, "tests", "layer-debts.txt")) as f:
    for line in f:
        line = line.split("#", 1)[0].strip()
        if line:
            debts.add(line)

found = set()
errors = []
for folder, level in layers:
    for name in sorted(os.listdir(os.path.join(root, folder))):
        if not name.endswith((".c", ".h")):
            continue
        rel = "%s/%s" % (folder, name)
        with open(os.path.join(root, folder, name), encoding="utf-8") as src:
            for lineno, text in enumerate(src, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', text)
                if not m or m.group(1) not in owner:
                    continue
                target = owner[m.group(1)]
                if target <= level:
                    continue
                edge = "%s -> %s" % (rel, m.group(1))
                found.add(edge)
                if edge not in debts:
                    errors.append("%s:%d: %s (a %s file) includes %s of %s" % (
                        rel, lineno, rel, names[level], m.group(1), names[target]))

for edge in sorted(debts - found):
    errors.append("tests/layer-debts.txt lists '%s', which is gone: remove the line" % edge)
for e in errors:
    print("FAIL: " + e)
print("%d upward includes left in tests/layer-debts.txt, %d errors" % (len(found & debts),
                                                                       len(errors)))
sys.exit(1 if errors else 0)
