#!/usr/bin/env python3
# Saying when no one else can join (issue 47), inside the bluez-vm guest. Some controllers cannot
# advertise connectably while they are connected (no LE state 38: an AIC8800 report, 2026; a
# Raspbian upgrade in 2021); Linux then does not advertise while a peripheral-role link exists.
# The test bed's btvirt models one (`adv-connected=0`, scripts/vm/btvirt-air.patch) for every
# controller here. relay-peripheral on hci0, relay-centrals A (hci1) and B (hci2):
#   1. A connects; relay-peripheral asks bluetoothd for its advertisement again (a controller
#      stops advertising at a connection), the adapter refuses, and relay-peripheral says once
#      that no one else can join while 1 central is connected (`stopped`, reason `connected`,
#      `centrals` 1), and `status` says advertising is held (`advertisingHeld` 1);
#   2. B scans for 6 s and finds no `sample`;
#   3. A leaves: relay-peripheral advertises again (`advertising`), B finds it and connects;
#   4. B's connection is held again and said again; everyone quits cleanly.
# On a controller that can advertise while connected the same request keeps advertising going
# (`scenario-class.py`: fifteen centrals join one after another).
# vm-controllers: 3
# vm-air-extra: adv-connected=0
import os

from scenario import BIN, expect, fail, finish, passed, relay, start, status_of, tail

peripheral = relay("peripheral", "relay-peripheral", "--adapter", "hci0")
expect(peripheral, "state", "the peripheral's adapter did not come up", timeout=60)
peripheral.send("start")
expect(peripheral, "advertising", "the peripheral never advertised", timeout=60)


def central(name, adapter):
    program = start(name, [os.path.join(BIN, "relay-central"), "--adapter", adapter, "--json", "--scan-timeout", "6"])
    program.send("wait state 60")
    expect(program, "state", f"central {name}'s adapter did not come up", timeout=60)
    return program


# 1. A connects: advertising is held, said once.
a = central("a", "hci1")
a.send("scan")
expect(a, "discovered", "A did not find the peripheral", timeout=30, name="sample")
a.send("connect 0")
expect(a, "ready", "A was not ready", timeout=60)
held = expect(peripheral, "stopped", "the peripheral did not say advertising is held", timeout=30,
              where=lambda e: e.get("reason") == "connected")
if held.get("centrals") != 1:
    fail(f"held for {held.get('centrals')} centrals, not 1")
status = status_of(peripheral)
if status.get("advertising") is not False or status.get("advertisingHeld") != 1:
    fail(f"status says advertising {status.get('advertising')!r}, held {status.get('advertisingHeld')!r}")

# 2. B finds no one.
b = central("b", "hci2")
b.send("scan")
expect(b, "scan-stopped", "B's scan did not end", timeout=30)
if b.count("discovered", name="sample"):
    fail("B found the peripheral while it could not advertise")

# 3. A leaves: advertising again, B joins.
mark = peripheral.mark()
a.send("quit")
if finish(a, 60) != 0:
    fail(f"A did not quit cleanly: {tail(a)}")
expect(peripheral, "advertising", "the peripheral did not advertise again when A left", timeout=30, since=mark)
b.send("scan")
expect(b, "discovered", "B did not find the peripheral once A left", timeout=30, name="sample")
b.send("connect 0")
expect(b, "ready", "B was not ready", timeout=60)
expect(peripheral, "stopped", "held again with B was not said", timeout=30, since=mark,
       where=lambda e: e.get("reason") == "connected")
if peripheral.count("error"):
    fail(f"the peripheral reported errors: {peripheral.select('error')}")

b.send("quit")
if finish(b, 60) != 0:
    fail(f"B did not quit cleanly: {tail(b)}")
peripheral.send("quit")
if finish(peripheral, 60) != 0:
    fail(f"the peripheral did not quit cleanly: {tail(peripheral)}")
passed("held while connected (said once each time), advertising again when the central left")
