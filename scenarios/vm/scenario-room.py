#!/usr/bin/env python3
# A room (issue 14), inside the bluez-vm guest: four relay-peripherals with their own names
# (room-1 ... room-4, on hci0-hci3) and four relay-centrals (hci4-hci7), each connecting to its
# own by name, all at once on one radio. Each pair exchanges a counter and a message each way:
# every message and counter reaches its own pair only, and every message is delivered.
# vm-controllers: 8
# vm-timeout: 420
import os

from scenario import BIN, WaitFailed, expect, fail, finish, joined, passed, relay, start, tail, values

pairs = (1, 2, 3, 4)
peripheral, central = {}, {}

for k in pairs:
    peripheral[k] = relay(f"p{k}", "relay-peripheral", "--adapter", f"hci{k - 1}", "--name", f"room-{k}")
    peripheral[k].send("start")
for k in pairs:
    expect(peripheral[k], "advertising", f"peripheral {k} did not advertise", timeout=90)
for k in pairs:
    central[k] = start(f"c{k}", ["nice", "-n", "5", os.path.join(BIN, "relay-central"), "--adapter", f"hci{k + 3}",
                                 "--json", "--name", f"room-{k}", "--connect", f"room-{k}", "--scan-timeout", "90"])
for k in pairs:
    try:
        central[k].wait("ready", timeout=150, protocol=2)
    except WaitFailed:
        fail(f"central {k} was not ready with protocol 2: {tail(central[k])}")
print("all four pairs ready", flush=True)
for k in pairs:
    central[k].send(f"write {100 + k}")
    central[k].send(f"send from central {k}")
    peripheral[k].send(f"notify {200 + k}")
    peripheral[k].send(f"send from peripheral {k}")
for k in pairs:
    expect(peripheral[k], "delivered", f"peripheral {k}'s message was not delivered", timeout=120)
    expect(central[k], "delivered", f"central {k}'s message was not delivered", timeout=120)
for k in pairs:
    central[k].send("quit")
for k in pairs:
    status = finish(central[k], 60)
    if status != 0:
        fail(f"central {k} exited {status}")
for k in pairs:
    peripheral[k].send("quit")
for k in pairs:
    status = finish(peripheral[k], 60)
    if status != 0:
        fail(f"peripheral {k} exited {status}")
for k in pairs:
    p, c = peripheral[k], central[k]
    if values(p, "message", "text") != [f"from central {k}"]:
        fail(f"peripheral {k} got '{joined(values(p, 'message', 'text'))}'")
    if values(c, "message", "text") != [f"from peripheral {k}"]:
        fail(f"central {k} got '{joined(values(c, 'message', 'text'))}'")
    if values(p, "counter", "value") != [100 + k]:
        fail(f"peripheral {k} got counters '{joined(values(p, 'counter', 'value'))}'")
    if values(c, "counter", "value") != [200 + k]:
        fail(f"central {k} got counters '{joined(values(c, 'counter', 'value'))}'")
    if p.count("delivered") != 1 or c.count("delivered") != 1:
        fail(f"pair {k}: not exactly one delivered each way")
passed("4 pairs on 8 controllers: every counter and message at its own pair only, all delivered")
