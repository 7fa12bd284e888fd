#!/usr/bin/env python3
# relay-central --nus against Nordic UART Service devices (issue 18), inside the bluez-vm guest:
#   1. A micro:bit-style device (scenarios/vm/peers/microbit_uart.py, bless, hci2): swapped RX/TX
#      (6E400002 indicates, 6E400003 takes writes), no UART service in its advertisement. relay-central
#      (hci1) started with --nus --connect "BBC micro:bit [zavit]" finds it by name, takes the
#      writable characteristic as RX and subscribes to the indicating one: its greeting arrives as a
#      line ("via":"nus"); `send` of a short line and of 2 KiB of multi-byte text reach it as values of
#      at most MTU-3 bytes, each valid UTF-8, with LF, and its echoes (indications of 20 bytes) come
#      back as whole lines. `write` and `send-file` are refused in one line.
#   2. relay-peripheral (hci0) as the UART device: `connect --nus ADDRESS`; the central's line is a
#      message "via":"nus" on the peripheral, listed apart in its status; the peripheral's `send`
#      reaches the central as a line.
# On BlueZ 5.82 the micro:bit emulator advertised without the discoverable flag (bless leaves the
# advertisement's Discoverable unset, and from 5.7x the flag then follows the adapter's), so
# relay-central's discovery by name saw the device but never its name: it makes its adapter
# discoverable first, as a real micro:bit advertises.
# vm-controllers: 3
# vm-timeout: 300
import json
import os
import re
import signal

from relay_driver import parse_line
from scenario import OUT, expect, expect_text, fail, finish, passed, peer, relay, tail, values

text = ("räksmörgås 写真 🙂 " * 80).removesuffix(" ")  # the REPL takes `send`'s text without trailing blanks

microbit = peer("microbit", "microbit_uart.py", "--adapter", "hci2", "--timeout", "250")
expect_text(microbit, "advertising", "the micro:bit emulator did not advertise", timeout=60)
c = relay("central", "relay-central", "--nus", "--adapter", "hci1", "--scan-timeout", "60", "--connect",
          "BBC micro:bit [zavit]")
expect(c, "ready", lambda: f"relay-central --nus is not ready: {tail(c, 3)}", timeout=90, service="nus")
mtu = (values(c, "ready", "mtu") or [None])[0]
if values(c, "ready", "notify")[:1] != ["signal"]:
    fail("an indicating TX is not subscribed with StartNotify")
expect(c, "message", "the micro:bit's greeting did not arrive as a line", timeout=30, text="hello from micro:bit",
       via="nus")
c.send("send hello micro:bit")
c.send(f"send {text}")
c.send("write")
with open(f"{OUT}/small.txt", "w") as handle:
    handle.write("not text for a UART\n")
c.send(f"send-file {OUT}/small.txt")
expect(c, "message", lambda: f"the echoes did not arrive: {tail(c, 3)}", timeout=120, count=3, via="nus")
c.send("disconnect")
expect(c, "disconnected", "relay-central did not disconnect from the micro:bit", timeout=30)
microbit.signal(signal.SIGTERM)
if finish(microbit, 15) != 0:
    fail(f"the micro:bit emulator failed: {tail(microbit, 3)}")
got = values(c, "message", "text")
if got != ["hello from micro:bit", "echo: hello micro:bit", f"echo: {text}"]:
    fail(f"lines from the micro:bit: {'|'.join(got)}")
# Its last JSON line (its stderr lines, merged into its output, are text): the report it prints when it stops.
report = next(filter(None, map(parse_line, reversed(microbit.lines()))), None)
try:
    right = (report["lines"] == ["hello micro:bit", text] and report["valid_utf8_values"] == report["values"]
             and report["max_value"] <= mtu - 3)
except (KeyError, TypeError):
    right = False
if not right:
    figures = {key: value for key, value in (report or {}).items() if key != "lines"}
    fail(f"the micro:bit did not get the text right: {figures}")
print(f"micro:bit: {report['values']} writes of at most {report['max_value']} bytes at MTU {mtu}, "
      f"each valid UTF-8; {report['indications']} indications back in all", flush=True)
if c.count("sent", via="nus") != 2:
    fail("relay-central did not report both texts sent")
errors = values(c, "error", "message")
if not any(message.startswith("write: a UART device takes lines of text") for message in errors):
    fail(f"write was not refused: {' | '.join(errors)}")
if not any(re.match(r"send-file: .*lines of text", message) for message in errors):
    fail(f"send-file was not refused: {' | '.join(errors)}")

# 2. relay-peripheral as the UART device.
p = relay("peripheral", "relay-peripheral", "--adapter", "hci0")
p.send("start")
expect(p, "advertising", "relay-peripheral did not advertise", timeout=60)
c.send(f"connect --nus {os.environ.get('RELAY_VM_HCI0_ADDRESS') or '00:AA:01:00:00:00'}")
expect(c, "ready", "relay-central --nus is not ready with relay-peripheral", timeout=90, count=2, service="nus")
c.send("send hello over nus")
expect(p, "message", lambda: f"relay-peripheral did not get the line: {tail(p, 3)}", timeout=30,
          text="hello over nus", via="nus")
p.send("send héllo central")
expect(c, "message", "relay-central did not get the peripheral's line", timeout=30, count=4, via="nus")
if values(c, "message", "text")[-1:] != ["héllo central"]:
    fail("the peripheral's line differs")
p.send("status")
expect(p, "status", "no status", timeout=10)
status = p.select("status")[-1]
try:
    right = (status["centrals"] == [] and status["nus"]["lines"] == 1
             and (os.environ.get("RELAY_VM_HCI1_ADDRESS") or "00:AA:01:01:00:01") in json.dumps(status["nus"]))
except (KeyError, TypeError):
    right = False
if not right:
    fail(f"status is not right: centrals {status.get('centrals')}, nus {status.get('nus')}")
central_status = c.stop("quit", timeout=30)
if central_status != 1:
    fail(f"relay-central exited {central_status} (1 expected: write and send-file were refused)")
peripheral_status = p.stop("quit", timeout=30)
if peripheral_status != 0:
    fail(f"relay-peripheral exited {peripheral_status}")
passed()
