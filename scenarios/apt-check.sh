#!/usr/bin/env bash
# scripts/apt.sh and scripts/install-deps.sh against a stand-in apt-get (nothing is installed and
# the system's apt is never called): relay's own apt calls run one at a time, a lock another
# process holds is waited for with a line saying so, a wait has a bound, and a failed install is
# one line with apt's own error and what to do.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "apt-check: FAIL: $*" >&2; exit 1; }
mkdir -p "$work/bin"
# The stand-in: locked for the first $LOCKED_CALLS calls (apt's own message), then it does what
# $BEHAVIOUR says; every call is logged, and two calls at once are caught.
cat > "$work/bin/apt-get" << 'STUB'
#!/usr/bin/env bash
state=$APT_STUB_STATE
if ! mkdir "$state/running" 2> /dev/null; then echo overlap >> "$state/overlaps"; fi
echo "$*" >> "$state/calls"
calls=$(wc -l < "$state/calls")
sleep "${APT_STUB_SLEEP:-0}"
status=0
if [ "$calls" -le "${LOCKED_CALLS:-0}" ]; then
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 10617 (apt-get)"
  echo "E: Unable to lock directory /var/lib/apt/lists/"
  status=100
elif [ "${BEHAVIOUR:-ok}" = missing ] && [[ " $* " == *" install "* ]]; then
  echo "Reading package lists..."
  echo "E: Unable to locate package no-such-package"
  status=100
fi
rmdir "$state/running"
exit $status
STUB
chmod 755 "$work/bin/apt-get"
run() { # name -> a fresh stub state; runs the rest with the stub first on PATH
  local name=$1
  shift
  export APT_STUB_STATE=$work/$name
  mkdir -p "$APT_STUB_STATE"
  : > "$APT_STUB_STATE/calls"
  PATH=$work/bin:$PATH RELAY_APT_LOCK=${RELAY_APT_LOCK:-$work/relay-apt.lock} RELAY_APT_RETRY=0.2 "$@"
}
# shellcheck source=../scripts/apt.sh
source "$repo/scripts/apt.sh"

# 1. A lock another process holds: waited for, a line says so, then the call goes through.
status=0
LOCKED_CALLS=3 run waits relay_apt test update -qq 2> "$work/waits.err" || status=$?
[ $status = 0 ] || fail "a held lock was not waited for (status $status): $(cat "$work/waits.err")"
[ "$(wc -l < "$work/waits/calls")" = 4 ] || fail "expected 3 locked tries and 1 more, got $(wc -l < "$work/waits/calls")"
grep -q "^test: waiting for apt's lock (Could not get lock /var/lib/apt/lists/lock" "$work/waits.err" ||
  fail "no line says what it waits for: $(cat "$work/waits.err")"

# 2. The wait is bounded: a lock never released ends in one line naming apt's error.
status=0
LOCKED_CALLS=1000 RELAY_APT_LOCK_WAIT=1 run bounded relay_apt_install test some-package 2> "$work/bounded.err" || status=$?
[ $status = 1 ] || fail "a lock held for ever did not fail the install (status $status)"
grep -q "^test: gave up waiting for apt's lock after" "$work/bounded.err" || fail "no line says the wait ended"
grep -q "^test: could not install some-package: apt-get update failed: E: Could not get lock" "$work/bounded.err" ||
  fail "the failure is not one line with apt's error: $(tail -n 3 "$work/bounded.err")"

# 3. An install apt refuses: the packages, apt's own error line and what to do, in one line
# (install-deps.sh installs through relay_apt_install).
grep -q 'relay_apt_install install-deps' "$repo/scripts/install-deps.sh" || fail "install-deps.sh does not install through scripts/apt.sh"
status=0
BEHAVIOUR=missing run refused relay_apt_install test no-such-package 2> "$work/refused.err" || status=$?
[ $status = 1 ] || fail "a refused install did not fail (status $status)"
if [ "$(id -u)" = 0 ]; then
  grep -q "^test: could not install no-such-package: E: Unable to locate package no-such-package; what to do: " "$work/refused.err" ||
    fail "a refused install is not said in one line: $(tail -n 3 "$work/refused.err")"
else
  grep -q "^test: could not install no-such-package: not root; " "$work/refused.err" || fail "no line says root is needed"
fi

# 4. relay's own steps side by side: a call waits while another relay step holds the lock (and
# says so), and two calls at once never run apt at the same time, whichever comes first.
(flock 9; touch "$work/held.flag"; sleep 1) 9> "$work/relay-apt.lock" &
holder=$!
while [ ! -e "$work/held.flag" ]; do sleep 0.05; done
run held relay_apt second update 2> "$work/held.err" || fail "a call after a held lock failed: $(cat "$work/held.err")"
wait $holder
grep -q "^second: waiting for another relay step's apt call to finish" "$work/held.err" ||
  fail "the call did not say it waits: $(cat "$work/held.err")"
export APT_STUB_SLEEP=0.5
run side relay_apt one update 2> "$work/side1.err" &
one=$!
run side relay_apt two update 2> "$work/side2.err" || fail "a call beside another failed: $(cat "$work/side2.err")"
wait $one || fail "a call beside another failed: $(cat "$work/side1.err")"
[ ! -s "$work/side/overlaps" ] || fail "two apt calls ran at once"
[ "$(wc -l < "$work/side/calls")" -ge 1 ] || fail "the stand-in was not called"
# 5. The lock's folder missing (a fresh root whose /run/lock is not made yet) is made; a lock that
# cannot be opened at all is one line saying so, not a wait that never was.
status=0
RELAY_APT_LOCK=$work/no/such/folder/lock run folder relay_apt test check 2> "$work/folder.err" || status=$?
[ $status = 0 ] || fail "a missing lock folder failed the call: $(cat "$work/folder.err")"
status=0
RELAY_APT_LOCK=/proc/no-such/lock run unusable relay_apt test update 2> "$work/unusable.err" || status=$?
[ $status = 1 ] || fail "an unusable lock did not fail the call (status $status)"
grep -q "^test: apt-get update failed: cannot open relay's apt lock /proc/no-such/lock" "$work/unusable.err" ||
  fail "an unusable lock is not said as such: $(cat "$work/unusable.err")"
! grep -q "waiting" "$work/unusable.err" || fail "an unusable lock was reported as a wait"
echo "apt-check: 5 passed, 0 failed"
