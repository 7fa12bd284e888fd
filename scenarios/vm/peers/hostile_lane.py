"""A hostile channel peer for relay-peripheral's L2CAP lane (issue 34): a foreign central
(bleak on --adapter) that finds the relay peripheral and then, by --mode:

    no-read   opens channels to the lane's PSM (given with --psm) without reading the lane
              characteristic over GATT first, --count times: each must be refused;
    garbage   reads the lane characteristic, opens a channel and writes --count values of
              bytes that are not relay's framing on it, the same in every run: the first
              value's length field reads 65535 (above the lane's 8192), the rest is from a
              seeded generator; the channel must be closed, malformed;
    incomplete  reads the lane characteristic, opens a channel and writes one value whose
              length promises 4000 bytes and brings 100, then waits: the channel must be
              closed (malformed) once the value has stayed incomplete for relay's 20 s;
    flood     reads the lane characteristic, then opens and closes --count channels as fast
              as it can;
    trickle   reads the lane characteristic, opens a channel with the smallest receive buffer
              the kernel allows (it grants credits only as the buffer empties), says hello on it
              (its own token, --address), then reads one value every --every seconds for at
              most --wait seconds: the peripheral must not hold anything else back behind it,
              and closes the channel as stalled.

The channel is the kernel's sequenced-packet LE L2CAP socket, bound to the adapter's address
(Python 3.11's socket module cannot name an LE address type, so bind and connect go through
libc with a struct sockaddr_l2). Prints one JSON line: what it did and how each channel ended.
Exit status 0 when it ran through (whatever the peripheral did), 1 when it could not start.
"""
import argparse
import ctypes
import json
import os
import random
import socket
import time
import struct
import subprocess
import sys

from bleak import BleakClient

import article
from bleak_central import find_relay_peripheral

ROLE = "hostile_lane"
LANE_UUID = "abdd3056-28fa-441d-a470-55a75a52553a"
AF_BLUETOOTH, BTPROTO_L2CAP, BDADDR_LE_PUBLIC = 31, 0, 1
libc = ctypes.CDLL(None, use_errno=True)


def sockaddr_l2(address, psm):
    """struct sockaddr_l2 {family, psm, bdaddr (least significant byte first), cid, type}."""
    raw = bytes(int(part, 16) for part in reversed(address.split(":"))) if address else bytes(6)
    return struct.pack("<HH6sHBx", AF_BLUETOOTH, psm, raw, 0, BDADDR_LE_PUBLIC)


def adapter_address(adapter):
    output = subprocess.run(["cat", f"/sys/class/bluetooth/{adapter}/address"], capture_output=True, text=True)
    if output.returncode == 0 and output.stdout.strip():
        return output.stdout.strip().upper()
    return os.environ.get(f"RELAY_VM_{adapter.upper()}_ADDRESS")


def open_channel(local, peer, psm, timeout=5.0, receive_buffer=None):
    """A connected channel socket, or the errno text of why not."""
    sock = socket.socket(AF_BLUETOOTH, socket.SOCK_SEQPACKET, BTPROTO_L2CAP)
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    for call, address in (("bind", sockaddr_l2(local, 0)), ("connect", sockaddr_l2(peer, psm))):
        buffer = ctypes.create_string_buffer(address, len(address))
        function = libc.bind if call == "bind" else libc.connect
        if function(sock.fileno(), buffer, len(address)) != 0:
            error = ctypes.get_errno()
            sock.close()
            return None, f"{call}: {os.strerror(error)}"
    sock.settimeout(timeout)
    return sock, None


def hello(token, address):
    """A protocol-2 hello (docs/protocol.md, "Session frames"), lane-framed."""
    frame = (bytes([0xB2, 1, 2, 0]) + struct.pack("<I", token) + bytes.fromhex(address.replace(":", ""))
             + struct.pack("<IH", 1 << 20, 1))
    return struct.pack("<H", len(frame)) + frame


def trickle(sock, local, every, wait, report):
    """Says hello, then takes one value's worth of bytes every EVERY seconds until the peer
    closes the channel or WAIT seconds pass."""
    sock.send(hello(0x7C1C_7C1C, local))
    started = time.monotonic()
    report["reads"] = 0
    report["bytes_read"] = 0
    while time.monotonic() - started < wait:
        sock.settimeout(every)
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            data = b""
        if not data:
            report["closed_by_peer"] += 1
            report["closed_after"] = round(time.monotonic() - started, 1)
            return
        report["reads"] += 1
        report["bytes_read"] += len(data)
        time.sleep(every)


def ends_closed(sock, seconds=3.0):
    """Whether the peer closes the channel within SECONDS (a read returns nothing or fails)."""
    sock.settimeout(seconds)
    try:
        return sock.recv(4096) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


async def run(options):
    device = await find_relay_peripheral(options.adapter, options.name, options.scan_timeout, ROLE)
    local = adapter_address(options.adapter)
    report = {"mode": options.mode, "opened": 0, "refused": 0, "closed_by_peer": 0, "errors": []}
    async with BleakClient(device, bluez={"adapter": options.adapter}) as client:
        psm = options.psm
        if options.mode != "no-read":
            value = bytes(await client.read_gatt_char(LANE_UUID))
            psm = int.from_bytes(value[:2], "little")  # then the peripheral's token (4 bytes)
        report["psm"] = psm
        for index in range(options.count if options.mode not in ("garbage", "incomplete", "trickle") else 1):
            sock, error = open_channel(local, device.address, psm,
                                       receive_buffer=1 if options.mode == "trickle" else None)
            if sock is None:
                report["refused"] += 1
                report["errors"].append(error)
                continue
            report["opened"] += 1
            wait = 3.0
            if options.mode == "garbage":
                generator = random.Random(34)
                for index in range(options.count):
                    value = bytes(generator.randrange(256) for _ in range(1 + generator.randrange(256)))
                    try:
                        sock.send(b"\xff\xff" + value if index == 0 else value)
                    except OSError as problem:
                        report["errors"].append(f"send: {problem.strerror}")
                        break
            elif options.mode == "incomplete":
                sock.send(struct.pack("<H", 4000) + bytes(100))
                wait = options.wait
            elif options.mode == "trickle":
                print(json.dumps({"event": "trickling", "psm": psm}), flush=True)
                trickle(sock, local, options.every, options.wait, report)
                sock.close()
                continue
            started = time.monotonic()
            if options.mode != "flood" and ends_closed(sock, wait):
                report["closed_by_peer"] += 1
                report["closed_after"] = round(time.monotonic() - started, 1)
            sock.close()
    print(json.dumps(report), flush=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default="hci2")
    parser.add_argument("--name", default=article.LOCAL_NAME)
    parser.add_argument("--scan-timeout", type=float, default=30)
    parser.add_argument("--mode", choices=["no-read", "garbage", "incomplete", "flood", "trickle"], required=True)
    parser.add_argument("--wait", type=float, default=35,
                        help="incomplete, trickle: seconds to wait for the close")
    parser.add_argument("--every", type=float, default=4.9, help="trickle: seconds between reads")
    parser.add_argument("--psm", type=int, default=0x80)
    parser.add_argument("--count", type=int, default=10)
    return article.run_peer(ROLE, run, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
