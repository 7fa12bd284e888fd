#!/usr/bin/env bash
# Scenario 1 (inside the bluez-vm guest): the article's flow with the real executables.
#   relay-peripheral on hci0 starts advertising `sample`; relay-central on hci1 scans, finds it,
#   connects and subscribes; the central writes counters 0, 1, 2 and the peripheral shows exactly
#   those; the peripheral notifies 0, 1, 2 and the central shows exactly those.
# Both programs are driven non-interactively (commands on stdin, --json event lines on stdout).
# vm-timeout: 120
# Run: scripts/bluez-vm run -- tests/vm/scenario-article.sh
# Env: RELAY_BIN (folder with both binaries), RELAY_VM_OUT (logs).
set -uo pipefail
# Longest either program may run before the scenario gives up on it.
limit=${RELAY_SCENARIO_LIMIT:-240}
repo=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
bin=${RELAY_BIN:-$repo/.build/debug}
out=${RELAY_VM_OUT:-$(mktemp -d)}/scenario-article
mkdir -p "$out"
fail() {
  echo "FAIL scenario-article: $*"
  for log in peripheral.jsonl peripheral.err central.jsonl central.err; do echo "--- $log"; cat "$out/$log"; done
  exit 1
}
# One JSON field of every line with "event":NAME, comma-separated.
field() { grep "\"event\":\"$2\"" "$1" | sed -n "s/.*\"$3\":\"\{0,1\}\([^\",}]*\).*/\1/p" | tr '\n' ','; }

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

# The central scans first: btvirt reports an advertiser once, when scanning starts, and the
# kernel may drop that report if it comes before discovery is fully on; an advertiser that
# starts while the central scans is always reported.
timeout "$limit" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json < "$out/central.script" > "$out/central.jsonl" 2> "$out/central.err" &
central_pid=$!
for _ in $(seq 300); do grep -q '"event":"scanning"' "$out/central.jsonl" 2>/dev/null && break; sleep 0.1; done
timeout "$limit" "$bin/relay-peripheral" --adapter hci0 --json < "$out/peripheral.script" > "$out/peripheral.jsonl" 2> "$out/peripheral.err" &
peripheral_pid=$!
wait "$central_pid"
central_status=$?
wait "$peripheral_pid"
peripheral_status=$?

[ "$central_status" = 0 ] || fail "relay-central exited $central_status"
[ "$peripheral_status" = 0 ] || fail "relay-peripheral exited $peripheral_status"
[ "$(field "$out/central.jsonl" discovered name)" = "sample," ] || fail "the central did not list 'sample' exactly once"
mtu=$(field "$out/central.jsonl" ready mtu)
[ -n "$mtu" ] || fail "the central never became ready"
[ "$(field "$out/central.jsonl" written value)" = "0,1,2," ] || fail "the central wrote '$(field "$out/central.jsonl" written value)'"
[ "$(field "$out/peripheral.jsonl" counter value)" = "0,1,2," ] ||
  fail "the peripheral showed counters '$(field "$out/peripheral.jsonl" counter value)', expected 0,1,2"
[ "$(field "$out/central.jsonl" counter value)" = "0,1,2," ] ||
  fail "the central showed counters '$(field "$out/central.jsonl" counter value)', expected 0,1,2"
echo "PASS scenario-article (MTU ${mtu%,})"
