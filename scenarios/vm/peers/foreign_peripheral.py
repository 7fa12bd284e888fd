#!/usr/bin/env python3
"""A device that is not a relay-peripheral but shows up in a relay central's list: bless on BlueZ
serving (and so advertising) the relay service's UUID with one characteristic of its own, none of
relay's. A browser's chooser filtered on the relay service lists it; connecting finds neither
the write nor the notify characteristic (scenario-browser-bad.py).

    foreign_peripheral.py --adapter hci1 --name not-relay [--timeout 300]

Logs `advertising on ADAPTER as 'NAME'` and every read and write to stderr; serves until SIGTERM
or --timeout.
"""
import argparse
import asyncio
import signal
import sys

from bless import BlessServer, GATTAttributePermissions, GATTCharacteristicProperties

import article

ROLE = "foreign_peripheral"
OTHER_UUID = "0b3c6a10-9d2e-4f7b-8c15-2a6e9f40d7b1"


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci1")
    parser.add_argument("--name", default="not-relay")
    parser.add_argument("--timeout", type=float, default=300.0)
    options = parser.parse_args()
    loop = asyncio.get_running_loop()
    server = BlessServer(name=options.name, loop=loop, adapter=options.adapter)
    await server.add_new_service(article.SERVICE_UUID)
    await server.add_new_characteristic(
        article.SERVICE_UUID, OTHER_UUID, GATTCharacteristicProperties.read | GATTCharacteristicProperties.write,
        bytearray(b"not relay"), GATTAttributePermissions.readable | GATTAttributePermissions.writeable)

    def wrote(characteristic, value, **_):
        article.log(ROLE, f"write of {len(value)} bytes to {characteristic.uuid}")

    await article.serve(server, ROLE, options, wrote, lambda: article.log(ROLE, "subscribed"))
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), options.timeout)
    except asyncio.TimeoutError:
        article.log(ROLE, f"timed out after {options.timeout} s")
        return 1
    article.log(ROLE, "stopped")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
