#!/usr/bin/env python3
"""The benchmark's third-party peripheral (bless), driven by commands on stdin.

Same job as relay-peripheral in benchmarks/ble/guest_bench.py, but the cheaper one: raw
4-byte counters and raw chunks, no framing. At start it registers the article's service and
advertisement and prints {"event":"advertising"}; a subscription prints {"event":"subscribed"}.
Every written counter (a 4-byte value) prints {"event":"counter","value":V} and, with --echo,
is notified straight back. Commands, one per line:

  expect N          count written bytes raw until N arrived: {"event":"expecting"} now,
                    {"event":"received","bytes":N,"sha256":...} then
  send N CHUNK      notify N random bytes raw in chunks of CHUNK; then {"event":"sent",...}
  status            {"event":"status","received":BYTES}
  quit              exit 0
Every event is one JSON line on stdout (the driver stamps lines as it reads them).
"""
import argparse
import asyncio
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "vm", "peers"))

from bless import BlessServer  # noqa: E402

import article  # noqa: E402


def emit(event: str, **fields) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


class BenchPeripheral:
    def __init__(self, options):
        self.options = options
        self.loop = asyncio.get_running_loop()
        self.expected = 0
        self.received = 0
        self.digest = None
        self.subscribed = False
        self.server = BlessServer(name=options.name, loop=self.loop, adapter=options.adapter)

    async def start(self):
        server = self.server
        await article.add_relay_service(server)
        server.read_request_func = lambda characteristic, **_: characteristic.value or b""
        server.write_request_func = self.on_write
        await server.setup_task
        server.app.StartNotify = lambda _: self.loop.call_soon(self.on_subscribe)
        await server.start()
        emit("advertising")

    def on_subscribe(self):
        if not self.subscribed:
            emit("subscribed")
        self.subscribed = True

    def on_write(self, characteristic, value, **_):
        if str(characteristic.uuid).lower() != article.WRITE_UUID:
            return
        data = bytes(value)
        if self.expected:
            self.received += len(data)
            self.digest.update(data)
            if self.received >= self.expected:
                emit("received", bytes=self.received, sha256=self.digest.hexdigest())
                self.expected = 0
            return
        if len(data) == 4:
            emit("counter", value=article.decode_counter(data))
            if self.options.echo:
                self.notify(data)

    def notify(self, data: bytes):
        self.server.get_characteristic(article.NOTIFY_UUID).value = bytearray(data)
        self.server.update_value(article.SERVICE_UUID, article.NOTIFY_UUID)

    async def run(self):
        await self.start()
        reader = asyncio.StreamReader()
        await self.loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
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
            if command == "expect":
                self.expected, self.received, self.digest = arguments[0], 0, hashlib.sha256()
                emit("expecting", bytes=arguments[0])
            elif command == "send":
                size, chunk = arguments
                data = os.urandom(size)
                for offset in range(0, size, chunk):
                    self.notify(data[offset:offset + chunk])
                    await asyncio.sleep(0)
                emit("sent", bytes=size, sha256=hashlib.sha256(data).hexdigest())
            elif command == "status":
                emit("status", received=self.received)
            else:
                emit("error", message=f"unknown command {command}")
        await self.server.stop()
        return 0


async def main(options):
    return await BenchPeripheral(options).run()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci0")
    parser.add_argument("--name", default=article.LOCAL_NAME)
    parser.add_argument("--echo", action="store_true", help="notify every written counter back")
    sys.exit(asyncio.run(main(parser.parse_args())))
