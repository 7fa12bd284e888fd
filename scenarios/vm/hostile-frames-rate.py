#!/usr/bin/env python3
"""The most report lines a --json log shows within any WINDOW seconds (by their "time" field).

    hostile-frames-rate.py LOG REGEX WINDOW

Used by the hostile-frames scenarios: a program flooded with garbage must keep its report lines
(REGEX, e.g. '"event":"(error|dropped)"') under its rate limit, whatever the flood's pace.
"""
import json
import re
import sys
from datetime import datetime


def main():
    log, pattern, window = sys.argv[1], re.compile(sys.argv[2]), float(sys.argv[3])
    times = []
    for line in open(log, errors="replace"):
        if not pattern.search(line):
            continue
        try:
            stamp = json.loads(line)["time"]
        except (ValueError, KeyError):
            continue
        times.append(datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp())
    times.sort()
    most, first = 0, 0
    for last, now in enumerate(times):
        while now - times[first] >= window:
            first += 1
        most = max(most, last - first + 1)
    print(most)


if __name__ == "__main__":
    main()
