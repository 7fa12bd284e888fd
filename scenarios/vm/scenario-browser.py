#!/usr/bin/env python3
# The browser page (web/relay.html, issue 48), inside the bluez-vm guest: real Chromium from Debian
# (--headless, Web Bluetooth on) on hci0, driven through the DevTools protocol (scenarios/vm/browser.py),
# against relay-peripheral on hci1 with --save-dir:
#   1. the page opened from file:// has Web Bluetooth; `connect` with a user gesture opens the
#      chooser, which lists `sample` and is answered (DeviceAccess); the page says protocol 2 and
#      writes values cut for the MTU the welcome gave it;
#   2. a counter each way (the page's 1 arrives at relay-peripheral; `notify 77` shows on the page);
#   3. a 10 KiB text each way, `delivered` on both sides, the same SHA-256;
#   4. a file chosen in the page's file input (DevTools' DOM.setFileInputFiles) saved by
#      relay-peripheral under its name, the same bytes;
#   5. the link drops (the browser's bluetoothd ends it) and the page connects again by itself,
#      resumes its session (the same tokens) and a message crosses each way after it.
# Before step 1, the same page meets bad input (scenarios/vm/browser_bad.py): a wrong device (hci2),
# relay-peripheral --secure unpaired (hci3) and a peripheral notifying malformed frames (hci4).
# vm-controllers: 5
# vm-air: laptop
# vm-timeout: 480
import hashlib
import os
import tempfile
import time

from browser import BrowserError, Chromium, RelayPage
from browser_bad import BadPeripherals, bad_input
from scenario import OUT, REPO, Problems, expect, fail, passed, relay, run, sha256

page_url = "file://" + os.path.join(REPO, "web", "relay.html")
data = tempfile.mkdtemp(prefix="relay-browser.", dir="/tmp")
saved = os.path.join(data, "saved")
os.makedirs(saved)
figures = {}
problems = Problems()
# RELAY_BROWSER_SHOTS=1: the page on a phone-sized screen with its trace shown, a PNG after each step
# in the output folder (left out of make test: the guest draws a page in seconds).
shots = os.environ.get("RELAY_BROWSER_SHOTS") == "1"




began = time.monotonic()

p = relay("peripheral", "relay-peripheral", "--adapter", "hci1", "--save-dir", saved)
p.send("start")
expect(p, "advertising", "the peripheral did not advertise", timeout=60)
bad = BadPeripherals("hci2", "hci3", "hci4")

try:
    browser = Chromium(OUT, page_url)
except BrowserError as error:
    fail(f"chromium did not start: {error}")
