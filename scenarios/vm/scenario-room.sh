#!/usr/bin/env bash
# A room (issue 14), inside the bluez-vm guest: four relay-peripherals with their own names
# (room-1 ... room-4, on hci0-hci3) and four relay-centrals (hci4-hci7), each connecting to its
# own by name, all at once on one radio. Each pair exchanges a counter and a message each way:
# every message and counter reaches its own pair only, and every message is delivered.
# vm-controllers: 8
# vm-timeout: 420
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
pairs=(1 2 3 4)

for k in "${pairs[@]}"; do
  open_input "p$k" $((10 + k))
  start_fed "p$k" "$fifos/p$k.in" "$bin/relay-peripheral" --adapter "hci$((k - 1))" --json --name "room-$k"
  echo start >&$((10 + k))
done
for k in "${pairs[@]}"; do
  wait_for_line "$out/p$k.out" '"event":"advertising"' 90 || fail "peripheral $k did not advertise"
done
for k in "${pairs[@]}"; do
  open_input "c$k" $((20 + k))
  start_fed "c$k" "$fifos/c$k.in" nice -n 5 "$bin/relay-central" --adapter "hci$((k + 3))" --json --name "room-$k" \
    --connect "room-$k" --scan-timeout 90
done
for k in "${pairs[@]}"; do
  wait_for_line "$out/c$k.out" '"event":"ready".*"protocol":2' 150 ||
    fail "central $k was not ready with protocol 2: $(cut -c1-200 "$out/c$k.out" | tail -n 2)"
done
echo "all four pairs ready"
for k in "${pairs[@]}"; do
  echo "write $((100 + k))" >&$((20 + k))
  echo "send from central $k" >&$((20 + k))
  echo "notify $((200 + k))" >&$((10 + k))
  echo "send from peripheral $k" >&$((10 + k))
done
for k in "${pairs[@]}"; do
  wait_for_line "$out/p$k.out" '"event":"delivered"' 120 || fail "peripheral $k's message was not delivered"
  wait_for_line "$out/c$k.out" '"event":"delivered"' 120 || fail "central $k's message was not delivered"
done
for k in "${pairs[@]}"; do echo quit >&$((20 + k)); done
for k in "${pairs[@]}"; do finish "c$k" 60 || fail "central $k exited $?"; done
for k in "${pairs[@]}"; do echo quit >&$((10 + k)); done
for k in "${pairs[@]}"; do finish "p$k" 60 || fail "peripheral $k exited $?"; done
for k in "${pairs[@]}"; do
  [ "$(json_list "$out/p$k.out" message text)" = "from central $k" ] || fail "peripheral $k got '$(json_list "$out/p$k.out" message text)'"
  [ "$(json_list "$out/c$k.out" message text)" = "from peripheral $k" ] || fail "central $k got '$(json_list "$out/c$k.out" message text)'"
  [ "$(json_list "$out/p$k.out" counter value)" = "$((100 + k))" ] || fail "peripheral $k got counters '$(json_list "$out/p$k.out" counter value)'"
  [ "$(json_list "$out/c$k.out" counter value)" = "$((200 + k))" ] || fail "central $k got counters '$(json_list "$out/c$k.out" counter value)'"
  [ "$(json_count "$out/p$k.out" delivered)" = 1 ] && [ "$(json_count "$out/c$k.out" delivered)" = 1 ] ||
    fail "pair $k: not exactly one delivered each way"
done
echo "PASS room (4 pairs on 8 controllers: every counter and message at its own pair only, all delivered)"
