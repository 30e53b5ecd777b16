"""Checks that the folders are layers (docs/architecture.md): src/base/ <-
etw/ <- triggers/ <- the program (the rest of src/).  Every include of ours
is written from the repository root, so a header's layer is read from its
path: a file may include a header of its own layer or of one below, never
of one above.  Also checks that every quoted include names a file that
exists, from the root.

The upward include edges still allowed are listed in tests/layer-debts.txt
("file -> header" per line); the check fails on an upward include not
listed there, and on a listed one that is gone (so the list only shrinks).

Usage: check_layers.py SOURCE_DIR"""
import os
import re
import sys

root = sys.argv[1]
names = {0: "src/base", 1: "etw", 2: "triggers", 3: "the program"}


def layer_of(path):
    if path.startswith("src/base/"):
        return 0
    if path.startswith("etw/"):
        return 1
    if path.startswith("triggers/"):
        return 2
    if path.startswith("src/"):
        return 3
    return None


debts = set()
with open(os.path.join(root, "tests", "layer-debts.txt")) as f:
    for line in f:
        line = line.split("#", 1)[0].strip()
        if line:
            debts.add(line)

found = set()
errors = []
checked = 0
for top in ("src", "etw", "triggers", "tests"):
    for folder, _, files in os.walk(os.path.join(root, top)):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            level = layer_of(rel)
            with open(os.path.join(folder, name), encoding="utf-8") as src:
                for lineno, text in enumerate(src, 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', text)
                    if not m:
                        continue
                    checked += 1
                    target = m.group(1)
                    if not os.path.isfile(os.path.join(root, target)):
                        errors.append('%s:%d: #include "%s" names no file from the repository '
                                      'root (third-party headers take <...>)' % (rel, lineno, target))
                        continue
                    to = layer_of(target)
                    if level is None or to is None or to <= level:
                        continue
                    edge = "%s -> %s" % (rel, target)
                    found.add(edge)
                    if edge not in debts:
                        errors.append("%s:%d: %s (a %s file) includes %s of %s" % (
                            rel, lineno, rel, names[level], target, names[to]))

for edge in sorted(debts - found):
    errors.append("tests/layer-debts.txt lists '%s', which is gone: remove the line" % edge)
for e in errors:
    print("FAIL: " + e)
print("%d includes checked, %d upward ones left in tests/layer-debts.txt, %d errors"
      % (checked, len(found & debts), len(errors)))
sys.exit(1 if errors else 0)
