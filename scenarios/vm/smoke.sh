#!/usr/bin/env bash
# Smoke test of the test bed with third-party tools only: a bless peripheral with the
# article's UUIDs on hci0 and a bleak central on hci1 exchange the counters 0, 1, 2 both
# ways (raw 4-byte UInt32) through the guest's real bluetoothd.
#   scripts/bluez-vm run -- scenarios/vm/smoke.sh      (or make vm-smoke)
source "$(dirname "$0")/lib.sh"

start peripheral bless_peripheral --adapter hci0 --expect-writes 3 --notify 3 --timeout 120
wait_for_line "$out/peripheral.err" 'advertising' 60 ||
  fail "the bless peripheral did not advertise: $(tail -n 1 "$out/peripheral.err")"
start central bleak_central --adapter hci1 --write 3 --expect-notify 3 --timeout 120
finish central 130 || fail "the bleak central failed: $(tail -n 1 "$out/central.err")"
finish peripheral 30 || fail "the bless peripheral failed: $(tail -n 1 "$out/peripheral.err")"
expect_values "$out/central.out" "counters notified to the central" 0 1 2
expect_values "$out/peripheral.out" "counters written to the peripheral" 0 1 2
echo "smoke: counters 0 1 2 crossed both ways between bless on hci0 and bleak on hci1"
