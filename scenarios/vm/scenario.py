"""The scenarios' library, inside the bluez-vm guest: every scenario that runs relay-peripheral or
relay-central drives it through scenarios/relay_driver.py (RelayProgram: commands on stdin, one
event per stdout line, read and stamped on a thread) and reads its events there, nowhere else.

    #!/usr/bin/env python3
    # vm-controllers: 2
    # vm-timeout: 300
    from scenario import *  # noqa: F401,F403

    central = relay("central", "relay-central", "--adapter", "hci1", "--connect", "sample")
    expect(central, "ready", "the central never became ready", timeout=90)
    central.send("write 7")
    ...
    passed("counters cross")

scenarios/vm/guest-runner.sh runs a scenario-*.py with the guest's python3 (standard library only;
the third-party peers run in the repo's venv: peer()). Each program's lines are kept in
$RELAY_VM_OUT/NAME.jsonl (stdout) and NAME.err (stderr). Everything started is stopped when the
scenario ends, however it ends. fail() writes the reason the runner prints.
"""
import atexit
import datetime
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from relay_driver import Exited, RelayProgram, Timeout, WaitFailed, status_kib  # noqa: E402

__all__ = ["OUT", "REPO", "BIN", "PYTHON", "PEERS", "Exited", "Timeout", "WaitFailed", "RelayProgram", "fail",
           "passed", "Problems", "relay", "peer", "start", "finish", "stop", "expect", "expect_text", "values",
           "pause", "run", "btmgmt", "sha256", "sha256_text", "random_file", "vm_rss", "vm_hwm", "epoch",
           "event_time", "status_of", "wait_progress", "joined", "tail", "file_lines", "err_lines", "err_tail",
           "densest"]

if not os.environ.get("RELAY_VM"):
    sys.exit("run scenarios inside the VM: scenarios/vm/run-scenarios.sh or scripts/bluez-vm run")
OUT = os.environ["RELAY_VM_OUT"]
REPO = os.environ["RELAY_REPO"]
BIN = os.environ.get("RELAY_BIN") or os.path.join(REPO, ".build", "debug")
PYTHON = os.environ.get("RELAY_PYTHON", "")
PEERS = os.path.join(REPO, "scenarios", "vm", "peers")
os.makedirs(OUT, exist_ok=True)
NAME = os.path.basename(sys.argv[0]).removeprefix("scenario-").removesuffix(".py")

_started = []


def _stop_everything():
    for program in reversed(_started):
        if program.running():
            program.terminate(grace=3)
            program.wait_exit(2)
        program.close_logs()


atexit.register(_stop_everything)


def _uncaught(kind, value, trace):
    """An exception no scenario code caught (a command sent to a program that died: BrokenPipeError)
    fails the scenario with one line naming it and where; the traceback goes to stderr."""
    sys.__excepthook__(kind, value, trace)
    while trace and trace.tb_next:
        trace = trace.tb_next
    where = f" at {os.path.basename(trace.tb_frame.f_code.co_filename)}:{trace.tb_lineno}" if trace else ""
    with open(os.path.join(OUT, "reason"), "w") as handle:
        handle.write(f"{kind.__name__}: {value}{where}\n")


sys.excepthook = _uncaught


def fail(reason):
    """The scenario fails with REASON (one line; the runner prints it)."""
    reason = " ".join(str(reason).split())
    with open(os.path.join(OUT, "reason"), "w") as handle:
        handle.write(reason + "\n")
    print(f"FAIL: {reason}", file=sys.stderr, flush=True)
    sys.exit(1)


def passed(summary=""):
    """The closing line of a scenario that passed: PASS NAME (SUMMARY)."""
    print(f"PASS {NAME}" + (f" ({summary})" if summary else ""), flush=True)


class Problems(list):
    """Checks that are all made before the scenario fails with every one that failed."""

    def check(self, condition, text):
        if not condition:
            self.append(text)
        return condition

    def fail_if_any(self, figures=""):
        if self:
            fail("; ".join(self) + (f"; figures: {figures}" if figures else ""))


