#!/usr/bin/env python3
"""The suite's time table (scripts/test-suite): prints, in Markdown, every stage with its seconds and
the suite's wall time, then for each VM run (OUT/host, OUT/debian-12, OUT/debian-13) every
scenario with its seconds and where the guest's CPU went meanwhile (scenarios/vm/guest_cpu.py).

    scripts/suite-table.py OUT
"""
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
cpu_tool = os.path.join(here, "..", "scenarios", "vm", "guest_cpu.py")
COLUMNS = [
    ("relay", ("relay-peripheral", "relay-central")),
    ("bluetoothd", ("bluetoothd",)),
    ("btvirt", ("btvirt",)),
    ("dbus", ("dbus-daemon",)),
    ("Python", ("python (scenarios and peers)",)),
    ("short Python", ("python (short runs)",)),
    ("tools", ("harness tools (bash, grep, sleep, dbus-send...)", "btmon")),
]


def read_pairs(path):
    try:
        with open(path) as lines:
            return [line.split() for line in lines if line.strip()]
    except OSError:
        return []


def timings(folder):
    values = {}
    for fields in read_pairs(os.path.join(folder, "timings")):
        if "=" in fields[0]:
            key, value = fields[0].split("=", 1)
            values.setdefault(key, float(value))
    return values


def cpu(folder):
    if not os.path.exists(os.path.join(folder, "cpu")):
        return None
    result = subprocess.run([sys.executable, cpu_tool, "summary", folder], capture_output=True, text=True)
    return json.loads(result.stdout) if result.returncode == 0 and result.stdout.strip() else None


def vm_table(name, folder):
    results = read_pairs(os.path.join(folder, "results"))
    if not results:
        return [], 0.0
    lines = [
        f"\n### Scenarios: {name}\n",
        "| scenario | result | scenario s | with bring-up s | guest CPU busy s | "
        + " | ".join(title for title, _ in COLUMNS)
        + " |",
        "|---" * (5 + len(COLUMNS)) + "|",
    ]
    total = {"scenario": 0.0, "whole": 0.0, "busy": 0.0}
    sums = {title: 0.0 for title, _ in COLUMNS}
    for fields in results:
        status, scenario = fields[0], fields[1]
        seconds = float(fields[2]) if status == "PASS" and len(fields) > 2 else None
        usage = cpu(os.path.join(folder, scenario))
        whole = usage["wall"] if usage else None
        row = [scenario, status, f"{seconds:.1f}" if seconds is not None else "-"]
        row.append(f"{whole:.1f}" if whole is not None else "-")
        row.append(f"{usage['busy']:.1f}" if usage else "-")
        for title, groups in COLUMNS:
            value = sum(usage["groups"].get(g, 0.0) for g in groups) if usage else 0.0
            sums[title] += value
            row.append(f"{value:.1f}" if usage else "-")
        total["scenario"] += seconds or 0.0
        total["whole"] += whole or 0.0
        total["busy"] += usage["busy"] if usage else 0.0
        lines.append("| " + " | ".join(row) + " |")
    lines.append(
        f"| **all {len(results)}** | | {total['scenario']:.0f} | {total['whole']:.0f} | {total['busy']:.0f} | "
        + " | ".join(f"{sums[title]:.0f}" for title, _ in COLUMNS)
        + " |"
    )
    marks = timings(folder)
    cycle = marks.get("host_cycle", 0.0)
    first = marks.get("command_start")
    lines.append(
        f"\nGuest boot to the first scenario: {first:.1f} s; the whole guest seen from the host: {cycle:.0f} s "
        f"(scenarios with their Bluetooth bring-up and teardown: {total['whole']:.0f} s). CPU columns are "
        "seconds of guest CPU (2 vCPUs: at most twice the wall time); 'Python' is the Python scenarios "
        "(which drive the programs) and the peers, 'short Python' the bash scenarios' one-off checks, 'tools' "
        "the shell's helpers."
        if first is not None
        else ""
    )
    return lines, cycle


def main():
    out = sys.argv[1]
    stages = read_pairs(os.path.join(out, "stages"))
    lines = ["## The suite's time\n", "| stage | seconds | result |", "|---|---|---|"]
    total = 0.0
    wall = None
    for fields in stages:
        if fields[0] == "wall":
            wall = float(fields[1])
            continue
        if "(beside)" not in fields:
            total += float(fields[1])
        lines.append(f"| {fields[0]} | {float(fields[1]):.0f} | {' '.join(fields[2:])} |")
    wall = total if wall is None else wall
    lines.append(f"| **the whole suite (wall)** | **{wall:.0f}** ({wall / 60:.1f} min) | |")
    lines.append(
        "\nA stage marked (beside) ran at nice 19 beside the stages after it, on the CPU they left idle: "
        "its seconds are not added to the whole."
    )
    for name, folder in (("host root (BlueZ 5.66, release build)", "host"), ("debian-12 package", "debian-12"),
                         ("debian-13 package", "debian-13")):
        path = os.path.join(out, folder)
        if os.path.isdir(path):
            more, _ = vm_table(name, path)
            lines += more
    print("\n".join(lines))


if __name__ == "__main__":
    main()
