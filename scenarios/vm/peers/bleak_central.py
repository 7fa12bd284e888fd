#!/usr/bin/env python3
"""A third-party central for the article's service, built with bleak (PyPI) on BlueZ.

Speaks only what the original Apple Watch app speaks: it scans for the service UUID (and a
local name), connects, subscribes to the notify characteristic and writes raw 4-byte
little-endian UInt32 counters as write commands; or, for the benchmark baseline, raw bytes in
chunks of min(MTU-3, 510) with no framing at all.

Counters mode:   bleak_central.py --adapter hci1 --write 3 --expect-notify 3
  writes 0, 1, ... N-1 and prints every notified counter, one decimal per line on stdout.
Bytes mode:      bleak_central.py --send-bytes 1048576      (central -> peripheral)
                 bleak_central.py --expect-bytes 1048576    (peripheral -> central)
  prints one JSON line (bytes, seconds, goodput, sha256, mtu). With --expect-bytes it first
  writes the chunk length as a UInt32, which bless_peripheral.py --send-bytes waits for.
Commands mode:   bleak_central.py --commands --timeout 0     (benchmarks/ble/guest_bench.py)
  driven by commands on stdin like relay-central, one JSON event per stdout line (no time
  stamps: the driver stamps lines as it reads them). Once subscribed it prints
  {"event":"ready","mtu":N,"chunk":C}; a disconnection prints {"event":"disconnected"}. Then:
    counters N     write counters 0..N-1 as write commands, back to back; then
                   {"event":"written","count":N}
    write V        write counter V (write command); a notified counter (4 bytes) prints
                   {"event":"counter","value":V}
    send N         write N random bytes raw in chunks; then {"event":"sent","bytes":N,"sha256":...}
    expect N       count notified bytes raw until N arrived: {"event":"expecting","bytes":N}
                   now, {"event":"received","bytes":N,"sha256":...} then
    status         {"event":"status","received":BYTES}
    message N      send N random bytes as one version-1 message (scenarios/vm/peers/v1frames.py:
                   docs/protocol.md's version 1 exactly); then {"event":"sent-message",...}
    quit           (or end of input) disconnect and exit 0
  With --v1, every notification that is not a counter goes to a strict version-1 reassembler:
  {"event":"message","kind":K,"length":N,"sha256":...} or {"event":"protocol-error","detail":...}.
  A peripheral that is not found prints {"event":"error","message":"no peripheral found"}.
Progress goes to stderr ("found", "connected", "subscribed", "done"). Exit status 0 when
every goal is met, 1 on timeout or when the peripheral is not found or disconnects.
"""
import argparse
import asyncio
import hashlib
import json
import os
import sys
import time

from bleak import BleakClient, BleakScanner
from dbus_fast import BusType, Message, MessageType
from dbus_fast.aio import MessageBus

import article
import v1frames

ROLE = "bleak_central"


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci1", help="BlueZ adapter (default hci1)")
    parser.add_argument("--name", default=article.LOCAL_NAME,
                        help="local name to connect to ('' for any with the service)")
    parser.add_argument("--write", type=int, default=0, metavar="N",
                        help="write counters 0..N-1 after subscribing")
    parser.add_argument("--interval", type=float, default=0.0, metavar="S",
                        help="pause between two written counters or chunks")
    parser.add_argument("--with-response", action="store_true",
                        help="write requests instead of write commands")
    parser.add_argument("--expect-notify", type=int, default=0, metavar="N",
                        help="wait until N counters have been notified")
    parser.add_argument("--send-bytes", type=int, default=0, metavar="N",
                        help="bytes mode: write N random bytes raw, report goodput")
    parser.add_argument("--expect-bytes", type=int, default=0, metavar="N",
                        help="bytes mode: wait for N raw bytes notified, report goodput")
    parser.add_argument("--chunk", type=int, default=0, metavar="N",
                        help="chunk length (default min(MTU-3, 510))")
    parser.add_argument("--keep-cache", action="store_true",
                        help="do not forget cached peripherals before scanning")
    parser.add_argument("--scan-timeout", type=float, default=40.0, metavar="S")
    parser.add_argument("--v1", action="store_true",
                        help="commands mode: a version-1 relay peer (messages as v1 frames, strict reassembly)")
    parser.add_argument("--only-counters", action="store_true",
                        help="counters mode: fail if any notified value is not a 4-byte counter")
    parser.add_argument("--commands", action="store_true",
                        help="commands mode: commands on stdin, JSON events on stdout (see above)")
    parser.add_argument("--linger", type=float, default=0.5, metavar="S",
                        help="stay connected this long after the goals are met")
    parser.add_argument("--no-subscribe", action="store_true",
                        help="write without subscribing first (an intruder that only writes)")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="S",
                        help="give up after S seconds (0: never; default 60)")
    parser.add_argument("--output", metavar="FILE", help="received values here, not stdout")
    return parser.parse_args()


