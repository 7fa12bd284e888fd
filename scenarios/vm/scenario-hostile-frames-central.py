#!/usr/bin/env python3
# Hostile input 7, central side (issue 8), inside the bluez-vm guest: a foreign peripheral notifies
# garbage. scenarios/vm/peers/hostile_peripheral.py (bless on hci0) serves the relay service and, once
# relay-central (hci1, --max-message 65536) has subscribed, notifies 4 bursts of 300 hostile values
# at full speed (random bytes, truncated headers, first frames claiming up to 4 GiB, wrong CRCs,
# interleaved ids, reserved flags, unknown kinds and versions, then 150 first frames of new messages
# that never continue), each followed by one honest framed
# message (0 to 20 000 B) and one honest counter (1000 + round). relay-central must deliver every
# honest message intact and in order and every honest counter, report the garbage as error lines,
# rate-limited (at most 5 reports and one summary line a second), keep the link, never allocate beyond
# --max-message (VmHWM below 64 MiB; VmPeak, the virtual size, grows by less than 128 MiB: a buffer
# reserved for a lying length would show there even untouched), never crash, and still answer.
# Over any 10 s, at most 121 `error` and `dropped` lines and 55 `receiving` lines. Two runs in a row:
# 1 800 hostile values, 118-125 s, peak memory about 14 MiB.
# vm-controllers: 2
# vm-timeout: 300
import time

from hostile_checks import (check_alive, reports_per_window, log_lines, log_tail, must, peer_json, send,
                            start_central, wait_log)
from scenario import file_lines, OUT, PYTHON, WaitFailed, expect, fail, joined, passed, peer, values, vm_hwm

if not PYTHON:
    fail("no Python venv (run scripts/python-env.sh on the host)")
rounds, burst, firsts = 4, 300, 150


def vm_peak(program):
    return program.memory("VmPeak")


central = start_central("--max-message", "65536")
hwm_start, peak_start = vm_hwm(central), vm_peak(central)
flood_start = int(time.time())
hostile = peer("hostile", "hostile_peripheral.py", "--adapter", "hci0", "--rounds", rounds, "--burst", burst,
               "--firsts", firsts, "--honest-file", f"{OUT}/honest.sha", "--timeout", "240", "--linger", "60")
must(lambda: central.wait("ready", timeout=90), lambda: f"relay-central never became ready: {log_tail(hostile, 2)}")
try:
    wait_log(hostile, "done|timed out|Error", 250)
except WaitFailed as problem:
    fail(f"the hostile peripheral did not finish ({problem})")
if not log_lines(hostile, "done"):
    fail(f"the hostile peripheral failed: {log_tail(hostile, 2)}")
flood_seconds = int(time.time()) - flood_start
try:
    central.wait("counter", timeout=60, value=1000 + rounds - 1)
except WaitFailed:
    pass  # the last notifications may still be on their way
check_alive(central)
hwm_after, peak_after = vm_hwm(central), vm_peak(central)
send(central, "status")
expect(central, "status", "relay-central does not answer status after the flood", timeout=20)
if central.count("disconnected"):
    fail("relay-central lost the link during the flood")
central.stop("quit", timeout=30)
hostile.terminate()
hostile.wait_exit(5)  # its last lines read

honest_messages = file_lines(f"{OUT}/honest.sha")
sent = len([line for line in honest_messages if line])
if sent != rounds:
    fail(f"the hostile peripheral sent {sent} honest messages, not {rounds}")
if values(central, "message", "sha256") != honest_messages:
    fail(f"honest messages lost, corrupted or out of order: got {central.count('message')} of {rounds}")
counters = values(central, "counter", "value")
if counters != list(range(1000, 1000 + rounds)):
    fail(f"honest counters wrong: [{joined(counters)}]")
errors = len(central.select(where=lambda e: e.name in ("error", "dropped", "receiving")))
if errors < 1:
    fail("the hostile values were not reported")
# The limits: 5 reports (an error and its dropped line) and one summary line per window of at
# least 1 s, so any 10 s hold at most 11 windows: 121 lines; and `receiving` lines (one per first
# frame of a new message, which a hostile peer can send at its own pace) 5 per window: 55.
most = reports_per_window(central, ("error", "dropped"), 10)
if most > 121:
    fail(f"errors not rate-limited: {most} error/dropped lines within 10 s ({errors} report lines in all for "
         f"{rounds * (burst + firsts)} hostile values in {flood_seconds} s)")
announced = reports_per_window(central, ("receiving",), 10)
if announced > 55:
    fail(f"receiving lines not rate-limited: {announced} within 10 s")
if hwm_after > 65536:
    fail(f"relay-central's peak memory reached {hwm_after} KiB (at start: {hwm_start} KiB)")
if peak_after - peak_start > 131072:
    fail(f"relay-central's virtual size grew from {peak_start} to {peak_after} KiB")
report = " ".join(e.text for e in peer_json(hostile))
passed(f"{report}; {errors} report lines in {flood_seconds} s, at most {most} errors and {announced} receiving "
       f"within 10 s; VmHWM {hwm_start} -> {hwm_after} KiB; VmPeak {peak_start} -> {peak_after} KiB; {rounds} honest "
       "messages and counters intact")