def start(name, argv, script=None, **options):
    """Starts ARGV as NAME: stdout in OUT/NAME.jsonl (read as events), stderr in OUT/NAME.err.
    With SCRIPT (command lines), writes it to stdin and closes stdin: the program runs the script
    (its `wait EVENT SECONDS` lines included) and exits at its end. Options go to RelayProgram
    (merge_stderr, log_suffix, env, ...)."""
    program = RelayProgram([str(part) for part in argv], name=name, log_dir=OUT, **options)
    _started.append(program)
    if script is not None:
        program.send(script)
        program.close_input()
    return program


def relay(name, executable, *arguments, script=None, json=True, **options):
    """relay-peripheral or relay-central (EXECUTABLE) from $RELAY_BIN with ARGUMENTS, --json
    unless json is False."""
    argv = [os.path.join(BIN, executable), *arguments] + (["--json"] if json else [])
    return start(name, argv, script=script, **options)


def peer(name, script, *arguments, **options):
    """A third-party peer of scenarios/vm/peers (SCRIPT, like bleak_central.py) in the repo's venv;
    its stderr joins its stdout unless merge_stderr=False is given."""
    if not PYTHON:
        fail("no Python venv (run scripts/python-env.sh on the host)")
    options.setdefault("merge_stderr", True)
    return start(name, [PYTHON, os.path.join(PEERS, script), *arguments], **options)


def finish(program, seconds=60):
    """Waits for PROGRAM to exit (its script done, its stdin closed) for SECONDS, then kills it;
    its exit status (None when it had to be killed)."""
    status = program.wait_exit(seconds)
    if status is None:
        program.terminate(grace=5)
        program.wait_exit(5)  # its last lines read before the logs close
        with open(os.path.join(OUT, f"{program.name}.err"), "a") as handle:
            handle.write(f"{program.name} still running after {seconds} s: killed\n")
    program.close_logs()
    return status


def stop(program, command="quit", seconds=15):
    """Sends COMMAND (None: none), closes stdin and waits; SIGTERM, then SIGKILL. Its status."""
    return program.stop(command, timeout=seconds)


def _reason(reason):
    return reason() if callable(reason) else reason


def expect(program, event, reason, timeout=30, count=1, since=0, where=None, **fields):
    """Waits for the COUNT-th EVENT of PROGRAM (fields equal, where(event) true) since index
    SINCE; the event, or the scenario fails with REASON (a text, or a function called then, so
    that it can tell what the logs hold at that moment)."""
    try:
        return program.wait_count(event, count, since=since, timeout=timeout, where=where, **fields)
    except WaitFailed as problem:
        fail(f"{_reason(reason)} ({problem})")


def expect_text(program, pattern, reason, timeout=30, since=0):
    """Waits for a line of PROGRAM (JSON or not) matching the regular expression PATTERN; REASON
    as for expect()."""
    try:
        return program.wait_text(pattern, since=since, timeout=timeout)
    except WaitFailed as problem:
        fail(f"{_reason(reason)} ({problem})")


def exchange_files(peripheral, central, to_peripheral, to_central, timeout=60):
    """The central sends the file TO_PERIPHERAL, then the peripheral TO_CENTRAL: each arrives
    (TIMEOUT s) and is confirmed `delivered`, and each side's messages are exactly that file
    (sha256), or the scenario fails."""
    central.send(f"send-file {to_peripheral}")
    expect(peripheral, "message", "the central's file did not reach the peripheral", timeout=timeout)
    expect(central, "delivered", "the central's file was not confirmed", timeout=30)
    peripheral.send(f"send-file {to_central}")
    expect(central, "message", "the peripheral's file did not reach the central", timeout=timeout)
    expect(peripheral, "delivered", "the peripheral's file was not confirmed", timeout=30)
    if values(peripheral, "message", "sha256") != [sha256(to_peripheral)] or \
            values(central, "message", "sha256") != [sha256(to_central)]:
        fail("a file arrived changed")


def values(program, event, field, **fields):
    """FIELD of every EVENT of PROGRAM so far that has it (and those FIELDS), in order."""
    return [e[field] for e in program.select(event, **fields) if field in e]


def joined(items):
    """Items as one comma-separated string, for messages (a,b,c)."""
    return ",".join(str(item) for item in items)


