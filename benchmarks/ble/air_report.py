#!/usr/bin/env python3
"""The "on the air" tables of benchmarks/ble: relay on GATT, relay on the L2CAP lane, relay without
acknowledgements (protocol 1) and the Python peers per radio profile, against the profile's ATT
capacity.

  air_report.py AIR-RESULTS.json [--markdown docs/performance.md]

The capacity is what scenarios/vm/air_capacity.py computes for the profile's btvirt --air spec
at the session's ATT MTU (a write-command or notification flood with the best value size; the
scenarios air-* check the radio against it). With --markdown, replaces the part of the file
between `<!-- air-bench:begin -->` and `<!-- air-bench:end -->` (appended when missing).
"""
import importlib.util
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import markdown_table, table_main  # noqa: E402

BEGIN, END = "<!-- air-bench:begin -->", "<!-- air-bench:end -->"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
MIB = 1 << 20
INTERVAL_MS = {"laptop": 30.0, "phone": 15.0, "old": 50.0}

spec = importlib.util.spec_from_file_location("air_capacity", os.path.join(REPO, "scenarios", "vm", "air_capacity.py"))
air_capacity = importlib.util.module_from_spec(spec)
spec.loader.exec_module(air_capacity)


def capacity(session):
    """(KiB/s, value size) of the session's radio at its MTU, payload bytes of ATT values."""
    if not session.get("mtu"):
        return None, None
    return air_capacity.att_capacity(session["spec"], int(session["mtu"]))


def cell_rate(session, direction, cap):
    entry = session.get(f"goodput_{direction}") or {}
    rate = entry.get("bytes_per_second")
    if rate is None:
        return "LOST" if entry else "n/a", None
    kib = rate / 1024
    share = f" ({kib / cap:.0%})" if cap else ""
    return f"{kib:.1f}{share}", kib


def median_cells(by_side, sides, key, interval):
    """Per side, the median of the times under KEY (seconds) as `N ms = M intervals` ("n/a" without
    any), and the medians in ms by side."""
    cells, medians = [], {}
    for name in sides:
        values = by_side[name].get(key) or []
        if values:
            medians[name] = statistics.median(values) * 1000
            cells.append(f"{medians[name]:.1f} ms = {medians[name] / interval:.1f} intervals")
        else:
            cells.append("n/a")
    return cells, medians


def verdict(checks):
    """The verdict for each of relay's paths measured: [(label, ok or None)] -> 'lane met, GATT NOT met'."""
    return ", ".join(f"{label} {'met' if ok else 'NOT met'}" for label, ok in checks if ok is not None)


RELAY_PATHS = (("relay-lane", "lane"), ("relay", "GATT"))


