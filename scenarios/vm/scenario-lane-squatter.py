#!/usr/bin/env python3
# A local user takes relay-peripheral's PSM (issue 46, items 2 and 8), inside the bluez-vm guest.
# Before relay-peripheral starts, a process running as nobody with no capabilities
# (scenarios/vm/peers/psm_squatter.py) binds PSM 0x0080 on hci0's own address and listens. The
# kernel hands an incoming channel to the listening socket bound to the adapter's own address
# before one bound to every adapter, and to the oldest of those: relay-peripheral used to listen on
# every adapter, got the same PSM, and every central's channel went to the squatter (which
# answered with a forged welcome; relay-central refused it as `unproven`, item 2, and stayed on
# GATT). Now relay-peripheral binds its adapter's own address: the kernel gives it a PSM the
# squatter does not hold there, its lane characteristic serves that PSM, the honest central's
# lane opens to relay-peripheral itself, both 20 kB files cross on it, and the squatter never gets
# a channel. (The central's token check, for whatever still answers on a PSM, is in LaneTests.)
# In the test bed the kernel gives relay-peripheral PSM 129. On the code before, relay-peripheral was
# given 0x80 and this scenario failed.
# vm-controllers: 2
# vm-timeout: 240
from scenario import OUT, exchange_files, expect, fail, passed, peer, random_file, relay, stop

random_file(f"{OUT}/c.bin", 20000)
random_file(f"{OUT}/p.bin", 20000)

squatter = peer("squatter", "psm_squatter.py", "--adapter", "hci0", "--psm", 0x80, "--seconds", 200,
                merge_stderr=False)
listening = expect(squatter, "listening", "the squatter could not listen on the PSM", timeout=30)
if listening.get("uid") != 65534:
    fail(f"the squatter did not run as nobody: {listening}")

p = relay("peripheral", "relay-peripheral", "--adapter", "hci0", "--lane", "l2cap")
p.send("start")
psm = expect(p, "lane", "the peripheral did not listen for channels", timeout=30, state="listening")["psm"]
if psm == 0x80:
    fail("relay-peripheral was given the PSM the squatter holds on its adapter's address")
c = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample", "--lane",
          "l2cap")
expect(c, "lane", "the central's lane did not open to relay-peripheral", timeout=90, state="open")
expect(c, "ready", "the central did not set the session up", timeout=30)
if c.select("lane", state="closed"):
    fail(f"the central closed a lane: {c.select('lane', state='closed')}")

exchange_files(p, c, f"{OUT}/c.bin", f"{OUT}/p.bin")
stop(c)
stop(p)

squatter.terminate()
squatter.wait_exit(5)
report = squatter.select("squatter")
if not report:
    fail("the squatter left no report")
report = report[-1]
if report["channels"] or report["hellos"] or report["values"]:
    fail(f"the squatter got a central's channel: {report}")
passed(f"squatter (nobody) on PSM 0x80 of hci0's address: relay-peripheral listened on PSM {psm} on its adapter, "
       f"the central's lane opened to it and both 20 kB files crossed on it; the squatter took no channel")
