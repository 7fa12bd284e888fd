# Waiting without starting processes, for the guest's shell scripts (sourced by guest-runner.sh,
# guest-bluetooth and scenarios/vm/lib.sh). Under TCG every process the guest starts costs it
# 0.05 s (a static binary) to 0.5 s (grep) of CPU and wall time (measured: the `sleep 0.1` and
# `grep` of the polling loops took about 40 of the 53 CPU seconds of a one-minute scenario), which
# the programs under test then lack.
#   pause SECONDS      sleeps: bash's read times out on a FIFO this shell holds open at both ends
#                      (nothing ever arrives on it)
#   past_us DEADLINE   true once the clock in microseconds (bash's EPOCHREALTIME without its
#                      point) is at or past DEADLINE
# One FIFO a boot, never removed (made by the first script that needs it): every script opens it
# at both ends, nothing is ever written to it.
pause_fifo=${RELAY_PAUSE_FIFO:-/run/relay-vm/pause.fifo}
[ -p "$pause_fifo" ] || { mkdir -p "${pause_fifo%/*}" && mkfifo -m 600 "$pause_fifo"; } 2>/dev/null ||
  [ -p "$pause_fifo" ]
# A fixed, high descriptor: the scenarios open FIFOs on fixed small ones (7 to 12), and one that
# bash chose (10 and up) was once taken over by a scenario's, whose commands pause then read.
pause_fd=200
exec 200<> "$pause_fifo"
pause() { read -r -t "$1" -u "$pause_fd" _ || true; }
past_us() { [ "${EPOCHREALTIME/./}" -ge "$1" ]; }
