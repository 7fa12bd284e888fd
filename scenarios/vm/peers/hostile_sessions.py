"""A hostile protocol-2 central (bleak) against relay-peripheral, beside honest relay centrals
(issue 30, items 1, 4, 5, 6 and 9; docs/protocol.md, "Version 2").

    hostile_sessions.py --adapter hci1 --address 00:AA:01:01:00:01 --victims 1 [--timeout 200]

It subscribes to the session characteristic and says hello with its own token, then, once it
heard the welcome of --victims other centrals (every subscriber hears every welcome, token in
clear):
  5. takeover: says hello with each victim's token (the peripheral must refuse it);
  4. out-of-order flood: a message declaring 60 000 bytes, then one byte at every other offset
     (1 000 frames), never the gaps; then 200 compact data frames (version 3), which its hello
     (version 2) did not agree on, at offsets all over;
  1. acknowledgement flood: for every data frame the peripheral notifies, acknowledgements
     claiming bytes never sent within the message (one byte in two, as ranges);
  6. it never acknowledges honestly, so the peripheral's messages never reach it;
  9. once every transfer it heard was aborted (the peripheral gave them up for it), or --linger
     seconds passed without a data frame: up to 200 hellos with its own token on its live link (the
     peripheral cuts it off from protocol 2 after 30 and ends the link).
Prints one JSON line: the frames written of each sort, the welcomes heard for its own and the
victims' tokens (after the takeover hello), and the transfers it heard and saw aborted. Exit status 0 when every phase was written.
"""
import argparse
import asyncio
import json
import struct
import sys
import time

from bleak import BleakClient

import article
from bleak_central import find_relay_peripheral

ROLE = "hostile_sessions"
SESSION_UUID = "a559017e-46d9-46da-84a8-fe75d26e0816"
MARKER = 0xB2
HELLO, WELCOME, DATA, ACK, ABORT = 1, 2, 3, 4, 5
TOKEN = 0x0BAD_0BAD
EVERYONE = 255


def hello(token: int, address: str, next_transfer: int = 1) -> bytes:
    return (bytes([MARKER, HELLO, 2, 0]) + struct.pack("<I", token) + bytes.fromhex(address.replace(":", ""))
            + struct.pack("<IH", 1 << 20, next_transfer))


def data(session: int, transfer: int, offset: int, body: bytes) -> bytes:
    return bytes([MARKER, DATA, 0, session]) + struct.pack("<HI", transfer, offset) + body


def ack(session: int, transfer: int, received: int, spans=()) -> bytes:
    frame = bytes([MARKER, ACK, 0, session]) + struct.pack("<HI", transfer, received)
    for start, end in spans:
        frame += struct.pack("<II", start, end)
    return frame


class Listener:
    """Session frames notified by the peripheral: welcomes by token, data frames by transfer."""

    def __init__(self):
        self.welcomes: dict[int, list[tuple[float, int]]] = {}
        self.transfers: set[int] = set()
        self.data_frames = 0
        self.last_data = time.monotonic()
        self.pending_acks: list[int] = []
        self.aborted: set[int] = set()

    def __call__(self, _, value: bytearray):
        frame = bytes(value)
        if len(frame) >= 18 and frame[0] == MARKER and frame[1] == WELCOME:
            token = struct.unpack_from("<I", frame, 4)[0]
            self.welcomes.setdefault(token, []).append((time.monotonic(), frame[3]))
        elif len(frame) > 10 and frame[0] == MARKER and frame[1] == DATA:
            transfer = struct.unpack_from("<H", frame, 4)[0]
            self.transfers.add(transfer)
            self.data_frames += 1
            self.last_data = time.monotonic()
            self.pending_acks.append(transfer)
        elif len(frame) >= 6 and frame[0] == MARKER and frame[1] == ABORT:
            self.aborted.add(struct.unpack_from("<H", frame, 4)[0])


async def wait_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


