#!/usr/bin/env bash
# --trace (issue 18) inside the bluez-vm guest: relay-peripheral (hci0) traces in human pipe mode,
# relay-central (hci1) with --json. A counter and a short text each way with protocol 2: both
# programs show every value that went over the air with its bytes and meaning (the handshake, the
# counters, the data frames, the acknowledgements), each side's lines agree with the other's, and
# the article emulators' view is unchanged (--trace only prints).
# vm-controllers: 2
# vm-timeout: 120
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
p=$out/peripheral.out c=$out/central.out
open_input peripheral 7
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --trace
echo start >&7
wait_for_line "$p" '^advertising' 60 || fail "relay-peripheral did not advertise: $(tail -n 3 "$p")"
open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --trace \
  --connect sample
wait_for_line "$c" '"event":"ready".*"protocol":2' 90 || fail "relay-central is not ready with protocol 2"
echo "write 77" >&8
wait_for_line "$p" '^counter 77 from' 30 || fail "the counter did not arrive"
echo "notify 88" >&7
wait_for_line "$c" '"event":"counter".*"value":88' 30 || fail "the peripheral's counter did not arrive"
echo "send over the air" >&8
wait_for_line "$p" 'message .*"over the air"' 30 || fail "the central's text did not arrive"
echo "send and back" >&7
wait_for_line "$c" '"event":"delivered"' 30 || fail "the central's text was not delivered"
wait_for_line "$p" '^delivered message 1' 30 || fail "the peripheral's text was not delivered"
# The peripheral's human lines: what it received and what it notified.
for pattern in \
  '^trace \+[0-9]+\.[0-9]{3} s in session from central [0-9A-F:]{17} 20 bytes b2 01 02 00 .*: hello v2 token 0x' \
  '^trace .* out session 18 bytes b2 02 02 .*: welcome v2 session 1 ' \
  '^trace .* in session from central .* 4 bytes 4d 00 00 00: counter 77$' \
  '^trace .* out session .*: counter 88$' \
  '^trace .* in session from central .*: data session 1 transfer [0-9]+ offset 0, 23 stream bytes; header text, length 12, ' \
  '^trace .* out session .*: acknowledgement delivered session 1 transfer [0-9]+ received 23$' \
  '^trace .* out session .*: data session 1 transfer [0-9]+ offset 0, 19 stream bytes; header text, length 8'; do
  grep -qE -- "$pattern" "$p" || fail "no peripheral trace line like: $pattern"
done
# The central's JSON events: the same values the other way round.
for meaning in 'hello v2 token' 'welcome v2 session 1' 'counter 77' 'counter 88' \
  'data session 1 transfer [0-9]+ offset 0, 23 stream bytes' \
  'acknowledgement delivered session 1 transfer [0-9]+ received 23' \
  'data session 1 transfer [0-9]+ offset 0, 19 stream bytes' \
  'acknowledgement delivered session 1 transfer [0-9]+ received 19'; do
  grep -qE "\"event\":\"trace\".*\"meaning\":\"$meaning" "$c" || fail "no central trace event: $meaning"
done
grep -q '"event":"trace","time":"[^"]*","direction":"out","characteristic":"session","peer":"[0-9A-F:]*","length":4,"hex":"4d000000","meaning":"counter 77"' "$c" \
  || fail "the central's counter trace is not as documented: $(grep '"counter 77' "$c" | head -n 1)"
echo "peripheral: $(grep -c '^trace ' "$p") trace lines; central: $(grep -c '"event":"trace"' "$c") trace events"
grep '^trace ' "$p" | head -n 8 | cut -c1-160
echo quit >&8
finish central 30 || fail "relay-central exited $?"
echo quit >&7
finish peripheral 30 || fail "relay-peripheral exited $?"
echo "PASS trace"
