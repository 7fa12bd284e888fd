"""A protocol-2 central (bleak on --adapter) that gets itself cut off and keeps writing (issue 46,
item 13), for --seconds: it connects, subscribes to the session characteristic, says hello 41 times
in a row (relay-peripheral cuts a central off from protocol 2 after 30 within 60 s), then writes
data frames for its session as fast as bluetoothd takes them (write without response) until its
link ends, and connects again. Prints {"event":"writing"} when it starts, then one JSON line: the
links, the writes after each cut-off and their rate. Exit status 0 when it ran through.
"""
import argparse
import asyncio
import json
import struct
import sys
import time

from bleak import BleakClient

import article
from bleak_central import find_relay_peripheral

ROLE = "cut_off_writer"
SESSION_UUID = "a559017e-46d9-46da-84a8-fe75d26e0816"
TOKEN = 0x0C07_0FF5


def hello(address: str) -> bytes:
    return (bytes([0xB2, 1, 2, 0]) + struct.pack("<I", TOKEN) + bytes.fromhex(address.replace(":", ""))
            + struct.pack("<IH", 1 << 20, 1))


def data(session: int, offset: int) -> bytes:
    return bytes([0xB2, 3, 0, session]) + struct.pack("<HI", 1, offset) + bytes(180)


async def one_link(device, options, report, deadline) -> None:
    """One link: hellos until cut off, then data frames until the link ends or DEADLINE."""
    async with BleakClient(device, bluez={"adapter": options.adapter}) as client:
        report["links"] += 1
        session_char = client.services.get_characteristic(SESSION_UUID)
        await client.start_notify(session_char, lambda *_: None)
        try:
            for _ in range(41):
                await client.write_gatt_char(session_char, hello(options.address), response=False)
            while time.monotonic() < deadline and client.is_connected:
                await client.write_gatt_char(session_char, data(1, report["writes"] * 180 % 60000), response=False)
                report["writes"] += 1
        except Exception:  # noqa: BLE001 - the peripheral ended the link under a write
            report["ended_by_peer"] += 1


async def run(options) -> int:
    device = await find_relay_peripheral(options.adapter, options.name, options.scan_timeout, ROLE)
    report = {"event": "written", "links": 0, "ended_by_peer": 0, "writes": 0, "failed_connects": 0}
    started = time.monotonic()
    deadline = started + options.seconds
    print(json.dumps({"event": "writing"}), flush=True)
    while time.monotonic() < deadline:
        try:
            await one_link(device, options, report, deadline)
        except Exception:  # noqa: BLE001 - a connection that did not come up: try again
            report["failed_connects"] += 1
            await asyncio.sleep(0.5)
    report["seconds"] = round(time.monotonic() - started, 1)
    report["per_second"] = round(report["writes"] / report["seconds"], 1)
    print(json.dumps(report), flush=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default="hci2")
    parser.add_argument("--address", required=True, help="this adapter's address, for the hello")
    parser.add_argument("--name", default=article.LOCAL_NAME)
    parser.add_argument("--scan-timeout", type=float, default=30)
    parser.add_argument("--seconds", type=float, default=30)
    return article.run_peer(ROLE, run, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
