#!/usr/bin/env bash
# relay-central --nus against Nordic UART Service devices (issue 18), inside the bluez-vm guest:
#   1. A micro:bit-style device (scenarios/vm/peers/microbit_uart.py, bless, hci2): swapped RX/TX
#      (6E400002 indicates, 6E400003 takes writes), no UART service in its advertisement. relay-central
#      (hci1) started with --nus --connect "BBC micro:bit [zavit]" finds it by name, takes the
#      writable characteristic as RX and subscribes to the indicating one: its greeting arrives as a
#      line ("via":"nus"); `send` of a short line and of 2 KiB of multi-byte text reach it as values of
#      at most MTU-3 bytes, each valid UTF-8, with LF, and its echoes (indications of 20 bytes) come
#      back as whole lines. `write` and `send-file` are refused in one line.
#   2. relay-peripheral (hci0) as the UART device: `connect --nus ADDRESS`; the central's line is a
#      message "via":"nus" on the peripheral, listed apart in its status; the peripheral's `send`
#      reaches the central as a line.
# vm-controllers: 3
# vm-timeout: 300
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
p=$out/peripheral.out c=$out/central.out
text=$(printf 'räksmörgås 写真 🙂 %.0s' {1..80})
text=${text% } # the REPL takes `send`'s text without trailing blanks

start microbit "$python" "$peers/microbit_uart.py" --adapter hci2 --timeout 250
wait_for_line "$out/microbit.err" 'advertising' 60 || fail "the micro:bit emulator did not advertise"
open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --nus --adapter hci1 --json --scan-timeout 60 \
  --connect "BBC micro:bit [zavit]"
wait_for_line "$c" '"event":"ready".*"service":"nus"' 90 || fail "relay-central --nus is not ready: $(tail -n 3 "$c")"
mtu=$(json_values "$c" ready mtu | head -n 1)
[ "$(json_values "$c" ready notify | head -n 1)" = signal ] || fail "an indicating TX is not subscribed with StartNotify"
wait_for_line "$c" '"event":"message".*"text":"hello from micro:bit".*"via":"nus"' 30 ||
  fail "the micro:bit's greeting did not arrive as a line"
echo "send hello micro:bit" >&8
echo "send $text" >&8
echo "write" >&8
printf "not text for a UART\n" > "$out/small.txt"
echo "send-file $out/small.txt" >&8
wait_for_count "$c" '"event":"message".*"via":"nus"' 3 120 || fail "the echoes did not arrive: $(tail -n 3 "$c")"
echo disconnect >&8
wait_for_line "$c" '"event":"disconnected"' 30 || fail "relay-central did not disconnect from the micro:bit"
kill "${started[microbit]}"
finish microbit 15 || fail "the micro:bit emulator failed: $(tail -n 3 "$out/microbit.err")"
got=$(json_values "$c" message text | paste -sd '|' -)
[ "$got" = "hello from micro:bit|echo: hello micro:bit|echo: $text" ] || fail "lines from the micro:bit: $got"
"$python" - "$out/microbit.out" "$text" "$mtu" <<'PY' || fail "the micro:bit did not get the text right"
import json, sys
report = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert report["lines"] == ["hello micro:bit", sys.argv[2]], report["lines"]
assert report["valid_utf8_values"] == report["values"], report
assert report["max_value"] <= int(sys.argv[3]) - 3, report
print(f"micro:bit: {report['values']} writes of at most {report['max_value']} bytes at MTU {sys.argv[3]}, "
      f"each valid UTF-8; {report['indications']} indications back in all")
PY
[ "$(count "$c" '"event":"sent".*"via":"nus"')" = 2 ] || fail "relay-central did not report both texts sent"
errors=$(json_values "$c" error message)
grep -q '^write: a UART device takes lines of text' <<< "$errors" || fail "write was not refused: $errors"
grep -q '^send-file: .*lines of text' <<< "$errors" || fail "send-file was not refused: $errors"

# 2. relay-peripheral as the UART device.
open_input peripheral 7
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json
echo start >&7
wait_for_line "$p" '"event":"advertising"' 60 || fail "relay-peripheral did not advertise"
echo "connect --nus ${RELAY_VM_HCI0_ADDRESS:-00:AA:01:00:00:00}" >&8
wait_for_count "$c" '"event":"ready".*"service":"nus"' 2 90 || fail "relay-central --nus is not ready with relay-peripheral"
echo "send hello over nus" >&8
wait_for_line "$p" '"event":"message".*"text":"hello over nus".*"via":"nus"' 30 ||
  fail "relay-peripheral did not get the line: $(tail -n 3 "$p")"
echo "send héllo central" >&7
wait_for_count "$c" '"event":"message".*"via":"nus"' 4 30 || fail "relay-central did not get the peripheral's line"
[ "$(json_values "$c" message text | tail -n 1)" = "héllo central" ] || fail "the peripheral's line differs"
echo status >&7
wait_for_line "$p" '"event":"status"' 10 || fail "no status"
"$python" - "$p" "${RELAY_VM_HCI1_ADDRESS:-00:AA:01:01:00:01}" <<'PY' || fail "status is not right"
import json, sys
status = [json.loads(line) for line in open(sys.argv[1]) if '"event":"status"' in line][-1]
assert status["centrals"] == [], status["centrals"]
assert status["nus"]["lines"] == 1, status["nus"]
assert sys.argv[2] in json.dumps(status["nus"]), status["nus"]
PY
echo quit >&8
status=0
finish central 30 || status=$?
[ $status = 1 ] || fail "relay-central exited $status (1 expected: write and send-file were refused)"
echo quit >&7
finish peripheral 30 || fail "relay-peripheral exited $?"
echo "PASS nus-central"