async def find_relay_peripheral(adapter: str, name: str, timeout: float, role: str):
    """The first peripheral that advertises the article's service, after forgetting the cached
    ones (see forget_cached_peripherals); exits with one line when none shows within timeout."""
    await forget_cached_peripherals(adapter, name)
    device = await BleakScanner.find_device_by_filter(
        lambda d, ad: article.SERVICE_UUID in [u.lower() for u in ad.service_uuids],
        timeout=timeout, service_uuids=[article.SERVICE_UUID], bluez={"adapter": adapter})
    if device is None:
        raise SystemExit(f"{role}: no peripheral found on {adapter}")
    return device


async def forget_cached_peripherals(adapter: str, name: str) -> None:
    """Removes the adapter's disconnected devices that carry the article's service or name.

    BlueZ reports a device it already knows only when its advertisement changes; btvirt's
    never does (fixed RSSI), so a second scan in one bluetoothd would not find it.
    """
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    try:
        reply = await bus.call(Message(
            destination="org.bluez", path="/", member="GetManagedObjects",
            interface="org.freedesktop.DBus.ObjectManager"))
        if reply.message_type != MessageType.METHOD_RETURN:
            return
        adapter_path = f"/org/bluez/{adapter}"
        for path, interfaces in reply.body[0].items():
            device = interfaces.get("org.bluez.Device1")
            if device is None or device["Adapter"].value != adapter_path:
                continue
            uuids = [uuid.lower() for uuid in device.get("UUIDs", _Empty).value]
            known = article.SERVICE_UUID in uuids or (name and device.get("Name", _Empty).value == name)
            if known and not device["Connected"].value:
                await bus.call(Message(
                    destination="org.bluez", path=adapter_path, interface="org.bluez.Adapter1",
                    member="RemoveDevice", signature="o", body=[path]))
    finally:
        bus.disconnect()


class _Empty:
    value = []


class Central:
    def __init__(self, options, output):
        self.options = options
        self.output = output
        self.notified = 0
        # Values that were not counters (--only-counters makes them a failure).
        self.non_counters = 0
        self.seen = {}
        self.notify_done = asyncio.Event()
        self.disconnected = asyncio.Event()
        self.bytes = article.ByteCounter(options.expect_bytes) if options.expect_bytes else None
        self.commands = CommandSession(self) if options.commands else None

    def matches(self, device, advertisement):
        seen = (advertisement.local_name, tuple(sorted(advertisement.service_uuids)))
        if self.seen.get(device.address) != seen:
            self.seen[device.address] = seen
            article.log(ROLE, f"seen {device.address} name={seen[0]!r} uuids={list(seen[1])}")
        if article.SERVICE_UUID not in [uuid.lower() for uuid in advertisement.service_uuids]:
            return False
        return not self.options.name or advertisement.local_name == self.options.name

    def emit(self, event: str, **fields) -> None:
        """Commands mode: one JSON event line on the output."""
        print(json.dumps({"event": event, **fields}), file=self.output, flush=True)

    def on_disconnect(self):
        self.disconnected.set()
        if self.commands:
            self.emit("disconnected")

    def on_notification(self, _characteristic, data: bytearray):
        if self.commands:
            self.commands.on_notification(bytes(data))
            return
        if self.bytes is not None:
            if self.bytes.add(bytes(data)):
                self.notify_done.set()
            return
        try:
            counter = article.decode_counter(bytes(data))
        except ValueError as error:
            article.log(ROLE, f"ignored a notification: {error}")
            self.non_counters += 1
            return
        print(counter, file=self.output, flush=True)
        self.notified += 1
        if self.options.expect_notify and self.notified >= self.options.expect_notify:
            self.notify_done.set()

    async def run(self):
        options = self.options
        if not options.keep_cache:
            await forget_cached_peripherals(options.adapter, options.name)
        # One scan: the radio reports every advertising event it hears.
        device = await BleakScanner.find_device_by_filter(
            self.matches, timeout=options.scan_timeout,
            service_uuids=[article.SERVICE_UUID], bluez={"adapter": options.adapter})
        if device is None:
            if self.commands:
                self.emit("error", message="no peripheral found")
            raise SystemExit(f"{ROLE}: no '{options.name}' peripheral found on {options.adapter}")
        article.log(ROLE, f"found {device.address}")
        client = BleakClient(device, disconnected_callback=lambda _: self.on_disconnect(),
                             bluez={"adapter": options.adapter})
        async with client:
            write = client.services.get_characteristic(article.WRITE_UUID)
            notify = client.services.get_characteristic(article.NOTIFY_UUID)
            if write is None or notify is None:
                raise SystemExit(f"{ROLE}: the peripheral lacks the article's characteristics")
            mtu = write.max_write_without_response_size + 3
            chunk = options.chunk or article.chunk_length(mtu)
            article.log(ROLE, f"connected, MTU {mtu}")
            if not options.no_subscribe:
                await client.start_notify(notify, self.on_notification)
                article.log(ROLE, "subscribed")
            if self.commands:
                await self.commands.serve(client, write, mtu, chunk)
                article.log(ROLE, "done")
                return
            response = options.with_response
            if options.expect_bytes:
                await client.write_gatt_char(write, article.encode_counter(chunk), response=response)
            for counter in range(options.write):
                if counter and options.interval:
                    await asyncio.sleep(options.interval)
                await client.write_gatt_char(write, article.encode_counter(counter), response=response)
            if options.write:
                article.log(ROLE, f"wrote {options.write} counters")
            if options.send_bytes:
                data = os.urandom(options.send_bytes)
                started = time.monotonic()
                for offset in range(0, len(data), chunk):
                    if offset and options.interval:
                        await asyncio.sleep(options.interval)
                    await client.write_gatt_char(write, data[offset:offset + chunk], response=response)
                print(article.send_report(ROLE, data, time.monotonic() - started, mtu=mtu, chunk=chunk),
                      file=self.output, flush=True)
            if options.expect_notify or options.expect_bytes:
                waiter = asyncio.ensure_future(self.notify_done.wait())
                lost = asyncio.ensure_future(self.disconnected.wait())
                await asyncio.wait({waiter, lost}, return_when=asyncio.FIRST_COMPLETED)
                if not self.notify_done.is_set():
                    raise SystemExit(f"{ROLE}: disconnected after {self.notified} notifications")
            if self.bytes is not None:
                print(self.bytes.report(ROLE, mtu=mtu), file=self.output, flush=True)
            await asyncio.sleep(options.linger)
            if options.only_counters and self.non_counters:
                raise SystemExit(f"{ROLE}: {self.non_counters} notified values were not counters")
            article.log(ROLE, "done")


