"""A foreign central (bleak) that speaks protocol 2 to relay-peripheral and sends files under
hostile names (docs/protocol.md, "Version 2"; issue 16's list: path separators, `..`, a leading
dot or dash, 4 KiB of `A`, NUL, invalid UTF-8; issue 30's: `a` with 120 combining accents before
`.bash_login`, which a cut that drops whole characters made a dotfile, and the name another
central's next unnamed message would get), then floods it with unnamed messages (issue 30,
item 3: the save folder takes at most 60 a minute from one sender).

    named_files_central.py --adapter hci1 --address 00:AA:01:01:00:01 [--flood 100] [--timeout 120]

It subscribes to the session characteristic, writes a hello, takes its session number from the
welcome, then sends each file as one version-2 message (stream header with the name, then the
bytes) in data frames of MTU - 3 bytes, and waits for the peripheral's final acknowledgement
before the next. Prints one JSON line per file: {"name": hex of the name bytes, "sha256": ...,
"delivered": true}, then for the flood {"flood": N, "delivered": D, "not_saved": S, "seconds": T}
(T from the first file's first frame to the flood's last answer). Exit status 0 when every file
was delivered and every flood message was answered.
"""
import argparse
import asyncio
import hashlib
import json
import os
import struct
import sys

from bleak import BleakClient

import article
from bleak_central import find_relay_peripheral
from hostile_frames import crc32c

ROLE = "named_files_central"
SESSION_UUID = "a559017e-46d9-46da-84a8-fe75d26e0816"
MARKER = 0xB2
HELLO, WELCOME, DATA, ACK = 1, 2, 3, 4
DELIVERED = 1
TOKEN = 0x7E57_0001

HOSTILE_NAMES = [
    b"../../etc/passwd", b"/tmp/x", b"a/b", b"..", b"A" * 255, b"\x00", b"\xff\xfe/\xc3(",
    b".hidden", b"-rf", "räksmörgås 写真 (1).jpg".encode(),
    ("a" + "\u0301" * 120 + ".bash_login").encode(), b"message-0042-00_AA_01_02_00_02.txt",
]
NOT_SAVED = 6


def hello(address: str, window: int, next_transfer: int) -> bytes:
    return (bytes([MARKER, HELLO, 2, 0]) + struct.pack("<I", TOKEN) + bytes.fromhex(address.replace(":", ""))
            + struct.pack("<IH", window, next_transfer))


def stream(name: bytes, data: bytes) -> bytes:
    return bytes([2, 0]) + struct.pack("<II", len(data), crc32c(data)) + bytes([len(name)]) + name + data


def data_frames(session: int, transfer: int, body: bytes, value_length: int):
    step = value_length - 10
    for offset in range(0, len(body), step):
        yield bytes([MARKER, DATA, 0, session]) + struct.pack("<HI", transfer, offset) + body[offset:offset + step]


async def run(options):
    device = await find_relay_peripheral(options.adapter, options.name, options.scan_timeout, ROLE)
    frames: asyncio.Queue = asyncio.Queue()
    failures = 0
    async with BleakClient(device, bluez={"adapter": options.adapter}) as client:
        session_char = client.services.get_characteristic(SESSION_UUID)
        if session_char is None:
            raise SystemExit(f"{ROLE}: the peripheral has no session characteristic")
        value_length = min(session_char.max_write_without_response_size, 510)
        await client.start_notify(session_char, lambda _, data: frames.put_nowait(bytes(data)))
        await client.write_gatt_char(session_char, hello(options.address, 1 << 20, 1), response=False)
        session = None
        while session is None:
            frame = await asyncio.wait_for(frames.get(), options.timeout)
            if len(frame) >= 18 and frame[0] == MARKER and frame[1] == WELCOME and \
                    struct.unpack_from("<I", frame, 4)[0] == TOKEN:
                session = frame[3]
        article.log(ROLE, f"welcome: session {session}, values of {value_length} bytes")
        started = asyncio.get_running_loop().time()

        async def send(transfer: int, body: bytes):
            """Writes a message's frames; its final status (None: no answer in time)."""
            for value in data_frames(session, transfer, body, value_length):
                await client.write_gatt_char(session_char, value, response=False)
            try:
                while True:
                    frame = await asyncio.wait_for(frames.get(), options.timeout)
                    if (len(frame) >= 10 and frame[0] == MARKER and frame[1] == ACK and frame[3] == session
                            and struct.unpack_from("<H", frame, 4)[0] == transfer and frame[2] != 0):
                        return frame[2]
            except asyncio.TimeoutError:
                return None

        for index, name in enumerate(HOSTILE_NAMES):
            data = os.urandom(1000 + index * 317)
            delivered = await send(index + 1, stream(name, data)) == DELIVERED
            failures += not delivered
            print(json.dumps({"name": name.hex(), "sha256": hashlib.sha256(data).hexdigest(),
                              "delivered": delivered}), flush=True)
        answers = [await send(len(HOSTILE_NAMES) + 1 + index, stream(b"", bytes([index % 256])))
                   for index in range(options.flood)]
        failures += answers.count(None)
        print(json.dumps({"flood": options.flood, "delivered": answers.count(DELIVERED),
                          "not_saved": answers.count(NOT_SAVED),
                          "seconds": round(asyncio.get_running_loop().time() - started, 1)}), flush=True)
    article.log(ROLE, f"done, {failures} not delivered")
    return failures


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci1")
    parser.add_argument("--address", required=True, help="this adapter's address, for the hello")
    parser.add_argument("--name", default=article.LOCAL_NAME)
    parser.add_argument("--scan-timeout", type=float, default=60)
    parser.add_argument("--flood", type=int, default=0, help="unnamed messages sent back to back after the files")
    parser.add_argument("--timeout", type=float, default=60, help="seconds to wait for each answer")
    options = parser.parse_args()
    sys.exit(1 if await run(options) else 0)


if __name__ == "__main__":
    asyncio.run(main())
