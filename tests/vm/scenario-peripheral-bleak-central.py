#!/usr/bin/env python3
"""A third-party central (bleak) speaking only the original apps' raw 4-byte counters.

Scans on ADAPTER for the relay service advertised as NAME, connects, subscribes to the
notify characteristic, writes counters 0, 1, 2 as write commands (like the Apple Watch
app), then waits for COUNT notifications and prints each as `notified VALUE`.
Exit status 0 when everything happened, 1 otherwise.
"""
import asyncio
import struct
import sys

from bleak import BleakClient, BleakScanner

SERVICE = "6b5c4a86-cfb7-4031-98eb-09df5e2543f0"
WRITE = "4551abae-ce14-4f9e-b31a-e61fc372e480"
NOTIFY = "dfb13451-1740-4f8a-b0f0-7c20d79e8bdf"


async def main(adapter: str, name: str, count: int) -> int:
    found: asyncio.Future = asyncio.get_running_loop().create_future()

    def seen(device, advertisement):
        uuids = [u.lower() for u in advertisement.service_uuids]
        if SERVICE in uuids and advertisement.local_name == name and not found.done():
            found.set_result(device)

    async with BleakScanner(seen, bluez={"adapter": adapter}):
        try:
            device = await asyncio.wait_for(found, timeout=90.0)
        except asyncio.TimeoutError:
            print(f"bleak: no '{name}' advertising {SERVICE}", flush=True)
            return 1
    print(f"bleak: found {device.address}", flush=True)
    received: asyncio.Queue = asyncio.Queue()
    async with BleakClient(device, bluez={"adapter": adapter}, timeout=60.0) as client:
        await client.start_notify(NOTIFY, lambda _, data: received.put_nowait(bytes(data)))
        print("bleak: subscribed", flush=True)
        for value in range(3):
            await client.write_gatt_char(WRITE, struct.pack("<I", value), response=False)
            print(f"bleak: wrote {value}", flush=True)
        for _ in range(count):
            data = await asyncio.wait_for(received.get(), timeout=60.0)
            if len(data) != 4:
                print(f"bleak: unexpected {len(data)}-byte notification {data.hex()}", flush=True)
                return 1
            print(f"notified {struct.unpack('<I', data)[0]}", flush=True)
        # Read both characteristics: last value written, last counter notified.
        written = await client.read_gatt_char(WRITE)
        notified = await client.read_gatt_char(NOTIFY)
        print(f"bleak: read write={written.hex()} notify={notified.hex()}", flush=True)
    return 0


if __name__ == "__main__":
    adapter, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sys.exit(asyncio.run(main(adapter, name, count)))
