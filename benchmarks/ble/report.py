#!/usr/bin/env python3
"""The table of benchmarks/ble: rows = measures, columns = relay, peers, ratio, goal.

  report.py RESULTS.json [--markdown docs/performance.md]

Prints the table (with the machine and BlueZ version) and, with --markdown, replaces the part
of the file between `<!-- ble-bench:begin -->` and `<!-- ble-bench:end -->` (appended when the
markers are missing) with benchmarks/ble/notes.md followed by the table.
"""
import argparse
import json
import math
import os
import platform
import statistics

BEGIN, END = "<!-- ble-bench:begin -->", "<!-- ble-bench:end -->"
HERE = os.path.dirname(os.path.abspath(__file__))
MIB = 1 << 20


def median(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def percentile(values, fraction):
    values = sorted(values)
    return values[max(0, math.ceil(fraction * len(values)) - 1)] if values else None


def spread(values, scale=1.0, digits=2):
    """'median (min-max, n)' of the values times scale."""
    values = [value * scale for value in values if value is not None]
    if not values:
        return "n/a", None
    middle = statistics.median(values)
    if len(values) == 1:
        return f"{middle:.{digits}f}", middle
    return f"{middle:.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f}, n={len(values)})", middle


def ratio(relay, peers):
    if relay is None or peers is None or peers == 0:
        return None
    return relay / peers


def machine_info(guest):
    cpu = "unknown"
    with open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    load = open("/proc/loadavg").read().split()[:3]
    return (f"host: {os.cpu_count()} CPUs (`nproc`), {cpu}, Linux {platform.release()}, load average "
            f"{' '.join(load)} at the end; guest: QEMU TCG (software emulation) with {guest.get('guest_nproc')} "
            f"vCPUs, Linux {guest.get('guest_kernel')}; BlueZ {guest.get('bluetoothd')} (`bluetoothd --version`), "
            f"2 btvirt LE controllers on one virtual radio")


def size_label(size):
    return f"{size // MIB} MiB" if size % MIB == 0 else f"{size // 1024} KiB"


def cpu_per_mib(side, process, size):
    transfers = [entry for direction in ("c2p", "p2c") for entry in side[f"goodput_{direction}"]]
    seconds = sum(entry["cpu"][process] for entry in transfers if entry["cpu"].get(process) is not None)
    moved = len(transfers) * size / MIB  # MiB sent (received or not)
    return seconds / moved if moved else None


def registration_seconds(folder):
    """relay-peripheral's first stamped event line (runtime loaded, bus connected, adapter
    found) to its `advertising` line, per session, from the driver's logs."""
    if not folder or not os.path.isdir(folder):
        return []
    values = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name, "peripheral.jsonl")
        if not name.startswith("relay-") or not os.path.exists(path):
            continue
        first = advertising = None
        with open(path) as handle:
            for line in handle:
                stamp, _, rest = line.partition(" ")
                try:
                    stamp = float(stamp)
                except ValueError:
                    continue
                first = stamp if first is None else first
                if '"event":"advertising"' in rest:
                    advertising = stamp
                    break
        if first is not None and advertising is not None:
            values.append(advertising - first)
    return values


def round_trip_split(folder, session):
    """Medians (ms) of the two halves of each echo round trip, from the driver's stamps of the
    lines it read: the central's echo of value v-1 (the driver writes v at once) -> the
    peripheral's `counter` line for v (out: central, bluetoothd, btvirt, bluetoothd, D-Bus,
    peripheral) -> the central's `counter` line for v (back: the way home)."""
    if not folder:
        return None
    def load(name):
        lines = {}
        path = os.path.join(folder, session, name)
        if not os.path.exists(path):
            return lines
        with open(path) as handle:
            for line in handle:
                stamp, _, rest = line.partition(" ")
                try:
                    event = json.loads(rest)
                    stamp = float(stamp)
                except ValueError:
                    continue
                if isinstance(event, dict) and event.get("event") == "counter":
                    lines.setdefault(event.get("value"), stamp)
        return lines
    central, peripheral = load("central.jsonl"), load("peripheral.jsonl")
    out, back = [], []
    for value in sorted(central):
        if value - 1 in central and value in peripheral and value >= 6:
            out.append(peripheral[value] - central[value - 1])
            back.append(central[value] - peripheral[value])
    if not out:
        return None
    return statistics.median(out) * 1000, statistics.median(back) * 1000


