#!/usr/bin/env bash
# Protocol 2 (issue 15, test 3), inside the bluez-vm guest: relay-central on the AcquireNotify
# path (--notify-path socket) under a flood that makes bluetoothd drop notifications. bluetoothd
# writes that socket without blocking and drops what does not fit; with a window large enough
# (1 MiB here, both sides, and --flight 60 so that the flight is not kept to half a second of the
# rate) and the central held still (SIGSTOP: its reader thread not scheduled, as on a loaded
# machine) until bluetoothd logs its first drop (at most 10 s), the peripheral's notifications
# overflow it and bluetoothd logs the drops ("sendmsg: Resource temporarily unavailable"). Every message must still be
# delivered intact: the lost frames are sent again.
# vm-controllers: 2
# vm-timeout: 360
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
source "$(dirname "$0")/delivery-lib.sh"
p=$out/peripheral.out c=$out/central.out
for index in 1 2 3 4; do random_file "$out/m$index.bin" 262144; done

open_input peripheral 7
open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json \
  --connect sample --notify-path socket --window 1M
wait_for_line "$c" '"event":"scanning"' 30 || fail "the central never scanned"
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --window 1M --flight 60
echo start >&7
wait_for_line "$c" '"event":"ready".*"notify":"socket","service":"relay","protocol":2' 60 ||
  fail "the central is not ready on the notification socket with protocol 2: $(grep '"event":"ready"' "$c")"

for index in 1 2 3 4; do echo "send-file $out/m$index.bin" >&7; done
wait_progress "$c" in 30000 120 || fail "the peripheral's messages did not get going"
kill -STOP "${started[central]}"
# Held until bluetoothd's notification socket to it overflows (at most 10 s; checked below).
wait_for_line "$out/bluetoothd.log" 'sendmsg: Resource temporarily unavailable' 10 || true
kill -CONT "${started[central]}"
wait_for_count "$p" '"event":"delivered"' 4 240 || fail "not every message was delivered: $(json_count "$p" delivered) of 4"
status=$(status_json "$p" 7)
echo quit >&8
finish central 60 || fail "relay-central exited $?"
echo quit >&7
finish peripheral 60 || fail "relay-peripheral exited $?"

drops=$(grep -c 'sendmsg: Resource temporarily unavailable' "$out/bluetoothd.log" || true)
[ "$drops" -gt 0 ] || fail "bluetoothd dropped no notification: the flood did not overflow the socket"
expected=$(for index in 1 2 3 4; do sha "$out/m$index.bin"; done | paste -sd, -)
[ "$(json_list "$c" message sha256)" = "$expected" ] || fail "the central got '$(json_list "$c" message sha256)'"
resent=$(json_field "$status" delivery.resentBytes)
[ "$resent" -gt 0 ] || fail "nothing was sent again although bluetoothd dropped $drops notifications"
echo "PASS delivery-notify-socket (bluetoothd dropped $drops notifications; $resent bytes sent again; 4 of 4 delivered)"
