#!/usr/bin/env python3
"""The benchmark's third-party central (bleak), driven by commands on stdin.

Same job as relay-central in benchmarks/ble/guest_bench.py, but the cheaper one: raw 4-byte
counters and raw chunks of min(MTU-3, 510) bytes, no framing. At start it forgets cached
peripherals, scans for the article's service and name, connects, subscribes and prints
{"event":"ready","mtu":N}. Then, one command per line:

  counters N        write counters 0..N-1 as write commands, back to back; then {"event":"written","count":N}
  write V           write counter V (write command); a notified counter prints {"event":"counter","value":V}
  send N            write N random bytes raw in chunks; then {"event":"sent","bytes":N,"sha256":...}
  expect N          count notified bytes raw until N arrived: {"event":"expecting"} now,
                    {"event":"received","bytes":N,"sha256":...} then
  status            {"event":"status","received":BYTES}
  quit              disconnect and exit 0
Every event is one JSON line on stdout (no timestamps: the driver stamps lines as it reads them).
"""
import argparse
import asyncio
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "vm", "peers"))

from bleak import BleakClient, BleakScanner  # noqa: E402

import article  # noqa: E402
from bleak_central import forget_cached_peripherals  # noqa: E402


def emit(event: str, **fields) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


class BenchCentral:
    def __init__(self, options):
        self.options = options
        self.expected = 0
        self.received = 0
        self.digest = None
        self.done = asyncio.Event()

    def on_notification(self, _characteristic, data: bytearray):
        if self.expected:
            self.received += len(data)
            self.digest.update(data)
            if self.received >= self.expected:
                emit("received", bytes=self.received, sha256=self.digest.hexdigest())
                self.expected = 0
            return
        if len(data) == 4:
            emit("counter", value=article.decode_counter(bytes(data)))

    def matches(self, _device, advertisement):
        uuids = [uuid.lower() for uuid in advertisement.service_uuids]
        return article.SERVICE_UUID in uuids and advertisement.local_name == self.options.name

    async def run(self):
        options = self.options
        await forget_cached_peripherals(options.adapter, options.name)
        # Scans of 3 s, restarted until found, as relay-central does: btvirt reports an
        # advertiser only when a scan starts, and the kernel may drop that first report.
        device = None
        deadline = asyncio.get_running_loop().time() + options.scan_timeout
        while device is None and asyncio.get_running_loop().time() < deadline:
            device = await BleakScanner.find_device_by_filter(
                self.matches, timeout=3.0, service_uuids=[article.SERVICE_UUID],
                bluez={"adapter": options.adapter})
        if device is None:
            emit("error", message="no peripheral found")
            return 1
        client = BleakClient(device, disconnected_callback=lambda _: emit("disconnected"),
                             bluez={"adapter": options.adapter})
        async with client:
            write = client.services.get_characteristic(article.WRITE_UUID)
            notify = client.services.get_characteristic(article.NOTIFY_UUID)
            mtu = write.max_write_without_response_size + 3
            chunk = article.chunk_length(mtu)
            await client.start_notify(notify, self.on_notification)
            emit("ready", mtu=mtu, chunk=chunk)
            reader = asyncio.StreamReader()
            await asyncio.get_running_loop().connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
            while True:
                line = (await reader.readline()).decode()
                if not line:
                    break
                words = line.split()
                if not words:
                    continue
                command, arguments = words[0], [int(word) for word in words[1:]]
                if command == "quit":
                    break
                if command == "counters":
                    for counter in range(arguments[0]):
                        await client.write_gatt_char(write, article.encode_counter(counter), response=False)
                    emit("written", count=arguments[0])
                elif command == "write":
                    await client.write_gatt_char(write, article.encode_counter(arguments[0]), response=False)
                elif command == "send":
                    data = os.urandom(arguments[0])
                    for offset in range(0, len(data), chunk):
                        await client.write_gatt_char(write, data[offset:offset + chunk], response=False)
                    emit("sent", bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
                elif command == "expect":
                    self.expected, self.received, self.digest = arguments[0], 0, hashlib.sha256()
                    emit("expecting", bytes=arguments[0])
                elif command == "status":
                    emit("status", received=self.received)
                else:
                    emit("error", message=f"unknown command {command}")
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci1")
    parser.add_argument("--name", default=article.LOCAL_NAME)
    parser.add_argument("--scan-timeout", type=float, default=60.0)
    options = parser.parse_args()
    sys.exit(asyncio.run(BenchCentral(options).run()))


if __name__ == "__main__":
    main()
