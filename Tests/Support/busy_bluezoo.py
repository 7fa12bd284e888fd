#!/usr/bin/env python3
"""bluezoo that answers `org.bluez.Error.InProgress` as bluetoothd does when the kernel is busy:
`StartDiscovery` when the kernel refused to start a discovery, `StopDiscovery` when it was still
starting one (bluetoothd's start_discovery_complete / stop_discovery_complete). For the tests of
`--check`'s retries (Tests/RelayAppTests/SetupCheckTests.swift, through PrivateBus).

    RELAY_BLUEZOO_BUSY="start=1,stop=2" busy_bluezoo.py BLUEZOO-OPTIONS...

answers the first START StartDiscovery calls and the first STOP StopDiscovery calls InProgress,
then behaves as bluezoo.
"""
import os
import sys

from bluezoo import adapter, bluezoo
from bluezoo.exceptions import DBusBluezInProgressError

busy = dict(part.split("=") for part in os.environ.get("RELAY_BLUEZOO_BUSY", "").split(",") if part)
left = {name: int(count) for name, count in busy.items()}
create_discovering_task = bluezoo.BluezMockService.create_discovering_task
stop_discovering = adapter.Adapter._Adapter__stop_discovering


def busy_start(self, id):
    if left.get("start", 0) > 0:
        left["start"] -= 1
        raise DBusBluezInProgressError("Operation already in progress")
    return create_discovering_task(self, id)


async def busy_stop(self):
    if left.get("stop", 0) > 0:
        left["stop"] -= 1
        raise DBusBluezInProgressError("Operation already in progress")
    return await stop_discovering(self)


bluezoo.BluezMockService.create_discovering_task = busy_start
adapter.Adapter._Adapter__stop_discovering = busy_stop

if __name__ == "__main__":
    sys.argv[0] = "bluezoo"
    sys.exit(bluezoo.main())
