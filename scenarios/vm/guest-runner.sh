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
#   # vm-controller: TYPE   le (default: LE-only, legacy advertising) or dual (BR/EDR + LE 5.2:
#                           Linux advertises extended)
# Writes "PASS name seconds" / "FAIL name reason" lines to $RELAY_VM_OUT/results, and into each
# scenario's folder `cpu` (the guest's CPU counters before Bluetooth came up and after it went
# down: cpu_mark below) and `acct` (the process accounting records of that
# span), from which the suite's time table says where the guest's time went.
set -uo pipefail
repo=${RELAY_REPO:?}
root_out=${RELAY_VM_OUT:?}
results=$root_out/results
: > "$results"
# shellcheck source=../../scripts/vm/pause.sh
source "$repo/scripts/vm/pause.sh"
accounting=/run/relay-vm-acct
python3 "$repo/scenarios/vm/guest_cpu.py" enable "$accounting" 2> "$root_out/accounting.err" || accounting=""

# One line for scenarios/vm/guest_cpu.py: uptime, the guest's CPU counters (/proc/stat) and the
# CPU ticks of the long-lived dbus-daemon; read with bash alone (no process under TCG's costs).
cpu_mark() {
  local up _ counters stat comm dbus=0 fields
  read -r up _ < /proc/uptime
  read -r _ counters < /proc/stat
  for stat in /proc/[0-9]*/stat; do
    read -r comm < "${stat%/stat}/comm" 2>/dev/null || continue
    [ "$comm" = dbus-daemon ] || continue
    read -r fields < "$stat" 2>/dev/null || continue
    fields=${fields##*) }
    read -r -a fields <<< "$fields"
    dbus=$((dbus + fields[11] + fields[12]))
  done
  echo "$up $counters $dbus"
}
# The scenario's "# vm-KEY: VALUE" lines, read by bash: settings[KEY]=VALUE (its first word).
read_settings() { # file
  local line key value
  settings=()
  while IFS= read -r line; do
    [[ $line =~ ^#\ vm-([a-z-]+):\ *([^ ]*) ]] || continue
    key=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
    [ -n "${settings[$key]+set}" ] || settings[$key]=$value
  done < "$1"
}
declare -A settings=()

run_scenario() { # file
  local file=$1 name dir controllers seconds started pid status=0 reason elapsed
  name=${file##*/}
  name=${name%.sh}
  name=${name%.py}
  name=${name#scenario-}
  dir=$root_out/$name
  [ -e "$dir" ] && rm -rf "$dir"
  mkdir -p "$dir"
  # The accounting file is appended to by the kernel: emptied here, copied at the end.
  [ -n "$accounting" ] && : > "$accounting"
  cpu_mark > "$dir/cpu"
  read_settings "$file"
  controllers=${settings[controllers]:-2}
  seconds=${settings[timeout]:-300}
  [[ $controllers =~ ^[0-9]+$ ]] || controllers=2
  [[ $seconds =~ ^[0-9]+$ ]] || seconds=300
  local bluetooth=(--controllers "$controllers" --logs "$dir"
    --air "${settings[air]:-${RELAY_VM_AIR:-laptop}}"
    --air-extra "${settings[air-extra]:-${RELAY_VM_AIR_EXTRA:-}}"
    --controller "${settings[controller]:-le}")
  [ "${RELAY_VM_BTMON:-0}" = 1 ] && bluetooth+=(--btmon)
  if ! "$repo/scripts/vm/guest-bluetooth" up "${bluetooth[@]}" 2> "$dir/bluetooth-up.err"; then
    reason="Bluetooth did not come up ($(tail -n 1 "$dir/bluetooth-up.err"))"
  else
    started=${EPOCHREALTIME/./}
    (
      # shellcheck source=/dev/null
      source /run/relay-vm/bluetooth.env
      export RELAY_VM_OUT=$dir
      cd "$repo"
      # A scenario-*.py drives the programs with scenarios/relay_driver.py (scenario.py): the
      # guest's python3, standard library only (-S: no site, less of TCG's CPU per start), both
      # folders on its path whatever it imports first.
      case $file in
        *.py) export PYTHONPATH=$repo/scenarios:$repo/scenarios/vm; exec setsid python3 -S "$file" ;;
        *) exec setsid bash "$file" ;;
      esac
    ) > "$dir/output.log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
      if [ "${EPOCHREALTIME/./}" -gt $((started + seconds * 1000000)) ]; then
        echo "killed after $seconds s" > "$dir/reason"
        kill -TERM -- "-$pid" 2>/dev/null
        pause 2
        break
      fi
      pause 0.1
    done
    wait "$pid" || status=$?
    kill -KILL -- "-$pid" 2>/dev/null
    elapsed=$(((${EPOCHREALTIME/./} - started) / 100000))
    elapsed=$((elapsed / 10)).$((elapsed % 10))
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
  cpu_mark >> "$dir/cpu"
  [ -n "$accounting" ] && cat "$accounting" > "$dir/acct"
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
