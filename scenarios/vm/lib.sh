# Helpers for the bash scenarios in scenarios/vm (the radio checks that run BlueZ's own tools and
# bleak/bless, not relay's programs: those are scenario-*.py, driven by scenarios/relay_driver.py
# through scenario.py), sourced inside the bluez-vm guest:
#   source "$(dirname "$0")/lib.sh"
#
# Provides: $out (this scenario's writable log folder), $python (the repo's venv python),
# $peers (scenarios/vm/peers), $bin (the relay executables), and
#   start NAME COMMAND...        run COMMAND in the background; stdout to $out/NAME.out,
#                                stderr to $out/NAME.err
#   finish NAME [SECONDS]        wait for NAME (default 60 s, then kill it); its exit status
#   stop NAME                    SIGTERM NAME and wait for it
#   wait_for_line FILE REGEX [SECONDS]   until a line of FILE matches (default 30 s)
#   follow FILE REGEX N SECONDS [AT_LEAST]  until N lines of FILE match (with AT_LEAST: and
#                                the regex's first group, a number, is at least that; false after
#                                SECONDS); reads only
#                                what is new at each look, with bash's own read and regex (an
#                                extended regular expression, as grep -E): no process per look
#   pause SECONDS                sleep without a process (scripts/vm/pause.sh: under TCG each
#                                process start costs the guest 75-100 ms of CPU)
#   expect_values FILE WHAT VALUE...     fail unless FILE holds exactly these lines
#   fail REASON                  the scenario fails with REASON (the runner prints it)
#   bleak_central ARGS... / bless_peripheral ARGS...   the third-party peers (see --help)
#   btmgmt ARGS...               BlueZ's btmgmt on a pseudo-terminal (5.8x needs one)
# Everything started is killed when the scenario exits.
set -euo pipefail
: "${RELAY_VM:?run scenarios inside the VM: scenarios/vm/run-scenarios.sh or scripts/bluez-vm run}"
out=${RELAY_VM_OUT:?}
mkdir -p "$out"
peers=$RELAY_REPO/scenarios/vm/peers
bin=${RELAY_BIN:-$RELAY_REPO/.build/debug}
python=${RELAY_PYTHON:-}
declare -A started=()
# shellcheck source=../../scripts/vm/pause.sh
source "$RELAY_REPO/scripts/vm/pause.sh"

fail() {
  echo "$*" > "$out/reason"
  echo "FAIL: $*" >&2
  exit 1
}

bleak_central() {
  [ -n "$python" ] || fail "no Python venv (run scripts/python-env.sh on the host)"
  "$python" "$peers/bleak_central.py" "$@"
}

# btmgmt of BlueZ 5.7x/5.8x (Debian 13) waits forever, printing nothing, when it has no
# terminal (even `btmgmt info`; 5.66 does not): it runs on a pseudo-terminal here, its output
# without the terminal's CRs, its exit status kept.
btmgmt() {
  local line
  line=$(printf '%q ' "$(type -P btmgmt)" "$@")
  SHELL=/bin/bash script -qec "$line" /dev/null < /dev/null | tr -d '\r'
}

bless_peripheral() {
  [ -n "$python" ] || fail "no Python venv (run scripts/python-env.sh on the host)"
  "$python" "$peers/bless_peripheral.py" "$@"
}

start() {
  local name=$1
  shift
  "$@" > "$out/$name.out" 2> "$out/$name.err" &
  started[$name]=$!
}

finish() {
  local name=$1 seconds=${2:-60} pid status=0 ticks=0
  pid=${started[$name]:?no process named $name}
  while kill -0 "$pid" 2>/dev/null; do
    ticks=$((ticks + 1))
    if [ $ticks -gt $((seconds * 10)) ]; then
      echo "$name still running after $seconds s: killed" >> "$out/$name.err"
      kill "$pid" 2>/dev/null || true
      break
    fi
    pause 0.1
  done
  wait "$pid" || status=$?
  unset "started[$name]"
  return $status
}

stop() {
  local name=$1
  kill "${started[$name]:?no process named $name}" 2>/dev/null || true
  finish "$name" 10 || true
}

wait_for_line() { follow "$1" "$2" 1 "${3:-30}"; }

follow() { # file pattern wanted seconds [at-least]
  local file=$1 pattern=$2 wanted=$3 least=${5:-} fd="" line="" partial="" matched=0 end
  end=$((${EPOCHREALTIME/./} + $4 * 1000000))
  while :; do
    [ -z "$fd" ] && [ -r "$file" ] && exec {fd}< "$file"
    if [ -n "$fd" ]; then
      # A line without its newline yet is kept and completed at the next look.
      while [ "$matched" -lt "$wanted" ] && IFS= read -r -u "$fd" line; do
        line=$partial$line partial=""
        if [[ $line =~ $pattern ]] && { [ -z "$least" ] || [ "${BASH_REMATCH[1]}" -ge "$least" ]; }; then
          matched=$((matched + 1))
        fi
        line=""
      done
      partial+=$line
    fi
    if [ "$matched" -ge "$wanted" ] || [ "${EPOCHREALTIME/./}" -ge "$end" ]; then
      [ -n "$fd" ] && exec {fd}<&-
      [ "$matched" -ge "$wanted" ]
      return
    fi
    pause 0.1
  done
}

expect_values() {
  local file=$1 what=$2
  shift 2
  local expected actual
  expected=$(printf '%s\n' "$@")
  actual=$(cat "$file" 2>/dev/null || true)
  [ "$actual" = "$expected" ] ||
    fail "$what: expected [$(echo $expected)], got [$(echo $actual)]"
}

cleanup_started() {
  local name
  for name in "${!started[@]}"; do kill "${started[$name]}" 2>/dev/null || true; done
}
trap cleanup_started EXIT
