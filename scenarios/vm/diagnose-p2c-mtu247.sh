#!/usr/bin/env bash
# Diagnosis, not part of make test (docs/performance.md, "What still limits relay"): protocol 2
# from the peripheral to a central at ATT MTU 247 stalls in the test bed (one frame through per
# retransmission time-out; protocol 1 at the same MTU gets 99 % through, and the sessions' own
# tests at MTU 247 deliver). Run it as a scenario:
#   cp scenarios/vm/diagnose-p2c-mtu247.sh scenarios/vm/scenario-zz-diagnose.sh
#   scenarios/vm/run-scenarios.sh zz-diagnose; rm scenarios/vm/scenario-zz-diagnose.sh
# Each run prints delivered or NOT DELIVERED and both sides' delivery counts.
# vm-controllers: 2
# vm-timeout: 500
# vm-air-extra: att-mtu=247

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
head -c 131072 /dev/urandom > "$out/q.bin"
run() { # name central-options...
  local name=$1; shift
  local p=$out/p$name.out c=$out/c$name.out
  open_input "p$name" 7
  open_input "c$name" 8
  start_fed "p$name" "$fifos/p$name.in" "$bin/relay-peripheral" --adapter hci0 --json
  echo start >&7
  wait_for_line "$p" '"event":"advertising"' 60 || fail "no adv"
  start_fed "c$name" "$fifos/c$name.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --connect sample "$@"
  wait_for_line "$c" '"event":"ready"' 60 || fail "not ready"
  sleep 1
  echo "send-file $out/q.bin" >&7
  if wait_for_line "$c" '"event":"message"' 40; then echo "$name: delivered"; else echo "$name: NOT DELIVERED"; fi
  echo status >&7; echo status >&8; sleep 1
  grep '"status"' "$p" | grep -o '"delivery":{[^}]*}' | tail -1
  grep '"status"' "$c" | grep -o '"delivery":{[^}]*}' | tail -1
  echo quit >&8; finish "c$name" 30
  echo quit >&7; finish "p$name" 30
  exec 7>&- 8>&-
}
run default
run socket --notify-path socket
run write-value --write-path write-value
echo "PASS diagnose-p2c-mtu247 (a diagnosis: read the lines above)"
