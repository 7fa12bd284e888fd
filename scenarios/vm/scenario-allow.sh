#!/usr/bin/env bash
# Scenario (inside the bluez-vm guest): relay-peripheral --allow, with an intruder.
#   relay-peripheral on hci0 takes values only from hci1's address (`--allow`). relay-central
#   on hci1 connects, writes a counter and sends a message: both shown, from hci1. bleak on hci2
#   connects to the same peripheral and writes counters 0..5 and 300 raw bytes:
#   none is shown, each is dropped and reported in at most 3 error lines per 5 s naming hci2,
#   and `status` lists the allowed address with the number dropped. The allowed central keeps
#   working after the intruder (a second counter and message).
# vm-controllers: 3
# vm-timeout: 300
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
allowed=${RELAY_VM_HCI1_ADDRESS:?the VM did not say hci1\'s address}
intruder=${RELAY_VM_HCI2_ADDRESS:?the VM did not say hci2\'s address}

open_input peripheral 7
open_input central 8
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --allow "$allowed"
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --connect sample
wait_for_line "$out/central.out" '"event":"scanning"' 30 || fail "the central never scanned"
echo start >&7
wait_for_line "$out/peripheral.out" '"event":"advertising"' 30 || fail "the peripheral never advertised"
wait_for_line "$out/central.out" '"event":"ready"' 90 || fail "the allowed central never became ready"
printf '%s\n' "write 41" "send from the allowed central" >&8
wait_for_line "$out/peripheral.out" '"event":"message"' 60 || fail "the allowed central's message did not arrive"

# The intruder: six raw counters (the original apps' way) and 300 raw bytes.
start bleak bleak_central --adapter hci2 --write 6 --send-bytes 300 --timeout 120 --output "$out/bleak.values"
finish bleak 130 || fail "bleak failed: $(tail -n 1 "$out/bleak.err")"
wait_for_line "$out/peripheral.out" "\"event\":\"error\".*not in --allow.*\"from\":\"$intruder\"" 10 ||
  fail "the intruder's values were not reported"

printf '%s\n' "write 42" "send again from the allowed central" >&8
wait_for_count "$out/peripheral.out" '"event":"message"' 2 60 || fail "the allowed central's second message did not arrive"
echo status >&7
wait_for_line "$out/peripheral.out" '"event":"status"' 10 || fail "no status"
echo quit >&8
echo quit >&7
finish central 30 || fail "relay-central exited with an error"
finish peripheral 30 || fail "relay-peripheral exited with an error"

[ "$(json_list "$out/peripheral.out" counter value)" = "41,42" ] ||
  fail "counters shown: '$(json_list "$out/peripheral.out" counter value)', not 41,42"
[ "$(json_values "$out/peripheral.out" counter from | sort -u)" = "$allowed" ] || fail "a counter came from someone else"
[ "$(json_list "$out/peripheral.out" message from)" = "$allowed,$allowed" ] ||
  fail "messages from: '$(json_list "$out/peripheral.out" message from)'"
reports=$(count "$out/peripheral.out" '"event":"error".*not in --allow')
[ "$reports" -ge 1 ] && [ "$reports" -le 3 ] || fail "$reports reports of dropped values (1 to 3 expected in 5 s)"
grep -v "not in --allow" "$out/peripheral.out" | grep -q '"event":"error"' &&
  fail "another error: $(grep '"event":"error"' "$out/peripheral.out" | grep -v 'not in --allow' | head -n 1)"
status=$(grep '"event":"status"' "$out/peripheral.out" | tail -n 1)
grep -q "\"allow\":{\"centrals\":\[\"$allowed\"\],\"dropped\":[1-9]" <<< "$status" || fail "status: $status"
dropped=$(sed -n 's/.*"dropped":\([0-9]*\).*/\1/p' <<< "$status")
[ "$dropped" -ge 7 ] || fail "only $dropped values dropped (6 counters and a message's frames were written)"
echo "PASS allow ($dropped values from $intruder dropped in $reports reports)"
