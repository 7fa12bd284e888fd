#!/usr/bin/env python3
# Hostile input 8 (issue 8), inside the bluez-vm guest: another local process on the system
# bus calls relay-peripheral's exported GATT objects and advertisement directly (WriteValue,
# ReadValue, StartNotify, AcquireWrite/Notify, Release, Properties.Set, GetManagedObjects),
# 20 rounds of it. Every call must be refused with org.freedesktop.DBus.Error.AccessDenied,
# nothing may change (no counter, no subscription, still advertising with the same name, a real
# central still works afterwards) and the peripheral must report the refusals (rate-limited).
# StopNotify and Properties.Get/GetAll are refused too. A run: 24 kinds of call x 20 rounds, all
# refused; 12 report lines.
# vm-timeout: 180
import re

from scenario import err_tail, PYTHON, expect, fail, finish, passed, peer, relay, status_of

if not PYTHON:
    fail("no Python venv (run scripts/python-env.sh on the host)")
# The peers below run to their end: no limit of their own (the bash waited for them), the
# scenario's vm-timeout.
LIMIT = 180

p = relay("peripheral", "relay-peripheral", "--adapter", "hci0")
p.send("start")
expect(p, "advertising", "the peripheral never advertised", timeout=60)
# One JSON line per kind of call on stdout (caller.jsonl), its complaints on stderr (caller.err).
caller = peer("caller", "hostile_bus_caller.py", "--pid", p.pid, "--rounds", "20", merge_stderr=False)
caller.close_input()
if finish(caller, LIMIT) != 0:
    not_denied = [line for line in caller.lines() if "AccessDenied" not in line][:2]
    fail(f"a hostile call was not refused with AccessDenied: {' '.join(not_denied)} {err_tail(caller, 1)}")
calls = len(caller.lines())
if calls < 20:
    fail(f"the caller made only {calls} calls")
status = status_of(p, timeout=20)
if status.get("advertising") is not True:
    fail(f"no longer advertising: {status.text}")
if status.get("name") != "sample":
    fail(f"the name changed: {status.text}")
# No central, relay or UART app (the bash matched any `"centrals":[]` in the line, which the
# UART apps' empty list always gave).
if status.get("centrals") != [] or (status.get("nus") or {}).get("centrals", []) != []:
    fail(f"a central appeared: {status.text}")
changed = p.select(where=lambda e: e.name in ("counter", "subscribed", "message", "stopped"))
if changed:
    fail(f"a hostile call changed something: {changed[0].text}")
reports = p.count("error", where=lambda e: re.search("refused|denied", str(e.get("message", ""))))
if reports < 1:
    fail("the peripheral did not report the refused calls")
if reports > 40:
    fail(f"the refusals flooded the output: {reports} lines for {20 * 25} calls")
# A real central still works.
bleak = peer("bleak", "bleak_central.py", "--adapter", "hci1", "--write", "2", "--expect-notify", "0", "--timeout",
             "90", merge_stderr=False)
bleak.close_input()
if finish(bleak, LIMIT) != 0:
    fail(f"bleak after the hostile calls: {err_tail(bleak, 1)}")
expect(p, "counter", "the peripheral did not get bleak's counters", timeout=20, count=2)
p.stop("quit", timeout=20)
passed(f"{calls} kinds of call x 20 refused; {reports} report lines")
