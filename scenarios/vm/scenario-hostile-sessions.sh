#!/usr/bin/env bash
# Strangers in the room, protocol 2 (issue 30, items 1, 4, 5, 6, 9), inside the bluez-vm guest.
#   relay-peripheral (hci0, --delivery-timeout 15) with a hostile protocol-2 central on hci1
#   (scenarios/vm/peers/hostile_sessions.py) and an honest relay-central on hci2. The hostile one
#   says hello, hears the honest central's welcome (token in clear), then: says hello with that
#   token (takeover), sends one byte in two of a message declaring 60 000 bytes, answers every
#   data frame of the peripheral's messages with acknowledgements of bytes never sent, never an
#   honest one, and once those messages were given up floods 200 hellos on its live link.
#   Meanwhile the honest pair exchanges counters and three messages each way. Checks:
#   - the takeover hello is refused (an `error` line, no welcome for the victim's token after it)
#     and the honest central keeps its session: its three messages arrive at the peripheral once
#     and intact, the peripheral's three are `delivered` to it and arrive intact;
#   - the peripheral's three messages fail for the hostile central together, at one delivery
#     time-out (`no progress`), not one per time-out;
#   - a `subscribed` line for the hostile central at most every 5 s in spite of its hellos, and
#     one line saying it is cut off from protocol 2 (after 30 hellos on one link); the peripheral's
#     `error` and `dropped` lines about it at most 5 a second and one summary line;
#   - both programs' peak resident memory under 40 MB;
#   - the honest counter round trip (the central's `write` to its echo coming back) while the
#     hostile central floods, printed beside the one after it left (a figure, not an assertion).
# vm-controllers: 3
# vm-timeout: 300
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
p=$out/peripheral.out c=$out/central.out
hostile=${RELAY_VM_HCI1_ADDRESS:-00:AA:01:01:00:01}
honest=${RELAY_VM_HCI2_ADDRESS:-00:AA:01:02:00:02}
[ -n "$python" ] || fail "no Python venv (run scripts/python-env.sh on the host)"
: > "$out/to-peripheral.sha"
: > "$out/to-central.sha"
for i in 1 2 3; do
  head -c $((i * 3000)) /dev/urandom > "$out/c$i.bin"
  sha256sum "$out/c$i.bin" | cut -d' ' -f1 >> "$out/to-peripheral.sha"
  head -c $((i * 2000)) /dev/urandom > "$out/p$i.bin"
  sha256sum "$out/p$i.bin" | cut -d' ' -f1 >> "$out/to-central.sha"
done

open_input peripheral 7
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --echo \
  --delivery-timeout 15
echo start >&7
wait_for_line "$p" '"event":"advertising"' 60 || fail "the peripheral never advertised"
start hostile "$python" "$peers/hostile_sessions.py" --adapter hci1 --address "$hostile" --victims 1 \
  --linger 40 --timeout 240
wait_for_line "$out/hostile.out" '"event": "welcomed"' 60 || fail "the hostile central got no session: $(tail -n 2 "$out/hostile.err")"

open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci2 --json --connect sample
wait_for_line "$c" '"event":"ready".*"protocol":2' 90 || fail "the honest central is not ready with protocol 2: $(tail -n 1 "$c")"
# The counter first: the central's REPL takes each command once the one before it finished, and
# a send-file finishes when it is delivered.
loaded_at=$(date +%s.%N)
echo "write 41" >&8
for i in 1 2 3; do echo "send-file $out/c$i.bin" >&8; done
for i in 1 2 3; do echo "send-file $out/p$i.bin" >&7; done
finish hostile 250 || fail "the hostile central did not finish: $(tail -n 2 "$out/hostile.err")"
wait_for_count "$c" '"event":"counter".*"value":41' 1 30 || fail "the honest central's counter 41 did not come back"
quiet_at=$(date +%s.%N)
echo "write 42" >&8
wait_for_count "$p" '"event":"message".*"from":"'"$honest"'"' 3 60 ||
  fail "the honest central's messages did not all arrive: $(grep -c '"event":"message"' "$p")"
