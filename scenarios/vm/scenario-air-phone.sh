#!/usr/bin/env bash
# The test bed radio, phone profile (2M PHY, 251-byte LL payloads, 15 ms, 6 PDUs per event):
# an L2CAP LE credit-based flood without relay lands within 15 % of the computed air capacity
# (scenarios/vm/air-lib.sh, docs/test-bed.md).
# vm-air: phone
# vm-timeout: 120
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/air-lib.sh"
air_flood 4000 200 100000
air_check 4000
