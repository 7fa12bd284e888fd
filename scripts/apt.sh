# Sourced by the project's scripts for every apt call they make (scripts/install-deps.sh,
# scripts/bluez-vm): one apt call at a time among relay's own steps, a bounded wait for a lock
# that another process holds, and a failure said as one.
#
#   relay_apt WHO ARG...            apt-get ARG... (update, download, ...), locked
#   relay_apt_install WHO PKG...    apt-get update, then install PKG..., locked
#
# WHO names the caller in every line (install-deps, bluez-vm). On failure both print one line:
#   WHO: could not install P1 P2: <apt's own error line>; <what to do>
# and return 1. Environment: RELAY_APT_LOCK_WAIT (seconds to wait for a lock held by another
# process; default 600), RELAY_APT_RETRY (seconds between tries while apt's lock is held;
# default 5), RELAY_APT_LOCK (relay's own lock file; default /var/lock/relay-apt.lock).
# scenarios/apt-check.sh tests all of this against a stand-in apt-get.

relay_apt_error_line() { # file -> apt's first error line (E: ...), else its last line
  local line
  line=$(grep -m 1 '^E: ' "$1" 2> /dev/null || true)
  [ -n "$line" ] || line=$(grep -v '^[[:space:]]*$' "$1" 2> /dev/null | tail -n 1 || true)
  echo "${line:-no output}"
}

relay_apt_is_lock_error() { # file: apt failed only because another process holds a lock
  grep -q -E '^E: (Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock)' "$1" 2> /dev/null
}

relay_apt() { # who arg... -> apt-get arg..., waiting (bounded) for locks; apt's output on stderr
  local who=$1 log status started waited=0 limit=${RELAY_APT_LOCK_WAIT:-600}
  # relay's own steps take this lock around each apt call (flock: released when the process ends)
  local relay_apt_lock_file=${RELAY_APT_LOCK:-/var/lock/relay-apt.lock}
  shift
  relay_apt_last_error="apt-get was not run"
  mkdir -p "$(dirname "$relay_apt_lock_file")" 2> /dev/null || true
  if ! { exec 8> "$relay_apt_lock_file"; } 2> /dev/null; then
    relay_apt_last_error="cannot open relay's apt lock $relay_apt_lock_file"
    echo "$who: apt-get $1 failed: $relay_apt_last_error (RELAY_APT_LOCK names another file)" >&2
    return 1
  fi
  log=$(mktemp)
  if ! flock -n 8; then
    echo "$who: waiting for another relay step's apt call to finish (lock $relay_apt_lock_file)" >&2
    if ! flock -w "$limit" 8; then
      relay_apt_last_error="another relay step held $relay_apt_lock_file for $limit s"
      echo "$who: apt-get $1 failed: $relay_apt_last_error; is an install stuck? (ps -ef | grep apt)" >&2
      exec 8>&-
      rm -f "$log"
      return 1
    fi
  fi
  started=$SECONDS
  while :; do
    status=0
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=60 "$@" > "$log" 2>&1 || status=$?
    if [ $status = 0 ] || ! relay_apt_is_lock_error "$log"; then break; fi
    waited=$((SECONDS - started))
    if [ $waited -ge "$limit" ]; then
      echo "$who: gave up waiting for apt's lock after $waited s (RELAY_APT_LOCK_WAIT=$limit)" >&2
      break
    fi
    echo "$who: waiting for apt's lock ($(relay_apt_error_line "$log" | cut -c4-120)); ${waited} s of $limit" >&2
    sleep "${RELAY_APT_RETRY:-5}"
  done
  exec 8>&-
  [ $status = 0 ] || cat "$log" >&2
  relay_apt_last_error=$(relay_apt_error_line "$log")
  rm -f "$log"
  return $status
}

relay_apt_install() { # who package... -> installed, or one line saying what failed and what to do
  local who=$1
  shift
  if [ "$(id -u)" != 0 ]; then
    echo "$who: could not install $*: not root; run as root: apt-get install $*" >&2
    return 1
  fi
  echo "$who: installing $*" >&2
  if ! relay_apt "$who" update -qq; then
    echo "$who: could not install $*: apt-get update failed: $relay_apt_last_error; check the apt sources and the network (apt-get update shows the whole error)" >&2
    return 1
  fi
  if ! relay_apt "$who" install -y -qq --no-install-recommends "$@"; then
    echo "$who: could not install $*: $relay_apt_last_error; what to do: run apt-get install $* as root and read apt's whole output (a full disk: df -h /var/cache/apt)" >&2
    return 1
  fi
}
