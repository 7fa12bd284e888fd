#!/usr/bin/env python3
"""The docs check of `make lint`: what the docs name exists in the code.

    scripts/docs-check.py              check README.md, ARCHITECTURE.md and docs/*.md
    scripts/docs-check.py --self-test  check that a stale copy of the docs fails it

Each backticked name and code block of the docs is read for what it names, and each must exist:
- a file path (`scripts/test-suite`, `LaneOutbox.swift`, `peers/hostile_lane.py`): a file or
  folder of the repository (a bare or partial path: one whose path ends with it);
- `make TARGET`: a target of the Makefile;
- an option of relay-peripheral or relay-central (`--lane auto`): one of their option specs
  (`.flag("...")`, `.value("...")` in Sources), or of a script of the repository;
- a code name (`LaneOutbox`, `PeripheralLaneTests.testX`, `Device1.Disconnect`, a scenario's
  `RelayProgram`): each of its parts a word of the Swift or Python code (BlueZ's and the
  kernel's names are there too, as the code calls them);
- an event (`"event":"delivered"` in a JSON example): one of the programs' event names;
- a JSON key in an example (`"max_value":`): a string the code writes;
- a UUID: one of Sources;
- a number with one source (`FACTS`: a lane's stall, its queue's bound, the free inodes a save
  needs, ...): the constant's value.
And the other way: every option, REPL command and event name of the programs is in docs/cli.md;
and every JSON key the programs write is lowerCamelCase (but the old names kept for a release).
A failure is one line: the doc, its line, what it names and why it is not there.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ["README.md", "ARCHITECTURE.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]

# Names the docs take from elsewhere on purpose: other programs' options, and words that are
# not this repository's code. Each says where it comes from.
FOREIGN_OPTIONS = {
    # Chromium (docs/test-bed.md, the browser peer)
    "--headless", "--no-sandbox", "--enable-features", "--remote-debugging-pipe",
    # swift, apt, dpkg, git, bluetoothctl, btmgmt, qemu, python, make
    "--skip-build", "--filter", "--product", "--recursive", "--in-place", "--strict", "--version",
    "--help", "--no-install-recommends", "--install", "--depth", "--enable-test-discovery",
}

# Names the docs give that are not the repository's: the standard library's and the kernel's
# (in profiles and memory figures), and files the runs write.
FOREIGN_NAMES = {"IndexingIterator", "VmHWM", "VmRSS"}
RUN_OUTPUTS = {"timings.md", "air-results.json"}  # make test's and make bench's, in a run's folder

# Numbers with one source: each is read from the code, and every place a doc gives it must say
# the same. (file, the constant's pattern, the docs' pattern; each captures the number)
FACTS = [
    ("Sources/relay-peripheral/LaneOutbox.swift", r"static let stallSeconds = (\d+)",
     r"full for (\d+) s (?:of|in all within) the last \d+ s"),
    ("Sources/relay-peripheral/LaneOutbox.swift", r"static let stallWindow = (\d+)",
     r"full for \d+ s (?:of|in all within) the last (\d+) s"),
    ("Sources/relay-peripheral/LaneOutbox.swift", r"static let limit = (\d+) \* 1024",
     r"(?:at most|beyond|than) (\d+) KiB (?:wait|for one channel|queued)|(\d+) KiB wait"),
    ("Sources/Shared/RelayCLI/FileWriter.swift", r"minimumFreeInodes = (\d+)", r"(\d+) free inodes"),
    ("Sources/relay-peripheral/PeripheralSession+Lanes.swift", r"laneValueTimeout = (\d+)",
     r"incomplete after (\d+) s"),
    ("Sources/relay-peripheral/PeripheralSession+Lanes.swift", r"smallestLaneMTU = (\d+)", r"the lane needs (\d+)"),
    ("Sources/relay-peripheral/PeripheralDelivery.swift", r"maximumHellosPerWindow = (\d+)",
     r"(\d+) hellos within \d+ s"),
]

UUID = r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"


def repository_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split("\n")
    return [line for line in out if line and (ROOT / line).exists()]


class Code:
    """What the code defines, read from its sources."""

    def __init__(self, files: list[str]) -> None:
        self.files = set(files)
        self.folders = {str(parent) for f in files for parent in Path(f).parents if str(parent) != "."}
        swift = [f for f in files if f.endswith(".swift")]
        self.sources = {f: (ROOT / f).read_text(errors="replace") for f in swift}
        source_text = "\n".join(t for f, t in self.sources.items() if f.startswith("Sources/"))
        # (Not this checker: its self-test names what does not exist.)
        files = [f for f in files if f != "scripts/docs-check.py"]
        python = [f for f in files if f.endswith(".py") or f.startswith("scripts/")]
        all_text = "\n".join(self.sources.values()) + "\n".join(
            (ROOT / f).read_text(errors="replace") for f in python)
        self.words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", all_text)) | FOREIGN_NAMES
        self.strings = set(re.findall(r'"([^"\\\n]*)"', source_text))
        self.options = {f"--{name}" for name in re.findall(r'\.(?:flag|value)\(\s*"([a-z0-9-]+)"', source_text)}
        self.options |= {"--help", "--version"}
        scripts = [f for f in files if f.startswith(("scripts/", "scenarios/", "benchmarks/", ".ci/"))]
        self.script_options = set()
        for f in scripts:
            text = (ROOT / f).read_text(errors="replace")
            self.script_options |= set(re.findall(r"(--[a-z][a-z0-9-]+)", text))
        self.commands = set()
        for match in re.finditer(r'"([a-z-]+)",\s*synopsis:', source_text):
            self.commands.add(match.group(1))
        for match in re.finditer(r'"([a-z-]+)",\s*summary:', source_text):
            self.commands.add(match.group(1))
        self.commands -= {"relay-peripheral", "relay-central"}  # the programs' own summaries
        self.events = self._events(source_text)
        self.uuids = {u.lower() for u in re.findall(UUID, source_text)}
        targets = re.findall(r"^([a-z][a-z0-9-]*):", (ROOT / "Makefile").read_text(), re.M)
        phony = re.findall(r"^\.PHONY:(.*)$", (ROOT / "Makefile").read_text(), re.M)
        self.targets = set(targets) | {t for line in phony for t in line.split()}

    @staticmethod
    def _events(text: str) -> set[str]:
        """The names in the programs' `names` lists (PeripheralEvent, CentralEvent, and the lists
        they join: TransferEvent, PairingEvent, LaneEvent), and the events of `--check` and the
        console's."""
        names: set[str] = set()
        for block in re.findall(r"static let (?:names|peripheralNames|centralNames)\s*=\s*(\[[^\]]*\](?:\s*\+[^\n]*)?)", text):
            names |= set(re.findall(r'"([a-z-]+)"', block))
        names |= set(re.findall(r'static let name = "([a-z-]+)"', text))
        # Events outside the lists: --check's findings, plain text in JSON mode.
        names |= set(re.findall(r'var name: String \{ "([a-z-]+)" \}', text))
        names |= set(re.findall(r'jsonLine\(name: "([a-z-]+)"', text))
        return names


