#!/usr/bin/env python3
"""Hostile input 7 (issue 8): a foreign central (bleak) that writes garbage to relay-peripheral's
write characteristic at full speed (write commands, no pacing).

    hostile_central.py --adapter hci2 --writes 3000 [--timeout 120]

Cycles through: random bytes of random lengths (never 4, which would be a counter), truncated
frame headers, first frames claiming lengths up to 4 GiB that never continue, complete frames
with a wrong CRC-32C, interleaved message ids (a first chunk of one message, a continuation of
another), reserved flags, unknown kinds and versions. Prints one JSON line with how many values
of each sort were written. Exit status 0 when every write was sent, 1 otherwise.
"""
import argparse
import asyncio
import json
import os
import random
import struct
import sys

from bleak import BleakClient, BleakScanner

import article
from bleak_central import forget_cached_peripherals

ROLE = "hostile_central"


def frame_first(msg_id, length, crc, payload, flags=0x01, kind=2, version=0xB1):
    return struct.pack("<BBBHBII", version, flags, msg_id, 0, kind, length, crc) + payload


def frame_next(msg_id, sequence, payload, flags=0x00):
    return struct.pack("<BBBH", 0xB1, flags, msg_id, sequence) + payload


def garbage(index, chunk):
    """The index-th hostile value and its sort."""
    sort = index % 9
    rng = random.Random(index)
    if sort == 0:
        length = rng.choice([1, 2, 3, 5, 6, 13, 100, chunk])
        return "random", os.urandom(length)
    if sort == 1:
        return "truncated", bytes([0xB1, 0x01]) + os.urandom(rng.randint(0, 9))
    if sort == 2:
        claimed = rng.choice([0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 1 << 30, 1 << 20 | 1])
        return "lying-length", frame_first(rng.randint(0, 255), claimed, rng.getrandbits(32), os.urandom(chunk - 14))
    if sort == 3:
        payload = os.urandom(rng.randint(1, chunk - 14))
        return "wrong-crc", frame_first(rng.randint(0, 255), len(payload), rng.getrandbits(32), payload, flags=0x03)
    if sort == 4:
        return "interleaved-first", frame_first(index % 256, 5000, 0, os.urandom(chunk - 14))
    if sort == 5:
        return "interleaved-next", frame_next((index + 128) % 256, rng.randint(1, 3), os.urandom(chunk - 5))
    if sort == 6:
        return "reserved-flags", frame_next(1, 1, os.urandom(20), flags=0xFC)
    if sort == 7:
        return "unknown-kind", frame_first(1, 10, 0, os.urandom(10), flags=0x03, kind=0x7F)
    return "bad-version", frame_first(1, 10, 0, os.urandom(10), flags=0x03, version=0xB9)


async def run(options):
    await forget_cached_peripherals(options.adapter, options.name)
    device = await BleakScanner.find_device_by_filter(
        lambda d, ad: article.SERVICE_UUID in [u.lower() for u in ad.service_uuids],
        timeout=options.scan_timeout, service_uuids=[article.SERVICE_UUID], bluez={"adapter": options.adapter})
    if device is None:
        raise SystemExit(f"{ROLE}: no peripheral found on {options.adapter}")
    article.log(ROLE, f"found {device.address}")
    sent = {}
    async with BleakClient(device, bluez={"adapter": options.adapter}) as client:
        write = client.services.get_characteristic(article.WRITE_UUID)
        mtu = write.max_write_without_response_size + 3
        chunk = article.chunk_length(mtu)
        article.log(ROLE, f"connected, MTU {mtu}; writing {options.writes} hostile values")
        for index in range(options.writes):
            sort, value = garbage(index, chunk)
            if len(value) == 4:
                value += b"\x00"
            await client.write_gatt_char(write, value[:chunk], response=False)
            sent[sort] = sent.get(sort, 0) + 1
        await asyncio.sleep(options.linger)
    print(json.dumps({"written": sum(sent.values()), "sorts": sent}), flush=True)
    article.log(ROLE, "done")


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci2")
    parser.add_argument("--name", default=article.LOCAL_NAME)
    parser.add_argument("--writes", type=int, default=3000)
    parser.add_argument("--scan-timeout", type=float, default=40.0)
    parser.add_argument("--linger", type=float, default=1.0)
    parser.add_argument("--timeout", type=float, default=120.0)
    options = parser.parse_args()
    try:
        await asyncio.wait_for(run(options), timeout=options.timeout)
    except asyncio.TimeoutError:
        article.log(ROLE, f"timed out after {options.timeout} s")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
