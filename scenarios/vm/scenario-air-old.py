#!/usr/bin/env python3
# The test bed radio, old profile (27-byte LL payloads, 4 ACL buffers of 27 bytes, 50 ms, ATT
# MTU 23): an L2CAP LE credit-based flood without relay lands within 15 % of the computed air
# capacity (scenarios/vm/air-lib.sh), and relay-central and relay-peripheral settle on MTU 23.
# vm-air: old
# vm-timeout: 180
import os
import subprocess
import sys

from scenario import OUT, REPO, fail, joined, passed, values
from scripted import central_first


def air_lib(commands):
    """COMMANDS run by bash with lib.sh and air-lib.sh sourced (the air scenarios' l2test flood
    and its check against the model, as the bash air scenarios run them), their output in this
    scenario's; the scenario fails as they did (with their reason when they gave one)."""
    sys.stdout.flush()
    libraries = f'source "{REPO}/scenarios/vm/lib.sh"; source "{REPO}/scenarios/vm/air-lib.sh"'
    status = subprocess.run(["bash", "-c", f"{libraries}; {commands}"], stdin=subprocess.DEVNULL).returncode
    if status != 0:
        reason = ""
        if os.path.exists(f"{OUT}/reason"):
            with open(f"{OUT}/reason") as handle:
                reason = handle.read().strip()
        fail(reason or f"air-lib.sh's '{commands}' exited {status}")


air_lib("air_flood 1000 60 10000; air_check 1000")

# relay on the old radio: both sides settle on MTU 23 (values of 20 bytes), and a message of
# several frames and a counter cross.
text = "a message of more than twenty bytes, in several frames on MTU 23"
peripheral_script = """start
wait advertising 30
wait subscribed 60
wait message 60
notify
wait disconnected 60
"""
central_script = f"""wait state 30
scan
wait discovered 60
connect 0
send {text}
wait counter 60
disconnect
"""
c, p, central_status, peripheral_status = central_first(central_script, peripheral_script, 150, 60)
if central_status != 0:
    fail(f"relay-central exited {central_status}")
if peripheral_status != 0:
    fail(f"relay-peripheral exited {peripheral_status}")
if values(c, "ready", "mtu") != [23]:
    fail(f"the central's MTU was '{joined(values(c, 'ready', 'mtu'))}', expected 23")
if values(c, "ready", "maxValue") != [20]:
    fail(f"the central's largest value was '{joined(values(c, 'ready', 'maxValue'))}', expected 20")
if values(p, "subscribed", "mtu") != [23]:
    fail(f"the peripheral saw MTU '{joined(values(p, 'subscribed', 'mtu'))}', expected 23")
if values(p, "message", "text") != [text]:
    fail(f"the peripheral got '{joined(values(p, 'message', 'text'))}'")
if c.count("counter") != 1:
    fail("the central did not get the counter")
passed(f"relay at MTU 23, {joined(values(c, 'sent', 'frames'))} frames for the message")
