#!/usr/bin/env python3
"""Inside the bluez-vm guest: relay and the Python peers on the test bed's radio profiles.

Started by benchmarks/ble/run.sh after guest_bench.py (same boot). For each profile (laptop,
phone, old: docs/test-bed.md) and side, one session on a fresh bluetoothd whose btvirt runs
that profile: start-up, 1000 counters central -> peripheral (time, lost), --round-trips
counter round trips (the peripheral echoes), then SIZE bytes each way (goodput from the
driver's command to the receiver's `message`, or the peers' raw `received`), then for relay
SIZE each way started together (both ways at once: each direction's goodput and finish time), and
--message-trips short messages each acknowledged before the next (send to `delivered`). Sides:
relay (protocol 2, delivery confirmed, on GATT), relay-lane (both programs --lane l2cap: protocol
2 on an L2CAP channel), relay-v1 (both programs --protocol 1: the same transfers without
acknowledgements) and the peers (bleak, bless: raw chunks). CPU seconds of each program, of
bluetoothd and of dbus-daemon per transfer. On the laptop radio with
the ATT MTU capped at 247 (--air-extra att-mtu=247), every side once more. Writes
air-results.json into $RELAY_VM_OUT; air_report.py makes the table. --windows W1,W2 adds relay
sessions with both programs at --window W (side relay-wW) on every profile: how goodput depends on
the window (docs/performance.md).
"""
import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest_bench  # noqa: E402
from guest_bench import (MIB, OUT, PeerSide, RelaySide, bluetoothd_pid, cpu_seconds, install_binaries,  # noqa: E402
                         log, normal_scheduling, restart_bluetooth, wait_counters)

SPEC = {
    "laptop": "interval=30,events=6,octets=251,phy=1M,buffers=251x8",
    "phone": "interval=15,events=6,octets=251,phy=2M,buffers=251x8",
    "old": "interval=50,events=6,octets=27,phy=1M,buffers=27x4,att-mtu=23",
}


def dbus_daemon_pid():
    """The system bus's dbus-daemon (the guest runs one), or None."""
    found = subprocess.run(["pidof", "-s", "dbus-daemon"], capture_output=True, text=True).stdout.split()
    return int(found[0]) if found else None


def message_trips(central, count, warmup):
    """COUNT short messages from the central, each sent once the last was delivered: seconds from
    the command to its `delivered` (the data frame there, the receiver's save, its final
    acknowledgement back), after WARMUP unmeasured ones."""
    trips = []
    for index in range(warmup + count):
        mark = central.mark()
        begun = central.send(f"send trip {index}\n")
        delivered = central.wait("delivered", mark, timeout=20)
        if index >= warmup:
            trips.append(delivered.stamp - begun)
    return trips


def session(side, profile, extra, size, options, logs):
    """One session: start-up, counters, round trips, SIZE each way; the measures as a dict."""
    guest_bench.AIR = (profile, extra)
    os.makedirs(logs, exist_ok=True)
    restart_bluetooth(logs)
    daemon = bluetoothd_pid()
    result = {"side": side.name, "profile": profile, "extra": extra, "size": size}
    # bless cannot echo a burst of 1000 counters (its D-Bus library drops the bus connection on
    # EAGAIN): the peers echo from the round trips on.
    peers = isinstance(side, PeerSide)
    peripheral, result["startup_peripheral"] = side.peripheral(logs, echo=not peers)
    central = None
    try:
        central, result["startup_central"], mtu = side.central(logs)
        result["mtu"] = mtu
        ready = central.last("ready")
        result["protocol"] = ready.get("protocol") if ready else None
        result["lane"] = ready.get("lane") if ready else None
        peripheral.wait("subscribed", timeout=30)
        normal_scheduling(daemon)
        time.sleep(0.5)
        started, since = side.counters(central, peripheral, options.counters)
        result["counters"] = wait_counters(peripheral, since, started, options.counters)
        time.sleep(2)
        if peers:
            mark = peripheral.mark()
            peripheral.send("echo 1\n")
            peripheral.wait("echo", mark, timeout=10)
        trips = []
        for value in range(options.warmup + options.round_trips):
            mark = central.mark()
            begun = side.write(central, 100_000 + value)
            echo = central.wait("counter", mark, timeout=10, where=lambda event, v=value: event.get("value") == 100_000 + v)
            if value >= options.warmup:
                trips.append(echo.stamp - begun)
        result["round_trips"] = trips
        if side.name.startswith("relay") and result["protocol"] == 2 and options.message_trips:
            result["message_trips"] = message_trips(central, options.message_trips, options.warmup)
            time.sleep(0.5)
        chunk = min(mtu - 3, 510)
        bus = dbus_daemon_pid()
        processes = {"central": central, "peripheral": peripheral}
        for direction, send in (("c2p", side.send_c2p), ("p2c", side.send_p2c)):
            before = {name: process.cpu() for name, process in processes.items()}
            before["bluetoothd"] = cpu_seconds(daemon)
            if bus:
                before["dbus-daemon"] = cpu_seconds(bus)
            begun, ended, sha256, length = send(central, peripheral, size, chunk)
            after = {name: process.cpu() for name, process in processes.items()}
            after["bluetoothd"] = cpu_seconds(daemon)
            if bus:
                after["dbus-daemon"] = cpu_seconds(bus)
            expected = side.files["sha256"][direction]
            intact = ended is not None and length == size and (expected is None or sha256 == expected)
            result[f"goodput_{direction}"] = {
                "seconds": ended - begun if ended is not None else None, "intact": intact,
                "bytes_per_second": size / (ended - begun) if intact else None,
                "cpu": {name: after[name] - before[name] for name in after}}
            log(f"{side.name} {profile}{' ' + extra if extra else ''} {direction}: "
                + (f"{size / (ended - begun) / 1024:.1f} KiB/s" if intact else "LOST"))
            time.sleep(0.5)
        if side.name.startswith("relay") and options.both_ways == "yes":
            result["both_ways"] = both_ways(side, central, peripheral, size)
            time.sleep(0.5)
        result["hwm_kib"] = {name: process.memory("VmHWM") for name, process in processes.items()}
        for process, name in ((central, "central"), (peripheral, "peripheral")):
            status = None
            if side.name.startswith("relay"):
                mark = process.mark()
                process.send("status\n")
                try:
                    status = process.wait("status", mark, timeout=10)
                except Exception:  # noqa: BLE001 - a missing status is reported as null
                    status = None
            result[f"delivery_{name}"] = status.get("delivery") if status else None
        log(f"{side.name} {profile}: RTT median {statistics.median(trips) * 1000:.1f} ms, "
            f"counters {result['counters']['seconds']:.2f} s ({result['counters']['lost']} lost)")
    finally:
        if central is not None:
            central.stop()
        peripheral.stop()
    return result


