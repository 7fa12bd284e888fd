#!/usr/bin/env python3
# The docs' transcripts (issue 49): the two laptops of README, the workshop guide and cli.md, as a
# person types them (counters and messages both ways, a file), recorded from
# the real programs on real bluetoothd (human output, each command shown after its prompt:
# RELAY_SHOW_COMMANDS=1) into transcripts/NAME.txt, then checked against the docs' transcript
# blocks (scripts/transcripts.py): a doc that no longer shows what the programs print fails here.
# After a change of what they print: scripts/transcripts.py paste OUT (this run's folder).
#   scenarios/vm/run-scenarios.sh transcripts
# vm-controllers: 2
# vm-timeout: 180
import os
import sys

from scenario import OUT, REPO, fail, finish, passed, relay

sys.path.insert(0, os.path.join(REPO, "scripts"))
import transcripts  # noqa: E402

# The file the central sends: fixed bytes, so that its length and digest are the same each run.
with open(os.path.join(OUT, "photo.jpg"), "wb") as handle:
    handle.write(bytes((index * 7 + index // 251) % 256 for index in range(48213)))

# `wait` and `sleep` pace each side on the other's events; the transcript leaves them out.
PERIPHERAL = """wait state 10
start
wait subscribed 60
notify
notify
wait message 60
wait message 60
send hello from the peripheral
wait delivered 30
wait disconnected 30
quit
"""
CENTRAL = """wait state 10
scan
wait discovered 30
connect 0
wait ready 60
write
write
send hello
wait delivered 30
send-file photo.jpg
wait delivered 30
wait message 60
quit
"""

# cli.md's scripted examples, with --json: each transcript starts with the command that ran it.
JSON_PERIPHERAL = """wait state 10
start
wait advertising 30
wait subscribed 60
wait counter 30
notify
notify
notify
wait disconnected 60
"""
JSON_CENTRAL = """wait state
scan
wait discovered
connect 0
write
wait counter
send-file photo.jpg
"""
JSON_HEADERS = {
    "peripheral-json": ["$ relay-peripheral --adapter hci0 --json <<'EOF'", *JSON_PERIPHERAL.rstrip("\n").split("\n"), "EOF"],
    "central-json": [
        "$ printf '" + JSON_CENTRAL.replace("\n", "\\n") + "' |",
        "    relay-central --adapter hci1 --json",
    ],
}

os.makedirs(os.path.join(OUT, "transcripts"), exist_ok=True)


def record(sides, header=None):
    """Waits for each side to finish and writes its transcript; the scenario fails on an exit
    status other than 0."""
    for side in reversed(sides):
        status = finish(side, seconds=120)
        with open(os.path.join(OUT, f"{side.name}.jsonl")) as handle:
            lines = transcripts.shown(handle.read().rstrip("\n").split("\n"))
        with open(os.path.join(OUT, "transcripts", f"{side.name}.txt"), "w") as handle:
            handle.write("\n".join(JSON_HEADERS.get(side.name, []) + lines) + "\n")
        if status != 0:
            fail(f"{side.name} exited {status}: " + " | ".join(lines[-3:]))


shown = dict(os.environ, RELAY_SHOW_COMMANDS="1")
record([
    relay("peripheral", "relay-peripheral", "--adapter", "hci0", script=PERIPHERAL, json=False, env=shown, cwd=OUT),
    relay("central", "relay-central", "--adapter", "hci1", script=CENTRAL, json=False, env=shown, cwd=OUT),
])
record([
    relay("peripheral-json", "relay-peripheral", "--adapter", "hci0", script=JSON_PERIPHERAL, cwd=OUT),
    relay("central-json", "relay-central", "--adapter", "hci1", script=JSON_CENTRAL, cwd=OUT),
])

problems = transcripts.check(transcripts.Path(OUT))
if problems:
    fail(f"{len(problems)} differences (scripts/transcripts.py paste {OUT} after a change): " + "; ".join(problems[:8]))
passed("the docs' transcripts are what the programs print")
