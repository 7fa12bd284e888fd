#!/usr/bin/env bash
# Fault 5 (issue 8), inside the bluez-vm guest: three centrals on one peripheral at once.
#   relay-peripheral on hci0; relay-central A, B, C on hci1, hci2, hci3, all connected and
#   subscribed together. Then:
#   1. broadcast: the peripheral notifies counters 0, 1, 2, a 6000-byte binary message and a
#      text: every central gets exactly those counters, in order, once, and both messages
#      intact (sha256);
#   2. writes told apart: A, B and C each write their own counter and send their own message at
#      the same time: the peripheral attributes each counter and message (sha256) to its sender;
#   3. one leaves mid-message: C starts a 1 MiB message, A and B send 8000 bytes each and the
#      peripheral broadcasts 8000 bytes, all at once; C is killed (SIGKILL) mid-message: A's and
#      B's messages still arrive intact, A and B still get the broadcast and the next counter,
#      C's partial message is reported dropped (C's address, bytes, total), the peripheral keeps
#      advertising.
#   Blocked by the test bed, so NOT part of make test: btvirt cannot give one controller a second
#   LE connection. When B connects to hci0, the kernel logs `kobject_add_internal failed for
#   hci0:42 with -EEXIST` (btvirt 5.66 and 5.82 give every LE connection handle 42; 5.87 gives
#   each initiator's first link handle 1, same clash) and both links drop about 2 s later
#   (runs of 17:19 and 17:31 on 29 Nov). The multi-central behaviour is unit-tested in
#   Tests/PeripheralTests/PeripheralSessionManyCentralsTests.swift. Rename to scenario-* once a
#   test bed can hold several connections per controller.

# vm-controllers: 4
# vm-timeout: 200
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
declare -A address=([a]=${RELAY_VM_HCI1_ADDRESS:-00:AA:01:01:00:01} [b]=${RELAY_VM_HCI2_ADDRESS:-00:AA:01:02:00:02}
  [c]=${RELAY_VM_HCI3_ADDRESS:-00:AA:01:03:00:03})
