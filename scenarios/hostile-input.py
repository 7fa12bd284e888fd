#!/usr/bin/env python3
# Hostile input 9 (issue 8), on the host, no Bluetooth needed: the REPL and the command line
# of relay-peripheral and relay-central fed very long lines, invalid UTF-8, control
# characters, huge and negative numbers, and send-file on missing files, directories,
# devices, FIFOs and unreadable files. Each bad line must give exactly one `error` event
# naming its line, the good lines around it must still run, and the program must end by
# itself (no hang: a 20 s limit; no crash: exit status 1 from the failed lines, not a signal).
# Each bad command-line option must give exit status 64 and one line on stderr.
# The bad lines include lines over 64 KiB (one of 2 MB), a NUL byte, hex and exponent numbers,
# unknown events and send-file on /dev/zero (the unreadable file is tried as an unprivileged user
# when the tests run as root); the bad options: negative, huge, zero and malformed values, and a
# 100 KB option.
#   scenarios/hostile-input.py            (run by make test; RELAY_BIN selects the binaries)
# Both programs are driven through scenarios/relay_driver.py (RelayProgram). Standard library only.
import os
import re
import shutil
import signal
import sys
import tempfile
import threading

from relay_driver import RelayProgram, shown

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(os.environ.get("RELAY_BIN") or os.path.join(REPO, ".build/debug"))

failures = 0


def fail(message):
    global failures
    print(f"FAIL hostile-input: {message}", flush=True)
    failures += 1


def status_of(returncode):
    """An exit status as the shell reports it: 128 + N for a program killed by signal N."""
    return 128 - returncode if returncode < 0 else returncode


def shell_quoted(argument):
    """ARGUMENT (bytes) quoted as bash's `printf %q` quotes it: $'...' with octal escapes when
    it holds a byte that does not print, backslashes before the shell's special characters
    otherwise."""
    if not argument:
        return "''"
    if any(not 0x20 <= byte < 0x7F for byte in argument):
        named = {0x07: "\\a", 0x08: "\\b", 0x1B: "\\E", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t",
                 0x0B: "\\v", 0x5C: "\\\\", 0x27: "\\'"}
        return "$'" + "".join(named.get(byte) or (chr(byte) if 0x20 <= byte < 0x7F else f"\\{byte:03o}")
                              for byte in argument) + "'"
    text = argument.decode("ascii")
    return "".join("\\" + char if char in " \t\n'\"\\|&;()<>!{}*[?]^$`," or (index == 0 and char in "~#") else char
                   for index, char in enumerate(text))


def options_shown(arguments):
    """The options as the failure messages show them: `printf '%q ' "$@" | cut -c1-80`."""
    return "".join(shell_quoted(argument) + " " for argument in arguments)[:80]


def make_script(program, work):
    """One script line per case (bytes); `EXPECTED_LINES` lists the line numbers that must fail
    (each once). Line 1 and the last line are good commands whose output proves the REPL went on."""
    common_numbers = [
        b"status",
        b"send " + b"x" * 70000,                                                 # 2: > 64 KiB
        b"send \xff\xfe invalid utf-8",                                           # 3
        b"send \x1b[31m escape",                                                  # 4
        b"send \x01\x02\x7f controls",                                            # 5
        b"sleep -1",                                                              # 6
        b"sleep 1e9",                                                             # 7
        b"wait state 99999999999999999999",                                       # 8
        b"send-file /nonexistent/relay-hostile",                                  # 9
        b"send-file " + os.fsencode(work),                                        # 10
        b"send-file /dev/zero",                                                   # 11
        b"send-file " + os.fsencode(work) + b"/fifo",                             # 12
        b"send-file " + os.fsencode(work) + b"/unreadable",                       # 13
        b"send-file",                                                             # 14
        b"nonsense\x00with a nul",                                                # 15: a NUL byte
        b"wait nosuchevent 1",                                                    # 16
    ]
    if program == "relay-peripheral":
        numbers = [b"notify -1", b"notify 4294967296", b"notify 99999999999999999999999999", b"notify 0x10"]  # 17-20
    else:
        numbers = [b"write -1", b"write 4294967296", b"write 99999999999999999999999999", b"connect -3"]       # 17-20
    with open(os.path.join(work, "long-word"), "rb") as handle:
        long_word = handle.read()                                                 # 21: 2 MB line
    return b"".join(line + b"\n" for line in common_numbers + numbers + [long_word, b"status"])  # 22


EXPECTED_LINES = "2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21"