figures["chromium up (s)"] = round(browser.ready_seconds, 1)
try:
    page = RelayPage(browser)
    page_log = page.log
    figures["page loaded (s)"] = round(time.monotonic() - began, 1)
    if browser.evaluate("window.isSecureContext && !!navigator.bluetooth") is not True:
        fail(f"the page has no Web Bluetooth: {page_log()}")
    bad.wait_advertising()
    bad_input(browser, page, bad, problems, figures)
    figures["bad input done (s)"] = round(time.monotonic() - began, 1)

    # 1. The chooser.
    asked = time.monotonic()
    figures["chooser lists sample (s)"] = round(page.choose("sample"), 1)
    if not browser.wait_until("relayPage.state === 'ready'", timeout=60):
        fail(f"the page never became ready: {page_log()}")
    figures["ready after choosing (s)"] = round(time.monotonic() - asked, 1)
    if shots:
        browser.call("Emulation.setDeviceMetricsOverride", width=412, height=1100, deviceScaleFactor=1, mobile=True)
        browser.evaluate("document.getElementById('trace-on').click(); 1")
    protocol = browser.evaluate("relayPage.protocol")
    mtu = browser.evaluate("relayPage.mtu")
    problems.check(protocol == 2, f"the page speaks protocol {protocol}, not 2")
    problems.check(mtu == 517, f"the welcome gave the page MTU {mtu}, not 517")
    expect(p, "subscribed", "relay-peripheral saw no protocol-2 subscription", timeout=30, protocol=2)
    figures["page MTU"] = mtu

    # 2. Counters.
    written = browser.evaluate("relayPage.sendCounter()")
    expect(p, "counter", "the page's counter did not arrive", timeout=20, value=written)
    p.send("notify 77")
    if browser.wait_until("relayPage.counterIn === 77", timeout=20) is None:
        problems.append(f"the page did not show counter 77 (it shows {browser.evaluate('relayPage.counterIn')})")

    if shots:
        browser.screenshot(f"{OUT}/page-1-counters.png")
    # 3. 10 KiB of text each way.
    text = "".join(chr(0x61 + (i * 7) % 26) for i in range(10240))
    sent_at = time.monotonic()
    browser.evaluate(f"relayPage.sendText({text!r}.repeat(1))")
    message = expect(p, "message", "the page's 10 KiB did not arrive", timeout=60, length=10240)
    problems.check(message.get("sha256") == hashlib.sha256(text.encode()).hexdigest(), "the page's 10 KiB changed on the way")
    if not browser.wait_until("relayPage.sent[1] && relayPage.sent[1].state === 'delivered'", timeout=30):
        problems.append(f"the page's 10 KiB was not delivered ({browser.evaluate('JSON.stringify(relayPage.sent[1])')})")
    figures["10 KiB page to relay-peripheral (s)"] = round(time.monotonic() - sent_at, 2)
    back = os.path.join(data, "back.txt")
    with open(back, "w") as handle:
        handle.write(text[::-1])
    sent_at = time.monotonic()
    p.send(f"send {text[::-1]}")
    expect(p, "delivered", "relay-peripheral's 10 KiB was not delivered to the page", timeout=60)
    figures["10 KiB relay-peripheral to page (s)"] = round(time.monotonic() - sent_at, 2)
    got = browser.wait_until("relayPage.received.length >= 1 && relayPage.received[0].text", timeout=10)
    problems.check(got == text[::-1], "the page did not show relay-peripheral's 10 KiB as sent")

    if shots:
        browser.screenshot(f"{OUT}/page-2-messages.png")
    # 4. A file from the page's file input, saved under its name.
    name = "Notes for the class (1).txt"
    source = os.path.join(data, name)
    with open(source, "wb") as handle:
        handle.write(os.urandom(20000))
    document = browser.call("DOM.getDocument")
    node = browser.call("DOM.querySelector", nodeId=document["root"]["nodeId"], selector="#file-input")
    browser.call("DOM.setFileInputFiles", nodeId=node["nodeId"], files=[source])
    expect(p, "message", "the page's file did not arrive", timeout=60, name=name)
    problems.check(os.path.exists(os.path.join(saved, name)) and sha256(os.path.join(saved, name)) == sha256(source),
                   f"relay-peripheral did not save the file as `{name}` ({os.listdir(saved)})")
    if not browser.wait_until("relayPage.sent[2] && relayPage.sent[2].state === 'delivered'", timeout=30):
        problems.append("the page's file was not delivered")

    if shots:
        browser.screenshot(f"{OUT}/page-3-file.png")
    # 5. The link drops and comes back. The browser's bluetoothd ends it (Device1.Disconnect), as
    # when the peripheral goes out of range, while the page writes nothing (Chromium 156 never
    # reconnects a page whose write was in flight when the link dropped: docs/cli.md).
    mark = p.mark()
    dropped_at = time.monotonic()
    status, output = run(["dbus-send", "--system", "--print-reply", "--dest=org.bluez",
                          "/org/bluez/hci0/dev_00_AA_01_01_00_01", "org.bluez.Device1.Disconnect"])
    if status != 0:
        fail(f"could not end the page's link: {output.strip()}")
    expect(p, "disconnected", "relay-peripheral did not see the page's link end", timeout=20, since=mark)
    expect(p, "subscribed", lambda: f"the page did not come back (page: {page_log()})", timeout=60, since=mark,
           protocol=2)
    if not browser.wait_until("relayPage.log.includes('Back: resuming.') && relayPage.state === 'ready'", timeout=20):
        problems.append(f"the page did not say it resumed its session ({page_log(4)})")
    figures["page back after the drop (s)"] = round(time.monotonic() - dropped_at, 1)
    if shots:
        browser.screenshot(f"{OUT}/page-4-back.png")
    # The same session goes on: a message each way after the return, delivered.
    browser.evaluate("relayPage.sendText('after the drop')")
    expect(p, "message", "the page's message after the drop did not arrive", timeout=30, since=mark,
           text="after the drop")
    if not browser.wait_until("relayPage.sent[3] && relayPage.sent[3].state === 'delivered'", timeout=30):
        problems.append("the page's message after the drop was not delivered")
    p.send("send back again")
    expect(p, "delivered", "relay-peripheral's message after the drop was not delivered", timeout=30, since=mark)
    problems.check(browser.wait_until("relayPage.received.some(m => m.text === 'back again')", timeout=10),
                   "the page did not show relay-peripheral's message after the drop")
    # One drop, one return: nothing else ended the page's link at relay-peripheral (bluetoothd
    # removing the bad peripherals' temporary devices of the browser's address, 30 s after they
    # left, once read as the page leaving).
    links = [event.get("event") for event in p.events if event.get("event") in ("connected", "disconnected")]
    problems.check(links == ["connected", "disconnected", "connected"], f"relay-peripheral saw the page's link as {links}")
    errors = browser.evaluate("relayPage.errors")
    figures["page errors"] = len(errors or [])
except BrowserError as error:
    fail(str(error))
finally:
    try:
        with open(f"{OUT}/page.json", "w") as handle:
            handle.write(browser.evaluate("JSON.stringify({log: relayPage.log, times: relayPage.times, errors: relayPage.errors, "
                                          "trace: relayPage.trace.slice(-200), sent: relayPage.sent}, null, 1)") or "")
    except (BrowserError, NameError):
        pass
    figures["chromium RSS (MiB)"] = None
    try:
        with open(f"/proc/{browser.process.pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    figures["chromium RSS (MiB)"] = int(line.split()[1]) // 1024
    except (OSError, NameError):
        pass
    if "browser" in globals():
        browser.close()

p.send("quit")
figures["total (s)"] = round(time.monotonic() - began, 1)
shown = ", ".join(f"{key} {value}" for key, value in figures.items())
problems.fail_if_any(shown)
passed(shown)