def rows(results):
    relay, peers = results["relay"], results["peers"]
    size = results["machine"].get("options", {}).get("size", MIB)
    amount = size_label(size)
    table = []

    def add(measure, relay_value, peers_value, goal="", better="lower", digits=2, scale=1.0):
        relay_text, relay_middle = spread(relay_value, scale, digits) if isinstance(relay_value, list) else relay_value
        peers_text, peers_middle = spread(peers_value, scale, digits) if isinstance(peers_value, list) else peers_value
        value = ratio(relay_middle, peers_middle)
        table.append((measure, relay_text, peers_text, f"{value:.2f}" if value is not None else "n/a", goal))
        return relay_middle, peers_middle, value

    def goal_text(met, wanted):
        return f"{wanted}: {'met' if met else 'NOT met'}"

    # 4. start-up
    relay_start = median(relay["startup_peripheral"])
    add("peripheral start-up: launch -> advertising (s)", relay["startup_peripheral"], peers["startup_peripheral"],
        goal_text(relay_start is not None and relay_start < 0.5, "relay < 0.5 s"))
    bluez_part = registration_seconds(results.get("folder"))
    if bluez_part:
        add("relay-peripheral: first output line -> advertising (s), the BlueZ part of its start-up",
            bluez_part, ("n/a", None), goal_text(median(bluez_part) < 0.5, "< 0.5 s"))
    add("central start-up: launch -> ready, peripheral advertising (s)", relay["startup_central"],
        peers["startup_central"])
    # 1. counters
    add("1000 counters central -> peripheral: until all received (s)",
        [entry["seconds"] for entry in relay["counters"]], [entry["seconds"] for entry in peers["counters"]])
    relay_lost = sum(entry["lost"] for entry in relay["counters"])
    peers_lost = sum(entry["lost"] for entry in peers["counters"])
    add("counters lost (all runs)", (str(relay_lost), None), (str(peers_lost), None),
        goal_text(relay_lost == 0, "0"))
    notified = relay.get("counters_p2c", [])
    if notified:
        notified_lost = sum(entry["lost"] for entry in notified)
        add("1000 counters peripheral -> central (notified back to back): until all received (s)",
            [entry["seconds"] for entry in notified], ("n/a", None))
        add("notified counters lost (all runs)", (str(notified_lost), None), ("n/a", None),
            goal_text(notified_lost == 0, "0"))
    # 2. goodput
    mtu = f"MTU {relay.get('mtu')} / {peers.get('mtu')}"
    add("ATT MTU (relay / peers); chunk min(MTU-3, 510)", (mtu, None), ("", None))
    for direction, label in (("c2p", "central -> peripheral"), ("p2c", "peripheral -> central")):
        relay_rates = [entry["bytes_per_second"] for entry in relay[f"goodput_{direction}"]]
        peers_rates = [entry["bytes_per_second"] for entry in peers[f"goodput_{direction}"]]
        _, _, value = add(f"{size_label(size)} goodput {label} (KiB/s of payload)", relay_rates, peers_rates, better="higher",
                          digits=1, scale=1 / 1024)
        if value is None and relay_rates and all(rate is not None for rate in relay_rates) and None in peers_rates:
            goal = "ratio >= 3: n/a, the peers lost bytes"
        else:
            goal = goal_text(value is not None and value >= 3, "ratio >= 3")
        table[-1] = table[-1][:4] + (goal,)
    relay_bytes_lost = sum(entry["lost"] for direction in ("c2p", "p2c") for entry in relay[f"goodput_{direction}"])
    peers_bytes_lost = sum(entry["lost"] for direction in ("c2p", "p2c") for entry in peers[f"goodput_{direction}"])
    add(f"bytes lost or corrupted (all {amount} transfers)", (str(relay_bytes_lost), None), (str(peers_bytes_lost), None),
        goal_text(relay_bytes_lost == 0, "0"))
    # 3. round trip
    relay_trips, peers_trips = relay["round_trips"], peers["round_trips"]
    _, _, value = add(f"round trip, median of {len(relay_trips)} / {len(peers_trips)} (ms)",
                      single(median(relay_trips) and median(relay_trips) * 1000),
                      single(median(peers_trips) and median(peers_trips) * 1000))
    table[-1] = table[-1][:4] + (goal_text(value is not None and value <= 0.5, "ratio <= 0.5"),)
    splits = {side: round_trip_split(results.get("folder"), f"{side}-echo-1") for side in ("relay", "peers")}
    for index, half in enumerate(("out: driver writes -> the peripheral's counter line",
                                  "back: the peripheral's counter line -> the central's")):
        add(f"round trip, median {half} (ms)",
            single(splits["relay"] and splits["relay"][index]), single(splits["peers"] and splits["peers"][index]))
    if len(relay.get("round_trip_medians", [])) > 1 or len(peers.get("round_trip_medians", [])) > 1:
        add("round trip, each echo session's median (ms)", session_medians(relay), session_medians(peers))
    add("round trip, 99th percentile (ms)",
        single(percentile(relay_trips, 0.99) and percentile(relay_trips, 0.99) * 1000),
        single(percentile(peers_trips, 0.99) and percentile(peers_trips, 0.99) * 1000))
    # 5. cost
    for process in ("central", "peripheral", "bluetoothd"):
        add(f"CPU s per MiB sent ({amount} transfers): {process}", single(cpu_per_mib(relay, process, size), 3),
            single(cpu_per_mib(peers, process, size), 3))
    for process in ("central", "peripheral"):
        relay_peak = max(relay["hwm_kib"][process], default=None)
        peers_peak = max(peers["hwm_kib"][process], default=None)
        add(f"peak RSS (VmHWM) {process} (MB)", single(relay_peak and relay_peak * 1024 / 1e6, 1),
            single(peers_peak and peers_peak * 1024 / 1e6, 1),
            goal_text(relay_peak is not None and relay_peak * 1024 < 50e6, "relay < 50 MB"))
    for process in ("central", "peripheral"):
        def trend(side):
            """VmRSS after the first exchange (1 MiB each way) and after the last, per session."""
            pairs = [(series[1], series[-1]) for series in side["rss_kib"][process]
                     if len(series) >= 2 and None not in series]
            if not pairs:
                return ("n/a", None), None
            text = ", ".join(f"{first / 1024:.1f} -> {last / 1024:.1f}" for first, last in pairs)
            exchanges = max(len(series) for series in side["rss_kib"][process]) // 2
            growth = max(last - first for first, last in pairs)
            return (f"{text} MiB ({exchanges} exchanges)", None), growth
        relay_trend, relay_growth = trend(relay)
        peers_trend, _ = trend(peers)
        goal = ""
        if relay_growth is not None and max(len(s) for s in relay["rss_kib"][process]) >= 4:
            goal = goal_text(relay_growth <= 2048, "flat (<= 2 MiB growth)")
        add(f"VmRSS after 1st vs last {amount} exchange: {process}", relay_trend, peers_trend, goal)
    return table


