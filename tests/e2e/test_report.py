"""`etwcap report`: the page of real samples, opened in headless Chromium as a
person would open it.  Checks that it renders (SVG charts and tables in the
DOM), that nothing is fetched from the network and nothing is logged as an
error on the console, that the numbers on the page and in the embedded JSON
are the independent ones, and saves a screenshot of each page to the test's
output folder.  Also: the default output name, /Out, and bad input giving the
same errors and exit codes as `dump`, with no page left behind.

Expected numbers: TraceEvent's regression baseline of gcevents
(microsoft/perfview src/TraceEvent/TraceEvent.Tests/inputs/gcevents.baseline.txt:
GC 1 SuspendEEStart 11,607.358 ms -> RestartEEStop 11,608.145 ms = 0.787 ms,
GC 2 11,608.167 -> 11,608.709 = 0.542 ms); the golden listing of
net.4.5.2.x64 (samples/golden, fox-it/dissect.etl): 264 GCStart v1 events
(each GC is also logged as GCStart v2) and one CLR Exception/Start; the
exception's type as the issue and PerfView name it.

Chromium is driven as tests/e2e/chromium_cdp.py says, on a closed network."""
import base64
import glob
import hashlib
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium_cdp import Browser, find_chromium  # noqa: E402
from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()
samples = samples_dir()
if not samples:
    print("skipped: the shared samples folder is absent (set ETWCAP_SAMPLES)")
    sys.exit(SKIP)

out_dir = os.path.join(tmp_dir(), "report-%s" % t.target)
shutil.rmtree(out_dir, ignore_errors=True)
os.makedirs(out_dir)


def embedded_json(html):
    m = re.search(r'<script type="application/json" id="etwcap-report">(.*?)</script>', html,
                  re.S)
    t.check(m is not None, "the page embeds the etwcap-report JSON")
    return json.loads(m.group(1)) if m else {}


def report(sample, *extra):
    """Copies the sample next to nothing else, writes its report; returns
    (page path, page text, embedded JSON)."""
    src = os.path.join(samples, sample)
    local = os.path.join(out_dir, sample)
    shutil.copyfile(src, local)
    rc, out, err = t.run("report", to_target_path(t, local), *extra)
    t.check(rc == 0, "report %s exits 0: rc=%d %r" % (sample, rc, err))
    name = re.sub(r"(\.etl\.zip|\.etl|\.zip)$", "", sample) + ".report.html"
    page = os.path.join(out_dir, name)
    t.check(os.path.isfile(page), "the page is %s, next to the trace" % name)
    t.check(not glob.glob(page + ".*.tmp"), "no temporary file is left")
    os.remove(local)
    if not os.path.isfile(page):
        return page, "", {}
    with open(page, encoding="utf-8") as f:
        html = f.read()
    return page, html, embedded_json(html)


# --- the numbers, in the file ------------------------------------------------
gc_page, gc_html, gc = report("ms-perfview__gcevents.etl.zip")
t.check(gc.get("schema") == "etwcap-report/1", "schema etwcap-report/1")
gcs = gc.get("gcs", [])
t.check(len(gcs) == 2, "gcevents: 2 GCs: %r" % gcs)
if len(gcs) == 2:
    t.check(abs(gcs[0]["pauseMs"] - 0.787) <= 0.002, "GC 1 pause 0.787 ms: %r" % gcs[0])
    t.check(abs(gcs[1]["pauseMs"] - 0.542) <= 0.002, "GC 2 pause 0.542 ms: %r" % gcs[1])
    t.check(gcs[0]["generation"] == 1 and gcs[1]["generation"] == 2, "generations 1, 2")
    t.check(gcs[0]["reason"] == "Induced", "reason Induced (GC/Start Reason=Induced)")
for key in ("capture", "providers", "gcs", "exceptions", "processes", "images"):
    t.check(key in gc, "top-level field %r" % key)

# The one inline script (the flame graphs' zoom) runs because the policy
# names its SHA-256 (CSP Level 3, hash-source); nothing else may run.
csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', gc_html)
t.check(csp is not None and "default-src 'none'" in csp.group(1), "the page has its CSP")
scripts = re.findall(r"<script>(.*?)</script>", gc_html, re.S)
t.check(len(scripts) == 1, "one inline script: %d" % len(scripts))
for body in scripts:
    digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
    t.check(csp is not None and ("script-src 'sha256-%s'" % digest) in csp.group(1),
            "the CSP allows the script by its hash sha256-%s: %r" % (digest, csp and csp.group(1)))

