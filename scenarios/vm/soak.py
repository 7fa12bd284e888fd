#!/usr/bin/env python3
# Soak (issue 8, load 6), inside the bluez-vm guest; run by `make soak` (not part of make test):
#   relay-peripheral (hci0) and relay-central (hci1) each send SOAK_COUNTERS counters (default
#   10000) and SOAK_MESSAGES messages of random sizes from 0 B to SOAK_MAX_BYTES (default 1000
#   and 65536) to the other, interleaved (counters between messages), both directions at once.
#   Checks: every counter arrives once, in order (0..N-1); every message arrives once, in order,
#   with the right SHA-256; no error or dropped event; memory (VmRSS) of both programs flat: the
#   RSS after the last message is at most SOAK_RSS_SLACK_KIB (default 8192) above the RSS sampled
#   once the first hundred messages had arrived.
# The commands reach the programs while they run (a feeder thread per side), each side at most
# SOAK_WINDOW messages (default 4) ahead of what the other side has received (Feeder says why);
# the run ends when both sides have every message and counter, or when nothing arrived for
# SOAK_STALL seconds (default 180), or after SOAK_MAX_SECONDS (default 0: no limit; a run stopped
# early fails with what had arrived), and SOAK_CENTRAL_ARGS adds options to relay-central (e.g.
# `--notify-path socket`); the run always prints its figures (duration, counts
# lost/duplicated/reordered/corrupted each way, RSS samples), also into $out/figures.
# Figures: the run with the figures (20:31, commit 106dc68, relay-central with
# --notify-path signal, the default since) passed in 1420 s with messages of 0-64 KiB (33.3 MB /
# 32.9 MB each way): none lost, duplicated, reordered or corrupted either way; RSS peripheral
# 13 212 KiB at message 100 and 13 212 KiB at the end, central 14 884 / 14 888 KiB. The same run on
# the AcquireNotify socket path (19:55) lost one message to 22 notifications in a row bluetoothd could
# not write: it writes that socket without blocking and drops what does not fit (about 160
# datagrams), and the reader thread of the loaded guest was not scheduled in time (`notify_io_cb()
# sendmsg: Resource temporarily unavailable` x 22 in its log). The earlier 0-16 KiB run (8.3 MB each
# way, unpaced) passed in 1005 s.
# vm-timeout: 7200
import hashlib
import os
import random
import threading
import time

from scenario import OUT, expect, fail, finish, passed, pause, relay, run, vm_rss


def setting(name, default):
    return int(os.environ.get(name, default))


counters, messages = setting("SOAK_COUNTERS", 10000), setting("SOAK_MESSAGES", 1000)
max_bytes, slack = setting("SOAK_MAX_BYTES", 65536), setting("SOAK_RSS_SLACK_KIB", 8192)
stall, limit, window = setting("SOAK_STALL", 180), setting("SOAK_MAX_SECONDS", 0), setting("SOAK_WINDOW", 4)


def make_side(side, counter_command, seed):
    """One side's messages (random bytes, sizes 0, max, then random) in OUT/SIDE/, their SHA-256 in
    order, and its command lines: the counters spread before each send-file, the rest at the end."""
    rng = random.Random(seed)
    folder = f"{OUT}/{side}"
    os.makedirs(folder, exist_ok=True)
    per_message = -(-counters // messages)
    shas, commands, sent, size_total = [], [], 0, 0
    for i in range(messages):
        size = 0 if i == 0 else max_bytes if i == 1 else rng.randint(0, max_bytes)
        data = os.urandom(size)
        with open(f"{folder}/{i}.bin", "wb") as handle:
            handle.write(data)
        shas.append(hashlib.sha256(data).hexdigest())
        size_total += size
        for _ in range(min(per_message, counters - sent)):
            commands.append(counter_command)
            sent += 1
        commands.append(f"send-file {folder}/{i}.bin")
    commands += [counter_command] * (counters - sent)
    return shas, commands, size_total


class Feeder(threading.Thread):
    """Sends one side's commands to its program, at most WINDOW messages ahead: before the line that
    sends message i (counted from 0) it waits until the receiving program has shown at least
    i + 1 - WINDOW `message` events. The counters between messages are not held back; WINDOW 0
    feeds everything at once.

    Why: bluetoothd reads a sender's AcquireWrite/AcquireNotify socket as fast as it is written and
    queues the values in memory without a bound, so "sent" only means "handed to bluetoothd". In
    the test-bed VM, btvirt (the emulated radio) shares a vCPU with bluetoothd, and 33 MB handed
    over in one go each way keeps bluetoothd busy enough that the radio gets almost no time:
    nothing crossed for minutes (run of 2026-11-29 19:13). A bounded window keeps the soak about
    what arrives."""

    def __init__(self, program, commands, receiver):
        super().__init__(name=f"feed-{program.name}", daemon=True)
        self.program, self.commands, self.receiver = program, commands, receiver
        self.halted = threading.Event()

    def run(self):
        sent = 0
        for line in self.commands:
            if self.halted.is_set():
                return
            if line.startswith("send-file "):
                while window > 0 and self.receiver.count("message") < sent + 1 - window:
                    if self.halted.wait(0.2):
                        return
                sent += 1
            try:
                self.program.send(line)
            except OSError:
                return


def order_breaks(values):
    return sum(1 for a, b in zip(values, values[1:]) if b <= a)


def check(name, receiver, sent):
    """One direction: (its figures line, everything arrived once, in order, intact, and nothing
    reported dropped or an error)."""
    position = {}
    for index, digest in enumerate(sent):
        position.setdefault(digest, index)
    values = [int(event["value"]) for event in receiver.select("counter")]
    digests = [event["sha256"] for event in receiver.select("message")]
    dropped, errors = receiver.count("dropped"), receiver.count("error")
    known = [position[d] for d in digests if d in position]
    line = (f"{name}: counters {len(values)}/{counters} (lost {len(set(range(counters)) - set(values))}, "
            f"duplicated {len(values) - len(set(values))}, out of order {order_breaks(values)}); messages "
            f"{len(digests)}/{len(sent)} (lost {len(set(range(len(sent))) - set(known))}, duplicated "
            f"{len(known) - len(set(known))}, out of order {order_breaks(known)}, corrupted "
            f"{sum(1 for d in digests if d not in position)}); reported dropped {dropped}, errors {errors}")
    return line, values == list(range(counters)) and digests == sent and dropped == 0 and errors == 0


p_shas, p_commands, bytes_p = make_side("p", "notify", 1)
c_shas, c_commands, bytes_c = make_side("c", "write", 2)

central = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--max-message", "1048576",
                "--connect", "sample", *os.environ.get("SOAK_CENTRAL_ARGS", "").split())
