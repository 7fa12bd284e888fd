#!/usr/bin/env python3
# --trace (issue 18) inside the bluez-vm guest: relay-peripheral (hci0) traces in human pipe mode,
# relay-central (hci1) with --json. A counter and a short text each way with protocol 2: both
# programs show every value that went over the air with its bytes and meaning (the handshake, the
# counters, the data frames, the acknowledgements), each side's lines agree with the other's, and
# the article emulators' view is unchanged (--trace only prints).
# vm-controllers: 2
# vm-timeout: 120
import re

from scenario import WaitFailed, expect, expect_text, fail, joined, passed, relay, tail

# Human mode: the peripheral's lines are text (its log is peripheral.out).
p = relay("peripheral", "relay-peripheral", "--adapter", "hci0", "--trace", "--lane", "gatt", json=False, log_suffix=".out")
p.send("start")
try:
    p.wait_text(r"^advertising", timeout=60)
except WaitFailed:
    fail(f"relay-peripheral did not advertise: {tail(p, 3)}")
c = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--trace", "--lane", "gatt",
          "--connect", "sample")
expect(c, "ready", "relay-central is not ready with protocol 2", timeout=90, protocol=2)
c.send("write 77")
expect_text(p, r"^counter 77 from", "the counter did not arrive", timeout=30)
p.send("notify 88")
expect(c, "counter", "the peripheral's counter did not arrive", timeout=30, value=88)
c.send("send over the air")
expect_text(p, r'message .*"over the air"', "the central's text did not arrive", timeout=30)
p.send("send and back")
expect(c, "delivered", "the central's text was not delivered", timeout=30)
expect_text(p, r"^delivered message 1", "the peripheral's text was not delivered", timeout=30)
# The peripheral's human lines: what it received and what it notified.
for pattern in [
    r"^trace \+[0-9]+\.[0-9]{3} s in session from central [0-9A-F:]{17} 20 bytes b2 01 03 00 .*: hello v3 token 0x",
    # The welcome carries the central's link MTU (two controllers of one bluetoothd: 517): 20 bytes.
    r"^trace .* out session 20 bytes b2 02 03 .*: welcome v3 session 1 .* mtu 517$",
    r"^trace .* in session from central .* 4 bytes 4d 00 00 00: counter 77$",
    r"^trace .* out session .*: counter 88$",
    r"^trace .* in session from central .*: data session 1 transfer [0-9]+ offset 0, 23 stream bytes; header text, "
    r"length 12, ",
    r"^trace .* out session .*: acknowledgement delivered session 1 transfer [0-9]+ received 23$",
    r"^trace .* out session .*: data session 1 transfer [0-9]+ offset 0, 19 stream bytes; header text, length 8",
]:
    if not p.lines(pattern):
        fail(f"no peripheral trace line like: {pattern}")
# The central's JSON events: the same values the other way round. The central printed the last
# of them (its acknowledgement of the peripheral's text) before handing it over, so before the
# peripheral's `delivered` above; its reader thread may still be a moment behind: up to 5 s each.
for meaning in ["hello v3 token", "welcome v3 session 1", "counter 77", "counter 88",
                "data session 1 transfer [0-9]+ offset 0, 23 stream bytes",
                "acknowledgement delivered session 1 transfer [0-9]+ received 23",
                "data session 1 transfer [0-9]+ offset 0, 19 stream bytes",
                "acknowledgement delivered session 1 transfer [0-9]+ received 19"]:
    try:
        c.wait("trace", timeout=5, where=lambda e: re.match(meaning, str(e.get("meaning", ""))))
    except WaitFailed:
        fail(f"no central trace event: {meaning}")
# The documented line, field order included: checked on the line as printed.
if not c.lines(r'"event":"trace","time":"[^"]*","direction":"out","characteristic":"session","peer":"[0-9A-F:]*",'
               r'"length":4,"hex":"4d000000","meaning":"counter 77"'):
    fail("the central's counter trace is not as documented: " + joined(c.lines('"counter 77')[:1]))
traced = p.lines(r"^trace ")
print(f"peripheral: {len(traced)} trace lines; central: {c.count('trace')} trace events")
for line in traced[:8]:
    print(line[:160])
status = c.stop("quit", timeout=30)
if status != 0:
    fail(f"relay-central exited {status}")
status = p.stop("quit", timeout=30)
if status != 0:
    fail(f"relay-peripheral exited {status}")
passed()
