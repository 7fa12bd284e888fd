#!/usr/bin/env python3
# Fault 3 (issue 8), inside the bluez-vm guest: adapter power cycles on either side.
#   relay-peripheral (hci0) and relay-central --reconnect (hci1) exchange a counter. Then
#   `btmgmt --index 0 power off` / `power on` (the peripheral's adapter): the peripheral reports
#   poweredOff then poweredOn, registers and advertises again by itself; the central reports the
#   disconnect and reconnects by itself; counters and a message go both ways. Then the same with
#   `btmgmt --index 1` (the central's adapter): the central reports poweredOff/poweredOn and
#   reconnects by itself; both directions work again. Neither program is told anything.
# vm-controllers: 2
# vm-timeout: 300
import signal

from faults import Pair, power
from scenario import expect, fail, joined, passed, pause, values

pair = Pair()
p, c = pair.peripheral, pair.central



pair.exchange_round(1)
# The peripheral's adapter goes off and on.
# btvirt keeps a powered-off controller advertising and connectable, and forgets a connection at
# its next reset without telling the peer: a central connecting to hci0 while it is off holds a
# ghost link its kernel can never disconnect (every later Connect waits 40 s and fails). A real
# radio is silent when off. So the central process is held still (SIGSTOP) while hci0 is off and
# let go once hci0 is on again; it then meets the disconnection and reconnects by itself, as a
# central whose Connect waited for the peripheral to advertise again would.
c.signal(signal.SIGSTOP)
power(0, "off")
expect(p, "state", "the peripheral did not report its adapter powered off", timeout=20, state="poweredOff")
pause(1)
power(0, "on")
expect(p, "state", "the peripheral did not report its adapter powered on", timeout=20, count=2, state="poweredOn")
c.signal(signal.SIGCONT)
expect(c, "disconnected", "the central did not report the disconnect", timeout=30)
expect(p, "advertising", "the peripheral did not advertise again by itself", timeout=30, count=2)
pair.exchange_round(2)

# The central's adapter goes off and on.
power(1, "off")
expect(c, "state", "the central did not report its adapter powered off", timeout=20, state="poweredOff")
expect(p, "disconnected", "the peripheral did not report the central gone", timeout=30, count=2)
pause(1)
power(1, "on")
expect(c, "state", "the central did not report its adapter powered on", timeout=20, count=2, state="poweredOn")
pair.exchange_round(3)

c.stop("quit", timeout=30)
p.stop("quit", timeout=30)
checks = [
    (values(p, "counter", "value"), [101, 102, 103], "the peripheral got counters"),
    (values(c, "counter", "value"), [201, 202, 203], "the central got counters"),
    (values(p, "message", "text"), [f"central round {n}" for n in (1, 2, 3)], "the peripheral got messages"),
    (values(c, "message", "text"), [f"peripheral round {n}" for n in (1, 2, 3)], "the central got messages"),
]
for got, wanted, what in checks:
    if got != wanted:
        fail(f"{what} '{joined(got)}'")
passed("both sides off/on, resumed on their own")
