#!/usr/bin/env bash
# Runs every scenarios/vm/scenario-*.py and scenario-*.sh inside ONE boot of the real-BlueZ VM (scripts/bluez-vm),
# each on a fresh bluetoothd, prints PASS/FAIL per scenario and the closing line
# "N passed, M failed", and exits non-zero when any failed (or did not run).
#
#   scenarios/vm/run-scenarios.sh [--out DIR] [--btmon] [--no-build] [--air PROFILE]
#                                 [--air-extra SPEC] [FILTER...]
#
# --air and --air-extra set the radio of the scenarios that do not choose their own (# vm-air:,
# docs/test-bed.md; the same as RELAY_VM_AIR and RELAY_VM_AIR_EXTRA).
# FILTER keeps the scenarios whose file name contains one of the words. Builds the debug
# executables first (never while a guest runs: the guest reads them over 9p with
# cache=loose) in $RELAY_SCRATCH_PATH (default .build) and creates the Python venv. With
# RELAY_BIN set (and --no-build), the scenarios run the executables in that folder instead
# (a release build, say).
# Each scenario's logs stay in OUT/<name>/ (output.log, bluetoothd.log, its own files).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
out="" btmon=0 build=1 filters=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --btmon) btmon=1; shift ;;
    --no-build) build=0; shift ;;
    --air) export RELAY_VM_AIR=$2; shift 2 ;;
    --air-extra) export RELAY_VM_AIR_EXTRA=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) filters+=("$1"); shift ;;
  esac
done

scenarios=()
for file in scenarios/vm/scenario-*; do
  case $file in *.sh | *.py) ;; *) continue ;; esac
  if [ ${#filters[@]} -gt 0 ]; then
    keep=0
    for word in "${filters[@]}"; do [[ "$(basename "$file")" == *"$word"* ]] && keep=1; done
    [ $keep = 1 ] || continue
  fi
  scenarios+=("$file")
done
[ ${#scenarios[@]} -gt 0 ] || { echo "run-scenarios: no scenario matches" >&2; exit 1; }

scratch=${RELAY_SCRATCH_PATH:-.build}
if [ $build = 1 ]; then
  ${SWIFT:-swift} build --scratch-path "$scratch"
fi
export RELAY_BIN=${RELAY_BIN:-$repo/$scratch/debug}
scripts/python-env.sh > /dev/null

[ -n "$out" ] || out=$(scripts/bluez-vm outdir scenarios)
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
rm -f "$out/results"
# The watchdog allows every scenario its own timeout plus about 40 s of Bluetooth restart.
budget=120
for file in "${scenarios[@]}"; do
  seconds=$(sed -n 's/^# vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$file" | head -n 1)
  budget=$((budget + ${seconds:-300} + 40))
done
export RELAY_VM_BTMON=$btmon
# The test bed's setup (host packages, kernel, btvirt) first, on its own: a setup that fails is
# reported as what it is, never as a guest that stopped. The harness's own lines (bluez-vm: ...,
# install-deps: ..., build-btvirt: ...) are kept to say why a scenario did not run.
noting() { # file command... -> the command's status; its stderr shown and also kept in file
  local file=$1
  shift
  { "$@" 2>&1 1>&3 3>&-; echo $? > "$file.status"; } 3>&1 | tee "$file" >&2
  return "$(cat "$file.status")"
}
status=0 why=""
if ! noting "$out/setup.err" scripts/bluez-vm setup; then
  why="the test bed could not be set up: $(grep -E '^(bluez-vm|install-deps|build-btvirt): ' "$out/setup.err" | tail -n 1)"
else
  noting "$out/harness.err" scripts/bluez-vm run --controllers 0 --timeout "$budget" --out "$out" -- \
    scenarios/vm/guest-runner.sh "${scenarios[@]}" || status=$?
  case $status in
    0) ;;
    124) why="the watchdog stopped the guest after $budget s; see $out/console.log" ;;
    125) why="the test bed failed: $(grep '^bluez-vm: ' "$out/harness.err" | tail -n 1); see $out/vm.log" ;;
    *) why="the guest stopped (status $status); see $out/console.log" ;;
  esac
fi

passed=$(grep -c '^PASS' "$out/results" 2>/dev/null || true)
failed=$(grep -c '^FAIL' "$out/results" 2>/dev/null || true)
missing=$((${#scenarios[@]} - ${passed:-0} - ${failed:-0}))
if [ $missing -gt 0 ]; then
  echo "$missing scenario(s) did not run: ${why:-the guest stopped (status $status)}"
  [ -n "$why" ] || status=1
fi
echo "${passed:-0} passed, $((${failed:-0} + missing)) failed"
[ "${failed:-0}" = 0 ] && [ $missing = 0 ] && [ $status = 0 ]
