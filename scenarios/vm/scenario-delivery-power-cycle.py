#!/usr/bin/env python3
# Protocol 2 (issue 15, test 1), inside the bluez-vm guest: 512 KiB each way, and the receiving
# side's adapter powered off for 5 s in the middle of each. relay-central --reconnect (hci1)
# sends 512 KiB to relay-peripheral (hci0); at about 40 %, hci0 goes off for 5 s and on again.
# The transfer must resume (a `resumed` event with an offset above 0), be delivered intact
# (`delivered` at the central, the same SHA-256 at the peripheral), and cost at most the stream
# plus two windows of bytes sent. Then the same from the peripheral to the central with hci1 off.
# Test-bed limit (docs/test-bed.md): btvirt keeps an off controller connectable, so the central
# is held (SIGSTOP) while hci0 is off, as in scenario-fault-power-cycle.
# Until 3 Dec 21:00 the message was 1 MiB: a run of that size resumed from 221 332 and 215 997 of
# 1 048 576 bytes and sent 1 079 002 and 1 083 306 stream bytes for a stream of 1 048 587 (30 627
# and 34 719 sent again, about one window each).
# vm-controllers: 2
# vm-timeout: 420

from delivery import check_none_failed, check_received, check_resumed, check_sent_bound, quit_or_fail
from faults import Pair, check_lane, cycle_peripheral_adapter, power
from scenario import OUT, expect, fail, joined, passed, pause, random_file, status_of, values, wait_progress

# The window is passed to both programs: the bound below counts it (a stale 32 KiB here, after
# the default became 64 KiB, failed a run under load: 69 840 bytes resent, 4 time-outs).
# 512 KiB: the cut at 200 KB leaves most of it to resume (1 MiB proved nothing more and took
# 40 s longer on the laptop radio).
size, window = 524288, 65536
stream = size + 11
central_sent = random_file(f"{OUT}/c.bin", size)
peripheral_sent = random_file(f"{OUT}/p.bin", size)

options = ("--max-message", "2M", "--window", str(window))
pair = Pair(extra_central=options, extra_peripheral=options)
p, c = pair.peripheral, pair.central
expect(c, "ready", "the central did not become ready with protocol 2", timeout=60, protocol=2)

# Central to peripheral; the peripheral's adapter off for 5 s at about 200 KB.
c.send(f"send-file {OUT}/c.bin")
if wait_progress(c, "out", 200000, timeout=120) is None:
    fail("the central's message did not get going")
cycle_peripheral_adapter(p, c, 5)
expect(c, "resumed", "the central did not resume", timeout=120)
expect(c, "delivered", "the central's message was not delivered", timeout=180)
central_status = status_of(c)

# Peripheral to central; the central's adapter off for 5 s at about 200 KB.
p.send(f"send-file {OUT}/p.bin")
if wait_progress(c, "in", 200000, timeout=120) is None:
    fail("the peripheral's message did not get going")
power(1, "off")
expect(c, "state", "the central did not report its adapter off", timeout=20, state="poweredOff")
pause(5)
power(1, "on")
expect(p, "resumed", "the peripheral did not resume", timeout=120)
expect(p, "delivered", "the peripheral's message was not delivered", timeout=180)
peripheral_status = status_of(p)

quit_or_fail(c, "relay-central", 60)
quit_or_fail(p, "relay-peripheral", 60)
check_received(c, p, central_sent, peripheral_sent)
if values(c, "delivered", "sha256") != [central_sent]:
    fail(f"the central did not report delivered ('{joined(values(c, 'delivered', 'sha256'))}')")
if values(p, "delivered", "sha256") != [peripheral_sent]:
    fail(f"the peripheral did not report delivered ('{joined(values(p, 'delivered', 'sha256'))}')")
for who, program in (("c", c), ("p", p)):
    print(f"{who} resumed from {check_resumed(program, who)} of {size}", flush=True)
check_none_failed(c, p)
check_lane(c, p, opened=2)
check_sent_bound(central_status, stream, window, "central")
check_sent_bound(peripheral_status, stream, window, "peripheral")
passed("resumed and delivered both ways")
