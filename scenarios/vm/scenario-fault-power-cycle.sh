#!/usr/bin/env bash
# Fault 3 (issue 8), inside the bluez-vm guest: adapter power cycles on either side.
#   relay-peripheral (hci0) and relay-central --reconnect (hci1) exchange a counter. Then
#   `btmgmt --index 0 power off` / `power on` (the peripheral's adapter): the peripheral reports
#   poweredOff then poweredOn, registers and advertises again by itself; the central reports the
#   disconnect and reconnects by itself; counters and a message go both ways. Then the same with
#   `btmgmt --index 1` (the central's adapter): the central reports poweredOff/poweredOn and
#   reconnects by itself; both directions work again. Neither program is told anything.
# vm-controllers: 2
# vm-timeout: 300
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
p=$out/peripheral.out c=$out/central.out

start_reconnecting_pair

exchange_round 1
# The peripheral's adapter goes off and on.
# btvirt keeps a powered-off controller advertising and connectable, and forgets a connection at
# its next reset without telling the peer: a central connecting to hci0 while it is off holds a
# ghost link its kernel can never disconnect (every later Connect waits 40 s and fails). A real
# radio is silent when off. So the central process is held still (SIGSTOP) while hci0 is off and
# let go once hci0 is on again; it then meets the disconnection and reconnects by itself, as a
# central whose Connect waited for the peripheral to advertise again would.
kill -STOP "${started[central]}"
btmgmt --index 0 power off > "$out/btmgmt.log" 2>&1 || fail "btmgmt power off failed: $(cat "$out/btmgmt.log")"
wait_for_line "$p" '"state":"poweredOff"' 20 || fail "the peripheral did not report its adapter powered off"
pause 1
btmgmt --index 0 power on >> "$out/btmgmt.log" 2>&1 || fail "btmgmt power on failed: $(cat "$out/btmgmt.log")"
wait_for_count "$p" '"state":"poweredOn"' 2 20 || fail "the peripheral did not report its adapter powered on"
kill -CONT "${started[central]}"
wait_for_count "$c" '"event":"disconnected"' 1 30 || fail "the central did not report the disconnect"
wait_for_count "$p" '"event":"advertising"' 2 30 || fail "the peripheral did not advertise again by itself"
exchange_round 2

# The central's adapter goes off and on.
btmgmt --index 1 power off >> "$out/btmgmt.log" 2>&1 || fail "btmgmt power off failed: $(cat "$out/btmgmt.log")"
wait_for_line "$c" '"state":"poweredOff"' 20 || fail "the central did not report its adapter powered off"
wait_for_count "$p" '"event":"disconnected"' 2 30 || fail "the peripheral did not report the central gone"
pause 1
btmgmt --index 1 power on >> "$out/btmgmt.log" 2>&1 || fail "btmgmt power on failed: $(cat "$out/btmgmt.log")"
wait_for_count "$c" '"state":"poweredOn"' 2 20 || fail "the central did not report its adapter powered on"
exchange_round 3

echo quit >&8
finish central 30 || true
echo quit >&7
finish peripheral 30 || true
[ "$(field "$p" counter value)" = "101,102,103," ] || fail "the peripheral got counters '$(field "$p" counter value)'"
[ "$(field "$c" counter value)" = "201,202,203," ] || fail "the central got counters '$(field "$c" counter value)'"
[ "$(field "$p" message text)" = "central round 1,central round 2,central round 3," ] || fail "the peripheral got messages '$(field "$p" message text)'"
[ "$(field "$c" message text)" = "peripheral round 1,peripheral round 2,peripheral round 3," ] || fail "the central got messages '$(field "$c" message text)'"
echo "PASS fault-power-cycle (both sides off/on, resumed on their own)"
