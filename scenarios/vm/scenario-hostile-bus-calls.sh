#!/usr/bin/env bash
# Hostile input 8 (issue 8), inside the bluez-vm guest: another local process on the system
# bus calls relay-peripheral's exported GATT objects and advertisement directly (WriteValue,
# ReadValue, StartNotify, AcquireWrite/Notify, Release, Properties.Set, GetManagedObjects),
# 20 rounds of it. Every call must be refused with org.freedesktop.DBus.Error.AccessDenied,
# nothing may change (no counter, no subscription, still advertising with the same name, a real
# central still works afterwards) and the peripheral must report the refusals (rate-limited).
# vm-timeout: 180
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
p=$out/peripheral.out
[ -n "$python" ] || fail "no Python venv (run scripts/python-env.sh on the host)"

open_input peripheral 7
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json
echo start >&7
wait_for_line "$p" '"event":"advertising"' 60 || fail "the peripheral never advertised"
"$python" "$peers/hostile_bus_caller.py" --pid "${started[peripheral]}" --rounds 20 > "$out/caller.jsonl" 2> "$out/caller.err" ||
  fail "a hostile call was not refused with AccessDenied: $(grep -v AccessDenied "$out/caller.jsonl" | head -n 2) $(tail -n 1 "$out/caller.err")"
[ "$(wc -l < "$out/caller.jsonl")" -ge 20 ] || fail "the caller made only $(wc -l < "$out/caller.jsonl") calls"
echo status >&7
wait_for_line "$p" '"event":"status"' 20 || fail "no status"
status=$(grep '"event":"status"' "$p" | tail -n 1)
grep -q '"advertising":true' <<< "$status" || fail "no longer advertising: $status"
grep -q '"name":"sample"' <<< "$status" || fail "the name changed: $status"
grep -q '"centrals":\[\]' <<< "$status" || fail "a central appeared: $status"
grep -qE '"event":"(counter|subscribed|message|stopped)"' "$p" && fail "a hostile call changed something: $(grep -E '"event":"(counter|subscribed|message|stopped)"' "$p" | head -n 1)"
reports=$(count "$p" '"event":"error".*(refused|denied)')
[ "$reports" -ge 1 ] || fail "the peripheral did not report the refused calls"
[ "$reports" -le 40 ] || fail "the refusals flooded the output: $reports lines for $((20 * 25)) calls"
# A real central still works.
bleak_central --adapter hci1 --write 2 --expect-notify 0 --timeout 90 > "$out/bleak.out" 2> "$out/bleak.err" ||
  fail "bleak after the hostile calls: $(tail -n 1 "$out/bleak.err")"
wait_for_count "$p" '"event":"counter"' 2 20 || fail "the peripheral did not get bleak's counters"
echo quit >&7
finish peripheral 20 || true
echo "PASS hostile-bus-calls ($(wc -l < "$out/caller.jsonl") kinds of call x 20 refused; $reports report lines)"
