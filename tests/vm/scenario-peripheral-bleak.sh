#!/usr/bin/env bash
# Scenario (inside the bluez-vm guest): bleak, a central no one here wrote, against
# relay-peripheral, with the original apps' raw 4-byte counters only.
#   relay-peripheral on hci0 advertises `sample`; bleak on hci1 finds it, connects, subscribes
#   and writes counters 0, 1, 2: relay-peripheral must show exactly those, from bleak's address.
#   relay-peripheral notifies 0, 1, 2: bleak must see exactly those. Reads return the last
#   value written (02000000) and the last counter notified (02000000).
# Run: scripts/bluez-vm run -- tests/vm/scenario-peripheral-bleak.sh
# Env: RELAY_PERIPHERAL (binary), RELAY_PYTHON (python with bleak), RELAY_VM_OUT (logs).
set -uo pipefail
repo=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
peripheral=${RELAY_PERIPHERAL:-$repo/.build/debug/relay-peripheral}
python=${RELAY_PYTHON:-$repo/.venv/bin/python}
out=${RELAY_VM_OUT:-$(mktemp -d)}/scenario-peripheral-bleak
mkdir -p "$out"
fail() { echo "FAIL scenario-peripheral-bleak: $*"; echo "--- peripheral"; cat "$out/peripheral.jsonl"; echo "--- bleak"; cat "$out/bleak.log"; exit 1; }

# The peripheral's script: advertise, take the three counters, notify three, then read checks.
script=$(mktemp)
cat > "$script" <<'SCRIPT'
start
wait advertising 30
wait subscribed 90
wait counter 60
wait counter 30
wait counter 30
notify
notify
notify
sleep 8
status
SCRIPT
"$peripheral" --adapter hci0 --json < "$script" > "$out/peripheral.jsonl" 2> "$out/peripheral.err" &
peripheral_pid=$!
"$python" "$repo/tests/vm/scenario-peripheral-bleak-central.py" hci1 sample 3 > "$out/bleak.log" 2>&1
bleak_status=$?
wait "$peripheral_pid"
peripheral_status=$?

[ "$peripheral_status" = 0 ] || fail "relay-peripheral exited $peripheral_status"
[ "$bleak_status" = 0 ] || fail "bleak exited $bleak_status"
central=$(sed -n 's/^bleak: found //p' "$out/bleak.log")
counters=$(grep '"event":"counter"' "$out/peripheral.jsonl" | sed 's/.*"from":"\([^"]*\)","value":\([0-9]*\).*/\1 \2/' | tr '\n' ',')
expected="$central 0,$central 1,$central 2,"
[ "$counters" = "$expected" ] || fail "relay-peripheral showed counters '$counters', expected '$expected'"
notified=$(grep '^notified ' "$out/bleak.log" | tr '\n' ',')
[ "$notified" = "notified 0,notified 1,notified 2," ] || fail "bleak saw '$notified'"
grep -q 'bleak: read write=02000000 notify=02000000' "$out/bleak.log" || fail "reads did not return the last values"
echo "PASS scenario-peripheral-bleak"
