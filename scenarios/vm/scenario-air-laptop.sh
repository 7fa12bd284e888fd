#!/usr/bin/env bash
# The test bed radio, laptop profile (1M PHY, 251-byte LL payloads, 30 ms, 6 PDUs per event):
# an L2CAP LE credit-based flood without relay, each way, lands within 15 % of the computed air capacity
# (scenarios/vm/air-lib.sh, docs/test-bed.md).
# vm-air: laptop
# vm-timeout: 180
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/air-lib.sh"
air_flood 4000 200 100000
air_check 4000
# The other way: the peripheral sends (the radio is symmetric; relay's notifications are not,
# docs/performance.md).
flood_name=back
air_flood_back 4000 200 100000
air_check 4000
