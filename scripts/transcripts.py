#!/usr/bin/env python3
"""The docs' transcripts: what the programs printed in a real run, pasted into the docs and checked.

    scripts/transcripts.py check RUN_DIR   compare the docs' transcripts with a run's
    scripts/transcripts.py paste RUN_DIR   put a run's transcripts into the docs

A transcript in a doc is a fenced block right after a marker naming it:

    <!-- transcript: readme-peripheral (recorded by scenario-transcripts.py; scripts/transcripts.py) -->
    ```text
    relay-peripheral [on]> start
    ...
    ```

`scenarios/vm/scenario-transcripts.py` runs the flows in the test bed (human output, each command
shown after its prompt as a terminal shows it: `RELAY_SHOW_COMMANDS=1`) and writes each program's
output to RUN_DIR/transcripts/NAME.txt, the `wait` and `sleep` lines that pace the script left out;
then it checks the docs against them, so `make test` fails when a doc's transcript is no longer
what the programs print. Compared: the commands, in order, and every other line, in any order
(events from two radios and a bus come in the order they come), each with what differs from run
to run made alike (durations, times, signal strength, the PSM the kernel picks, the folder the
browser page is in). A JSON transcript
starts with the command line that ran it (the scenario writes it from the script it ran) and
leaves out the `progress` events. `paste` writes the
run's lines as they were.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ["README.md", "docs/cli.md", "docs/repl.md", "docs/workshop.md"]
MARKER = re.compile(r"^<!-- transcript: ([a-z0-9-]+)\b.*-->\s*$")
PROMPT = re.compile(r"^relay-(?:peripheral|central) \[[^\]]*\]> ")
# What differs between two runs of the same flow: durations and rates, signal strength, the PSM.
VARIABLE = [
    (re.compile(r"\b\d+(?:\.\d+)? (s|ms|kB/s|KiB/s)\b"), r"# \1"),
    (re.compile(r"RSSI -?\d+"), "RSSI #"),
    (re.compile(r"PSM 0x[0-9a-f]{4}"), "PSM 0x#"),
    # Where the browser page is: the repository's web/ in a build, /usr/share/relay/web installed.
    (re.compile(r"[^\s\"']*/web/relay\.html"), "…/web/relay.html"),
    (re.compile(r'"(time|seconds|rssi|psm)":(?:"[^"]*"|-?[0-9.]+|null)'), r'"\1":#'),
]
# Script lines that pace the flow, not part of what a person types.
PACING = re.compile(r"^(?:wait|sleep)\b")
# JSON events whose number depends on the time things take (one every quarter second of a transfer).
TIMED = re.compile(r'^\{"event":"progress"')


def shown(lines: list[str]) -> list[str]:
    """A run's output as a transcript shows it: without the pacing commands and the `progress`
    events (their number is the transfer's time)."""
    return [
        line for line in lines
        if not (PROMPT.match(line) and PACING.match(PROMPT.sub("", line))) and not TIMED.match(line)
    ]


def alike(line: str) -> str:
    for pattern, replacement in VARIABLE:
        line = pattern.sub(replacement, line)
    return line.rstrip()


def differences(doc: list[str], run: list[str]) -> list[str]:
    """What a doc's transcript says that the run did not print, and the other way."""
    problems = []
    commands_doc = [line for line in doc if PROMPT.match(line)]
    commands_run = [line for line in run if PROMPT.match(line)]
    if [alike(c) for c in commands_doc] != [alike(c) for c in commands_run]:
        problems.append(f"the commands and prompts differ: the doc has {commands_doc}, the run {commands_run}")
    rest_doc = Counter(alike(line) for line in doc if not PROMPT.match(line))
    rest_run = Counter(alike(line) for line in run if not PROMPT.match(line))
    for line in sorted((rest_doc - rest_run).elements()):
        problems.append(f"only in the doc: {line}")
    for line in sorted((rest_run - rest_doc).elements()):
        problems.append(f"only in the run: {line}")
    return problems


def blocks(text: str) -> dict[str, tuple[int, int]]:
    """Each transcript of a doc: its name, and the lines (start, end) inside its fence."""
    lines = text.split("\n")
    found = {}
    for index, line in enumerate(lines):
        match = MARKER.match(line)
        if not match:
            continue
        if index + 1 >= len(lines) or not lines[index + 1].startswith("```"):
            raise SystemExit(f"transcripts: the marker of {match.group(1)} is not followed by a fenced block")
        end = next((i for i in range(index + 2, len(lines)) if lines[i].startswith("```")), None)
        if end is None:
            raise SystemExit(f"transcripts: the block of {match.group(1)} is not closed")
        found[match.group(1)] = (index + 2, end)
    return found


def recorded(run_dir: Path, name: str) -> list[str] | None:
    path = run_dir / "transcripts" / f"{name}.txt"
    return path.read_text().rstrip("\n").split("\n") if path.exists() else None


def check(run_dir: Path) -> list[str]:
    problems = []
    seen = 0
    for doc in DOCS:
        text = (ROOT / doc).read_text()
        lines = text.split("\n")
        for name, (start, end) in blocks(text).items():
            seen += 1
            run = recorded(run_dir, name)
            if run is None:
                problems.append(f"{doc}: transcript {name}: the run recorded none of this name")
                continue
            problems += [f"{doc}: transcript {name}: {p}" for p in differences(lines[start:end], run)]
    if seen == 0:
        problems.append("no doc has a transcript marker")
    return problems


def paste(run_dir: Path) -> int:
    pasted = 0
    for doc in DOCS:
        path = ROOT / doc
        lines = path.read_text().split("\n")
        for name, (start, end) in sorted(blocks("\n".join(lines)).items(), key=lambda item: -item[1][0]):
            run = recorded(run_dir, name)
            if run is None:
                print(f"transcripts: {doc}: no recording of {name} in {run_dir}")
                continue
            lines[start:end] = run
            pasted += 1
        path.write_text("\n".join(lines))
    print(f"transcripts: {pasted} pasted")
    return 0


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("check", "paste"):
        print(__doc__.split("\n\n")[1])
        return 64
    run_dir = Path(sys.argv[2])
    if sys.argv[1] == "paste":
        return paste(run_dir)
    problems = check(run_dir)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