# The JSON runs to the page's end but for its closing tag and the zoom
# script: what is left must hold no "</script".
gc_island = gc_html.split('id="etwcap-report">', 1)[-1]
gc_tail = "</script>\n<script>%s</script>\n</body>\n</html>\n" % (scripts[-1] if scripts else "")
t.check(gc_island.endswith(gc_tail) and "</script" not in gc_island[:-len(gc_tail)],
        "no </script inside the embedded JSON")

net_page, net_html, net = report("ms-perfview__net.4.5.2.x64.etl.zip")
t.check(len(net.get("gcs", [])) == 264, "net.4.5.2: 264 GCs, got %d" % len(net.get("gcs", [])))
exc = net.get("exceptions", [])
t.check(len(exc) == 1 and exc[0]["type"] == "System.IO.FileNotFoundException" and
        exc[0]["count"] == 1, "net.4.5.2: one System.IO.FileNotFoundException: %r" % exc)
# CPU samples per process by TraceLog's rules (threads by their Start,
# DCStart and End times; thread 0 is Idle), as test_report_model checks them.
cpu = {}
for p in net.get("processes", []):
    cpu[p["name"]] = cpu.get(p["name"], 0) + p["cpuSamples"]
for name, n in (("Idle", 73313), ("Test.x64.exe", 5129), ("PerfView.exe", 356),
                ("MsMpEng.exe", 283), ("dwm.exe", 132)):
    t.check(cpu.get(name) == n, "net.4.5.2: %s has %d CPU samples, got %r" % (name, n, cpu.get(name)))

# /Out
custom = os.path.join(out_dir, "custom name.html")
rc, out, err = t.run("report", to_target_path(t, os.path.join(samples, "ms-perfview__gcevents.etl.zip")),
                     "/Out:" + to_target_path(t, custom))
t.check(rc == 0 and os.path.isfile(custom), "/Out writes the named file: rc=%d %r" % (rc, err))

# replay /Out /Report: the page of the capture replay writes, with the
# trigger from its manifest: StopOnGen2GC fires at the gen-2 GC/Start, at
# 11,608.181 ms in the baseline.
shutil.copyfile(os.path.join(samples, "ms-perfview__gcevents.etl.zip"),
                os.path.join(out_dir, "in.etl.zip"))
rc, out, err = t.run("replay", "in.etl.zip", "/StopOnGen2GC", "/Out:replayed.etl.zip", "/Report",
                     cwd=out_dir)
rep_page = os.path.join(out_dir, "replayed.report.html")
t.check(rc == 0 and os.path.isfile(rep_page), "replay /Out /Report writes the page: %r" % err)
rep = {}
if os.path.isfile(rep_page):
    with open(rep_page, encoding="utf-8") as f:
        rep = embedded_json(f.read())
trig = rep.get("capture", {}).get("trigger") or {}
t.check(trig.get("name") == "StopOnGen2GC" and abs((trig.get("ms") or 0) - 11608.181) <= 0.002,
        "the page shows the trigger and its time: %r" % trig)
rc, out, err = t.run("replay", "in.etl.zip", "/StopOnGen2GC", "/Report", cwd=out_dir)
t.check(rc == 2 and "/Out" in err, "replay /Report without /Out is a usage error: %d %r" % (rc, err))

# --- bad input: the same errors and exit codes as dump, no page --------------
with open(os.path.join(samples, "airbus-etl-parser__ShutdownPerfDiagLogger.etl"), "rb") as f:
    data = f.read()
cut = os.path.join(out_dir, "truncated.etl")
with open(cut, "wb") as f:
    f.write(data[:100000])
text = os.path.join(out_dir, "notes.etl")
with open(text, "w") as f:
    f.write("This is not a trace, just text that happens to be named .etl.\n" * 4)
for path, code in ((cut, 5), (text, 5), (os.path.join(out_dir, "missing.etl"), 6)):
    rc, _, err = t.run("report", to_target_path(t, path))
    drc, _, derr = t.run("dump", to_target_path(t, path))
    name = os.path.basename(path)
    t.check(rc == code and rc == drc, "%s: exit code %d as dump (%d): %d %r" % (name, code, drc, rc, err))
    first = lambda s: s.strip().splitlines()[0] if s.strip() else ""  # noqa: E731
    t.check(first(err) == first(derr), "%s: the message dump gives: %r vs %r" % (name, err, derr))
    page = path[:-4] + ".report.html"
    t.check(not os.path.exists(page) and not glob.glob(page + ".*.tmp"),
            "%s: no page is left" % name)


