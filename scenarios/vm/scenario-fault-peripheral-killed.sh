#!/usr/bin/env bash
# Fault 2 (issue 8), inside the bluez-vm guest: the peripheral disappears mid-message.
#   relay-central --reconnect (hci1) connects to relay-peripheral (hci0), which starts sending
#   a 4 MiB message; the peripheral process is killed (SIGKILL) mid-message, as soon as the
#   central receives the first frame. BlueZ keeps the LE link (the central's bluetoothd owns it)
#   and first sends what the killed program had already handed to it, then removes the relay
#   service (Service Changed). The central must report the disconnect and, once the resume
#   time-out passed (15 s here: protocol 2 keeps a cut transfer for the peripheral to come back),
#   the partial message dropped; when a new relay-peripheral starts on hci0 it reconnects by
#   itself and a counter and a message go each way.
# bluetoothd takes notifications from the program much faster than the air carries them (about
# 25 KB/s here), so the program must be killed before it has handed over the whole message
# (checked: no `sent` line), and the central can only notice once that backlog has drained.
# vm-controllers: 2
# vm-timeout: 360
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
p1=$out/peripheral1.out p2=$out/peripheral2.out c=$out/central.out

head -c 4194304 /dev/urandom > "$out/big.bin"
open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --connect sample --reconnect \
  --max-message 8388608 --resume-timeout 15
wait_for_line "$c" '"event":"scanning"' 30 || fail "the central never scanned"
open_input peripheral1 7
start_fed peripheral1 "$fifos/peripheral1.in" "$bin/relay-peripheral" --adapter hci0 --json
echo start >&7
wait_for_line "$p1" '"event":"subscribed"' 90 || fail "the central never subscribed"
echo "send-file $out/big.bin" >&7
wait_for_line "$c" '"event":"receiving"' 60 || fail "the central never started receiving"
kill -KILL "${started[peripheral1]}"
grep -q '"event":"sent"' "$p1" && fail "relay-peripheral had handed the whole message to bluetoothd: cannot kill mid-message"
finish peripheral1 5 || true
exec 7>&-
wait_for_line "$c" '"event":"dropped"' 180 || fail "the central did not report the partial message dropped"
wait_for_line "$c" '"event":"disconnected"' 60 || fail "the central did not report the disconnect"
dropped=$(grep '"event":"dropped"' "$c" | head -n 1)

open_input peripheral2 6
start_fed peripheral2 "$fifos/peripheral2.in" "$bin/relay-peripheral" --adapter hci0 --json
echo start >&6
wait_for_line "$p2" '"event":"subscribed"' 120 || fail "the central did not reconnect by itself"
wait_for_count "$c" '"event":"ready"' 2 30 || fail "the central is not ready again"
echo "write 5" >&8
echo "send after the fault from the central" >&8
wait_for_line "$p2" '"event":"message"' 30 || fail "no message at the new peripheral"
echo "notify 9" >&6
echo "send after the fault from the peripheral" >&6
wait_for_line "$c" '"event":"message"' 30 || fail "no message at the central"
echo quit >&8
finish central 30 || true
echo quit >&6
finish peripheral2 30 || true
[ "$(field "$p2" counter value)" = "5," ] || fail "the peripheral got counters '$(field "$p2" counter value)'"
[ "$(field "$p2" message text)" = "after the fault from the central," ] || fail "the peripheral got '$(field "$p2" message text)'"
[ "$(field "$c" counter value)" = "9," ] || fail "the central got counters '$(field "$c" counter value)'"
[ "$(field "$c" message text)" = "after the fault from the peripheral," ] || fail "the central got '$(field "$c" message text)'"
echo "PASS fault-peripheral-killed ($dropped)"
