#!/usr/bin/env python3
"""Inside the bluez-vm guest: where a round trip's time goes, relay pair against the peers.

    RELAY_BIN=... scripts/bluez-vm run --controllers 0 -- .venv/bin/python benchmarks/ble/rtt_guest.py [N]

Runs the echo job of guest_bench.py (the central writes a counter, the peripheral notifies it
back) N times per side with btmon recording, then places each round trip's four air packets
(btmon's HCI timestamps: central's Write Command out on hci1, in on hci0, the peripheral's
Handle Value Notification out on hci0, in on hci1) between the driver's own stamps. Segments:
  central out : driver writes the command -> Write Command leaves hci1 (central program, bluetoothd)
  air out     : hci1 TX -> hci0 RX (kernel, btvirt)
  peripheral  : hci0 RX -> Notification leaves hci0 (bluetoothd, D-Bus, peripheral program)
  air back    : hci0 TX -> hci1 RX
  central in  : hci1 RX -> the driver reads the counter event (bluetoothd, D-Bus, central program)
Prints the median of each segment per side and writes rtt.json into $RELAY_VM_OUT.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest_bench as bench  # noqa: E402

STAMP = re.compile(r"\[(hci\d)\] (?:\d{4}-\d\d-\d\d )?(\d\d):(\d\d):(\d\d\.\d+)")


def seconds_of_day(wall):
    local = time.localtime(wall)
    return local.tm_hour * 3600 + local.tm_min * 60 + local.tm_sec + (wall % 1)


def air_packets(snoop):
    """(seconds of day, hci, direction, kind, data hex) of every ATT write command / notification."""
    text = subprocess.run(["btmon", "-t", "-r", snoop], capture_output=True, text=True).stdout
    packets, current = [], None
    for line in text.splitlines():
        match = STAMP.search(line)
        if match and ("ACL Data" in line):
            hci, hours, minutes, seconds = match.groups()
            current = [int(hours) * 3600 + int(minutes) * 60 + float(seconds), hci,
                       "tx" if line.lstrip().startswith("<") else "rx", None, None]
            continue
        if current is None:
            continue
        stripped = line.strip()
        if stripped.startswith("ATT: Write Command"):
            current[3] = "write"
        elif stripped.startswith("ATT: Handle Value Notification"):
            current[3] = "notify"
        elif stripped.startswith("Data:") and current[3]:
            current[4] = stripped.split(":", 1)[1].strip().replace(" ", "")
            packets.append(tuple(current))
            current = None
    return packets


def run_side(side, out, count):
    # On the guest's tmpfs: btmon's trace on the 9p output share came out cut short.
    logs = f"/tmp/rtt-{side.name}"
    os.makedirs(logs, exist_ok=True)
    subprocess.run([os.path.join(bench.REPO, "scripts", "vm", "guest-bluetooth"), "restart", "--controllers", "2",
                    "--btmon", "--logs", logs], check=True, stdout=subprocess.DEVNULL)
    time.sleep(bench.SETTLE)
    offset = time.time() - time.monotonic()  # monotonic driver stamps -> wall clock (btmon's)
    peripheral, _ = side.peripheral(logs, echo=True)
    central = None
    trips = []
    try:
        central, _, _ = side.central(logs)
        peripheral.wait("subscribed", timeout=30)
        time.sleep(0.5)
        for value in range(count):
            since = central.mark()
            started = side.write(central, value)
            stamp, _ = central.wait("counter", since, timeout=10, where=lambda event: event.get("value") == value)
            trips.append((value, started + offset, stamp + offset))
            time.sleep(0.05)
    finally:
        if central is not None:
            central.stop()
        peripheral.stop()
    subprocess.run([os.path.join(bench.REPO, "scripts", "vm", "guest-bluetooth"), "down"], stdout=subprocess.DEVNULL)
    shutil.copytree(logs, os.path.join(out, f"rtt-{side.name}"), dirs_exist_ok=True)
    packets = air_packets(os.path.join(logs, "btmon.snoop"))
    segments = {"central out": [], "air out": [], "peripheral": [], "air back": [], "central in": [], "total": []}
    for value, started, ended in trips[5:]:
        data = value.to_bytes(4, "little").hex()
        def find(hci, direction, kind):
            for stamp, p_hci, p_direction, p_kind, p_data in packets:
                if (p_hci, p_direction, p_kind, p_data) == (hci, direction, kind, data):
                    return stamp
            return None
        marks = [seconds_of_day(started), find("hci1", "tx", "write"), find("hci0", "rx", "write"),
                 find("hci0", "tx", "notify"), find("hci1", "rx", "notify"), seconds_of_day(ended)]
        if None in marks:
            continue
        for name, (a, b) in zip(list(segments)[:5], zip(marks, marks[1:])):
            segments[name].append(b - a)
        segments["total"].append(marks[-1] - marks[0])
    summary = {name: statistics.median(values) * 1000 if values else None for name, values in segments.items()}
    print(f"{side.name}: {len(segments['total'])} round trips placed; median ms: "
          + ", ".join(f"{name} {value:.1f}" for name, value in summary.items() if value is not None), flush=True)
    return {"summary_ms": summary, "segments": segments}


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 45
    bench.install_binaries()
    files = {"central": None, "peripheral": None, "sha256": {"c2p": None, "p2c": None}}
    results = {}
    for side in (bench.RelaySide("relay", files), bench.PeerSide("peers", files)):
        try:
            results[side.name] = run_side(side, bench.OUT, count)
        except Exception as error:
            print(f"{side.name} FAILED: {error!r}", flush=True)
    with open(os.path.join(bench.OUT, "rtt.json"), "w") as handle:
        json.dump(results, handle, indent=1)


if __name__ == "__main__":
    main()
