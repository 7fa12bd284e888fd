#!/usr/bin/env python3
"""A phone UART app on the Nordic UART Service (NUS), emulated with bleak on BlueZ, as the apps'
published sources behave (/work/shared/notes is not needed to run it):

  --app nrf-android    nRF Toolbox for Android: writes without response when RX allows it, the
                       text cut into chunks of min(MTU-3, 512); the line ending is LF.
  --app nrf-ios        nRF Toolbox for iOS: one write with response of the whole line (a long
                       write when it is longer than MTU-3); CRLF.
  --app bluefruit      Bluefruit LE Connect: writes without response in chunks of the largest
                       write-without-response value (MTU-3); LF appended.

    uart_phone.py --adapter hci1 --app nrf-android --line hello --line 'räksmörgås' \
        --expect-bytes 2049

It finds the peripheral by its name in the scan (the apps list devices by name; none filters on
the NUS UUID), connects, checks the NUS service and its characteristics' properties, subscribes to
TX, writes each --line, then collects TX notifications until --expect-bytes bytes came. Prints one
JSON line: {"mtu", "sent": [...], "received": text (UTF-8, strict), "sha256", "values",
"max_value", "valid_utf8_values"}. Exit status 0 when everything went as expected.
"""
import argparse
import asyncio
import hashlib
import json
import sys

from bleak import BleakClient, BleakScanner

import article
from bleak_central import forget_cached_peripherals

ROLE = "uart_phone"
NUS = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
RX = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
TX = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"
ENDINGS = {"nrf-android": "\n", "nrf-ios": "\r\n", "bluefruit": "\n"}


async def run(options) -> int:
    await forget_cached_peripherals(options.adapter, options.name)
    device = await BleakScanner.find_device_by_name(
        options.name, timeout=options.scan_timeout, bluez={"adapter": options.adapter})
    if device is None:
        print(f"{ROLE}: no device named {options.name!r} found", file=sys.stderr)
        return 1
    values: list = []
    got = asyncio.Event()

    def on_tx(_, data: bytearray):
        values.append(bytes(data))
        if sum(len(v) for v in values) >= options.expect_bytes:
            got.set()

    async with BleakClient(device, bluez={"adapter": options.adapter}) as client:
        service = client.services.get_service(NUS)
        if service is None:
            print(f"{ROLE}: no Nordic UART Service", file=sys.stderr)
            return 1
        rx = service.get_characteristic(RX)
        tx = service.get_characteristic(TX)
        if "notify" not in tx.properties or "write" not in rx.properties \
                or "write-without-response" not in rx.properties:
            print(f"{ROLE}: unexpected properties RX {rx.properties} TX {tx.properties}", file=sys.stderr)
            return 1
        # BlueZ's MTU property of the characteristic (bleak's mtu_size needs an acquired socket).
        mtu = rx.max_write_without_response_size + 3
        await client.start_notify(tx, on_tx)
        print(f"{ROLE}: subscribed, MTU {mtu}", file=sys.stderr)
        ending = ENDINGS[options.app]
        for line in options.line:
            data = (line + ending).encode()
            if options.app == "nrf-ios":
                await client.write_gatt_char(rx, data, response=True)
            else:
                step = min(mtu - 3, 512) if options.app == "nrf-android" else rx.max_write_without_response_size
                for start in range(0, len(data), step):
                    await client.write_gatt_char(rx, data[start:start + step], response=False)
            await asyncio.sleep(options.pause)
        if options.expect_bytes:
            try:
                await asyncio.wait_for(got.wait(), options.timeout)
            except asyncio.TimeoutError:
                print(f"{ROLE}: only {sum(len(v) for v in values)} of {options.expect_bytes} bytes came",
                      file=sys.stderr)
        await asyncio.sleep(options.linger)
    received = b"".join(values)
    valid = 0
    for value in values:
        try:
            value.decode("utf-8")
            valid += 1
        except UnicodeDecodeError:
            pass
    try:
        text = received.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    print(json.dumps({
        "app": options.app, "mtu": mtu, "sent": options.line, "received": text,
        "sha256": hashlib.sha256(received).hexdigest(), "bytes": len(received), "values": len(values),
        "max_value": max((len(v) for v in values), default=0), "valid_utf8_values": valid,
    }, ensure_ascii=False), flush=True)
    return 0 if len(received) >= options.expect_bytes and text is not None else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci1")
    parser.add_argument("--name", default=article.LOCAL_NAME)
    parser.add_argument("--app", choices=sorted(ENDINGS), default="nrf-android")
    parser.add_argument("--line", action="append", default=[], help="a line to write (repeatable)")
    parser.add_argument("--pause", type=float, default=0.2, help="seconds between lines")
    parser.add_argument("--expect-bytes", type=int, default=0, help="wait for this many TX bytes")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--linger", type=float, default=0.5, help="seconds connected after the last event")
    parser.add_argument("--scan-timeout", type=float, default=40)
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
