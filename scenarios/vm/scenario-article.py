#!/usr/bin/env python3
# Scenario 1 (inside the bluez-vm guest): the article's flow with the real executables.
#   relay-peripheral on hci0 starts advertising `sample`; relay-central on hci1 scans, finds it,
#   connects and subscribes; the central writes counters 0, 1, 2 and the peripheral shows exactly
#   those; the peripheral notifies 0, 1, 2 and the central shows exactly those.
# Both programs are driven non-interactively (commands on stdin, --json event lines on stdout).
# vm-timeout: 120
# Run: scenarios/vm/run-scenarios.sh article   (or scripts/bluez-vm run -- scenarios/vm/scenario-article.py)
import os

from scenario import WaitFailed, fail, finish, joined, passed, pause, relay, values

# Longest either program may run before the scenario gives up on it.
limit = int(os.environ.get("RELAY_SCENARIO_LIMIT", "240"))

peripheral_script = """start
wait advertising 30
wait subscribed 60
wait counter 30
wait counter 10
wait counter 10
notify
notify
notify
wait disconnected 60
"""
central_script = """wait state 30
scan
wait discovered 60
connect 0
write
write
write
wait counter 30
wait counter 10
wait counter 10
status
disconnect
"""

# The peripheral advertises before the central scans: the radio's advertising events reach a
# scan started later (the other scenarios start the central first).
peripheral = relay("peripheral", "relay-peripheral", "--adapter", "hci0", script=peripheral_script)
try:
    peripheral.wait("advertising", timeout=30)
except WaitFailed:
    pass  # the checks below tell what went wrong
pause(2)
central = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", script=central_script)
central_status = finish(central, limit)
peripheral_status = finish(peripheral, limit)

if central_status != 0:
    fail(f"relay-central exited {central_status}")
if peripheral_status != 0:
    fail(f"relay-peripheral exited {peripheral_status}")
if values(central, "discovered", "name") != ["sample"]:
    fail("the central did not list 'sample' exactly once")
mtus = values(central, "ready", "mtu")
if not mtus:
    fail("the central never became ready")
if values(central, "written", "value") != [0, 1, 2]:
    fail(f"the central wrote '{joined(values(central, 'written', 'value'))}'")
if values(peripheral, "counter", "value") != [0, 1, 2]:
    fail(f"the peripheral showed counters '{joined(values(peripheral, 'counter', 'value'))}', expected 0,1,2")
if values(central, "counter", "value") != [0, 1, 2]:
    fail(f"the central showed counters '{joined(values(central, 'counter', 'value'))}', expected 0,1,2")
passed(f"MTU {mtus[0]}")