class CommandSession:
    """Commands mode: the benchmark's central, driven over stdin, JSON events on stdout."""

    def __init__(self, central):
        self.central = central
        self.expected = 0
        self.received = 0
        self.digest = None
        self.reassembler = v1frames.Reassembler() if central.options.v1 else None
        self.next_id = 0

    def on_notification(self, data: bytes):
        emit = self.central.emit
        if self.reassembler is not None:
            for event in self.reassembler.receive(data):
                emit(**event)
            return
        if self.expected:
            self.received += len(data)
            self.digest.update(data)
            if self.received >= self.expected:
                emit("received", bytes=self.received, sha256=self.digest.hexdigest())
                self.expected = 0
            return
        if len(data) == 4:
            emit("counter", value=article.decode_counter(data))

    async def serve(self, client, write, mtu, chunk):
        emit = self.central.emit
        response = self.central.options.with_response
        emit("ready", mtu=mtu, chunk=chunk)
        reader = asyncio.StreamReader()
        await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
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
                    await client.write_gatt_char(write, article.encode_counter(counter), response=response)
                emit("written", count=arguments[0])
            elif command == "write":
                await client.write_gatt_char(write, article.encode_counter(arguments[0]), response=response)
            elif command == "send":
                data = os.urandom(arguments[0])
                for offset in range(0, len(data), chunk):
                    await client.write_gatt_char(write, data[offset:offset + chunk], response=response)
                emit("sent", bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
            elif command == "expect":
                self.expected, self.received, self.digest = arguments[0], 0, hashlib.sha256()
                emit("expecting", bytes=arguments[0])
            elif command == "message":
                data = os.urandom(arguments[0])
                for frame in v1frames.frames(data, self.next_id, chunk):
                    await client.write_gatt_char(write, frame, response=response)
                self.next_id = (self.next_id + 1) & 0xFF
                emit("sent-message", bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
            elif command == "status":
                errors = self.reassembler.errors if self.reassembler else 0
                emit("status", received=self.received, errors=errors)
            else:
                emit("error", message=f"unknown command {command}")


async def main():
    options = parse_arguments()
    output = open(options.output, "w") if options.output else sys.stdout
    central = Central(options, output)
    try:
        await asyncio.wait_for(central.run(), timeout=options.timeout or None)
    except asyncio.TimeoutError:
        received = f"{central.bytes.received} bytes" if central.bytes else f"{central.notified} counters"
        article.log(ROLE, f"timed out after {options.timeout} s ({received} received)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
