#!/usr/bin/env python3
# Hostile input 7 (issue 8), inside the bluez-vm guest: a foreign central writes garbage.
#   relay-peripheral (hci0, --max-message 65536) is connected by a hostile bleak central (hci1,
#   scenarios/vm/peers/hostile_central.py) that writes 4 bursts of 300 values at full speed: random
#   bytes, truncated frames, first frames claiming up to 4 GiB, wrong CRCs, interleaved message
#   ids, reserved flags, unknown kinds and versions, then 150 first frames of new messages that
#   never continue; after each burst one honest framed message
#   (0 to 20 000 B) and one honest counter (1000 + round). The peripheral must deliver exactly the
#   honest messages, intact and in order, and the honest counters; report the garbage as error
#   lines, rate-limited (at most 5 reports and one summary line a second); never allocate beyond --max-message
#   (VmHWM below 64 MiB; VmPeak, the virtual size, grows by less than 128 MiB: a buffer reserved
#   for a lying length would show there even untouched); never crash. Then an honest relay-central
#   (hci2) connects and its messages arrive intact.
# btvirt (BlueZ 5.66's emulator) gives every LE connection the handle 42, so a controller cannot
# hold two connections at once (the kernel refuses the second "hci0:42" and both links drop): the
# honest traffic during the flood comes from the hostile central itself, between its bursts, and
# the honest relay-central comes after it.
# The report lines are checked over every 10 s (`densest` in scenario.py): at most 121. The peer's
# honest messages use peers/hostile_frames.py, its own CRC-32C framing, so the Swift codec is not
# checked against itself. Two runs in a row: 1 800 hostile values, 122-143 s, peak memory about 14 MiB.
# vm-controllers: 3
# vm-timeout: 300
import os

from hostile_checks import reports_per_window
from scenario import (err_tail, file_lines, OUT, PYTHON, WaitFailed, epoch, expect, fail, finish, joined, passed, peer, random_file, relay,
                      values, vm_hwm)

hostile = os.environ.get("RELAY_VM_HCI1_ADDRESS") or "00:AA:01:01:00:01"
honest = os.environ.get("RELAY_VM_HCI2_ADDRESS") or "00:AA:01:02:00:02"
rounds, burst, firsts = 4, 300, 150
if not PYTHON:
    fail("no Python venv (run scripts/python-env.sh on the host)")

after_shas = [random_file(f"{OUT}/after-{i}.bin", i * 20000) for i in (1, 2)]
with open(f"{OUT}/after.sha", "w") as handle:
    handle.write("".join(sha + "\n" for sha in after_shas))

peripheral = relay("peripheral", "relay-peripheral", "--adapter", "hci0", "--max-message", "65536")
peripheral.send("start")
expect(peripheral, "advertising", "the peripheral never advertised", timeout=60)
hwm_before, peak_before = vm_hwm(peripheral), peripheral.memory("VmPeak")
flood_start = int(epoch())
# Its stdout (one JSON line of what it wrote) and its stderr (its log) apart, as hostile.out and
# hostile.err.
attacker = peer("hostile", "hostile_central.py", "--adapter", "hci1", "--rounds", rounds, "--burst", burst,
                "--firsts", firsts, "--honest-file", f"{OUT}/hostile.sha", "--timeout", 240, merge_stderr=False,
                log_suffix=".out")
if finish(attacker, 250) != 0:
    fail(f"the hostile central did not finish: {err_tail(attacker, 2)}")
flood_seconds = int(epoch()) - flood_start
if not peripheral.running():
    fail(f"the peripheral died: {err_tail(peripheral, 3)}")
hwm_after, peak_after = vm_hwm(peripheral), peripheral.memory("VmPeak")
try:
    peripheral.wait_count("message", rounds, timeout=30)
except WaitFailed:
    pass
expect(peripheral, "disconnected", "the peripheral did not see the hostile central leave", timeout=30)
try:
    peripheral.wait("advertising", timeout=30)
except WaitFailed:
    pass

central = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci2", "--connect", "sample")
try:
    central.wait("ready", timeout=90)
except WaitFailed:
    fail(f"the honest central never became ready after the flood: {' '.join(central.lines()[-1:])}")
for i in (1, 2):
    central.send(f"send-file {OUT}/after-{i}.bin")
expect(peripheral, "message", "the honest central's messages did not arrive after the flood", timeout=60,
       count=rounds + 2)
peripheral.send("status")
expect(peripheral, "status", "the peripheral does not answer status after the flood", timeout=20)
central.stop("quit", timeout=30)
peripheral.stop("quit", timeout=30)

from_hostile = peripheral.select("message", where=lambda event: event.get("from") == hostile)
from_honest = peripheral.select("message", where=lambda event: event.get("from") == honest)
for name, events in (("from-hostile", from_hostile), ("from-honest", from_honest)):
    with open(f"{OUT}/{name}", "w") as handle:
        handle.write("".join(event.text + "\n" for event in events))
hostile_shas = file_lines(f"{OUT}/hostile.sha")
if [event["sha256"] for event in from_hostile if "sha256" in event] != hostile_shas:
    fail("the hostile central's honest messages were lost, corrupted, reordered, or garbage became a message "
         f"({len(from_hostile)} messages for {len([sha for sha in hostile_shas if sha])} honest ones)")
if [event["sha256"] for event in from_honest if "sha256" in event] != after_shas:
    fail("the honest central's messages after the flood differ")
if values(peripheral, "counter", "value") != list(range(1000, 1000 + rounds)):
    fail(f"the honest counters between the bursts differ: [{joined(values(peripheral, 'counter', 'value'))}]")
reports = peripheral.select(where=lambda event: event.name in ("error", "dropped"))
errors = len([event for event in reports if hostile in event.text])
if errors < 1:
    fail("the hostile values were not reported")
# The limit: 5 reports (an error and its dropped line) and one summary line per window of at
# least 1 s, so any 10 s hold at most 11 windows: 121 lines.
most = reports_per_window(peripheral, ("error", "dropped"), 10)
if most > 121:
    fail(f"not rate-limited: {most} report lines within 10 s ({errors} in all for {rounds * (burst + firsts)} "
         f"hostile values in {flood_seconds} s)")
blamed = [event for event in reports if honest in event.text]
if blamed:
    fail(f"the honest central was blamed: {blamed[0].text}")
if hwm_after > 65536:
    fail(f"the peripheral's peak memory reached {hwm_after} KiB (before the flood: {hwm_before} KiB)")
if peak_after - peak_before > 131072:
    fail(f"the peripheral's virtual size grew from {peak_before} to {peak_after} KiB")
passed(f"{' '.join(attacker.lines())}; {errors} report lines in {flood_seconds} s, at most {most} within 10 s; "
       f"VmHWM {hwm_before} -> {hwm_after} KiB; VmPeak {peak_before} -> {peak_after} KiB; {rounds} honest messages "
       "and counters intact, 2 after the flood")
