#!/usr/bin/env python3
"""Takes every advertising slot of an adapter (issue 33: `--check` with all advertising instances
taken by another process): registers advertisements on the real bluetoothd until it refuses one,
prints one JSON line with how many it holds, then holds them until SIGTERM (bluetoothd drops them
with its bus connection).

    advertising_filler.py --adapter hci0
"""
import argparse
import asyncio
import json
import signal
import sys

from dbus_next import BusType, Message, MessageType
from dbus_next.aio import MessageBus
from dbus_next.constants import PropertyAccess
from dbus_next.service import ServiceInterface, dbus_property, method


class Advertisement(ServiceInterface):
    def __init__(self):
        super().__init__("org.bluez.LEAdvertisement1")

    @method()
    def Release(self):
        pass

    @dbus_property(access=PropertyAccess.READ)
    def Type(self) -> "s":
        return "broadcast"


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci0")
    parser.add_argument("--most", type=int, default=32)
    options = parser.parse_args()
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    held, refusal = 0, None
    for index in range(options.most):
        path = f"/org/relaycheck/filler{index}"
        bus.export(path, Advertisement())
        reply = await bus.call(Message(
            destination="org.bluez", path=f"/org/bluez/{options.adapter}",
            interface="org.bluez.LEAdvertisingManager1", member="RegisterAdvertisement",
            signature="oa{sv}", body=[path, {}]))
        if reply.message_type == MessageType.ERROR:
            refusal = reply.error_name
            break
        held += 1
    print(json.dumps({"held": held, "refusal": refusal}), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
