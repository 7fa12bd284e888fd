#!/usr/bin/env python3
"""The "whole class" table of benchmarks/ble: one presenter's relay-peripheral with 1, 5 and 15
relay-centrals (class_bench.py), each measure against the class of one of the same run.

  class_report.py CLASS-RESULTS.json [--markdown docs/performance.md] [--raw PATH]

What the shared radio allows for N copies of the file is N times the time one central took (the
presenter's controller has one radio for all its links, docs/test-bed.md): the goal is the last
`delivered` within 1.2 times that. Per-central costs (relay-peripheral's CPU during the file, its
RSS) should stay flat from 1 to 15 (within 1.2 times), the RSS under 1 MiB a central. With
--markdown, replaces the part of the file between `<!-- class-bench:begin -->` and
`<!-- class-bench:end -->` (appended when missing).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import markdown_table, table_main  # noqa: E402

BEGIN, END = "<!-- class-bench:begin -->", "<!-- class-bench:end -->"


def render(results):
    sessions = [s for s in results["sessions"] if s.get("interval") == 100 and "error" not in s]
    slow = [s for s in results["sessions"] if s.get("interval") != 100 and "error" not in s]
    errors = [f"{s['centrals']} centrals at {s['interval']} ms: {s['error']}" for s in results["sessions"]
              if "error" in s]
    if not sessions:
        return "No session completed." + ("\n\nFailed: " + "; ".join(errors) if errors else "")
    sessions.sort(key=lambda s: s["centrals"])
    one = sessions[0]
    header = ["measure"] + [f"{s['centrals']} central{'s' if s['centrals'] > 1 else ''}" for s in sessions] + \
        ["goal", "met"]
    rows = []

    def row(measure, values, goal="", met=""):
        rows.append([measure] + values + [goal, met])

    row("all in after `start` (100 ms advertising, s)", [f"{s['join_seconds']:.1f}" for s in sessions])
    row("per central (s)", [f"{s['join_seconds'] / s['centrals']:.2f}" for s in sessions])
    row("`connect` attempts dialled again (`redial`)", [str(s.get("redials", "")) for s in sessions])
    row("`connect` typed again (20 s of dialling over)", [str(s.get("retyped", "")) for s in sessions])
    if slow:
        last = sessions[-1]
        ratio = slow[0]["join_seconds"] / last["join_seconds"]
        row(f"all {slow[0]['centrals']} in at 1.28 s advertising (s)", [""] * (len(sessions) - 1) +
            [f"{slow[0]['join_seconds']:.1f} ({ratio:.2f}x relay's; {slow[0].get('redials', '?')} redials, "
             f"{slow[0].get('retyped', '?')} typed again)"])
    trips = [statistics.median(s["round_trips"]) * 1000 for s in sessions]
    row("counter round trip, median (ms)", [f"{t:.0f}" for t in trips])
    row("round trip against 1 central", [f"{t / trips[0]:.2f}x" for t in trips])
    kib = one["file_kib"]
    row(f"{kib} KiB to all, last `delivered` (s)", [f"{s['file_seconds']:.1f}" for s in sessions])
    row("slowest central's own (s)", [f"{max(s['file_arrived']):.1f}" for s in sessions])
    allowed = [one["file_seconds"] * s["centrals"] for s in sessions]
    ratios = [s["file_seconds"] / a for s, a in zip(sessions, allowed)]
    row("against N x one central's time", [f"{r:.2f}x" for r in ratios], "<= 1.2x",
        "yes" if all(r <= 1.2 for r in ratios) else "no")
    cpu = [s["file_cpu_seconds"] / s["centrals"] for s in sessions]
    row("relay-peripheral CPU per central (s)", [f"{c:.2f}" for c in cpu], "flat, <= 1.2x",
        "yes" if max(cpu) <= 1.2 * cpu[0] else "no")
    mib = [s["file_cpu_seconds"] / (s["centrals"] * kib / 1024) for s in sessions]
    row("relay-peripheral CPU per delivered MiB (s)", [f"{m:.1f}" for m in mib])
    rss = [(s["rss_kib"] - s["rss_alone_kib"]) / s["centrals"] for s in sessions]
    row("relay-peripheral RSS per central (KiB)", [f"{r:.0f}" for r in rss], "< 1024",
        "yes" if all(r < 1024 for r in rss) else "no")
    row("lanes closed during the file", [str(s["lanes_closed"]) for s in sessions], "0",
        "yes" if all(s["lanes_closed"] == 0 for s in sessions) else "no")
    text = markdown_table(header, rows)
    return text + ("\n\nFailed: " + "; ".join(errors) if errors else "")


def intro(results, raw):
    return ("The whole class (benchmarks/ble/class_bench.py, one boot, started "
            f"{results.get('started', '?')}, {results.get('build', 'release')} build; laptop radio, one btvirt "
            "whose controllers each have one radio for all their links; centrals all dialling at once"
            + (f"; raw figures in `{raw}`" if raw else "") + "):")


def main():
    table_main(render, intro, BEGIN, END)


if __name__ == "__main__":
    main()