expect(central, "scanning", "the central never scanned", timeout=30)
peripheral = relay("peripheral", "relay-peripheral", "--adapter", "hci0", "--max-message", "1048576")
peripheral.send("start")
expect(central, "ready", "the central never became ready", timeout=120)
expect(peripheral, "subscribed", "the peripheral saw no subscription", timeout=30)

# bluetoothd runs SCHED_FIFO on btvirt's vCPU (scripts/vm/guest-bluetooth: needed while links
# are set up). Under a sustained load it is never idle (both programs hand it values as fast as it
# reads their sockets), so btvirt, the virtual radio, gets only the kernel's 5 % real-time
# throttle: on the first full-size run 3500 values each way were handed to bluetoothd and none
# crossed in 180 s. With the link up, the soak puts bluetoothd back on normal scheduling
# (SOAK_KEEP_FIFO=1 keeps it, to see the stall).
if os.environ.get("SOAK_KEEP_FIFO", "0") != "1":
    status, pids = run(["pidof", "bluetoothd"])
    if status != 0 or run(["chrt", "-o", "-a", "-p", "0", pids.split()[0]])[0] != 0:
        fail("cannot put bluetoothd back on normal scheduling")
started_at = time.monotonic()
feeders = [Feeder(peripheral, p_commands, central), Feeder(central, c_commands, peripheral)]
for feeder in feeders:
    feeder.start()
# RSS samples: seconds, messages and counters received by each, RSS of each (KiB).
samples = ["# seconds messages@p messages@c counters@p counters@c rss-p rss-c"]
stopped = ""
early_p = early_c = late_p = late_c = None
progress, last_change = None, started_at
while peripheral.running() and central.running():
    mp, mc = peripheral.count("message"), central.count("message")
    kp, kc = peripheral.count("counter"), central.count("counter")
    rp, rc = vm_rss(peripheral) or 0, vm_rss(central) or 0
    now = time.monotonic()
    samples.append(f"{now - started_at:.0f} {mp} {mc} {kp} {kc} {rp} {rc}")
    if early_p is None and mp >= 100:
        early_p = rp
    if early_c is None and mc >= 100:
        early_c = rc
    late_p, late_c = rp, rc
    if mp >= messages and mc >= messages and kp >= counters and kc >= counters:
        break
    if limit > 0 and now - started_at >= limit:
        stopped = f"soak: time limit of {limit} s reached; stopping"
        break
    if progress != (mp, mc, kp, kc):
        progress, last_change = (mp, mc, kp, kc), now
    elif now - last_change >= stall:
        stopped = f"soak: nothing arrived for {stall} s; stopping"
        break
    pause(5)
elapsed = time.monotonic() - started_at
for feeder in feeders:
    feeder.halted.set()
with open(f"{OUT}/rss", "w") as handle:
    handle.write("\n".join(samples + ([stopped] if stopped else [])) + "\n")
if peripheral.count("message") >= messages and central.count("message") >= messages:
    pause(3)
    for program in (central, peripheral):
        try:
            program.send("quit")
        except OSError:
            pass
        program.close_input()
    finish(central, 60)
    finish(peripheral, 60)
else:  # stalled: quit would wait for the values still queued
    central.terminate()
    peripheral.terminate()

line_p, good_p = check("central->peripheral", peripheral, c_shas)
line_c, good_c = check("peripheral->central", central, p_shas)
reports = [event.text for program in (peripheral, central) for event in program.select()
           if event.name in ("error", "dropped")][:5]
figures = [f"soak: {counters} counters and {messages} messages (0-{max_bytes} B) each way, {elapsed:.0f}s",
           f"bytes: central->peripheral {bytes_c}, peripheral->central {bytes_p}",
           *([stopped] if stopped else []), line_p, line_c,
           f"RSS peripheral: {early_p or '?'} KiB after 100 messages, {late_p or '?'} KiB at the end",
           f"RSS central:    {early_c or '?'} KiB after 100 messages, {late_c or '?'} KiB at the end", *reports]
print("\n".join(figures), flush=True)
with open(f"{OUT}/figures", "w") as handle:
    handle.write("\n".join(figures) + "\n")
if not (good_p and good_c):
    fail("lost, duplicated, reordered or corrupted values, or errors reported (figures above)")
if early_p is None or early_c is None:
    fail("fewer than 100 messages: no early RSS sample")
if late_p > early_p + slack:
    fail(f"the peripheral's RSS grew from {early_p} to {late_p} KiB")
if late_c > early_c + slack:
    fail(f"the central's RSS grew from {early_c} to {late_c} KiB")
passed()
