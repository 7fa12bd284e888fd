"""A local process that takes relay-peripheral's L2CAP lane before it starts (issue 46, item 2):

    psm_squatter.py --adapter hci0 --psm 128 [--bind adapter|any] [--seconds 180]

Drops to the user nobody (uid and gid 65534, no supplementary groups: no capability left), then
binds the PSM on the adapter's own address (--bind adapter, the default) or on every adapter's
(any: BDADDR_ANY) and listens. The kernel hands an incoming channel to
the oldest listening socket that matches, so a relay-peripheral started after it (listening on
every adapter) loses every central's channel to it. It prints {"event":"listening"} once it
listens. On each
channel it takes it reads the central's hello and answers with a welcome that names the hello's
own central token (all a central used to check) and a peripheral token of its own (it cannot read
relay-peripheral's lane characteristic), then reads whatever comes and acknowledges nothing.
Prints one JSON line when it ends ({"event":"squatter"}, on SIGTERM or after --seconds): channels
taken, hellos read, welcomes sent, other values read and their bytes. Exit status 0, or 1 when it
could not listen.
"""
import argparse
import ctypes
import json
import os
import select
import signal
import socket
import struct
import sys
import time

AF_BLUETOOTH, BTPROTO_L2CAP, BDADDR_LE_PUBLIC = 31, 0, 1
MARKER, HELLO, WELCOME = 0xB2, 1, 2
SQUATTER_TOKEN = 0x0BAD_BEEF
libc = ctypes.CDLL(None, use_errno=True)


def sockaddr_l2(address, psm):
    """struct sockaddr_l2 {family, psm, bdaddr (least significant byte first), cid, type}."""
    raw = bytes(int(part, 16) for part in reversed(address.split(":")))
    return struct.pack("<HH6sHBx", AF_BLUETOOTH, psm, raw, 0, BDADDR_LE_PUBLIC)


def lane_values(buffer):
    """The whole lane values in BUFFER (2-byte length, then the value) and what is left."""
    values = []
    while len(buffer) >= 2:
        length = int.from_bytes(buffer[:2], "little")
        if len(buffer) < 2 + length:
            break
        values.append(buffer[2:2 + length])
        buffer = buffer[2 + length:]
    return values, buffer


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default="hci0")
    parser.add_argument("--psm", type=int, default=0x80)
    parser.add_argument("--bind", choices=["adapter", "any"], default="adapter")
    parser.add_argument("--seconds", type=float, default=180)
    options = parser.parse_args()
    # The test bed names each controller's address (the kernel's sysfs does not show it).
    address = os.environ.get(f"RELAY_VM_{options.adapter.upper()}_ADDRESS", "").upper()
    if not address:
        print(json.dumps({"event": "squatter", "error": f"no address for {options.adapter}"}), flush=True)
        return 1
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    report = {"event": "squatter", "uid": os.getuid(), "psm": options.psm, "address": address, "channels": 0, "hellos": 0,
              "welcomes": 0, "values": 0, "bytes": 0}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    listener = socket.socket(AF_BLUETOOTH, socket.SOCK_SEQPACKET, BTPROTO_L2CAP)
    name = sockaddr_l2(address if options.bind == "adapter" else "00:00:00:00:00:00", options.psm)
    buffer = ctypes.create_string_buffer(name, len(name))
    if libc.bind(listener.fileno(), buffer, len(name)) != 0 or libc.listen(listener.fileno(), 8) != 0:
        report["error"] = os.strerror(ctypes.get_errno())
        print(json.dumps(report), flush=True)
        return 1
    print(json.dumps({"event": "listening", "uid": os.getuid(), "psm": options.psm}), flush=True)
    channels = {}
    deadline = time.monotonic() + options.seconds
    while not stop and time.monotonic() < deadline:
        readable, _, _ = select.select([listener, *channels], [], [], 0.5)
        for sock in readable:
            if sock is listener:
                fd = libc.accept(listener.fileno(), None, None)
                if fd >= 0:
                    channels[socket.socket(fileno=fd)] = b""
                    report["channels"] += 1
                continue
            try:
                data = sock.recv(65535)
            except OSError:
                data = b""
            if not data:
                channels.pop(sock)
                sock.close()
                continue
            values, channels[sock] = lane_values(channels[sock] + data)
            for value in values:
                if len(value) >= 8 and value[0] == MARKER and value[1] == HELLO:
                    report["hellos"] += 1
                    central = int.from_bytes(value[4:8], "little")
                    welcome = bytes([MARKER, WELCOME, value[2], 1]) + struct.pack(
                        "<IIIH", central, SQUATTER_TOKEN, 65536, 1)
                    try:
                        sock.send(struct.pack("<H", len(welcome)) + welcome)
                        report["welcomes"] += 1
                    except OSError:
                        pass
                else:
                    report["values"] += 1
                    report["bytes"] += len(value)
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
