#!/usr/bin/env bash
# Scenario 4 (inside the bluez-vm guest): a disconnect in the middle of a large message.
#   relay-peripheral (hci0) starts sending a 1 MiB message as soon as relay-central (hci1)
#   subscribes; the central disconnects as soon as the first frame arrives (`wait receiving`).
#   The central must report the partial message as dropped (some bytes received, not all);
#   after it connects again (and writes a counter to say it is ready), the next message must
#   arrive intact. The peripheral is not asked to report a second `subscribed`: when the
#   reconnect's CCC write reaches bluetoothd before the old link's teardown, BlueZ 5.66 keeps
#   the AcquireNotify socket it had (no AcquireNotify again) and says nothing; the reconnected
#   central still gets the notifications (docs/reliability.md).
# vm-timeout: 200
# Run: scenarios/vm/run-scenarios.sh disconnect   (or scripts/bluez-vm run -- scenarios/vm/scenario-disconnect.sh)
source "$(dirname "$0")/lib.sh"
# Longest either program may run before the scenario gives up on it.
limit=${RELAY_SCENARIO_LIMIT:-240}
p=$out/peripheral.out c=$out/central.out

head -c 1048576 /dev/urandom > "$out/big.bin"
after="the next message after the drop"
expected=$(printf '%s' "$after" | sha256sum | cut -d' ' -f1)

cat > "$out/peripheral.script" <<SCRIPT
start
wait advertising 30
wait subscribed 60
send-file $out/big.bin
wait counter 120
send $after
wait disconnected 120
SCRIPT
cat > "$out/central.script" <<SCRIPT
wait state 30
scan
wait discovered 60
connect 0
wait receiving 120
disconnect
wait dropped 10
connect 0
write 7
wait message 120
status
disconnect
SCRIPT

# The central scans before the peripheral advertises (scenario-article starts them the other way).
start_fed central "$out/central.script" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --max-message 2097152
wait_for_line "$c" '"event":"scanning"' 30 || true # the checks below tell what went wrong
start_fed peripheral "$out/peripheral.script" "$bin/relay-peripheral" --adapter hci0 --json --max-message 2097152
central_status=0
finish central "$limit" || central_status=$?
# The peripheral's send of the big message is expected to fail (the central left), so its
# exit status is not checked; its events are.
finish peripheral "$limit" || true

[ "$central_status" = 0 ] || fail "relay-central exited $central_status"
[ "$(json_count "$c" ready)" = 2 ] || fail "the central was not ready twice"
[ "$(json_count "$c" dropped)" -ge 1 ] || fail "the central did not report the partial message as dropped"
# The first dropped message: how much of it arrived, and the size it declared.
received=$(json_values "$c" dropped received | head -n 1)
total=$(json_values "$c" dropped length | head -n 1)
[ "$total" = 1048576 ] || fail "the dropped message declared $total bytes"
[ "$received" -gt 0 ] 2>/dev/null && [ "$received" -lt "$total" ] || fail "dropped after $received of $total bytes"
[ "$(json_list "$c" message sha256)" = "$expected" ] ||
  fail "after reconnecting the central received '$(json_list "$c" message sha256)'"
[ "$(json_count "$p" connected)" = 2 ] || fail "the peripheral did not see the central connect twice"
[ "$(json_list "$p" counter value)" = 7 ] || fail "the peripheral did not get the counter of the reconnected central"
[ "$(json_count "$p" subscribed)" -ge 1 ] || fail "the peripheral never saw a subscription"
echo "PASS scenario-disconnect (dropped after $received of $total bytes, next message intact)"
