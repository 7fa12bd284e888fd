#!/usr/bin/env python3
# Strangers in the room, protocol 2, central side (issue 30, items 1, 4, 6, 9, and the breach that
# cuts a peer off from protocol 2), inside the bluez-vm guest: relay-central (hci1,
# --delivery-timeout 15) connects to a hostile protocol-2 peripheral
# (scenarios/vm/peers/hostile_sessions_peripheral.py, bless on hci0) that welcomes it, then never
# acknowledges its messages honestly (every data frame is answered with an acknowledgement of bytes
# within the message that were never sent: received 0, one-byte ranges at 1, 3, 5, 7; not a breach),
# floods 200 welcomes and 300 bad session frames, sends one byte in two of a message declaring
# 60 000 bytes (1 000 frames, never the gaps), and between the attacks sends honest counters
# (1000-1003), two honest messages and the echo of every counter relay-central writes.
# relay-central sends three files (c1, c2, c3). Last, once those failed, a fourth (c4), whose first
# data frame the peripheral answers with an acknowledgement past its end (received 0xFFFFFF00):
# the breach, last because it cuts relay-central off from protocol 2 on this link (docs/protocol.md,
# "Breaking the protocol"), so every earlier phase meets a protocol-2 central. After it, the
# peripheral sends a whole protocol-2 message and bad session frames (none may be read), echoes
# counters on the notify characteristic, and takes a protocol-1 text from relay-central on the
# write characteristic. Checks:
#   - relay-central keeps the link (no `disconnected`; one `ready` with protocol 2, and after the
#     cut-off at most one with protocol 1), never crashes, answers `status` after the floods and
#     after the cut-off;
#   - c1 and c2, queued together (c2 waits behind c1: one message at a time per peer), fail
#     (`no progress`) together, within 1 s of each other, at one time-out; each of c1-c3 fails no
#     sooner than one delivery time-out and at most one time-out + 3 s after it started going out
#     (its `sent` or first outgoing `progress`: c3's last frames never go, the acknowledgements
#     never open the flight; c2 never starts: after it was typed);
#     c3 fails one time-out later because relay-central's REPL reads its command only once c2's
#     `send-file` finished (with c2's failure), so c3 is queued after the first time-out and waits
#     its own (send-file finishes at `sent`; protocol 2 sends one message at a time per peer);
#   - the breach: exactly one `cut off from protocol 2` error line, c4 `failed`, then no `message`
#     or `receiving` event and no protocol error from the peripheral's protocol-2 frames, relay-central
#     subscribes to the notify characteristic, its counter comes back there once and its text
#     reaches the peripheral intact as protocol-1 frames (`unconfirmed`);
#   - the honest counters arrive once each, the honest messages once and intact, its own counters
#     40 and 41 come back once (on the session characteristic), 42 once (notify, after the cut-off);
#   - the garbage is reported, and its `error` and `dropped` lines stay within the paced rate (5 a
#     second: at most 61 within any 10 s);
#   - its peak resident memory (VmHWM) stays under 40 MB.
# Figures: peak RSS, the failures' times and their spans since each started, the densest report
# lines, the cut-off line's time after c4 was typed, the counter round trips before the flood,
# during it and after the cut-off (figures, not assertions).
# A run: peak RSS 13.7 MB; c1 and c2 failed 0.002 s apart; at most 15 report lines in 10 s for the
# 300 bad frames; counter round trip 124 ms before the flood, 97 ms during it, 85 ms after the cut-off.
# vm-controllers: 2
# vm-timeout: 300
import hashlib
import json
import re

from hostile_checks import (check_alive, reports_per_window, log_lines, log_tail, must, peer_json, send,
                            start_central, wait_log)
from scenario import (file_lines, OUT, PYTHON, Problems, WaitFailed, epoch, event_time, expect, fail, joined, passed, peer,
                      random_file, tail, values, vm_hwm)

if not PYTHON:
    fail("no Python venv (run scripts/python-env.sh on the host)")
timeout = 15  # relay-central's --delivery-timeout
for i in (1, 2, 3, 4):
    random_file(f"{OUT}/c{i}.bin", i * 1500)
