"""A real headless Chromium driven through the DevTools protocol, for the HTML page tests.

No package beyond the standard library: Chromium is started with `--remote-debugging-pipe` and the
protocol's JSON messages go over two pipes (its fd 3 in, fd 4 out, each message ended by NUL).

    with Chromium() as browser:
        page = browser.page(js=True)
        page.open(Path("s.html").as_uri())
        page.evaluate("document.title"); page.screenshot(Path("s.png"))
        page.requests, page.errors, page.bindings          # what the page did

Chromium is Debian's `chromium` package (`apt-get install -y chromium`); `find_chromium()` gives
None where it is missing ($MFACT_CHROMIUM names another binary).

Run alone, it screenshots pages: `python tests/_chromium.py PAGE.html OUT.png [WIDTH HEIGHT]`.
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

INSTALL_HINT = "install it with `sudo apt-get install -y chromium` (Debian/Ubuntu)"
_ENV_BINARY = os.environ.get("MFACT_CHROMIUM")   # read before the tests' fixture clears MFACT_*


def find_chromium() -> str | None:
    if _ENV_BINARY:
        return _ENV_BINARY if Path(_ENV_BINARY).exists() else shutil.which(_ENV_BINARY)
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    pass


def _high_fd(fd: int) -> int:
    """The same pipe end at a descriptor above 10 (so that putting it at 3 or 4 in the child cannot
    clobber the other one)."""
    import fcntl

    new = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return new


class Chromium:
    """One headless Chromium process with a DevTools connection over pipes."""

    def __init__(self, binary: str | None = None, timeout: float = 30.0):
        binary = binary or find_chromium()
        if binary is None:
            raise BrowserError("chromium is not installed; " + INSTALL_HINT)
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="mfact-chromium-")
        child_in, self._w = (_high_fd(x) for x in os.pipe())
        self._r, child_out = (_high_fd(x) for x in os.pipe())
        args = [binary, "--headless", "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
                "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(1, "--no-sandbox")          # Chromium refuses to run as root with its sandbox

        def place_pipes() -> None:
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, pass_fds=(3, 4), preexec_fn=place_pipes)
        os.close(child_in)
        os.close(child_out)
        self._next = 0
        self._lock = threading.Lock()
        self._replies: dict[int, dict] = {}
        self._events: list[dict] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, name="chromium-devtools", daemon=True)
        self._reader.start()
        self.version = self.call("Browser.getVersion")["product"]

    # ------------------------------------------------------------------ the protocol

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._r, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buf += chunk
            *messages, buf = buf.split(b"\0")
            with self._cond:
                for raw in messages:
                    msg = json.loads(raw)
                    if "id" in msg:
                        self._replies[msg["id"]] = msg
                    else:
                        self._events.append(msg)
                self._cond.notify_all()
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    _closed = False

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float | None = None) -> dict:
        with self._lock:
            self._next += 1
            mid = self._next
        msg: dict[str, Any] = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode("utf-8") + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        with self._cond:
            while mid not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    raise BrowserError(f"{method}: no answer from chromium")
                self._cond.wait(left)
            reply = self._replies.pop(mid)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def events(self, session: str | None = None) -> list[dict]:
        with self._cond:
            return [e for e in self._events if session is None or e.get("sessionId") == session]

    def wait_event(self, method: str, session: str, after: int = 0, timeout: float | None = None) -> dict:
        """The first event `method` of `session` at or after index `after` of its events."""
        deadline = time.monotonic() + (timeout or self.timeout)
        with self._cond:
            while True:
                mine = [e for e in self._events if e.get("sessionId") == session]
                for e in mine[after:]:
                    if e.get("method") == method:
                        return e
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    raise BrowserError(f"no {method} from chromium")
                self._cond.wait(left)

    # ------------------------------------------------------------------ pages and the end

    def page(self, width: int = 1200, height: int = 900, js: bool = True) -> "Page":
        return Page(self, width, height, js)

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except BrowserError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._w, self._r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Page:
    """A tab: what it requested, its console errors and exceptions, calls of the `pwned` binding
    (a function any script on the page could call; hostile test text calls it)."""

    def __init__(self, browser: Chromium, width: int, height: int, js: bool):
        self.b = browser
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.target = target
        self.session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable")
        self.call("Runtime.addBinding", {"name": "pwned"})
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        if not js:
            self.call("Emulation.setScriptExecutionDisabled", {"value": True})

    def call(self, method: str, params: dict | None = None, timeout: float | None = None) -> dict:
        return self.b.call(method, params, self.session, timeout)

    def open(self, url: str, timeout: float = 60.0) -> float:
        """Navigate and wait for the load event; the seconds it took."""
        start = len(self.b.events(self.session))
        t0 = time.perf_counter()
        self.call("Page.navigate", {"url": url}, timeout=timeout)
        self.b.wait_event("Page.loadEventFired", self.session, after=start, timeout=timeout)
        return time.perf_counter() - t0

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression, evaluated by DevTools (it runs with the page's
        scripts disabled too)."""
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise BrowserError(f"evaluate: {d.get('exception', {}).get('description') or d.get('text')}")
        return r["result"].get("value")

    def click_at(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                                   "clickCount": 1})

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the first element `selector` matches (scrolled into view)."""
        box = self.evaluate(
            f"(function(){{var e=document.querySelector({json.dumps(selector)});if(!e)return null;"
            "e.scrollIntoView({block:'center'});var r=e.getBoundingClientRect();"
            "return [r.left+Math.min(r.width/2,20),r.top+r.height/2];})()")
        if box is None:
            raise BrowserError(f"no element {selector}")
        self.click_at(*box)

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            h = self.evaluate("document.documentElement.scrollHeight")
            w = self.evaluate("document.documentElement.scrollWidth")
            params["clip"] = {"x": 0, "y": 0, "width": w, "height": min(h, 16000), "scale": 1}
        data = self.call("Page.captureScreenshot", params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def _mine(self, method: str) -> list[dict]:
        return [e["params"] for e in self.b.events(self.session) if e.get("method") == method]

    @property
    def requests(self) -> list[str]:
        """The URL of every request the page made (the page itself included)."""
        return [p["request"]["url"] for p in self._mine("Network.requestWillBeSent")]

    @property
    def blocked(self) -> dict[str, str]:
        """URL -> why, of the requests the browser refused to make (`csp`: the page's policy)."""
        urls = {p["requestId"]: p["request"]["url"] for p in self._mine("Network.requestWillBeSent")}
        return {urls.get(p["requestId"], "?"): p.get("blockedReason", "") for p in self._mine("Network.loadingFailed")
                if p.get("blockedReason")}

    @property
    def errors(self) -> list[str]:
        """Console errors, log entries of level error (CSP violations among them) and exceptions."""
        out = [" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
               for p in self._mine("Runtime.consoleAPICalled") if p.get("type") in ("error", "assert")]
        out += [p["entry"].get("text", "") for p in self._mine("Log.entryAdded")
                if p["entry"].get("level") == "error"]
        out += [p["exceptionDetails"].get("text", "") for p in self._mine("Runtime.exceptionThrown")]
        return out

    @property
    def bindings(self) -> list[str]:
        return [p.get("payload", "") for p in self._mine("Runtime.bindingCalled")]

    def close(self) -> None:
        try:
            self.b.call("Target.closeTarget", {"targetId": self.target}, timeout=5)
        except BrowserError:
            pass


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    width, height = (int(argv[2]), int(argv[3])) if len(argv) >= 4 else (1200, 900)
    with Chromium() as browser:
        page = browser.page(width, height)
        page.open(Path(argv[0]).resolve().as_uri())
        page.screenshot(Path(argv[1]))
    print(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