PATHS = "relay-dbus-paths"


def session_medians(side):
    """The echo sessions' own medians, in order, as a table cell."""
    values = side.get("round_trip_medians", [])
    return (", ".join(f"{value * 1000:.1f}" for value in values) or "n/a"), None
NOTIFY_PREFIX = "relay-central-notify-"


def single(value, digits=2):
    """A cell for one figure: its text (n/a when missing) and the value ratios use."""
    return (f"{value:.{digits}f}" if value is not None else "n/a"), value


def comparison_row(measure, left, right, digits=2, scale=1.0):
    """One row of a relay-only comparison: each side a list of samples (shown as their spread)
    or a ready (text, value) cell, then right/left as the ratio."""
    left_text, left_middle = spread(left, scale, digits) if isinstance(left, list) else left
    right_text, right_middle = spread(right, scale, digits) if isinstance(right, list) else right
    value = ratio(right_middle, left_middle)
    return (measure, left_text, right_text, f"{value:.2f}" if value is not None else "n/a")


def write_section(path, begin, end, section):
    """Replaces the part of the Markdown file `path` between `begin` and `end` with `section`
    (appended when the markers are missing)."""
    try:
        with open(path) as handle:
            text = handle.read()
    except FileNotFoundError:
        text = "# Performance\n"
    if begin in text and end in text:
        text = text[:text.index(begin)] + section + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w") as handle:
        handle.write(text)