def file_lines(path, pattern=None):
    """The lines of the text file PATH without their line breaks (none when it is missing), those
    in which the regular expression PATTERN is found when given."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        return []
    return [line for line in lines if not pattern or re.search(pattern, line)]


def err_lines(program):
    """What PROGRAM wrote on stderr (OUT/NAME.err; none when it was merged into stdout)."""
    return file_lines(os.path.join(OUT, f"{program.name}.err"))


def err_tail(program, lines=1):
    """The last LINES lines of PROGRAM's stderr, for a failure's reason (tail -n LINES NAME.err)."""
    return " | ".join(err_lines(program)[-lines:])


def densest(times, window=10):
    """The most of TIMES (seconds) within any WINDOW seconds: a program flooded with garbage must
    keep its report lines under its rate limit, whatever the flood's pace."""
    times = sorted(times)
    most, first = 0, 0
    for last, now in enumerate(times):
        while now - times[first] >= window:
            first += 1
        most = max(most, last - first + 1)
    return most


def tail(program, lines=2, width=200):
    """The last LINES lines of PROGRAM's output so far, for a failure's reason."""
    return " | ".join(text[:width] for text in program.lines()[-lines:])


def pause(seconds):
    time.sleep(seconds)


def run(argv, timeout=60, **options):
    """Runs ARGV to its end; (exit status, stdout and stderr together as text)."""
    try:
        done = subprocess.run([str(part) for part in argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, timeout=timeout, **options)
    except subprocess.TimeoutExpired as expired:
        return None, (expired.output or b"").decode(errors="replace")
    return done.returncode, done.stdout.decode(errors="replace")


def btmgmt(*arguments):
    """BlueZ's btmgmt on a pseudo-terminal (5.7x/5.8x wait forever without one, printing
    nothing); (exit status, output without the terminal's CRs)."""
    line = " ".join(subprocess.list2cmdline([part]) for part in [shutil.which("btmgmt") or "btmgmt", *arguments])
    status, output = run(["script", "-qec", line, "/dev/null"], env=dict(os.environ, SHELL="/bin/bash"))
    return status, output.replace("\r", "")


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def sha256_text(text):
    return hashlib.sha256(text.encode()).hexdigest()


def random_file(path, size):
    """A file of SIZE random bytes at PATH; its SHA-256."""
    data = os.urandom(size)
    with open(path, "wb") as handle:
        handle.write(data)
    return hashlib.sha256(data).hexdigest()


def vm_rss(program):
    return status_kib(program.pid, "VmRSS")


def vm_hwm(program):
    return status_kib(program.pid, "VmHWM")


def epoch():
    """Now, in seconds since the epoch (as the programs' `time` fields)."""
    return time.time()


def event_time(event):
    """An event's `time` field (ISO 8601, UTC) in seconds since the epoch."""
    return datetime.datetime.strptime(event["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def status_of(program, timeout=15):
    """Sends `status` and returns the program's answer (its `status` event)."""
    mark = program.mark()
    program.send("status")
    return expect(program, "status", f"{program.name} did not answer status", timeout=timeout, since=mark)


def wait_progress(program, direction, least, timeout=60, since=0):
    """The first `progress` event of DIRECTION (in or out) saying at least LEAST bytes; None after
    TIMEOUT s."""
    try:
        return program.wait("progress", since=since, timeout=timeout, direction=direction,
                            where=lambda e: e.get("bytes", 0) >= least)
    except WaitFailed:
        return None


def lane_pair():
    """relay-peripheral on hci0 and an honest relay-central on hci1, both `--lane l2cap`, the
    central's lane open and the central ready; the two programs."""
    peripheral = relay("peripheral", "relay-peripheral", "--adapter", "hci0", "--lane", "l2cap")
    peripheral.send("start")
    expect(peripheral, "lane", "the peripheral did not listen for channels", timeout=30, state="listening")
    central = relay("central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", "--connect", "sample",
                    "--lane", "l2cap")
    expect(central, "lane", "the honest central's lane did not open", timeout=90, state="open")
    expect(central, "ready", "the honest central is not ready", timeout=30)
    return peripheral, central
