#!/usr/bin/env python3
# Fault 3 (issue 8), inside the bluez-vm guest: adapter power cycles on either side.
#   relay-peripheral (hci0) and relay-central --reconnect (hci1) exchange a counter. Then
#   `btmgmt --index 0 power off` / `power on` (the peripheral's adapter): the peripheral reports
#   poweredOff then poweredOn, registers and advertises again by itself; the central reports the
#   disconnect and reconnects by itself; counters and a message go both ways. Then the same with
#   `btmgmt --index 1` (the central's adapter): the central reports poweredOff/poweredOn and
#   reconnects by itself; both directions work again. Neither program is told anything.
# Both programs report poweredOff / poweredOn as the original apps do. Test-bed limit: the central
# is held (SIGSTOP) while the peripheral's controller is off, because btvirt keeps an off controller
# connectable (docs/reliability.md, test-bed pitfalls).
# vm-controllers: 2
# vm-timeout: 300

from faults import Pair, cycle_peripheral_adapter, power
from scenario import expect, fail, joined, passed, pause, values

pair = Pair()
p, c = pair.peripheral, pair.central

pair.exchange_round(1)
# The peripheral's adapter goes off and on, the central held still meanwhile (btvirt's ghost
# links: faults.cycle_peripheral_adapter); it then meets the disconnection and reconnects by itself.
cycle_peripheral_adapter(p, c, 1)
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