# --- in a browser --------------------------------------------------------------
# The flame graph checked: the one whose root frame's name starts with FLAME_OF.
FLAME_OF = "Test.x64.exe"
FLAME_SVG = """[...document.querySelectorAll('svg.flame')].find(svg =>
    svg.querySelector('g.f title').textContent.startsWith(%s))""" % json.dumps(FLAME_OF)
FLAME_FRAMES = """(() => {
    const svg = """ + FLAME_SVG + """;
    return svg ? [...svg.querySelectorAll('g.f')].map(g => ({
        x: +g.dataset.x, w: +g.dataset.w, d: +g.dataset.d, cls: g.getAttribute('class'),
        rx: +g.children[1].getAttribute('x'), rw: +g.children[1].getAttribute('width'),
        title: g.children[0].textContent})) : [];
})()"""


def click_frame(b, s, index):
    """A real mouse click at the middle of frame number index of FLAME_OF's
    flame graph, as a person clicks it."""
    at = b.evaluate(s, """(() => {
        const g = (""" + FLAME_SVG + """).querySelectorAll('g.f')[%d];
        g.scrollIntoView({block: 'center'});
        const r = g.children[1].getBoundingClientRect();
        return [r.x + r.width / 2, r.y + r.height / 2];
    })()""" % index)
    for kind in ("mousePressed", "mouseReleased"):
        b.call("Input.dispatchMouseEvent", {"type": kind, "x": at[0], "y": at[1],
                                            "button": "left", "clickCount": 1}, session=s)
    return b.evaluate(s, FLAME_FRAMES)


def flame_shot(b, s, shot):
    """A screenshot of FLAME_OF's flame graph with its heading and note."""
    box = b.evaluate(s, """(() => {
        const svg = """ + FLAME_SVG + """;
        const top = svg.previousElementSibling.getBoundingClientRect();
        const end = svg.nextElementSibling.getBoundingClientRect();
        return {x: top.x + window.scrollX - 8, y: top.y + window.scrollY - 8,
                width: end.right - top.x + 16, height: end.bottom - top.y + 16};
    })()""")
    b.screenshot(s, shot, 1400, 1000, clip=box)


def flame_zoom(b, s, shot):
    """FLAME_OF's flame graph's frames as drawn, after a click on its widest
    frame at most half as wide as the root, and after a click on the root;
    and that frame's index.  Screenshots of the graph before and
    after the first click: shot with "-flame" and "-zoomed"."""
    drawn = b.evaluate(s, FLAME_FRAMES)
    if not drawn:
        return drawn, None, None, None
    root = drawn[0]["w"]
    narrower = [i for i, f in enumerate(drawn) if f["d"] >= 2 and 2 * f["w"] <= root]
    if not narrower:
        return drawn, None, None, None
    pick = max(narrower, key=lambda i: drawn[i]["w"])
    flame_shot(b, s, shot.replace(".png", "-flame.png"))
    zoomed = click_frame(b, s, pick)
    flame_shot(b, s, shot.replace(".png", "-zoomed.png"))
    reset = click_frame(b, s, 0)
    return drawn, zoomed, reset, pick


def check_flame(shot, drawn, zoomed, reset, pick, samples):
    """The widths drawn are the weights' shares of 1100 units, each frame
    within its parent; a click on a frame makes it as wide as the graph,
    keeps its ancestors across the width and hides what is not below it;
    a click on the root draws the graph as it was."""
    t.check(len(drawn) > 3 and drawn[0]["d"] == 0 and drawn[0]["w"] == samples,
            "%s: a flame graph of %s whose root holds its %d samples: %r"
            % (shot, FLAME_OF, samples, drawn[:1]))
    if len(drawn) <= 3:
        return
    total = drawn[0]["w"]
    off = [f for f in drawn if abs(f["rw"] - f["w"] / total * 1100) > 0.06]
    t.check(not off, "%s: every width is the frame's share of 1100: %r" % (shot, off[:3]))
    outside = [f for f in drawn[1:] if not any(
        p["d"] == f["d"] - 1 and p["x"] <= f["x"] and f["x"] + f["w"] <= p["x"] + p["w"]
        for p in drawn)]
    t.check(not outside, "%s: every frame lies within its parent: %r" % (shot, outside[:3]))
    t.check(pick is not None, "%s: a frame at most half as wide as the root" % shot)
    if pick is None:
        return
    z = drawn[pick]
    t.check(abs(zoomed[pick]["rx"]) < 0.06 and abs(zoomed[pick]["rw"] - 1100) < 0.06,
            "%s: the clicked frame fills the width: %r" % (shot, zoomed[pick]))
    below = lambda f: f["d"] >= z["d"] and z["x"] <= f["x"] and f["x"] + f["w"] <= z["x"] + z["w"]  # noqa: E731
    above = lambda f: f["d"] < z["d"] and f["x"] <= z["x"] and z["x"] + z["w"] <= f["x"] + f["w"]  # noqa: E731
    wrong = [(f["title"], zoomed[i]["cls"]) for i, f in enumerate(drawn) if
             ("hid" in zoomed[i]["cls"].split()) != (not below(f) and not above(f))
             or ("anc" in zoomed[i]["cls"].split()) != above(f)]
    t.check(not wrong, "%s: after the click, ancestors span the graph and only frames "
            "outside the clicked one hide: %r" % (shot, wrong[:3]))
    t.check(any("hid" in f["cls"].split() for f in zoomed),
            "%s: the click hides the frames beside the clicked one" % shot)
    t.check([(f["rx"], f["rw"]) for f in reset] == [(f["rx"], f["rw"]) for f in drawn] and
            not any("hid" in f["cls"].split() for f in reset),
            "%s: a click on the root draws the graph as it was" % shot)


