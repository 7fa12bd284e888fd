# Helpers shared by the fault and hostile scenarios (scenarios/vm/scenario-fault-*.sh,
# scenario-hostile-*.sh), sourced after lib.sh inside the bluez-vm guest.
#   field FILE EVENT KEY         KEY of every EVENT line of a --json log, each followed by a
#                                comma (lib.sh's json_values reads the JSON)
#   count FILE REGEX             how many lines match
#   wait_for_count FILE REGEX N [SECONDS]   until N lines match (default 30 s)
#   open_input NAME FD           a FIFO $fifos/NAME.in kept open for writing on FD (so the
#                                program reading it keeps running; write commands with >&FD).
#                                FIFOs live on the guest's tmpfs: 9p refuses special files.
#   vm_rss PID / vm_hwm PID      resident / peak resident memory of PID in KiB
#   start_reconnecting_pair      relay-central --reconnect on hci1 (commands on fd 8), scanning
#                                before relay-peripheral on hci0 (fd 7) starts advertising;
#                                their --json logs are $out/central.out and $out/peripheral.out
#   exchange_round N [SECONDS]   the Nth time the central is subscribed (waits up to SECONDS,
#                                default 90) and ready: a counter and a message each way
field() { json_values "$1" "$2" "$3" | tr '\n' ','; }
count() { grep -cE -- "$2" "$1" 2>/dev/null || true; }
wait_for_count() { follow "$1" "$2" "$3" "${4:-30}"; }
fifos=$(mktemp -d /tmp/relay-fifos.XXXX)
open_input() { # name fd
  mkfifo "$fifos/$1.in"
  eval "exec $2<> \"\$fifos/\$1.in\""
}
vm_rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
vm_hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

start_reconnecting_pair() {
  open_input peripheral 7
  open_input central 8
  start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json \
    --connect sample --reconnect
  wait_for_line "$out/central.out" '"event":"scanning"' 30 || fail "the central never scanned"
  start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json
  echo start >&7
}
exchange_round() { # round [seconds to wait for the subscription]
  local round=$1 p=$out/peripheral.out c=$out/central.out
  wait_for_count "$p" '"event":"subscribed"' "$round" "${2:-90}" ||
    fail "round $round: the central did not subscribe"
  wait_for_count "$c" '"event":"ready"' "$round" 30 || fail "round $round: the central is not ready"
  echo "write $((100 + round))" >&8
  echo "send central round $round" >&8
  wait_for_count "$p" '"event":"counter"' "$round" 30 || fail "round $round: no counter at the peripheral"
  wait_for_count "$p" '"event":"message"' "$round" 30 || fail "round $round: no message at the peripheral"
  echo "notify $((200 + round))" >&7
  echo "send peripheral round $round" >&7
  wait_for_count "$c" '"event":"counter"' "$round" 30 || fail "round $round: no counter at the central"
  wait_for_count "$c" '"event":"message"' "$round" 30 || fail "round $round: no message at the central"
}

# The SHA-256 (hex) of a file.
sha() { sha256sum "$1" | cut -d' ' -f1; }
# Asks the peripheral (commands on fd 7, output in $out/peripheral.out) for `status` and prints
# the answer (its JSON line).
status_now() {
  local before
  before=$(count "$out/peripheral.out" '"event":"status"')
  echo status >&7
  wait_for_count "$out/peripheral.out" '"event":"status"' $((before + 1)) 10 || fail "no answer to status"
  grep '"event":"status"' "$out/peripheral.out" | tail -n 1
}
# receiving ADDRESS STATUS: bytes of the incomplete message from ADDRESS in a status line.
receiving() { grep -o "\"address\":\"$1\"[^{}]*\"receiving\":{\"received\":[0-9]*" <<< "$2" | sed 's/.*://'; }
# wait_receiving ADDRESS SECONDS: asks the peripheral for `status` once a second until it shows
# a message from ADDRESS arriving (some bytes received); false after SECONDS.
wait_receiving() {
  local ticks=0
  until [ "$(receiving "$1" "$(status_now)")" -gt 0 ] 2>/dev/null; do
    ticks=$((ticks + 1))
    [ $ticks -gt "$2" ] && return 1
    pause 1
  done
}

# Milliseconds from epoch seconds START to the `counter` event of value N in FILE (default: the
# central's output, $c): a counter's round trip to its echo. `?` when it never came.
round_trip() { # START N [FILE]
  python3 -I -c '
import json, sys, datetime
start, value = float(sys.argv[1]), int(sys.argv[2])
for line in open(sys.argv[3]):
    if "\"counter\"" not in line: continue
    event = json.loads(line)
    if event.get("event") == "counter" and event.get("value") == value:
        at = datetime.datetime.strptime(event["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
        print(round((at.timestamp() - start) * 1000)); break
else: print("?")' "$1" "$2" "${3:-$c}" 2>/dev/null || echo "?"
}