declare -A adapter=([a]=hci1 [b]=hci2 [c]=hci3)
declare -A fd=([a]=8 [b]=9 [c]=10)
centrals=(a b c)
began=$(date +%s.%N)
since() { awk -v a="$began" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
say() { local who=$1; shift; printf '%s\n' "$@" >&"${fd[$who]}"; }
# The sha256 of every message event of NAME's log that came from ADDRESS (any when empty).
messages_from() { grep '"event":"message"' "$out/$1.out" | grep -- "${2:-}" | sed -n 's/.*"sha256":"\([0-9a-f]*\)".*/\1/p' | tr '\n' ','; }
# Asks the peripheral for `status` and prints the answer (its JSON line).
status_now() {
  local before
  before=$(count "$out/peripheral.out" '"event":"status"')
  echo status >&7
  wait_for_count "$out/peripheral.out" '"event":"status"' $((before + 1)) 10 || fail "no answer to status"
  grep '"event":"status"' "$out/peripheral.out" | tail -n 1
}
# receiving ADDRESS STATUS: bytes of the incomplete message from ADDRESS in a status line.
receiving() { grep -o "\"address\":\"$1\"[^{}]*\"receiving\":{\"received\":[0-9]*" <<< "$2" | sed 's/.*://'; }
counters_from() { grep '"event":"counter"' "$out/$1.out" | grep -- "${2:-}" | sed -n 's/.*"value":\([0-9]*\).*/\1/p' | tr '\n' ','; }

text="hello to all three"
printf '%s' "$text" > "$out/text"
head -c 6000 /dev/urandom > "$out/bcast.bin"
head -c 8000 /dev/urandom > "$out/bcast2.bin"
head -c 1048576 /dev/urandom > "$out/c-big.bin"
size=([0]=4000 [1]=5000 [2]=6000)
for index in 0 1 2; do
  who=${centrals[$index]}
  head -c "${size[$index]}" /dev/urandom > "$out/$who-1.bin"
  head -c 8000 /dev/urandom > "$out/$who-2.bin"
done

open_input peripheral 7
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --max-message 8388608
for who in "${centrals[@]}"; do
  open_input "$who" "${fd[$who]}"
  # Niced: framing C's 1 MiB in a debug build under TCG must not starve the others on the same vCPU.
  start_fed "$who" "$fifos/$who.in" nice -n 10 "$bin/relay-central" --scan-timeout 60 --adapter "${adapter[$who]}" --json
  say "$who" "wait state 30" scan
done
# Scanning first: btvirt reports an advertiser to a scan that was already on when it started.
for who in "${centrals[@]}"; do
  wait_for_line "$out/$who.out" '"event":"scanning"' 30 || fail "central $who never scanned"
done
echo start >&7
wait_for_line "$out/peripheral.out" '"event":"advertising"' 30 || fail "the peripheral never advertised"
# One after the other: with three Connect calls at the same instant (and btvirt 5.66) the
# guest's single bluetoothd, serving all four controllers, stopped answering (NoReply).
for who in "${centrals[@]}"; do
  say "$who" "wait discovered 60" "connect 0"
  wait_for_line "$out/$who.out" '"event":"ready"' 60 ||
    fail "central $who never became ready: $(cut -c1-200 "$out/$who.out" | tail -n 2)"
done
wait_for_count "$out/peripheral.out" '"event":"connected"' 3 30 || fail "the peripheral did not see three centrals"
for who in "${centrals[@]}"; do
  grep '"event":"connected"' "$out/peripheral.out" | grep -q "${address[$who]}" || fail "central $who not reported connected"
done
echo "all three ready at $(since) s"

# 1. Broadcast: counters and two messages to everyone.
printf '%s\n' "notify" "notify" "notify" "send-file $out/bcast.bin" "send $text" >&7
for who in "${centrals[@]}"; do
  wait_for_count "$out/$who.out" '"event":"message"' 2 60 || fail "central $who got $(count "$out/$who.out" '"event":"message"') of 2 broadcast messages"
done
sleep 1  # a duplicated notification would come right behind
for who in "${centrals[@]}"; do
  [ "$(counters_from "$who")" = "0,1,2," ] || fail "central $who got counters '$(counters_from "$who")', not 0,1,2"
  [ "$(messages_from "$who")" = "$(sha "$out/bcast.bin"),$(sha "$out/text")," ] ||
    fail "central $who got broadcast messages '$(messages_from "$who")'"
done
notified=$(grep '"event":"notified"' "$out/peripheral.out" | head -n 1)
grep -q '"centrals":3' <<< "$notified" || fail "the peripheral says a counter reached: $notified"
echo "broadcast checked at $(since) s"

# 2. Writes at the same time, told apart by address.
value=100
for who in "${centrals[@]}"; do
  say "$who" "write $value" "send-file $out/$who-1.bin"
  value=$((value + 100))
done
wait_for_count "$out/peripheral.out" '"event":"message"' 3 90 || fail "the peripheral got $(count "$out/peripheral.out" '"event":"message"') of 3 messages"
value=100
for who in "${centrals[@]}"; do
  [ "$(counters_from peripheral "\"from\":\"${address[$who]}\"")" = "$value," ] ||
    fail "counters from $who: '$(counters_from peripheral "\"from\":\"${address[$who]}\"")', not $value"
  [ "$(messages_from peripheral "\"from\":\"${address[$who]}\"")" = "$(sha "$out/$who-1.bin")," ] ||
    fail "messages from $who: '$(messages_from peripheral "\"from\":\"${address[$who]}\"")'"
  value=$((value + 100))
done
echo "writes told apart at $(since) s"