text = "after the cut-off, protocol 1"


def hostile_wait(pattern, seconds, reason):
    """Waits for a stderr line of the hostile peripheral like PATTERN, or fails with REASON and its last lines."""
    try:
        return wait_log(hostile, pattern, seconds)
    except WaitFailed as problem:
        fail(f"{reason}: {log_tail(hostile, 2)} ({problem})")


central = start_central("--delivery-timeout", str(timeout))
hwm_start = vm_hwm(central)
hostile = peer("hostile", "hostile_sessions_peripheral.py", "--adapter", "hci0", "--honest-file", f"{OUT}/honest.sha",
               "--central-messages", "3", "--linger", "60", "--after", "120", "--timeout", "280")
must(lambda: central.wait("ready", timeout=90, protocol=2),
     lambda: f"relay-central is not ready with protocol 2: {tail(central, 1)}; {log_tail(hostile, 2)}")
# The REPL takes a command once the one before finished, and relay-central's `send-file` finishes
# when its last byte went out, which for a second message waits until the first is settled: the
# counter written during the flood goes before the second and third files, and the third file is
# read (queued) only once the second failed. Epoch seconds each was typed: typed[i].
typed = {}
unloaded_at = epoch()
send(central, "write 40")
typed[1] = epoch()
send(central, f"send-file {OUT}/c1.bin")
hostile_wait("flooding", 90, "the hostile peripheral never flooded")
loaded_at = epoch()
send(central, "write 41")
for i in (2, 3):
    typed[i] = epoch()
    send(central, f"send-file {OUT}/c{i}.bin")
# The breach, last: once the peripheral's phases are done and c1-c3 failed (their aborts heard).
hostile_wait("armed:|not every phase|timed out|Error|Traceback", 150,
             "the hostile peripheral did not finish its phases")
if not log_lines(hostile, "armed:"):
    fail(f"the hostile peripheral stopped before the breach: {log_tail(hostile, 3)}")
must(lambda: central.wait_count("failed", 3, timeout=60),
     lambda: f"relay-central's messages did not all fail: {' '.join(e.text for e in central.select('failed'))}")
status_mark = central.mark()
typed[4] = epoch()
send(central, f"send-file {OUT}/c4.bin")
must(lambda: central.wait_text("cut off from protocol 2", timeout=30),
     lambda: "relay-central was not cut off from protocol 2 by an acknowledgement past the end: "
             f"{tail(central, 2, width=200)}; {log_tail(hostile, 2)}")
try:
    wait_log(hostile, "frames after the cut-off written|not every phase|after the breach", 40)
except WaitFailed:
    pass
cut_at = epoch()
send(central, "write 42")
try:
    central.wait("counter", timeout=20, value=42)
except WaitFailed:
    pass
send(central, f"send {text}")
hostile_wait(": done$|not every phase|timed out|Error|Traceback", 90, "the hostile peripheral did not finish")
if not log_lines(hostile, ": done$"):
    last_out = peer_json(hostile)[-1].text if peer_json(hostile) else ""
    fail(f"the hostile peripheral did not do every phase: {log_tail(hostile, 3)}; {last_out}")
check_alive(central)
send(central, "status")
expect(central, "status", "relay-central does not answer status after the floods and the cut-off", timeout=30,
       since=status_mark)
check_alive(central)
hwm_after = vm_hwm(central)
lost = central.select("disconnected")
central.stop("quit", timeout=30)
hostile_status = hostile.terminate(grace=10)
hostile.wait_exit(5)  # its last lines read

# What the hostile peripheral wrote, which of relay-central's transfers it saw and saw aborted,
# the breach and what came after it.
report = peer_json(hostile)[-1] if peer_json(hostile) else None
if report is None:
    summary, v1_shas = "no summary", []
else:
    summary = json.dumps({k: report.get(k) for k in (
        "written", "central_transfers", "central_aborted", "breach_transfer", "after_breach_data_frames",
        "session_writes_after_v1", "echoed_v1", "v1_errors")})
    v1_shas = [m["sha256"] for m in report.get("v1_messages", [])]
