#!/usr/bin/env bash
# The test bed radio streaming, as controllers that fill the connection event (up to 100 PDU
# exchanges per event, 16 or 64 ACL buffers): on the 1M PHY with data length extension, the 2M
# PHY, and the 1M PHY with 27-byte LL payloads, an L2CAP LE credit-based flood lands within 15 %
# of the model, and the model's ATT capacity within 15 % of the published figures: about 0.8,
# 1.4 and 0.23 Mbit/s (docs/test-bed.md).
# vm-air: laptop
# vm-air-extra: events=100,buffers=251x16
# vm-timeout: 240
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/air-lib.sh"
# Five blocks a radio (the check takes the median of all but the first): more added air time, not
# precision.
flood_name=1m-dle
air_flood 4000 250 200000
air_check 4000
air_check_figure 517 0.8

air_radio 2m phone "events=100,buffers=251x16"
air_flood 4000 375 300000
air_check 4000
air_check_figure 517 1.4

air_radio 1m-27 old "interval=30,events=100,buffers=27x64"
air_flood 1000 150 30000
air_check 1000
air_check_figure 23 0.23
