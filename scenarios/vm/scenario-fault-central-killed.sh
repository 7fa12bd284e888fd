#!/usr/bin/env bash
# Fault 1 (issue 8), inside the bluez-vm guest: the central disappears mid-message.
#   relay-peripheral (hci0) advertises; relay-central A (hci1) connects and starts sending a
#   2 MiB message; A is killed (SIGKILL) while the message is on its way. A writes with
#   `--write-path write-value` (each chunk a WriteValue call after the previous one
#   completed): through the default AcquireWrite socket bluetoothd takes a whole message
#   into its unbounded queue within seconds and delivers it after A is dead, so only a
#   message far larger than the socket path can queue (16 MiB, minutes in this guest)
#   would be cut by the kill. What the peripheral sees is the same either way.
#   BlueZ keeps the LE link the dead process asked for (Device1.Connect), so the peripheral
#   sees A unsubscribe but not disconnect. What the user must see on the peripheral:
#   - A unsubscribed (named by address), then A's partial message `dropped` with the bytes
#     received and the declared total: protocol 2 keeps it for the resume time-out (A might
#     come back; 10 s here, --resume-timeout) plus slack;
#   - `status`: still advertising (and a new scan from hci2 finds it), nobody subscribed;
#     no `stopped`;
#   - a NEW relay-central B, started where A ran (hci1), connects over the link BlueZ kept
#     and exchanges counters and messages both ways at once;
#   - when that link finally drops (B disconnects), the central is reported `disconnected`
#     and its whole state is freed (`status` lists no central).

# vm-controllers: 3
# vm-timeout: 240
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
a_address=${RELAY_VM_HCI1_ADDRESS:-00:AA:01:01:00:01}
b_address=$a_address  # B runs where A ran
p_address=${RELAY_VM_HCI0_ADDRESS:-00:AA:01:00:00:00}
began=$(date +%s)
since() { echo $(($(date +%s) - began)); }

head -c 2097152 /dev/urandom > "$out/big.bin"
head -c 3000 /dev/urandom > "$out/to-b.bin"
to_p="hello peripheral from B"  # no comma: field() splits on commas

# The peripheral reads its commands from a FIFO so it keeps running while the scenario acts.
open_input peripheral 7
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --max-message 4194304 \
  --resume-timeout 10
cat > "$out/a.script" <<SCRIPT
wait state 30
scan
wait discovered 60
connect 0
send-file $out/big.bin
SCRIPT
start_fed a "$out/a.script" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --max-message 8388608 \
  --write-path write-value
wait_for_line "$out/a.out" '"event":"scanning"' 30 || fail "central A never scanned"
echo start >&7
wait_for_line "$out/peripheral.out" '"event":"advertising"' 30 || fail "the peripheral never advertised"
wait_for_line "$out/a.out" '"event":"ready"' 90 || fail "central A never became ready"
# Mid-message: once the peripheral's status shows A's message arriving, kill A without a
# chance to clean up.
wait_receiving "$a_address" 120 || fail "no frame of A's message reached the peripheral in 120 s"
grep -q '"event":"sent"' "$out/a.out" && fail "the 2 MiB message was already sent: cannot kill mid-message"
kill -KILL "${started[a]}"
killed=$(date +%s.%N)
finish a 5 || true
echo "A killed at $(since) s"