wait_for_count "$c" '"event":"message"' 3 60 || fail "the peripheral's messages did not all reach the honest central"
wait_for_count "$p" '"event":"delivered".*"to":"'"$honest"'"' 3 30 || fail "the peripheral's messages were not all delivered to the honest central"
wait_for_count "$p" '"event":"failed".*"to":"'"$hostile"'"' 3 60 || fail "the peripheral's messages did not fail for the hostile central"
wait_for_count "$c" '"event":"counter".*"value":42' 1 30 || fail "the honest central's counter 42 did not come back"
hwm_peripheral=$(vm_hwm "${started[peripheral]}") hwm_central=$(vm_hwm "${started[central]}")
echo status >&7
wait_for_line "$p" '"event":"status"' 20 || fail "the peripheral does not answer status"
echo quit >&8
finish central 30 || true
echo quit >&7
finish peripheral 30 || true

summary=$(tail -n 1 "$out/hostile.out")
subscribed=$(grep -c '"event":"subscribed".*'"$hostile" "$p")
[ "$subscribed" -le 3 ] || fail "the hostile central's 201 hellos gave $subscribed subscribed lines (one per 5 s at most)"
cut_off=$(grep -c '"event":"error".*cut off from protocol 2.*'"$hostile" "$p")
[ "$cut_off" = 1 ] || fail "the hello flood gave $cut_off 'cut off' lines, not one"
grep -q "\"event\":\"error\".*hello refused.*$honest" "$p" || fail "the takeover hello was not refused: $(grep '"event":"error"' "$p" | head -n 2)"
echo "$summary" | grep -q '"welcomes_for_victims_after_takeover": 0' || fail "the taker heard a welcome for the victim's token: $summary"
grep '"event":"message"' "$p" | grep "\"from\":\"$honest\"" > "$out/from-honest" || true
[ "$(field "$out/from-honest" message sha256)" = "$(tr '\n' ',' < "$out/to-peripheral.sha")" ] ||
  fail "the honest central's messages differ at the peripheral ($(count "$out/from-honest" .) of 3)"
grep '"event":"message"' "$c" > "$out/at-central" || true
[ "$(field "$out/at-central" message sha256)" = "$(tr '\n' ',' < "$out/to-central.sha")" ] ||
  fail "the peripheral's messages differ at the honest central"
grep -q '"event":"message".*"from":"'"$hostile"'"' "$p" && fail "a message of the hostile central was delivered"
# Seconds between the first and the last `failed` for the hostile central (one time-out: all at once).
failed_span=$(grep '"event":"failed".*"to":"'"$hostile"'"' "$p" | python3 -I -c '
import json, sys, datetime
times = [datetime.datetime.strptime(json.loads(line)["time"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() for line in sys.stdin]
print(f"{max(times) - min(times):.3f}" if times else "none")')
[ "$failed_span" != none ] && awk -v s="$failed_span" 'BEGIN { exit !(s < 1) }' ||
  fail "the hostile central's messages did not fail together ($failed_span s from the first to the last)"
grep '"event":"failed".*"to":"'"$hostile"'"' "$p" | grep -q 'no progress' || fail "the failure is not 'no progress': $(grep '"event":"failed"' "$p" | head -n 1)"
densest=$(python3 "$(dirname "$0")/hostile-frames-rate.py" "$p" '"event":"(error|dropped)".*'"$hostile" 10)
[ "$densest" -le 61 ] || fail "not paced: $densest report lines about the hostile central within 10 s"
[ "$hwm_peripheral" -le 40960 ] || fail "the peripheral's peak memory reached $hwm_peripheral KiB"
[ "$hwm_central" -le 40960 ] || fail "the central's peak memory reached $hwm_central KiB"
echo "PASS hostile-sessions ($summary; peak RSS peripheral $hwm_peripheral KiB, central $hwm_central KiB; at most $densest report lines about the hostile central within 10 s; $subscribed subscribed lines and $cut_off cut-off line for 201 hellos; its 3 messages failed within $failed_span s; honest counter round trip $(round_trip "$loaded_at" 41) ms while the hostile central flooded, $(round_trip "$quiet_at" 42) ms after it left)"