PATH_ROOTS = ("Sources/", "Tests/", "scripts/", "scenarios/", "docs/", "benchmarks/", ".ci/", "packaging/", "web/")
PATH_SUFFIXES = (".swift", ".py", ".sh", ".md", ".html", ".js", ".css", ".json", ".toml")
SWIFT_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?$")


def spans(text: str):
    """(line number, text, in a code block) for every inline code span, and every line of a
    fenced block as its own span."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            yield number, line, True
            continue
        for match in re.finditer(r"`([^`]+)`", line):
            yield number, match.group(1), False


def check_doc(doc: str, text: str, code: Code) -> list[str]:
    problems: list[str] = []

    def fail(number: int, what: str, why: str) -> None:
        problems.append(f"{doc}:{number}: {what}: {why}")

    for number, span, in_block in spans(text):
        for match in re.finditer(r'"event"\s*:\s*"([a-z-]+)"', span):
            if match.group(1) not in code.events:
                fail(number, f'"event":"{match.group(1)}"', "no event of either program has this name")
        for match in re.finditer(r'"([A-Za-z_][A-Za-z0-9_]*)"\s*:', span):
            key = match.group(1)
            if key not in code.strings:
                fail(number, f'JSON key "{key}"', "the code writes no such key")
        for uuid in re.findall(UUID, span):
            if uuid.lower() not in code.uuids:
                fail(number, uuid, "no UUID of Sources")
        # `make TARGET` anywhere in a backticked span; in a code block only as the line's command.
        words = span.split()
        for index, word in enumerate(words[:-1]):
            if word == "make" and (not in_block or index == 0):
                target = words[index + 1].strip(".,;:)")
                if re.fullmatch(r"[a-z][a-z0-9-]*", target) and target not in code.targets:
                    fail(number, f"make {target}", "no such target in the Makefile")
        program_line = re.match(r"^\s*(?:\$ )?(?:\S*/)?(relay-peripheral|relay-central)\b", span)
        if program_line:
            for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", span):
                if option not in code.options:
                    fail(number, option, f"{program_line.group(1)} has no such option")
        if in_block:
            continue
        token = span.strip()
        if re.fullmatch(r"--[a-z][a-z0-9-]*(?:[ =].*)?", token):
            option = re.match(r"--[a-z][a-z0-9-]*", token).group(0)
            if option not in code.options and option not in code.script_options and option not in FOREIGN_OPTIONS:
                fail(number, option, "no option of the programs or the project's scripts")
            continue
        if re.fullmatch(r"[\w.\-/]+", token) and ("/" in token or token.endswith(PATH_SUFFIXES)):
            path = token.rstrip("/")
            if path.startswith(("/", "../")) or path in RUN_OUTPUTS or re.fullmatch(r"\.[a-z]+", path):
                continue  # outside the repository, a run's output, a bare extension
            if re.search(r"\b[A-Z]{2,}\b", path) or not path.startswith(PATH_ROOTS) and not path.endswith(PATH_SUFFIXES):
                continue  # a template (`NAME.jsonl`), or a path of something else (`org/bluez`)
            known = code.files | code.folders
            if path not in known and not any(name.endswith("/" + path) for name in known):
                fail(number, path, "no such file in the repository")
            continue
        if SWIFT_NAME.fullmatch(token) and any(c.islower() for c in token):
            for part in token.rstrip("()").split("."):
                if part not in code.words:
                    fail(number, token, f"{part} is not a name in the Swift or Python code")
                    break
    return problems


def reverse(code: Code, docs: dict[str, str]) -> list[str]:
    """Every option, command and event of the programs has a row of its own in one of cli.md's
    tables (`| `--allow ADDRESS` | ...`); an event outside them (`--check`'s, the console's) has
    its JSON shown (`{"event":"checked",...}`)."""
    cli = docs.get("docs/cli.md", "")
    rows = set(re.findall(r"^\| `([^` ]+)", cli, re.M))
    rows |= {name for row in re.findall(r"^\| (`[^|]*)\|", cli, re.M) for name in re.findall(r"`([^` ]+)", row)}
    shown = set(re.findall(r'"event":"([a-z-]+)"', cli))
    problems = []
    for kind, names in (("an option", code.options), ("a command", code.commands), ("an event", code.events - shown)):
        for name in sorted(names - rows):
            problems.append(f"docs/cli.md: {name}: {kind} of the programs that no row of cli.md describes")
    return problems


def facts(docs: dict[str, str]) -> list[str]:
    """Every number of `FACTS` the docs give is the code's."""
    problems = []
    for source, constant, phrase in FACTS:
        found = re.search(constant, (ROOT / source).read_text())
        if not found:
            problems.append(f"{source}: {constant}: the constant the docs' numbers come from is gone")
            continue
        value = found.group(1)
        for doc, text in docs.items():
            for number, line in enumerate(text.split("\n"), 1):
                for match in re.finditer(phrase, line):
                    given = next(g for g in match.groups() if g is not None)
                    if given != value:
                        problems.append(f"{doc}:{number}: {match.group(0)!r}: the code says {value} ({source})")
    return problems


