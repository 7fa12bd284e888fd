#!/usr/bin/env python3
"""A hostile protocol-2 peripheral (bless) against relay-central (issue 30, items 1, 4, 6 and 9,
and the breach that cuts a peer off from protocol 2; docs/protocol.md, "Version 2"), with honest
traffic in between.

    hostile_sessions_peripheral.py --adapter hci0 --honest-file FILE [--central-messages 3] [--timeout 240]

It serves the relay service as relay-peripheral does (write, notify and the session
characteristic, write without response + notify) and advertises as `sample`. relay-central's
hello on the session characteristic is answered with a welcome (session 1), so relay-central
speaks protocol 2 with it. Then, on the session characteristic, in this order (the breach last: a
peer that breaks protocol 2 is cut off from it, so every earlier phase meets a protocol-2 central):
  6. it never acknowledges relay-central's messages honestly, and
  1. answers each of relay-central's data frames with an acknowledgement of bytes never sent but
     within the message (received 0, the one-byte ranges at 1, 3, 5 and 7: not a breach, so
     relay-central's messages fail at its delivery time-out);
  honest: counter 1000 and an honest binary message (transfer 1, acknowledgements followed,
     missing bytes sent again until `delivered`), counter 1001;
  9. 200 welcomes (relay-central's token with other sessions and peripheral tokens, and other
     tokens), then --garbage bad session frames (every SessionFrameError sort, none 4 bytes long);
  honest: counter 1002;
  4. a message (transfer 2) declaring 60 000 bytes, then one byte at every other offset
     (1 000 frames), never the gaps; then an abort (cancelled) of it;
  honest: a second honest message (transfer 3), counter 1003;
  then it waits until relay-central gave up --central-messages of its messages (their aborts), or
     --linger seconds passed without a data frame from it;
  the breach, last: the first data frame of relay-central's next message is answered with an
     acknowledgement of bytes past its end (received 0xFFFFFF00). relay-central must then speak
     protocol 1: the peripheral waits for its subscription to the notify characteristic, writes a
     whole protocol-2 message (transfer 4) and --after-garbage bad session frames on the session
     characteristic (none may be read), and waits (--linger) for a protocol-1 message from
     relay-central on the write characteristic.
Every 4-byte value relay-central writes (its counters) is notified straight back (echo): on the
session characteristic before the breach, on the notify characteristic after it. Each
notification waits until the previous one left for the bus (see notify()). The honest messages'
SHA-256 go to --honest-file, one per line. It prints one JSON line: what it wrote of each sort,
the hellos heard, relay-central's transfers seen and aborted, the breach, the echoes, the
protocol-1 messages it took. Exit status 0 when every phase was done, every transfer it saw from
relay-central before the breach was aborted, relay-central subscribed to the notify characteristic
after the breach and a protocol-1 message came (also when stopped by SIGTERM afterwards, while it
serves on for --after seconds); 1 otherwise or on time-out.
"""
import argparse
import asyncio
import hashlib
import json
import os
import random
import signal
import struct
import sys
import time

from bless import BlessServer, GATTAttributePermissions, GATTCharacteristicProperties

import article
from hostile_frames import crc32c
from v1frames import Reassembler

ROLE = "hostile_sessions_peripheral"
SESSION_UUID = "a559017e-46d9-46da-84a8-fe75d26e0816"
MARKER = 0xB2
HELLO, WELCOME, DATA, ACK, ABORT = 1, 2, 3, 4, 5
TOKEN = 0x5EB0_7A1D  # this peripheral's token
SESSION = 1
WINDOW = 64 * 1024
DELIVERED = 1
BREACH_RECEIVED = 0xFFFF_FF00  # past the end of any message relay-central sends here
# Bytes within every message relay-central sends (at least 1 500 bytes and the header): never a breach.
INSIDE_SPANS = [(1, 2), (3, 4), (5, 6), (7, 8)]


def welcome(session: int, central: int, peripheral: int, next_transfer: int, window: int = WINDOW,
            version: int = 2) -> bytes:
    return bytes([MARKER, WELCOME, version, session]) + struct.pack("<IIIH", central, peripheral, window,
                                                                   next_transfer)


def data(session: int, transfer: int, offset: int, body: bytes) -> bytes:
    return bytes([MARKER, DATA, 0, session]) + struct.pack("<HI", transfer, offset) + body


def ack(session: int, transfer: int, received: int, spans=(), status: int = 0) -> bytes:
    frame = bytes([MARKER, ACK, status, session]) + struct.pack("<HI", transfer, received)
    for start, end in spans:
        frame += struct.pack("<II", start, end)
    return frame


