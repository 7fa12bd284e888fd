#!/usr/bin/env python3
# Scenario (inside the bluez-vm guest): relay-peripheral --allow, with an intruder.
#   relay-peripheral on hci0 takes values only from hci1's address (`--allow`). relay-central
#   on hci1 connects, writes a counter and sends a message: both shown, from hci1. bleak on hci2
#   connects to the same peripheral and writes counters 0..5 and 300 raw bytes:
#   none is shown, each is dropped and reported in at most 3 error lines per 5 s naming hci2,
#   and `status` lists the allowed address with the number dropped. The allowed central keeps
#   working after the intruder (a second counter and message).
# vm-controllers: 3
# vm-timeout: 300
import os

from scenario import OUT, expect, fail, finish, joined, passed, peer, relay, tail, values

allowed = os.environ.get("RELAY_VM_HCI1_ADDRESS") or fail("the VM did not say hci1's address")
intruder = os.environ.get("RELAY_VM_HCI2_ADDRESS") or fail("the VM did not say hci2's address")


def refused(event):
    """An error event reporting a value dropped for not being in --allow."""
    return "not in --allow" in str(event.get("message", ""))


p = relay("peripheral", "relay-peripheral", "--adapter", "hci0", "--allow", allowed)
c = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample")
expect(c, "scanning", "the central never scanned", timeout=30)
p.send("start")
expect(p, "advertising", "the peripheral never advertised", timeout=30)
expect(c, "ready", "the allowed central never became ready", timeout=90)
c.send("write 41\nsend from the allowed central")
expect(p, "message", "the allowed central's message did not arrive", timeout=60)

# The intruder: six raw counters (the original apps' way) and 300 raw bytes.
bleak = peer("bleak", "bleak_central.py", "--adapter", "hci2", "--write", "6", "--send-bytes", "300", "--timeout",
             "120", "--output", f"{OUT}/bleak.values")
if finish(bleak, 130) != 0:
    fail(f"bleak failed: {tail(bleak, 1)}")
expect(p, "error", "the intruder's values were not reported", timeout=10,
       where=lambda e: refused(e) and e.get("from") == intruder)

c.send("write 42\nsend again from the allowed central")
expect(p, "message", "the allowed central's second message did not arrive", timeout=60, count=2)
p.send("status")
expect(p, "status", "no status", timeout=10)
c.send("quit")
p.send("quit")
if finish(c, 30) != 0:
    fail("relay-central exited with an error")
if finish(p, 30) != 0:
    fail("relay-peripheral exited with an error")

if values(p, "counter", "value") != [41, 42]:
    fail(f"counters shown: '{joined(values(p, 'counter', 'value'))}', not 41,42")
if set(values(p, "counter", "from")) != {allowed}:
    fail("a counter came from someone else")
if values(p, "message", "from") != [allowed, allowed]:
    fail(f"messages from: '{joined(values(p, 'message', 'from'))}'")
reports = p.count("error", where=refused)
if not 1 <= reports <= 3:
    fail(f"{reports} reports of dropped values (1 to 3 expected in 5 s)")
others = p.select("error", where=lambda e: not refused(e))
if others:
    fail(f"another error: {others[0].text}")
status = p.last("status")
allow = status.get("allow") or {}
dropped = allow.get("dropped")
if not (allow.get("centrals") == [allowed] and isinstance(dropped, int) and dropped >= 1):
    fail(f"status: {status.text}")
if dropped < 7:
    fail(f"only {dropped} values dropped (6 counters and a message's frames were written)")
passed(f"{dropped} values from {intruder} dropped in {reports} reports")
