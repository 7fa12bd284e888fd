#!/usr/bin/env bash
# Scenario 2 (inside the bluez-vm guest): messages both ways through the framing protocol.
#   relay-central (hci1) sends a short text and random binary messages of 1 KiB, 64 KiB and
#   256 KiB to relay-peripheral (hci0); then the peripheral sends the same kinds back. Every
#   message must arrive intact (same length and SHA-256 as the file sent), chunked for the
#   negotiated MTU. (256 KiB: four windows, over 500 values; the 1 MiB sent before took a
#   minute more of air time and proved nothing more. Big messages: make soak, the benchmark.)
# vm-timeout: 480
# Run: scenarios/vm/run-scenarios.sh messages   (or scripts/bluez-vm run -- scenarios/vm/scenario-messages.sh)
source "$(dirname "$0")/lib.sh"
# Longest either program may run before the scenario gives up on it.
limit=${RELAY_SCENARIO_LIMIT:-420}
p=$out/peripheral.out c=$out/central.out
sha() { sha256sum "$1" | cut -d' ' -f1; }

central_text="hello from relay-central"
peripheral_text="hello from relay-peripheral"
for side in c p; do
  head -c 1024 /dev/urandom > "$out/$side-1k.bin"
  head -c 65536 /dev/urandom > "$out/$side-64k.bin"
  head -c 262144 /dev/urandom > "$out/$side-256k.bin"
done
printf '%s' "$central_text" > "$out/c-text"
printf '%s' "$peripheral_text" > "$out/p-text"
expect_c="$(sha "$out/c-text"),$(sha "$out/c-1k.bin"),$(sha "$out/c-64k.bin"),$(sha "$out/c-256k.bin")"
expect_p="$(sha "$out/p-text"),$(sha "$out/p-1k.bin"),$(sha "$out/p-64k.bin"),$(sha "$out/p-256k.bin")"

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
send-file $out/p-256k.bin
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
send-file $out/c-256k.bin
wait message 300
wait message 60
wait message 120
wait message 300
status
disconnect
SCRIPT

started_at=$(date +%s.%N)
# The central scans before the peripheral advertises (scenario-article starts them the other way).
start_fed central "$out/central.script" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --max-message 2097152
wait_for_line "$c" '"event":"scanning"' 30 || true # the checks below tell what went wrong
start_fed peripheral "$out/peripheral.script" "$bin/relay-peripheral" --adapter hci0 --json --max-message 2097152
central_status=0 peripheral_status=0
finish central "$limit" || central_status=$?
finish peripheral "$limit" || peripheral_status=$?
ended_at=$(date +%s.%N)

[ "$central_status" = 0 ] || fail "relay-central exited $central_status"
[ "$peripheral_status" = 0 ] || fail "relay-peripheral exited $peripheral_status"
mtu=$(json_values "$c" ready mtu | head -n 1)
[ -n "$mtu" ] || fail "the central never became ready"
[ "$(json_list "$c" sent sha256)" = "$expect_c" ] || fail "the central did not send every message"
[ "$(json_list "$p" message sha256)" = "$expect_c" ] ||
  fail "the peripheral received '$(json_list "$p" message sha256)', expected '$expect_c'"
[ "$(json_list "$p" message length)" = "${#central_text},1024,65536,262144" ] ||
  fail "the peripheral received lengths '$(json_list "$p" message length)'"
[ "$(json_list "$c" message sha256)" = "$expect_p" ] ||
  fail "the central received '$(json_list "$c" message sha256)', expected '$expect_p'"
[ "$(json_list "$c" message length)" = "${#peripheral_text},1024,65536,262144" ] ||
  fail "the central received lengths '$(json_list "$c" message length)'"
json_values "$c" message text | grep -qxF -- "$peripheral_text" || fail "the central did not show the text"
errors=$(( $(json_count "$c" error) + $(json_count "$p" error) ))
[ "$errors" = 0 ] || fail "an error was reported"
echo "PASS scenario-messages (MTU $mtu, $(awk -v a="$started_at" -v b="$ended_at" 'BEGIN { printf "%.1f", b - a }') s for 2 x 321 KiB)"
