"""Values for the hostile peers (hostile_central.py, hostile_peripheral.py, issue 8 item 7): the
garbage they send and the honest relay frames they send in between (docs/protocol.md), written
here independently of the Swift codec so the test does not check the codec against itself.
"""
import os
import random
import struct

MARKER = 0xB1  # high nibble 0xB: a relay frame; low nibble: version 1


def _crc32c_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli); crc32c(b"123456789") == 0xE3069283."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _CRC_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def frame_first(msg_id, length, crc, payload, flags=0x01, kind=2, version=MARKER):
    return struct.pack("<BBBHBII", version, flags, msg_id, 0, kind, length, crc) + payload


def frame_next(msg_id, sequence, payload, flags=0x00):
    return struct.pack("<BBBH", MARKER, flags, msg_id, sequence) + payload


def honest_frames(message_id: int, data: bytes, chunk: int):
    """The frames of one binary message, every value at most `chunk` bytes."""
    first_room, next_room = chunk - 14, chunk - 5
    head, rest = data[:first_room], data[first_room:]
    frames = [frame_first(message_id, len(data), crc32c(data), head, flags=0x01 | (0x02 if not rest else 0))]
    sequence = 0
    while rest:
        sequence = (sequence + 1) & 0xFFFF
        piece, rest = rest[:next_room], rest[next_room:]
        frames.append(frame_next(message_id, sequence, piece, flags=0x02 if not rest else 0x00))
    return frames


def garbage(index: int, chunk: int):
    """The index-th hostile value (never 4 bytes long, which would be a counter) and its sort."""
    sort = index % 9
    rng = random.Random(index)
    if sort == 0:
        length = rng.choice([1, 2, 3, 5, 6, 13, 100, chunk])
        value = ("random", os.urandom(length))
    elif sort == 1:
        value = ("truncated", bytes([MARKER, 0x01]) + os.urandom(rng.randint(0, 9)))
    elif sort == 2:
        claimed = rng.choice([0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 1 << 30, 1 << 20 | 1])
        value = ("lying-length", frame_first(rng.randint(0, 255), claimed, rng.getrandbits(32), os.urandom(chunk - 14)))
    elif sort == 3:
        payload = os.urandom(rng.randint(1, chunk - 14))
        value = ("wrong-crc", frame_first(rng.randint(0, 255), len(payload), rng.getrandbits(32), payload, flags=0x03))
    elif sort == 4:
        value = ("interleaved-first", frame_first(index % 256, 5000, 0, os.urandom(chunk - 14)))
    elif sort == 5:
        value = ("interleaved-next", frame_next((index + 128) % 256, rng.randint(1, 3), os.urandom(chunk - 5)))
    elif sort == 6:
        value = ("reserved-flags", frame_next(1, 1, os.urandom(20), flags=0xFC))
    elif sort == 7:
        value = ("unknown-kind", frame_first(1, 10, 0, os.urandom(10), flags=0x03, kind=0x7F))
    else:
        value = ("bad-version", frame_first(1, 10, 0, os.urandom(10), flags=0x03, version=0xB9))
    sort, data = value
    data = data[:chunk]
    if len(data) == 4:
        data += b"\x00"
    return sort, data


def fresh_first(index: int, chunk: int):
    """A first frame of a new message (id index % 256, claiming 5000 bytes, within any sane limit)
    that never continues: each one interrupts the previous. A run of them tests that the receiver's
    progress lines (`receiving`) cannot be driven at the sender's pace."""
    return frame_first(index % 256, 5000, 0, os.urandom(chunk - 14))


def honest_sizes(count: int, max_bytes: int, seed: int):
    """Sizes of the honest messages: 0 first, then random up to max_bytes."""
    rng = random.Random(seed)
    return [0 if i == 0 else rng.randint(1, max_bytes) for i in range(count)]