def abort(session: int, transfer: int, reason: int) -> bytes:
    return bytes([MARKER, ABORT, reason, session]) + struct.pack("<H", transfer)


def stream_header(length: int, crc: int, kind: int = 2, name: bytes = b"") -> bytes:
    return bytes([kind, 0]) + struct.pack("<II", length, crc) + bytes([len(name)]) + name


def bad_frame(index: int, rng: random.Random) -> tuple[str, bytes]:
    """A value relay-central must refuse as a session frame (a SessionFrameError), never 4 bytes
    long (that would be a counter) and never a valid frame."""
    sort = index % 14
    if sort == 0:
        value = bytes([rng.choice([0x00, 0x01, 0xB1, 0xB3, 0xFF])]) + rng.randbytes(rng.randint(5, 60))
        return "not-session", value
    if sort == 1:
        return "unknown-type", bytes([MARKER, rng.randint(6, 255)]) + rng.randbytes(rng.randint(3, 40))
    if sort == 2:
        return "truncated-welcome", welcome(SESSION, 1, TOKEN, 1)[:rng.randint(5, 17)]
    if sort == 3:
        return "truncated-data", data(SESSION, 9, 0, b"")[:rng.choice([3, 5, 6, 7, 8, 9])]
    if sort == 4:
        return "empty-data", data(SESSION, rng.randint(0, 65535), rng.getrandbits(32), b"")
    if sort == 5:
        return "reserved-bits", bytes([MARKER, DATA, rng.randint(1, 255), SESSION]) + struct.pack("<HI", 2, 0) + b"x"
    if sort == 6:
        return "session-0", data(0, 2, 0, rng.randbytes(8))
    if sort == 7:
        return "ack-unknown-status", ack(SESSION, 1, 0, status=rng.randint(7, 255))
    if sort == 8:
        return "ack-trailing", ack(SESSION, 1, 0) + rng.randbytes(rng.randint(1, 7))
    if sort == 9:
        return "ack-bad-ranges", ack(SESSION, 1, 5000, [(9000, 9100), (8000, 8100)])
    if sort == 10:
        return "abort-unknown-reason", abort(SESSION, 2, rng.randint(4, 255))
    if sort == 11:
        return "abort-trailing", abort(SESSION, 2, 2) + b"\x00"
    if sort == 12:
        return "welcome-version-4", welcome(SESSION, 1, TOKEN, 1, version=4)
    return "welcome-token-0", welcome(SESSION, 0, TOKEN, 1)


class Outgoing:
    """One of this peripheral's messages to relay-central: what its acknowledgements said."""

    def __init__(self):
        self.status = None
        self.received = 0
        self.spans: list[tuple[int, int]] = []
        self.heard = asyncio.Event()


