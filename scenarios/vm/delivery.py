"""The protocol-2 delivery scenarios' helpers (scenarios/vm/scenario-delivery-*.py), beside
scenario.py and faults.py inside the bluez-vm guest. A status is a program's answer to `status`
(scenario.status_of); its `delivery` object holds sentBytes and resentBytes.
    check_sent_bound STATUS STREAM WINDOW WHO   sentBytes of a status within STREAM + 2 windows
    quit_or_fail PROGRAM WHO SECONDS    `quit`, and the program must exit 0
    start_peripheral NAME REASON ARGS   relay-peripheral on hci0, told `start`, advertising
    check_received / check_resumed / check_none_failed   the checks after a delivery both ways
    wait_file_line PATH PATTERN SECONDS a plain log file (bluetoothd.log) read as it grows
"""
import os
import re
import signal
import time

from scenario import expect, fail, joined, pause, relay, values


def delivery_of(status):
    """The `delivery` object of a status event, or the scenario fails."""
    delivery = status.get("delivery")
    if not isinstance(delivery, dict):
        fail(f"no delivery in the status: {status.text[:300]}")
    return delivery


def check_sent_bound(status, stream, window, who):
    """Fails unless sentBytes of STATUS is at most STREAM + 2 WINDOWs; prints the figures."""
    delivery = delivery_of(status)
    sent = delivery["sentBytes"]
    if sent > stream + 2 * window:
        fail(f"{who} sent {sent} stream bytes for {stream}: more than two windows ({window}) over")
    print(f"{who} sent {sent} stream bytes for a stream of {stream} ({delivery['resentBytes']} again)", flush=True)


def exit_text(status):
    """An exit status as bash shows it (128 + N for a program ended by signal N)."""
    if status is not None and status < 0:
        return str(128 - status) + f" ({signal.Signals(-status).name})"
    return str(status)


def quit_or_fail(program, who, seconds):
    """`quit` to PROGRAM (stdin closed), waited for SECONDS (then SIGTERM); the scenario fails
    with `WHO exited STATUS` unless it exited 0."""
    status = program.stop("quit", timeout=seconds)
    if status != 0:
        fail(f"{who} exited {exit_text(status)}")


def start_peripheral(name, reason, *arguments):
    """relay-peripheral on hci0 (more ARGUMENTS), told `start`; returns once it advertises
    (60 s), or the scenario fails with REASON."""
    peripheral = relay(name, "relay-peripheral", "--adapter", "hci0", *arguments)
    peripheral.send("start")
    expect(peripheral, "advertising", reason, timeout=60)
    return peripheral


def check_received(central, peripheral, central_sent, peripheral_sent):
    """Each side received exactly the one message the other sent (SHA-256 of what each sent)."""
    got = values(peripheral, "message", "sha256")
    if got != [central_sent]:
        fail(f"the peripheral got '{joined(got)}'")
    got = values(central, "message", "sha256")
    if got != [peripheral_sent]:
        fail(f"the central got '{joined(got)}'")


def resumed_offset(program):
    """The offset of PROGRAM's first `resumed` event; None without one."""
    offsets = values(program, "resumed", "offset")
    return offsets[0] if offsets else None


def check_resumed(program, who):
    """Fails unless PROGRAM resumed (its first `resumed`) from an offset above 0; the offset."""
    offset = resumed_offset(program)
    if not (offset or 0) > 0:
        fail(f"{who} resumed from offset '{'none' if offset is None else offset}', expected above 0")
    return offset


def check_none_failed(central, peripheral):
    if central.count("failed") or peripheral.count("failed"):
        fail("a message failed")


def wait_file_line(path, pattern, seconds):
    """Until a line of the text file PATH (which may not exist yet) matches PATTERN: True, or
    False after SECONDS. Reads only what is new at each look (every 0.1 s)."""
    expression = re.compile(pattern)
    deadline = time.monotonic() + seconds
    handle, partial = None, ""
    try:
        while True:
            if handle is None and os.path.exists(path):
                handle = open(path, encoding="utf-8", errors="replace")
            if handle is not None:
                for line in (partial + handle.read()).splitlines(keepends=True):
                    if not line.endswith("\n"):
                        partial = line  # completed at the next look
                        break
                    partial = ""
                    if expression.search(line):
                        return True
            if time.monotonic() >= deadline:
                return False
            pause(0.1)
    finally:
        if handle is not None:
            handle.close()
