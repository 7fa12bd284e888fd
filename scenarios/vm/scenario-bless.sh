#!/usr/bin/env bash
# Scenario 3b (inside the bluez-vm guest): a third-party peripheral that no one here wrote,
# against relay-central. scenarios/vm/peers/bless_peripheral.py (bless, PyPI) serves the article's
# UUIDs on hci0 and speaks only raw 4-byte counters: relay-central on hci1 scans, finds it,
# connects, subscribes, must show exactly the counters 0, 1, 2 it notifies, and writes 0, 1, 2
# that bless must receive exactly. `read` must read both characteristics.
# vm-timeout: 150
source "$(dirname "$0")/lib.sh"

cat > "$out/central.script" <<'SCRIPT'
wait state 30
scan
wait discovered 60
connect 0
wait counter 30
wait counter 10
wait counter 10
write
write
write
read
status
disconnect
SCRIPT

# The central scans before the peripheral advertises (scenario-article starts them the other way).
start central bash -c 'exec "$0" --adapter hci1 --json --scan-timeout 60 < "$1"' "$bin/relay-central" "$out/central.script"
wait_for_line "$out/central.out" '"event":"scanning"' 30 || fail "relay-central did not scan: $(tail -n 2 "$out/central.out")"
start peripheral bless_peripheral --adapter hci0 --expect-writes 3 --notify 3 --interval 0.2 --timeout 120
finish central 120 || fail "relay-central failed: $(grep '"event":"error"' "$out/central.out" | head -n 3)"
finish peripheral 30 || fail "the bless peripheral failed: $(tail -n 1 "$out/peripheral.err")"
expect_values "$out/peripheral.out" "counters relay-central wrote to bless" 0 1 2
json_values "$out/central.out" counter value > "$out/central.counters"
expect_values "$out/central.counters" "counters bless notified to relay-central" 0 1 2
[ "$(grep -c '"event":"read"' "$out/central.out")" = 2 ] || fail "relay-central did not read both characteristics"
# The original iPhone app offers no session characteristic: protocol 1, and bless (which logs
# every write that is not a counter) saw only counters.
[ "$(json_list "$out/central.out" ready protocol)" = 1 ] || fail "relay-central did not speak protocol 1 with bless"
grep -q 'ignored a write' "$out/peripheral.err" && fail "bless was written values that are not counters"
echo "bless: relay-central received 0 1 2 from bless and wrote 0 1 2 to it"
