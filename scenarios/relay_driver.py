#!/usr/bin/env python3
"""One driver of the relay programs (and of peers that speak the same way), for the demo
(scripts/demo-flow), the BLE benchmark (benchmarks/ble/guest_bench.py) and the scenarios.

A program is started with its commands on stdin and one event per stdout line (`--json`:
one JSON object with "event" and "time"). A thread reads stdout line by line and stamps each
line with CLOCK_MONOTONIC as it reads it; JSON objects become events, other lines are kept as
text. Standard library only.

    from relay_driver import RelayProgram, WaitFailed
    central = RelayProgram([bin + "/relay-central", "--json"], name="central", log_dir=out)
    mark = central.mark()
    central.send("scan")
    found = central.wait("discovered", since=mark, timeout=30, name="sample")
    central.stop()

Every scenario that runs relay's programs drives and reads them here (scenarios/vm/scenario.py,
scenarios/hostile-input.py): one driver, one reader of their JSON (parse_line).
"""
import json
import os
import re
import subprocess
import threading
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def parse_line(text):
    """The JSON object of a --json line, or None for anything else."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def shown(value):
    """A field's value as one line of text: a string as itself (JSON-quoted if it holds a line
    break), anything else as compact JSON (numbers, true/false, null, lists, objects)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False) if ("\n" in value or "\r" in value) else value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class WaitFailed(Exception):
    """A wait did not get its event: Timeout or Exited."""


class Timeout(WaitFailed):
    """No such event within the time allowed."""


class Exited(WaitFailed):
    """The program's output ended (it exited) before the event came."""


class Aborted(WaitFailed):
    """The caller's abort check gave a reason to stop waiting."""


class Event(dict):
    """One stdout line: the JSON object's fields (empty for a text line), plus
    stamp (CLOCK_MONOTONIC when read), index (position in the program's events),
    text (the line without its line break), is_text (not a JSON object) and name (the
    "event" field, None for a text line)."""

    def __init__(self, fields, stamp, index, text):
        super().__init__(fields or {})
        self.stamp = stamp
        self.index = index
        self.text = text
        self.is_text = fields is None

    @property
    def name(self):
        return self.get("event")


def matcher(name, where=None, fields=None):
    """A predicate: event NAME (any when None), where(event) true, every field equal."""
    fields = fields or {}

    def matches(event):
        if name is not None and event.name != name:
            return False
        if any(event.get(key) != value for key, value in fields.items()):
            return False
        return where is None or bool(where(event))

    return matches


