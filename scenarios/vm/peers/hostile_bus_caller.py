#!/usr/bin/env python3
"""Hostile input 8 (issue 8): another local process on the system bus calls relay-peripheral's
exported GATT objects and advertisement directly, as if it were bluetoothd.

    hostile_bus_caller.py --pid PID [--root /org/relay/peripheral]

Finds the bus connection of process PID, then calls WriteValue, ReadValue, StartNotify,
StopNotify, AcquireWrite, AcquireNotify, Release (advertisement), Properties.Set/Get/GetAll and
ObjectManager.GetManagedObjects on its objects. Prints one JSON line per call (call, path,
outcome: the D-Bus error name, or "accepted"). Exit status 0 when every call was refused with
org.freedesktop.DBus.Error.AccessDenied, 1 otherwise.
"""
import argparse
import asyncio
import json
import sys

from dbus_fast import BusType, Message, MessageType, Variant
from dbus_fast.aio import MessageBus

DENIED = "org.freedesktop.DBus.Error.AccessDenied"
CHAR = "org.bluez.GattCharacteristic1"


async def find_name(bus, pid):
    reply = await bus.call(Message(destination="org.freedesktop.DBus", path="/org/freedesktop/DBus",
                                   interface="org.freedesktop.DBus", member="ListNames"))
    for name in reply.body[0]:
        if not name.startswith(":"):
            continue
        answer = await bus.call(Message(destination="org.freedesktop.DBus", path="/org/freedesktop/DBus",
                                        interface="org.freedesktop.DBus", member="GetConnectionUnixProcessID",
                                        signature="s", body=[name]))
        if answer.message_type == MessageType.METHOD_RETURN and answer.body[0] == pid:
            return name
    raise SystemExit(f"hostile_bus_caller: no bus connection of process {pid}")


def calls(root):
    write_char, notify_char = f"{root}/service0/char0", f"{root}/service0/char1"
    advert = f"{root}/advertisement0"
    counter = bytes([7, 0, 0, 0])
    options = {"device": Variant("o", "/org/bluez/hci0/dev_00_AA_01_01_00_01"), "mtu": Variant("q", 517)}
    for path in (write_char, notify_char):
        yield path, CHAR, "WriteValue", "aya{sv}", [counter, {}]
        yield path, CHAR, "WriteValue", "aya{sv}", [b"\x52\x4c" + bytes(200), options]
        yield path, CHAR, "ReadValue", "a{sv}", [{}]
        yield path, CHAR, "StartNotify", "", []
        yield path, CHAR, "StopNotify", "", []
        yield path, CHAR, "AcquireWrite", "a{sv}", [options]
        yield path, CHAR, "AcquireNotify", "a{sv}", [options]
        yield path, "org.freedesktop.DBus.Properties", "Set", "ssv", [CHAR, "Value", Variant("ay", counter)]
        yield path, "org.freedesktop.DBus.Properties", "Get", "ss", [CHAR, "Value"]
        yield path, "org.freedesktop.DBus.Properties", "GetAll", "s", [CHAR]
    yield advert, "org.bluez.LEAdvertisement1", "Release", "", []
    yield advert, "org.freedesktop.DBus.Properties", "Set", "ssv", [
        "org.bluez.LEAdvertisement1", "LocalName", Variant("s", "hijacked")]
    yield root, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", "", []
    yield "/org/relay/nonexistent", CHAR, "WriteValue", "aya{sv}", [counter, {}]


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--root", default="/org/relay/peripheral")
    parser.add_argument("--rounds", type=int, default=1, help="repeat every call N times (a flood)")
    options = parser.parse_args()
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    name = await find_name(bus, options.pid)
    refused = True
    for round_ in range(options.rounds):
        for path, interface, member, signature, body in calls(options.root):
            reply = await bus.call(Message(destination=name, path=path, interface=interface, member=member,
                                           signature=signature, body=body))
            outcome = reply.error_name if reply.message_type == MessageType.ERROR else "accepted"
            refused = refused and outcome == DENIED
            if round_ == 0:
                print(json.dumps({"call": f"{interface}.{member}", "path": path, "outcome": outcome}), flush=True)
    bus.disconnect()
    return 0 if refused else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
