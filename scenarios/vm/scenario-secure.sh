#!/usr/bin/env bash
# Scenario (inside the bluez-vm guest): secure mode, pairing with a passkey.
#   relay-peripheral --secure on hci0; relay-central --reconnect on hci1 connects, sees the
#   pairing characteristic and pairs (LE Secure Connections, passkey entry): the peripheral
#   shows the passkey (`pairing`), the central asks for it (`pairing-request`). First a wrong
#   passkey: both sides report `pairing-failed` and nothing is subscribed. Then `connect` again
#   and the right passkey: `paired` on both, counters and messages both ways. bleak on hci2,
#   not paired, writes six counters and 300 bytes without subscribing: bluetoothd drops them
#   (write commands to secure-write values), the peripheral never shows them and reports the
#   attempt (`pairing-failed`, `not-paired`) when bleak leaves. The central's link is cut,
#   bluetoothd killed and restarted and the controllers powered off and on (see step 4): the
#   central reconnects by itself on the kept bond, no passkey asked,
#   and counters and messages go both ways again. The peripheral runs with --allow naming the
#   central: the bonded central is served, and the intruder's values never reach the peripheral
#   at all (--allow counts none dropped: bluetoothd refused them first).
# vm-controllers: 3
# vm-timeout: 400
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
p=$out/peripheral.out c=$out/central.out
state=/run/relay-vm
peripheral_address=${RELAY_VM_HCI0_ADDRESS:?the VM did not say hci0\'s address}
central_address=${RELAY_VM_HCI1_ADDRESS:?the VM did not say hci1\'s address}
intruder=${RELAY_VM_HCI2_ADDRESS:?the VM did not say hci2\'s address}

open_input peripheral 7
open_input central 8
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --secure \
  --allow "$central_address"
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json \
  --connect sample --reconnect
wait_for_line "$c" '"event":"scanning"' 30 || fail "the central never scanned"
echo start >&7
wait_for_line "$p" '"event":"advertising"' 30 || fail "the peripheral never advertised"

# 1. A wrong passkey: refused on both sides.
wait_for_line "$c" '"event":"pairing-request"' 90 || fail "the central never asked for the passkey"
wait_for_line "$p" '"event":"pairing"' 10 || fail "the peripheral never showed a passkey"
shown=$(json_values "$p" pairing passkey | tail -n 1)
[[ $shown =~ ^[0-9]{6}$ ]] || fail "the passkey shown is '$shown'"
echo "passkey $(printf '%06d' $(((10#$shown + 1) % 1000000)))" >&8
wait_for_line "$c" '"event":"pairing-failed"' 60 || fail "the central did not report the failed pairing"
wait_for_line "$p" '"event":"pairing-failed"' 30 || fail "the peripheral did not report the failed pairing"
grep '"event":"pairing-failed"' "$c" | grep -q '"reason":"wrong-passkey"' ||
  fail "the central's failure: $(grep '"event":"pairing-failed"' "$c")"
grep '"event":"pairing-failed"' "$p" | grep "\"address\":\"$central_address\"" | grep -q '"reason":"not-completed"' ||
  fail "the peripheral's failure: $(grep '"event":"pairing-failed"' "$p")"
grep -q '"event":"subscribed"' "$p" && fail "a central subscribed without a bond"
grep -q '"event":"ready"' "$c" && fail "the central became ready without a bond"

# 2. The right passkey.
echo "connect $peripheral_address" >&8
wait_for_count "$c" '"event":"pairing-request"' 2 90 || fail "the second connection did not ask for the passkey"
wait_for_count "$p" '"event":"pairing"' 2 10 || fail "the peripheral did not show a second passkey"
shown=$(json_values "$p" pairing passkey | tail -n 1)
echo "passkey $shown" >&8
wait_for_line "$c" '"event":"paired"' 60 || fail "the central did not pair"
wait_for_line "$p" "\"event\":\"paired\",.*\"address\":\"$central_address\"" 30 || fail "the peripheral did not report the bond"
exchange_round 1 120

# 3. An intruder without a bond: its write commands are dropped by bluetoothd.
start bleak bleak_central --adapter hci2 --no-subscribe --write 6 --send-bytes 300 --timeout 120 \
  --output "$out/bleak.values"
finish bleak 130 || fail "bleak failed: $(tail -n 1 "$out/bleak.err")"
# Its leaving is reported before bluetoothd goes (checked below).
wait_for_line "$p" "\"event\":\"pairing-failed\",.*\"address\":\"$intruder\"" 30 || true

# 4. bluetoothd restarted: the bond is kept, the central reconnects without a passkey.
bluez_on_bus() {
  dbus-send --system --print-reply=literal --dest=org.freedesktop.DBus / \
    org.freedesktop.DBus.NameHasOwner string:org.bluez 2>/dev/null | grep -q true
}
# The link goes first, while bluetoothd runs, and the controllers are powered off and on after
# the restart: in the guest's kernel (Debian 12's 6.1) the teardown of an encrypted link that
# outlived a bluetoothd restart, or of a bonded central's new link right after one, hit a BUG
# (list_del corruption in hci_chan_del) that killed bluetoothd, one run in eight. The new link
# failed first with "security requested but not available": the kernel registers a controller's
# SMP channel when it powers on and sets a new link's fixed channels up newest listener first,
# so after a restart on powered controllers bluetoothd's ATT listener came first and could raise
# the link's security (from another vCPU) before its SMP channel existed. Powered on after the
# restart, as after a reboot, SMP is the newer. The central is held meanwhile.
kill -STOP "${started[central]}"
btmgmt --index 1 disconnect -t 1 "$peripheral_address" > "$out/btmgmt.log" 2>&1 ||
  fail "btmgmt disconnect failed: $(cat "$out/btmgmt.log")"
wait_for_line "$p" "\"event\":\"disconnected\",.*\"address\":\"$central_address\"" 20 ||
  fail "the peripheral did not see the central's link go"
old=$(cat "$state/bluetoothd.pid")
kill -KILL "$old"
while kill -0 "$old" 2>/dev/null; do pause 0.05; done
wait_for_line "$p" '"state":"notAvailable"' 20 || fail "the peripheral did not notice bluetoothd leaving"
pause 1
setsid taskset -c 0 bluetoothd -n -E -f "$RELAY_REPO/scripts/vm/bluetoothd.conf" > "$out/bluetoothd-restarted.log" 2>&1 < /dev/null &
echo $! > "$state/bluetoothd.pid"
for _ in $(seq 200); do bluez_on_bus && break; pause 0.1; done
bluez_on_bus || fail "bluetoothd did not come back on the bus"
chrt -f -a -p 10 "$(cat "$state/bluetoothd.pid")" > /dev/null 2>&1 || true
wait_for_count "$p" '"event":"advertising"' 2 30 || fail "the peripheral did not advertise again by itself"
btmgmt --index 1 power off >> "$out/btmgmt.log" 2>&1 || fail "btmgmt power off failed: $(cat "$out/btmgmt.log")"
btmgmt --index 0 power off >> "$out/btmgmt.log" 2>&1 || fail "btmgmt power off failed: $(cat "$out/btmgmt.log")"
wait_for_line "$p" '"state":"poweredOff"' 20 || fail "the peripheral did not report its adapter off"
btmgmt --index 0 power on >> "$out/btmgmt.log" 2>&1 || fail "btmgmt power on failed: $(cat "$out/btmgmt.log")"
wait_for_count "$p" '"event":"advertising"' 3 30 || fail "the peripheral did not advertise after power-on"
btmgmt --index 1 power on >> "$out/btmgmt.log" 2>&1 || fail "btmgmt power on failed: $(cat "$out/btmgmt.log")"
kill -CONT "${started[central]}"
exchange_round 2 120

echo status >&7
wait_for_line "$p" '"event":"status"' 10 || fail "no status"
echo quit >&8
finish central 30 || fail "relay-central exited with an error"
echo quit >&7
finish peripheral 30 || fail "relay-peripheral exited with an error"

[ "$(count "$c" '"event":"pairing-request"')" = 2 ] || fail "the central asked for a passkey after the restart"
[ "$(count "$p" '"event":"pairing"')" = 2 ] || fail "the peripheral showed a passkey after the restart"
[ "$(field "$p" counter value)" = "101,102," ] || fail "the peripheral got counters '$(field "$p" counter value)'"
[ "$(json_values "$p" counter from | sort -u)" = "$central_address" ] || fail "a counter came from someone else"
[ "$(field "$c" counter value)" = "201,202," ] || fail "the central got counters '$(field "$c" counter value)'"
[ "$(field "$p" message text)" = "central round 1,central round 2," ] ||
  fail "the peripheral got messages '$(field "$p" message text)'"
[ "$(field "$c" message text)" = "peripheral round 1,peripheral round 2," ] ||
  fail "the central got messages '$(field "$c" message text)'"
grep '"event":"\(counter\|message\)"' "$p" | grep -q "$intruder" && fail "the intruder's values were shown"
# No error but a reconnect attempt that met bluetoothd still starting, retried (the wrong passkey
# is the pairing-failed line alone).
others=$(grep '"event":"error"' "$c" | grep -v 'retrying in' || true)
[ -z "$others" ] || fail "central error: $(head -n 1 <<< "$others")"
[ "$(count "$c" '"event":"pairing-failed"')" = 1 ] || fail "the central reported $(count "$c" '"event":"pairing-failed"') failed pairings"
status=$(grep '"event":"status"' "$p" | tail -n 1)
grep -q '"secure":{"paired":1,"failed":2' <<< "$status" || fail "status: $status"
grep '"event":"pairing-failed"' "$p" | grep "\"address\":\"$intruder\"" | grep -q '"reason":"not-paired"' ||
  fail "the peripheral did not report the intruder: $(grep '"event":"pairing-failed"' "$p")"
grep -q "\"allow\":{\"centrals\":\[\"$central_address\"\],\"dropped\":0}" <<< "$status" ||
  fail "--allow saw values bluetoothd should have refused: $status"
echo "PASS secure (wrong passkey refused, paired, intruder's writes dropped, bond kept over a bluetoothd restart)"
