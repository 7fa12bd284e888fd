#!/usr/bin/env python3
# scenario-both-ways on the L2CAP lane: both programs with --lane l2cap, 512 KiB each way started
# together on the laptop radio. Both arrive intact and neither direction stalls while the other
# runs (the same progress check). With lane values of two PDUs each direction had about 59 % of
# the air both ways at once, with eight 79-82 %, with 32 (2026-12-05) 92-94 %: the kernel's
# credit packets, one per service data unit, took a third, a ninth, then a twentieth of each
# direction's turns (docs/performance.md, "The L2CAP lane against GATT").
# The credit packets were counted with btmon in the test bed. Each channel has a 416 KiB receive
# buffer, so that 105 credits stay out.
# vm-controllers: 2
# vm-air: laptop
# vm-timeout: 300
import os
import runpy

os.environ["RELAY_SCENARIO_LANE"] = "l2cap"
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenario-both-ways.py"), run_name="__main__")
