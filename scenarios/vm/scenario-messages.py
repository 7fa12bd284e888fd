#!/usr/bin/env python3
# Scenario 2 (inside the bluez-vm guest): messages both ways through the framing protocol.
#   relay-central (hci1) sends a short text and random binary messages of 1 KiB, 64 KiB and
#   256 KiB to relay-peripheral (hci0); then the peripheral sends the same kinds back. Every
#   message must arrive intact (same length and SHA-256 as the file sent), chunked for the
#   negotiated MTU. (256 KiB: four windows, over 500 values; the 1 MiB sent before took a
#   minute more of air time and proved nothing more. Big messages: make soak, the benchmark.)
# vm-timeout: 480
# Run: scenarios/vm/run-scenarios.sh messages   (or scripts/bluez-vm run -- scenarios/vm/scenario-messages.py)
import os

from scenario import OUT, WaitFailed, epoch, fail, finish, joined, passed, random_file, relay, sha256_text, values

# Longest either program may run before the scenario gives up on it.
limit = int(os.environ.get("RELAY_SCENARIO_LIMIT", "420"))
central_text = "hello from relay-central"
peripheral_text = "hello from relay-peripheral"
sizes = {"1k": 1024, "64k": 65536, "256k": 262144}
expected = {}
for side in ("c", "p"):
    text = central_text if side == "c" else peripheral_text
    expected[side] = [sha256_text(text)] + [random_file(f"{OUT}/{side}-{name}.bin", size) for name, size in sizes.items()]

peripheral_script = f"""start
wait advertising 30
wait subscribed 60
wait message 60
wait message 60
wait message 120
wait message 300
send {peripheral_text}
send-file {OUT}/p-1k.bin
send-file {OUT}/p-64k.bin
send-file {OUT}/p-256k.bin
wait disconnected 600
"""
central_script = f"""wait state 30
scan
wait discovered 60
connect 0
send {central_text}
send-file {OUT}/c-1k.bin
send-file {OUT}/c-64k.bin
send-file {OUT}/c-256k.bin
wait message 300
wait message 60
wait message 120
wait message 300
status
disconnect
"""

started_at = epoch()
# The central scans before the peripheral advertises (scenario-article starts them the other way).
central = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--max-message", "2097152",
                script=central_script)
try:
    central.wait("scanning", timeout=30)
except WaitFailed:
    pass  # the checks below tell what went wrong
peripheral = relay("peripheral", "relay-peripheral", "--adapter", "hci0", "--max-message", "2097152",
                   script=peripheral_script)
central_status = finish(central, limit)
peripheral_status = finish(peripheral, limit)
ended_at = epoch()

if central_status != 0:
    fail(f"relay-central exited {central_status}")
if peripheral_status != 0:
    fail(f"relay-peripheral exited {peripheral_status}")
mtus = values(central, "ready", "mtu")
if not mtus:
    fail("the central never became ready")
lengths = [len(central_text), 1024, 65536, 262144]
if values(central, "sent", "sha256") != expected["c"]:
    fail("the central did not send every message")
if values(peripheral, "message", "sha256") != expected["c"]:
    fail(f"the peripheral received '{joined(values(peripheral, 'message', 'sha256'))}', expected '{joined(expected['c'])}'")
if values(peripheral, "message", "length") != lengths:
    fail(f"the peripheral received lengths '{joined(values(peripheral, 'message', 'length'))}'")
if values(central, "message", "sha256") != expected["p"]:
    fail(f"the central received '{joined(values(central, 'message', 'sha256'))}', expected '{joined(expected['p'])}'")
lengths[0] = len(peripheral_text)
if values(central, "message", "length") != lengths:
    fail(f"the central received lengths '{joined(values(central, 'message', 'length'))}'")
if peripheral_text not in values(central, "message", "text"):
    fail("the central did not show the text")
if central.count("error") + peripheral.count("error"):
    fail("an error was reported")
passed(f"MTU {mtus[0]}, {ended_at - started_at:.1f} s for 2 x 321 KiB")
