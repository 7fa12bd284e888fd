#!/usr/bin/env bash
# Scenario (inside the bluez-vm guest): bleak, a central no one here wrote, against
# relay-peripheral, speaking only the original apps' raw 4-byte counters.
#   relay-peripheral on hci0 advertises `sample`; bleak on hci1 finds it, connects, subscribes
#   and writes counters 0, 1, 2: relay-peripheral shows exactly those, from hci1's address.
#   relay-peripheral then notifies 0, 1, 2: bleak sees exactly those.
# Run: scenarios/vm/run-scenarios.sh peripheral-bleak   (or scripts/bluez-vm run -- this file)
# vm-timeout: 240
source "$(dirname "$0")/lib.sh"

# relay-peripheral reads its commands from a FIFO, so this script can type them as a user would.
# (Opened read-write first, so neither side blocks; the children do not inherit fd 3, so closing
# it here is relay-peripheral's end of input.)
# The FIFO lives on the guest's tmpfs (9p, where $out is, cannot hold one).
fifo=$(mktemp -u /tmp/relay-peripheral-in.XXXXXX)
mkfifo "$fifo"
trap 'rm -f "$fifo"; cleanup_started' EXIT
exec 3<> "$fifo"
# (Not through lib.sh's `start`: bash gives a background command inside a function /dev/null as stdin.)
"$bin/relay-peripheral" --adapter hci0 --json < "$fifo" > "$out/peripheral.out" 2> "$out/peripheral.err" 3>&- &
started[peripheral]=$!
type_line() { echo "$*" >&3; }
type_line start
type_line "wait advertising 30"
wait_for_line "$out/peripheral.out" '"event":"advertising"' 60 || fail "relay-peripheral did not advertise"

# --only-counters: bleak fails if relay-peripheral notifies it anything but a counter (the
# original Watch app must never see a value that is not one unless the user sends a message).
start bleak bleak_central --adapter hci1 --write 3 --expect-notify 3 --only-counters --timeout 150 \
  --output "$out/bleak.values" 3>&-
wait_for_line "$out/bleak.err" 'found' 60 || fail "bleak did not find relay-peripheral"
type_line "wait subscribed 90"
type_line "wait counter 30"
type_line "wait counter 10"
type_line "wait counter 10"
wait_for_line "$out/peripheral.out" '"event":"counter".*"value":2' 90 || fail "relay-peripheral did not show counter 2"
type_line notify
type_line notify
type_line notify
finish bleak 160 || fail "bleak failed: $(tail -n 1 "$out/bleak.err")"
type_line "wait disconnected 60"
type_line status
exec 3>&-
finish peripheral 90 || fail "relay-peripheral exited with an error: $(grep '"event":"error"' "$out/peripheral.out" | head -n 1)"

# The values relay-peripheral showed, as "ADDRESS VALUE" lines, and what bleak saw.
grep '"event":"counter"' "$out/peripheral.out" |
  sed 's/.*"from":"\([^"]*\)","value":\([0-9]*\).*/\1 \2/' > "$out/peripheral.values"
central=${RELAY_VM_HCI1_ADDRESS:?the VM did not say hci1\'s address}
expect_values "$out/peripheral.values" "counters shown by relay-peripheral" "$central 0" "$central 1" "$central 2"
expect_values "$out/bleak.values" "counters notified to bleak" 0 1 2
grep -q '"event":"notified","time":"[^"]*","value":2' "$out/peripheral.out" || fail "relay-peripheral did not report notified 2"
grep -q 'not counters\|ignored a notification' "$out/bleak.err" && fail "bleak saw values that are not counters"
echo "PASS peripheral-bleak"
