#!/usr/bin/env bash
# Fault 4 (issue 8), inside the bluez-vm guest: bluetoothd killed and restarted.
#   relay-peripheral (hci0) and relay-central --reconnect (hci1) exchange a counter and a
#   message; bluetoothd is killed (SIGKILL) and started again. Both programs must notice
#   org.bluez leaving (not-available) and coming back (poweredOn), the peripheral must register
#   and advertise again and the central reconnect, by themselves; then a counter and a message
#   go each way again.
# vm-controllers: 2
# vm-timeout: 240
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
p=$out/peripheral.out c=$out/central.out
state=/run/relay-vm

start_reconnecting_pair

bluez_on_bus() {
  dbus-send --system --print-reply=literal --dest=org.freedesktop.DBus / \
    org.freedesktop.DBus.NameHasOwner string:org.bluez 2>/dev/null | grep -q true
}

exchange_round 1 120
old=$(cat "$state/bluetoothd.pid")
kill -KILL "$old"
while kill -0 "$old" 2>/dev/null; do pause 0.05; done
wait_for_line "$p" '"state":"notAvailable"' 20 ||
  fail "the peripheral did not notice bluetoothd leaving"
wait_for_line "$c" '"state":"(notAvailable|unknown)"' 20 || fail "the central did not notice bluetoothd leaving"
pause 1
# Started the way scripts/vm/guest-bluetooth does, outside this scenario's process group, and
# recorded so that `guest-bluetooth down` stops it.
setsid taskset -c 0 bluetoothd -n -E -f "$RELAY_REPO/scripts/vm/bluetoothd.conf" > "$out/bluetoothd-restarted.log" 2>&1 < /dev/null &
echo $! > "$state/bluetoothd.pid"
for _ in $(seq 200); do bluez_on_bus && break; pause 0.1; done
bluez_on_bus || fail "bluetoothd did not come back on the bus"
wait_for_count "$p" '"state":"poweredOn"' 2 30 || fail "the peripheral did not report Bluetooth back on"
chrt -f -a -p 10 "$(cat "$state/bluetoothd.pid")" > /dev/null 2>&1 || true
wait_for_count "$p" '"event":"advertising"' 2 30 || fail "the peripheral did not advertise again by itself"
wait_for_count "$c" '"state":"poweredOn"' 2 30 || fail "the central did not report Bluetooth back on"
exchange_round 2 120

echo quit >&8
finish central 30 || true
echo quit >&7
finish peripheral 30 || true
[ "$(field "$p" counter value)" = "101,102," ] || fail "the peripheral got counters '$(field "$p" counter value)'"
[ "$(field "$c" counter value)" = "201,202," ] || fail "the central got counters '$(field "$c" counter value)'"
[ "$(field "$p" message text)" = "central round 1,central round 2," ] || fail "the peripheral got messages '$(field "$p" message text)'"
[ "$(field "$c" message text)" = "peripheral round 1,peripheral round 2," ] || fail "the central got messages '$(field "$c" message text)'"
echo "PASS fault-bluetoothd-restart (both noticed and recovered by themselves)"