def table_main(render, intro, begin, end):
    """The command line of a table writer (air_report.py, class_report.py): RESULTS.json, printed
    as render(results) and, with --markdown FILE, written into FILE between BEGIN and END under
    intro(results, raw) (--raw PATH: where the run's raw figures are kept, None without)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--markdown", metavar="FILE")
    parser.add_argument("--raw", metavar="PATH", help="where the run's raw figures are kept (named in the intro)")
    options = parser.parse_args()
    with open(options.results) as handle:
        results = json.load(handle)
    text = render(results)
    print(text)
    if options.markdown:
        section = "\n".join([begin, intro(results, options.raw), "", text, end])
        write_section(options.markdown, begin, end, section)
        print(f"written to {options.markdown}")


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("-" * (len(cell) + 2) for cell in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def notify_rows(results, other):
    """relay with relay-central on its default notification path against the other one
    (`--notify-path`: AcquireNotify socket or StartNotify signals), sessions of the same boot."""
    default, alternative = results["relay"], results[other]
    size = results["machine"].get("options", {}).get("size", MIB)
    label = size_label(size)
    table = []

    def add(measure, left, right, digits=2, scale=1.0):
        table.append(comparison_row(measure, left, right, digits, scale))

    def lost(side, key):
        return str(sum(entry["lost"] for entry in side.get(key, []))), None

    def trip(side, fraction):
        trips = side["round_trips"]
        value = median(trips) if fraction is None else percentile(trips, fraction)
        return single(value and value * 1000)

    add("round trip median (ms)", trip(default, None), trip(alternative, None))
    if len(default.get("round_trip_medians", [])) > 1 or len(alternative.get("round_trip_medians", [])) > 1:
        add("round trip, each echo session's median (ms)", session_medians(default), session_medians(alternative))
    add("round trip 99th percentile (ms)", trip(default, 0.99), trip(alternative, 0.99))
    add("central start-up: launch -> ready (s)", default["startup_central"], alternative["startup_central"])
    add("1000 counters central -> peripheral (s)", [e["seconds"] for e in default["counters"]],
        [e["seconds"] for e in alternative["counters"]])
    add("1000 counters peripheral -> central, notified back to back (s)",
        [e["seconds"] for e in default.get("counters_p2c", [])],
        [e["seconds"] for e in alternative.get("counters_p2c", [])])
    add("notified counters lost (of 1000 per session)", lost(default, "counters_p2c"), lost(alternative, "counters_p2c"))
    for direction, name in (("c2p", "central -> peripheral"), ("p2c", "peripheral -> central")):
        add(f"{label} goodput {name} (KiB/s)", [e["bytes_per_second"] for e in default[f"goodput_{direction}"]],
            [e["bytes_per_second"] for e in alternative[f"goodput_{direction}"]], digits=1, scale=1 / 1024)
        add(f"{label} {name}: transfers intact / bytes lost",
            (f"{sum(e['intact'] for e in default[f'goodput_{direction}'])}/{len(default[f'goodput_{direction}'])}"
             f" / {lost(default, f'goodput_{direction}')[0]}", None),
            (f"{sum(e['intact'] for e in alternative[f'goodput_{direction}'])}/"
             f"{len(alternative[f'goodput_{direction}'])} / {lost(alternative, f'goodput_{direction}')[0]}", None))
    for process in ("central", "bluetoothd"):
        add(f"CPU s per MiB sent: {process}", single(cpu_per_mib(default, process, size), 3),
            single(cpu_per_mib(alternative, process, size), 3))
    peak = [max(side["hwm_kib"]["central"], default=None) for side in (default, alternative)]
    add("peak RSS (VmHWM) central (MB)", single(peak[0] and peak[0] * 1024 / 1e6, 1),
        single(peak[1] and peak[1] * 1024 / 1e6, 1))
    default_path = default.get("notify_path", "signal")
    header = ("measure (relay only)", f"relay-central notifications via {default_path} (default)",
              f"via {other[len(NOTIFY_PREFIX):]}", "ratio other/default")
    return markdown_table(header, table)


def path_rows(results):
    """Our side on its default paths (central AcquireWrite socket + StartNotify signals,
    peripheral WriteValue calls + AcquireNotify socket) against the D-Bus paths (central
    WriteValue, peripheral PropertiesChanged notifications), sessions of the same boot."""
    default, dbus = results["relay"], results[PATHS]
    size = results["machine"].get("options", {}).get("size", MIB)
    label = size_label(size)
    table = []

    def add(measure, left, right, digits=2, scale=1.0):
        table.append(comparison_row(measure, left, right, digits, scale))

    add("1000 counters central -> peripheral (s)", [e["seconds"] for e in default["counters"]],
        [e["seconds"] for e in dbus["counters"]])
    for direction, name in (("c2p", "central -> peripheral"), ("p2c", "peripheral -> central")):
        add(f"{label} goodput {name} (KiB/s)", [e["bytes_per_second"] for e in default[f"goodput_{direction}"]],
            [e["bytes_per_second"] for e in dbus[f"goodput_{direction}"]], digits=1, scale=1 / 1024)
    lost = [sum(e["lost"] for e in side["counters"]) + sum(e["lost"] for d in ("c2p", "p2c") for e in side[f"goodput_{d}"])
            for side in (default, dbus)]
    add("counters + bytes lost", (str(lost[0]), None), (str(lost[1]), None))
    add("round trip median (ms)", single(median(default["round_trips"]) and median(default["round_trips"]) * 1000),
        single(median(dbus["round_trips"]) and median(dbus["round_trips"]) * 1000))
    for process in ("central", "peripheral", "bluetoothd"):
        add(f"CPU s per MiB sent: {process}", single(cpu_per_mib(default, process, size), 3),
            single(cpu_per_mib(dbus, process, size), 3))
    header = ("measure (relay only)", "default: socket paths where used", "D-Bus paths", "ratio D-Bus/default")
    return markdown_table(header, table)


def render(results):
    header = ("measure", "relay", "peers", "ratio relay/peers", "goal")
    guest = results["machine"]
    options = guest.get("options", {})
    others = [name for name in results if isinstance(name, str) and name.startswith(NOTIFY_PREFIX)]
    sides = [side for side in ("relay", "peers", PATHS, *others) if side in results]
    errors = [f"{side}: {error}" for side in sides for error in results[side].get("errors", [])]
    size = size_label(options.get("size", MIB))
    notes = [
        f"Machine: {machine_info(guest)}.",
        f"One boot, {guest.get('seconds', 0):.0f} s of sessions: {options.get('runs')} relay and "
        f"{options.get('peer_runs', options.get('runs'))} peer main sessions, interleaved (each: start-up, "
        f"{options.get('counters')} counters, {size} each way; the first relay session {options.get('transfers')}x "
        f"for the memory trend) and one echo session per side ({options.get('round_trips')} round trips after "
        f"{options.get('warmup')} warm-up); each session on a fresh bluetoothd, programs started "
        "2 s after it is up. Cells: median (min-max, n) over the sessions' samples; ratios from the medians of this run.",
    ]
    if errors:
        notes.append("Failed sessions: " + "; ".join(errors) + ".")
    text = markdown_table(header, rows(results))
    for other in others:
        text += (f"\n\nrelay-central's notification paths, relay only (same boot; `relay-central --notify-path "
                 f"{other[len(NOTIFY_PREFIX):]}` against its default):\n\n" + notify_rows(results, other))
    if PATHS in results:
        text += ("\n\nD-Bus paths against the socket paths, relay only (same boot; D-Bus paths: `relay-central "
                 "--write-path write-value --notify-path signal`, `relay-peripheral --notify-path signal`):\n\n" + path_rows(results))
    return text, notes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--markdown", metavar="FILE")
    parser.add_argument("--release", metavar="NAME",
                        help="a clean release's run (run.sh --release): its own section of FILE, no notes.md")
    parser.add_argument("--raw", metavar="PATH", help="where the run's raw figures are kept (named in the notes)")
    options = parser.parse_args()
    with open(options.results) as handle:
        results = json.load(handle)
    results["folder"] = os.path.dirname(os.path.abspath(options.results))
    table, notes = render(results)
    if options.raw:
        notes.append(f"Raw figures: `{options.raw}`.")
    print(table)
    print()
    for note in notes:
        print(note)
    if options.markdown and options.release:
        begin, end = f"<!-- ble-bench-{options.release}:begin -->", f"<!-- ble-bench-{options.release}:end -->"
        title = (f"### {options.release}: the installed package against the peers on the release's own "
                 "bluetoothd (`make bench-releases`)")
        section = "\n".join([begin, title, "", *(note + "\n" for note in notes), table, end])
        write_section(options.markdown, begin, end, section)
        print(f"written to {options.markdown}")
    elif options.markdown:
        with open(os.path.join(HERE, "notes.md")) as handle:
            intro = handle.read().strip()
        section = "\n".join([BEGIN, intro, "", *(note + "\n" for note in notes), table, END])
        write_section(options.markdown, BEGIN, END, section)
        print(f"written to {options.markdown}")


if __name__ == "__main__":
    main()
