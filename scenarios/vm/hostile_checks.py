"""Helpers of the central-side hostile scenarios (scenario-hostile-sessions-central.py,
scenario-hostile-frames-central.py), beside scenario.py: relay-central on hci1 scanning for
`sample`, the hostile peer's lines (a peer started with peer() has its stderr merged into its
stdout: its progress lines on stderr are text, its stdout is JSON only), and how densely a
flooded program reported (its rate limit)."""
import re
import time

from scenario import WaitFailed, densest, err_tail, event_time, expect, fail, relay


def start_central(*arguments):
    """relay-central --scan-timeout 60 --adapter hci1 ARGUMENTS --connect sample (--json), once it
    scans (or the scenario fails)."""
    central = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", *arguments,
                    "--connect", "sample")
    expect(central, "scanning", "relay-central never scanned", timeout=30)
    return central


def must(wait, reason):
    """What wait() (a RelayProgram wait) returns; when it fails, the scenario fails with reason()
    (made then, so that it can show the logs as they are at that moment)."""
    try:
        return wait()
    except WaitFailed as problem:
        fail(f"{reason()} ({problem})")


def send(program, command):
    """PROGRAM.send(COMMAND), a closed pipe ignored: a relay-central that crashed under the flood is
    reported by the checks that follow (as the old FIFO's writes went on), not by a traceback."""
    try:
        program.send(command)
    except OSError:
        pass


def wait_log(program, pattern, timeout):
    """The first of PROGRAM's stderr lines (its text lines) in which the regular expression
    PATTERN is found (the old NAME.err); raises WaitFailed after TIMEOUT s or when it exited."""
    deadline = time.monotonic() + timeout
    since = 0
    while True:
        line = program.wait_text(pattern, since=since, timeout=max(0.0, deadline - time.monotonic()))
        if line.is_text:
            return line
        since = line.index + 1


def log_lines(program, pattern=None):
    """PROGRAM's stderr lines (text lines) so far, those in which PATTERN is found when given."""
    expression = re.compile(pattern) if pattern else None
    with program.condition:
        return [e.text for e in program.events if e.is_text and (not expression or expression.search(e.text))]


def log_tail(program, lines=2):
    """The last LINES of PROGRAM's stderr lines, for a failure's reason (tail -n LINES NAME.err)."""
    return " | ".join(log_lines(program)[-lines:])


def peer_json(program):
    """The JSON objects PROGRAM printed on stdout (the old NAME.out), in order."""
    with program.condition:
        return [e for e in program.events if not e.is_text]






def reports_per_window(program, names, window=10):
    """The most events of NAMES (e.g. ("error", "dropped")) PROGRAM reported within any WINDOW
    seconds, by their `time` field: a program flooded with garbage must keep its report lines
    under its rate limit, whatever the flood's pace."""
    return densest([event_time(e) for e in program.select(where=lambda e: e.name in names and "time" in e)], window)


def check_alive(program):
    """The scenario fails when relay-central (PROGRAM) is no longer running."""
    if not program.running():
        fail(f"relay-central died: {err_tail(program, 3)}")

