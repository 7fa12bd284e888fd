#!/usr/bin/env bash
# The test bed radio, old profile (27-byte LL payloads, 4 ACL buffers of 27 bytes, 50 ms, ATT
# MTU 23): an L2CAP LE credit-based flood without relay lands within 15 % of the computed air
# capacity (scenarios/vm/air-lib.sh), and relay-central and relay-peripheral settle on MTU 23.
# vm-air: old
# vm-timeout: 180
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/air-lib.sh"
air_flood 1000 60 10000
air_check 1000

# relay on the old radio: both sides settle on MTU 23 (values of 20 bytes), and a message of
# several frames and a counter cross.
p=$out/peripheral.out c=$out/central.out
cat > "$out/peripheral.script" <<'SCRIPT'
start
wait advertising 30
wait subscribed 60
wait message 60
notify
wait disconnected 60
SCRIPT
cat > "$out/central.script" <<'SCRIPT'
wait state 30
scan
wait discovered 60
connect 0
send a message of more than twenty bytes, in several frames on MTU 23
wait counter 60
disconnect
SCRIPT
start_fed central "$out/central.script" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json
wait_for_line "$c" '"event":"scanning"' 30 || true # the checks below tell what went wrong
start_fed peripheral "$out/peripheral.script" "$bin/relay-peripheral" --adapter hci0 --json
central_status=0 peripheral_status=0
finish central 150 || central_status=$?
finish peripheral 60 || peripheral_status=$?
[ "$central_status" = 0 ] || fail "relay-central exited $central_status"
[ "$peripheral_status" = 0 ] || fail "relay-peripheral exited $peripheral_status"
[ "$(json_list "$c" ready mtu)" = 23 ] || fail "the central's MTU was '$(json_list "$c" ready mtu)', expected 23"
[ "$(json_list "$c" ready maxValue)" = 20 ] || fail "the central's largest value was '$(json_list "$c" ready maxValue)', expected 20"
[ "$(json_list "$p" subscribed mtu)" = 23 ] || fail "the peripheral saw MTU '$(json_list "$p" subscribed mtu)', expected 23"
[ "$(json_list "$p" message text)" = "a message of more than twenty bytes, in several frames on MTU 23" ] ||
  fail "the peripheral got '$(json_list "$p" message text)'"
[ "$(json_count "$c" counter)" = 1 ] || fail "the central did not get the counter"
echo "PASS air-old (relay at MTU 23, $(json_list "$c" sent frames) frames for the message)"
