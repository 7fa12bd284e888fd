#!/usr/bin/env python3
"""Inside the bluez-vm guest: what relay-peripheral's start-up is made of.

    RELAY_BIN=... scripts/bluez-vm run --controllers 0 -- .venv/bin/python benchmarks/ble/startup_guest.py DIR...

For each folder DIR holding a relay-peripheral build (e.g. a dynamically linked one and a
--static-swift-stdlib one) it measures, from the host's 9p share and from a copy on the guest's
tmpfs (where an installed program would be: local disk): `--version` (process start alone) and
launch -> `advertising` with bluetoothd already up (`--json`, `start` typed at once), plus the
loader's own statistics (LD_DEBUG=statistics). Prints one line per measurement, and JSON at the end.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.environ.get("RELAY_REPO", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
OUT = os.environ.get("RELAY_VM_OUT", "/tmp")
REPEAT = int(os.environ.get("STARTUP_REPEAT", "5"))


def timed(arguments, env=None):
    started = time.monotonic()
    subprocess.run(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.monotonic() - started


def to_advertising(binary):
    started = time.monotonic()
    process = subprocess.Popen([binary, "--adapter", "hci0", "--json"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    process.stdin.write(b"start\n")
    first = None
    advertising = None
    for line in process.stdout:
        stamp = time.monotonic() - started
        if first is None:
            first = stamp
        if b'"advertising"' in line:
            advertising = stamp
            break
    quit_peripheral(process)
    return first, advertising


def quit_peripheral(process):
    """Types `quit` into a launched relay-peripheral and waits for it (killed after 15 s)."""
    process.stdin.write(b"quit\n")
    process.stdin.close()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def main():
    subprocess.run([os.path.join(REPO, "scripts", "vm", "guest-bluetooth"), "restart", "--controllers", "1",
                    "--logs", OUT], check=True, stdout=subprocess.DEVNULL)
    results = {"true": [timed(["/bin/true"]) for _ in range(REPEAT)]}
    print(f"/bin/true: {statistics.median(results['true']) * 1000:.0f} ms", flush=True)
    for folder in sys.argv[1:]:
        name = os.path.basename(os.path.normpath(folder))
        local = f"/tmp/startup-{name}"
        os.makedirs(local, exist_ok=True)
        shutil.copy2(os.path.join(folder, "relay-peripheral"), local)
        for place, where in (("9p", folder), ("tmpfs", local)):
            binary = os.path.join(where, "relay-peripheral")
            key = f"{name}/{place}"
            version = [timed([binary, "--version"]) for _ in range(REPEAT)]
            runs = [to_advertising(binary) for _ in range(REPEAT)]
            loader = subprocess.run([binary, "--version"], capture_output=True, text=True,
                                    env=dict(os.environ, LD_DEBUG="statistics")).stderr
            results[key] = {"version": version, "first_line": [r[0] for r in runs],
                            "advertising": [r[1] for r in runs], "ld_debug": loader}
            print(f"{key}: --version {statistics.median(version) * 1000:.0f} ms (min {min(version) * 1000:.0f}); "
                  f"launch->first line {statistics.median([r[0] for r in runs]) * 1000:.0f} ms; "
                  f"launch->advertising {statistics.median([r[1] for r in runs]) * 1000:.0f} ms "
                  f"(min {min(r[1] for r in runs) * 1000:.0f}, all {[round(r[1] * 1000) for r in runs]})", flush=True)
            print("  " + " | ".join(l.strip() for l in loader.splitlines() if "time" in l or "relocations" in l), flush=True)
    with open(os.path.join(OUT, "startup.json"), "w") as handle:
        json.dump(results, handle, indent=1)


if __name__ == "__main__":
    main()
