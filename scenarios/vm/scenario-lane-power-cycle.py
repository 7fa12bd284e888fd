#!/usr/bin/env python3
# scenario-delivery-power-cycle on the L2CAP lane: both programs with --lane l2cap. The same fault in the
# middle of a message each way; the channel goes with the link, the central opens a new one once
# it is back, and both messages resume on it and are delivered intact (the central's lane opened
# at least twice: before the fault and after it).
# On a power cycle the kernel closes the channel with the LE link.
# vm-controllers: 2
# vm-timeout: 420
import os
import runpy

os.environ["RELAY_SCENARIO_LANE"] = "l2cap"
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenario-delivery-power-cycle.py"), run_name="__main__")
