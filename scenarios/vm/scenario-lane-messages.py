#!/usr/bin/env python3
# The L2CAP lane (inside the bluez-vm guest): relay-peripheral (hci0) and relay-central (hci1),
# both with --lane l2cap. The central reads the lane characteristic, opens a channel to the
# PSM it names and says hello on it; messages then go both ways on the channel (checked: both
# sides report the lane open, and the peripheral's bluetoothd carries no data frame: --trace shows
# every value relay-peripheral exchanges with bluetoothd, and none is a data frame).
# A 64 KiB file each way and a text arrive intact and confirmed; a counter still goes on GATT.
# `ready` and `subscribed` say `l2cap`. It runs on BlueZ 5.66 here and on 5.82 in the package
# scenarios (make vm-package-test).
# vm-timeout: 300
# Run: scenarios/vm/run-scenarios.sh lane-messages
import os

from scenario import OUT, WaitFailed, expect, fail, finish, joined, passed, random_file, relay, sha256_text, values

limit = int(os.environ.get("RELAY_SCENARIO_LIMIT", "240"))
central_text = "hello on the lane from relay-central"
peripheral_text = "hello on the lane from relay-peripheral"
expected = {}
for side in ("c", "p"):
    text = central_text if side == "c" else peripheral_text
    expected[side] = [sha256_text(text), random_file(f"{OUT}/{side}-64k.bin", 65536)]

peripheral_script = f"""start
wait advertising 30
wait subscribed 60
wait message 60
wait message 120
send {peripheral_text}
send-file {OUT}/p-64k.bin
wait counter 120
wait disconnected 60
"""
central_script = f"""wait state 30
scan
wait discovered 60
connect 0
send {central_text}
send-file {OUT}/c-64k.bin
wait message 120
wait message 120
"""

peripheral = relay("peripheral", "relay-peripheral", "--adapter", "hci0", "--lane", "l2cap", "--trace",
                   script=peripheral_script)
try:
    peripheral.wait("advertising", timeout=30)
except WaitFailed:
    pass
central = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--lane", "l2cap")
central.send(central_script)
# The counter and the disconnection once the peripheral heard both its messages were delivered: a
# disconnection right after a message arrived can cut its final acknowledgement off the air.
expect(peripheral, "delivered", "the peripheral's messages were not confirmed", timeout=limit, count=2)
central.send("write\ndisconnect\n")
central.close_input()
central_status = finish(central, limit)
peripheral_status = finish(peripheral, limit)

if central_status != 0:
    fail(f"relay-central exited {central_status}")
if peripheral_status != 0:
    fail(f"relay-peripheral exited {peripheral_status}")
psms = values(peripheral, "lane", "psm")
if not psms or not 0x80 <= psms[0] <= 0xFF:
    fail(f"the peripheral did not listen on a dynamic PSM: '{joined(psms)}'")
states = values(central, "lane", "state")
if states != ["open"]:
    fail(f"the central's lane went '{joined(states)}', expected open")
if values(central, "ready", "lane") != ["l2cap"] or values(peripheral, "subscribed", "lane") != ["l2cap"]:
    fail(f"ready says lane '{joined(values(central, 'ready', 'lane'))}', subscribed says "
         f"'{joined(values(peripheral, 'subscribed', 'lane'))}'")
if values(central, "lane", "psm") != psms[:1]:
    fail(f"the central opened PSM '{joined(values(central, 'lane', 'psm'))}', the peripheral listens on {psms[0]}")
if values(central, "sent", "sha256") != expected["c"] or values(peripheral, "message", "sha256") != expected["c"]:
    fail(f"the peripheral received '{joined(values(peripheral, 'message', 'sha256'))}'")
if values(peripheral, "sent", "sha256") != expected["p"] or values(central, "message", "sha256") != expected["p"]:
    fail(f"the central received '{joined(values(central, 'message', 'sha256'))}'")
if len(values(central, "delivered", "id")) != 2 or len(values(peripheral, "delivered", "id")) != 2:
    fail("not every message was confirmed delivered")
# Through bluetoothd, the session characteristic carried the counter only: no data frame.
def data_frames(on):
    return [e for e in peripheral.select("trace", characteristic=on) if e["hex"].replace(" ", "").startswith("b203")]


if data_frames("session"):
    fail(f"bluetoothd carried {len(data_frames('session'))} data frames of the peripheral; the lane should have")
lane_in = [e for e in data_frames("lane") if e["direction"] == "in"]
lane_out = [e for e in data_frames("lane") if e["direction"] == "out"]
if not lane_in or not lane_out:
    fail(f"the peripheral traced {len(lane_in)} data frames in and {len(lane_out)} out on the lane")
if values(peripheral, "counter", "value") != [0]:
    fail(f"the peripheral's counters '{joined(values(peripheral, 'counter', 'value'))}', expected the one on GATT")
passed("messages both ways on the L2CAP lane; counters on GATT")
