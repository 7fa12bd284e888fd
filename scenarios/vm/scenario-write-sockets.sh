#!/usr/bin/env bash
# Write sockets (issue 17), inside the bluez-vm guest: relay-peripheral receives through each
# central's own AcquireWrite socket where bluetoothd gives one per device (BlueZ 5.69 and later)
# and learns that by behaviour; on 5.66's one shared socket it falls back to WriteValue.
#   1. Central A alone (hci1): the peripheral takes A's socket while sharing is unknown (A is the
#      only central: nothing else can write into it); A's counter and 64 KiB message arrive as
#      A's (sha256); `status` shows the socket.
#   2. A leaves. bluetoothd 5.69+ hangs A's socket up with A's link: `per-device`; 5.66 leaves it
#      open: `shared`, closed by the peripheral. The scenario reads bluetoothd's version only to
#      say which one it expects; relay itself never looks at it.
#   3. B (hci2), then C (hci3) connect one after the other and send their own counters and
#      messages at the same time: each arrives as its sender's, and with per-device sockets both
#      write through their own (`status` lists B and C), with a shared one through WriteValue.

# vm-controllers: 4
# vm-timeout: 300
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
declare -A address=([a]=${RELAY_VM_HCI1_ADDRESS:-00:AA:01:01:00:01} [b]=${RELAY_VM_HCI2_ADDRESS:-00:AA:01:02:00:02}
  [c]=${RELAY_VM_HCI3_ADDRESS:-00:AA:01:03:00:03})
declare -A adapter=([a]=hci1 [b]=hci2 [c]=hci3)
declare -A fd=([a]=8 [b]=9 [c]=10)
say() { local who=$1; shift; printf '%s\n' "$@" >&"${fd[$who]}"; }
messages_from() { grep '"event":"message"' "$out/peripheral.out" | grep -- "\"from\":\"$1\"" | sed -n 's/.*"sha256":"\([0-9a-f]*\)".*/\1/p' | tr '\n' ','; }
counters_from() { grep '"event":"counter"' "$out/peripheral.out" | grep -- "\"from\":\"$1\"" | sed -n 's/.*"value":\([0-9]*\).*/\1/p' | tr '\n' ','; }
# The `writes` object of a status line.
writes() { grep -o '"writes":{[^}]*}' <<< "$1"; }

version=$(/usr/libexec/bluetooth/bluetoothd --version 2>/dev/null || /usr/lib/bluetooth/bluetoothd --version)
if [ "$(printf '%s\n' 5.69 "$version" | sort -V | head -n 1)" = 5.69 ]; then expected=per-device; else expected=shared; fi
echo "bluetoothd $version: expecting $expected write sockets"
head -c 65536 /dev/urandom > "$out/a.bin"
head -c 40000 /dev/urandom > "$out/b.bin"
head -c 48000 /dev/urandom > "$out/c.bin"

open_input peripheral 7
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json
for who in a b c; do
  open_input "$who" "${fd[$who]}"
  start_fed "$who" "$fifos/$who.in" "$bin/relay-central" --scan-timeout 60 --adapter "${adapter[$who]}" --json
  say "$who" "wait state 30" scan
done
for who in a b c; do
  wait_for_line "$out/$who.out" '"event":"scanning"' 30 || fail "central $who never scanned"
done
echo start >&7
wait_for_line "$out/peripheral.out" '"event":"advertising"' 30 || fail "the peripheral never advertised"
status=$(status_now)
[ "$(writes "$status")" = '"writes":{"sockets":"unknown","through":[]}' ] || fail "before any central: $(writes "$status")"

