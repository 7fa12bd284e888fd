#!/usr/bin/env python3
# scenario-delivery-bluetoothd-restart on the L2CAP lane: both programs with --lane l2cap. The same fault in the
# middle of a message each way; the channel goes with the link, the central opens a new one once
# it is back, and both messages resume on it and are delivered intact (the central's lane opened
# at least twice: before the fault and after it).
# The channel is the kernel's and could outlive bluetoothd, but relay-central takes bluetoothd's
# leaving as the end of the link, as it does on GATT, and closes the channel itself (`disconnected`,
# the device went away); the restarted bluetoothd resets the controllers in the test bed, which ends
# the LE link anyway.
# vm-controllers: 2
# vm-timeout: 540
import os
import runpy

os.environ["RELAY_SCENARIO_LANE"] = "l2cap"
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenario-delivery-bluetoothd-restart.py"), run_name="__main__")
