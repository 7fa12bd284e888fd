#!/usr/bin/env python3
# The L2CAP lane beside peers that do not use it (issue 34), inside the bluez-vm guest:
#   1. the original Watch app (bleak_central.py, counters only) against relay-peripheral
#      --lane l2cap: counters 0, 1, 2 both ways, and it hears nothing but counters;
#   2. relay-central --lane gatt (on the wire what the release before does: it never reads the
#      lane characteristic) against relay-peripheral --lane l2cap: a message each way, delivered
#      on GATT; no channel opened or refused;
#   3. relay-peripheral --lane gatt (as the release before: no lane characteristic) against
#      relay-central --lane l2cap: one line says the peripheral offers no lane, and a message
#      each way is delivered on GATT.
# With RELAY_OLD_BIN=DIR (a build of the release before, by hand), parts 2 and 3 run that
# release's relay-central and relay-peripheral, without --lane, as the GATT-only side.
# vm-timeout: 420
import os

from peer_output import expect_values
from scenario import OUT, expect, start, expect_text, fail, file_lines, finish, joined, passed, peer, random_file, relay, \
    stop, tail, values


OLD_BIN = os.environ.get("RELAY_OLD_BIN")


def gatt_only(name, executable, *arguments):
    """The side without the lane: --lane gatt, or the release before (RELAY_OLD_BIN) as it is."""
    if OLD_BIN:
        return start(name, [os.path.join(OLD_BIN, executable), *arguments, "--json"])
    return relay(name, executable, *arguments, "--lane", "gatt")


def started_peripheral(name, lane):
    if lane == "gatt":
        program = gatt_only(name, "relay-peripheral", "--adapter", "hci0")
    else:
        program = relay(name, "relay-peripheral", "--adapter", "hci0", "--lane", lane)
    program.send("start")
    expect(program, "advertising", f"{name} did not advertise", timeout=60)
    return program


def exchange(p, c, tag):
    """A 20 KiB file each way between P and C (C connects first); both delivered and intact."""
    sent_c = random_file(f"{OUT}/{tag}-c.bin", 20480)
    sent_p = random_file(f"{OUT}/{tag}-p.bin", 20480)
    expect(c, "ready", f"{tag}: the central is not ready", timeout=90)
    c.send(f"send-file {OUT}/{tag}-c.bin")
    expect(p, "message", f"{tag}: the central's message did not arrive", timeout=60)
    p.send(f"send-file {OUT}/{tag}-p.bin")
    expect(c, "message", f"{tag}: the peripheral's message did not arrive", timeout=60)
    expect(c, "delivered", f"{tag}: the central's message was not confirmed", timeout=30)
    expect(p, "delivered", f"{tag}: the peripheral's message was not confirmed", timeout=30)
    if values(p, "message", "sha256") != [sent_c] or values(c, "message", "sha256") != [sent_p]:
        fail(f"{tag}: a message arrived changed")


# 1. The original Watch app.
p = started_peripheral("p1", "l2cap")
bleak = peer("bleak", "bleak_central.py", "--adapter", "hci1", "--write", "3", "--expect-notify", "3",
             "--only-counters", "--timeout", "150", "--output", f"{OUT}/bleak.values")
expect_text(bleak, "found", "bleak did not find relay-peripheral", timeout=60)
expect(p, "counter", "relay-peripheral did not show counter 2", timeout=90, value=2)
for _ in range(3):
    p.send("notify")
if finish(bleak, 160) != 0:
    fail(f"bleak failed: {tail(bleak, 1)}")
expect_values("counters notified to bleak", file_lines(f"{OUT}/bleak.values"), 0, 1, 2)
if bleak.lines(r"not counters|ignored a notification"):
    fail("bleak saw values that are not counters")
stop(p)

# 2. A central that does not use the lane.
p = started_peripheral("p2", "l2cap")
c = gatt_only("c2", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample")
exchange(p, c, "gatt-central")
if c.select("lane") or [e for e in p.select("lane") if e.get("state") != "listening"]:
    fail(f"a lane was used: central '{joined(values(c, 'lane', 'state'))}', "
         f"peripheral '{joined(values(p, 'lane', 'state'))}'")
stop(c)
stop(p)

# 3. A peripheral that does not offer it.
p = started_peripheral("p3", "gatt")
c = relay("c3", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample", "--lane", "l2cap")
exchange(p, c, "gatt-peripheral")
if values(c, "lane", "reason") != ["not-offered"]:
    fail(f"the central's lane events say '{joined(values(c, 'lane', 'reason'))}', expected not-offered once")
if p.select("lane"):
    fail("the peripheral without the lane reported one")
stop(c)
stop(p)
passed("the Watch app's counters, a GATT-only central and a GATT-only peripheral, each beside the lane")
