"""The fault scenarios' helpers (scenario-fault-*.py, scenario-delivery-*.py, ...), beside
scenario.py: the reconnecting pair (relay-central --reconnect on hci1 scanning before
relay-peripheral on hci0 starts advertising) and its exchange rounds (a counter and a message each
way); bluetoothd killed and started again the way scripts/vm/guest-bluetooth starts it."""
import os
import signal
import subprocess

from scenario import OUT, btmgmt, expect, fail, pause, relay, run

# The guest's Bluetooth state (scripts/vm/guest-bluetooth): bluetoothd.pid, bluetoothd.conf.
STATE = "/run/relay-vm"
# Both programs run with --lane LANE: gatt (the session characteristic through bluetoothd, the
# path these scenarios proved first), or l2cap in the lane variants (scenario-lane-*.py set it).
LANE = os.environ.get("RELAY_SCENARIO_LANE", "gatt")


def lane_options():
    """--lane LANE for both programs (the programs' default, auto, would take the lane)."""
    return ("--lane", LANE)


def check_lane(central, peripheral, opened):
    """In a lane variant: the central's channel opened at least OPENED times (once per link) and
    bluetoothd carried no data frame the peripheral sent or received after the first opening
    (--trace is not on: the central's `lane` events are the proof), nothing otherwise."""
    if LANE != "l2cap":
        return
    opens = [e for e in central.select("lane") if e.get("state") == "open"]
    if len(opens) < opened:
        states = ",".join(f"{e.get('state')}:{e.get('reason', '')}" for e in central.select("lane"))
        fail(f"the central's lane opened {len(opens)} times, expected {opened} (lane events: {states})")
    listening = [e for e in peripheral.select("lane") if e.get("state") == "listening"]
    if not listening:
        fail("the peripheral did not listen for channels")


class Pair:
    """relay-peripheral (hci0) and relay-central --connect sample --reconnect (hci1), both --json,
    driven interactively; EXTRA_CENTRAL / EXTRA_PERIPHERAL are more arguments of each."""

    def __init__(self, extra_central=(), extra_peripheral=()):
        self.central = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect",
                             "sample", "--reconnect", *extra_central, *lane_options())
        expect(self.central, "scanning", "the central never scanned", timeout=30)
        self.peripheral = relay("peripheral", "relay-peripheral", "--adapter", "hci0", *extra_peripheral,
                                *lane_options())
        self.peripheral.send("start")

    def exchange_round(self, round, subscribe_timeout=90):
        """The ROUND-th time the central is subscribed (waits up to SUBSCRIBE_TIMEOUT s) and ready:
        counter 100 + ROUND and a message each way, each seen arriving."""
        p, c = self.peripheral, self.central
        expect(p, "subscribed", f"round {round}: the central did not subscribe", timeout=subscribe_timeout, count=round)
        expect(c, "ready", f"round {round}: the central is not ready", count=round)
        c.send(f"write {100 + round}")
        c.send(f"send central round {round}")
        expect(p, "counter", f"round {round}: no counter at the peripheral", count=round)
        expect(p, "message", f"round {round}: no message at the peripheral", count=round)
        p.send(f"notify {200 + round}")
        p.send(f"send peripheral round {round}")
        expect(c, "counter", f"round {round}: no counter at the central", count=round)
        expect(c, "message", f"round {round}: no message at the central", count=round)


def power(index, state):
    """btmgmt --index INDEX power STATE (on, off), its output added to OUT/btmgmt.log; the scenario
    fails when btmgmt does."""
    status, output = btmgmt("--index", str(index), "power", state)
    with open(f"{OUT}/btmgmt.log", "a") as log:
        log.write(output)
    if status != 0:
        fail(f"btmgmt power {state} failed: {output.strip()}")


def cycle_peripheral_adapter(peripheral, central, seconds_off):
    """hci0 (the peripheral's adapter) off for SECONDS_OFF and on again, the central held still
    meanwhile. btvirt keeps a powered-off controller advertising and connectable, and forgets a
    connection at its next reset without telling the peer: a central connecting to hci0 while it
    is off holds a ghost link its kernel can never disconnect. A real radio is silent when off, so
    the central process is stopped (SIGSTOP) while hci0 is off and let go (SIGCONT) once the
    peripheral reported it on again; it then meets the disconnection as a central whose Connect
    waited for the peripheral to advertise again would."""
    central.signal(signal.SIGSTOP)
    power(0, "off")
    expect(peripheral, "state", "the peripheral did not report its adapter powered off", timeout=20,
           state="poweredOff")
    pause(seconds_off)
    power(0, "on")
    expect(peripheral, "state", "the peripheral did not report its adapter powered on", timeout=20, count=2,
           state="poweredOn")
    central.signal(signal.SIGCONT)


def bluez_on_bus():
    """True once bluetoothd owns org.bluez on the system bus (asking does not activate it)."""
    _, output = run(["dbus-send", "--system", "--print-reply=literal", "--dest=org.freedesktop.DBus", "/",
                     "org.freedesktop.DBus.NameHasOwner", "string:org.bluez"], timeout=10)
    return "true" in output


def bluetoothd_pid():
    with open(f"{STATE}/bluetoothd.pid") as handle:
        return int(handle.read().split()[0])


def kill_bluetoothd():
    """SIGKILL to the guest's bluetoothd; returns once it is gone."""
    pid = bluetoothd_pid()
    os.kill(pid, signal.SIGKILL)
    while os.path.exists(f"/proc/{pid}") and _state_of(pid) != "Z":
        pause(0.05)


def _state_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def start_bluetoothd(log, config=None):
    """bluetoothd started again as scripts/vm/guest-bluetooth starts it (pinned to CPU 0, its own
    session, recorded in bluetoothd.pid so that `guest-bluetooth down` stops it, real-time
    priority 10), its output in LOG, with CONFIG (default: the guest's bluetoothd.conf); returns
    once it owns org.bluez, or the scenario fails."""
    config = config or f"{STATE}/bluetoothd.conf"
    with open(log, "w") as output:
        daemon = subprocess.Popen(["taskset", "-c", "0", "bluetoothd", "-n", "-E", "-f", config], stdout=output,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    with open(f"{STATE}/bluetoothd.pid", "w") as handle:
        handle.write(f"{daemon.pid}\n")
    for _ in range(200):
        if bluez_on_bus():
            break
        pause(0.1)
    else:
        fail("bluetoothd did not come back on the bus")
    run(["chrt", "-f", "-a", "-p", "10", str(daemon.pid)], timeout=10)
    return daemon