# Every check below is made; the scenario fails with all that failed, beside the figures.
problems = Problems()
problems.check(hostile_status == 0,
               f"the hostile peripheral exited with status {hostile_status}: {log_tail(hostile, 2)}")
problems.check(not lost, f"relay-central lost the link: {lost[0].text if lost else ''}")
ready_2 = central.count("ready", protocol=2)
problems.check(ready_2 == 1, f"relay-central became ready with protocol 2 {ready_2} times (a flood welcome taken?)")
# Honest traffic: every honest message once and intact, in order; every counter once.
honest = file_lines(f"{OUT}/honest.sha")
delivered = len([line for line in honest if line])
problems.check(delivered == 2, f"the hostile peripheral got {delivered} honest messages delivered, not 2")
got = values(central, "message", "sha256")
problems.check(got == honest, f"honest messages lost, corrupted or repeated: got [{joined(got)}]")
counter_values = values(central, "counter", "value")
counters = [value for value in counter_values if re.fullmatch(r"10[0-9][0-9]", str(value))]
problems.check(counters == [1000, 1001, 1002, 1003], f"honest counters wrong: [{joined(counters)}]")
for echo_value in (40, 41, 42):
    problems.check(counter_values.count(echo_value) == 1,
                   f"relay-central's counter {echo_value} did not come back once")
problems.check(not central.count("delivered"),
               "a message was reported delivered to a peripheral that never acknowledged")


def failures_and_breach():
    """The failures (c1-c3 at the time-out, c4 at the cut-off) and the breach, from relay-central's
    events: (problems, figures)."""
    found, figures = [], []
    events = [e for e in central.select() if "time" in e]
    at = {e.index: event_time(e) for e in events}
    failed = {e["id"]: e for e in events if e.name == "failed"}
    # When each started going out: its `sent` or its first outgoing `progress`, whichever came first.
    started = {}
    for e in events:
        if e.name == "sent" or (e.name == "progress" and e.get("direction") == "out"):
            started.setdefault(e["id"], at[e.index])
    ids = sorted(failed)
    if ids != [1, 2, 3, 4]:
        found.append(f"failed messages {ids}, not [1, 2, 3, 4]")
    for i in (1, 2, 3):
        if i in failed and "no progress" not in failed[i].get("reason", ""):
            found.append(f"message {i} failed for '{failed[i].get('reason')}', not 'no progress'")
    # c1 and c2 were queued together: one time-out fails both.
    if 1 in failed and 2 in failed:
        together = abs(at[failed[2].index] - at[failed[1].index])
        figures.append(f"c1/c2 failed {together:.3f} s apart")
        if together > 1:
            found.append(f"c1 and c2 (queued together) failed {together:.3f} s apart, not within 1 s")
    # Each fails at one time-out after it started going out (c2, never started: after it was typed).
    spans = []
    for i in (1, 2, 3):
        if i not in failed:
            continue
        since = "started" if i in started else "typed"
        span = at[failed[i].index] - started.get(i, typed[i])
        spans.append(f"c{i} {span:.1f} s after {since}")
        if span > timeout + 3 or (i in started and span < timeout - 2):
            found.append(f"c{i} failed {span:.1f} s after it was {since}, not one delivery time-out ({timeout:.0f} s)")
    if 1 in failed and 2 in failed and 3 in failed:
        first = min(at[failed[i].index] for i in (1, 2, 3))
        figures.append("failed at +" + ",".join(f"{at[failed[i].index] - first:.3f}" for i in (1, 2, 3)) + " s ("
                       + "; ".join(spans) + ")")
    # The breach: one line, c4 failed, and nothing of the peripheral's protocol-2 frames read after it.
    cut = [e for e in events if e.name == "error" and "cut off from protocol 2" in e.get("message", "")]
    if len(cut) != 1:
        found.append(f"{len(cut)} 'cut off from protocol 2' lines, not 1")
    if cut:
        cut_time = at[cut[0].index]
        why = cut[0]["message"].split("on this link: ")[-1].split(" (its")[0]
        figures.append(f"cut off {1000 * (cut_time - typed[4]):.0f} ms after c4 was typed ({why})")
        if 4 in failed:
            figures.append(f"c4 failed {1000 * (at[failed[4].index] - cut_time):+.0f} ms from the cut-off line "
                           f"({failed[4].get('reason')})")
        after = [e for e in events if at[e.index] >= cut_time]
        read = [e for e in after if e.name in ("message", "receiving")]
        if read:
            found.append("after the cut-off relay-central read the peripheral's protocol-2 frames: "
                         f"{read[0].text[:160]}")
        errors = [e for e in after if e.name in ("error", "dropped") and "protocol error" in e.get("message", "")
                  or e.name == "dropped"]
        if errors:
            found.append(f"after the cut-off {len(errors)} protocol errors or drops reported (session frames read?): "
                         f"{errors[0].text[:160]}")
        ready = [e for e in events if e.name == "ready"]
        late_ready = [e for e in ready if at[e.index] >= cut_time]
        if len(ready) - len(late_ready) != 1 or len(late_ready) > 1 or any(e.get("protocol") != 1 for e in late_ready):
            found.append(f"ready lines: {[(round(at[e.index] - cut_time, 3), e.get('protocol')) for e in ready]} "
                         "(seconds from the cut-off, protocol), not one with 2 before it and at most one with 1 after")
        status = [e for e in after if e.name == "status"]
        if not status or status[-1].get("link") != "ready":
            found.append(f"status after the cut-off: {status[-1].text[:160] if status else 'none'}")
        # Its text after the cut-off: protocol 1, unconfirmed, intact at the peripheral.
        digest = hashlib.sha256(text.encode()).hexdigest()
        texts = [e for e in after if e.name == "sent" and e.get("sha256") == digest]
        if not texts or texts[0].get("protocol") != 1:
            found.append("relay-central's text after the cut-off was not sent with protocol 1: "
                         f"{texts[0].text[:160] if texts else 'not sent'}")
        if not any(e.name == "unconfirmed" and e.get("sha256") == digest for e in after):
            found.append("relay-central's text after the cut-off is not reported unconfirmed")
        if v1_shas != [digest]:
            found.append(f"the peripheral took protocol-1 messages {v1_shas}, not relay-central's text once")
    return found, figures


