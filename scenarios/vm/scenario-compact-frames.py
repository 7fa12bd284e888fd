#!/usr/bin/env python3
# Compact data frames on the old radio (ATT MTU 23, 27-byte link-layer payloads, 50 ms interval;
# docs/protocol.md, "Compact data frames"): a 4 KiB file each way, one after the other, protocol
# 2 with its acknowledgements, both programs of this release (handshake version 3). Both files
# arrive intact, and the central's trace shows the data values going compact once the other side
# acknowledged the message: its writes carry 18 stream bytes in 20 (full frames carry 10), the
# peripheral's notifications 16 in 18 (full: 8). Most data values of each direction are compact
# (a few full ones go first, before the receiver's first acknowledgement).
# Goodput on the old radio went from 0.8 to 1.4 KiB/s central -> peripheral and from 0.6 to 1.2 the
# other way (docs/performance.md).
#   scenarios/vm/run-scenarios.sh compact-frames
# vm-controllers: 2
# vm-air: old
# vm-timeout: 300
from scenario import OUT, expect, fail, passed, random_file, relay, values

size = 4096
to_peripheral = random_file(f"{OUT}/to-peripheral.bin", size)
to_central = random_file(f"{OUT}/to-central.bin", size)
p = relay("p", "relay-peripheral", "--adapter", "hci0", "--lane", "gatt")
p.send("start")
expect(p, "advertising", "not advertising", timeout=60)
c = relay("c", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--trace", "--lane", "gatt",
          "--connect", "sample")
expect(c, "ready", "the central is not ready with protocol 2", timeout=90, protocol=2)
if values(c, "ready", "mtu") != [23]:
    fail(f"the link is not at MTU 23: {values(c, 'ready', 'mtu')}")
c.send(f"send-file {OUT}/to-peripheral.bin")
expect(p, "message", "central -> peripheral not delivered", timeout=120)
expect(c, "delivered", "the central saw no delivered", timeout=30)
p.send(f"send-file {OUT}/to-central.bin")
expect(c, "message", "peripheral -> central not delivered", timeout=120)
expect(p, "delivered", "the peripheral saw no delivered", timeout=30)
if values(p, "message", "sha256") != [to_peripheral]:
    fail("central -> peripheral: the content differs")
if values(c, "message", "sha256") != [to_central]:
    fail("peripheral -> central: the content differs")


def data_values(direction):
    """The central's traced data values of DIRECTION on the session characteristic: (compact, full)."""
    traced = c.select("trace", direction=direction, characteristic="session")
    compact = [e for e in traced if e["meaning"].startswith("compact data ")]
    full = [e for e in traced if e["meaning"].startswith("data ")]
    return compact, full


shares = []
for direction, name, room, value in (("out", "central -> peripheral", 18, 20), ("in", "peripheral -> central", 16, 18)):
    compact, full = data_values(direction)
    if not compact:
        fail(f"{name}: no compact data frame ({len(full)} full ones)")
    if len(compact) < 3 * len(full):
        fail(f"{name}: {len(compact)} compact data frames against {len(full)} full ones")
    carried = [int(e["meaning"].split(", ")[1].split()[0]) for e in compact]
    if max(carried) != room or any(e["length"] > value for e in compact):
        fail(f"{name}: compact frames of up to {max(carried)} stream bytes (expected {room} in values of {value})")
    shares.append(f"{name} {len(compact)} compact, {len(full)} full")
passed(f"4 KiB each way at MTU 23, intact; data values: {'; '.join(shares)}")
