"""Real Chromium driven through the DevTools protocol, inside the bluez-vm guest (standard library
only): `--remote-debugging-pipe` carries NUL-separated JSON on the child's fds 3 (commands in) and
4 (answers and events out). The Web Bluetooth chooser is answered through the `DeviceAccess`
domain; a user gesture is given with `Runtime.evaluate(userGesture=True)`.

    browser = Chromium(OUT)                     # starts chromium --headless on the page
    browser.evaluate("relayPage.connect()", gesture=True)
    prompt = browser.wait_prompt("sample")      # DeviceAccess.deviceRequestPrompted
    browser.select(prompt, "sample")
"""
import json
import os
import shutil
import subprocess
import threading
import time


class BrowserError(Exception):
    pass


def chromium_path():
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    """One Chromium process with one page, its DevTools session attached (flat mode)."""

    def __init__(self, out, url, extra=(), log_name="chromium"):
        path = chromium_path()
        if not path:
            raise BrowserError("chromium is not installed (scripts/install-deps.sh browser)")
        self.profile = f"/tmp/chromium-profile-{os.getpid()}"
        os.makedirs(self.profile, exist_ok=True)
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()
        argv = [path, "--headless", "--no-sandbox", "--enable-features=WebBluetooth", "--remote-debugging-pipe",
                f"--user-data-dir={self.profile}", "--no-first-run", "--no-default-browser-check",
                "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                "--enable-logging=stderr", "--v=0",
                "--vmodule=device_event_log_impl=1", *extra, url]

        def child_fds():
            # subprocess closes every other fd after this runs: fds 3 and 4 are kept through
            # close_fds=False, and the parent's own ends are closed here.
            os.dup2(commands_read, 3)
            os.dup2(answers_write, 4)
            for fd in (self._commands, self._answers):
                os.close(fd)

        self._log = open(os.path.join(out, f"{log_name}.log"), "wb")
        self.started = time.monotonic()
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
                                        close_fds=False, preexec_fn=child_fds)
        os.close(commands_read)
        os.close(answers_write)
        self._next = 0
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._results = {}
        self.events = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.session = None
        target = self._page_target(timeout=90)
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True, session=False)["sessionId"]
        self.ready_seconds = time.monotonic() - self.started

    def _read(self):
        buffer = b""
        while True:
            try:
                chunk = os.read(self._answers, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cond:
                    self._results[None] = "closed"
                    self._cond.notify_all()
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                with self._cond:
                    if "id" in message:
                        self._results[message["id"]] = message
                    else:
                        self.events.append(message)
                    self._cond.notify_all()

    def call(self, method, timeout=30, session=True, **params):
        """Sends METHOD with PARAMS (on the page's session unless session=False); its result."""
        with self._cond:
            self._next += 1
            ident = self._next
        message = {"id": ident, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._cond:
            while ident not in self._results:
                if None in self._results:
                    raise BrowserError(f"chromium closed its pipe during {method} (chromium.log)")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BrowserError(f"chromium did not answer {method} in {timeout} s")
                self._cond.wait(left)
            answer = self._results.pop(ident)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error'].get('message')}")
        return answer.get("result", {})

    def _page_target(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BrowserError(f"chromium exited with {self.process.returncode} (chromium.log)")
            try:
                targets = self.call("Target.getTargets", session=False, timeout=max(1, deadline - time.monotonic()))
            except BrowserError:
                time.sleep(0.5)
                continue
            pages = [t for t in targets.get("targetInfos", []) if t.get("type") == "page"]
            if pages:
                return pages[0]["targetId"]
            time.sleep(0.5)
        raise BrowserError(f"chromium opened no page in {timeout} s")

    def evaluate(self, expression, gesture=False, timeout=30, await_promise=False):
        """The value of EXPRESSION in the page (JSON-able), with a user gesture when asked."""
        result = self.call("Runtime.evaluate", timeout=timeout, expression=expression, returnByValue=True,
                           userGesture=gesture, awaitPromise=await_promise)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"the page threw on `{expression[:60]}`: {text}")
        return result.get("result", {}).get("value")

    def screenshot(self, path):
        """The page as the browser draws it, a PNG at PATH (Page.captureScreenshot)."""
        import base64
        data = self.call("Page.captureScreenshot", format="png", timeout=60)["data"]
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(data))

    def wait_event(self, method, timeout=30, where=lambda params: True, since=0):
        """The first event METHOD (index >= SINCE) whose params satisfy WHERE; None on time-out."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for event in self.events[since:]:
                    if event.get("method") == method and where(event.get("params", {})):
                        return event["params"]
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)

    def wait_until(self, expression, timeout=30, step=0.2):
        """Polls EXPRESSION in the page until it is truthy; its value, or None on time-out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(step)
        return None

    def close(self):
        if self.process.poll() is None:
            try:
                self.call("Browser.close", session=False, timeout=5)
            except BrowserError:
                pass
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self._log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


class RelayPage:
    """web/relay.html in a Chromium (its `window.relayPage` surface): opened, loaded, and a device
    chosen through the chooser as a person would. Failures raise BrowserError with the page's last
    status lines."""

    def __init__(self, browser):
        self.browser = browser
        browser.call("DeviceAccess.enable")
        browser.call("Runtime.enable")
        if not browser.wait_until("document.readyState === 'complete' && !!window.relayPage", timeout=60):
            raise BrowserError(f"the page did not load ({browser.evaluate('location.href')})")

    def log(self, last=8):
        """What the page said last (its status lines), for a failure's reason."""
        try:
            return " | ".join(self.browser.evaluate(f"relayPage.log.slice(-{last})") or [])
        except BrowserError as error:
            return f"(the page did not answer: {error})"

    def choose(self, name, timeout=60):
        """`Connect` pressed (a user gesture), then NAME chosen in the chooser once it lists it:
        the seconds from the press until the chooser listed NAME."""
        browser = self.browser
        asked = time.monotonic()
        mark = len(browser.events)
        browser.evaluate("relayPage.connect(); 1", gesture=True)
        prompt = browser.wait_event("DeviceAccess.deviceRequestPrompted", timeout=timeout, since=mark,
                                    where=lambda params: any(d.get("name") == name for d in params.get("devices", [])))
        if prompt is None:
            raise BrowserError(f"the chooser never listed {name} (page: {self.log()})")
        listed = time.monotonic() - asked
        device = next(d for d in prompt["devices"] if d.get("name") == name)
        browser.call("DeviceAccess.selectPrompt", id=prompt["id"], deviceId=device["id"])
        return listed