class HostileSessionsPeripheral:
    def __init__(self, options):
        self.options = options
        self.loop = asyncio.get_running_loop()
        self.server = BlessServer(name=options.name, loop=self.loop, adapter=options.adapter)
        self.air = asyncio.Lock()
        self.welcomed = asyncio.Event()
        self.central_token = None
        self.central_next = None
        self.written: dict[str, int] = {}
        self.bad_sorts: dict[str, int] = {}
        self.hellos = 0
        self.outgoing: dict[int, Outgoing] = {}
        self.central_transfers: set[int] = set()
        self.central_aborted: dict[int, int] = {}
        self.central_data_frames = 0
        self.last_central_data = time.monotonic()
        self.echoed: list[int] = []
        self.honest: list[str] = []
        self.counters: list[int] = []
        self.rng = random.Random(options.seed)
        self.done = False
        # The breach, last: armed once the phases are done and relay-central gave its messages up.
        self.phases_done = False
        self.breach_transfer = None
        self.breached = asyncio.Event()
        self.breached_at = None
        self.after_breach_data_frames = 0
        self.session_writes_after_v1 = 0
        self.notify_subscribed = asyncio.Event()
        self.echoed_v1: list[int] = []
        self.v1 = Reassembler()
        self.v1_messages: list[dict] = []
        self.v1_errors: list[str] = []
        self.v1_message = asyncio.Event()

    # -- GATT

    async def start(self):
        server = self.server
        await article.add_relay_service(server)
        await server.add_new_characteristic(
            article.SERVICE_UUID, SESSION_UUID,
            GATTCharacteristicProperties.write_without_response | GATTCharacteristicProperties.notify,
            None, GATTAttributePermissions.writeable)
        # relay-central subscribes to the session characteristic (protocol 2), and to the notify
        # characteristic only once it speaks protocol 1 on the link (after the breach).
        await article.serve(server, ROLE, self.options, self.on_write, self.on_subscribe)

    def on_subscribe(self):
        subscribed = [str(uuid).lower() for uuid in self.server.app.subscribed_characteristics]
        if article.NOTIFY_UUID in subscribed and not self.notify_subscribed.is_set():
            article.log(ROLE, "relay-central subscribed to the notify characteristic (protocol 1)")
            self.notify_subscribed.set()

    async def notify(self, value: bytes, sort: str, uuid: str = SESSION_UUID):
        """Notifies one value on the session characteristic (or `uuid`) and waits until its signal
        has left for the bus. dbus-next 0.2.3 (bless's D-Bus library) drops its whole bus connection when a
        socket write fails with EAGAIN, which happens when several queued signals meet a full
        socket: one at a time (the lock) avoids it."""
        async with self.air:
            self.server.get_characteristic(uuid).value = bytearray(value)
            self.server.update_value(article.SERVICE_UUID, uuid)
            writer = getattr(self.server.bus, "_writer", None)
            while writer is not None and (writer.buf is not None or writer.messages.qsize()):
                await asyncio.sleep(0.001)
        self.written[sort] = self.written.get(sort, 0) + 1

    def later(self, value: bytes, sort: str, uuid: str = SESSION_UUID):
        self.loop.create_task(self.notify(value, sort, uuid))

    def on_write(self, characteristic, value, **_):
        uuid = str(characteristic.uuid).lower()
        frame = bytes(value)
        if uuid not in (SESSION_UUID, article.WRITE_UUID):
            return
        if len(frame) == 4:
            # relay-central's counter (docs/protocol.md: on the write characteristic). The echo goes
            # where relay-central listens: the session characteristic while it speaks protocol 2,
            # the notify characteristic once the breach cut it off from protocol 2.
            counter = article.decode_counter(frame)
            self.echoed.append(counter)
            if self.breached.is_set():
                self.echoed_v1.append(counter)
                self.later(frame, "echo-v1", article.NOTIFY_UUID)
            else:
                self.later(frame, "echo")
            return
        if uuid == article.WRITE_UUID:
            # Protocol-1 frames (relay-central writes them here only once cut off from protocol 2).
            for event in self.v1.receive(frame):
                if event["event"] == "message":
                    self.v1_messages.append(event)
                    article.log(ROLE, f"protocol-1 message from relay-central: {event['length']} bytes")
                    self.loop.call_soon(self.v1_message.set)
                else:
                    self.v1_errors.append(event["detail"])
            return
        if self.notify_subscribed.is_set():
            self.session_writes_after_v1 += 1
        if len(frame) < 6 or frame[0] != MARKER:
            return
        kind = frame[1]
        if kind == HELLO and len(frame) >= 20:
            self.hellos += 1
            self.central_token = struct.unpack_from("<I", frame, 4)[0]
            self.central_next = struct.unpack_from("<H", frame, 18)[0]
            self.later(welcome(SESSION, self.central_token, TOKEN, 1), "welcome")
            self.loop.call_soon(self.welcomed.set)
        elif kind == DATA and len(frame) > 10 and frame[3] == SESSION:
            transfer = struct.unpack_from("<H", frame, 4)[0]
            self.central_transfers.add(transfer)
            self.central_data_frames += 1
            self.last_central_data = time.monotonic()
            if self.breached.is_set():
                self.after_breach_data_frames += 1  # in flight before the cut-off: not answered
            elif (self.phases_done and len(self.central_aborted) >= self.options.central_messages
                  and transfer not in self.central_aborted):
                # The breach, last: bytes past the end of the message (no receiver can hold them).
                self.breach_transfer = transfer
                self.breached_at = time.monotonic()
                self.breached.set()
                article.log(ROLE, f"breach: acknowledged bytes past the end of relay-central's transfer {transfer}")
                self.later(ack(SESSION, transfer, BREACH_RECEIVED), "breach-ack")
            else:
                # 6 and 1: never an honest acknowledgement; bytes never sent but within the message.
                self.later(ack(SESSION, transfer, 0, INSIDE_SPANS), "false-ack")
        elif kind == ACK and len(frame) >= 10 and frame[3] == SESSION:
            transfer, received = struct.unpack_from("<HI", frame, 4)
            outgoing = self.outgoing.get(transfer)
            if outgoing is not None:
                outgoing.status, outgoing.received = frame[2], received
                outgoing.spans = [struct.unpack_from("<II", frame, at) for at in range(10, len(frame) - 7, 8)]
                self.loop.call_soon(outgoing.heard.set)
        elif kind == ABORT and frame[3] == SESSION:
            transfer = struct.unpack_from("<H", frame, 4)[0]
            self.central_aborted[transfer] = frame[2]

    # -- Honest traffic

    async def counter(self, value: int):
        await asyncio.sleep(self.options.settle)
        await self.notify(article.encode_counter(value), "counter")
        self.counters.append(value)

    async def honest_message(self, transfer: int, data_bytes: bytes) -> bool:
        """Sends one message as protocol 2 says, follows its acknowledgements and sends again what
        they show missing, until `delivered` (True) or a final refusal or --honest-timeout (False)."""
        stream = stream_header(len(data_bytes), crc32c(data_bytes)) + data_bytes
        outgoing = self.outgoing[transfer] = Outgoing()
        chunk = self.options.chunk
        missing = list(range(0, len(stream), chunk))
        deadline = time.monotonic() + self.options.honest_timeout
        while time.monotonic() < deadline:
            for offset in missing:
                await self.notify(data(SESSION, transfer, offset, stream[offset:offset + chunk]), "honest-data")
            outgoing.heard.clear()
            try:
                await asyncio.wait_for(outgoing.heard.wait(), 2.0)
                await asyncio.sleep(0.3)  # the acknowledgements that follow
            except asyncio.TimeoutError:
                pass
            if outgoing.status == DELIVERED:
                digest = hashlib.sha256(data_bytes).hexdigest()
                self.honest.append(digest)
                with open(self.options.honest_file, "a") as shas:
                    print(digest, file=shas, flush=True)
                return True
            if outgoing.status not in (None, 0):
                article.log(ROLE, f"honest transfer {transfer} refused with status {outgoing.status}")
                return False
            held = [(0, outgoing.received)] + list(outgoing.spans)
            missing = [offset for offset in range(0, len(stream), chunk)
                       if not any(start <= offset and min(offset + chunk, len(stream)) <= end for start, end in held)]
            if not missing:  # everything held, the final word lost: the last frame again
                missing = [((len(stream) - 1) // chunk) * chunk]
        article.log(ROLE, f"honest transfer {transfer} not delivered in {self.options.honest_timeout} s")
        return False

    # -- Phases

    async def run(self) -> int:
        options = self.options
        open(options.honest_file, "w").close()
        await self.start()
        await self.welcomed.wait()
        article.log(ROLE, f"hello from token 0x{self.central_token:08x}; welcomed as session {SESSION}")
        await self.counter(1000)
        honest_ok = await self.honest_message(1, os.urandom(options.honest_bytes))
        await self.counter(1001)
        # 9: welcomes on a live link, then session frames relay-central cannot parse.
        article.log(ROLE, "flooding: 200 welcomes, then bad session frames")
        for index in range(200):
            if index % 2:
                value = welcome(2 + index % 253, self.central_token, self.rng.getrandbits(32) | 1, 7)
            else:
                value = welcome(1 + index % 254, self.rng.getrandbits(32) | 1, TOKEN, 1)
            await self.notify(value, "flood-welcome")
        for index in range(options.garbage):
            sort, value = bad_frame(index, self.rng)
            self.bad_sorts[sort] = self.bad_sorts.get(sort, 0) + 1
            await self.notify(value, "bad-frame")
        article.log(ROLE, f"phase 9 written: {self.written}")
        await self.counter(1002)
        # 4: one byte in two of a message declaring 60 000 bytes, never the gaps.
        header = stream_header(60_000, 0)
        await self.notify(data(SESSION, 2, 0, header + b"\x00"), "out-of-order")
        for offset in range(len(header) + 2, len(header) + 2 + 2 * 1000, 2):
            await self.notify(data(SESSION, 2, offset, b"\x01"), "out-of-order")
        await self.notify(abort(SESSION, 2, 2), "abort")
        article.log(ROLE, f"phase 4 written: {self.written}")
        await asyncio.sleep(options.settle)
        honest_ok = await self.honest_message(3, os.urandom(options.honest_bytes * 2)) and honest_ok
        await self.counter(1003)
        article.log(ROLE, f"honest traffic and floods done; waiting for relay-central to give up "
                          f"{options.central_messages} messages")
        while len(self.central_aborted) < options.central_messages or \
                not self.central_transfers <= set(self.central_aborted):
            if time.monotonic() - self.last_central_data > options.linger:
                article.log(ROLE, f"no data frame from relay-central for {options.linger} s")
                break
            await asyncio.sleep(0.2)
        given_up = (len(self.central_aborted) >= options.central_messages
                    and self.central_transfers <= set(self.central_aborted))
        # The breach, last: relay-central's next message (on_write answers its first data frame).
        self.phases_done = True
        article.log(ROLE, f"relay-central gave up {sorted(self.central_aborted)}; armed: its next message "
                          f"is acknowledged past its end")
        after_written = False
        try:
            await asyncio.wait_for(self.breached.wait(), options.linger)
            await asyncio.wait_for(self.notify_subscribed.wait(), 30)
            # Cut off: none of these may be read (a whole honest message, then bad frames).
            payload = os.urandom(options.honest_bytes)
            stream = stream_header(len(payload), crc32c(payload)) + payload
            for offset in range(0, len(stream), options.chunk):
                await self.notify(data(SESSION, 4, offset, stream[offset:offset + options.chunk]), "after-cutoff-data")
            for index in range(options.after_garbage):
                await self.notify(bad_frame(index, self.rng)[1], "after-cutoff-bad-frame")
            after_written = True
            article.log(ROLE, "protocol-2 frames after the cut-off written")
            await asyncio.wait_for(self.v1_message.wait(), options.linger)
        except asyncio.TimeoutError:
            article.log(ROLE, f"after the breach: breached {self.breached.is_set()}, notify subscribed "
                              f"{self.notify_subscribed.is_set()}, frames written {after_written}, "
                              f"protocol-1 messages {len(self.v1_messages)}")
        await asyncio.sleep(options.settle)  # the echoes of counters written just before
        result = {
            "written": self.written, "bad_sorts": self.bad_sorts, "hellos": self.hellos,
            "honest_messages": len(self.honest), "counters": self.counters, "echoed": self.echoed,
            "central_transfers": sorted(self.central_transfers),
            "central_aborted": {str(k): v for k, v in sorted(self.central_aborted.items())},
            "central_data_frames": self.central_data_frames,
            "breach_transfer": self.breach_transfer, "after_breach_data_frames": self.after_breach_data_frames,
            "notify_subscribed": self.notify_subscribed.is_set(),
            "session_writes_after_v1": self.session_writes_after_v1, "echoed_v1": self.echoed_v1,
            "v1_messages": self.v1_messages, "v1_errors": self.v1_errors,
        }
        print(json.dumps(result), flush=True)
        done = (honest_ok and self.written.get("flood-welcome") == 200
                and self.written.get("bad-frame") == options.garbage
                and self.written.get("out-of-order") == 1001 and self.written.get("false-ack", 0) > 0
                and given_up and self.written.get("breach-ack") == 1 and self.notify_subscribed.is_set()
                and after_written and len(self.v1_messages) >= 1)
        self.done = done
        article.log(ROLE, "done" if done else "not every phase was done")
        await asyncio.sleep(options.after)
        return 0 if done else 1


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adapter", default="hci0")
    parser.add_argument("--name", default=article.LOCAL_NAME)
    parser.add_argument("--honest-file", required=True, help="SHA-256 of each honest message, one a line")
    parser.add_argument("--honest-bytes", type=int, default=3000, help="the first honest message (the second: twice)")
    parser.add_argument("--honest-timeout", type=float, default=40.0, metavar="S")
    parser.add_argument("--chunk", type=int, default=230, help="stream bytes per data frame")
    parser.add_argument("--garbage", type=int, default=300, help="bad session frames")
    parser.add_argument("--after-garbage", type=int, default=28, help="bad session frames after the cut-off")
    parser.add_argument("--central-messages", type=int, default=3,
                        help="relay-central's messages to see given up (aborted) before leaving")
    parser.add_argument("--settle", type=float, default=0.5, metavar="S", help="pause before each honest counter")
    parser.add_argument("--linger", type=float, default=60.0, metavar="S",
                        help="leave after this long without a data frame from relay-central")
    parser.add_argument("--after", type=float, default=2.0, metavar="S", help="keep serving this long at the end")
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--timeout", type=float, default=240.0)
    options = parser.parse_args()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    peripheral = HostileSessionsPeripheral(options)
    work = asyncio.ensure_future(peripheral.run())
    stopper = asyncio.ensure_future(stop.wait())
    done, _ = await asyncio.wait({work, stopper}, timeout=options.timeout, return_when=asyncio.FIRST_COMPLETED)
    if work in done:
        return work.result()
    work.cancel()
    article.log(ROLE, "stopped" if stopper in done else f"timed out after {options.timeout} s")
    # Stopped while serving on after its phases: done is done.
    return 0 if peripheral.done else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
