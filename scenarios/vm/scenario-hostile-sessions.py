#!/usr/bin/env python3
# Strangers in the room, protocol 2 (issue 30, items 1, 4, 5, 6, 9), inside the bluez-vm guest.
#   relay-peripheral (hci0, --delivery-timeout 15) with a hostile protocol-2 central on hci1
#   (scenarios/vm/peers/hostile_sessions.py) and an honest relay-central on hci2. The hostile one
#   says hello, hears the honest central's welcome (token in clear), then: says hello with that
#   token (takeover), sends one byte in two of a message declaring 60 000 bytes, answers every
#   data frame of the peripheral's messages with acknowledgements of bytes never sent, never an
#   honest one, and once those messages were given up floods 200 hellos on its live link. Between
#   the out-of-order flood and the acknowledgements, 200 compact data frames its hello (version 2)
#   did not agree on.
#   Meanwhile the honest pair exchanges counters and three messages each way. Checks:
#   - the takeover hello is refused (an `error` line, no welcome for the victim's token after it);
#   - the compact frames are protocol errors (`did not agree on version 3`), paced with the rest;
#     and the honest central keeps its session: its three messages arrive at the peripheral once
#     and intact, the peripheral's three are `delivered` to it and arrive intact;
#   - the peripheral's three messages fail for the hostile central together, at one delivery
#     time-out (`no progress`), not one per time-out;
#   - a `subscribed` line for the hostile central at most every 5 s in spite of its hellos, and
#     one line saying it is cut off from protocol 2 (after 30 hellos on one link), and its link
#     ended (the rest of its 200 hellos cannot be written); the peripheral's
#     `error` and `dropped` lines about it at most 5 a second and one summary line;
#   - both programs' peak resident memory under 40 MB;
#   - the honest counter round trip (the central's `write` to its echo coming back) while the
#     hostile central floods, printed beside the one after it left (a figure, not an assertion).
# A run (release builds): the out-of-order message is 1 000 frames; the hello flood gave 2
# `subscribed` lines, 1 welcome, then one line: cut off from protocol 2 after 30; the three messages
# failed for the hostile central within 0.01 s of each other; peak RSS 12.3 MB (peripheral) and
# 13.9 MB (central); the honest counter's round trip 301 ms during the flood against 76 ms after it
# (2 638 ms before welcomes were paced).
# vm-controllers: 3
# vm-timeout: 300
import os
import re

from peer_output import report_line
from scenario import (densest, err_tail, OUT, PYTHON, epoch, event_time, expect, fail, finish, passed, peer, random_file, relay, tail,
                      values, vm_hwm)

hostile = os.environ.get("RELAY_VM_HCI1_ADDRESS") or "00:AA:01:01:00:01"
honest = os.environ.get("RELAY_VM_HCI2_ADDRESS") or "00:AA:01:02:00:02"
if not PYTHON:
    fail("no Python venv (run scripts/python-env.sh on the host)")
to_peripheral = [random_file(f"{OUT}/c{i}.bin", i * 3000) for i in (1, 2, 3)]
to_central = [random_file(f"{OUT}/p{i}.bin", i * 2000) for i in (1, 2, 3)]
for name, shas in (("to-peripheral.sha", to_peripheral), ("to-central.sha", to_central)):
    with open(f"{OUT}/{name}", "w") as handle:
        handle.write("".join(sha + "\n" for sha in shas))



def round_trip(program, start, value):
    """Milliseconds from epoch seconds START to PROGRAM's first `counter` of VALUE; `?` when it
    never came."""
    echoes = program.select("counter", value=value)
    return round((event_time(echoes[0]) - start) * 1000) if echoes else "?"


p = relay("peripheral", "relay-peripheral", "--adapter", "hci0", "--echo", "--delivery-timeout", "15", "--lane", "gatt")
p.send("start")
expect(p, "advertising", "the peripheral never advertised", timeout=60)
taker = peer("hostile", "hostile_sessions.py", "--adapter", "hci1", "--address", hostile, "--victims", "1",
             "--linger", "40", "--timeout", "240", merge_stderr=False)
expect(taker, "welcomed", lambda: f"the hostile central got no session: {err_tail(taker, 2)}", timeout=60)

c = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci2", "--connect", "sample", "--lane", "gatt")
expect(c, "ready", lambda: f"the honest central is not ready with protocol 2: {tail(c, 1)}", timeout=90,
          protocol=2)
# The counter first: the central's REPL takes each command once the one before it finished, and
# a send-file finishes when it is delivered.
loaded_at = epoch()
c.send("write 41")
for i in (1, 2, 3):
    c.send(f"send-file {OUT}/c{i}.bin")
