#!/usr/bin/env bash
# Fault 1 (issue 8), inside the bluez-vm guest: the central disappears mid-message.
#   relay-peripheral (hci0) advertises; relay-central A (hci1) connects and starts sending a
#   4 MiB message; A is killed (SIGKILL) while the message is on its way. The peripheral must
#   report the partial message from A as dropped, report A disconnected, free A's state (no
#   central left in `status`), keep advertising without being told; then relay-central B
#   (hci1, after A is gone) connects and both directions work at once (counter + message each way).

# vm-timeout: 240
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
a_address=${RELAY_VM_HCI1_ADDRESS:-00:AA:01:01:00:01}
b_address=$a_address

head -c 4194304 /dev/urandom > "$out/big.bin"
to_b="hello B, from the peripheral"
to_p="hello peripheral, from B"

# The peripheral reads its commands from a FIFO so it keeps running while the scenario acts.
open_input peripheral 7
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --max-message 8388608
cat > "$out/a.script" <<SCRIPT
wait state 30
scan
wait discovered 60
connect 0
send-file $out/big.bin
SCRIPT
start_fed a "$out/a.script" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --max-message 8388608
wait_for_line "$out/a.out" '"event":"scanning"' 30 || fail "central A never scanned"
echo start >&7
wait_for_line "$out/peripheral.out" '"event":"advertising"' 30 || fail "the peripheral never advertised"
wait_for_line "$out/a.out" '"event":"ready"' 90 || fail "central A never became ready"
# Mid-message: give the transfer a moment, then kill A without a chance to clean up.
sleep 2
grep -q '"event":"sent"' "$out/a.out" && fail "the 4 MiB message was already sent: cannot kill mid-message"
kill -KILL "${started[a]}"
finish a 5 || true
wait_for_line "$out/peripheral.out" '"event":"dropped"' 60 || fail "the peripheral did not report the partial message dropped"
wait_for_line "$out/peripheral.out" '"event":"disconnected"' 60 || fail "the peripheral did not report A disconnected"
echo status >&7
wait_for_line "$out/peripheral.out" '"event":"status"' 10 || fail "no status"
status=$(grep '"event":"status"' "$out/peripheral.out" | tail -n 1)
grep -q '"advertising":true' <<< "$status" || fail "the peripheral stopped advertising after A left: $status"
grep -q "$a_address" <<< "$status" && fail "the peripheral still holds A's state: $status"
grep -q '"event":"stopped"' "$out/peripheral.out" && fail "advertising stopped: $(grep '"event":"stopped"' "$out/peripheral.out")"
dropped=$(grep '"event":"dropped"' "$out/peripheral.out" | head -n 1)
received=$(sed -n 's/.*"received":\([0-9]*\).*/\1/p' <<< "$dropped")
total=$(sed -n 's/.*"total":\([0-9]*\).*/\1/p' <<< "$dropped")
grep -q "\"from\":\"$a_address\"" <<< "$dropped" || fail "the drop is not attributed to A: $dropped"
[ "$total" = 4194304 ] || fail "the dropped message declared $total bytes: $dropped"
[ "${received:-0}" -gt 0 ] && [ "$received" -lt "$total" ] || fail "dropped after $received of $total bytes"

# Central B connects and exchanges at once.
cat > "$out/b.script" <<SCRIPT
wait state 30
scan
wait discovered 60
connect 0
write 41
send $to_p
wait counter 30
wait message 30
disconnect
SCRIPT
start_fed b "$out/b.script" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json
wait_for_count "$out/peripheral.out" '"event":"subscribed"' 2 90 || fail "B never subscribed"
wait_for_line "$out/peripheral.out" '"event":"message"' 30 || fail "the peripheral did not get B's message"
echo "notify 7" >&7
echo "send $to_b" >&7
finish b 60 || fail "central B failed: $(grep '"event":"error"' "$out/b.out" | head -n 2)"
echo quit >&7
exec 7>&-
finish peripheral 20 || true
[ "$(field "$out/peripheral.out" counter value)" = "41," ] || fail "the peripheral got counters '$(field "$out/peripheral.out" counter value)'"
grep '"event":"counter"' "$out/peripheral.out" | grep -q "$b_address" || fail "B's counter not attributed to B"
[ "$(field "$out/peripheral.out" message text)" = "$to_p," ] || fail "the peripheral got messages '$(field "$out/peripheral.out" message text)'"
[ "$(field "$out/b.out" counter value)" = "7," ] || fail "B got counters '$(field "$out/b.out" counter value)'"
[ "$(field "$out/b.out" message text)" = "$to_b," ] || fail "B got messages '$(field "$out/b.out" message text)'"
echo "PASS fault-central-killed (A dropped after $received of $total bytes; B exchanged at once)"