async def run(options) -> int:
    device = await find_relay_peripheral(options.adapter, options.name, options.scan_timeout, ROLE)
    heard = Listener()
    written: dict[str, int] = {}

    async def write(client, characteristic, value: bytes, sort: str):
        await client.write_gatt_char(characteristic, value, response=False)
        written[sort] = written.get(sort, 0) + 1

    async with BleakClient(device, bluez={"adapter": options.adapter}) as client:
        session_char = client.services.get_characteristic(SESSION_UUID)
        if session_char is None:
            raise SystemExit(f"{ROLE}: the peripheral has no session characteristic")
        await client.start_notify(session_char, heard)
        await write(client, session_char, hello(TOKEN, options.address), "hello")
        if not await wait_until(lambda: TOKEN in heard.welcomes, 20):
            raise SystemExit(f"{ROLE}: no welcome for its own hello")
        session = heard.welcomes[TOKEN][0][1]
        print(json.dumps({"event": "welcomed", "session": session}), flush=True)
        article.log(ROLE, f"session {session}; waiting for {options.victims} other centrals' welcomes")
        if not await wait_until(lambda: len(set(heard.welcomes) - {TOKEN}) >= options.victims, options.timeout / 2):
            raise SystemExit(f"{ROLE}: heard no welcome of another central")
        victims = sorted(set(heard.welcomes) - {TOKEN})
        # 5: the victims' tokens, heard in clear.
        takeover_at = time.monotonic()
        for victim in victims:
            await write(client, session_char, hello(victim, options.address), "takeover-hello")
        # 4: one byte in two of a message declaring 60 000 bytes (binary, no name).
        header = bytes([2, 0]) + struct.pack("<II", 60_000, 0) + bytes([0])
        await write(client, session_char, data(session, 1, 0, header + b"\x00"), "out-of-order")
        for offset in range(len(header) + 2, len(header) + 2 + 2 * 1000, 2):
            await write(client, session_char, data(session, 1, offset, b"\x01"), "out-of-order")
        for index in range(200):
            offset = (index * 7919) % 16384
            await write(client, session_char, bytes([0xC0 | offset >> 8, offset & 0xFF]) + b"\xee" * 18, "compact")
        article.log(ROLE, f"phases 5 and 4 written: {written}")
        # 1 and 6: acknowledge every data frame heard with bytes never sent, never honestly.
        quiet_since = time.monotonic()
        while time.monotonic() - max(quiet_since, heard.last_data) < options.linger and \
                not (heard.transfers and heard.transfers <= heard.aborted):
            if not heard.pending_acks:
                await asyncio.sleep(0.05)
                continue
            transfer = heard.pending_acks.pop(0)
            # Within every message (each is longer than 1 000 bytes); a claim beyond its end would
            # cut this central off at once (tested apart).
            base = 1 + 8 * (written.get("false-ack", 0) % 100)
            spans = [(base + 2 * k, base + 2 * k + 1) for k in range(4)]
            await write(client, session_char, ack(session, transfer, 0, spans), "false-ack")
        # 9: hellos on a live link, until the peripheral ends it (it cuts a central off from
        # protocol 2, and disconnects it, after 30 hellos within 60 s).
        flood_at = time.monotonic()
        disconnected = False
        for _ in range(200):
            try:
                await write(client, session_char, hello(TOKEN, options.address), "flood-hello")
            except Exception:  # noqa: BLE001 - the link ended under the write
                disconnected = True
                break
        await asyncio.sleep(2)
        disconnected = disconnected or not client.is_connected
        after = {token: sum(1 for at, _ in welcomes if at >= takeover_at) for token, welcomes in heard.welcomes.items()}
        print(json.dumps({
            "written": written, "victims": len(victims),
            "welcomes_for_victims_after_takeover": sum(after.get(victim, 0) for victim in victims),
            "welcomes_for_itself": len(heard.welcomes.get(TOKEN, [])),
            "welcomes_during_flood": sum(1 for at, _ in heard.welcomes.get(TOKEN, []) if at >= flood_at),
            "transfers": sorted(heard.transfers), "aborted": sorted(heard.aborted),
            "data_frames": heard.data_frames, "disconnected_in_flood": disconnected,
        }), flush=True)
    article.log(ROLE, "done")
    return 0


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci1")
    parser.add_argument("--address", required=True, help="this adapter's address, for the hello")
    parser.add_argument("--name", default=article.LOCAL_NAME)
    parser.add_argument("--victims", type=int, default=1, help="other centrals' welcomes to wait for")
    parser.add_argument("--scan-timeout", type=float, default=60)
    parser.add_argument("--linger", type=float, default=40,
                        help="seconds without data frames before leaving when not every transfer was aborted")
    parser.add_argument("--timeout", type=float, default=200)
    options = parser.parse_args()
    try:
        return await asyncio.wait_for(run(options), timeout=options.timeout)
    except asyncio.TimeoutError:
        article.log(ROLE, f"timed out after {options.timeout} s")
        return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
