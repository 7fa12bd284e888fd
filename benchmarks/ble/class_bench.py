#!/usr/bin/env python3
"""Inside the bluez-vm guest: the whole class (issue 47), one presenter's relay-peripheral and 1, 5
and 15 relay-centrals on one btvirt (laptop radio, one radio per controller).

Started by benchmarks/ble/run.sh (part `class`, after the main table and the radio profiles, same
boot). For each class size N, a fresh bluetoothd with N+1 controllers: relay-peripheral on hci0
(--echo, relay's 100 ms advertising), N relay-centrals scanning before its `start`, all dialling
at once, as scenarios/vm/scenario-class.py does. Measured: the time from `start` until all N are
`ready` (how many `connect` attempts were dialled again, `redial`, and how many `connect`s had to be
typed again, as a person would, once their 20 s of dialling were over); --trips counter round trips from the first central
(its counter echoed by the peripheral, heard by all N); a FILE-KiB `send-file` from the presenter
to all N (seconds until the last `delivered`, and each central's own from the command to its
`message`); relay-peripheral's CPU seconds during the file and its RSS before the centrals came
and with them. Then N=15 once more with `--advertising-interval 1280` (bluetoothd's own default):
the time until all are in only. Writes class-results.json into $RELAY_VM_OUT; class_report.py
makes the table (ratios against N=1 of the same run).
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guest_bench import BIN, LOCAL_BIN, OUT, REPO, install_binaries, launch, log, write_sessions  # noqa: E402

from relay_driver import WaitFailed  # noqa: E402

LAPTOP = "laptop"


def restart(controllers, logs):
    subprocess.run([os.path.join(REPO, "scripts", "vm", "guest-bluetooth"), "restart", "--controllers",
                    str(controllers), "--logs", logs, "--air", LAPTOP], check=True, stdout=subprocess.DEVNULL)
    time.sleep(2.0)


def join(centrals, deadline):
    """Waits until every central is `connected`, typing `connect 0` again for one whose `connect`
    failed (its 20 s of dialling over), as a person would; how many times that was needed."""
    retyped = 0
    seen = {id(central): 0 for central in centrals}
    while time.monotonic() < deadline:
        waiting = [central for central in centrals if not central.select("connected")]
        if not waiting:
            return retyped
        for central in waiting:
            failed = central.select("error", seen[id(central)], where=lambda e: e.get("command") == "connect")
            if failed:
                seen[id(central)] = failed[-1].index + 1
                central.send("connect 0\n")
                retyped += 1
        time.sleep(0.5)
    raise WaitFailed(f"{sum(1 for c in centrals if not c.select('connected'))} centrals not connected in time")


def session(count, options, logs, interval=None, join_only=False):
    """One class of COUNT centrals; the measures as a dict."""
    os.makedirs(logs, exist_ok=True)
    restart(count + 1, logs)
    result = {"centrals": count, "interval": interval or 100}
    arguments = [os.path.join(LOCAL_BIN, "relay-peripheral"), "--adapter", "hci0", "--json", "--echo"]
    if interval:
        arguments += ["--advertising-interval", str(interval)]
    peripheral = launch("peripheral", arguments, logs)
    centrals = []
    try:
        peripheral.wait("state", timeout=60)
        time.sleep(1.0)
        result["rss_alone_kib"] = peripheral.memory("VmRSS")
        for k in range(1, count + 1):
            central = launch(f"c{k}", [os.path.join(LOCAL_BIN, "relay-central"), "--adapter", f"hci{k}", "--json",
                                       "--scan-timeout", "120"], logs)
            central.send("wait state 60\nscan\n")
            centrals.append(central)
        for central in centrals:
            central.wait("scanning", timeout=90)
        started = peripheral.send("start\n")
        peripheral.wait("advertising", timeout=60)
        for central in centrals:
            central.wait("discovered", timeout=120)
        for central in centrals:
            central.send("connect 0\n")
        result["retyped"] = join(centrals, time.monotonic() + 180)
        ready = [central.wait("ready", timeout=120, protocol=2).stamp for central in centrals]
        result["join_seconds"] = max(ready) - started
        result["first_ready_seconds"] = min(ready) - started
        result["redials"] = sum(len(central.select("redial")) for central in centrals)
        if join_only:
            return result
        for central in centrals:
            central.wait("lane", timeout=30, state="open")
        time.sleep(2.0)
        result["rss_kib"] = peripheral.memory("VmRSS")
        # Counter round trips from the first central, the others linked and listening.
        trips = []
        first = centrals[0]
        for value in range(options.warmup + options.trips):
            mark = first.mark()
            begun = first.send(f"write {100_000 + value}\n")
            echo = first.wait("counter", mark, timeout=20, where=lambda e, v=value: e.get("value") == 100_000 + v)
            if value >= options.warmup:
                trips.append(echo.stamp - begun)
        result["round_trips"] = trips
        time.sleep(1.0)
        # The presenter's file to everyone.
        path = os.path.join(logs, "handout.bin")
        with open(path, "wb") as handle:
            handle.write(os.urandom(options.file_kib * 1024))
        marks = [central.mark() for central in centrals]
        mark = peripheral.mark()
        cpu_before = peripheral.cpu()
        begun = peripheral.send(f"send-file {path}\n")
        arrived = [central.wait("message", since, timeout=600).stamp - begun for central, since in zip(centrals, marks)]
        delivered = []
        index = mark
        for _ in centrals:
            event = peripheral.wait("delivered", index, timeout=600)
            delivered.append(event.stamp - begun)
            index = event.index + 1
        result["file_kib"] = options.file_kib
        result["file_seconds"] = max(delivered)
        result["file_arrived"] = arrived
        result["file_cpu_seconds"] = peripheral.cpu() - cpu_before
        result["lanes_closed"] = len(peripheral.select("lane", mark, where=lambda e: e.get("state") == "closed"))
        return result
    finally:
        for central in centrals:
            central.send("quit\n")
        for central in centrals:
            central.wait_exit(30)
        peripheral.send("quit\n")
        peripheral.wait_exit(30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="1,5,15", help="class sizes (default 1,5,15)")
    parser.add_argument("--file-kib", type=int, default=64, help="the presenter's file (default 64 KiB)")
    parser.add_argument("--trips", type=int, default=20, help="counter round trips measured (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="round trips not measured first (default 3)")
    parser.add_argument("--no-slow-join", action="store_true", help="skip the 1.28 s advertising join")
    options = parser.parse_args()
    install_binaries()
    build = "debug" if "/debug" in BIN else "release"
    results = {"sessions": [], "started": time.strftime("%Y-%m-%d %H:%M:%S"), "build": build}
    counts = [int(part) for part in options.counts.split(",")]
    for count in counts:
        log(f"class of {count}")
        try:
            results["sessions"].append(session(count, options, os.path.join(OUT, f"class-{count}")))
        except (WaitFailed, OSError) as problem:
            results["sessions"].append({"centrals": count, "interval": 100, "error": str(problem)})
    if not options.no_slow_join:
        log(f"class of {max(counts)} at 1.28 s")
        try:
            results["sessions"].append(session(max(counts), options, os.path.join(OUT, "class-slow"), interval=1280,
                                               join_only=True))
        except (WaitFailed, OSError) as problem:
            results["sessions"].append({"centrals": max(counts), "interval": 1280, "error": str(problem)})
    return write_sessions("class-results.json", results)


if __name__ == "__main__":
    sys.exit(main())
