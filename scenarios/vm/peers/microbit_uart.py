#!/usr/bin/env python3
"""A micro:bit running a UART program, emulated with bless (PyPI) on BlueZ, for relay-central --nus.

The micro:bit's Bluetooth UART service is the Nordic UART Service with the two characteristics'
roles swapped (the micro:bit's own point of view): 6E400002 is the micro:bit's TX and *indicates*
(nothing else), 6E400003 is its RX and takes writes with and without response. Like a micro:bit
it advertises its name ("BBC micro:bit [zavit]") but not the UART service (its first service is
the micro:bit Event service), as general discoverable (bless leaves the advertisement's
Discoverable unset, so from BlueZ 5.7x the flag follows the adapter's Discoverable, off here:
the adapter is made discoverable first, or a central's discovery without a service filter
would see the device but never its name). The program it runs is the classic "echo": once a central subscribes
it indicates "hello from micro:bit" and, for every line it reads (up to a newline, as
bluetooth.uartReadUntil(NewLine)), indicates "echo: LINE", each cut into values of at most 20
bytes (a micro:bit's MTU is 23).

    microbit_uart.py --adapter hci2 --timeout 120

After each line it reads, and when it stops, it prints one JSON line of what came so far: {"lines": [...],
"values", "max_value", "valid_utf8_values", "indications"} (the last one is the report). It
serves until SIGTERM (exit status 0) or --timeout (exit status 1): bless does not say when an
indication was confirmed, so whoever reads the echoes says when they all came.
"""
import argparse
import asyncio
import json
import signal
import sys

from bless import BlessServer, GATTAttributePermissions, GATTCharacteristicProperties
from dbus_fast import BusType, Message, MessageType, Variant
from dbus_fast.aio import MessageBus

import article

ROLE = "microbit_uart"
NAME = "BBC micro:bit [zavit]"
EVENT_SERVICE = "e95d93af-251d-470a-a062-fa1922dfa9a8"
MODEL = "e95d9775-251d-470a-a062-fa1922dfa9a8"
UART = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
UART_TX = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"  # the micro:bit's TX: indicate
UART_RX = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"  # the micro:bit's RX: write, write without response
CHUNK = 20


class Microbit:
    def __init__(self, options):
        self.options = options
        self.loop = asyncio.get_running_loop()
        self.server = BlessServer(name=options.name, loop=self.loop, adapter=options.adapter)
        self.pending = b""
        self.lines = []
        self.values = []
        self.indications = 0
        self.outgoing = asyncio.Queue()
        self.subscribed = asyncio.Event()
        self.stopped = asyncio.Event()

    async def make_discoverable(self):
        """Adapter1.Discoverable on (no time-out), as a micro:bit's own advertising is."""
        bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
        try:
            for name, value in (("DiscoverableTimeout", Variant("u", 0)), ("Discoverable", Variant("b", True))):
                reply = await bus.call(Message(
                    destination="org.bluez", path=f"/org/bluez/{self.options.adapter}",
                    interface="org.freedesktop.DBus.Properties", member="Set", signature="ssv",
                    body=["org.bluez.Adapter1", name, value]))
                if reply.message_type != MessageType.METHOD_RETURN:
                    raise SystemExit(f"{ROLE}: cannot set {name} on {self.options.adapter}: {reply.body}")
        finally:
            bus.disconnect()

    async def start(self):
        server = self.server
        await self.make_discoverable()
        # First service: the one bless advertises (the micro:bit advertises no UART service).
        await server.add_new_service(EVENT_SERVICE)
        await server.add_new_characteristic(
            EVENT_SERVICE, MODEL, GATTCharacteristicProperties.read, bytearray(b"micro:bit emulation"),
            GATTAttributePermissions.readable)
        await server.add_new_service(UART)
        await server.add_new_characteristic(
            UART, UART_TX, GATTCharacteristicProperties.indicate, None, GATTAttributePermissions.readable)
        await server.add_new_characteristic(
            UART, UART_RX,
            GATTCharacteristicProperties.write | GATTCharacteristicProperties.write_without_response,
            None, GATTAttributePermissions.writeable)
        await article.serve(server, ROLE, self.options, self.on_write, self.on_subscribe)

    def on_subscribe(self):
        if not self.subscribed.is_set():
            article.log(ROLE, "subscribed to TX indications")
            self.subscribed.set()
            self.say("hello from micro:bit")

    def on_write(self, characteristic, value, **_):
        if str(characteristic.uuid).lower() != UART_RX:
            article.log(ROLE, f"write to {characteristic.uuid} ignored")
            return
        data = bytes(value)
        self.values.append(data)
        self.pending += data
        while b"\n" in self.pending:
            raw, self.pending = self.pending.split(b"\n", 1)
            line = raw.rstrip(b"\r").decode("utf-8", errors="backslashreplace")
            self.lines.append(line)
            article.log(ROLE, f"line {len(self.lines)}: {len(raw)} bytes")
            self.say("echo: " + line)
            print(self.report(), flush=True)

    def say(self, text: str):
        data = (text + "\n").encode()
        # Cut on UTF-8 character boundaries, as the micro:bit's uartWriteString does per packet.
        start = 0
        while start < len(data):
            end = min(start + CHUNK, len(data))
            while end < len(data) and data[end] & 0xC0 == 0x80:
                end -= 1
            self.outgoing.put_nowait(data[start:end])
            start = end

    async def indicate_forever(self):
        while True:
            chunk = await self.outgoing.get()
            self.server.get_characteristic(UART_TX).value = bytearray(chunk)
            self.server.update_value(UART, UART_TX)
            self.indications += 1
            # An indication waits for its confirmation in bluetoothd; pace like a micro:bit's loop.
            await asyncio.sleep(self.options.interval)

    def report(self) -> str:
        valid = 0
        for value in self.values:
            try:
                value.decode("utf-8")
                valid += 1
            except UnicodeDecodeError:
                pass
        return json.dumps({
            "lines": self.lines, "values": len(self.values),
            "max_value": max((len(v) for v in self.values), default=0), "valid_utf8_values": valid,
            "indications": self.indications,
        }, ensure_ascii=False)


async def run(options) -> int:
    microbit = Microbit(options)
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, microbit.stopped.set)
    await microbit.start()
    indicator = asyncio.ensure_future(microbit.indicate_forever())
    status = 0
    try:
        await asyncio.wait_for(microbit.stopped.wait(), options.timeout or None)
        article.log(ROLE, f"stopped after {len(microbit.lines)} lines")
    except asyncio.TimeoutError:
        article.log(ROLE, f"timed out after {len(microbit.lines)} lines")
        status = 1
    indicator.cancel()
    print(microbit.report(), flush=True)
    await microbit.server.stop()
    return status


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci0")
    parser.add_argument("--name", default=NAME)
    parser.add_argument("--interval", type=float, default=0.02, help="seconds between two indications")
    parser.add_argument("--timeout", type=float, default=120, help="give up after S seconds (0: never)")
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
