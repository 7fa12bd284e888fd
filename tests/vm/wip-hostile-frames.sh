#!/usr/bin/env bash
# Hostile input 7 (issue 8), inside the bluez-vm guest: a foreign central writes garbage.
#   relay-peripheral (hci0, --max-message 65536) serves an honest relay-central (hci1) and a
#   hostile bleak central (hci2, tests/vm/peers/hostile_central.py) that writes 3000 values at
#   full speed: random bytes, truncated frames, first frames claiming up to 4 GiB, wrong CRCs,
#   interleaved message ids, reserved flags, unknown kinds and versions. Meanwhile the honest
#   central sends messages. The peripheral must report the garbage as error lines, rate-limited
#   (far fewer lines than bad values), never allocate beyond --max-message (VmHWM stays below
#   64 MiB), never crash, and every honest message must arrive intact.
# vm-controllers: 3
# vm-timeout: 300
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
p=$out/peripheral.out c=$out/central.out
honest=${RELAY_VM_HCI1_ADDRESS:-00:AA:01:01:00:01}
hostile=${RELAY_VM_HCI2_ADDRESS:-00:AA:01:02:00:02}
[ -n "$python" ] || fail "no Python venv (run scripts/python-env.sh on the host)"
: > "$out/honest.sha"
for i in 1 2 3 4 5 6; do
  head -c $((i * 10000)) /dev/urandom > "$out/honest-$i.bin"
  sha256sum "$out/honest-$i.bin" | cut -d' ' -f1 >> "$out/honest.sha"
done

open_input peripheral 7
open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --connect sample
wait_for_line "$c" '"event":"scanning"' 30 || fail "the honest central never scanned"
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --max-message 65536
echo start >&7
wait_for_line "$c" '"event":"ready"' 90 || fail "the honest central never became ready"
echo "send-file $out/honest-1.bin" >&8
wait_for_count "$p" '"event":"message"' 1 30 || fail "the first honest message did not arrive"
hwm_before=$(vm_hwm "${started[peripheral]}")
start hostile "$python" "$peers/hostile_central.py" --adapter hci2 --writes 3000 --timeout 200
wait_for_line "$out/hostile.err" 'connected' 90 || fail "the hostile central never connected: $(tail -n 2 "$out/hostile.err")"
for i in 2 3 4 5 6; do echo "send-file $out/honest-$i.bin" >&8; done
finish hostile 220 || fail "the hostile central did not finish: $(tail -n 2 "$out/hostile.err")"
wait_for_count "$p" '"event":"message"' 6 60 || fail "honest messages lost during the flood: $(count "$p" '"event":"message"') of 6"
kill -0 "${started[peripheral]}" || fail "the peripheral died"
hwm_after=$(vm_hwm "${started[peripheral]}")
echo status >&7
wait_for_line "$p" '"event":"status"' 20 || fail "the peripheral does not answer status after the flood"
echo quit >&8
finish central 30 || true
echo quit >&7
finish peripheral 30 || true

[ "$(grep '"event":"message"' "$p" | grep -c "\"from\":\"$honest\"")" = 6 ] || fail "not all messages came from the honest central"
[ "$(field "$p" message sha256)" = "$(tr '\n' ',' < "$out/honest.sha")" ] || fail "honest messages corrupted or out of order"
grep '"event":"message"' "$p" | grep -q "\"from\":\"$hostile\"" && fail "a hostile value became a message"
errors=$(count "$p" '"event":"(error|dropped)".*'"$hostile")
[ "$errors" -ge 1 ] || fail "the hostile values were not reported"
[ "$errors" -le 600 ] || fail "not rate-limited: $errors report lines for 3000 hostile values"
grep -E '"event":"(error|dropped)"' "$p" | grep -q "$honest" && fail "the honest central was blamed: $(grep -E '"event":"(error|dropped)"' "$p" | grep "$honest" | head -n 1)"
[ "$hwm_after" -le 65536 ] || fail "the peripheral's peak memory reached $hwm_after KiB (before the flood: $hwm_before KiB)"
echo "PASS hostile-frames ($(cat "$out/hostile.out"); $errors report lines; VmHWM $hwm_before -> $hwm_after KiB; 6 honest messages intact)"
