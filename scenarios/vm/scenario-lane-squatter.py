#!/usr/bin/env python3
# A local user takes relay-peripheral's PSM (issue 46, item 2), inside the bluez-vm guest. Before
# relay-peripheral starts, a process running as nobody with no capabilities
# (scenarios/vm/peers/psm_squatter.py) binds PSM 0x0080 on hci0's own address and listens; the
# kernel then hands it every central's channel to that PSM (the oldest listening socket that
# matches wins), and relay-peripheral, listening on every adapter, is given the same PSM. The
# squatter answers each hello on its channels with a welcome naming the central's own token and a
# peripheral token of its own. relay-central must refuse that channel (`lane` closed, `unproven`:
# the welcome does not name the token the lane characteristic served over GATT), greet on GATT,
# and deliver its 20 kB file to the real relay-peripheral; the squatter reads no data frame, and
# the central's `delivered` comes only once the real peripheral has the message. The peripheral's
# own message reaches the central too.
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
if psm != 0x80:
    fail(f"the kernel gave relay-peripheral PSM {psm}, not the squatter's 0x80: nothing to test here")
c = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample", "--lane",
          "l2cap")
refused = expect(c, "lane", "the central did not refuse the squatter's channel", timeout=90, state="closed")
if refused.get("reason") != "unproven":
    fail(f"the central closed the lane for another reason: {refused}")
expect(c, "ready", "the central did not set the session up on GATT", timeout=30)
if c.select("lane", state="open"):
    fail("the central took the squatter's channel as its lane")

exchange_files(p, c, f"{OUT}/c.bin", f"{OUT}/p.bin")
stop(c)
stop(p)

squatter.terminate()
squatter.wait_exit(5)
report = squatter.select("squatter")
if not report:
    fail("the squatter left no report")
report = report[-1]
if report["channels"] < 1 or report["welcomes"] < 1:
    fail(f"the squatter never got the central's channel, so nothing was tested: {report}")
if report["values"] or report["bytes"]:
    fail(f"the squatter read values after its welcome: {report}")
passed(f"squatter (nobody) on PSM 0x80 took {report['channels']} channel(s), sent {report['welcomes']} forged "
       f"welcome(s), read no data; the central said unproven, set up on GATT and both 20 kB files were delivered")
