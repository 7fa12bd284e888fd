#!/usr/bin/env python3
# Protocol 2 with peers of protocol 1 (issue 15, test 5), inside the bluez-vm guest: a peer that
# implements only the version-1 frames of docs/protocol.md (scenarios/vm/peers/v1frames.py,
# strict: it counts every value its reassembler refuses), both ways, and relay with
# `--protocol 1` (as relay 0.2 on a laptop not yet updated) against relay of protocol 2.
#   1. bless (hci0) as a version-1 peripheral, relay-central (hci1): relay-central sends 100 KB
#      (`sent` then `unconfirmed`), bless sends 50 KB; both arrive intact, bless saw no
#      protocol error.
#   2. relay-peripheral (hci0), bleak (hci1) as a version-1 central: the same the other way.
#   3. relay-central --protocol 1 against relay-peripheral, then relay-central against
#      relay-peripheral --protocol 1: messages both ways `unconfirmed` and intact, no error.
# vm-controllers: 2
# vm-timeout: 420
import subprocess

from delivery import quit_or_fail, start_peripheral
from scenario import OUT, REPO, expect, fail, joined, passed, peer, random_file, relay, values

central_sent = random_file(f"{OUT}/c.bin", 100000)
peripheral_sent = random_file(f"{OUT}/p.bin", 100000)


def restart_bluetooth(number):
    """scripts/vm/guest-bluetooth restart with 2 controllers, its logs in OUT/roundNUMBER."""
    with open(f"{OUT}/round{number}.err", "w") as errors:
        status = subprocess.run([f"{REPO}/scripts/vm/guest-bluetooth", "restart", "--controllers", "2", "--logs",
                                 f"{OUT}/round{number}"], stdin=subprocess.DEVNULL, stderr=errors).returncode
    if status != 0:
        fail("Bluetooth did not come back")


def check_peer(program, who, relay_program, relay_who, relay_sent):
    """After a round with a version-1 peer (PROGRAM, named WHO): it got RELAY_SENT intact and saw
    no protocol error, and RELAY_PROGRAM got the peer's message intact."""
    got = values(program, "message", "sha256")
    if got != [relay_sent]:
        fail(f"{who} got '{joined(got)}'")
    if values(program, "status", "errors") != [0]:
        fail(f"{who} saw protocol errors: " + " | ".join(program.lines("protocol-error")[:3]))
    if values(relay_program, "message", "sha256") != values(program, "sent-message", "sha256"):
        fail(f"{relay_who} got {who}'s message wrong")


# 1. A version-1 peripheral.
bless = peer("bless", "bless_peripheral.py", "--adapter", "hci0", "--commands", "--v1", "--timeout", "0",
             merge_stderr=False)
expect(bless, "advertising", "bless did not advertise", timeout=60)
central = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample")
expect(central, "ready", "relay-central is not ready with protocol 1", timeout=90, protocol=1)
central.send(f"send-file {OUT}/c.bin")
expect(bless, "message", "bless got no message", timeout=120)
bless.send("message 50000 182")
expect(central, "message", "relay-central got no message from bless", timeout=120)
bless.send("status")
expect(bless, "status", "bless did not answer status", timeout=10)
quit_or_fail(central, "relay-central", 30)
bless.stop("quit", timeout=30)
check_peer(bless, "bless", central, "relay-central", central_sent)
if values(central, "unconfirmed", "sha256") != [central_sent]:
    fail("relay-central did not report its message unconfirmed")
if central.count("delivered") != 0:
    fail("relay-central reported a delivery it cannot know")
print("1. version-1 peripheral: both ways intact, unconfirmed, no protocol error", flush=True)

# 2. A version-1 central.
restart_bluetooth(2)
peripheral = start_peripheral("peripheral", "relay-peripheral did not advertise")
bleak = peer("bleak", "bleak_central.py", "--adapter", "hci1", "--commands", "--v1", "--timeout", "0",
             merge_stderr=False)
expect(bleak, "ready", "bleak did not connect", timeout=90)
expect(peripheral, "subscribed", "relay-peripheral saw no protocol-1 subscriber", timeout=30, protocol=1)
bleak.send("message 50000")
expect(peripheral, "message", "relay-peripheral got no message from bleak", timeout=120)
peripheral.send(f"send-file {OUT}/p.bin")
expect(bleak, "message", "bleak got no message", timeout=120)
bleak.send("status")
expect(bleak, "status", "bleak did not answer status", timeout=10)
bleak.stop("quit", timeout=30)
quit_or_fail(peripheral, "relay-peripheral", 30)
check_peer(bleak, "bleak", peripheral, "relay-peripheral", peripheral_sent)
if values(peripheral, "unconfirmed", "sha256") != [peripheral_sent]:
    fail("relay-peripheral did not report unconfirmed")
print("2. version-1 central: both ways intact, unconfirmed, no protocol error", flush=True)

# 3. relay of protocol 1 against relay of protocol 2, each way round.
for number, old in ((3, "central"), (4, "peripheral")):
    restart_bluetooth(number)
    central_flags = ["--protocol", "1"] if old == "central" else []
    peripheral_flags = ["--protocol", "1"] if old == "peripheral" else []
    p = start_peripheral(f"p{number}", f"round {number}: relay-peripheral did not advertise", *peripheral_flags)
    c = relay(f"c{number}", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample",
              *central_flags)
    expect(c, "ready", lambda: f"round {number}: not ready with protocol 1: " + " | ".join(c.lines('"event":"ready"')),
           timeout=90, protocol=1)
    c.send(f"send-file {OUT}/c.bin")
    p.send(f"send-file {OUT}/p.bin")
    expect(p, "message", f"round {number}: relay-peripheral got no message", timeout=120)
    expect(c, "message", f"round {number}: relay-central got no message", timeout=120)
    quit_or_fail(c, f"round {number}: relay-central", 30)
    quit_or_fail(p, f"round {number}: relay-peripheral", 30)
    if values(p, "message", "sha256") != [central_sent]:
        fail(f"round {number}: the peripheral got it wrong")
    if values(c, "message", "sha256") != [peripheral_sent]:
        fail(f"round {number}: the central got it wrong")
    if not (c.count("unconfirmed") == 1 and p.count("unconfirmed") == 1):
        fail(f"round {number}: not unconfirmed both ways")
    errors = c.lines('"event":"error"') + p.lines('"event":"error"')
    if errors:
        fail(f"round {number}: an error: " + " | ".join(errors[:2]))
    print(f"{number}. relay --protocol 1 as the {old}: both ways intact, unconfirmed, no error", flush=True)
passed()
