# Helpers for the protocol-2 delivery scenarios (scenarios/vm/scenario-delivery-*.sh), sourced
# after lib.sh and faults-lib.sh inside the bluez-vm guest.
#   status_json OUTFILE FD       sends `status` on FD and prints the program's answer (JSON)
#   wait_progress OUTFILE DIRECTION BYTES [SECONDS]   until a progress event of DIRECTION (in or
#                                out) says at least BYTES
#   random_file PATH BYTES       a file of random bytes
#   check_sent_bound JSON STREAM WINDOW WHO   sentBytes of a status within STREAM + 2 windows
status_json() { # outfile fd
  local before
  before=$(count "$1" '"event":"status"')
  echo status >&"$2"
  wait_for_count "$1" '"event":"status"' $((before + 1)) 15 || fail "no answer to status in $1"
  grep '"event":"status"' "$1" | tail -n 1
}
wait_progress() { # outfile direction bytes [seconds]
  follow "$1" '"event":"progress".*"direction":"'"$2"'","bytes":([0-9]+)' 1 "${4:-60}" "$3"
}
random_file() { head -c "$2" /dev/urandom > "$1"; }
check_sent_bound() { # status-json stream-bytes window who
  local sent
  sent=$(json_field "$1" delivery.sentBytes)
  [ "$sent" -le $(($2 + 2 * $3)) ] || fail "$4 sent $sent stream bytes for $2: more than two windows ($3) over"
  echo "$4 sent $sent stream bytes for a stream of $2 ($(json_field "$1" delivery.resentBytes) again)"
}