# 1. A alone.
say a "wait discovered 60" "connect 0"
wait_for_line "$out/a.out" '"event":"ready"' 60 || fail "central a never became ready"
say a "write 7" "send-file $out/a.bin"
wait_for_line "$out/peripheral.out" '"event":"message"' 60 || fail "A's message never arrived"
[ "$(counters_from "${address[a]}")" = "7," ] || fail "counters from A: '$(counters_from "${address[a]}")'"
[ "$(messages_from "${address[a]}")" = "$(sha "$out/a.bin")," ] || fail "messages from A: '$(messages_from "${address[a]}")'"
status=$(status_now)
[ "$(writes "$status")" = "\"writes\":{\"sockets\":\"unknown\",\"through\":[\"${address[a]}\"]}" ] ||
  fail "A alone does not write through its socket: $(writes "$status")"
echo "A wrote through its socket"

# 2. A leaves: how bluetoothd treats A's socket tells how it shares them.
say a quit
finish a 30 || fail "central a did not quit cleanly: $(tail -n 2 "$out/a.err")"
wait_for_line "$out/peripheral.out" "\"event\":\"disconnected\".*\"address\":\"${address[a]}\"" 30 ||
  fail "the peripheral did not see A leave"
learnt=
for _ in $(seq 1 10); do
  status=$(status_now)
  learnt=$(grep -o '"sockets":"[a-z-]*"' <<< "$(writes "$status")" | cut -d'"' -f4)
  [ "$learnt" != unknown ] && break
  sleep 1
done
[ "$learnt" = "$expected" ] || fail "learnt '$learnt' write sockets from bluetoothd $version, not $expected"
[ "$(writes "$status")" = "\"writes\":{\"sockets\":\"$expected\",\"through\":[]}" ] || fail "after A left: $(writes "$status")"
echo "learnt $learnt"

# 3. B, then C, connected together, writing at the same time.
for who in b c; do
  say "$who" "wait discovered 60" "connect 0"
  wait_for_line "$out/$who.out" '"event":"ready"' 60 || fail "central $who never became ready"
  sleep 1  # its hello is written (and its socket taken) before the next one connects
done
say b "write 200" "send-file $out/b.bin"
say c "write 300" "send-file $out/c.bin"
wait_for_count "$out/peripheral.out" '"event":"message"' 3 90 ||
  fail "the peripheral got $(count "$out/peripheral.out" '"event":"message"') of 3 messages"
for who in b c; do
  value=$([ "$who" = b ] && echo 200 || echo 300)
  [ "$(counters_from "${address[$who]}")" = "$value," ] || fail "counters from $who: '$(counters_from "${address[$who]}")'"
  [ "$(messages_from "${address[$who]}")" = "$(sha "$out/$who.bin")," ] ||
    fail "messages from $who: '$(messages_from "${address[$who]}")'"
done
status=$(status_now)
if [ "$expected" = per-device ]; then
  through="[\"${address[b]}\",\"${address[c]}\"]"
else
  through="[]"
fi
[ "$(writes "$status")" = "\"writes\":{\"sockets\":\"$expected\",\"through\":$through}" ] ||
  fail "B and C write through: $(writes "$status")"
[ "$(count "$out/peripheral.out" '"event":"message"')" = 3 ] || fail "the peripheral got $(count "$out/peripheral.out" '"event":"message"') messages, not 3"
[ "$(count "$out/peripheral.out" '"event":"counter"')" = 3 ] || fail "the peripheral got $(count "$out/peripheral.out" '"event":"counter"') counters, not 3"

for who in b c; do say "$who" quit; done
for who in b c; do finish "$who" 30 || fail "central $who did not quit cleanly: $(tail -n 2 "$out/$who.err")"; done
echo quit >&7
finish peripheral 20 || fail "the peripheral did not quit cleanly: $(tail -n 2 "$out/peripheral.err")"
grep -q '"event":"error"' "$out/peripheral.out" && fail "the peripheral reported: $(grep '"event":"error"' "$out/peripheral.out" | head -n 2)"
echo "PASS write-sockets: bluetoothd $version, $expected sockets learnt by behaviour; every counter and message" \
  "arrived as its sender's"
