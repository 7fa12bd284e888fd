#!/usr/bin/env python3
"""Inside the bluez-vm guest: the browser page's goodput against relay-central's (issue 48), on the
laptop radio.

Started by benchmarks/ble/run.sh (part `page`, same boot as the others). Each session is a fresh
bluetoothd (two controllers, laptop radio) with relay-peripheral on hci1 (`--lane gatt`: the page
has no lane, so both centrals carry messages on GATT) and one central on hci0: relay-central
(`--connect sample --lane gatt`), or Debian's Chromium with web/relay.html (scenarios/vm/browser.py:
the chooser answered through the DevTools protocol; Chromium takes the first adapter). In each,
SIZE bytes central -> peripheral (from the command, `send-file` or the page's `sendBytes`, to
relay-peripheral's `message`) and SIZE bytes peripheral -> central (from `send-file` to the
central's `message`, or until the page lists the message: the page is polled every 50 ms), the
same bytes each way on both sides (byte i = i % 251), checked by SHA-256. --runs sessions of each,
alternating. Writes page-results.json into $RELAY_VM_OUT; page_report.py makes the table.
"""
import argparse
import hashlib
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guest_bench import LOCAL_BIN, MIB, OUT, REPO, install_binaries, launch, log, write_sessions  # noqa: E402
import guest_bench  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "scenarios", "vm"))
from browser import BrowserError, Chromium, RelayPage  # noqa: E402

from relay_driver import WaitFailed  # noqa: E402

PROFILE = "laptop"


def pattern(size):
    return bytes(i % 251 for i in range(size))


def peripheral_on_hci1(logs):
    arguments = [os.path.join(LOCAL_BIN, "relay-peripheral"), "--adapter", "hci1", "--json", "--lane", "gatt",
                 "--max-message", str(2 * MIB)]
    process = launch("peripheral", arguments, logs)
    process.send("start\n")
    process.wait("advertising", timeout=60)
    return process


def transfer(size, path, sha, start, arrived, timeout):
    """Seconds from START() (its stamp) until ARRIVED(timeout) gives (stamp, sha256, length)."""
    begun = start()
    stamp, digest, length = arrived(timeout)
    if digest != sha or length != size:
        raise WaitFailed(f"the {size} bytes arrived changed ({length} bytes, sha256 {digest})")
    return stamp - begun


def relay_central_session(size, path, sha, logs):
    peripheral = peripheral_on_hci1(logs)
    central = launch("central", [os.path.join(LOCAL_BIN, "relay-central"), "--adapter", "hci0", "--json",
                                 "--connect", "sample", "--scan-timeout", "60", "--lane", "gatt",
                                 "--max-message", str(2 * MIB)], logs)
    try:
        ready = central.wait("ready", timeout=90)
        peripheral.wait("subscribed", timeout=30)
        time.sleep(1.0)

        def received(program, since):
            def wait(timeout):
                message = program.wait("message", since, timeout=timeout)
                return message.stamp, message.get("sha256"), int(message.get("length", 0))
            return wait

        since = peripheral.mark()
        c2p = transfer(size, path, sha, lambda: central.send(f"send-file {path}\n"), received(peripheral, since), 600)
        time.sleep(1.0)
        since = central.mark()
        p2c = transfer(size, path, sha, lambda: peripheral.send(f"send-file {path}\n"), received(central, since), 600)
        return {"c2p": c2p, "p2c": p2c, "mtu": int(ready["mtu"])}
    finally:
        central.send("quit\n")
        central.wait_exit(30)
        peripheral.send("quit\n")
        peripheral.wait_exit(30)


def page_session(size, path, sha, logs):
    peripheral = peripheral_on_hci1(logs)
    browser = None
    try:
        browser = Chromium(logs, "file://" + os.path.join(REPO, "web", "relay.html"))
        page = RelayPage(browser)
        page.choose("sample")
        if not browser.wait_until("relayPage.state === 'ready'", timeout=60):
            raise WaitFailed(f"the page never became ready: {page.log()}")
        peripheral.wait("subscribed", timeout=30, protocol=2)
        time.sleep(1.0)
        since = peripheral.mark()
        make = f"Uint8Array.from({{length: {size}}}, (_, i) => i % 251)"
        browser.evaluate(f"window.benchBytes = {make}; 1")

        def at_peripheral(timeout):
            message = peripheral.wait("message", since, timeout=timeout)
            return message.stamp, message.get("sha256"), int(message.get("length", 0))

        c2p = transfer(size, path, sha, lambda: (time.monotonic(), browser.evaluate(
            "relayPage.sendBytes('bench.bin', window.benchBytes); 1"))[0], at_peripheral, 600)
        browser.wait_until("relayPage.sent[1] && relayPage.sent[1].state === 'delivered'", timeout=60)
        time.sleep(1.0)

        def in_page(timeout):
            if not browser.wait_until("relayPage.received.length >= 1", timeout=timeout, step=0.05):
                raise WaitFailed(f"the page did not list relay-peripheral's file: {page.log()}")
            stamp = time.monotonic()
            digest = browser.wait_until("relayPage.received[0].sha", timeout=30)
            return stamp, digest, int(browser.evaluate("relayPage.received[0].size"))

        p2c = transfer(size, path, sha, lambda: peripheral.send(f"send-file {path}\n"), in_page, 600)
        return {"c2p": c2p, "p2c": p2c, "mtu": browser.evaluate("relayPage.mtu")}
    except BrowserError as error:
        raise WaitFailed(str(error)) from error
    finally:
        if browser is not None:
            browser.close()
        peripheral.send("quit\n")
        peripheral.wait_exit(30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256 << 10, help="bytes each way (default 256 KiB)")
    parser.add_argument("--runs", type=int, default=2, help="sessions of each central (default 2)")
    options = parser.parse_args()
    install_binaries()
    guest_bench.AIR = (PROFILE, "")
    path = os.path.join("/tmp", "page-bench.bin")
    data = pattern(options.size)
    with open(path, "wb") as handle:
        handle.write(data)
    sha = hashlib.sha256(data).hexdigest()
    build = "debug" if "/debug" in guest_bench.BIN else "release"
    results = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "build": build, "size": options.size,
               "profile": PROFILE, "sessions": []}
    status = 0
    for run in range(options.runs):
        for side, session in (("relay-central", relay_central_session), ("page", page_session)):
            logs = os.path.join(OUT, f"page-{run + 1}-{side}")
            os.makedirs(logs, exist_ok=True)
            log(f"page bench run {run + 1}: {side}")
            guest_bench.restart_bluetooth(logs)
            try:
                result = session(options.size, path, sha, logs)
                log(f"{side}: c2p {options.size / result['c2p'] / 1024:.1f} KiB/s, "
                    f"p2c {options.size / result['p2c'] / 1024:.1f} KiB/s")
            except (WaitFailed, OSError) as problem:
                log(f"{side} FAILED: {problem}")
                result = {"error": str(problem)}
            results["sessions"].append(dict(result, side=side, run=run + 1))
            status = write_sessions("page-results.json", results)
    return status


if __name__ == "__main__":
    sys.exit(main())
