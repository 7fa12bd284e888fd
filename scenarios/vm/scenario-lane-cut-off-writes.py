#!/usr/bin/env python3
# What a central cut off from protocol 2 costs the honest ones (issue 46, item 13), inside the
# bluez-vm guest. relay-peripheral (hci0) and an honest relay-central (hci1) have their lane open;
# a stranger on hci2 (scenarios/vm/peers/cut_off_writer.py), for 25 s, connects, says hello 41
# times (cut off after 30), writes data frames on the session characteristic as fast as bluetoothd
# takes them until its link ends, and connects again. relay-peripheral ends the link of a central
# it cuts off: before, it read and answered every value (199 a second here: half a CPU second a
# second of the debug build, and the honest 20 kB files took 6.0 s and 10.0 s instead of 0.5 s).
# Measured: the stranger's links and writes, relay-peripheral's CPU per second while it tries, and
# the honest pair's 20 kB file each way during it against before it.
# Before: 199 values a second for 20 s after the cut-off, 0.54 s of CPU a second, the honest files
# 6.0 s up and 10.0 s down. Now: in 25 s the stranger had 5 links and wrote 1 089 values after its
# cut-offs (42 a second, those in flight before each link ended); relay-peripheral spent 0.31 s of
# CPU a second (connections and hellos included); the honest files took 1.8 s up and 1.3 s down
# (0.6 s and 0.5 s before the stranger). The bound: at most the values a link carries in the second
# it takes to end it, then a new connection and 30 hellos before the next cut-off.
# vm-controllers: 3
# vm-timeout: 300
import os
import time

from scenario import OUT, expect, fail, finish, lane_pair, passed, peer, random_file, stop, values

stranger_address = os.environ.get("RELAY_VM_HCI2_ADDRESS") or "00:AA:01:02:00:02"
files = {name: random_file(f"{OUT}/{name}.bin", 20000) for name in ("c1", "p1", "c2", "p2")}

p, c = lane_pair()


def exchange(tag, count):
    """Seconds for the central's 20 kB file to reach the peripheral and be confirmed, and the same back."""
    began = time.monotonic()
    c.send(f"send-file {OUT}/c{tag}.bin")
    expect(p, "message", f"the central's file {tag} did not arrive", timeout=60, count=count)
    expect(c, "delivered", f"the central's file {tag} was not confirmed", timeout=30, count=count)
    up = time.monotonic() - began
    began = time.monotonic()
    p.send(f"send-file {OUT}/p{tag}.bin")
    expect(c, "message", f"the peripheral's file {tag} did not arrive", timeout=60, count=count)
    expect(p, "delivered", f"the peripheral's file {tag} was not confirmed", timeout=30, count=count)
    return up, time.monotonic() - began


quiet = exchange(1, 1)
writer = peer("writer", "cut_off_writer.py", "--adapter", "hci2", "--address", stranger_address, "--seconds", 25,
              merge_stderr=False)
expect(writer, "writing", "the stranger did not start", timeout=90)
expect(p, "error", "the stranger was not cut off from protocol 2", timeout=60,
       where=lambda event: "cut off from protocol 2" in event.text)
cpu_before, wall_before = p.cpu(), time.monotonic()
flooded = exchange(2, 2)
done = expect(writer, "written", "the stranger did not finish writing", timeout=60, where=lambda e: "links" in e)
cpu = (p.cpu() - cpu_before) / (time.monotonic() - wall_before)
finish(writer, 30)
cut_offs = p.count("error", where=lambda event: "cut off from protocol 2" in event.text)
if done["ended_by_peer"] < 1 or cut_offs < 1:
    fail(f"the cut-off central's link was not ended: {done}")
if max(flooded) > 5:
    fail(f"the honest 20 kB files took {flooded[0]:.1f} s and {flooded[1]:.1f} s beside the cut-off writer")
if values(p, "message", "sha256") != [files["c1"], files["c2"]] or values(c, "message", "sha256") != [files["p1"], files["p2"]]:
    fail("a file arrived changed")
if not p.running():
    fail("the peripheral died")
stop(c)
stop(p)
passed(f"a central cut off {cut_offs} times in {done['seconds']} s ({done['links']} links, each ended by the "
       f"peripheral) wrote {done['writes']} values after its cut-offs ({done['per_second']}/s): relay-peripheral used "
       f"{cpu:.2f} s of CPU a second; the honest 20 kB files took {flooded[0]:.1f} s up and {flooded[1]:.1f} s down "
       f"during it, {quiet[0]:.1f} s and {quiet[1]:.1f} s before")
