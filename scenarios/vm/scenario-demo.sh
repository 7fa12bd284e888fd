#!/usr/bin/env bash
# Scenario (inside the bluez-vm guest): `make demo-auto` works. Runs the very script the
# demo uses, scripts/demo-flow: relay-peripheral on hci0 advertises, relay-central on hci1
# scans, connects and subscribes, writes counters 0, 1, 2 (the peripheral must show exactly
# those), the peripheral notifies 0, 1, 2 (the central must show exactly those), `send hello`
# crosses both ways, and both programs exit 0. The transcript is in transcript.txt (and output.log);
# each program's JSON lines are in demo/.
# vm-controllers: 2
# vm-timeout: 180
# Run: scenarios/vm/run-scenarios.sh demo   (or scripts/bluez-vm run -- scenarios/vm/scenario-demo.sh)
source "$(dirname "$0")/lib.sh"
status=0
"$RELAY_REPO/scripts/demo-flow" --bin "$bin" --log-dir "$out/demo" | tee "$out/transcript.txt" || status=$?
[ $status = 0 ] || fail "scripts/demo-flow exited $status: $(grep -m 1 '^FAIL' "$out/transcript.txt" || echo 'no reason printed')"
