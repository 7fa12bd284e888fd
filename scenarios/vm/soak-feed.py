#!/usr/bin/env python3
"""Feeds one side's soak commands (scenarios/vm/soak.sh) to its program, at most WINDOW messages ahead.

usage: soak-feed.py COMMANDS RECEIVER_OUTPUT WINDOW

Writes the lines of COMMANDS to stdout (the program's command FIFO). Before the line that sends
message i (`send-file .../<i>.bin`, counted from 0), it waits until the receiving program's JSON
output (RECEIVER_OUTPUT) holds at least i + 1 - WINDOW `message` events: at most WINDOW of this
side's messages are on their way at once. The counters between messages are not held back.
WINDOW 0 feeds everything at once.

Why: bluetoothd reads a sender's AcquireWrite/AcquireNotify socket as fast as it is written and
queues the values in memory without a bound, so "sent" only means "handed to bluetoothd". In the
test-bed VM, btvirt (the emulated radio) shares a vCPU with bluetoothd, and 33 MB handed over in
one go each way keeps bluetoothd busy enough that the radio gets almost no time: nothing crossed
for minutes (run of 2026-11-29 19:13). A bounded window keeps the soak about what arrives.
"""
import os
import sys
import time

commands_path, receiver_path, window = sys.argv[1], sys.argv[2], int(sys.argv[3])


class Counter:
    """Counts `"event":"message"` lines of a growing file, reading only what is new."""

    def __init__(self, path):
        self.path, self.offset, self.partial, self.count = path, 0, b"", 0

    def update(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return self.count
        self.offset += len(data)
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        self.count += sum(1 for line in lines if b'"event":"message"' in line)
        return self.count


received = Counter(receiver_path)
out = sys.stdout
sent = 0
with open(commands_path) as commands:
    for line in commands:
        if line.startswith("send-file ") and window > 0:
            out.flush()
            while received.update() < sent + 1 - window:
                time.sleep(0.2)
        if line.startswith("send-file "):
            sent += 1
        out.write(line)
out.flush()
