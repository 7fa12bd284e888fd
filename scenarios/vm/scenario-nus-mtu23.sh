#!/usr/bin/env bash
# scenario-nus.sh at ATT MTU 23: the phones' lines come in writes of 20 bytes, the 2 KiB of
# multi-byte text goes out in values of at most 18, each valid UTF-8 on its own.
# vm-controllers: 3
# vm-timeout: 300
# vm-air-extra: att-mtu=23
NUS_MTU=23
source "$(dirname "$0")/scenario-nus.sh"
