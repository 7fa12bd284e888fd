#!/usr/bin/env bash
# Both directions at once, as two people typing together: 512 KiB each way started together on
# the laptop radio, protocol 2 with its acknowledgements. Both arrive intact, and neither
# direction stalls while the other runs: when the first message arrives, the other direction's
# sender has moved at least a tenth of its bytes (a progress check, not a timing threshold). The
# sharing is uneven today: in 13 runs the other direction had moved 28-98 % (docs/performance.md,
# "Both directions at once"); a stall moves next to nothing. Not in `make test` yet: on the loaded
# CI machine one direction crawled to 13 %, a hair above the check, so it would fail now and
# then until the sharing is fixed (issue 32); then it becomes scenario-both-ways.sh. Run it with
#   scripts/bluez-vm run -- scenarios/vm/probe-both-ways.sh
# vm-controllers: 2
# vm-air: laptop
# vm-timeout: 300
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
source "$(dirname "$0")/delivery-lib.sh"
size=524288
head -c $size /dev/urandom > "$out/both.bin"
expected=$(sha "$out/both.bin")
p=$out/p.out c=$out/c.out
open_input p 7
open_input c 8
start_fed p "$fifos/p.in" "$bin/relay-peripheral" --adapter hci0 --json
echo start >&7
wait_for_line "$p" '"event":"advertising"' 60 || fail "not advertising"
start_fed c "$fifos/c.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --connect sample
wait_for_line "$c" '"event":"ready"' 60 || fail "the central is not ready"
grep '"event":"ready"' "$c" | grep -q '"protocol":2' || fail "not protocol 2: $(grep '"ready"' "$c")"
started=$EPOCHREALTIME
echo "send-file $out/both.bin" >&8
echo "send-file $out/both.bin" >&7
wait_for_line "$p" '"event":"message"' 200 || fail "central -> peripheral not delivered"
wait_for_line "$c" '"event":"message"' 200 || fail "peripheral -> central not delivered"
wait_for_line "$c" '"event":"delivered"' 30 || fail "the central saw no delivered"
wait_for_line "$p" '"event":"delivered"' 30 || fail "the peripheral saw no delivered"
ended=$EPOCHREALTIME
[ "$(json_values "$p" message sha256)" = "$expected" ] || fail "central -> peripheral: the content differs"
[ "$(json_values "$c" message sha256)" = "$expected" ] || fail "peripheral -> central: the content differs"

# The bytes a sender's last `progress` (out) before TIME says it moved.
moved_by() { # log time
  paste -d' ' <(json_values "$1" progress time direction=out) <(json_values "$1" progress bytes direction=out) |
    awk -v t="$2" '$1 <= t { bytes = $2 } END { print bytes + 0 }'
}
to_peripheral=$(json_values "$p" message time)
to_central=$(json_values "$c" message time)
if [[ "$to_peripheral" < "$to_central" ]]; then
  first="central -> peripheral" other="peripheral -> central" moved=$(moved_by "$p" "$to_peripheral")
else
  first="peripheral -> central" other="central -> peripheral" moved=$(moved_by "$c" "$to_central")
fi
echo "$first arrived first; $other had moved $moved of $size bytes by then"
echo "both ways: $(echo "scale=1; 2 * $size / 1024 / ($ended - $started)" | bc) KiB/s together (to the last delivered)"
[ "$moved" -ge $((size / 10)) ] || fail "$other stalled while $first ran: $moved of $size bytes when $first arrived"
for side in p c; do
  [ $side = p ] && fd=7 || fd=8
  echo "$side delivery $(json_field "$(status_json "$out/$side.out" $fd)" delivery)"
done
echo quit >&8; finish c 30
echo quit >&7; finish p 30
