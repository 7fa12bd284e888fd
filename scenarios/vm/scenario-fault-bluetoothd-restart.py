#!/usr/bin/env python3
# Fault 4 (issue 8), inside the bluez-vm guest: bluetoothd killed and restarted.
#   relay-peripheral (hci0) and relay-central --reconnect (hci1) exchange a counter and a
#   message; bluetoothd is killed (SIGKILL) and started again. Both programs must notice
#   org.bluez leaving (not-available) and coming back (poweredOn), the peripheral must register
#   and advertise again and the central reconnect, by themselves; then a counter and a message
#   go each way again.
# vm-controllers: 2
# vm-timeout: 240
from faults import Pair, kill_bluetoothd, start_bluetoothd
from scenario import OUT, REPO, expect, fail, joined, passed, pause, values

pair = Pair()
p, c = pair.peripheral, pair.central

pair.exchange_round(1, subscribe_timeout=120)
kill_bluetoothd()
expect(p, "state", "the peripheral did not notice bluetoothd leaving", timeout=20, state="notAvailable")
expect(c, "state", "the central did not notice bluetoothd leaving", timeout=20,
       where=lambda e: e.get("state") in ("notAvailable", "unknown"))
pause(1)
# Started the way scripts/vm/guest-bluetooth does, outside this scenario's process group, and
# recorded so that `guest-bluetooth down` stops it (and given its real-time priority).
start_bluetoothd(f"{OUT}/bluetoothd-restarted.log", config=f"{REPO}/scripts/vm/bluetoothd.conf")
expect(p, "state", "the peripheral did not report Bluetooth back on", timeout=30, count=2, state="poweredOn")
expect(p, "advertising", "the peripheral did not advertise again by itself", timeout=30, count=2)
expect(c, "state", "the central did not report Bluetooth back on", timeout=30, count=2, state="poweredOn")
pair.exchange_round(2, subscribe_timeout=120)

c.stop("quit", timeout=30)
p.stop("quit", timeout=30)
rounds = (1, 2)
for got, wanted, what in [
        (values(p, "counter", "value"), [100 + n for n in rounds], "the peripheral got counters"),
        (values(c, "counter", "value"), [200 + n for n in rounds], "the central got counters"),
        (values(p, "message", "text"), [f"central round {n}" for n in rounds], "the peripheral got messages"),
        (values(c, "message", "text"), [f"peripheral round {n}" for n in rounds], "the central got messages")]:
    if got != wanted:
        fail(f"{what} '{joined(got)}'")
passed("both noticed and recovered by themselves")
