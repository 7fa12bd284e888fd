#!/usr/bin/env python3
# The Nordic UART Service for phone UART apps (issue 18), inside the bluez-vm guest:
# relay-peripheral (hci0) serves it next to the relay service while relay-central (hci1) is
# connected; emulated phone apps (scenarios/vm/peers/uart_phone.py, hci2) find it by name, check
# NUS and its properties, and write lines:
#   nRF Toolbox for Android (write without response in MTU-3 chunks, LF), then for iOS (one write
#   with response per line of up to 512 bytes, a long write past MTU-3, CRLF), then Bluefruit Connect (chunks of the
#   largest write-without-response value, LF). Every line arrives once as a `message` with
#   "via":"nus", multi-byte characters and lines longer than one write intact.
#   Then `send` of 2 KiB of multi-byte text reaches the first phone as UTF-8 values of at most
#   MTU-5 bytes, each valid on its own, with LF; the relay central gets the same text as a
#   delivered relay message. `status` lists the UART apps apart from the relay central.
# scenario-nus-mtu23.py runs the same at ATT MTU 23.
# Seven lines in all; Android's chunks are min(MTU-3, 512) bytes. On BlueZ 5.66 bluetoothd itself
# drops writes of 511-514 bytes, which the apps send for text longer than that at MTU 517 (docs/cli.md).
# vm-controllers: 3
# vm-timeout: 300
import os
import re

from peer_output import report_of
from scenario import err_tail, expect, fail, finish, joined, passed, peer, relay, values


def main(nus_mtu):
    """The scenario; NUS_MTU ("517" or "23", as the air's ATT MTU) chooses the long line."""
    p = relay("peripheral", "relay-peripheral", "--adapter", "hci0")
    p.send("start")
    expect(p, "advertising", "relay-peripheral did not advertise", timeout=60)
    c = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample")
    expect(c, "ready", "relay-central is not ready with protocol 2", timeout=90, protocol=2)

    # At MTU 23 a long line crosses 34 writes. At MTU 517 it stays within 510 bytes: bluetoothd 5.66
    # drops every write of 511-514 bytes (fixed in 5.69), and the apps cut long text at 512 (nRF
    # Toolbox for Android) or MTU-3 = 514 (Bluefruit), so on 5.66 a longer line loses those pieces
    # before relay sees them (docs/cli.md says so).
    if nus_mtu == "23":
        long = "line longer than one write " * 25
    else:
        long = "a line of one write " * 20
    # A write request holds at most 512 bytes (an attribute value's limit; iOS refuses more too):
    # 300 bytes are one write at MTU 517 and a long write at MTU 23.
    request = "one write request " * 16
    text = ("räksmörgås 写真 🙂 " * 80).removesuffix(" ")  # the REPL takes `send`'s text without trailing blanks
    size = len(text.encode()) + 1
    expected_lines = 0

    def run_phone(app, expect_bytes, *lines):
        nonlocal expected_lines
        arguments = [word for line in lines for word in ("--line", line)]
        phone = peer(f"phone-{app}", "uart_phone.py", "--adapter", "hci2", "--app", app, "--expect-bytes",
                     str(expect_bytes), *arguments, merge_stderr=False)
        expected_lines += len(lines)
        return phone

    def finish_phone(phone, who):
        if finish(phone, 90) != 0:
            fail(f"{who} failed: {err_tail(phone, 3)}")

    android = run_phone("nrf-android", size, "hello from android", "räksmörgås 写真 🙂", long)
    expect(p, "message", "the Android app's lines did not arrive", timeout=60, count=expected_lines, via="nus")
    p.send(f"send {text}")
    finish_phone(android, "the Android app")
    expect(c, "message", "the relay central did not get the text", timeout=60, via="relay")
    finish_phone(run_phone("nrf-ios", 0, "hello from ios", request), "the iOS app")
    finish_phone(run_phone("bluefruit", 0, "hello from bluefruit", long), "Bluefruit")
    expect(p, "message", "not every line arrived", timeout=30, count=expected_lines, via="nus")

    got = values(p, "message", "text")
    if got != ["hello from android", "räksmörgås 写真 🙂", long, "hello from ios", request, "hello from bluefruit", long]:
        fail(f"lines: {joined(got)}")
    if p.count("message", via="nus") != expected_lines:
        fail("a line arrived twice")
    report = report_of(android)
    try:
        right = (report["received"] == text + "\n" and report["valid_utf8_values"] == report["values"]
                 and report["max_value"] <= report["mtu"] - 5)
    except (KeyError, TypeError):
        right = False
    if not right:
        figures = {key: value for key, value in (report or {}).items() if key not in ("received", "sent")}
        fail(f"the Android app's text is not right: {figures}")
    print(f"phone: {report['bytes']} bytes of text in {report['values']} values of at most {report['max_value']} "
          f"bytes at MTU {report['mtu']}, each valid UTF-8", flush=True)
    if values(c, "message", "text")[:1] != [text]:
        fail("the relay central's text differs")
    p.send("status")
    expect(p, "status", "no status", timeout=10)
    status = p.select("status")[-1]
    try:
        right = ([central["address"] for central in status["centrals"]]
                 == [os.environ.get("RELAY_VM_HCI1_ADDRESS") or "00:AA:01:01:00:01"]
                 and status["nus"]["lines"] == expected_lines)
    except (KeyError, TypeError):
        right = False
    if not right:
        fail(f"status is not right: centrals {status.get('centrals')}, nus {status.get('nus')}")
    nus = " ".join(re.findall(r'"nus":\{[^}]*\}', status.text))
    print(f"lines via nus: {expected_lines}; {nus}", flush=True)
    central_status = c.stop("quit", timeout=30)
    if central_status != 0:
        fail(f"relay-central exited {central_status}")
    peripheral_status = p.stop("quit", timeout=30)
    if peripheral_status != 0:
        fail(f"relay-peripheral exited {peripheral_status}")
    passed()


if __name__ == "__main__":
    main(os.environ.get("NUS_MTU") or "517")
