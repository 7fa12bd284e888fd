#!/usr/bin/env python3
# Scenario (inside the bluez-vm guest): bleak, a central no one here wrote, against
# relay-peripheral, speaking only the original apps' raw 4-byte counters.
#   relay-peripheral on hci0 advertises `sample`; bleak on hci1 finds it, connects, subscribes
#   and writes counters 0, 1, 2: relay-peripheral shows exactly those, from hci1's address.
#   relay-peripheral then notifies 0, 1, 2: bleak sees exactly those.
# Run: scenarios/vm/run-scenarios.sh peripheral-bleak   (or scripts/bluez-vm run -- this file)
# vm-timeout: 240
import os

from peer_output import expect_values, keep_lines
from scenario import file_lines, OUT, expect, expect_text, fail, finish, passed, peer, relay, tail

# relay-peripheral takes its commands one at a time, as a user would type them.
p = relay("peripheral", "relay-peripheral", "--adapter", "hci0")
p.send("start")
p.send("wait advertising 30")
expect(p, "advertising", "relay-peripheral did not advertise", timeout=60)

# --only-counters: bleak fails if relay-peripheral notifies it anything but a counter (the
# original Watch app must never see a value that is not one unless the user sends a message).
# Its values go to bleak.values; its stdout stays empty, so its lines are its stderr.
bleak = peer("bleak", "bleak_central.py", "--adapter", "hci1", "--write", "3", "--expect-notify", "3",
             "--only-counters", "--timeout", "150", "--output", f"{OUT}/bleak.values")
expect_text(bleak, "found", "bleak did not find relay-peripheral", timeout=60)
p.send("wait subscribed 90")
p.send("wait counter 30")
p.send("wait counter 10")
p.send("wait counter 10")
expect(p, "counter", "relay-peripheral did not show counter 2", timeout=90, value=2)
p.send("notify")
p.send("notify")
p.send("notify")
if finish(bleak, 160) != 0:
    fail(f"bleak failed: {tail(bleak, 1)}")
p.send("wait disconnected 60")
p.send("status")
p.close_input()
if finish(p, 90) != 0:
    fail(f"relay-peripheral exited with an error: {' '.join(e.text for e in p.select('error')[:1])}")

# The values relay-peripheral showed, as "ADDRESS VALUE" lines, and what bleak saw.
shown = [f"{e.get('from')} {e.get('value')}" for e in p.select("counter")]
keep_lines(f"{OUT}/peripheral.values", shown)
central = os.environ.get("RELAY_VM_HCI1_ADDRESS")
if not central:
    fail("the VM did not say hci1's address")
expect_values("counters shown by relay-peripheral", shown, f"{central} 0", f"{central} 1", f"{central} 2")
expect_values("counters notified to bleak", file_lines(f"{OUT}/bleak.values"), 0, 1, 2)
if not p.count("notified", value=2):
    fail("relay-peripheral did not report notified 2")
if bleak.lines(r"not counters|ignored a notification"):
    fail("bleak saw values that are not counters")
passed()