class RelayProgram:
    """A program driven over stdin, its stdout read line by line on a thread and stamped.

    argv          the command line
    name          for messages and log file names
    log_dir       keep NAME.jsonl (every stdout line as read) and NAME.err (stderr) there
    stamp_log     prefix each NAME.jsonl line with its stamp ("%.6f ") as benchmarks/ble
                  reads them back
    on_event      callback(program, event) for every stdout line (JSON or text) as it
                  arrives, on the reader thread, in order, before waiters are woken
    on_stderr     callback(program, line) for every stderr line; then stderr is read on a
                  thread too (and still copied to NAME.err); without it stderr goes straight
                  to NAME.err (or is inherited without log_dir)
    condition     a threading.Condition shared by several programs: a wait on one is then
                  woken by lines of any (e.g. to abort on another program's error)
    merge_stderr  stderr joins stdout (one stream of lines, in the order written: for peers
                  that log on stderr and report on stdout); NAME.err is then not written
    log_suffix    the stdout log's file name ending (".jsonl")
    """

    def __init__(self, argv, name="program", log_dir=None, stamp_log=False, on_event=None, on_stderr=None,
                 condition=None, env=None, cwd=None, merge_stderr=False, log_suffix=".jsonl"):
        self.name = name
        self.argv = list(argv)
        self.events = []
        self.condition = condition or threading.Condition()
        self.closed = False  # stdout reached its end
        self.stamp_log = stamp_log
        self.on_event = on_event
        self.on_stderr = on_stderr
        self.raw = open(os.path.join(log_dir, f"{name}{log_suffix}"), "w") if log_dir else None
        self.err = open(os.path.join(log_dir, f"{name}.err"), "w") if log_dir and not merge_stderr else None
        stderr = subprocess.STDOUT if merge_stderr else subprocess.PIPE if on_stderr else self.err
        self.launched = time.monotonic()
        # Unbuffered pipes: each line is stamped the moment it can be read, and a command is
        # on its way the moment send() returns.
        self.process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                        bufsize=0, env=env, cwd=cwd)
        self.pid = self.process.pid
        self.readers = [threading.Thread(target=self._read, name=f"{name}-stdout", daemon=True)]
        if on_stderr:
            self.readers.append(threading.Thread(target=self._read_stderr, name=f"{name}-stderr", daemon=True))
        for reader in self.readers:
            reader.start()

    # Reading

    def _read(self):
        for line in self.process.stdout:
            stamp = time.monotonic()
            text = line.decode("utf-8", errors="replace")
            if self.raw:
                self.raw.write(f"{stamp:.6f} {text}" if self.stamp_log else text)
                self.raw.flush()
            text = text.rstrip("\n")
            with self.condition:
                event = Event(parse_line(text), stamp, len(self.events), text)
                self.events.append(event)
                if self.on_event:
                    self.on_event(self, event)
                self.condition.notify_all()
        with self.condition:
            self.closed = True
            self.condition.notify_all()

    def _read_stderr(self):
        for line in self.process.stderr:
            text = line.decode("utf-8", errors="replace")
            if self.err:
                self.err.write(text)
                self.err.flush()
            self.on_stderr(self, text.rstrip("\n"))

    # Commands

    def send(self, text):
        """Writes TEXT (one command line, or several joined; a final line break is added when
        missing) to the program's stdin; returns the stamp taken just before the write."""
        if not text.endswith("\n"):
            text += "\n"
        return self.send_bytes(text.encode())

    def send_bytes(self, data):
        """Writes DATA (bytes, as they are: no encoding, no line break added; invalid UTF-8 or a
        NUL byte too) to the program's stdin, all of it; returns the stamp taken just before the
        write. Blocks while the pipe is full; raises BrokenPipeError (an OSError) when the program
        closed its stdin or exited."""
        stamp = time.monotonic()
        view = memoryview(data)
        while view:
            written = self.process.stdin.write(view)
            view = view[written:]
        return stamp

    def close_input(self):
        """Closes stdin: the end of the commands (a relay program then exits by itself)."""
        try:
            self.process.stdin.close()
        except OSError:
            pass

    # Events

    def mark(self):
        """The index the next event will have: pass it as `since` to wait for what comes after."""
        with self.condition:
            return len(self.events)

    def wait(self, name, /, since=0, timeout=60.0, where=None, abort=None, **fields):
        """The first event NAME at index >= since whose fields equal the given keywords (any
        field, `name` too: NAME is positional only) and for which where(event) is true.
        Raises Timeout after TIMEOUT seconds, Exited when the output ends first, Aborted when
        abort() (called at every new line of any program that shares the condition) returns
        a reason."""
        matches = matcher(name, where, fields)
        return self._first(lambda event: event.name is not None and matches(event), since, timeout, name, abort)

    def wait_count(self, name, wanted, /, since=0, timeout=60.0, where=None, **fields):
        """The WANTED-th event NAME at index >= since that matches (as wait): for "the third
        `subscribed`". Raises as wait does."""
        event, found = None, 0
        index = since
        deadline = time.monotonic() + timeout
        while found < wanted:
            event = self.wait(name, since=index, timeout=max(0.0, deadline - time.monotonic()), where=where, **fields)
            found += 1
            index = event.index + 1
        return event

    def wait_text(self, pattern, /, since=0, timeout=60.0):
        """The first line (JSON or not) at index >= since in which the regular expression
        PATTERN is found (re.search on the line's text). Raises Timeout or Exited."""
        expression = re.compile(pattern)
        return self._first(lambda event: expression.search(event.text), since, timeout, f"a line like {pattern!r}")

    def _first(self, matches, since, timeout, what, abort=None):
        """The first event at index >= since for which matches(event) is true, waiting for lines
        as they come; raises Aborted, Exited or Timeout (naming WHAT)."""
        deadline = time.monotonic() + timeout
        index = since
        with self.condition:
            while True:
                while index < len(self.events):
                    event = self.events[index]
                    index += 1
                    if matches(event):
                        return event
                if abort:
                    reason = abort()
                    if reason:
                        raise Aborted(reason)
                if self.closed:
                    raise Exited(f"{self.name} exited while waiting for {what}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Timeout(f"{self.name}: no {what} within {timeout} s")
                self.condition.wait(left)

    def lines(self, pattern=None, since=0):
        """The text of every line so far (JSON or not) at index >= since, those in which
        PATTERN is found when given."""
        expression = re.compile(pattern) if pattern else None
        with self.condition:
            return [event.text for event in self.events[since:] if not expression or expression.search(event.text)]

    def select(self, name=None, /, since=0, where=None, **fields):
        """Every event so far (JSON events only) at index >= since, of NAME (any when None), that matches."""
        matches = matcher(name, where, fields)
        with self.condition:
            return [event for event in self.events[since:] if event.name is not None and matches(event)]

    def count(self, name, /, since=0, where=None, **fields):
        return len(self.select(name, since, where, **fields))

    def values(self, name, field="value", since=0):
        """FIELD of every event NAME so far (None where it lacks it)."""
        return [event.get(field) for event in self.select(name, since)]

    def last(self, name, since=0):
        found = self.select(name, since)
        return found[-1] if found else None

    # Process

    def cpu(self):
        """utime + stime of the program so far, in seconds."""
        return cpu_seconds(self.pid)

    def memory(self, field):
        """A /proc/PID/status field in KiB (VmRSS, VmHWM, ...)."""
        return status_kib(self.pid, field)

    def poll(self):
        return self.process.poll()

    def running(self):
        return self.process.poll() is None

    def signal(self, number):
        """Sends signal NUMBER (signal.SIGSTOP, ...) when the program still runs."""
        if self.process.poll() is None:
            self.process.send_signal(number)

    def wait_exit(self, timeout):
        """The exit status once the program exited and its output was read; None after TIMEOUT s."""
        deadline = time.monotonic() + timeout
        try:
            status = self.process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            return None
        for reader in self.readers:
            reader.join(max(0.0, deadline - time.monotonic()))
        return status

    def stop(self, command="quit", timeout=15.0):
        """Sends COMMAND (none when None), closes stdin and waits TIMEOUT s for the program to
        exit; then SIGTERM, 5 s, SIGKILL. Closes the logs. Returns the exit status."""
        if command:
            try:
                self.send(command)
            except OSError:
                pass
        self.close_input()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for reader in self.readers:
            reader.join(5)
        self.close_logs()
        return self.process.returncode

    def terminate(self, grace=10.0):
        """SIGTERM now, SIGKILL after GRACE s."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.process.returncode

    def close_logs(self):
        for handle in (self.raw, self.err):
            if handle and not handle.closed:
                handle.close()


def cpu_seconds(pid):
    """utime + stime of PID, in seconds."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def status_kib(pid, field):
    """A /proc/PID/status field in KiB, None when absent."""
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None
