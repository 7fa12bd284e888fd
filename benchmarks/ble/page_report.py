#!/usr/bin/env python3
"""The browser page's table of benchmarks/ble: its goodput each way against relay-central's on the
same radio profile, sessions of the same boot (page_bench.py).

  page_report.py PAGE-RESULTS.json [--markdown docs/performance.md] [--raw PATH]

With --markdown, replaces the part of the file between `<!-- page-bench:begin -->` and
`<!-- page-bench:end -->` (appended when missing).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import markdown_table, size_label, table_main  # noqa: E402

BEGIN, END = "<!-- page-bench:begin -->", "<!-- page-bench:end -->"


def render(results):
    size = results["size"]
    done = {side: [s for s in results["sessions"] if s["side"] == side and "error" not in s]
            for side in ("relay-central", "page")}
    errors = [f"{s['side']} run {s['run']}: {s['error']}" for s in results["sessions"] if "error" in s]
    if not done["relay-central"] or not done["page"]:
        return "No comparison: " + ("; ".join(errors) or "a side has no session")
    rows = []
    for direction, label in (("c2p", "central -> peripheral"), ("p2c", "peripheral -> central")):
        rates = {side: [size / s[direction] / 1024 for s in sessions] for side, sessions in done.items()}
        central, page = statistics.median(rates["relay-central"]), statistics.median(rates["page"])
        rows.append([f"{size_label(size)} {label} (KiB/s, median)", f"{central:.1f}", f"{page:.1f}",
                     f"{page / central:.2f}x"])
        rows.append(["  each run (KiB/s)", ", ".join(f"{r:.1f}" for r in rates["relay-central"]),
                     ", ".join(f"{r:.1f}" for r in rates["page"]), ""])
    rows.append(["link MTU (the page's from the welcome)", str(done["relay-central"][0]["mtu"]),
                 str(done["page"][0]["mtu"] or "none: 20-byte values"), ""])
    text = markdown_table(["measure", "relay-central", "page (Chromium)", "page / relay-central"], rows)
    return text + ("\n\nFailed: " + "; ".join(errors) if errors else "")


def intro(results, raw):
    return ("The browser page against relay-central (benchmarks/ble/page_bench.py, one boot, started "
            f"{results.get('started', '?')}, {results.get('build', 'release')} build; {results.get('profile')} radio; "
            "relay-peripheral on hci1 with `--lane gatt`, the central on hci0: Debian's Chromium 156 headless with "
            "web/relay.html, or relay-central `--lane gatt`; each way from the command to the receiver's message"
            + (f"; raw figures in `{raw}`" if raw else "") + "):")


def main():
    table_main(render, intro, BEGIN, END)


if __name__ == "__main__":
    main()