# 3. C leaves mid-message while A, B and the peripheral send.
say c "send-file $out/c-big.bin"
say a "send-file $out/a-2.bin"
say b "send-file $out/b-2.bin"
echo "send-file $out/bcast2.bin" >&7
ticks=0
until [ "$(receiving "${address[c]}" "$(status_now)")" -gt 0 ] 2>/dev/null; do
  ticks=$((ticks + 1))
  [ $ticks -gt 60 ] && fail "no frame of C's message reached the peripheral in 60 s"
  sleep 1
done
grep -q '"event":"sent".*"length":1048576' "$out/c.out" && fail "C's 1 MiB message was already sent: cannot kill mid-message"
kill -KILL "${started[c]}"
finish c 5 || true
exec 10>&-
echo "C killed at $(since) s"
wait_for_count "$out/peripheral.out" '"event":"message"' 5 90 || fail "the peripheral got $(count "$out/peripheral.out" '"event":"message"') of 5 messages after C was killed"
for who in a b; do
  [ "$(messages_from peripheral "\"from\":\"${address[$who]}\"")" = "$(sha "$out/$who-1.bin"),$(sha "$out/$who-2.bin")," ] ||
    fail "messages from $who after C was killed: '$(messages_from peripheral "\"from\":\"${address[$who]}\"")'"
  wait_for_count "$out/$who.out" '"event":"message"' 3 60 || fail "central $who did not get the broadcast sent while C was killed"
done
wait_for_line "$out/peripheral.out" '"event":"dropped"' 30 || fail "C's partial message was not reported dropped"
dropped=$(grep '"event":"dropped"' "$out/peripheral.out")
[ "$(wc -l <<< "$dropped")" = 1 ] || fail "more than one drop: $dropped"
grep -q "\"from\":\"${address[c]}\"" <<< "$dropped" || fail "the drop is not C's: $dropped"
grep -q '"total":1048576' <<< "$dropped" || fail "the drop does not name C's 1 MiB total: $dropped"
received=$(sed -n 's/.*"received":\([0-9]*\).*/\1/p' <<< "$dropped")
[ "${received:-0}" -gt 0 ] && [ "$received" -lt 1048576 ] || fail "dropped after $received bytes"
echo "notify 50" >&7
for who in a b; do
  wait_for_line "$out/$who.out" '"event":"counter".*"value":50' 30 || fail "central $who did not get counter 50 after C left"
done
status=$(status_now)
grep -q '"advertising":true' <<< "$status" || fail "the peripheral stopped advertising: $status"
if grep -q "\"address\":\"${address[c]}\"" <<< "$status"; then  # BlueZ keeps a killed central's link
  grep -q "\"address\":\"${address[c]}\"[^{}]*\"receiving\":null" <<< "$status" || fail "C's partial message is still held: $status"
fi
grep -q '"event":"stopped"' "$out/peripheral.out" && fail "advertising stopped: $(grep '"event":"stopped"' "$out/peripheral.out")"
echo "C's departure checked at $(since) s"

for who in a b; do eval "exec ${fd[$who]}>&-"; done
for who in a b; do finish "$who" 30 || fail "central $who did not end cleanly: $(grep '"event":"error"' "$out/$who.out" | head -n 2)"; done
echo quit >&7
exec 7>&-
finish peripheral 20 || true
for who in a b; do
  [ "$(counters_from "$who")" = "0,1,2,50," ] || fail "central $who got counters '$(counters_from "$who")'"
  [ "$(messages_from "$who")" = "$(sha "$out/bcast.bin"),$(sha "$out/text"),$(sha "$out/bcast2.bin")," ] ||
    fail "central $who got messages '$(messages_from "$who")'"
  grep -q '"event":"error"' "$out/$who.out" && fail "central $who reported: $(grep '"event":"error"' "$out/$who.out" | head -n 2)"
done
[ "$(count "$out/peripheral.out" '"event":"message"')" = 5 ] || fail "the peripheral got $(count "$out/peripheral.out" '"event":"message"') messages, not 5"
echo "PASS fault-three-centrals: each central got every counter and message once and intact, writes told apart," \
  "C killed after $received of 1048576 bytes without disturbing A and B; total $(since) s"
