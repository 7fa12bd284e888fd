#!/usr/bin/env bash
# Scenario (inside the bluez-vm guest): bleak, a central no one here wrote, against
# relay-peripheral, speaking only the original apps' raw 4-byte counters.
#   relay-peripheral on hci0 advertises `sample`; bleak on hci1 finds it, connects, subscribes
#   and writes counters 0, 1, 2: relay-peripheral shows exactly those, from hci1's address.
#   relay-peripheral then notifies 0, 1, 2: bleak sees exactly those.
# Run: tests/vm/run-scenarios.sh peripheral-bleak   (or scripts/bluez-vm run -- this file)
# vm-timeout: 240
source "$(dirname "$0")/lib.sh"

cat > "$out/peripheral.script" <<'SCRIPT'
start
wait advertising 30
wait subscribed 90
wait counter 30
wait counter 10
wait counter 10
notify
notify
notify
wait disconnected 60
status
SCRIPT
start peripheral "$bin/relay-peripheral" --adapter hci0 --json < "$out/peripheral.script"
wait_for_line "$out/peripheral.out" '"event":"advertising"' 60 || fail "relay-peripheral did not advertise"
start bleak bleak_central --adapter hci1 --write 3 --expect-notify 3 --timeout 150 --output "$out/bleak.values"
finish bleak 160 || fail "bleak failed: $(tail -n 1 "$out/bleak.err")"
finish peripheral 90 || fail "relay-peripheral exited with an error: $(grep '"event":"error"' "$out/peripheral.out" | head -n 1)"

# The values relay-peripheral showed, as "ADDRESS VALUE" lines, and what bleak saw.
grep '"event":"counter"' "$out/peripheral.out" |
  sed 's/.*"from":"\([^"]*\)","value":\([0-9]*\).*/\1 \2/' > "$out/peripheral.values"
central=${RELAY_VM_HCI1_ADDRESS:?the VM did not say hci1\'s address}
expect_values "$out/peripheral.values" "counters shown by relay-peripheral" "$central 0" "$central 1" "$central 2"
expect_values "$out/bleak.values" "counters notified to bleak" 0 1 2
grep -q '"event":"notified","time":"[^"]*","value":2' "$out/peripheral.out" || fail "relay-peripheral did not report notified 2"
echo "PASS peripheral-bleak"
