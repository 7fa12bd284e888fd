#!/usr/bin/env python3
# Strangers on the L2CAP lane (issue 34), inside the bluez-vm guest. relay-peripheral (hci0,
# --lane l2cap) and relay-central (hci1, --lane l2cap) have their lane open; a foreign central on
# hci2 (scenarios/vm/peers/hostile_lane.py) then:
#   1. opens 10 channels to the PSM without reading the lane characteristic: each is closed by
#      relay-peripheral, which says so at most 3 times in 5 s (`lane` refused, not-connected);
#   2. reads the characteristic, opens a channel and writes bytes that are not relay's framing on
#      it (the same bytes in every run: a length field of 65535 first): closed, reported once as
#      malformed;
#   2b. opens another and writes a value whose length promises 4000 bytes and brings 100: closed
#      as malformed 20 s after those bytes (relay's bound for a value to complete);
#   3. reads it and opens and closes 30 channels as fast as it can.
# Meanwhile the honest central's lane stays open (no `lane` closed at it) and its 64 KiB message
# and the peripheral's are delivered on it. Then relay-peripheral --secure: the stranger's
# channel, on a link that is not paired, is refused by the kernel before relay sees it.
# Step 1's channels come from a central that did not read the characteristic over GATT on its
# current link. With --secure the channel asks security level 4 (BT_SECURITY), the level GATT needs
# in secure mode (it asked 3 before issue 46), and the listener is bound to the adapter in use (it
# listened on every adapter). Step 2's bytes are the same in every run: it used to write random bytes,
# and about one run in eight the first length read as a value still coming and the channel stayed
# open. Peers that do not use the lane see nothing new (scenario-lane-mixed.py).
# vm-controllers: 3
# vm-timeout: 400
import json

from scenario import OUT, err_lines, expect, fail, finish, joined, passed, peer, random_file, relay, stop, values

central_sent = random_file(f"{OUT}/c.bin", 65536)
peripheral_sent = random_file(f"{OUT}/p.bin", 65536)


def stranger(name, *arguments):
    """Runs the hostile channel peer on hci2 to its end; its one JSON line."""
    program = peer(name, "hostile_lane.py", "--adapter", "hci2", *arguments, merge_stderr=False, log_suffix=".out")
    status = finish(program, 120)
    lines = [line for line in program.lines() if line.startswith("{")]
    if status != 0 or not lines:
        fail(f"the stranger ({name}) did not run through: status {status}, {' '.join(err_lines(program)[-2:])}")
    return json.loads(lines[-1])


p = relay("peripheral", "relay-peripheral", "--adapter", "hci0", "--lane", "l2cap")
p.send("start")
listening = expect(p, "lane", "the peripheral did not listen for channels", timeout=30, state="listening")
psm = listening["psm"]
c = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample", "--lane",
          "l2cap")
expect(c, "lane", "the honest central's lane did not open", timeout=90, state="open")
expect(c, "ready", "the honest central is not ready", timeout=30)

no_read = stranger("no-read", "--mode", "no-read", "--psm", psm, "--count", 10)
if no_read["opened"] + no_read["refused"] != 10 or no_read["closed_by_peer"] != no_read["opened"]:
    fail(f"channels opened without the read were not all closed: {no_read}")
refused = [e for e in p.select("lane", state="refused") if e.get("reason") == "not-connected"]
if not 1 <= len(refused) <= 6:
    fail(f"{len(refused)} refusal lines for 10 channels in a few seconds (at most 3 per 5 s)")

garbage = stranger("garbage", "--mode", "garbage", "--count", 50)
if garbage["opened"] != 1 or garbage["closed_by_peer"] != 1:
    fail(f"the garbage channel was not closed by the peripheral: {garbage}")
expect(p, "lane", "the peripheral did not report the garbage channel", timeout=10, state="closed",
       where=lambda event: event.get("reason") == "malformed")

incomplete = stranger("incomplete", "--mode", "incomplete")
if incomplete["opened"] != 1 or incomplete["closed_by_peer"] != 1 or not 18 <= incomplete["closed_after"] <= 30:
    fail(f"the channel whose value never completed was not closed 20 s on: {incomplete}")
expect(p, "lane", "the peripheral did not report the incomplete value", timeout=10, state="closed",
       where=lambda event: event.get("reason") == "malformed" and "incomplete after 20 s" in event.get("message", ""))

flood = stranger("flood", "--mode", "flood", "--count", 30)
if flood["opened"] + flood["refused"] != 30:
    fail(f"the flood did not run: {flood}")

# The honest pair, untouched: messages both ways on its lane.
c.send(f"send-file {OUT}/c.bin")
expect(p, "message", "the honest central's message did not arrive", timeout=60)
p.send(f"send-file {OUT}/p.bin")
expect(c, "message", "the peripheral's message did not arrive", timeout=60)
expect(c, "delivered", "the honest central's message was not confirmed", timeout=30)
expect(p, "delivered", "the peripheral's message was not confirmed", timeout=30)
if values(p, "message", "sha256") != [central_sent] or values(c, "message", "sha256") != [peripheral_sent]:
    fail("a message arrived changed")
if c.select("lane", state="closed"):
    fail(f"the honest central's lane was disturbed: {joined(values(c, 'lane', 'reason'))}")
if not p.running():
    fail("the peripheral died")
stop(c)
stop(p)

# --secure: a channel on a link that is not paired is refused by the kernel (BT_SECURITY 4, as GATT needs in secure mode).
s = relay("secure", "relay-peripheral", "--adapter", "hci0", "--lane", "l2cap", "--secure")
s.send("start")
listening = expect(s, "lane", "the secure peripheral did not listen", timeout=30, state="listening")
expect(s, "advertising", "the secure peripheral did not advertise", timeout=30)
unpaired = stranger("unpaired", "--mode", "no-read", "--psm", listening["psm"], "--count", 3)
if unpaired["refused"] + unpaired["closed_by_peer"] != 3:
    fail(f"an unpaired link's channel was not refused: {unpaired}")
accepted_by_relay = [e for e in s.select("lane") if e.get("state") not in ("listening", "refused")]
if accepted_by_relay:
    fail(f"the secure peripheral took an unpaired channel: {accepted_by_relay}")
stop(s)
passed(f"10 unread channels refused ({len(refused)} lines), garbage closed, an incomplete value's channel "
       f"closed after {incomplete['closed_after']} s, 30-channel flood, "
       f"unpaired channels refused in secure mode ({unpaired['refused']} by the kernel); the honest lane carried on")
