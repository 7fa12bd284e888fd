"""What a peer leaves besides the lines scenario.py waits on, for the scenarios that run
third-party or hostile peers (scenario-bless.py, scenario-peripheral-bleak.py,
scenario-hostile-sessions.py, scenario-nus.py): its closing report (the last line it prints on
stdout), and files of values, one a line (what bleak and bless record)."""
import json

from scenario import fail


def report_line(program):
    """PROGRAM's last stdout line: a peer's closing report; "" when none."""
    lines = program.lines()
    return lines[-1] if lines else ""


def report_of(program):
    """PROGRAM's last non-empty stdout line as a JSON object; None when it is not one."""
    lines = [line for line in program.lines() if line.strip()]
    if not lines:
        return None
    try:
        report = json.loads(lines[-1])
    except ValueError:
        return None
    return report if isinstance(report, dict) else None


def keep_lines(path, lines):
    """Writes LINES to PATH, one a line (kept for the record)."""
    with open(path, "w") as handle:
        handle.write("".join(f"{line}\n" for line in lines))


def expect_values(what, got, *wanted):
    """The scenario fails unless the lines GOT (empty ones at the end left out) are exactly
    WANTED."""
    got = [str(line) for line in got]
    while got and got[-1] == "":
        got.pop()
    wanted = [str(value) for value in wanted]
    if got != wanted:
        fail(f"{what}: expected [{' '.join(wanted)}], got [{' '.join(' '.join(got).split())}]")
