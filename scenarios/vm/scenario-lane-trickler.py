#!/usr/bin/env python3
# A credit trickler on the L2CAP lane (issue 46, item 3), inside the bluez-vm guest.
# relay-peripheral (hci0, --lane l2cap) and an honest relay-central (hci1) have their lane open;
# a stranger on hci2 (scenarios/vm/peers/hostile_lane.py --mode trickle) reads the lane
# characteristic, opens a channel with the smallest receive buffer, says hello on it (a session of
# its own, so the peripheral's messages go to it too) and then takes one value every 4.9 s. Before,
# relay-peripheral handed one value at a time to every channel: the stranger's full channel held
# every frame, acknowledgement and counter back (a 20 kB file not there after 18 s, counters 2 s
# late), and its 5 s stall limit restarted with each value it took. Now each channel has its own
# queue: the honest central's 20 kB file and counters keep their pace while the stranger trickles,
# and relay-peripheral closes the stranger's channel as stalled (full for 20 s of the last 30 s)
# with a line.
# Beyond a channel's 128 KiB a value is not queued for it, and protocol 2 repairs it. A closure of a
# channel that carried a session is always said (such closures were paced with strangers' at 3 in 5 s).
# Measured: the honest central's 20 kB file in 0.5 s, counters median 0.07 s (worst 0.14 s); the
# trickler's channel closed as stalled 24.6 s after its hello. On the code before, the file was not
# there after 30 s.
# vm-controllers: 3
# vm-timeout: 300
import statistics
import time

from scenario import OUT, event_time, expect, fail, finish, lane_pair, passed, peer, random_file, stop, values

sent = random_file(f"{OUT}/p.bin", 20000)

p, c = lane_pair()

stranger = peer("trickler", "hostile_lane.py", "--adapter", "hci2", "--mode", "trickle", "--every", 4.9, "--wait", 60,
                merge_stderr=False, log_suffix=".out")
expect(stranger, "trickling", "the trickler did not open its channel", timeout=90)
mark = p.mark()
expect(p, "subscribed", "the trickler's hello made no session", timeout=30, since=mark)
time.sleep(1)

# The peripheral's file goes to both sessions: the honest one has it at its pace.
started = time.monotonic()
p.send(f"send-file {OUT}/p.bin")
arrived = expect(c, "message", "the file did not reach the honest central while the trickler held its channel",
                 timeout=30)
file_seconds = time.monotonic() - started
expect(p, "delivered", "the honest central's file was not confirmed", timeout=20)
if values(c, "message", "sha256") != [sent]:
    fail("the file arrived changed")
if file_seconds > 10:
    fail(f"the honest central's 20 kB file took {file_seconds:.1f} s beside the trickler (about 1 s alone)")

# Counters keep their pace too.
delays = []
for value in range(5):
    since = c.mark()
    began = time.monotonic()
    p.send(f"notify {100 + value}")
    expect(c, "counter", f"counter {100 + value} did not arrive", timeout=15, since=since, value=100 + value)
    delays.append(time.monotonic() - began)
    time.sleep(0.5)

if statistics.median(delays) > 1.0:
    fail(f"counters were held back beside the trickler: {', '.join(f'{d:.2f}' for d in delays)} s")
closed = expect(p, "lane", "the trickler's channel was never closed as stalled", timeout=60, state="closed",
                where=lambda event: event.get("reason") == "stalled")
if event_time(closed) < event_time(arrived):
    fail("the trickler's channel closed before the file arrived: nothing was shown beside it")
status = finish(stranger, 90)
report = [line for line in stranger.lines() if line.startswith('{"mode"')]
if status != 0 or not report:
    fail(f"the trickler did not run through (status {status})")
if c.select("lane", state="closed"):
    fail("the honest central's lane was closed")
if not p.running() or not c.running():
    fail("a relay program died")
stop(c)
stop(p)
passed(f"with a credit trickler on the lane: the honest central's 20 kB file in {file_seconds:.1f} s, counters "
       f"median {statistics.median(delays):.2f} s (worst {max(delays):.2f} s); the trickler's channel closed as "
       f"stalled ({closed.get('message', '')}); trickler: {report[-1]}")
