"""A speedscope file loaded into the real speedscope web app, as a person
would open it: the `speedscope` npm package (the version pinned in
tests/e2e/speedscope.version) installed into the build tree, its built page
opened from disk in headless Chromium the way its own command line opens a
file (index.html#localProfilePath=FILE.js, where FILE.js calls
speedscope.loadFileFromBase64), on a closed network.  Checks that the page
shows each profile with no error, and that the Self column of its Sandwich
view (each sample counted once, at its leaf) adds up to the profile's
sample count.

packaging/install-deps.sh puts the package into npm's cache at set-up, so
this test installs it without the network; with neither the cache nor the
registry, it skips and says why.

The file is `etwcap convert` of the net.4.5.2.x64 sample, one profile per
process; each profile's count must be the report's for that process (its
cpu[].samples, or processes[].cpuSamples for those past the busiest), which
the issue gives for Test.x64.exe (5,129) and Idle (73,313)."""
import base64
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium_cdp import Browser, find_chromium  # noqa: E402
from etwcap_e2e import SKIP, Etwcap, samples_dir, tmp_dir, to_target_path  # noqa: E402

t = Etwcap()
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "speedscope.version")) as f:
    version = f.read().strip()

samples = samples_dir()
if not samples:
    print("skipped: the shared samples folder is absent (set ETWCAP_SAMPLES)")
    sys.exit(SKIP)
exe = find_chromium()
npm = shutil.which("npm")
if not exe or not npm:
    print("skipped: needs chromium and npm (packaging/install-deps.sh installs chromium; npm "
          "comes with the machine's Node.js): %s" % ("chromium is absent" if not exe else
                                                     "npm is absent"))
    sys.exit(SKIP)

out_dir = os.path.join(tmp_dir(), "speedscope-%s" % t.target)
shutil.rmtree(out_dir, ignore_errors=True)
os.makedirs(out_dir)


def install_speedscope():
    """The folder of speedscope's built page in the build tree, installed
    from npm's cache when it is there (or from the registry npm is set up
    with); None when npm cannot install it."""
    prefix = os.path.join(tmp_dir(), "speedscope-npm")
    page_dir = os.path.join(prefix, "node_modules", "speedscope", "dist", "release")
    package = os.path.join(prefix, "node_modules", "speedscope", "package.json")
    if os.path.isfile(package):
        with open(package) as f:
            if json.load(f).get("version") == version:
                return page_dir, ""
    # The tests run without a login environment: npm finds its cache and
    # its configuration (the registry) in the user's home.
    env = dict(os.environ)
    env.setdefault("HOME", pwd.getpwuid(os.getuid()).pw_dir)
    try:
        p = subprocess.run([npm, "install", "--prefer-offline", "--no-package-lock", "--no-save",
                            "--no-audit", "--no-fund", "--prefix", prefix,
                            "speedscope@" + version], env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "npm install took more than 300 s"
    if p.returncode != 0 or not os.path.isfile(os.path.join(page_dir, "index.html")):
        return None, (p.stderr or p.stdout).strip()[-600:]
    return page_dir, ""


page_dir, why = install_speedscope()
if not page_dir:
    print("skipped: npm could not install speedscope@%s (not in npm's cache and the registry "
          "unreachable? packaging/install-deps.sh caches it): %s" % (version, why))
    sys.exit(SKIP)


def converted_profile():
    """`etwcap convert` of the sample, and the count the report gives for
    each of its profiles, in the file's order."""
    trace = os.path.join(samples, "ms-perfview__net.4.5.2.x64.etl.zip")
    path = os.path.join(out_dir, "net.4.5.2.x64.speedscope.json")
    page = os.path.join(out_dir, "net.4.5.2.x64.report.html")
    rc, _, err = t.run("convert", to_target_path(t, trace), "/Format:Speedscope",
                       "/Out:" + to_target_path(t, path))
    t.check(rc == 0 and os.path.isfile(path), "convert exits 0 and writes the file: %r" % err)
    rc, _, err = t.run("report", to_target_path(t, trace), "/Out:" + to_target_path(t, page))
    t.check(rc == 0 and os.path.isfile(page), "report exits 0: %r" % err)
    if not os.path.isfile(path) or not os.path.isfile(page):
        t.finish()
    with open(page, encoding="utf-8") as f:
        data = json.loads(re.search(r'id="etwcap-report">(.*?)</script>', f.read(), re.S).group(1))
    counts = {p["pid"]: p["cpuSamples"] for p in data["processes"]}
    counts.update({p["pid"]: p["samples"] for p in data["cpu"]})
    with open(path) as f:
        names = [p["name"] for p in json.load(f)["profiles"]]
    pid = lambda name: int(re.search(r"\((\d+)\)$", name).group(1))  # noqa: E731
    return path, [(name, counts.get(pid(name))) for name in names]


def loader(profile):
    """The script speedscope's command line writes for a file (its
    bin/cli.mjs): the file's bytes in base64, handed to the page."""
    with open(profile, "rb") as f:
        data = base64.b64encode(f.read()).decode()
    path = profile + ".js"
    with open(path, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s)" % (json.dumps(os.path.basename(profile)),
                                                          json.dumps(data)))
    return path


