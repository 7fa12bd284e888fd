#!/usr/bin/env bash
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
# vm-controllers: 2
# vm-timeout: 300
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
[ -n "$python" ] || fail "no Python venv (run scripts/python-env.sh on the host)"
c=$out/central.out hostile_log=$out/hostile.err
for i in 1 2 3 4; do head -c $((i * 1500)) /dev/urandom > "$out/c$i.bin"; done
text="after the cut-off, protocol 1"

open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json \
  --delivery-timeout 15 --connect sample
wait_for_line "$c" '"event":"scanning"' 30 || fail "relay-central never scanned"
hwm_start=$(vm_hwm "${started[central]}")
start hostile "$python" "$peers/hostile_sessions_peripheral.py" --adapter hci0 --honest-file "$out/honest.sha" \
  --central-messages 3 --linger 60 --after 120 --timeout 280
wait_for_line "$c" '"event":"ready".*"protocol":2' 90 ||
  fail "relay-central is not ready with protocol 2: $(tail -n 1 "$c"); $(tail -n 2 "$hostile_log")"
# The REPL takes a command once the one before finished, and relay-central's `send-file` finishes
# when its last byte went out, which for a second message waits until the first is settled: the
# counter written during the flood goes before the second and third files, and the third file is
# read (queued) only once the second failed. Epoch seconds each was typed: typed[i].
declare -A typed=()
unloaded_at=$EPOCHREALTIME
echo "write 40" >&8
typed[1]=$EPOCHREALTIME
echo "send-file $out/c1.bin" >&8
wait_for_line "$hostile_log" 'flooding' 90 || fail "the hostile peripheral never flooded: $(tail -n 2 "$hostile_log")"
loaded_at=$EPOCHREALTIME
echo "write 41" >&8
for i in 2 3; do
  typed[$i]=$EPOCHREALTIME
  echo "send-file $out/c$i.bin" >&8
done
# The breach, last: once the peripheral's phases are done and c1-c3 failed (their aborts heard).
wait_for_line "$hostile_log" 'armed:|not every phase|timed out|Error|Traceback' 150 ||
  fail "the hostile peripheral did not finish its phases: $(tail -n 2 "$hostile_log")"
grep -q 'armed:' "$hostile_log" || fail "the hostile peripheral stopped before the breach: $(tail -n 3 "$hostile_log")"
wait_for_count "$c" '"event":"failed"' 3 60 || fail "relay-central's messages did not all fail: $(grep '"event":"failed"' "$c")"
status_before=$(count "$c" '"event":"status"')
typed[4]=$EPOCHREALTIME
echo "send-file $out/c4.bin" >&8
wait_for_line "$c" 'cut off from protocol 2' 30 ||
  fail "relay-central was not cut off from protocol 2 by an acknowledgement past the end: $(tail -n 2 "$c" | cut -c1-200); $(tail -n 2 "$hostile_log")"
wait_for_line "$hostile_log" 'frames after the cut-off written|not every phase|after the breach' 40 || true
cut_at=$EPOCHREALTIME
echo "write 42" >&8
wait_for_line "$c" '"event":"counter".*"value":42[,}]' 20 || true
echo "send $text" >&8
wait_for_line "$hostile_log" ': done$|not every phase|timed out|Error|Traceback' 90 ||
  fail "the hostile peripheral did not finish: $(tail -n 2 "$hostile_log")"
grep -q ': done$' "$hostile_log" || fail "the hostile peripheral did not do every phase: $(tail -n 3 "$hostile_log"); $(tail -n 1 "$out/hostile.out")"
kill -0 "${started[central]}" 2>/dev/null || fail "relay-central died: $(tail -n 3 "$out/central.err")"
echo status >&8
wait_for_count "$c" '"event":"status"' $((status_before + 1)) 30 ||
  fail "relay-central does not answer status after the floods and the cut-off"
kill -0 "${started[central]}" 2>/dev/null || fail "relay-central died: $(tail -n 3 "$out/central.err")"
hwm_after=$(vm_hwm "${started[central]}")
lost=$(grep '"event":"disconnected"' "$c" | head -n 1 || true)
echo quit >&8
finish central 30 || true
kill "${started[hostile]}" 2>/dev/null || true
hostile_status=0
finish hostile 10 || hostile_status=$?

