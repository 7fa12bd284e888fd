#!/usr/bin/env bash
# make bench-ble: the relay pair against the Python peers (bleak central, bless peripheral) on
# the same real bluetoothd, in ONE boot of the bluez-vm guest (scripts/bluez-vm, docs/test-bed.md):
# the main table (guest_bench.py) and the radio profiles (air_bench.py: relay, relay without
# acknowledgements and the peers on the laptop, phone and old radios against their capacity).
#
#   benchmarks/ble/run.sh [--no-markdown] [--release debian-12|debian-13] [guest_bench.py options, e.g. --runs 1]
#
# --release NAME: the main table only, with the installed package (make package, then
# scripts/vm/build-rootfs.sh NAME) on that clean root file system's own bluetoothd and Python
# peers, written into its own section of docs/performance.md (make bench-releases).
#
# RELAY_BENCH_PARTS=main, air, class or page (or a comma list) runs those parts only;
# RELAY_AIR_BENCH_ARGS passes options to air_bench.py (e.g. "--profiles laptop --sides relay,relay-v1"),
# RELAY_CLASS_BENCH_ARGS to class_bench.py (e.g. "--counts 1,5"), RELAY_PAGE_BENCH_ARGS to
# page_bench.py (e.g. "--runs 1").
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
release=
if [ "${1:-}" = --release ]; then release=${2:?--release needs debian-12 or debian-13}; shift 2; fi
scripts/python-env.sh > /dev/null
status=0
if [ -n "$release" ]; then
  scripts/install-deps.sh package rootfs
  scripts/package > /dev/null
  version=$(sed -n 's/.*static let package = "\(.*\)".*/\1/p' Sources/Shared/RelayApp/Program/ProgramVersion.swift)
  root=$(scripts/vm/build-rootfs.sh "$release" "dist/relay_${version}_amd64.deb")
  out=$(scripts/bluez-vm outdir "bench-$release")
  # The guest's own programs and Python (RELAY_BIN /usr/bin, relay-python: build-rootfs.sh).
  RELAY_VM_ROOT=$root RELAY_BIN=/usr/bin RELAY_PYTHON=/usr/local/bin/relay-python scripts/bluez-vm run \
    --controllers 0 --timeout "${RELAY_BENCH_TIMEOUT:-3600}" --out "$out" -e "RELAY_BENCH_PARTS=main" \
    -- benchmarks/ble/guest_all.sh "$@" || status=$?
else
  scratch=${RELAY_BENCH_SCRATCH:-.build-bench-release}
  ${SWIFT:-swift} build -c release --scratch-path "$scratch" --product relay-peripheral
  ${SWIFT:-swift} build -c release --scratch-path "$scratch" --product relay-central
  out=$(scripts/bluez-vm outdir bench)
  RELAY_BIN=$repo/$scratch/release RELAY_PYTHON=$repo/.venv/bin/python scripts/bluez-vm run --controllers 0 \
    --timeout "${RELAY_BENCH_TIMEOUT:-3600}" --out "$out" -e "RELAY_BENCH_PARTS=${RELAY_BENCH_PARTS:-main,air,class,page}" \
    -e "RELAY_AIR_BENCH_ARGS=${RELAY_AIR_BENCH_ARGS:-}" -e "RELAY_CLASS_BENCH_ARGS=${RELAY_CLASS_BENCH_ARGS:-}" \
    -e "RELAY_PAGE_BENCH_ARGS=${RELAY_PAGE_BENCH_ARGS:-}" -- benchmarks/ble/guest_all.sh "$@" || status=$?
fi
# The raw figures of every table written into docs/performance.md stay beside it.
day=$(date +%F)
keep() { mkdir -p benchmarks/ble/results && cp "$1" "benchmarks/ble/results/$2" && echo "benchmarks/ble/results/$2"; }
if [ -f "$out/results.json" ]; then
  report=(python3 benchmarks/ble/report.py "$out/results.json")
  [ $markdown = 1 ] && report+=(--markdown docs/performance.md --raw "$(keep "$out/results.json" "bench-$day-${release:-main}.json")")
  [ -n "$release" ] && report+=(--release "$release")
  "${report[@]}"
fi
if [ -f "$out/air-results.json" ]; then
  report=(python3 benchmarks/ble/air_report.py "$out/air-results.json")
  [ $markdown = 1 ] && report+=(--markdown docs/performance.md --raw "$(keep "$out/air-results.json" "bench-$day-air.json")")
  "${report[@]}"
fi
if [ -f "$out/class-results.json" ]; then
  report=(python3 benchmarks/ble/class_report.py "$out/class-results.json")
  [ $markdown = 1 ] && report+=(--markdown docs/performance.md --raw "$(keep "$out/class-results.json" "bench-$day-class.json")")
  "${report[@]}"
fi
if [ -f "$out/page-results.json" ]; then
  report=(python3 benchmarks/ble/page_report.py "$out/page-results.json")
  [ $markdown = 1 ] && report+=(--markdown docs/performance.md --raw "$(keep "$out/page-results.json" "bench-$day-page.json")")
  "${report[@]}"
fi
[ -f "$out/results.json" ] || [ -f "$out/air-results.json" ] || [ -f "$out/class-results.json" ] ||
  [ -f "$out/page-results.json" ] ||
  { echo "bench-ble: no results (guest status $status); see $out/console.log" >&2; exit 1; }
echo "bench-ble: logs in $out"
exit "$status"