def profile_table(profile, extra, sessions):
    by_side = {s["side"]: s for s in sessions if s["profile"] == profile and s.get("extra", "") == extra}
    sides = [name for name in ("relay", "relay-lane", "relay-v1", "peers") if name in by_side]
    relay = by_side.get("relay", {})
    cap, value = capacity(relay) if relay else (None, None)
    interval = INTERVAL_MS.get(profile, 30.0)
    rows = []

    def row(measure, cells, goal=""):
        rows.append([measure] + cells + [goal])

    mtus = [str(by_side[name].get("mtu", "?")) for name in sides]
    row("ATT MTU", mtus)
    if cap:
        row(f"ATT capacity of the radio at this MTU (KiB/s; best value {value} bytes)", [f"{cap:.1f}"] * len(sides))
    rates = {}
    for direction, label in (("c2p", "central -> peripheral"), ("p2c", "peripheral -> central")):
        cells = []
        for name in sides:
            text, kib = cell_rate(by_side[name], direction, cap)
            cells.append(text)
            rates[(name, direction)] = kib
        goal = ""
        if cap:
            checks = [(label, None if rates.get((name, direction)) is None else rates[(name, direction)] / cap >= 0.9)
                      for name, label in RELAY_PATHS]
            if any(ok is not None for _, ok in checks):
                goal = f"relay >= 90 % of capacity: {verdict(checks)}"
        size = relay.get("size", MIB)
        row(f"{size // 1024} KiB goodput {label} (KiB/s, share of capacity)", cells, goal)
    both_cells = []
    both_met = {}
    for name in sides:
        both = by_side[name].get("both_ways")
        if not both:
            both_cells.append("n/a")
            continue
        parts = []
        for direction in ("c2p", "p2c"):
            rate = (both.get(direction) or {}).get("bytes_per_second")
            parts.append(f"{rate / 1024:.1f}" + (f" ({rate / 1024 / cap:.0%})" if cap else "") if rate else "LOST")
        done = [(both.get(direction) or {}).get("finished_after") for direction in ("c2p", "p2c")]
        both_cells.append(" / ".join(parts) + "; done at " + " / ".join(f"{d:.1f} s" if d else "?" for d in done))
        if name in dict(RELAY_PATHS) and cap:
            rates_both = [(both.get(direction) or {}).get("bytes_per_second") for direction in ("c2p", "p2c")]
            both_met[name] = all(rate and rate / 1024 / cap >= 0.8 for rate in rates_both)
    if any(cell != "n/a" for cell in both_cells):
        size = relay.get("size", MIB)
        row(f"both ways at once, {size // 1024} KiB each way started together: c2p / p2c (KiB/s, share of "
            "capacity); when each finished", both_cells,
            "" if not both_met else
            f"each >= 80 % of capacity: {verdict([(label, both_met.get(name)) for name, label in RELAY_PATHS])}")
    for direction, label in (("c2p", "central -> peripheral"), ("p2c", "peripheral -> central")):
        with_acks, without = rates.get(("relay", direction)), rates.get(("relay-v1", direction))
        if with_acks and without:
            cost = 1 - with_acks / without
            cells = [f"{cost:+.1%}"] + [""] * (len(sides) - 1)
            row(f"acknowledgement cost {label} (1 - relay / relay-v1)", cells,
                f"<= 5 %: {'met' if cost <= 0.05 else 'NOT met'}")
    counters = []
    for name in sides:
        entry = by_side[name].get("counters")
        counters.append(f"{entry['seconds']:.2f} s, {entry['lost']} lost" if entry else "n/a")
    lost = (relay.get("counters") or {}).get("lost")
    row("1000 counters central -> peripheral (until all received)", counters,
        f"0 lost: {'met' if lost == 0 else 'NOT met'}" if lost is not None else "")
    trips, medians = median_cells(by_side, sides, "round_trips", interval)
    relay_trip = medians.get("relay")
    goal = ""
    if relay_trip is not None:
        goal = f"<= 2 intervals + 5 ms ({2 * interval + 5:.0f} ms): {'met' if relay_trip <= 2 * interval + 5 else 'NOT met'}"
    row(f"counter round trip, median of {len(relay.get('round_trips') or [])} (connection interval {interval:g} ms)",
        trips, goal)
    message_cells, medians = median_cells(by_side, sides, "message_trips", interval)
    lane_trip = medians.get("relay-lane")
    if any(cell != "n/a" for cell in message_cells):
        count = max(len(by_side[name].get("message_trips") or []) for name in sides)
        row(f"short message to delivered (the data there, the final acknowledgement back), median of {count}",
            message_cells,
            "" if lane_trip is None else f"lane <= 2 intervals + 5 ms ({2 * interval + 5:.0f} ms): "
            f"{'met' if lane_trip <= 2 * interval + 5 else 'NOT met'}")
    cpu_cells, side_cpu = [], {}
    processes = ("central", "peripheral", "bluetoothd", "dbus-daemon")
    for name in sides:
        session = by_side[name]
        moved = sum(session.get("size", MIB) for direction in ("c2p", "p2c") if session.get(f"goodput_{direction}"))
        per = {}
        for process in processes:
            seconds = [(session.get(f"goodput_{direction}") or {}).get("cpu", {}).get(process)
                       for direction in ("c2p", "p2c")]
            if moved and all(value is not None for value in seconds):
                per[process] = sum(seconds) / (moved / MIB)
        cpu_cells.append(" / ".join(f"{per[p]:.2f}" if p in per else "?" for p in processes) if per else "n/a")
        if all(p in per for p in ("peripheral", "bluetoothd", "dbus-daemon")):
            side_cpu[name] = per["peripheral"] + per["bluetoothd"] + per["dbus-daemon"]
    if any(cell != "n/a" for cell in cpu_cells):
        row("CPU seconds per MiB moved (one way each, both directions): central / peripheral / bluetoothd / "
            "dbus-daemon", cpu_cells)
    if "relay" in side_cpu and "relay-lane" in side_cpu:
        ratio = side_cpu["relay-lane"] / side_cpu["relay"] if side_cpu["relay"] else None
        cells = [f"{side_cpu[name]:.2f}" if name in side_cpu else "" for name in sides]
        row("the peripheral's side per MiB: relay-peripheral + bluetoothd + dbus-daemon (the test bed's one "
            "bluetoothd serves both sides)", cells,
            "" if ratio is None else f"lane <= 1/5 of GATT: {ratio:.2f} of it, {'met' if ratio <= 0.2 else 'NOT met'}")
    if "relay" in sides and "relay-lane" in sides:
        cells, met = [], True
        for direction in ("c2p", "p2c"):
            gatt, lane = rates.get(("relay", direction)), rates.get(("relay-lane", direction))
            if gatt and lane:
                cells.append(f"{direction} {lane / gatt:.2f}")
                met = met and lane >= gatt * 0.98
            else:
                met = False
        row("lane goodput against GATT (relay-lane / relay)", [" , ".join(cells)] + [""] * (len(sides) - 1),
            f"at least GATT's (within 2 %): {'met' if met else 'NOT met'}")
    hwm_cells = []
    for name in sides:
        hwm = by_side[name].get("hwm_kib") or {}
        hwm_cells.append(" / ".join(f"{hwm[p] / 1024:.1f}" if hwm.get(p) else "?" for p in ("central", "peripheral"))
                         if hwm else "n/a")
    if any(cell != "n/a" for cell in hwm_cells):
        row("peak RSS at the end (MiB): central / peripheral", hwm_cells)
    files = []
    for name in sides:
        entry = by_side[name].get("goodput_c2p") or {}
        size = by_side[name].get("size", MIB)
        if entry.get("bytes_per_second"):
            seconds = MIB / entry["bytes_per_second"]
            files.append(f"{seconds:.1f} s" + ("" if size == MIB else f" (from {size // 1024} KiB)"))
        else:
            files.append("n/a")
    row("a 1 MiB file central -> peripheral", files)
    resent = []
    for name in sides:
        delivery = by_side[name].get("delivery_central") or {}
        sent, again = delivery.get("sentBytes"), delivery.get("resentBytes")
        resent.append(f"{again} of {sent}" if sent else "")
    if any(resent):
        row("stream bytes the central sent again, of all it sent", resent)
    errors = [f"{s['side']}: {s['error']}" for s in sessions if s["profile"] == profile and "error" in s
              and s.get("extra", "") == extra]
    header = ["measure"] + [{"relay": "relay (protocol 2)", "relay-lane": "relay --lane l2cap",
                             "relay-v1": "relay --protocol 1 (no acks)",
                             "peers": "bleak/bless (raw)"}[name] for name in sides] + ["goal"]
    title = f"**{profile}** radio ({relay.get('spec', '')})"
    return title + "\n\n" + markdown_table(header, rows) + ("\n\nFailed: " + "; ".join(errors) if errors else "")


