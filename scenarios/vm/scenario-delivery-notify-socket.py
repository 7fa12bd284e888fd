#!/usr/bin/env python3
# Protocol 2 (issue 15, test 3), inside the bluez-vm guest: relay-central on the AcquireNotify
# path (--notify-path socket) under a flood that makes bluetoothd drop notifications. bluetoothd
# writes that socket without blocking and drops what does not fit; with a window large enough
# (1 MiB here, both sides, and --flight 60 so that the flight is not kept to half a second of the
# rate) and the central held still (SIGSTOP: its reader thread not scheduled, as on a loaded
# machine) until bluetoothd logs its first drop (at most 10 s), the peripheral's notifications
# overflow it and bluetoothd logs the drops ("sendmsg: Resource temporarily unavailable"). Every message must still be
# delivered intact: the lost frames are sent again.
# A run: bluetoothd dropped 39 notifications, 20 855 bytes were sent again, 4 of 4 messages of
# 256 KiB delivered.
# vm-controllers: 2
# vm-timeout: 360
import signal

from delivery import delivery_of, quit_or_fail, wait_file_line
from scenario import (OUT, expect, fail, file_lines, joined, passed, random_file, relay, status_of, values,
                      wait_progress)

DROP = "sendmsg: Resource temporarily unavailable"
bluetoothd_log = f"{OUT}/bluetoothd.log"
expected = [random_file(f"{OUT}/m{index}.bin", 262144) for index in (1, 2, 3, 4)]

c = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample",
          "--notify-path", "socket", "--window", "1M", "--lane", "gatt")
expect(c, "scanning", "the central never scanned", timeout=30)
p = relay("peripheral", "relay-peripheral", "--adapter", "hci0", "--window", "1M", "--flight", "60", "--lane", "gatt")
p.send("start")
expect(c, "ready", lambda: "the central is not ready on the notification socket with protocol 2: "
       + " | ".join(c.lines('"event":"ready"')), timeout=60, notify="socket", service="relay", protocol=2)

for index in (1, 2, 3, 4):
    p.send(f"send-file {OUT}/m{index}.bin")
if wait_progress(c, "in", 30000, timeout=120) is None:
    fail("the peripheral's messages did not get going")
c.signal(signal.SIGSTOP)
# Held until bluetoothd's notification socket to it overflows (at most 10 s; checked below).
wait_file_line(bluetoothd_log, DROP, 10)
c.signal(signal.SIGCONT)
expect(p, "delivered", lambda: f"not every message was delivered: {p.count('delivered')} of 4", timeout=240, count=4)
status = status_of(p)
quit_or_fail(c, "relay-central", 60)
quit_or_fail(p, "relay-peripheral", 60)

drops = len(file_lines(bluetoothd_log, DROP))
if not drops > 0:
    fail("bluetoothd dropped no notification: the flood did not overflow the socket")
got = values(c, "message", "sha256")
if got != expected:
    fail(f"the central got '{joined(got)}'")
resent = delivery_of(status)["resentBytes"]
if not resent > 0:
    fail(f"nothing was sent again although bluetoothd dropped {drops} notifications")
passed(f"bluetoothd dropped {drops} notifications; {resent} bytes sent again; 4 of 4 delivered")
