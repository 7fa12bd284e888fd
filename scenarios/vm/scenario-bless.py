#!/usr/bin/env python3
# Scenario 3b (inside the bluez-vm guest): a third-party peripheral that no one here wrote,
# against relay-central. scenarios/vm/peers/bless_peripheral.py (bless, PyPI) serves the article's
# UUIDs on hci0 and speaks only raw 4-byte counters: relay-central on hci1 scans, finds it,
# connects, subscribes, must show exactly the counters 0, 1, 2 it notifies, and writes 0, 1, 2
# that bless must receive exactly. `read` must read both characteristics.
# vm-timeout: 150
from peer_output import expect_values, keep_lines
from scenario import err_lines, err_tail, OUT, WaitFailed, fail, finish, passed, peer, relay, tail, values

central_script = """wait state 30
scan
wait discovered 60
connect 0
wait counter 30
wait counter 10
wait counter 10
write
write
write
read
status
disconnect
"""

# The central scans before the peripheral advertises (scenario-article starts them the other way).
central = relay("central", "relay-central", "--adapter", "hci1", "--scan-timeout", "60", script=central_script)
try:
    central.wait("scanning", timeout=30)
except WaitFailed:
    fail(f"relay-central did not scan: {tail(central, 2)}")
# bless prints the counters written to it on stdout (peripheral.jsonl), its progress on stderr.
bless = peer("peripheral", "bless_peripheral.py", "--adapter", "hci0", "--expect-writes", "3", "--notify", "3",
             "--interval", "0.2", "--timeout", "120", merge_stderr=False)
if finish(central, 120) != 0:
    fail(f"relay-central failed: {' '.join(e.text for e in central.select('error')[:3])}")
if finish(bless, 30) != 0:
    fail(f"the bless peripheral failed: {err_tail(bless, 1)}")
expect_values("counters relay-central wrote to bless", bless.lines(), 0, 1, 2)
counters = values(central, "counter", "value")
keep_lines(f"{OUT}/central.counters", counters)
expect_values("counters bless notified to relay-central", counters, 0, 1, 2)
if central.count("read") != 2:
    fail("relay-central did not read both characteristics")
# The original iPhone app offers no session characteristic: protocol 1, and bless (which logs
# every write that is not a counter) saw only counters.
if values(central, "ready", "protocol") != [1]:
    fail("relay-central did not speak protocol 1 with bless")
if any("ignored a write" in line for line in err_lines(bless)):
    fail("bless was written values that are not counters")
passed("relay-central received 0 1 2 from bless and wrote 0 1 2 to it")
