#!/usr/bin/env bash
# Hostile input 9 (issue 8), on the host, no Bluetooth needed: the REPL and the command line
# of relay-peripheral and relay-central fed very long lines, invalid UTF-8, control
# characters, huge and negative numbers, and send-file on missing files, directories,
# devices, FIFOs and unreadable files. Each bad line must give exactly one `error` event
# naming its line, the good lines around it must still run, and the program must end by
# itself (no hang: a 20 s limit; no crash: exit status 1 from the failed lines, not a signal).
# Each bad command-line option must give exit status 64 and one line on stderr.
#   scenarios/hostile-input.sh            (run by make test; RELAY_BIN selects the binaries)
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${RELAY_BIN:-$repo/.build/debug}
bin=$(cd "$bin" && pwd)
work=$(mktemp -d /tmp/relay-hostile.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL hostile-input: $*"; failures=$((failures + 1)); }

chmod 755 "$work"
mkfifo -m 644 "$work/fifo"
head -c 100 /dev/urandom > "$work/unreadable"
chmod 000 "$work/unreadable"
head -c 2000000 /dev/zero | tr '\0' 'a' > "$work/long-word"
# A user that cannot read the unreadable file even when the tests run as root.
as_user=()
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi

# One script line per case; `expect` lists the line numbers that must fail (each once).
# Line 1 and the last line are good commands whose output proves the REPL went on.
make_script() { # program
  local common_numbers=(
    "status"
    "$(printf 'send %s' "$(head -c 70000 /dev/zero | tr '\0' x)")"           # 2: > 64 KiB
    "$(printf 'send \xff\xfe invalid utf-8')"                                 # 3
    "$(printf 'send \x1b[31m escape')"                                        # 4
    "$(printf 'send \x01\x02\x7f controls')"                                  # 5
    "sleep -1"                                                                # 6
    "sleep 1e9"                                                               # 7
    "wait state 99999999999999999999"                                         # 8
    "send-file /nonexistent/relay-hostile"                                    # 9
    "send-file $work"                                                         # 10
    "send-file /dev/zero"                                                     # 11
    "send-file $work/fifo"                                                    # 12
    "send-file $work/unreadable"                                              # 13
    "send-file"                                                               # 14
    "NUL"                                                                     # 15 (a NUL byte, below)
    "wait nosuchevent 1"                                                      # 16
  )
  printf '%s\n' "${common_numbers[@]}" | sed 's/^NUL$/nonsense\x00with a nul/' 
  if [ "$1" = relay-peripheral ]; then
    printf '%s\n' "notify -1" "notify 4294967296" "notify 99999999999999999999999999" "notify 0x10"  # 17-20
  else
    printf '%s\n' "write -1" "write 4294967296" "write 99999999999999999999999999" "connect -3"       # 17-20
  fi
  cat "$work/long-word"; echo                                                # 21: 2 MB line
  echo "status"                                                              # 22
}
expected_lines="2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21"
run_repl() { # program
  local program=$1 log=$work/$1.jsonl status=0 lines errors
  make_script "$program" > "$work/$program.script"
  (cd "$work" && timeout -k 5 20 "${as_user[@]}" "$bin/$program" --json < "$work/$program.script" > "$log" 2> "$work/$program.err") || status=$?
  [ $status = 124 ] || [ $status = 137 ] && { fail "$program hung on hostile input"; return; }
  [ $status -ge 128 ] && { fail "$program crashed (status $status): $(tail -n 3 "$work/$program.err")"; return; }
  [ $status = 1 ] || fail "$program exited $status, expected 1 (some lines failed)"
  lines=$(python3 "$repo/scenarios/relay_events.py" values "$log" error line | tr '\n' ' ' | sed 's/ $//')
  [ "$lines" = "$expected_lines" ] || fail "$program: errors on lines [$lines], expected [$expected_lines]"
  errors=$(grep -c '"event":"error"' "$log")
  [ "$errors" = 20 ] || fail "$program: $errors error lines, expected 20"
  [ "$(grep -c '"event":"status"' "$log")" = 2 ] || fail "$program: the REPL did not run the good lines around the bad ones"
  # Every error is one short line, never an echo of a 2 MB argument.
  awk 'length($0) > 2000 { exit 1 }' "$log" || fail "$program: an error line is longer than 2000 characters"
  grep -q 'permission denied\|Permission denied' "$log" || { [ ${#as_user[@]} -gt 0 ] && fail "$program: the unreadable file was not refused as such"; }
  echo "ok $program REPL: $(grep '"event":"error"' "$log" | sed -n 's/.*"message":"\([^"]\{0,60\}\).*/\1/p' | head -n 20 | tr '\n' '|' | cut -c1-200)…"
}

run_options() { # program option...
  local program=$1 status=0
  shift
  timeout -k 5 10 "$bin/$program" "$@" < /dev/null > "$work/opt.out" 2> "$work/opt.err" || status=$?
  [ $status = 64 ] || { fail "$program $(printf '%q ' "$@" | cut -c1-80): exit $status, expected 64"; return; }
  [ -s "$work/opt.err" ] || fail "$program $(printf '%q ' "$@" | cut -c1-80): nothing on stderr"
  [ "$(wc -c < "$work/opt.err")" -lt 4000 ] || fail "$program $(printf '%q ' "$@" | cut -c1-80): stderr is $(wc -c < "$work/opt.err") bytes"
}

for program in relay-peripheral relay-central; do
  [ -x "$bin/$program" ] || { echo "FAIL hostile-input: $bin/$program missing (swift build)"; exit 1; }
  run_repl "$program"
  run_options "$program" --max-message -1
  run_options "$program" --max-message 99999999999999999999999
  run_options "$program" --max-message 0
  run_options "$program" --adapter "$(printf 'hci\xff')"
  run_options "$program" --nosuchoption
  run_options "$program" --max-message
  run_options "$program" "--$(head -c 100000 "$work/long-word")"
  run_options "$program" --max-message "$(head -c 100000 "$work/long-word")"
done
run_options relay-peripheral --name "$(head -c 300 /dev/zero | tr '\0' n)"
run_options relay-central --scan-timeout nan
run_options relay-central --scan-timeout -5
run_options relay-central --scan-timeout 1e999

if [ $failures -gt 0 ]; then
  echo "hostile-input: $failures failure(s)"
  exit 1
fi
echo "PASS hostile-input (both programs: 20 hostile REPL lines, 10+ hostile options each)"
