#!/usr/bin/env bash
# Hostile input 7, central side (issue 8), inside the bluez-vm guest: a foreign peripheral notifies
# garbage. scenarios/vm/peers/hostile_peripheral.py (bless on hci0) serves the relay service and, once
# relay-central (hci1, --max-message 65536) has subscribed, notifies 4 bursts of 300 hostile values
# at full speed (random bytes, truncated headers, first frames claiming up to 4 GiB, wrong CRCs,
# interleaved ids, reserved flags, unknown kinds and versions, then 150 first frames of new messages
# that never continue), each followed by one honest framed
# message (0 to 20 000 B) and one honest counter (1000 + round). relay-central must deliver every
# honest message intact and in order and every honest counter, report the garbage as error lines,
# rate-limited (at most 5 reports and one summary line a second), keep the link, never allocate beyond
# --max-message (VmHWM below 64 MiB; VmPeak, the virtual size, grows by less than 128 MiB: a buffer
# reserved for a lying length would show there even untouched), never crash, and still answer.
# vm-controllers: 2
# vm-timeout: 300
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
[ -n "$python" ] || fail "no Python venv (run scripts/python-env.sh on the host)"
c=$out/central.out
rounds=4 burst=300 firsts=150
vm_peak() { awk '/^VmPeak:/ { print $2 }' "/proc/$1/status"; }

open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json \
  --max-message 65536 --connect sample
wait_for_line "$c" '"event":"scanning"' 30 || fail "relay-central never scanned"
hwm_start=$(vm_hwm "${started[central]}") peak_start=$(vm_peak "${started[central]}")
flood_start=$(date +%s)
start hostile "$python" "$peers/hostile_peripheral.py" --adapter hci0 --rounds $rounds --burst $burst --firsts $firsts \
  --honest-file "$out/honest.sha" --timeout 240 --linger 60
wait_for_line "$c" '"event":"ready"' 90 || fail "relay-central never became ready: $(tail -n 2 "$out/hostile.err")"
wait_for_line "$out/hostile.err" 'done|timed out|Error' 250 || fail "the hostile peripheral did not finish"
grep -q done "$out/hostile.err" || fail "the hostile peripheral failed: $(tail -n 2 "$out/hostile.err")"
flood_seconds=$(( $(date +%s) - flood_start ))
wait_for_line "$c" "\"value\":$((1000 + rounds - 1))" 60 || true  # the last notifications may still be on their way
kill -0 "${started[central]}" || fail "relay-central died: $(tail -n 3 "$out/central.err")"
hwm_after=$(vm_hwm "${started[central]}") peak_after=$(vm_peak "${started[central]}")
echo status >&8
wait_for_line "$c" '"event":"status"' 20 || fail "relay-central does not answer status after the flood"
grep -q '"event":"disconnected"' "$c" && fail "relay-central lost the link during the flood"
echo quit >&8
finish central 30 || true
stop hostile

honest_messages=$(tr '\n' ',' < "$out/honest.sha")
[ "$(count "$out/honest.sha" .)" = $rounds ] || fail "the hostile peripheral sent $(count "$out/honest.sha" .) honest messages, not $rounds"
[ "$(field "$c" message sha256)" = "$honest_messages" ] ||
  fail "honest messages lost, corrupted or out of order: got $(count "$c" '"event":"message"') of $rounds"
[ "$(field "$c" counter value)" = "$(seq 1000 $((1000 + rounds - 1)) | tr '\n' ',')" ] ||
  fail "honest counters wrong: [$(field "$c" counter value)]"
errors=$(count "$c" '"event":"(error|dropped|receiving)"')
[ "$errors" -ge 1 ] || fail "the hostile values were not reported"
# The limits: 5 reports (an error and its dropped line) and one summary line per window of at
# least 1 s, so any 10 s hold at most 11 windows: 121 lines; and `receiving` lines (one per first
# frame of a new message, which a hostile peer can send at its own pace) 5 per window: 55.
densest=$(python3 "$(dirname "$0")/hostile-frames-rate.py" "$c" '"event":"(error|dropped)"' 10)
[ "$densest" -le 121 ] || fail "errors not rate-limited: $densest error/dropped lines within 10 s ($errors report lines in all for $((rounds * (burst + firsts))) hostile values in $flood_seconds s)"
announced=$(python3 "$(dirname "$0")/hostile-frames-rate.py" "$c" '"event":"receiving"' 10)
[ "$announced" -le 55 ] || fail "receiving lines not rate-limited: $announced within 10 s"
[ "$hwm_after" -le 65536 ] || fail "relay-central's peak memory reached $hwm_after KiB (at start: $hwm_start KiB)"
[ $((peak_after - peak_start)) -le 131072 ] || fail "relay-central's virtual size grew from $peak_start to $peak_after KiB"
echo "PASS hostile-frames-central ($(cat "$out/hostile.out"); $errors report lines in $flood_seconds s, at most $densest errors and $announced receiving within 10 s; VmHWM $hwm_start -> $hwm_after KiB; VmPeak $peak_start -> $peak_after KiB; $rounds honest messages and counters intact)"
