#!/usr/bin/env python3
"""bluezoo that answers `org.bluez.Error.InProgress` as bluetoothd does when the kernel is busy:
`StartDiscovery` when the kernel refused to start a discovery, `StopDiscovery` when it was still
starting one (bluetoothd's start_discovery_complete / stop_discovery_complete). For the tests of
`--check`'s retries (Tests/RelayAppTests/SetupCheckTests.swift, through PrivateBus).

    RELAY_BLUEZOO_BUSY="start=1,stop=2" busy_bluezoo.py BLUEZOO-OPTIONS...

answers the first START StartDiscovery calls and the first STOP StopDiscovery calls InProgress,
then behaves as bluezoo. With "lost=N", the first N StopDiscovery calls find the discovery
already ended and answer `org.bluez.Error.Failed: No discovery started`, as bluetoothd does when
the kernel ended it between the start's answer and the stop. With "slowadvertising=MS", every
RegisterAdvertisement is answered MS milliseconds late (a call surely still in flight when a test
interrupts its caller).
"""
import asyncio
import os
import sys

from bluezoo import adapter, bluezoo
from bluezoo.adv import manager
from bluezoo.exceptions import DBusBluezFailedError, DBusBluezInProgressError

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
    if left.get("lost", 0) > 0:
        left["lost"] -= 1
        await stop_discovering(self)
        raise DBusBluezFailedError("No discovery started")
    return await stop_discovering(self)


setup_advertisement = manager.LEAdvertisementClient.properties_setup_sync_task


async def slow_setup_advertisement(self):
    await asyncio.sleep(left.get("slowadvertising", 0) / 1000)
    return await setup_advertisement(self)


manager.LEAdvertisementClient.properties_setup_sync_task = slow_setup_advertisement
bluezoo.BluezMockService.create_discovering_task = busy_start
adapter.Adapter._Adapter__stop_discovering = busy_stop

if __name__ == "__main__":
    sys.argv[0] = "bluezoo"
    sys.exit(bluezoo.main())