for i in (1, 2, 3):
    p.send(f"send-file {OUT}/p{i}.bin")
if finish(taker, 250) != 0:
    fail(f"the hostile central did not finish: {err_tail(taker, 2)}")
expect(c, "counter", "the honest central's counter 41 did not come back", timeout=30, value=41)
quiet_at = epoch()
c.send("write 42")
expect(p, "message", lambda: f"the honest central's messages did not all arrive: {p.count('message')}", timeout=60,
          count=3, **{"from": honest})
expect(c, "message", "the peripheral's messages did not all reach the honest central", timeout=60, count=3)
expect(p, "delivered", "the peripheral's messages were not all delivered to the honest central", timeout=30, count=3,
       to=honest)
expect(p, "failed", "the peripheral's messages did not fail for the hostile central", timeout=60, count=3, to=hostile)
expect(c, "counter", "the honest central's counter 42 did not come back", timeout=30, value=42)
hwm_peripheral, hwm_central = vm_hwm(p), vm_hwm(c)
p.send("status")
expect(p, "status", "the peripheral does not answer status", timeout=20)
c.stop("quit", timeout=30)
p.stop("quit", timeout=30)

summary = report_line(taker)
subscribed = p.count("subscribed", where=lambda e: hostile in e.text)
if subscribed > 3:
    fail(f"the hostile central's 201 hellos gave {subscribed} subscribed lines (one per 5 s at most)")
cut_off = p.count("error", where=lambda e: re.search("cut off from protocol 2.*" + re.escape(hostile), e.text))
if cut_off != 1:
    fail(f"the hello flood gave {cut_off} 'cut off' lines, not one")
if not p.count("error", where=lambda e: re.search("hello refused.*" + re.escape(honest), e.text)):
    fail(f"the takeover hello was not refused: {' '.join(e.text for e in p.select('error')[:2])}")
if not p.count("error", where=lambda e: "did not agree on version 3" in e.text and hostile in e.text):
    fail("the hostile central's compact frames were not reported as protocol errors")
if '"disconnected_in_flood": true' not in summary:
    fail(f"the hostile central's link was not ended once it was cut off: {summary}")
if '"welcomes_for_victims_after_takeover": 0' not in summary:
    fail(f"the taker heard a welcome for the victim's token: {summary}")
from_honest = p.select("message", **{"from": honest})
with open(f"{OUT}/from-honest", "w") as handle:
    handle.write("".join(e.text + "\n" for e in from_honest))
if [e["sha256"] for e in from_honest if "sha256" in e] != to_peripheral:
    fail(f"the honest central's messages differ at the peripheral ({len(from_honest)} of 3)")
at_central = c.select("message")
with open(f"{OUT}/at-central", "w") as handle:
    handle.write("".join(e.text + "\n" for e in at_central))
if values(c, "message", "sha256") != to_central:
    fail("the peripheral's messages differ at the honest central")
if p.count("message", **{"from": hostile}):
    fail("a message of the hostile central was delivered")
# Seconds between the first and the last `failed` for the hostile central (one time-out: all at once).
failed = p.select("failed", to=hostile)
times = [event_time(e) for e in failed]
failed_span = f"{max(times) - min(times):.3f}" if times else "none"
if failed_span == "none" or not float(failed_span) < 1:
    fail(f"the hostile central's messages did not fail together ({failed_span} s from the first to the last)")
if not any("no progress" in e.text for e in failed):
    first_failed = p.select("failed")[:1]
    fail(f"the failure is not 'no progress': {first_failed[0].text if first_failed else ''}")
most = densest([event_time(e) for e in p.select(where=lambda e: e.name in ("error", "dropped") and hostile in e.text)],
               10)
if most > 61:
    fail(f"not paced: {most} report lines about the hostile central within 10 s")
if hwm_peripheral is None or hwm_peripheral > 40960:
    fail(f"the peripheral's peak memory reached {hwm_peripheral} KiB")
if hwm_central is None or hwm_central > 40960:
    fail(f"the central's peak memory reached {hwm_central} KiB")
passed(f"{summary}; peak RSS peripheral {hwm_peripheral} KiB, central {hwm_central} KiB; at most {most} report lines "
       f"about the hostile central within 10 s; {subscribed} subscribed lines and {cut_off} cut-off line for 201 "
       f"hellos; its 3 messages failed within {failed_span} s; honest counter round trip "
       f"{round_trip(c, loaded_at, 41)} ms while the hostile central flooded, {round_trip(c, quiet_at, 42)} ms after "
       f"it left")
