#!/usr/bin/env python3
# Both directions at once, as two people typing together: 512 KiB each way started together on
# the laptop radio, protocol 2 with its acknowledgements. Both arrive intact, and neither
# direction stalls while the other runs: when the first message arrives, the other direction's
# sender has moved at least a tenth of its bytes (a progress check, not a timing threshold).
# Before the two-way flight (docs/protocol.md, "Flight"; 2026-12-04) the other direction had
# moved 13-98 % (13 % on the loaded CI machine); since, 53-77 % in 6 runs (docs/performance.md,
# "Both directions at once"): a stall moves next to nothing.
# Before, one direction was held to the rate it had when the other began (issue 32).
#   scenarios/vm/run-scenarios.sh both-ways
# vm-controllers: 2
# vm-air: laptop
# vm-timeout: 300
import json

from faults import LANE, lane_options
from scenario import OUT, epoch, event_time, expect, fail, random_file, relay, status_of, values

size = 524288
expected = random_file(f"{OUT}/both.bin", size)
p = relay("p", "relay-peripheral", "--adapter", "hci0", *lane_options())
p.send("start")
expect(p, "advertising", "not advertising", timeout=60)
c = relay("c", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample", *lane_options())
expect(c, "ready", "the central is not ready", timeout=60)
if not c.select("ready", protocol=2, lane=LANE):
    fail(f"not protocol 2 on the {LANE} lane: " + " ".join(c.lines('"ready"')))
started = epoch()
c.send(f"send-file {OUT}/both.bin")
p.send(f"send-file {OUT}/both.bin")
expect(p, "message", "central -> peripheral not delivered", timeout=200)
expect(c, "message", "peripheral -> central not delivered", timeout=200)
expect(c, "delivered", "the central saw no delivered", timeout=30)
expect(p, "delivered", "the peripheral saw no delivered", timeout=30)
ended = epoch()
if values(p, "message", "sha256") != [expected]:
    fail("central -> peripheral: the content differs")
if values(c, "message", "sha256") != [expected]:
    fail("peripheral -> central: the content differs")


def moved_by(program, time):
    """The bytes a sender's last `progress` (out) at or before TIME (epoch seconds) says it moved."""
    moved = 0
    for event in program.select("progress", direction="out"):
        if "time" in event and "bytes" in event and event_time(event) <= time:
            moved = event["bytes"]
    return moved


to_peripheral = event_time(p.select("message")[0])
to_central = event_time(c.select("message")[0])
if to_peripheral < to_central:
    first, other, moved = "central -> peripheral", "peripheral -> central", moved_by(p, to_peripheral)
else:
    first, other, moved = "peripheral -> central", "central -> peripheral", moved_by(c, to_central)
print(f"{first} arrived first; {other} had moved {moved} of {size} bytes by then", flush=True)
# bc's scale=1: truncated to a tenth.
print(f"both ways: {int(2 * size / 1024 / (ended - started) * 10) / 10:.1f} KiB/s together (to the last delivered)",
      flush=True)
if moved < size // 10:
    fail(f"{other} stalled while {first} ran: {moved} of {size} bytes when {first} arrived")
for side in (p, c):
    delivery = status_of(side).get("delivery")
    shown = "" if delivery is None else json.dumps(delivery, ensure_ascii=False, separators=(",", ":"))
    print(f"{side.name} delivery {shown}", flush=True)
for side, program in (("relay-central", c), ("relay-peripheral", p)):
    status = program.stop("quit", timeout=30)
    if status != 0:
        fail(f"{side} exited {status}")
