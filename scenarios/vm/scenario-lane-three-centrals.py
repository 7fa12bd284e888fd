#!/usr/bin/env python3
# scenario-fault-three-centrals on the L2CAP lane: relay-peripheral and the three relay-centrals
# with --lane l2cap, each central on its own channel (checked: each central's lane opened). The
# broadcasts go on the three channels, each central's writes are told apart by the channel they
# came on, and C killed mid-message with its link cut disturbs neither A nor B.
# vm-controllers: 4
# vm-timeout: 420
import os
import runpy

os.environ["RELAY_SCENARIO_LANE"] = "l2cap"
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenario-fault-three-centrals.py"), run_name="__main__")