def open_page(exe, page, shot):
    """Loads page; returns (DOM facts, console errors, network requests)."""
    profile = os.path.join(out_dir, "chromium-profile")
    shutil.rmtree(profile, ignore_errors=True)
    os.makedirs(profile)
    b = Browser(exe, profile)
    try:
        s = b.open("file://" + page)
        facts = b.evaluate(s, """(() => {
            const data = JSON.parse(document.getElementById('etwcap-report').textContent);
            const gcCells = [...document.querySelectorAll('table.gcs tbody tr')]
                .map(r => r.children[5].textContent);
            return {svg: document.querySelectorAll('svg').length,
                    timeline: document.querySelectorAll('svg.chart path').length,
                    tables: document.querySelectorAll('table').length,
                    sections: [...document.querySelectorAll('section h2')].map(h => h.textContent),
                    gcRows: document.querySelectorAll('table.gcs tbody tr').length,
                    gcPauses: gcCells, gcs: data.gcs.length,
                    height: document.documentElement.scrollHeight};
        })()""")
        b.screenshot(s, shot, 1400, min(facts["height"], 16000))
        facts["flame"] = flame_zoom(b, s, shot)
        errors, requests = b.errors(), b.requests()
        return facts, errors, requests
    finally:
        b.close()


exe = find_chromium()
if not exe:
    print("chromium is absent (packaging/install-deps.sh installs Debian's chromium): "
          "the browser checks are skipped; the file checks above ran")
    t.finish()

for page, shot, want_gcs in ((gc_page, "gcevents.png", 2), (net_page, "net.4.5.2.x64.png", 264),
                             (rep_page, "replayed-gcevents.png", 2)):
    try:
        facts, errors, requests = open_page(exe, page, os.path.join(out_dir, shot))
    except Exception as e:  # noqa: BLE001 - reported as a failure with its cause
        t.check(False, "%s opens in Chromium: %r (see %s)" % (page, e, out_dir))
        continue
    t.check(facts["svg"] >= 2 and facts["timeline"] >= 1,
            "%s: SVG charts are drawn: %r" % (shot, facts))
    t.check(facts["tables"] >= 3, "%s: tables are in the DOM" % shot)
    for section in ("Capture", "Timeline", "Garbage collections", "Exceptions", "Processes",
                    "Symbols ready?", "Providers"):
        t.check(section in facts["sections"], "%s: section %s" % (shot, section))
    t.check(facts["gcs"] == want_gcs and facts["gcRows"] == want_gcs,
            "%s: %d GCs in the data and the table: %r" % (shot, want_gcs, facts["gcRows"]))
    t.check(errors == [], "%s: no console errors: %r" % (shot, errors))
    t.check(requests == [], "%s: no network request: %r" % (shot, requests))
    t.check(os.path.getsize(os.path.join(out_dir, shot)) > 10000,
            "%s: the screenshot is saved in %s" % (shot, out_dir))
    if page == net_page:
        # The figure: Test.x64.exe has 5,129 samples.
        check_flame(shot, *facts["flame"], samples=5129)
    if want_gcs == 2:
        t.check(facts["gcPauses"] == ["0.787", "0.542"],
                "the GC table shows the pauses 0.787 and 0.542: %r" % facts["gcPauses"])

t.finish()