try:
    found, breach_figures = failures_and_breach()
    problems.extend(found)
except Exception as error:  # a check that could not be made is a problem, not a crash
    breach_figures = []
    problems.append(f"the failure and breach check did not run ({error!r})")
# Reports: the garbage is reported, paced.
errors = len(central.select(where=lambda e: e.name in ("error", "dropped")))
problems.check(errors >= 1, "the bad session frames were not reported")
most = reports_per_window(central, ("error", "dropped"), 10)
problems.check(most <= 61, f"not paced: {most} error/dropped lines within 10 s ({errors} in all)")
problems.check(hwm_after <= 40960, f"relay-central's peak memory reached {hwm_after} KiB (at start: {hwm_start} KiB)")
shown = central.count("error", where=lambda e: "protocol error" in e.get("message", ""))
suppressed = sum(values(central, "error", "suppressed"))


def round_trip(start, value):
    """Milliseconds from epoch seconds START to the `counter` event of VALUE: a counter's round trip
    to its echo; `?` when it never came."""
    echoes = central.select("counter", value=value)
    return round((event_time(echoes[0]) - start) * 1000) if echoes else "?"


figures = (f"{summary}; relay-central peak RSS {hwm_start} -> {hwm_after} KiB; {'; '.join(breach_figures)}; "
           f"{errors} error/dropped lines, at most {most} within 10 s, {shown} protocol errors shown and {suppressed} "
           f"counted as not shown; counter round trip {round_trip(unloaded_at, 40)} ms before the flood, "
           f"{round_trip(loaded_at, 41)} ms during it, {round_trip(cut_at, 42)} ms after the cut-off (protocol 1)")
problems.fail_if_any(figures)
passed(figures)
