"""Version 1 of the relay protocol exactly as docs/protocol.md writes it, for a third-party
peer that knows nothing newer: frames out (14-byte first header, 5-byte continuation headers,
CRC-32C of the message) and a strict reassembler in (every rule of "Reassembly"; anything else
is a protocol error, counted). Written here independently of the Swift codec.
"""
import hashlib
import struct

from hostile_frames import crc32c

KINDS = {1: "text", 2: "binary"}


def frames(message: bytes, msg_id: int, value_length: int, kind: int = 2):
    """The frames of `message` as message `msg_id`, values of at most `value_length` bytes."""
    crc = crc32c(message)
    first_room = value_length - 14
    rest_room = value_length - 5
    first = message[:first_room]
    single = len(message) <= first_room
    out = [struct.pack("<BBBHBII", 0xB1, 0x01 | (0x02 if single else 0), msg_id & 0xFF, 0, kind,
                       len(message), crc) + first]
    offset, sequence = len(first), 1
    while offset < len(message):
        chunk = message[offset:offset + rest_room]
        offset += len(chunk)
        last = 0x02 if offset >= len(message) else 0
        out.append(struct.pack("<BBBH", 0xB1, last, msg_id & 0xFF, sequence & 0xFFFF) + chunk)
        sequence += 1
    return out


class Reassembler:
    """Feeds values in arrival order; complete messages and protocol errors come out as dicts."""

    def __init__(self, limit: int = 1 << 24):
        self.limit = limit
        self.current = None
        self.errors = 0

    def receive(self, value: bytes):
        if len(value) == 4:
            return [{"event": "counter", "value": struct.unpack("<I", value)[0]}]
        if len(value) < 5:
            return self._error(f"truncated header ({len(value)} bytes)")
        marker, flags, msg_id, sequence = struct.unpack("<BBBH", value[:5])
        if marker >> 4 != 0xB:
            return self._error(f"not a relay frame (0x{marker:02x})")
        if marker & 0xF != 1:
            return self._error(f"unsupported version {marker & 0xF}")
        if flags & 0xFC:
            return self._error(f"reserved flags 0x{flags:02x}")
        if flags & 0x01:
            if len(value) < 14:
                return self._error("truncated first header")
            _, _, _, _, kind, length, crc = struct.unpack("<BBBHBII", value[:14])
            events = []
            if self.current is not None:
                events += self._error("interrupted by a new message")
            if kind not in KINDS:
                return events + self._error(f"unknown kind {kind}")
            if sequence != 0:
                return events + self._error(f"first chunk with sequence {sequence}")
            if length > self.limit:
                return events + self._error(f"message too large ({length})")
            payload = value[14:]
            if not payload and not (flags & 0x02 and length == 0):
                return events + self._error("empty payload")
            self.current = {"id": msg_id, "kind": kind, "length": length, "crc": crc,
                            "data": bytearray(payload), "sequence": 0}
            return events + self._check(flags)
        current = self.current
        if current is None or current["id"] != msg_id:
            return self._error(f"unknown message {msg_id}")
        if len(value) == 5:
            return self._error("empty payload")
        if sequence != (current["sequence"] + 1) & 0xFFFF:
            return self._error(f"sequence gap: expected {current['sequence'] + 1}, got {sequence}")
        current["sequence"] = sequence
        current["data"] += value[5:]
        return self._check(flags)

    def _check(self, flags):
        current = self.current
        if len(current["data"]) > current["length"]:
            return self._error("more bytes than declared")
        if not flags & 0x02:
            return []
        self.current = None
        data = bytes(current["data"])
        if len(data) != current["length"]:
            return self._error("last chunk before the declared length")
        if crc32c(data) != current["crc"]:
            return self._error("checksum mismatch")
        return [{"event": "message", "kind": KINDS[current["kind"]], "length": len(data),
                 "sha256": hashlib.sha256(data).hexdigest()}]

    def _error(self, detail):
        self.current = None
        self.errors += 1
        return [{"event": "protocol-error", "detail": detail}]
