#!/usr/bin/env python3
"""Checks one direction of the soak (scenarios/vm/soak.sh) and prints its figures.

    soak-check.py NAME RECEIVER.out COUNTERS SENT.sha

RECEIVER.out is the receiving program's --json log, COUNTERS how many counters (0..N-1) were sent,
SENT.sha the SHA-256 of every message sent, in order. Prints one line:
  NAME: counters R/N (lost L, duplicated D, out of order O); messages R/M (lost L, duplicated D,
  out of order O, corrupted C); reported dropped X, errors Y
and exits 0 only when everything arrived once, in order, intact, with no error or dropped report.
"""
import json
import sys


def order_breaks(values):
    return sum(1 for a, b in zip(values, values[1:]) if b <= a)


def main():
    name, log, counters, sent_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    sent = [line.strip() for line in open(sent_file) if line.strip()]
    position = {}
    for index, digest in enumerate(sent):
        position.setdefault(digest, index)
    values, digests, dropped, errors = [], [], 0, 0
    for line in open(log, errors="replace"):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        kind = event.get("event")
        if kind == "counter":
            values.append(int(event["value"]))
        elif kind == "message":
            digests.append(event["sha256"])
        elif kind == "dropped":
            dropped += 1
        elif kind == "error":
            errors += 1
    expected = set(range(counters))
    counter_lost = len(expected - set(values))
    counter_dup = len(values) - len(set(values))
    counter_order = order_breaks(values)
    corrupted = sum(1 for d in digests if d not in position)
    known = [position[d] for d in digests if d in position]
    message_lost = len(set(range(len(sent))) - set(known))
    message_dup = len(known) - len(set(known))
    message_order = order_breaks(known)
    good = (values == list(range(counters)) and digests == sent and dropped == 0 and errors == 0)
    print(f"{name}: counters {len(values)}/{counters} (lost {counter_lost}, duplicated {counter_dup}, "
          f"out of order {counter_order}); messages {len(digests)}/{len(sent)} (lost {message_lost}, "
          f"duplicated {message_dup}, out of order {message_order}, corrupted {corrupted}); "
          f"reported dropped {dropped}, errors {errors}")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
