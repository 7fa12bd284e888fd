#!/usr/bin/env bash
# Hostile input 7 (issue 8), inside the bluez-vm guest: a foreign central writes garbage.
#   relay-peripheral (hci0, --max-message 65536) is connected by a hostile bleak central (hci1,
#   scenarios/vm/peers/hostile_central.py) that writes 4 bursts of 300 values at full speed: random
#   bytes, truncated frames, first frames claiming up to 4 GiB, wrong CRCs, interleaved message
#   ids, reserved flags, unknown kinds and versions, then 150 first frames of new messages that
#   never continue; after each burst one honest framed message
#   (0 to 20 000 B) and one honest counter (1000 + round). The peripheral must deliver exactly the
#   honest messages, intact and in order, and the honest counters; report the garbage as error
#   lines, rate-limited (at most 5 reports and one summary line a second); never allocate beyond --max-message
#   (VmHWM below 64 MiB; VmPeak, the virtual size, grows by less than 128 MiB: a buffer reserved
#   for a lying length would show there even untouched); never crash. Then an honest relay-central
#   (hci2) connects and its messages arrive intact.
# btvirt (BlueZ 5.66's emulator) gives every LE connection the handle 42, so a controller cannot
# hold two connections at once (the kernel refuses the second "hci0:42" and both links drop): the
# honest traffic during the flood comes from the hostile central itself, between its bursts, and
# the honest relay-central comes after it.
# vm-controllers: 3
# vm-timeout: 300
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
p=$out/peripheral.out c=$out/central.out
hostile=${RELAY_VM_HCI1_ADDRESS:-00:AA:01:01:00:01}
honest=${RELAY_VM_HCI2_ADDRESS:-00:AA:01:02:00:02}
rounds=4 burst=300 firsts=150
[ -n "$python" ] || fail "no Python venv (run scripts/python-env.sh on the host)"
vm_peak() { awk '/^VmPeak:/ { print $2 }' "/proc/$1/status"; }
: > "$out/after.sha"
for i in 1 2; do
  head -c $((i * 20000)) /dev/urandom > "$out/after-$i.bin"
  sha256sum "$out/after-$i.bin" | cut -d' ' -f1 >> "$out/after.sha"
done

open_input peripheral 7
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --max-message 65536
echo start >&7
wait_for_line "$p" '"event":"advertising"' 60 || fail "the peripheral never advertised"
hwm_before=$(vm_hwm "${started[peripheral]}") peak_before=$(vm_peak "${started[peripheral]}")
flood_start=$(date +%s)
start hostile "$python" "$peers/hostile_central.py" --adapter hci1 --rounds $rounds --burst $burst --firsts $firsts \
  --honest-file "$out/hostile.sha" --timeout 240
finish hostile 250 || fail "the hostile central did not finish: $(tail -n 2 "$out/hostile.err")"
flood_seconds=$(( $(date +%s) - flood_start ))
kill -0 "${started[peripheral]}" || fail "the peripheral died: $(tail -n 3 "$out/peripheral.err")"
hwm_after=$(vm_hwm "${started[peripheral]}") peak_after=$(vm_peak "${started[peripheral]}")
wait_for_count "$p" '"event":"message"' $rounds 30 || true
wait_for_line "$p" '"event":"disconnected"' 30 || fail "the peripheral did not see the hostile central leave"
wait_for_line "$p" '"event":"advertising"' 30 || true

open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci2 --json --connect sample
wait_for_line "$c" '"event":"ready"' 90 || fail "the honest central never became ready after the flood: $(tail -n 1 "$c")"
for i in 1 2; do echo "send-file $out/after-$i.bin" >&8; done
wait_for_count "$p" '"event":"message"' $((rounds + 2)) 60 || fail "the honest central's messages did not arrive after the flood"
echo status >&7
wait_for_line "$p" '"event":"status"' 20 || fail "the peripheral does not answer status after the flood"
echo quit >&8
finish central 30 || true
echo quit >&7
finish peripheral 30 || true

grep '"event":"message"' "$p" | grep "\"from\":\"$hostile\"" > "$out/from-hostile" || true
grep '"event":"message"' "$p" | grep "\"from\":\"$honest\"" > "$out/from-honest" || true
[ "$(field "$out/from-hostile" message sha256)" = "$(tr '\n' ',' < "$out/hostile.sha")" ] ||
  fail "the hostile central's honest messages were lost, corrupted, reordered, or garbage became a message ($(count "$out/from-hostile" .) messages for $(count "$out/hostile.sha" .) honest ones)"
[ "$(field "$out/from-honest" message sha256)" = "$(tr '\n' ',' < "$out/after.sha")" ] ||
  fail "the honest central's messages after the flood differ"
[ "$(field "$p" counter value)" = "$(seq 1000 $((1000 + rounds - 1)) | tr '\n' ',')" ] ||
  fail "the honest counters between the bursts differ: [$(field "$p" counter value)]"
errors=$(count "$p" '"event":"(error|dropped)".*'"$hostile")
[ "$errors" -ge 1 ] || fail "the hostile values were not reported"
# The limit: 5 reports (an error and its dropped line) and one summary line per window of at
# least 1 s, so any 10 s hold at most 11 windows: 121 lines.
densest=$(python3 "$(dirname "$0")/hostile-frames-rate.py" "$p" '"event":"(error|dropped)"' 10)
[ "$densest" -le 121 ] || fail "not rate-limited: $densest report lines within 10 s ($errors in all for $((rounds * (burst + firsts))) hostile values in $flood_seconds s)"
grep -E '"event":"(error|dropped)"' "$p" | grep -q "$honest" && fail "the honest central was blamed: $(grep -E '"event":"(error|dropped)"' "$p" | grep "$honest" | head -n 1)"
[ "$hwm_after" -le 65536 ] || fail "the peripheral's peak memory reached $hwm_after KiB (before the flood: $hwm_before KiB)"
[ $((peak_after - peak_before)) -le 131072 ] || fail "the peripheral's virtual size grew from $peak_before to $peak_after KiB"
echo "PASS hostile-frames ($(cat "$out/hostile.out"); $errors report lines in $flood_seconds s, at most $densest within 10 s; VmHWM $hwm_before -> $hwm_after KiB; VmPeak $peak_before -> $peak_after KiB; $rounds honest messages and counters intact, 2 after the flood)"
