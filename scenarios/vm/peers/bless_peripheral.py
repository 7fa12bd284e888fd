#!/usr/bin/env python3
"""A third-party peripheral for the article's service, built with bless (PyPI) on BlueZ.

Speaks only what the original iPhone app speaks: raw 4-byte little-endian UInt32 counters
written to the write characteristic and notified on the notify characteristic; or, for the
benchmark baseline, raw bytes in chunks of min(MTU-3, 510) with no framing at all.

Counters mode:   bless_peripheral.py --adapter hci0 --expect-writes 3 --notify 3
  prints every counter the central writes, one decimal per line on stdout, and notifies
  0, 1, ... N-1 once a central has subscribed.
Bytes mode:      bless_peripheral.py --expect-bytes 1048576     (central -> peripheral)
                 bless_peripheral.py --send-bytes 1048576       (peripheral -> central)
  prints one JSON line (bytes, seconds, goodput, sha256). Notifications are not acknowledged:
  a burst of 128 chunks lost about a quarter of them in the VM, so pace them (--interval).
  Before notifying, the sender
  waits for the central's first write, a UInt32 giving the chunk length (bleak_central.py
  --expect-bytes sends it), unless --chunk is given.
Commands mode:   bless_peripheral.py --commands --timeout 0 [--echo]   (benchmarks/ble/guest_bench.py)
  driven by commands on stdin like relay-peripheral, one JSON event per stdout line (no time
  stamps: the driver stamps lines as it reads them). It prints {"event":"advertising"} once
  advertising and {"event":"subscribed"} at the first subscription; every written counter (a
  4-byte value) prints {"event":"counter","value":V}. Then:
    expect N       count written bytes raw until N arrived: {"event":"expecting","bytes":N}
                   now, {"event":"received","bytes":N,"sha256":...} then
    send N CHUNK   notify N random bytes raw in chunks of CHUNK; then {"event":"sent",...}
    status         {"event":"status","received":BYTES}
    echo 1|0       notify every written counter straight back, or stop (as --echo)
    quit           (or end of input) stop serving and exit 0
--echo (either mode) notifies every written counter straight back.
Progress goes to stderr ("advertising", "subscribed", "done"). Exit status 0 when every
goal is met, 1 on timeout. Without goals it serves until SIGTERM or --timeout.
"""
import argparse
import asyncio
import hashlib
import json
import os
import signal
import sys
import time

from bless import BlessServer

import article
import v1frames

ROLE = "bless_peripheral"


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci0", help="BlueZ adapter (default hci0)")
    parser.add_argument("--name", default=article.LOCAL_NAME, help="advertised local name")
    parser.add_argument("--notify", type=int, default=0, metavar="N",
                        help="notify counters 0..N-1 once a central subscribes")
    parser.add_argument("--interval", type=float, default=0.0, metavar="S",
                        help="pause between two notified counters or chunks; without it a\n"
                             "burst of notifications can overflow the receiving side, which\n"
                             "drops them (notifications have no flow control)")
    parser.add_argument("--expect-writes", type=int, default=0, metavar="N",
                        help="wait until N counters have been written")
    parser.add_argument("--expect-bytes", type=int, default=0, metavar="N",
                        help="bytes mode: wait for N raw bytes written, report goodput")
    parser.add_argument("--send-bytes", type=int, default=0, metavar="N",
                        help="bytes mode: notify N random bytes raw, report goodput")
    parser.add_argument("--chunk", type=int, default=0, metavar="N",
                        help="chunk length for --send-bytes (default: what the central writes)")
    parser.add_argument("--echo", action="store_true", help="notify every written counter back")
    parser.add_argument("--v1", action="store_true",
                        help="commands mode: a version-1 relay peer (messages as v1 frames, strict reassembly)")
    parser.add_argument("--commands", action="store_true",
                        help="commands mode: commands on stdin, JSON events on stdout (see above)")
    parser.add_argument("--linger", type=float, default=1.0, metavar="S",
                        help="stay this long after the goals are met (default 1)")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="S",
                        help="give up after S seconds (0: never; default 60)")
    parser.add_argument("--output", metavar="FILE", help="received values here, not stdout")
    return parser.parse_args()


