#!/usr/bin/env bash
# Protocol 2 (issue 15, test 1), inside the bluez-vm guest: 512 KiB each way, and the receiving
# side's adapter powered off for 5 s in the middle of each. relay-central --reconnect (hci1)
# sends 512 KiB to relay-peripheral (hci0); at about 40 %, hci0 goes off for 5 s and on again.
# The transfer must resume (a `resumed` event with an offset above 0), be delivered intact
# (`delivered` at the central, the same SHA-256 at the peripheral), and cost at most the stream
# plus two windows of bytes sent. Then the same from the peripheral to the central with hci1 off.
# Test-bed limit (docs/test-bed.md): btvirt keeps an off controller connectable, so the central
# is held (SIGSTOP) while hci0 is off, as in scenario-fault-power-cycle.
# vm-controllers: 2
# vm-timeout: 420
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
source "$(dirname "$0")/delivery-lib.sh"
p=$out/peripheral.out c=$out/central.out
# The window is passed to both programs: the bound below counts it (a stale 32 KiB here, after
# the default became 64 KiB, failed a run under load: 69 840 bytes resent, 4 time-outs).
# 512 KiB: the cut at 200 KB leaves most of it to resume (1 MiB proved nothing more and took
# 40 s longer on the laptop radio).
size=524288 window=65536 stream=$((524288 + 11))
random_file "$out/c.bin" $size
random_file "$out/p.bin" $size

open_input peripheral 7
open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json \
  --connect sample --reconnect --max-message 2M --window $window
wait_for_line "$c" '"event":"scanning"' 30 || fail "the central never scanned"
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --max-message 2M --window $window
echo start >&7
wait_for_line "$c" '"event":"ready".*"protocol":2' 60 || fail "the central did not become ready with protocol 2"

# Central to peripheral; the peripheral's adapter off for 5 s at about 200 KB.
echo "send-file $out/c.bin" >&8
wait_progress "$c" out 200000 120 || fail "the central's message did not get going"
kill -STOP "${started[central]}"
btmgmt --index 0 power off > "$out/btmgmt.log" 2>&1 || fail "btmgmt power off failed: $(cat "$out/btmgmt.log")"
wait_for_line "$p" '"state":"poweredOff"' 20 || fail "the peripheral did not report its adapter off"
pause 5
btmgmt --index 0 power on >> "$out/btmgmt.log" 2>&1 || fail "btmgmt power on failed"
wait_for_count "$p" '"state":"poweredOn"' 2 20 || fail "the peripheral did not report its adapter on"
kill -CONT "${started[central]}"
wait_for_line "$c" '"event":"resumed"' 120 || fail "the central did not resume"
wait_for_line "$c" '"event":"delivered"' 180 || fail "the central's message was not delivered"
central_status=$(status_json "$c" 8)

# Peripheral to central; the central's adapter off for 5 s at about 200 KB.
echo "send-file $out/p.bin" >&7
wait_progress "$c" in 200000 120 || fail "the peripheral's message did not get going"
btmgmt --index 1 power off >> "$out/btmgmt.log" 2>&1 || fail "btmgmt power off failed"
wait_for_line "$c" '"state":"poweredOff"' 20 || fail "the central did not report its adapter off"
pause 5
btmgmt --index 1 power on >> "$out/btmgmt.log" 2>&1 || fail "btmgmt power on failed"
wait_for_line "$p" '"event":"resumed"' 120 || fail "the peripheral did not resume"
wait_for_line "$p" '"event":"delivered"' 180 || fail "the peripheral's message was not delivered"
peripheral_status=$(status_json "$p" 7)

echo quit >&8
finish central 60 || fail "relay-central exited $?"
echo quit >&7
finish peripheral 60 || fail "relay-peripheral exited $?"
[ "$(json_list "$p" message sha256)" = "$(sha "$out/c.bin")" ] || fail "the peripheral got '$(json_list "$p" message sha256)'"
[ "$(json_list "$c" message sha256)" = "$(sha "$out/p.bin")" ] || fail "the central got '$(json_list "$c" message sha256)'"
[ "$(json_list "$c" delivered sha256)" = "$(sha "$out/c.bin")" ] || fail "the central did not report delivered"
[ "$(json_list "$p" delivered sha256)" = "$(sha "$out/p.bin")" ] || fail "the peripheral did not report delivered"
for who in c p; do
  file=$c; [ $who = p ] && file=$p
  offset=$(json_values "$file" resumed offset | head -n 1)
  [ "${offset:-0}" -gt 0 ] || fail "$who resumed from offset '${offset:-none}', expected above 0"
  echo "$who resumed from $offset of $size"
done
[ "$(json_count "$c" failed)" = 0 ] && [ "$(json_count "$p" failed)" = 0 ] || fail "a message failed"
check_sent_bound "$central_status" $stream $window central
check_sent_bound "$peripheral_status" $stream $window peripheral
echo "PASS delivery-power-cycle (resumed and delivered both ways)"