def both_ways(side, central, peripheral, size):
    """SIZE each way, both `send-file` commands typed together: per direction the goodput from its
    own command to its receiver's `message`, and when it finished (seconds after the first command)."""
    at_peripheral, at_central = peripheral.mark(), central.mark()
    started = {"c2p": central.send(f"send-file {side.files['central']}\n"),
               "p2c": peripheral.send(f"send-file {side.files['peripheral']}\n")}
    first = min(started.values())
    outcome = {}
    for direction, receiver, since in (("c2p", peripheral, at_peripheral), ("p2c", central, at_central)):
        _, ended, sha256, length = side._finish(started[direction], receiver, since)
        intact = ended is not None and length == size and sha256 == side.files["sha256"][direction]
        outcome[direction] = {
            "seconds": ended - started[direction] if ended is not None else None, "intact": intact,
            "bytes_per_second": size / (ended - started[direction]) if intact else None,
            "finished_after": ended - first if ended is not None else None}
        log(f"{side.name} both ways {direction}: "
            + (f"{size / (ended - started[direction]) / 1024:.1f} KiB/s, done at {ended - first:.1f} s"
               if intact else "LOST"))
    return outcome


def files_of(size):
    files = {}
    for role in ("central", "peripheral"):
        path = f"/tmp/air-{role}-{size}.bin"
        data = os.urandom(size)
        with open(path, "wb") as handle:
            handle.write(data)
        files[role] = path
        files.setdefault("sha256", {})["c2p" if role == "central" else "p2c"] = hashlib.sha256(data).hexdigest()
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profiles", default="laptop,phone,old")
    parser.add_argument("--size", type=int, default=MIB, help="bytes each way on laptop and phone")
    parser.add_argument("--old-size", type=int, default=16 << 10, help="bytes each way on the old radio")
    parser.add_argument("--counters", type=int, default=1000)
    parser.add_argument("--round-trips", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--sides", default="relay,relay-lane,relay-v1,peers")
    parser.add_argument("--message-trips", type=int, default=20, help="relay sides: short messages, each delivered")
    parser.add_argument("--mtu247", choices=("yes", "no"), default="yes")
    parser.add_argument("--windows", default="", help="comma-separated --window sizes for extra relay sessions")
    parser.add_argument("--both-ways", choices=("yes", "no"), default="yes",
                        help="relay sides: SIZE each way started together after the one-way transfers")
    options = parser.parse_args()
    install_binaries()
    started = time.monotonic()
    plan = []
    for profile in options.profiles.split(","):
        size = options.old_size if profile == "old" else options.size
        plan += [(side, profile, "", size) for side in options.sides.split(",") if side]
        plan += [(f"relay-w{window}", profile, "", size) for window in options.windows.split(",") if window]
    if options.mtu247 == "yes" and "laptop" in options.profiles.split(","):
        plan += [(side, "laptop", "att-mtu=247", options.size) for side in options.sides.split(",") if side]
    results = []
    for index, (name, profile, extra, size) in enumerate(plan):
        files = files_of(size)
        if name == "relay":
            side = RelaySide("relay", files, size=size)
        elif name == "relay-lane":
            lane = ["--lane", "l2cap"]
            side = RelaySide("relay-lane", files, central_options=lane, peripheral_options=lane, size=size)
        elif name == "relay-v1":
            side = RelaySide("relay-v1", files, central_options=["--protocol", "1"],
                             peripheral_options=["--protocol", "1"], size=size)
        elif name.startswith("relay-w"):
            window = ["--window", name[len("relay-w"):]]
            side = RelaySide(name, files, central_options=window, peripheral_options=window, size=size)
        else:
            side = PeerSide("peers", dict(files, sha256={"c2p": None, "p2c": None}), size=size)
        logs = os.path.join(OUT, f"air-{index + 1:02d}-{name}-{profile}{'-mtu247' if extra else ''}")
        log(f"air session {index + 1}/{len(plan)}: {name} on {profile} {extra}")
        try:
            result = session(side, profile, extra, size, options, logs)
        except Exception as error:  # a failed session is reported, the others still run
            log(f"{name} {profile} FAILED: {error!r}")
            result = {"side": name, "profile": profile, "extra": extra, "size": size, "error": str(error)}
        result["spec"] = SPEC[profile] + ("," + extra if extra else "")
        results.append(result)
        with open(os.path.join(OUT, "air-results.json.partial"), "w") as handle:
            json.dump({"seconds": time.monotonic() - started, "options": vars(options), "sessions": results}, handle,
                      indent=1)
        os.replace(os.path.join(OUT, "air-results.json.partial"), os.path.join(OUT, "air-results.json"))
    return 1 if any("error" in result for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