class Peripheral:
    def __init__(self, options, output):
        self.options = options
        self.output = output
        self.loop = asyncio.get_running_loop()
        self.subscribed = asyncio.Event()
        self.writes_done = asyncio.Event()
        self.chunk_announced = asyncio.Event()
        self.announced_chunk = 0
        self.counters_received = 0
        self.bytes = article.ByteCounter(options.expect_bytes) if options.expect_bytes else None
        self.commands = CommandSession(self) if options.commands else None
        self.server = BlessServer(name=options.name, loop=self.loop, adapter=options.adapter)

    async def start(self):
        server = self.server
        await article.add_relay_service(server)
        await article.serve(server, ROLE, self.options, self.on_write, self.on_subscribe, on_read=self.on_read)
        if self.commands:
            self.emit("advertising")

    def emit(self, event: str, **fields) -> None:
        """Commands mode: one JSON event line on the output."""
        print(json.dumps({"event": event, **fields}), file=self.output, flush=True)

    def on_subscribe(self):
        if not self.subscribed.is_set():
            article.log(ROLE, "subscribed")
            if self.commands:
                self.emit("subscribed")
        self.subscribed.set()

    def on_read(self, characteristic, **_):
        return characteristic.value or b""

    def on_write(self, characteristic, value, **_):
        if str(characteristic.uuid).lower() != article.WRITE_UUID:
            return
        data = bytes(value)
        if self.commands:
            self.commands.on_write(data)
            return
        if self.options.send_bytes and not self.chunk_announced.is_set():
            self.announced_chunk = article.decode_counter(data) if len(data) == 4 else 0
            self.chunk_announced.set()
            return
        if self.bytes is not None:
            if self.bytes.add(data):
                self.writes_done.set()
            return
        try:
            counter = article.decode_counter(data)
        except ValueError as error:
            article.log(ROLE, f"ignored a write: {error}")
            return
        print(counter, file=self.output, flush=True)
        if self.options.echo:
            self.notify(data)
        self.counters_received += 1
        if self.options.expect_writes and self.counters_received >= self.options.expect_writes:
            self.writes_done.set()

    def notify(self, data: bytes):
        self.server.get_characteristic(article.NOTIFY_UUID).value = bytearray(data)
        self.server.update_value(article.SERVICE_UUID, article.NOTIFY_UUID)

    async def notify_counters(self):
        await self.subscribed.wait()
        for counter in range(self.options.notify):
            if counter and self.options.interval:
                await asyncio.sleep(self.options.interval)
            self.notify(article.encode_counter(counter))
            await asyncio.sleep(0)
        article.log(ROLE, f"notified {self.options.notify} counters")

    async def notify_bytes(self):
        await self.subscribed.wait()
        chunk = self.options.chunk
        if not chunk:
            await self.chunk_announced.wait()
            chunk = self.announced_chunk
        if chunk <= 0:
            raise SystemExit(f"{ROLE}: no usable chunk length announced")
        data = os.urandom(self.options.send_bytes)
        started = time.monotonic()
        for offset in range(0, len(data), chunk):
            if offset and self.options.interval:
                await asyncio.sleep(self.options.interval)
            self.notify(data[offset:offset + chunk])
            await asyncio.sleep(0)
        print(article.send_report(ROLE, data, time.monotonic() - started, chunk=chunk),
              file=self.output, flush=True)

    async def run(self):
        await self.start()
        if self.commands:
            await self.commands.serve()
            await self.server.stop()
            article.log(ROLE, "done")
            return
        goals = []
        if self.options.notify:
            goals.append(self.notify_counters())
        if self.options.send_bytes:
            goals.append(self.notify_bytes())
        if self.options.expect_writes or self.options.expect_bytes:
            goals.append(self.writes_done.wait())
        if not goals:
            await asyncio.Event().wait()
        await asyncio.gather(*goals)
        if self.bytes is not None:
            print(self.bytes.report(ROLE), file=self.output, flush=True)
        article.log(ROLE, "done")
        await asyncio.sleep(self.options.linger)


class CommandSession:
    """Commands mode: the benchmark's peripheral, driven over stdin, JSON events on stdout."""

    def __init__(self, peripheral):
        self.peripheral = peripheral
        self.expected = 0
        self.received = 0
        self.digest = None
        self.reassembler = v1frames.Reassembler() if peripheral.options.v1 else None
        self.next_id = 0

    def on_write(self, data: bytes):
        peripheral = self.peripheral
        if self.reassembler is not None:
            for event in self.reassembler.receive(data):
                peripheral.emit(**event)
            return
        if self.expected:
            self.received += len(data)
            self.digest.update(data)
            if self.received >= self.expected:
                peripheral.emit("received", bytes=self.received, sha256=self.digest.hexdigest())
                self.expected = 0
            return
        if len(data) == 4:
            peripheral.emit("counter", value=article.decode_counter(data))
            if peripheral.options.echo:
                peripheral.notify(data)

    async def serve(self):
        peripheral, emit = self.peripheral, self.peripheral.emit
        reader = asyncio.StreamReader()
        await peripheral.loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
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
                    peripheral.notify(data[offset:offset + chunk])
                    await asyncio.sleep(0)
                emit("sent", bytes=size, sha256=hashlib.sha256(data).hexdigest())
            elif command == "message":
                size, chunk = arguments
                data = os.urandom(size)
                for frame in v1frames.frames(data, self.next_id, chunk):
                    peripheral.notify(frame)
                    await asyncio.sleep(0.005)
                self.next_id = (self.next_id + 1) & 0xFF
                emit("sent-message", bytes=size, sha256=hashlib.sha256(data).hexdigest())
            elif command == "echo":
                peripheral.options.echo = bool(arguments[0])
                emit("echo", on=peripheral.options.echo)
            elif command == "status":
                errors = self.reassembler.errors if self.reassembler else 0
                emit("status", received=self.received, errors=errors)
            else:
                emit("error", message=f"unknown command {command}")


async def main():
    options = parse_arguments()
    output = open(options.output, "w") if options.output else sys.stdout
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    peripheral = Peripheral(options, output)
    work = asyncio.ensure_future(peripheral.run())
    stopper = asyncio.ensure_future(stop.wait())
    done, _ = await asyncio.wait({work, stopper}, timeout=options.timeout or None,
                                 return_when=asyncio.FIRST_COMPLETED)
    if work in done:
        work.result()
        return 0
    work.cancel()
    if stopper in done:
        article.log(ROLE, "stopped")
        return 0
    received = (f"{peripheral.bytes.received} bytes" if peripheral.bytes
                else f"{peripheral.counters_received} counters")
    article.log(ROLE, f"timed out after {options.timeout} s ({received} received)")
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
