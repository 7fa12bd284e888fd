#!/usr/bin/env python3
# scenario-nus.py at ATT MTU 23: the phones' lines come in writes of 20 bytes, the 2 KiB of
# multi-byte text goes out in values of at most 18, each valid UTF-8 on its own.
# vm-controllers: 3
# vm-timeout: 300
# vm-air-extra: att-mtu=23
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenario-nus.py"))["main"]("23")
