"""Hostile input 7 (issue 8): a foreign central (bleak) that writes garbage to relay-peripheral's
write characteristic at full speed (write commands, no pacing), with honest messages in between.

    hostile_central.py --adapter hci1 --rounds 6 --burst 500 --honest-file FILE [--timeout 200]

Each round: --burst hostile values written back to back (hostile_frames.garbage: random bytes,
truncated frame headers, first frames claiming lengths up to 4 GiB that never continue, complete
frames with a wrong CRC-32C, interleaved message ids, reserved flags, unknown kinds and versions),
then one honest framed message of random size (0 to --max-bytes) and one honest counter
(1000 + round). The honest messages' SHA-256 go to --honest-file, one per line, in order. Prints
one JSON line with how many values of each sort were written. Exit status 0 when every write was
sent, 1 otherwise.
"""
import argparse
import asyncio
import hashlib
import json
import os
import sys

from bleak import BleakClient

import article
from bleak_central import find_relay_peripheral
from hostile_frames import fresh_first, garbage, honest_frames, honest_sizes

ROLE = "hostile_central"


async def run(options):
    device = await find_relay_peripheral(options.adapter, options.name, options.scan_timeout, ROLE)
    article.log(ROLE, f"found {device.address}")
    sent, index = {}, 0
    async with BleakClient(device, bluez={"adapter": options.adapter}) as client:
        write = client.services.get_characteristic(article.WRITE_UUID)
        mtu = write.max_write_without_response_size + 3
        chunk = article.chunk_length(mtu)
        article.log(ROLE, f"connected, MTU {mtu}; {options.rounds} rounds of {options.burst} hostile values")
        with open(options.honest_file, "w") as shas:
            for round_number, size in enumerate(honest_sizes(options.rounds, options.max_bytes, options.seed)):
                for _ in range(options.burst):
                    sort, value = garbage(index, chunk)
                    index += 1
                    await client.write_gatt_char(write, value, response=False)
                    sent[sort] = sent.get(sort, 0) + 1
                for _ in range(options.firsts):
                    await client.write_gatt_char(write, fresh_first(index, chunk), response=False)
                    index += 1
                    sent["fresh-first"] = sent.get("fresh-first", 0) + 1
                data = os.urandom(size)
                for frame in honest_frames((200 + round_number) & 0xFF, data, chunk):
                    await client.write_gatt_char(write, frame, response=False)
                print(hashlib.sha256(data).hexdigest(), file=shas, flush=True)
                last = article.encode_counter(1000 + round_number)
                await client.write_gatt_char(write, last, response=False)
                article.log(ROLE, f"round {round_number + 1}: {options.burst} hostile values, message of {size} B")
        # Write commands wait in bluetoothd's queue until the radio carries them, and leaving
        # drops what is still queued: wait until the peripheral has the last value written (a
        # read of the write characteristic returns it; writes arrive in order).
        while bytes(await client.read_gatt_char(write)) != last:
            await asyncio.sleep(0.5)
        await asyncio.sleep(options.linger)
    print(json.dumps({"hostile": sum(sent.values()), "sorts": sent, "messages": options.rounds}), flush=True)
    article.log(ROLE, "done")


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci1")
    parser.add_argument("--name", default=article.LOCAL_NAME)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--burst", type=int, default=500, help="hostile values per round")
    parser.add_argument("--firsts", type=int, default=60,
                        help="after each burst, this many first frames of new messages that never continue")
    parser.add_argument("--max-bytes", type=int, default=20000, help="largest honest message")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--honest-file", required=True, help="SHA-256 of each honest message")
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
