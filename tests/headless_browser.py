"""A real headless browser for the report test: Chromium from the distribution's packages, driven over the
Chrome DevTools Protocol on a pipe (``--remote-debugging-pipe``: JSON messages ended by a NUL byte, commands
on the child's fd 3, answers on its fd 4). Standard library only: no Selenium, no Playwright, no driver."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

#: where to look for the browser (Debian's package installs /usr/bin/chromium); $CHROMIUM overrides
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    return next((path for name in CANDIDATES if (path := shutil.which(name))), None)


class BrowserError(RuntimeError):
    pass


class HeadlessBrowser:
    """One headless Chromium with one page of ``width`` x ``height`` CSS pixels."""

    def __init__(self, executable: str, width: int = 1400, height: int = 900, timeout: float = 60.0):
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="banditrepro-chromium-")
        cmd_r, self._cmd_w = os.pipe()  # we write commands, the browser reads them on fd 3
        self._out_r, out_w = os.pipe()  # the browser writes answers on fd 4, we read them

        def wire():  # in the child, before exec: the pipe ends onto fds 3 and 4
            os.dup2(cmd_r, 3)
            os.dup2(out_w, 4)

        args = [executable, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check", "--mute-audio",
                "--hide-scrollbars", f"--user-data-dir={self._profile}", f"--window-size={width},{height}",
                "about:blank"]
        self._proc = subprocess.Popen(args, preexec_fn=wire, pass_fds=(3, 4), stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(cmd_r)
        os.close(out_w)
        self._buffer = b""
        self._next_id = 0
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable", session=True)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=True)

    # --- protocol ------------------------------------------------------------------------------

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError("no answer from Chromium in time")
            chunk = os.read(self._out_r, 1 << 16)
            if not chunk:
                err = self._proc.stderr.read().decode(errors="replace") if self._proc.poll() is not None else ""
                raise BrowserError(f"Chromium closed the pipe: {err[-2000:]}")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method: str, params: dict | None = None, session: bool = False) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        os.write(self._cmd_w, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:  # events (no id) and other answers are not waited for
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    # --- page ----------------------------------------------------------------------------------

    def evaluate(self, expression: str, context_id: int | None = None):
        """The value of a JavaScript expression (awaited if a promise) in the page, or in a frame's context."""
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        if context_id is not None:
            params["contextId"] = context_id
        result = self.send("Runtime.evaluate", params, session=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"JavaScript error: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, context_id: int | None = None, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout or self.timeout)
        while not self.evaluate(expression, context_id):
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for: {expression}")
            time.sleep(0.2)

    def open(self, path: Path) -> None:
        self.send("Page.navigate", {"url": Path(path).resolve().as_uri()}, session=True)
        self.wait_for("document.readyState === 'complete'")

    def child_frame_context(self, url_prefix: str = "", timeout: float | None = None) -> int:
        """An execution context inside the page's (first) child frame once its document, whose URL starts with
        ``url_prefix``, has loaded: e.g. the frame Snakemake's report shows an HTML result in (a data: URL, so
        the page's own scripts cannot reach into it)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            tree = self.send("Page.getFrameTree", session=True)["frameTree"]
            children = [c["frame"] for c in tree.get("childFrames", [])]
            if children and children[0].get("url", "").startswith(url_prefix) and children[0].get("url") != "about:blank":
                break
            if time.monotonic() > deadline:
                raise BrowserError(f"no child frame showing {url_prefix or 'a document'}: {children}")
            time.sleep(0.2)
        context = self.send("Page.createIsolatedWorld", {"frameId": children[0]["id"], "worldName": "report-test"},
                            session=True)["executionContextId"]
        self.wait_for("document.readyState === 'complete' && !!document.body && document.body.children.length > 0",
                      context, timeout)
        return context

    def screenshot(self, path: Path) -> None:
        import base64

        data = self.send("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.send("Browser.close")
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._cmd_w, self._out_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self._proc.stderr:
            self._proc.stderr.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
