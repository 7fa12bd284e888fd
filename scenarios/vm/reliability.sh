#!/usr/bin/env bash
# Boots the real-BlueZ VM N times in a row (default 20), running the smoke test each time,
# and prints the pass count and the timings: boot to every controller powered (guest
# uptime), the smoke test alone, and the whole host-side cycle (median, min, max).
#   scenarios/vm/reliability.sh [N]        (make vm-reliability)
# Each run's logs stay in its own folder under the bluez-vm cache (printed at the end).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
runs=${1:-20}
scripts/python-env.sh > /dev/null
folders=()
passed=0
for ((run = 1; run <= runs; run++)); do
  out=$(scripts/bluez-vm outdir reliability)
  folders+=("$out")
  status=0
  scripts/bluez-vm run --out "$out" --timeout 300 -- scenarios/vm/smoke.sh > "$out/host.log" 2>&1 || status=$?
  [ $status = 0 ] && passed=$((passed + 1))
  printf 'run %2d: status %3d  %s\n' "$run" "$status" "$(tr '\n' ' ' < "$out/timings")"
done
echo "$passed of $runs runs passed; logs: ${folders[0]%/*}/reliability-*"
python3 - "${folders[@]}" <<'PY'
import statistics, sys

def timings(folder):
    values = {}
    try:
        for line in open(f"{folder}/timings"):
            key, _, value = line.strip().partition("=")
            values.setdefault(key, float(value))
    except OSError:
        pass
    return values

rows = {"boot to powered (s)": [], "smoke test (s)": [], "whole cycle (s)": []}
for folder in sys.argv[1:]:
    t = timings(folder)
    if "bluetooth_powered" in t:
        rows["boot to powered (s)"].append(t["bluetooth_powered"])
    if "command_start" in t and "command_end" in t:
        rows["smoke test (s)"].append(t["command_end"] - t["command_start"])
    if "host_cycle" in t:
        rows["whole cycle (s)"].append(t["host_cycle"])
print(f"{'measure':<22} {'median':>7} {'min':>7} {'max':>7} {'n':>3}")
for name, values in rows.items():
    if values:
        print(f"{name:<22} {statistics.median(values):7.2f} {min(values):7.2f} {max(values):7.2f} {len(values):3d}")
PY
[ $passed = "$runs" ]