def run_repl(program, work, as_user):
    """PROGRAM --json in WORK (as AS_USER when given) fed the hostile script on stdin."""
    script = make_script(program, work)
    relay = RelayProgram([*as_user, f"{BIN}/{program}", "--json"], name=program, log_dir=work, cwd=work)

    def feed():
        # The program reads its stdin as it runs; one that exits (or is ended) before reading it
        # all breaks the pipe, and the exit status says what happened.
        try:
            relay.send_bytes(script)
        except OSError:
            pass
        relay.close_input()

    feeder = threading.Thread(target=feed, name=f"{program}-stdin", daemon=True)
    feeder.start()
    try:
        returncode = relay.wait_exit(20)
        if returncode is None:  # `timeout -k 5 20`: SIGTERM, SIGKILL 5 s later
            relay.terminate(5)
            fail(f"{program} hung on hostile input")
            return
        status = status_of(returncode)
        if status >= 128:
            with open(os.path.join(work, f"{program}.err"), encoding="utf-8", errors="replace") as handle:
                tail = "\n".join(handle.read().rstrip("\n").split("\n")[-3:])
            fail(f"{program} crashed (status {status}): {tail}")
            return
        if status != 1:
            fail(f"{program} exited {status}, expected 1 (some lines failed)")
        lines = " ".join(shown(event["line"]) for event in relay.select("error") if "line" in event)
        if lines != EXPECTED_LINES:
            fail(f"{program}: errors on lines [{lines}], expected [{EXPECTED_LINES}]")
        errors = len(relay.lines(re.escape('"event":"error"')))
        if errors != 20:
            fail(f"{program}: {errors} error lines, expected 20")
        if len(relay.lines(re.escape('"event":"status"'))) != 2:
            fail(f"{program}: the REPL did not run the good lines around the bad ones")
        # Every error is one short line, never an echo of a 2 MB argument.
        if any(len(line) > 2000 for line in relay.lines()):
            fail(f"{program}: an error line is longer than 2000 characters")
        if not relay.lines("permission denied|Permission denied") and as_user:
            fail(f"{program}: the unreadable file was not refused as such")
        messages = [found.group(1) for found in (re.search(r'.*"message":"([^"]{0,60})', line)
                                                 for line in relay.lines(re.escape('"event":"error"'))) if found]
        print(f"ok {program} REPL: {''.join(message + '|' for message in messages[:20])[:200]}…", flush=True)
    finally:
        if relay.running():
            relay.terminate(5)
        feeder.join(10)
        relay.close_logs()


def run_options(program, work, *arguments):
    """PROGRAM ARGUMENTS (bytes) with nothing on stdin: exit status 64, a short message on stderr."""
    relay = RelayProgram([f"{BIN}/{program}".encode(), *arguments], name="opt", log_dir=work, log_suffix=".out")
    relay.close_input()
    try:
        returncode = relay.wait_exit(10)
        if returncode is None:  # `timeout -k 5 10`, which then exits 124
            relay.terminate(5)
            returncode = 124
    finally:
        relay.close_logs()
    status = status_of(returncode)
    shown_options = options_shown(arguments)
    if status != 64:
        fail(f"{program} {shown_options}: exit {status}, expected 64")
        return
    size = os.path.getsize(os.path.join(work, "opt.err"))
    if size == 0:
        fail(f"{program} {shown_options}: nothing on stderr")
    if size >= 4000:
        fail(f"{program} {shown_options}: stderr is {size} bytes")


def main():
    work = tempfile.mkdtemp(prefix="relay-hostile.", dir="/tmp")
    try:
        return run(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(work):
    os.chmod(work, 0o755)
    os.mkfifo(os.path.join(work, "fifo"))
    os.chmod(os.path.join(work, "fifo"), 0o644)
    with open(os.path.join(work, "unreadable"), "wb") as handle:
        handle.write(os.urandom(100))
    os.chmod(os.path.join(work, "unreadable"), 0)
    with open(os.path.join(work, "long-word"), "wb") as handle:
        handle.write(b"a" * 2000000)
    with open(os.path.join(work, "long-word"), "rb") as handle:
        long_option = handle.read(100000)
    # A user that cannot read the unreadable file even when the tests run as root.
    as_user = []
    if os.geteuid() == 0 and shutil.which("setpriv"):
        as_user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    for program in ("relay-peripheral", "relay-central"):
        if not os.access(f"{BIN}/{program}", os.X_OK):
            print(f"FAIL hostile-input: {BIN}/{program} missing (swift build)", flush=True)
            return 1
        run_repl(program, work, as_user)
        run_options(program, work, b"--max-message", b"-1")
        run_options(program, work, b"--max-message", b"99999999999999999999999")
        run_options(program, work, b"--max-message", b"0")
        run_options(program, work, b"--adapter", b"hci\xff")
        run_options(program, work, b"--nosuchoption")
        run_options(program, work, b"--max-message")
        run_options(program, work, b"--" + long_option)
        run_options(program, work, b"--max-message", long_option)
    run_options("relay-peripheral", work, b"--name", b"n" * 300)
    run_options("relay-central", work, b"--scan-timeout", b"nan")
    run_options("relay-central", work, b"--scan-timeout", b"-5")
    run_options("relay-central", work, b"--scan-timeout", b"1e999")

    if failures > 0:
        print(f"hostile-input: {failures} failure(s)")
        return 1
    print("PASS hostile-input (both programs: 20 hostile REPL lines, 10+ hostile options each)")
    return 0


if __name__ == "__main__":
    # Ended by a signal, still remove the work folder (as the shell's EXIT trap did).
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    sys.exit(main())