def wait_text(b, s, pattern, timeout=60):
    deadline = time.time() + timeout
    while True:
        text = b.evaluate(s, "document.body ? document.body.innerText : ''")
        if re.search(pattern, text):
            return text
        if time.time() > deadline:
            raise TimeoutError("the page never showed %r: %r" % (pattern, text[:400]))
        time.sleep(0.2)


def self_total(text):
    """The Sandwich table's Self column added up: each row is Total, Self
    (a tab first) and the name, on three lines; counts as "1,234 (5%)"."""
    return sum(int(m.group(1).replace(",", ""))
               for m in re.finditer(r"^\t([\d,]+) \(", text, re.M))


def tall(b, s, frames):
    """A viewport tall enough for a row per frame: the Sandwich table draws
    only the rows in view."""
    b.call("Emulation.setDeviceMetricsOverride",
           {"width": 1400, "height": min(200 + 40 * frames, 100000), "deviceScaleFactor": 1,
            "mobile": False}, session=s)


def press(b, s, key):
    """A key press as speedscope's keypress handler sees it."""
    b.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": key, "text": key}, session=s)
    b.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key}, session=s)


profile, expected = converted_profile()
for name, count in (("Test.x64.exe (3676)", 5129), ("Idle (0)", 73313)):
    t.check((name, count) in expected, "the report gives %s %d samples, as the issue does: %r"
            % (name, count, expected[:3]))
with open(profile) as f:
    frames = len(json.load(f)["shared"]["frames"])
shot = os.path.join(out_dir, "speedscope.png")
url = "file://%s/index.html#view=sandwich&localProfilePath=%s" % (page_dir, loader(profile))
browser_dir = os.path.join(out_dir, "chromium-profile")
os.makedirs(browser_dir)
b = Browser(exe, browser_dir)
try:
    s = b.open("about:blank")
    tall(b, s, frames)
    b.call("Page.navigate", {"url": url}, session=s)
    b.wait_event("Page.loadEventFired")
    shown = 0
    for i, (name, count) in enumerate(expected):
        title = "%s (%d/%d)" % (name, i + 1, len(expected))
        try:
            text = wait_text(b, s, re.escape(title) + r"[\s\S]*Symbol Name")
        except TimeoutError as e:
            t.check(False, "speedscope shows profile %s: %s" % (title, e))
            break
        shown += 1
        # The table fills in after the title changes: wait for it to settle
        # on the count, or report the last total it showed.
        deadline = time.time() + 20
        while self_total(text) != count and time.time() < deadline:
            time.sleep(0.2)
            text = b.evaluate(s, "document.body.innerText")
        t.check(self_total(text) == count, "%s: the Self column adds up to the report's %r "
                "samples: %d" % (name, count, self_total(text)))
        if name.startswith("Test.x64.exe"):
            press(b, s, "2")  # Left Heavy: the flame graph
            time.sleep(1)
            b.screenshot(s, shot, 1400, 700)
            tall(b, s, frames)
            press(b, s, "3")  # back to Sandwich
        press(b, s, "n")
    t.check(shown == len(expected) and shown > 1,
            "speedscope shows all %d profiles: %d" % (len(expected), shown))
    body = b.evaluate(s, "document.body.innerText")
    t.check("Something went wrong" not in body and "Unrecognized format" not in body,
            "speedscope reports no import error: %r" % body[:300])
    t.check(b.errors() == [], "no console errors: %r" % b.errors())
    t.check(b.requests() == [], "no network request: %r" % b.requests())
    t.check(os.path.isfile(shot) and os.path.getsize(shot) > 5000,
            "the screenshot of Test.x64.exe's flame graph is saved as %s" % shot)
finally:
    b.close()
t.finish()