# JSON keys are lowerCamelCase (docs/cli.md, "Events"); these old names are still sent beside
# their new ones for a release.
OLD_JSON_KEYS = {"max_value"}


def key_style(code: Code) -> list[str]:
    """Every JSON key the programs write (`("key", .value)` in Sources) is lowerCamelCase."""
    problems = []
    for path, text in sorted(code.sources.items()):
        if not path.startswith("Sources/") or "/RelayBlueZ/" in path or "/RelayDBus/" in path:
            continue  # bluetoothd's dictionaries have their own keys
        for number, line in enumerate(text.split("\n"), 1):
            for key in re.findall(r'\("([A-Za-z0-9_]+)", *\.', line):
                if key not in OLD_JSON_KEYS and not re.fullmatch(r"[a-z][a-zA-Z0-9]*", key):
                    problems.append(f"{path}:{number}: JSON key {key!r} is not lowerCamelCase")
    return problems


def run(root_docs: dict[str, str], code: Code) -> list[str]:
    problems: list[str] = []
    for doc, text in root_docs.items():
        problems += check_doc(doc, text, code)
    return problems + reverse(code, root_docs) + facts(root_docs) + key_style(code)


def self_test(code: Code, docs: dict[str, str]) -> int:
    """A stale copy fails: each kind of drift, put in a copy of cli.md, is found."""
    stale = {
        "an option": ("`--colour auto`", "--colour"),
        "a program's option": ("```\nrelay-central --json --fast\n```", "--fast"),
        "a file": ("`scripts/gone.sh`", "scripts/gone.sh"),
        "a make target": ("`make bench-everything`", "make bench-everything"),
        "a Swift name": ("`LaneOutbox.takeEverything`", "LaneOutbox.takeEverything"),
        "an event": ('```\n{"event":"teleported","time":1}\n```', '"event":"teleported"'),
        "a JSON key": ('```\n{"event":"counter","colour":1}\n```', 'JSON key "colour"'),
        "a UUID": ("`6B5C4A86-CFB7-4031-98EB-09DF5E2543F1`", "6B5C4A86-CFB7-4031-98EB-09DF5E2543F1"),
        "a number": ("a channel full for 25 s of the last 30 s is closed", "full for 25 s"),
    }
    failures = 0
    for kind, (snippet, named) in stale.items():
        copy = dict(docs)
        copy["docs/cli.md"] = docs["docs/cli.md"] + "\n\n" + snippet + "\n"
        found = [p for p in run(copy, code) if named in p]
        if not found:
            print(f"docs-check self-test: {kind} gone from the code ({named}) was not found in a stale cli.md")
            failures += 1
    removed = dict(docs)
    removed["docs/cli.md"] = docs["docs/cli.md"].replace("`--allow", "`--let-in")
    if not any("--allow: an option of the programs" in p for p in run(removed, code)):
        print("docs-check self-test: an option cli.md no longer describes was not found")
        failures += 1
    if failures == 0:
        print(f"docs-check self-test: {len(stale) + 1} kinds of stale docs each fail the check")
    return 1 if failures else 0


def main() -> int:
    code = Code(repository_files())
    docs = {doc: (ROOT / doc).read_text() for doc in DOCS}
    if sys.argv[1:] == ["--self-test"]:
        return self_test(code, docs)
    problems = run(docs, code)
    for problem in problems:
        print(problem)
    if problems:
        print(f"docs-check: {len(problems)} names in the docs that the code does not have (or the other way)")
        return 1
    print(f"docs-check: {len(docs)} docs, every name they give exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
