#!/usr/bin/env python3
# A room (issue 14; eight pairs, issue 47), inside the bluez-vm guest: eight relay-peripherals
# with their own names (room-1 ... room-8, on hci0-hci7), all advertising at once, and eight
# relay-centrals (hci8-hci15), each connecting to its own, the odd ones by name and the even ones
# by address, all at once on one radio (one btvirt holds at most 16 controllers). Each pair
# exchanges a counter and a message each way: every message and counter reaches its own pair
# only, and every message is delivered.
# vm-controllers: 16
# vm-timeout: 420
import os

from scenario import BIN, WaitFailed, expect, fail, finish, joined, passed, relay, start, tail, values

pairs = range(1, 9)
peripheral, central = {}, {}

for k in pairs:
    peripheral[k] = relay(f"p{k}", "relay-peripheral", "--adapter", f"hci{k - 1}", "--name", f"room-{k}")
    peripheral[k].send("start")
for k in pairs:
    expect(peripheral[k], "advertising", f"peripheral {k} did not advertise", timeout=90)
for k in pairs:
    # The odd centrals look for their peripheral's name, the even ones for its address.
    own = os.environ.get(f"RELAY_VM_HCI{k - 1}_ADDRESS") or f"00:AA:01:0{k - 1}:00:0{k - 1}"
    target = f"room-{k}" if k % 2 else own
    central[k] = start(f"c{k}", ["nice", "-n", "5", os.path.join(BIN, "relay-central"), "--adapter", f"hci{k + 7}",
                                 "--json", "--name", f"room-{k}", "--connect", target, "--scan-timeout", "90"])
for k in pairs:
    try:
        central[k].wait("ready", timeout=150, protocol=2)
    except WaitFailed:
        fail(f"central {k} was not ready with protocol 2: {tail(central[k])}")
for k in pairs:
    own = os.environ.get(f"RELAY_VM_HCI{k - 1}_ADDRESS") or f"00:AA:01:0{k - 1}:00:0{k - 1}"
    if central[k].select("ready")[0].get("address") != own:
        fail(f"central {k} is ready with {central[k].select('ready')[0].get('address')}, not its own {own}")
print("all eight pairs ready", flush=True)
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
passed("8 pairs on 16 controllers, found by name and by address: every counter and message at its own pair "
       "only, all delivered")