# What the hostile peripheral wrote, which of relay-central's transfers it saw and saw aborted,
# the breach and what came after it.
summary=$(tail -n 1 "$out/hostile.out" | python3 -I -c '
import json, sys
try: d = json.load(sys.stdin)
except ValueError: print("no summary"); sys.exit()
print(json.dumps({k: d.get(k) for k in ("written", "central_transfers", "central_aborted", "breach_transfer",
                                        "after_breach_data_frames", "session_writes_after_v1", "echoed_v1", "v1_errors")}))')
v1_shas=$(tail -n 1 "$out/hostile.out" | python3 -I -c '
import json, sys
try: print(",".join(m["sha256"] for m in json.load(sys.stdin).get("v1_messages", [])))
except ValueError: print("")')
# Every check below is made; the scenario fails with all that failed, beside the figures.
problems=()
problem() { problems+=("$*"); }
[ "$hostile_status" = 0 ] || problem "the hostile peripheral exited with status $hostile_status: $(tail -n 2 "$hostile_log")"
[ -z "$lost" ] || problem "relay-central lost the link: $lost"
[ "$(count "$c" '"event":"ready".*"protocol":2')" = 1 ] ||
  problem "relay-central became ready with protocol 2 $(count "$c" '"event":"ready".*"protocol":2') times (a flood welcome taken?)"
# Honest traffic: every honest message once and intact, in order; every counter once.
[ "$(count "$out/honest.sha" .)" = 2 ] || problem "the hostile peripheral got $(count "$out/honest.sha" .) honest messages delivered, not 2"
[ "$(field "$c" message sha256)" = "$(tr '\n' ',' < "$out/honest.sha")" ] ||
  problem "honest messages lost, corrupted or repeated: got [$(field "$c" message sha256)]"
counters=$(json_values "$c" counter value | grep -E '^10[0-9][0-9]$' | paste -sd, - || true)
[ "$counters" = "1000,1001,1002,1003" ] || problem "honest counters wrong: [$counters]"
for echo_value in 40 41 42; do
  [ "$(json_values "$c" counter value | grep -cx "$echo_value")" = 1 ] || problem "relay-central's counter $echo_value did not come back once"
done
grep -q '"event":"delivered"' "$c" && problem "a message was reported delivered to a peripheral that never acknowledged"
# The failures (c1-c3 at the time-out, c4 at the cut-off) and the breach: one script reads the log.
timing=$(python3 -I - "$c" 15 "${typed[1]}" "${typed[2]}" "${typed[3]}" "${typed[4]}" "$text" "$v1_shas" <<'EOF'
import datetime, hashlib, json, sys
log, timeout, typed = sys.argv[1], float(sys.argv[2]), {i: float(t) for i, t in enumerate(sys.argv[3:7], 1)}
text, v1_shas = sys.argv[7], [s for s in sys.argv[8].split(",") if s]
events = []
for line in open(log, errors="replace"):
    try:
        event = json.loads(line)
    except ValueError:
        continue
    if isinstance(event, dict) and "time" in event:
        event["at"] = datetime.datetime.strptime(event["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        events.append(event)
problems, figures = [], []
failed = {e["id"]: e for e in events if e["event"] == "failed"}
# When each started going out: its `sent` or its first outgoing `progress`, whichever came first.
started = {}
for e in events:
    if e["event"] == "sent" or (e["event"] == "progress" and e.get("direction") == "out"):
        started.setdefault(e["id"], e["at"])
ids = sorted(failed)
if ids != [1, 2, 3, 4]:
    problems.append(f"failed messages {ids}, not [1, 2, 3, 4]")
for i in (1, 2, 3):
    if i in failed and "no progress" not in failed[i].get("reason", ""):
        problems.append(f"message {i} failed for '{failed[i].get('reason')}', not 'no progress'")
# c1 and c2 were queued together: one time-out fails both.
if 1 in failed and 2 in failed:
    together = abs(failed[2]["at"] - failed[1]["at"])
    figures.append(f"c1/c2 failed {together:.3f} s apart")
    if together > 1:
        problems.append(f"c1 and c2 (queued together) failed {together:.3f} s apart, not within 1 s")
# Each fails at one time-out after it started going out (c2, never started: after it was typed).
spans = []
for i in (1, 2, 3):
    if i not in failed:
        continue
    since = "started" if i in started else "typed"
    span = failed[i]["at"] - started.get(i, typed[i])
    spans.append(f"c{i} {span:.1f} s after {since}")
    if span > timeout + 3 or (i in started and span < timeout - 2):
        problems.append(f"c{i} failed {span:.1f} s after it was {since}, not one delivery time-out ({timeout:.0f} s)")
if 1 in failed and 2 in failed and 3 in failed:
    first = min(failed[i]["at"] for i in (1, 2, 3))
    figures.append("failed at +" + ",".join(f"{failed[i]['at'] - first:.3f}" for i in (1, 2, 3)) + " s ("
                   + "; ".join(spans) + ")")
# The breach: one line, c4 failed, and nothing of the peripheral's protocol-2 frames read after it.
cut = [e for e in events if e["event"] == "error" and "cut off from protocol 2" in e.get("message", "")]
if len(cut) != 1:
    problems.append(f"{len(cut)} 'cut off from protocol 2' lines, not 1")
if cut:
    at = cut[0]["at"]
    why = cut[0]["message"].split("on this link: ")[-1].split(" (its")[0]
    figures.append(f"cut off {1000 * (at - typed[4]):.0f} ms after c4 was typed ({why})")
    if 4 in failed:
        figures.append(f"c4 failed {1000 * (failed[4]['at'] - at):+.0f} ms from the cut-off line ({failed[4].get('reason')})")
    after = [e for e in events if e["at"] >= at]
    read = [e for e in after if e["event"] in ("message", "receiving")]
    if read:
        problems.append(f"after the cut-off relay-central read the peripheral's protocol-2 frames: "
                        f"{json.dumps(read[0])[:160]}")
    errors = [e for e in after if e["event"] in ("error", "dropped") and "protocol error" in e.get("message", "")
              or e["event"] == "dropped"]
    if errors:
        problems.append(f"after the cut-off {len(errors)} protocol errors or drops reported (session frames read?): "
                        f"{json.dumps(errors[0])[:160]}")
    ready = [e for e in events if e["event"] == "ready"]
    late_ready = [e for e in ready if e["at"] >= at]
    if len(ready) - len(late_ready) != 1 or len(late_ready) > 1 or any(e.get("protocol") != 1 for e in late_ready):
        problems.append(f"ready lines: {[(round(e['at'] - at, 3), e.get('protocol')) for e in ready]} "
                        f"(seconds from the cut-off, protocol), not one with 2 before it and at most one with 1 after")
    status = [e for e in after if e["event"] == "status"]
    if not status or status[-1].get("link") != "ready":
        problems.append(f"status after the cut-off: {json.dumps(status[-1])[:160] if status else 'none'}")
    # Its text after the cut-off: protocol 1, unconfirmed, intact at the peripheral.
    digest = hashlib.sha256(text.encode()).hexdigest()
    texts = [e for e in after if e["event"] == "sent" and e.get("sha256") == digest]
    if not texts or texts[0].get("protocol") != 1:
        problems.append(f"relay-central's text after the cut-off was not sent with protocol 1: "
                        f"{json.dumps(texts[0])[:160] if texts else 'not sent'}")
    if not any(e["event"] == "unconfirmed" and e.get("sha256") == digest for e in after):
        problems.append("relay-central's text after the cut-off is not reported unconfirmed")
    if v1_shas != [digest]:
        problems.append(f"the peripheral took protocol-1 messages {v1_shas}, not relay-central's text once")
for p in problems:
    print("problem " + p)
print("figures " + "; ".join(figures))
EOF
) || problem "the failure and breach check did not run"
while IFS= read -r line; do
  case "$line" in problem\ *) problem "${line#problem }" ;; figures\ *) breach_figures=${line#figures } ;; esac
done <<< "$timing"
# Reports: the garbage is reported, paced.
errors=$(count "$c" '"event":"(error|dropped)"')
[ "$errors" -ge 1 ] || problem "the bad session frames were not reported"
densest=$(python3 "$(dirname "$0")/hostile-frames-rate.py" "$c" '"event":"(error|dropped)"' 10)
[ "$densest" -le 61 ] || problem "not paced: $densest error/dropped lines within 10 s ($errors in all)"
[ "$hwm_after" -le 40960 ] || problem "relay-central's peak memory reached $hwm_after KiB (at start: $hwm_start KiB)"
shown=$(count "$c" '"event":"error".*protocol error')
suppressed=$(json_values "$c" error suppressed | awk '{ s += $1 } END { print s + 0 }')
figures="$summary; relay-central peak RSS $hwm_start -> $hwm_after KiB; ${breach_figures:-}; $errors error/dropped lines, at most $densest within 10 s, $shown protocol errors shown and $suppressed counted as not shown; counter round trip $(round_trip "$unloaded_at" 40) ms before the flood, $(round_trip "$loaded_at" 41) ms during it, $(round_trip "$cut_at" 42) ms after the cut-off (protocol 1)"
[ ${#problems[@]} = 0 ] || fail "$(printf '%s; ' "${problems[@]}")figures: $figures"
echo "PASS hostile-sessions-central ($figures)"