# The partial message is reported dropped, attributed to A, with its bytes and total; A is
# reported unsubscribed by address. Allowed: the 10 s resume time-out plus 20 s of slack.
wait_for_line "$out/peripheral.out" '"event":"dropped"' 30 || fail "the peripheral did not report A's partial message dropped"
dropped_after=$(awk -v a="$killed" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
dropped=$(grep '"event":"dropped"' "$out/peripheral.out" | head -n 1)
received=$(sed -n 's/.*"received":\([0-9]*\).*/\1/p' <<< "$dropped")
total=$(sed -n 's/.*"length":\([0-9]*\).*/\1/p' <<< "$dropped")
grep -q "\"from\":\"$a_address\"" <<< "$dropped" || fail "the drop is not attributed to A: $dropped"
[ "$total" = 2097152 ] || fail "the dropped message declared $total bytes: $dropped"
[ "${received:-0}" -gt 0 ] && [ "$received" -lt "$total" ] || fail "dropped after $received of $total bytes"
wait_for_line "$out/peripheral.out" "\"event\":\"unsubscribed\".*\"address\":\"$a_address\"" 10 ||
  fail "A's unsubscription was not reported with its address: $(grep '"event":"unsubscribed"' "$out/peripheral.out")"

# What status shows now: still advertising, nobody subscribed, nothing held from A (whose
# link BlueZ keeps, so A may still be listed as connected).
status=$(status_now)
grep -q '"advertising":true' <<< "$status" || fail "the peripheral stopped advertising after A left: $status"
grep -q '"notifying":false' <<< "$status" || fail "the peripheral still thinks someone is subscribed: $status"
if grep -q "\"address\":\"$a_address\"" <<< "$status"; then
  grep -q "\"address\":\"$a_address\"[^{}]*\"receiving\":null" <<< "$status" || fail "A's partial message is still held: $status"
fi
# Still advertising, without being told: a new scan (from a third controller) finds it.
cat > "$out/s.script" <<SCRIPT
wait state 30
scan
wait discovered 60
SCRIPT
start_fed s "$out/s.script" "$bin/relay-central" --scan-timeout 60 --adapter hci2 --json
finish s 90 || fail "the scan from hci2 failed: $(grep '"event":"error"' "$out/s.out" | head -n 2)"
grep '"event":"discovered"' "$out/s.out" | grep -q "$p_address" || fail "a new scan did not find the peripheral"

# A new relay-central B where A ran (hci1; a second LE connection on hci0 needs the
# multi-connection btvirt, see fault 5) connects over the link BlueZ kept, subscribes and
# exchanges counters and messages both ways at once.
cat > "$out/b.script" <<SCRIPT
wait state 30
connect $p_address
write 41
send $to_p
wait counter 60
wait message 60
disconnect
SCRIPT
b_started=$(date +%s.%N)
start_fed b "$out/b.script" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json
wait_for_line "$out/b.out" '"event":"ready"' 60 || fail "central B never became ready: $(cut -c1-200 "$out/b.out" | tail -n 3)"
wait_for_count "$out/peripheral.out" "\"event\":\"subscribed\".*\"address\":\"$b_address\"" 2 30 ||
  fail "B's subscription was not reported with its address"
b_ready=$(awk -v a="$b_started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "notify 7" >&7
echo "send-file $out/to-b.bin" >&7
wait_for_line "$out/peripheral.out" '"event":"message"' 60 || fail "the peripheral did not get B's message"
finish b 60 || fail "central B failed: $(grep '"event":"error"' "$out/b.out" | head -n 2)"

# B's disconnect drops the link BlueZ had kept since A died: now the central is reported
# gone and its whole state freed.
wait_for_line "$out/peripheral.out" "\"event\":\"disconnected\".*\"address\":\"$b_address\"" 30 ||
  fail "the link dropped but the peripheral did not report the central disconnected"
status=$(status_now)
grep -q '"advertising":true' <<< "$status" || fail "not advertising after B left: $status"
grep -q '"centrals":\[\]' <<< "$status" || fail "the peripheral still holds a central's state: $status"
grep -q '"event":"stopped"' "$out/peripheral.out" && fail "advertising stopped: $(grep '"event":"stopped"' "$out/peripheral.out")"
echo quit >&7
exec 7>&-
finish peripheral 20 || true

[ "$(grep -c '"event":"dropped"' "$out/peripheral.out")" = 1 ] || fail "more than one drop: $(grep '"event":"dropped"' "$out/peripheral.out")"
[ "$(field "$out/peripheral.out" counter value)" = "41," ] || fail "the peripheral got counters '$(field "$out/peripheral.out" counter value)'"
grep '"event":"counter"' "$out/peripheral.out" | grep -q "\"from\":\"$b_address\"" || fail "B's counter not attributed to B"
[ "$(field "$out/peripheral.out" message text)" = "$to_p," ] || fail "the peripheral got messages '$(field "$out/peripheral.out" message text)'"
grep '"event":"message"' "$out/peripheral.out" | grep -q "\"from\":\"$b_address\"" || fail "B's message not attributed to B"
[ "$(field "$out/b.out" counter value)" = "7," ] || fail "B got counters '$(field "$out/b.out" counter value)'"
[ "$(field "$out/b.out" message sha256)" = "$(sha "$out/to-b.bin")," ] || fail "B got messages '$(field "$out/b.out" message sha256)'"
echo "PASS fault-central-killed: A dropped after $received of $total bytes, ${dropped_after} s after the kill;" \
  "B ready ${b_ready} s after start and exchanged both ways; total $(since) s"
