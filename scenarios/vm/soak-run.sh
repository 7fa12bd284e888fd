#!/usr/bin/env bash
# make soak: builds, then runs scenarios/vm/soak.py in one boot of the real-BlueZ VM (scripts/bluez-vm)
# and prints its figures. SOAK_COUNTERS, SOAK_MESSAGES, SOAK_MAX_BYTES and SOAK_RSS_SLACK_KIB pass
# through, and SOAK_STALL, SOAK_KEEP_FIFO, SOAK_MAX_SECONDS, SOAK_WINDOW, SOAK_CENTRAL_ARGS (see scenarios/vm/soak.py; RELAY_SCRATCH_PATH selects the build
# folder, default .build).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
scratch=${RELAY_SCRATCH_PATH:-.build}
${SWIFT:-swift} build --scratch-path "$scratch"
scripts/python-env.sh > /dev/null
env=()
for name in SOAK_COUNTERS SOAK_MESSAGES SOAK_MAX_BYTES SOAK_RSS_SLACK_KIB SOAK_STALL SOAK_KEEP_FIFO SOAK_MAX_SECONDS SOAK_WINDOW SOAK_CENTRAL_ARGS; do
  [ -n "${!name:-}" ] && env+=(-e "$name=${!name}")
done
out=$(scripts/bluez-vm outdir soak)
status=0
RELAY_BIN=$repo/$scratch/debug scripts/bluez-vm run --controllers 0 --timeout 7400 --out "$out" "${env[@]}" -- \
  scenarios/vm/guest-runner.sh scenarios/vm/soak.py || status=$?
cat "$out/soak/figures" 2>/dev/null || true
exit $status
