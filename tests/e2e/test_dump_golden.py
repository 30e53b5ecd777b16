"""`etwcap dump` against the golden listings: for every sample (every .etl
member of the zips included) the event lines must equal the independent
parser's lines, all 10 columns, line for line (samples/golden/README.md).
Runs natively and under Wine; skips (77) when the samples are absent."""
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etwcap_e2e import SKIP, Etwcap, samples_dir, to_target_path  # noqa: E402

t = Etwcap()
samples = samples_dir()
if not samples or not os.path.isdir(os.path.join(samples, "golden")):
    print("skipped: the shared samples folder is absent (set ETWCAP_SAMPLES)")
    sys.exit(SKIP)


def blocks(lines):
    """Splits a listing into {file name: [event lines]}.  The '# FILE' line
    is normalised to the basename of the path (plus '!member')."""
    out = {}
    order = []
    current = None
    for line in lines:
        line = line.rstrip("\r\n")
        if line.startswith("# FILE "):
            name = line[len("# FILE "):]
            path, bang, member = name.partition("!")
            path = path.replace("\\", "/")
            current = os.path.basename(path) + bang + member
            out[current] = []
            order.append(current)
        elif line.startswith("#") or not line:
            continue
        elif current is not None:
            out[current].append(line)
    return out, order


golden_dir = os.path.join(samples, "golden")
names = sorted(n for n in os.listdir(samples)
               if n.endswith(".etl") or n.endswith(".zip"))
for name in names:
    golden_path = os.path.join(golden_dir, name + ".tsv.gz")
    if not os.path.exists(golden_path):
        t.check(False, "%s has no golden listing" % name)
        continue
    with gzip.open(golden_path, "rt", encoding="utf-8") as f:
        want, want_order = blocks(f)
    rc, out, err = t.run("dump", to_target_path(t, os.path.join(samples, name)))
    t.check(rc == 0, "%s: dump exits 0 (rc=%d, stderr=%r)" % (name, rc, err[-500:]))
    got, got_order = blocks(out.splitlines())
    t.check(got_order == want_order,
            "%s: files listed %r, golden has %r" % (name, got_order, want_order))
    for member in want_order:
        w = want.get(member, [])
        g = got.get(member, [])
        if g == w:
            t.check(True, "")
            print("ok: %s (%d events)" % (member, len(w)))
            continue
        first = next((i for i in range(min(len(g), len(w))) if g[i] != w[i]),
                     min(len(g), len(w)))
        t.check(False, "%s: %d event lines, golden %d; first difference at line %d:\n"
                "  got:    %s\n  golden: %s" % (
                    member, len(g), len(w), first + 1,
                    g[first] if first < len(g) else "(none)",
                    w[first] if first < len(w) else "(none)"))
t.finish()
