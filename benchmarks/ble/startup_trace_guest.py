#!/usr/bin/env python3
"""Inside the bluez-vm guest: relay-peripheral's start-up, step by step, for several builds.

    scripts/bluez-vm run --controllers 0 -- .venv/bin/python benchmarks/ble/startup_trace_guest.py DIR...

Each DIR holds a relay-peripheral build. Each is copied to the guest's tmpfs (like an installed
program), then launched STARTUP_REPEAT times (default 7), the builds interleaved, with bluetoothd
idle (2 s after it started, as guest_bench.py does), exactly as `make bench` launches it
(`--adapter hci0 --json`, `start` typed at once), with RELAY_TRACE_STARTUP=1: the program prints
`startup-trace <ms since process start> <step>` on stderr. Prints each launch's steps, then
per build the median of each step and of launch -> `advertising` as the parent sees it
(the figure `make bench` reports).
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

from startup_guest import quit_peripheral

REPO = os.environ.get("RELAY_REPO", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
OUT = os.environ.get("RELAY_VM_OUT", "/tmp")
REPEAT = int(os.environ.get("STARTUP_REPEAT", "7"))


def launch(binary):
    env = dict(os.environ, RELAY_TRACE_STARTUP="1")
    started = time.monotonic()
    process = subprocess.Popen([binary, "--adapter", "hci0", "--json"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0, env=env)
    process.stdin.write(b"start\n")
    advertising = None
    for line in process.stdout:
        if b'"advertising"' in line:
            advertising = time.monotonic() - started
            break
        if b'"error"' in line:
            print("  error:", line.decode().strip(), flush=True)
            break
    quit_peripheral(process)
    steps = []
    for line in process.stderr.read().decode(errors="replace").splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[0] == "startup-trace":
            steps.append((parts[2], float(parts[1])))
    time.sleep(0.5)  # let bluetoothd finish the unregistration
    return advertising, steps


def main():
    subprocess.run([os.path.join(REPO, "scripts", "vm", "guest-bluetooth"), "restart", "--controllers", "1",
                    "--logs", OUT], check=True, stdout=subprocess.DEVNULL)
    time.sleep(2.0)
    builds = []
    for folder in sys.argv[1:]:
        name = os.path.basename(os.path.normpath(folder))
        local = f"/tmp/startup-trace-{name}"
        os.makedirs(local, exist_ok=True)
        shutil.copy2(os.path.join(folder, "relay-peripheral"), local)
        builds.append((name, os.path.join(local, "relay-peripheral")))
    for _, binary in builds:  # warm the page cache
        subprocess.run([binary, "--version"], stdout=subprocess.DEVNULL, check=False)
    results = {name: [] for name, _ in builds}
    for run in range(REPEAT):
        for name, binary in builds:
            advertising, steps = launch(binary)
            results[name].append((advertising, steps))
            shown = "; ".join(f"{step} {ms:.0f}" for step, ms in steps)
            print(f"{name} #{run + 1}: advertising {advertising * 1000 if advertising else float('nan'):.0f} ms"
                  f" | {shown}", flush=True)
    for name, runs in results.items():
        seen = []
        for _, steps in runs:
            for step, _ in steps:
                if step not in seen:
                    seen.append(step)
        print(f"== {name}: median of {len(runs)} launches (ms since process start)")
        for step in seen:
            values = [dict(steps).get(step) for _, steps in runs]
            values = [v for v in values if v is not None]
            print(f"  {statistics.median(values):8.1f}  {step}  (n={len(values)}, min {min(values):.0f},"
                  f" max {max(values):.0f})")
        ads = [a for a, _ in runs if a is not None]
        if ads:
            print(f"  launch -> advertising (parent): median {statistics.median(ads) * 1000:.0f} ms, "
                  f"all {[round(a * 1000) for a in ads]}", flush=True)


if __name__ == "__main__":
    main()
