#!/usr/bin/env python3
"""Hostile input 7, central side (issue 8): a foreign peripheral (bless, on the real bluetoothd)
that serves the relay service and, once a central subscribes, notifies garbage at full speed with
honest messages and counters in between.

    hostile_peripheral.py --adapter hci0 --rounds 6 --burst 500 [--chunk 510] [--timeout 200]

Each round: a burst of --burst hostile values notified back to back (each as soon as the previous one left for the bus) (the same sorts as
hostile_central.py: random bytes, truncated headers, first frames claiming up to 4 GiB, wrong
CRC-32C, interleaved ids, reserved flags, unknown kinds and versions), a pause of --settle seconds,
then one honest framed message of random size (0 to --max-bytes) sent chunk by chunk
(--honest-interval between chunks), then one honest counter (1000 + round). The honest messages'
SHA-256 go to --honest-file, one per line, in order; stdout gets one JSON line with the counts.
Exit status 0 when everything was notified, 1 on timeout.
"""
import argparse
import asyncio
import hashlib
import json
import os
import signal
import sys

from bless import BlessServer

import article
from hostile_frames import fresh_first, garbage, honest_frames, honest_sizes

ROLE = "hostile_peripheral"


class HostilePeripheral:
    def __init__(self, options):
        self.options = options
        self.loop = asyncio.get_running_loop()
        self.subscribed = asyncio.Event()
        self.server = BlessServer(name=options.name, loop=self.loop, adapter=options.adapter)

    async def start(self):
        server = self.server
        await article.add_relay_service(server)
        await article.serve(server, ROLE, self.options, lambda *_, **__: None, self.subscribed.set)

    async def notify(self, data: bytes):
        """Emits one notification and waits until its signal has left for the bus. dbus-next 0.2.3
        (bless's D-Bus library) drops its whole bus connection when a socket write fails with
        EAGAIN, which happens when several queued signals meet a full socket: one at a time avoids it."""
        self.server.get_characteristic(article.NOTIFY_UUID).value = bytearray(data)
        self.server.update_value(article.SERVICE_UUID, article.NOTIFY_UUID)
        writer = getattr(self.server.bus, "_writer", None)
        while writer is not None and (writer.buf is not None or writer.messages.qsize()):
            await asyncio.sleep(0.001)

    async def run(self):
        options = self.options
        await self.start()
        await self.subscribed.wait()
        article.log(ROLE, f"subscribed; {options.rounds} rounds of {options.burst} hostile values")
        await asyncio.sleep(options.settle)
        sorts, honest, counters, index = {}, [], [], 0
        with open(options.honest_file, "w") as shas:
            for round_number, size in enumerate(honest_sizes(options.rounds, options.max_bytes, options.seed)):
                for _ in range(options.burst):
                    sort, value = garbage(index, options.chunk)
                    index += 1
                    await self.notify(value)
                    sorts[sort] = sorts.get(sort, 0) + 1
                    await asyncio.sleep(options.gap)
                for _ in range(options.firsts):
                    await self.notify(fresh_first(index, options.chunk))
                    index += 1
                    sorts["fresh-first"] = sorts.get("fresh-first", 0) + 1
                await asyncio.sleep(options.settle)
                data = os.urandom(size)
                for frame in honest_frames((200 + round_number) & 0xFF, data, options.chunk):
                    await self.notify(frame)
                    await asyncio.sleep(options.honest_interval)
                digest = hashlib.sha256(data).hexdigest()
                honest.append(digest)
                print(digest, file=shas, flush=True)
                counter = 1000 + round_number
                await self.notify(article.encode_counter(counter))
                counters.append(counter)
                article.log(ROLE, f"round {round_number + 1}: {options.burst} hostile values, "
                                  f"message of {size} B, counter {counter}")
                await asyncio.sleep(options.settle)
        print(json.dumps({"hostile": sum(sorts.values()), "sorts": sorts, "messages": len(honest),
                          "counters": counters}), flush=True)
        article.log(ROLE, "done")
        await asyncio.sleep(options.linger)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci0")
    parser.add_argument("--name", default=article.LOCAL_NAME)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--burst", type=int, default=500, help="hostile values per round")
    parser.add_argument("--chunk", type=int, default=article.MAX_VALUE_LENGTH,
                        help="value length (min(MTU-3, 510); 510 at the VM's MTU 517)")
    parser.add_argument("--firsts", type=int, default=60,
                        help="after each burst, this many first frames of new messages that never continue")
    parser.add_argument("--max-bytes", type=int, default=20000, help="largest honest message")
    parser.add_argument("--gap", type=float, default=0.0, metavar="S",
                        help="pause after each hostile value (default none: each waits only until\n"
                             "its signal has been written to the bus)")
    parser.add_argument("--honest-interval", type=float, default=0.02, metavar="S")
    parser.add_argument("--settle", type=float, default=1.0, metavar="S")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--honest-file", required=True, help="SHA-256 of each honest message")
    parser.add_argument("--linger", type=float, default=2.0)
    parser.add_argument("--timeout", type=float, default=200.0)
    options = parser.parse_args()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    work = asyncio.ensure_future(HostilePeripheral(options).run())
    stopper = asyncio.ensure_future(stop.wait())
    done, _ = await asyncio.wait({work, stopper}, timeout=options.timeout, return_when=asyncio.FIRST_COMPLETED)
    if work in done:
        work.result()
        return 0
    work.cancel()
    article.log(ROLE, "stopped" if stopper in done else f"timed out after {options.timeout} s")
    return 0 if stopper in done else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
