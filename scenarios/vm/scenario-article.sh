#!/usr/bin/env bash
# Scenario 1 (inside the bluez-vm guest): the article's flow with the real executables.
#   relay-peripheral on hci0 starts advertising `sample`; relay-central on hci1 scans, finds it,
#   connects and subscribes; the central writes counters 0, 1, 2 and the peripheral shows exactly
#   those; the peripheral notifies 0, 1, 2 and the central shows exactly those.
# Both programs are driven non-interactively (commands on stdin, --json event lines on stdout).
# vm-timeout: 120
# Run: scenarios/vm/run-scenarios.sh article   (or scripts/bluez-vm run -- scenarios/vm/scenario-article.sh)
source "$(dirname "$0")/lib.sh"
# Longest either program may run before the scenario gives up on it.
limit=${RELAY_SCENARIO_LIMIT:-240}
p=$out/peripheral.out c=$out/central.out

cat > "$out/peripheral.script" <<'SCRIPT'
start
wait advertising 30
wait subscribed 60
wait counter 30
wait counter 10
wait counter 10
notify
notify
notify
wait disconnected 60
SCRIPT
cat > "$out/central.script" <<'SCRIPT'
wait state 30
scan
wait discovered 60
connect 0
write
write
write
wait counter 30
wait counter 10
wait counter 10
status
disconnect
SCRIPT

# The peripheral advertises before the central scans: the radio's advertising events reach a
# scan started later (the other scenarios start the central first).
start_fed peripheral "$out/peripheral.script" "$bin/relay-peripheral" --adapter hci0 --json
wait_for_line "$p" '"event":"advertising"' 30 || true # the checks below tell what went wrong
pause 2
start_fed central "$out/central.script" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json
central_status=0 peripheral_status=0
finish central "$limit" || central_status=$?
finish peripheral "$limit" || peripheral_status=$?

[ "$central_status" = 0 ] || fail "relay-central exited $central_status"
[ "$peripheral_status" = 0 ] || fail "relay-peripheral exited $peripheral_status"
[ "$(json_list "$c" discovered name)" = sample ] || fail "the central did not list 'sample' exactly once"
mtu=$(json_values "$c" ready mtu | head -n 1)
[ -n "$mtu" ] || fail "the central never became ready"
[ "$(json_list "$c" written value)" = 0,1,2 ] || fail "the central wrote '$(json_list "$c" written value)'"
[ "$(json_list "$p" counter value)" = 0,1,2 ] ||
  fail "the peripheral showed counters '$(json_list "$p" counter value)', expected 0,1,2"
[ "$(json_list "$c" counter value)" = 0,1,2 ] ||
  fail "the central showed counters '$(json_list "$c" counter value)', expected 0,1,2"
echo "PASS scenario-article (MTU $mtu)"
