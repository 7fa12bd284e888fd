#!/usr/bin/env bash
# Protocol 2 (issue 15, test 2), inside the bluez-vm guest: bluetoothd killed and restarted in
# the middle of a message each way. relay-peripheral (hci0) sends relay-central --reconnect
# (hci1) 2 MiB; once that flows, the central sends 512 KiB; once that flows too, bluetoothd is
# killed (SIGKILL) and started again. Both must resume (`resumed`, offset above 0) and deliver
# intact. One after the other, each waited for: send-file reads a file through before its first
# frame (about 45 KiB/s in the debug build in the guest), so two sends typed at once raced (the
# central's 512 KiB was once delivered before the peripheral's 2 MiB had begun). The 2 MiB take
# at least 45 s on the laptop radio, and must: while the central receives, its own sending
# crawls (400-500 bytes a second, issue 32), and with 1 MiB the peripheral's message was
# delivered before the central's had sent 30 000 bytes (the cut then missed it).
# vm-controllers: 2
# vm-timeout: 540
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
source "$(dirname "$0")/delivery-lib.sh"
p=$out/peripheral.out c=$out/central.out
state=/run/relay-vm
size=524288
random_file "$out/c.bin" $size
random_file "$out/p.bin" $((size * 4))

open_input peripheral 7
open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json \
  --connect sample --reconnect
wait_for_line "$c" '"event":"scanning"' 30 || fail "the central never scanned"
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json
echo start >&7
wait_for_line "$c" '"event":"ready".*"protocol":2' 60 || fail "the central did not become ready with protocol 2"
wait_for_line "$p" '"event":"subscribed".*"protocol":2' 30 || fail "the peripheral saw no protocol-2 central"

echo "send-file $out/p.bin" >&7
wait_progress "$c" in 60000 180 || fail "the peripheral's message did not get going"
echo "send-file $out/c.bin" >&8
wait_progress "$c" out 30000 120 || fail "the central's message did not get going"
[ "$(json_count "$c" delivered)" = 0 ] && [ "$(json_count "$p" delivered)" = 0 ] \
  || fail "a message was delivered before bluetoothd was killed: the test did not cut both"

bluez_on_bus() {
  dbus-send --system --print-reply=literal --dest=org.freedesktop.DBus / \
    org.freedesktop.DBus.NameHasOwner string:org.bluez 2>/dev/null | grep -q true
}
old=$(cat "$state/bluetoothd.pid")
kill -KILL "$old"
while kill -0 "$old" 2>/dev/null; do pause 0.05; done
wait_for_line "$p" '"state":"notAvailable"' 20 || fail "the peripheral did not notice bluetoothd leaving"
pause 1
# Started as scripts/vm/guest-bluetooth does, outside this process group, and recorded for `down`.
setsid taskset -c 0 bluetoothd -n -E -f "$state/bluetoothd.conf" > "$out/bluetoothd-restarted.log" 2>&1 < /dev/null &
echo $! > "$state/bluetoothd.pid"
for _ in $(seq 200); do bluez_on_bus && break; pause 0.1; done
bluez_on_bus || fail "bluetoothd did not come back on the bus"
chrt -f -a -p 10 "$(cat "$state/bluetoothd.pid")" > /dev/null 2>&1 || true

wait_for_line "$c" '"event":"resumed"' 120 || fail "the central did not resume"
wait_for_line "$p" '"event":"resumed"' 120 || fail "the peripheral did not resume"
wait_for_line "$c" '"event":"delivered"' 180 || fail "the central's message was not delivered"
wait_for_line "$p" '"event":"delivered"' 180 || fail "the peripheral's message was not delivered"
echo quit >&8
finish central 60 || fail "relay-central exited $?"
echo quit >&7
finish peripheral 60 || fail "relay-peripheral exited $?"
[ "$(json_list "$p" message sha256)" = "$(sha "$out/c.bin")" ] || fail "the peripheral got '$(json_list "$p" message sha256)'"
[ "$(json_list "$c" message sha256)" = "$(sha "$out/p.bin")" ] || fail "the central got '$(json_list "$c" message sha256)'"
for file in "$c" "$p"; do
  offset=$(json_values "$file" resumed offset | head -n 1)
  [ "${offset:-0}" -gt 0 ] || fail "$(basename "$file") resumed from offset '${offset:-none}'"
done
[ "$(json_count "$c" failed)" = 0 ] && [ "$(json_count "$p" failed)" = 0 ] || fail "a message failed"
echo "PASS delivery-bluetoothd-restart (central resumed from $(json_values "$c" resumed offset | head -n 1), peripheral from $(json_values "$p" resumed offset | head -n 1))"
