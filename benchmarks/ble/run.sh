#!/usr/bin/env bash
# make bench-ble: the relay pair against the Python peers (bleak central, bless peripheral) on
# the same real bluetoothd, in ONE boot of the bluez-vm guest (scripts/bluez-vm, docs/test-bed.md).
#
#   benchmarks/ble/run.sh [--no-markdown] [guest_bench.py options, e.g. --runs 1]
#
# Builds release binaries in its own scratch folder ($RELAY_BENCH_SCRATCH, default
# .build-bench-release: never rebuilt while the guest reads it), makes the Python venv, boots
# the guest, runs benchmarks/ble/guest_bench.py there (results.json in the run folder), then
# prints the table and writes it into docs/performance.md (between the ble-bench markers).
set -euo pipefail
repo=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$repo"
markdown=1
if [ "${1:-}" = --no-markdown ]; then markdown=0; shift; fi
scratch=${RELAY_BENCH_SCRATCH:-.build-bench-release}
${SWIFT:-swift} build -c release --scratch-path "$scratch" --product relay-peripheral
${SWIFT:-swift} build -c release --scratch-path "$scratch" --product relay-central
scripts/python-env.sh > /dev/null
out=$(scripts/bluez-vm outdir bench)
status=0
RELAY_BIN=$repo/$scratch/release scripts/bluez-vm run --controllers 0 --timeout "${RELAY_BENCH_TIMEOUT:-1200}" \
  --out "$out" -- "$repo/.venv/bin/python" benchmarks/ble/guest_bench.py "$@" || status=$?
[ -f "$out/results.json" ] || { echo "bench-ble: no results (guest status $status); see $out/console.log" >&2; exit 1; }
report=(python3 benchmarks/ble/report.py "$out/results.json")
[ $markdown = 1 ] && report+=(--markdown docs/performance.md)
"${report[@]}"
echo "bench-ble: logs in $out"
exit "$status"
