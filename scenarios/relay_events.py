#!/usr/bin/env python3
"""Reading the relay programs' --json output: one JSON object per line. scenarios/relay_driver.py
reads a running program's lines with parse_line; the shell scenarios read a log afterwards with
the command line (scenarios/vm/lib.sh: json_values, json_count):

    relay_events.py values FILE EVENT FIELD [FIELD=VALUE...]   FIELD of every EVENT line (with
                                                      those values), one per line
    relay_events.py count FILE EVENT [FIELD=VALUE...] how many EVENT lines (with those values)
    relay_events.py field JSON PATH                   a field of one JSON object (PATH like a.b)

Lines that are not JSON objects are skipped; a missing file reads as empty. A value prints
as itself when it is a string (JSON-quoted if it holds a line break), as JSON otherwise
(numbers, true/false, null, lists and objects compact); an event without FIELD prints nothing.
Only json, os and sys are imported: under the test bed's TCG each module a Python start imports
costs the guest noticeable CPU, and the scenarios start this often (run it with python3 -I -S).
"""
import json
import os
import sys


def parse_line(text):
    """The JSON object of a line, or None for anything else."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read_events(path):
    """The JSON objects of a --json log, in order (other lines skipped; a missing file is empty)."""
    try:
        handle = open(path, encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    with handle:
        return [event for event in map(parse_line, handle) if event is not None]


def shown(value):
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False) if ("\n" in value or "\r" in value) else value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def conditions_of(words):
    """FIELD=VALUE words as (field, value) pairs; None when one has no `=`."""
    pairs = [word.partition("=") for word in words]
    return None if any(not equals for _, equals, _ in pairs) else [(key, value) for key, _, value in pairs]


def matches(event, wanted):
    return all(key in event and shown(event[key]) == value for key, value in wanted)


def main(arguments):
    usage = ("usage: relay_events.py values FILE EVENT FIELD [FIELD=VALUE...]\n"
             "       relay_events.py count FILE EVENT [FIELD=VALUE...]\n"
             "       relay_events.py field JSON PATH")
    if len(arguments) >= 4 and arguments[0] == "values":
        _, path, name, field, *conditions = arguments
        wanted = conditions_of(conditions)
        if wanted is None:
            print(usage, file=sys.stderr)
            return 64
        lines = [shown(event[field]) for event in read_events(path) if event.get("event") == name and field in event
                 and matches(event, wanted)]
        output = "".join(line + "\n" for line in lines)
    elif len(arguments) == 3 and arguments[0] == "field":
        _, text, path = arguments
        value = parse_line(text)
        for key in path.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if value is None:
            print(f"relay_events.py: no {path} in {text[:160]}", file=sys.stderr)
            return 1
        output = shown(value) + "\n"
    elif len(arguments) >= 3 and arguments[0] == "count":
        _, path, name, *conditions = arguments
        wanted = conditions_of(conditions)
        if wanted is None:
            print(usage, file=sys.stderr)
            return 64
        count = sum(1 for event in read_events(path) if event.get("event") == name and matches(event, wanted))
        output = f"{count}\n"
    else:
        print(usage, file=sys.stderr)
        return 64
    try:
        sys.stdout.write(output)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head -n 1`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