def window_table(profile, sessions):
    """Goodput by --window on one profile (relay is the default window, 64 KiB), or None."""
    chosen = [s for s in sessions if s["profile"] == profile and not s.get("extra")
              and (s["side"] == "relay" or s["side"].startswith("relay-w"))]
    if not any(s["side"].startswith("relay-w") for s in chosen):
        return None

    def window(session):
        return 65536 if session["side"] == "relay" else int(session["side"][len("relay-w"):])

    rows = []
    for session in sorted(chosen, key=window):
        cap, _ = capacity(session)
        cells = [f"{window(session) // 1024} KiB" + (" (default)" if session["side"] == "relay" else "")]
        cells += [cell_rate(session, direction, cap)[0] for direction in ("c2p", "p2c")]
        for name in ("central", "peripheral"):
            delivery = session.get(f"delivery_{name}") or {}
            cells.append(f"{delivery.get('resentBytes', '?')} / {delivery.get('timeouts', '?')}")
        rows.append(cells)
    header = ["--window", "central -> peripheral KiB/s (share)", "peripheral -> central KiB/s (share)",
              "central resent bytes / time-outs", "peripheral resent bytes / time-outs"]
    return f"**{profile}** radio, relay by window\n\n" + markdown_table(header, rows)


def render(results):
    sessions = results["sessions"]
    keys = []
    for session in sessions:
        key = (session["profile"], session.get("extra", ""))
        if key not in keys:
            keys.append(key)
    parts = [profile_table(profile, extra, sessions) for profile, extra in keys]
    parts += [table for profile, extra in keys if not extra for table in [window_table(profile, sessions)] if table]
    return "\n\n".join(parts)


def intro(results, raw):
    return (f"On the air (benchmarks/ble/air_bench.py, one boot, {results.get('seconds', 0):.0f} s of sessions; "
            "each session on a fresh bluetoothd whose btvirt runs the profile, docs/test-bed.md"
            + (f"; raw figures in `{raw}`" if raw else "") + "):")


def main():
    table_main(render, intro, BEGIN, END)


if __name__ == "__main__":
    main()
