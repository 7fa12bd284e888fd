#!/usr/bin/env bash
# Protocol 2 with peers of protocol 1 (issue 15, test 5), inside the bluez-vm guest: a peer that
# implements only the version-1 frames of docs/protocol.md (scenarios/vm/peers/v1frames.py,
# strict: it counts every value its reassembler refuses), both ways, and relay with
# `--protocol 1` (as relay 0.2 on a laptop not yet updated) against relay of protocol 2.
#   1. bless (hci0) as a version-1 peripheral, relay-central (hci1): relay-central sends 100 KB
#      (`sent` then `unconfirmed`), bless sends 50 KB; both arrive intact, bless saw no
#      protocol error.
#   2. relay-peripheral (hci0), bleak (hci1) as a version-1 central: the same the other way.
#   3. relay-central --protocol 1 against relay-peripheral, then relay-central against
#      relay-peripheral --protocol 1: messages both ways `unconfirmed` and intact, no error.
# vm-controllers: 2
# vm-timeout: 420
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
source "$(dirname "$0")/delivery-lib.sh"
random_file "$out/c.bin" 100000
random_file "$out/p.bin" 100000

# 1. A version-1 peripheral.
open_input bless 7
start_fed bless "$fifos/bless.in" bless_peripheral --adapter hci0 --commands --v1 --timeout 0
wait_for_line "$out/bless.out" '"event": *"advertising"' 60 || fail "bless did not advertise"
open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --connect sample
wait_for_line "$out/central.out" '"event":"ready".*"protocol":1' 90 || fail "relay-central is not ready with protocol 1"
echo "send-file $out/c.bin" >&8
wait_for_line "$out/bless.out" '"event": *"message"' 120 || fail "bless got no message"
echo "message 50000 182" >&7
wait_for_line "$out/central.out" '"event":"message"' 120 || fail "relay-central got no message from bless"
echo status >&7
wait_for_line "$out/bless.out" '"event": *"status"' 10 || fail "bless did not answer status"
echo quit >&8
finish central 30 || fail "relay-central exited $?"
echo quit >&7
finish bless 30 || true
[ "$(json_list "$out/bless.out" message sha256)" = "$(sha "$out/c.bin")" ] || fail "bless got '$(json_list "$out/bless.out" message sha256)'"
[ "$(json_list "$out/bless.out" status errors)" = 0 ] || fail "bless saw protocol errors: $(grep protocol-error "$out/bless.out" | head -n 3)"
[ "$(json_list "$out/central.out" message sha256)" = "$(json_list "$out/bless.out" sent-message sha256)" ] || fail "relay-central got bless's message wrong"
[ "$(json_list "$out/central.out" unconfirmed sha256)" = "$(sha "$out/c.bin")" ] || fail "relay-central did not report its message unconfirmed"
[ "$(json_count "$out/central.out" delivered)" = 0 ] || fail "relay-central reported a delivery it cannot know"
echo "1. version-1 peripheral: both ways intact, unconfirmed, no protocol error"

# 2. A version-1 central.
scripts/vm/guest-bluetooth restart --controllers 2 --logs "$out/round2" 2> "$out/round2.err" || fail "Bluetooth did not come back"
open_input peripheral 9
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json
echo start >&9
wait_for_line "$out/peripheral.out" '"event":"advertising"' 60 || fail "relay-peripheral did not advertise"
open_input bleak 10
start_fed bleak "$fifos/bleak.in" bleak_central --adapter hci1 --commands --v1 --timeout 0
wait_for_line "$out/bleak.out" '"event": *"ready"' 90 || fail "bleak did not connect"
wait_for_line "$out/peripheral.out" '"event":"subscribed".*"protocol":1' 30 || fail "relay-peripheral saw no protocol-1 subscriber"
echo "message 50000" >&10
wait_for_line "$out/peripheral.out" '"event":"message"' 120 || fail "relay-peripheral got no message from bleak"
echo "send-file $out/p.bin" >&9
wait_for_line "$out/bleak.out" '"event": *"message"' 120 || fail "bleak got no message"
echo status >&10
wait_for_line "$out/bleak.out" '"event": *"status"' 10 || fail "bleak did not answer status"
echo quit >&10
finish bleak 30 || true
echo quit >&9
finish peripheral 30 || fail "relay-peripheral exited $?"
[ "$(json_list "$out/bleak.out" message sha256)" = "$(sha "$out/p.bin")" ] || fail "bleak got '$(json_list "$out/bleak.out" message sha256)'"
[ "$(json_list "$out/bleak.out" status errors)" = 0 ] || fail "bleak saw protocol errors: $(grep protocol-error "$out/bleak.out" | head -n 3)"
[ "$(json_list "$out/peripheral.out" message sha256)" = "$(json_list "$out/bleak.out" sent-message sha256)" ] || fail "relay-peripheral got bleak's message wrong"
[ "$(json_list "$out/peripheral.out" unconfirmed sha256)" = "$(sha "$out/p.bin")" ] || fail "relay-peripheral did not report unconfirmed"
echo "2. version-1 central: both ways intact, unconfirmed, no protocol error"

# 3. relay of protocol 1 against relay of protocol 2, each way round.
round=3
for old in central peripheral; do
  scripts/vm/guest-bluetooth restart --controllers 2 --logs "$out/round$round" 2> "$out/round$round.err" || fail "Bluetooth did not come back"
  central_flags=() peripheral_flags=()
  if [ $old = central ]; then central_flags=(--protocol 1); else peripheral_flags=(--protocol 1); fi
  p=$out/p$round.out c=$out/c$round.out
  open_input "p$round" 11
  open_input "c$round" 12
  start_fed "p$round" "$fifos/p$round.in" "$bin/relay-peripheral" --adapter hci0 --json "${peripheral_flags[@]}"
  echo start >&11
  wait_for_line "$p" '"event":"advertising"' 60 || fail "round $round: relay-peripheral did not advertise"
  start_fed "c$round" "$fifos/c$round.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --connect sample "${central_flags[@]}"
  wait_for_line "$c" '"event":"ready".*"protocol":1' 90 || fail "round $round: not ready with protocol 1: $(grep '"event":"ready"' "$c")"
  echo "send-file $out/c.bin" >&12
  echo "send-file $out/p.bin" >&11
  wait_for_line "$p" '"event":"message"' 120 || fail "round $round: relay-peripheral got no message"
  wait_for_line "$c" '"event":"message"' 120 || fail "round $round: relay-central got no message"
  echo quit >&12
  finish "c$round" 30 || fail "round $round: relay-central exited $?"
  echo quit >&11
  finish "p$round" 30 || fail "round $round: relay-peripheral exited $?"
  [ "$(json_list "$p" message sha256)" = "$(sha "$out/c.bin")" ] || fail "round $round: the peripheral got it wrong"
  [ "$(json_list "$c" message sha256)" = "$(sha "$out/p.bin")" ] || fail "round $round: the central got it wrong"
  [ "$(json_count "$c" unconfirmed)" = 1 ] && [ "$(json_count "$p" unconfirmed)" = 1 ] || fail "round $round: not unconfirmed both ways"
  grep -q '"event":"error"' "$c" "$p" && fail "round $round: an error: $(grep -h '"event":"error"' "$c" "$p" | head -n 2)"
  exec 11>&- 12>&-
  echo "$round. relay --protocol 1 as the $old: both ways intact, unconfirmed, no error"
  round=$((round + 1))
done
echo "PASS delivery-version1"
