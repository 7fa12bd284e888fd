#!/usr/bin/env bash
# Scenario 2 (inside the bluez-vm guest): messages both ways through the framing protocol.
#   relay-central (hci1) sends a short text and random binary messages of 1 KiB, 64 KiB and
#   1 MiB to relay-peripheral (hci0); then the peripheral sends the same kinds back. Every
#   message must arrive intact (same length and SHA-256 as the file sent), chunked for the
#   negotiated MTU.
# vm-timeout: 480
# Run: scripts/bluez-vm run -- tests/vm/scenario-messages.sh
# Env: RELAY_BIN (folder with both binaries), RELAY_VM_OUT (logs).
set -uo pipefail
# Longest either program may run before the scenario gives up on it.
limit=${RELAY_SCENARIO_LIMIT:-420}
repo=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
bin=${RELAY_BIN:-$repo/.build/debug}
out=${RELAY_VM_OUT:-$(mktemp -d)}/scenario-messages
mkdir -p "$out"
fail() {
  echo "FAIL scenario-messages: $*"
  for log in peripheral.err central.err; do echo "--- $log"; cat "$out/$log"; done
  for log in peripheral.jsonl central.jsonl; do echo "--- $log (without counters)"; cut -c1-400 "$out/$log"; done
  exit 1
}
field() { grep "\"event\":\"$2\"" "$1" | sed -n "s/.*\"$3\":\"\{0,1\}\([^\",}]*\).*/\1/p" | tr '\n' ','; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

central_text="hello from relay-central"
peripheral_text="hello from relay-peripheral"
for side in c p; do
  head -c 1024 /dev/urandom > "$out/$side-1k.bin"
  head -c 65536 /dev/urandom > "$out/$side-64k.bin"
  head -c 1048576 /dev/urandom > "$out/$side-1m.bin"
done
printf '%s' "$central_text" > "$out/c-text"
printf '%s' "$peripheral_text" > "$out/p-text"
expect_c="$(sha "$out/c-text"),$(sha "$out/c-1k.bin"),$(sha "$out/c-64k.bin"),$(sha "$out/c-1m.bin"),"
expect_p="$(sha "$out/p-text"),$(sha "$out/p-1k.bin"),$(sha "$out/p-64k.bin"),$(sha "$out/p-1m.bin"),"

cat > "$out/peripheral.script" <<SCRIPT
start
wait advertising 30
wait subscribed 60
wait message 60
wait message 60
wait message 120
wait message 300
send $peripheral_text
send-file $out/p-1k.bin
send-file $out/p-64k.bin
send-file $out/p-1m.bin
wait disconnected 600
SCRIPT
cat > "$out/central.script" <<SCRIPT
wait state 30
scan
wait discovered 60
connect 0
send $central_text
send-file $out/c-1k.bin
send-file $out/c-64k.bin
send-file $out/c-1m.bin
wait message 300
wait message 60
wait message 120
wait message 300
status
disconnect
SCRIPT

started=$(date +%s.%N)
# The central scans first: btvirt reports an advertiser once, when scanning starts, and the
# kernel may drop that report if it comes before discovery is fully on; an advertiser that
# starts while the central scans is always reported.
timeout "$limit" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --max-message 2097152 < "$out/central.script" \
  > "$out/central.jsonl" 2> "$out/central.err" &
central_pid=$!
for _ in $(seq 300); do grep -q '"event":"scanning"' "$out/central.jsonl" 2>/dev/null && break; sleep 0.1; done
timeout "$limit" "$bin/relay-peripheral" --adapter hci0 --json --max-message 2097152 < "$out/peripheral.script" \
  > "$out/peripheral.jsonl" 2> "$out/peripheral.err" &
peripheral_pid=$!
wait "$central_pid"
central_status=$?
wait "$peripheral_pid"
peripheral_status=$?
ended=$(date +%s.%N)

[ "$central_status" = 0 ] || fail "relay-central exited $central_status"
[ "$peripheral_status" = 0 ] || fail "relay-peripheral exited $peripheral_status"
mtu=$(field "$out/central.jsonl" ready mtu)
[ -n "$mtu" ] || fail "the central never became ready"
[ "$(field "$out/central.jsonl" sent sha256)" = "$expect_c" ] || fail "the central did not send every message"
[ "$(field "$out/peripheral.jsonl" message sha256)" = "$expect_c" ] ||
  fail "the peripheral received '$(field "$out/peripheral.jsonl" message sha256)', expected '$expect_c'"
[ "$(field "$out/peripheral.jsonl" message length)" = "${#central_text},1024,65536,1048576," ] ||
  fail "the peripheral received lengths '$(field "$out/peripheral.jsonl" message length)'"
[ "$(field "$out/central.jsonl" message sha256)" = "$expect_p" ] ||
  fail "the central received '$(field "$out/central.jsonl" message sha256)', expected '$expect_p'"
[ "$(field "$out/central.jsonl" message length)" = "${#peripheral_text},1024,65536,1048576," ] ||
  fail "the central received lengths '$(field "$out/central.jsonl" message length)'"
grep -q "\"text\":\"$peripheral_text\"" "$out/central.jsonl" || fail "the central did not show the text"
if grep -q '"event":"error"' "$out/central.jsonl" "$out/peripheral.jsonl"; then fail "an error was reported"; fi
echo "PASS scenario-messages (MTU ${mtu%,}, $(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.1f", b - a }') s for 2 x 1.07 MiB)"
