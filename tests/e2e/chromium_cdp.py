"""Headless Chromium driven over --remote-debugging-pipe with the DevTools
protocol (https://chromedevtools.github.io/devtools-protocol/), for the tests
that open a page as a person would (test_report, test_speedscope).  The flags
let it run in a minimal chroot (no dbus, no /dev/shm) and on a closed network
(a proxy to nowhere, a resolver that refuses every name): a page that tries to
fetch anything fails to, and the test sees the request."""
import base64
import json
import os
import select
import shutil
import subprocess
import time


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """Chromium over --remote-debugging-pipe: fd 3 carries our commands, fd 4
    its answers and events, each message NUL-terminated JSON."""

    def __init__(self, exe, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        hi_r, hi_w = os.dup(to_child_r) + 100, os.dup(from_child_w) + 100
        os.dup2(to_child_r, hi_r)
        os.dup2(from_child_w, hi_w)

        def child_fds():
            # subprocess closes what pass_fds does not name after this runs.
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        env = dict(os.environ, HOME=profile, XDG_CONFIG_HOME=profile, XDG_CACHE_HOME=profile)
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
             "--remote-debugging-pipe", "--user-data-dir=" + profile, "--no-first-run",
             "--no-default-browser-check", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-extensions",
             "--proxy-server=http://127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
             "--hide-scrollbars", "--window-size=1400,1000", "about:blank"],
            preexec_fn=child_fds, pass_fds=(3, 4), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(profile, "chromium.log"), "w"),
            env=env)
        for fd in (to_child_r, from_child_w, hi_r, hi_w):
            os.close(fd)
        self.next_id = 0
        self.buf = b""
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0 or not select.select([self.from_child], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %r" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=60):
        """The first event `method` not waited for yet (it may have come
        while waiting for an answer)."""
        deadline = time.time() + timeout
        for m in self.events:
            if m.get("method") == method and not m.get("waited"):
                m["waited"] = True
                return m
        while True:
            m = self._read(deadline)
            self.events.append(m)
            if m.get("method") == method:
                m["waited"] = True
                return m

    def open(self, url, domains=("Page", "Runtime", "Log", "Network")):
        """A new tab on url, loaded: returns its session id."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in domains:
            self.call(domain + ".enable", session=s)
        self.call("Page.navigate", {"url": url}, session=s)
        self.wait_event("Page.loadEventFired")
        return s

    def evaluate(self, session, expression, timeout=60):
        """The value of a JavaScript expression in the tab (awaited when it
        is a promise); raises on an exception."""
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True}, session=session,
                      timeout=timeout)
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %r" % (expression[:80], r["exceptionDetails"]))
        return r["result"].get("value")

    def screenshot(self, session, path, width, height, clip=None):
        """The page at width x height into path (PNG); with clip, only that
        rectangle of the page ({x, y, width, height} in CSS pixels)."""
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                  session=session)
        params = {"format": "png"}
        if clip:
            params.update(clip=dict(clip, scale=1), captureBeyondViewport=True)
        png = self.call("Page.captureScreenshot", params, session=session)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(png))

    def errors(self):
        """Console errors, uncaught exceptions and error log entries so far."""
        return [m for m in self.events if
                (m.get("method") == "Runtime.consoleAPICalled" and
                 m["params"].get("type") == "error") or
                m.get("method") == "Runtime.exceptionThrown" or
                (m.get("method") == "Log.entryAdded" and
                 m["params"]["entry"].get("level") == "error")]

    def requests(self, local=("file://",)):
        """The URLs requested so far, but those starting with one of local."""
        return [m["params"]["request"]["url"] for m in self.events
                if m.get("method") == "Network.requestWillBeSent"
                and not m["params"]["request"]["url"].startswith(tuple(local))]

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:  # noqa: BLE001 - it may already be gone
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
