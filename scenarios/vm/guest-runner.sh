#!/usr/bin/env bash
# Inside the bluez-vm guest: runs the given scenario scripts one after the other, each on a
# freshly started bluetoothd + btvirt, with its own log folder $RELAY_VM_OUT/<name>/.
# Started by scenarios/vm/run-scenarios.sh (host side), which prints the closing line.
#
# A scenario may ask, in a comment line of its own:
#   # vm-controllers: N     virtual controllers hci0..hci<N-1> (default 2)
#   # vm-timeout: S         kill it after S seconds (default 300)
#   # vm-air: PROFILE       the radio's timing: laptop, phone, old or off (default: $RELAY_VM_AIR,
#                           else laptop; docs/test-bed.md)
#   # vm-air-extra: SPEC    more btvirt --air settings (retransmissions, link loss, a seed)
# Writes "PASS name seconds" / "FAIL name reason" lines to $RELAY_VM_OUT/results.
set -uo pipefail
repo=${RELAY_REPO:?}
root_out=${RELAY_VM_OUT:?}
results=$root_out/results
: > "$results"

uptime_seconds() { local up _; read -r up _ < /proc/uptime; echo "$up"; }
scenario_setting() { # file key default
  local value
  value=$(sed -n "s/^# $2: *\([0-9][0-9]*\).*/\1/p" "$1" | head -n 1)
  echo "${value:-$3}"
}
scenario_word() { # file key default: a setting that is one word (no spaces)
  local value
  value=$(sed -n "s/^# $2: *\([^ ]*\).*/\1/p" "$1" | head -n 1)
  echo "${value:-$3}"
}

run_scenario() { # file
  local file=$1 name dir controllers seconds started pid status=0 ticks=0 reason elapsed
  name=$(basename "$file" .sh)
  name=${name#scenario-}
  dir=$root_out/$name
  rm -rf "$dir"
  mkdir -p "$dir"
  controllers=$(scenario_setting "$file" vm-controllers 2)
  seconds=$(scenario_setting "$file" vm-timeout 300)
  local bluetooth=(--controllers "$controllers" --logs "$dir"
    --air "$(scenario_word "$file" vm-air "${RELAY_VM_AIR:-laptop}")"
    --air-extra "$(scenario_word "$file" vm-air-extra "${RELAY_VM_AIR_EXTRA:-}")")
  [ "${RELAY_VM_BTMON:-0}" = 1 ] && bluetooth+=(--btmon)
  if ! "$repo/scripts/vm/guest-bluetooth" up "${bluetooth[@]}" 2> "$dir/bluetooth-up.err"; then
    reason="Bluetooth did not come up ($(tail -n 1 "$dir/bluetooth-up.err"))"
  else
    started=$(uptime_seconds)
    (
      # shellcheck source=/dev/null
      source /run/relay-vm/bluetooth.env
      export RELAY_VM_OUT=$dir
      cd "$repo" && exec setsid bash "$file"
    ) > "$dir/output.log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
      ticks=$((ticks + 1))
      if [ $ticks -gt $((seconds * 10)) ]; then
        echo "killed after $seconds s" > "$dir/reason"
        kill -TERM -- "-$pid" 2>/dev/null
        sleep 2
        break
      fi
      sleep 0.1
    done
    wait "$pid" || status=$?
    kill -KILL -- "-$pid" 2>/dev/null
    elapsed=$(awk -v a="$started" -v b="$(uptime_seconds)" 'BEGIN { printf "%.1f", b - a }')
    if [ $status -eq 0 ] && [ ! -s "$dir/reason" ]; then
      reason=""
    elif [ -s "$dir/reason" ]; then
      reason=$(head -n 1 "$dir/reason")
    elif grep -q '^FAIL' "$dir/output.log"; then
      reason="$(grep -m 1 '^FAIL' "$dir/output.log" | cut -c 1-300)"
    else
      reason="exit status $status: $(tail -n 1 "$dir/output.log")"
    fi
  fi
  dmesg > "$dir/dmesg.log" 2>&1
  "$repo/scripts/vm/guest-bluetooth" down
  if [ -z "$reason" ]; then
    echo "PASS $name ${elapsed}s"
    echo "PASS $name $elapsed" >> "$results"
  else
    echo "FAIL $name: $reason (logs: $dir)"
    tail -n 15 "$dir/output.log" 2>/dev/null | sed 's/^/    | /'
    echo "FAIL $name $reason" >> "$results"
  fi
}

for file in "$@"; do
  run_scenario "$file"
done
! grep -q '^FAIL' "$results"
