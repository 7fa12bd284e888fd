"""What the original iOS/watchOS demo apps agree on: the GATT UUIDs and the counter codec.

Shared by the third-party peers in this folder (the scenarios and benchmarks/ble use them).
"""
import asyncio
import hashlib
import json
import struct
import sys
import time

SERVICE_UUID = "6b5c4a86-cfb7-4031-98eb-09df5e2543f0"
# Written by the central (read, write-without-response).
WRITE_UUID = "4551abae-ce14-4f9e-b31a-e61fc372e480"
# Notified by the peripheral (read, notify).
NOTIFY_UUID = "dfb13451-1740-4f8a-b0f0-7c20d79e8bdf"
LOCAL_NAME = "sample"

# BlueZ 5.66 silently drops write commands of 511-514 bytes at MTU 517 (its length check
# counts the 2 handle bytes against 512), so a value carries at most this many bytes.
MAX_VALUE_LENGTH = 510


async def add_relay_service(server) -> None:
    """Adds the article's service and its two characteristics to a bless server."""
    from bless import GATTAttributePermissions, GATTCharacteristicProperties

    await server.add_new_service(SERVICE_UUID)
    await server.add_new_characteristic(
        SERVICE_UUID, WRITE_UUID,
        GATTCharacteristicProperties.read | GATTCharacteristicProperties.write_without_response,
        None, GATTAttributePermissions.readable | GATTAttributePermissions.writeable)
    await server.add_new_characteristic(
        SERVICE_UUID, NOTIFY_UUID,
        GATTCharacteristicProperties.read | GATTCharacteristicProperties.notify,
        None, GATTAttributePermissions.readable)


async def serve(server, role: str, options, on_write, on_subscribe, on_read=None) -> None:
    """Starts a bless server whose services are added: reads answer the characteristic's value
    (or `on_read`), writes go to `on_write`, each StartNotify calls `on_subscribe` on the loop;
    logs the advertising line (options: `adapter`, `name`)."""
    import asyncio

    server.read_request_func = on_read or (lambda characteristic, **_: characteristic.value or b"")
    server.write_request_func = on_write
    await server.setup_task
    loop = asyncio.get_running_loop()
    server.app.StartNotify = lambda _: loop.call_soon(on_subscribe)
    await server.start()
    log(role, f"advertising on {options.adapter} as '{options.name}'")


def encode_counter(value: int) -> bytes:
    """A counter on the wire: a bare 4-byte little-endian UInt32."""
    return struct.pack("<I", value & 0xFFFFFFFF)


def decode_counter(data: bytes) -> int:
    """The UInt32 in a 4-byte value; ValueError for any other length."""
    if len(data) != 4:
        raise ValueError(f"a counter is 4 bytes, got {len(data)}")
    return struct.unpack("<I", bytes(data))[0]


def chunk_length(mtu: int) -> int:
    """Raw chunk size at an ATT MTU: MTU-3, capped at what BlueZ delivers."""
    return max(1, min(mtu - 3, MAX_VALUE_LENGTH))


def log(role: str, message: str) -> None:
    """A progress line on stderr, e.g. `bless_peripheral: advertising on hci0`."""
    print(f"{role}: {message}", file=sys.stderr, flush=True)


class ByteCounter:
    """Counts raw bytes as they arrive and reports goodput from first to last byte."""

    def __init__(self, expected: int):
        self.expected = expected
        self.received = 0
        self.digest = hashlib.sha256()
        self.first = None
        self.last = None

    def add(self, data: bytes) -> bool:
        """Adds a chunk; True once the expected count has arrived."""
        now = time.monotonic()
        if self.first is None:
            self.first = now
        self.last = now
        self.received += len(data)
        self.digest.update(data)
        return self.received >= self.expected

    def report(self, role: str, **extra) -> str:
        seconds = (self.last - self.first) if self.first is not None else 0.0
        return json.dumps({
            "role": role, "direction": "received", "bytes": self.received,
            "seconds": round(seconds, 6),
            "goodput_bytes_per_second": round(self.received / seconds, 1) if seconds > 0 else None,
            "sha256": self.digest.hexdigest(), **extra})


def send_report(role: str, data: bytes, seconds: float, **extra) -> str:
    """The JSON line a sender prints after sending `data` raw."""
    return json.dumps({
        "role": role, "direction": "sent", "bytes": len(data), "seconds": round(seconds, 6),
        "goodput_bytes_per_second": round(len(data) / seconds, 1) if seconds > 0 else None,
        "sha256": hashlib.sha256(data).hexdigest(), **extra})


def run_peer(role: str, run, options) -> int:
    """Runs the coroutine function RUN(OPTIONS) to its end: its exit status, or 1 with the
    peer's one `failed` line when it raised."""
    try:
        return asyncio.run(run(options))
    except Exception as problem:  # noqa: BLE001 - reported as the peer's one line
        log(role, f"failed: {problem!r}")
        return 1
