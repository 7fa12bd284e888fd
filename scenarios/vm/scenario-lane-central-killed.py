#!/usr/bin/env python3
# scenario-fault-central-killed on the L2CAP lane: every program with --lane l2cap. Central A is
# killed while its 2 MiB message goes on its channel: the channel hangs up a moment before A's
# subscription ends, and the peripheral still reports A unsubscribed by address (it did not
# before 2026-12-05: the session was already waiting for a hello when the subscription ended),
# then the partial message dropped, and a new central B works over the link BlueZ kept.
# vm-controllers: 3
# vm-timeout: 240
import os
import runpy

os.environ["RELAY_SCENARIO_LANE"] = "l2cap"
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenario-fault-central-killed.py"),
               run_name="__main__")
