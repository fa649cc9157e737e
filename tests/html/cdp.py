"""A headless Chromium driven over --remote-debugging-pipe (the DevTools
protocol as NUL-terminated JSON on fds 3 and 4), for the HTML page tests.

The browser runs with every network path closed (a proxy to a port where
nothing listens, every host name unresolvable): the page must need none.
It records what the tests must see empty: console errors, uncaught
exceptions, log errors, and every request other than the page's own
file:// document.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, width=1400, height=900):
        self.profile = tempfile.mkdtemp(prefix="tpuprof-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        exe = find_chromium()
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-pipe", "--user-data-dir=" + self.profile,
                "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--mute-audio",
                "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--host-resolver-rules=MAP * ~NOTFOUND",
                "--hide-scrollbars", "about:blank"]
        cmd = 'exec "$@" 3<&%d 4>&%d' % (to_browser_r, from_browser_w)
        self.proc = subprocess.Popen(["sh", "-c", cmd, "sh"] + args,
                                     pass_fds=(to_browser_r, from_browser_w),
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None
        self.problems = []      # console errors, exceptions, log errors
        self.requests = []      # every request URL
        target = None
        for _ in range(100):
            targets = self.call("Target.getTargets")["targetInfos"]
            pages = [t for t in targets if t["type"] == "page"]
            if pages:
                target = pages[0]["targetId"]
                break
            time.sleep(0.05)
        if target is None:
            target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable")
        self.send("Emulation.setDeviceMetricsOverride", width=width,
                  height=height, deviceScaleFactor=1, mobile=False)

    # -- protocol ---------------------------------------------------------
    def _write(self, msg):
        data = json.dumps(msg).encode() + b"\0"
        while data:
            n = os.write(self.to_browser, data)
            data = data[n:]

    def _read(self, timeout):
        end = time.time() + timeout
        while b"\0" not in self.buf:
            left = end - time.time()
            if left <= 0:
                raise TimeoutError("chromium did not answer")
            r, _, _ = select.select([self.from_browser], [], [], left)
            if r:
                chunk = os.read(self.from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium exited")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def _note(self, ev):
        method, p = ev.get("method"), ev.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.problems.append("console.%s: %s" % (p["type"], " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.problems.append("exception: %s %s" % (d.get("text", ""),
                                 d.get("exception", {}).get("description", "")))
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            self.problems.append("log: " + p["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            self.requests.append(p.get("request", {}).get("url", ""))
        self.events.append(ev)

    def send(self, method, timeout=30, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        self._write(msg)
        while True:
            m = self._read(timeout)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self._note(m)

    call = send

    def wait_event(self, method, timeout=30):
        for i, ev in enumerate(self.events):
            if ev.get("method") == method:
                del self.events[: i + 1]
                return ev
        end = time.time() + timeout
        while time.time() < end:
            m = self._read(end - time.time())
            self._note(m)
            if m.get("method") == method:
                self.events = []
                return m
        raise TimeoutError(method)

    # -- page -------------------------------------------------------------
    def open(self, url, timeout=60):
        """Loads url afresh (a deep link is read as on a first visit) and
        waits until the page says it is ready."""
        self.send("Page.navigate", url="about:blank")
        self.wait_event("Page.loadEventFired", timeout)
        self.events = []
        self.send("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired", timeout)
        end = time.time() + timeout
        while time.time() < end:
            if self.eval("document.body && document.body.getAttribute('data-ready')") == "1":
                return
            time.sleep(0.05)
        raise TimeoutError("page not ready: " + url)

    def eval(self, expr, timeout=60):
        r = self.send("Runtime.evaluate", timeout=timeout, expression=expr,
                      returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise RuntimeError("eval %r: %s" % (expr[:80], d.get("exception", {}).get("description", d.get("text"))))
        return r.get("result", {}).get("value")

    def settle(self):
        """Two animation frames: what the page drew is on screen."""
        self.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def screenshot(self, path, scale=None):
        """The viewport as PNG; with scale, reduced (the pictures in docs/)."""
        self.settle()
        params = {"format": "png"}
        if scale:
            w, h = self.eval("[innerWidth, innerHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": w, "height": h, "scale": scale}
        png = self.send("Page.captureScreenshot", **params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(png))

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)
