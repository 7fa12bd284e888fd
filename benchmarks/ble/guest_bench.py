#!/usr/bin/env python3
"""Inside the bluez-vm guest: the relay pair and the Python peers doing the same work.

Started by benchmarks/ble/run.sh (`scripts/bluez-vm run -- ...`). Each session gets a fresh
bluetoothd + btvirt (scripts/vm/guest-bluetooth restart), a peripheral on hci0 and a central on
hci1, both driven over stdin with one JSON event per stdout line. Every line is stamped with
CLOCK_MONOTONIC when this driver reads it, and every duration is measured the same way for
both sides: from the moment the driver writes a command to the moment it reads the event
that ends the job. Writes results.json into $RELAY_VM_OUT.

Sessions: --runs "main" sessions of relay and --peer-runs of the peers, interleaved (start-up,
1000 counters, --size bytes of goodput each way, CPU and peak RSS; the first relay session
repeats its transfers for the memory trend), once per side an "echo" session (peripheral
echoes counters: round trips) and, when the programs have the options, one relay main session
on the D-Bus paths (central WriteValue + StartNotify signals, peripheral PropertiesChanged
notifications), and one relay main + echo session with the central on its other notification
path (`relay-central --notify-path`: AcquireNotify socket or StartNotify signals). Relay main
sessions also notify 1000 counters peripheral -> central at full speed (lost ones counted).
The relay binaries are copied to the guest's tmpfs first, as an installed program is on a
local disk (the host share is 9p).
"""
import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.environ.get("RELAY_REPO", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
sys.path.insert(0, os.path.join(REPO, "scenarios"))

from relay_driver import RelayProgram, WaitFailed, cpu_seconds  # noqa: E402

BIN = os.environ.get("RELAY_BIN", os.path.join(REPO, ".build", "release"))
LOCAL_BIN = "/tmp/relay-bin"
PYTHON = os.environ.get("RELAY_PYTHON", sys.executable)
PEERS = os.path.join(REPO, "scenarios", "vm", "peers")
OUT = os.environ.get("RELAY_VM_OUT", "/tmp")
MIB = 1 << 20


def log(message):
    print(f"[bench {time.monotonic():9.2f}] {message}", file=sys.stderr, flush=True)


def launch(name, arguments, logs):
    """A program driven over stdin, its stdout read line by line and stamped on arrival
    (scenarios/relay_driver.py); NAME.jsonl keeps every line with its stamp, as report.py
    reads them back, NAME.err its stderr."""
    return RelayProgram(arguments, name=name, log_dir=logs, stamp_log=True)


def write_sessions(name, results):
    """Writes RESULTS (a dict with `sessions`) as $RELAY_VM_OUT/NAME; the exit status: 1 when a
    session failed (has an `error`)."""
    with open(os.path.join(OUT, name), "w") as handle:
        json.dump(results, handle, indent=1)
    log(f"{name} written")
    return 0 if all("error" not in s for s in results["sessions"]) else 1


def bluetoothd_pid():
    return int(subprocess.run(["pidof", "-s", "bluetoothd"], capture_output=True, text=True).stdout.split()[0])


# The radio of every session (scripts/vm/guest-bluetooth --air PROFILE --air-extra SPEC); air_bench.py
# sets it per profile. None: the guest's default ($RELAY_VM_AIR, else laptop).
AIR = None


def restart_bluetooth(logs):
    air = ["--air", AIR[0], "--air-extra", AIR[1]] if AIR else []
    subprocess.run([os.path.join(REPO, "scripts", "vm", "guest-bluetooth"), "restart", "--controllers", "2",
                    "--logs", logs] + air, check=True, stdout=subprocess.DEVNULL)
    time.sleep(SETTLE)  # "once bluetoothd is up": let it finish its own start-up work first


SETTLE = 2.0

# scripts/vm/guest-bluetooth runs bluetoothd SCHED_FIFO on btvirt's vCPU (links need it while they
# are set up). Under sustained traffic bluetoothd is then never idle and btvirt, the emulated
# radio, gets only the kernel's real-time throttle (5 %): that caps fast senders (relay) more than
# slow ones (the Python peers). Once the programs are connected and subscribed, every session (both
# sides alike) puts bluetoothd back on normal scheduling, as scenarios/vm/soak.py does;
# --keep-fifo keeps it, to compare.
KEEP_FIFO = False


def normal_scheduling(pid):
    if KEEP_FIFO:
        return
    subprocess.run(["chrt", "-o", "-a", "-p", "0", str(pid)], check=True, stdout=subprocess.DEVNULL)
    policy = subprocess.run(["chrt", "-p", str(pid)], capture_output=True, text=True).stdout
    if "SCHED_OTHER" not in policy:
        raise RuntimeError(f"bluetoothd still not SCHED_OTHER: {policy.strip()}")


def install_binaries():
    """Copies the relay programs to the guest's tmpfs (local disk, like an installed program)."""
    os.makedirs(LOCAL_BIN, exist_ok=True)
    for name in ("relay-peripheral", "relay-central"):
        shutil.copy2(os.path.join(BIN, name), os.path.join(LOCAL_BIN, name))


def has_option(program, option):
    text = subprocess.run([os.path.join(LOCAL_BIN, program), "--help"], capture_output=True, text=True)
    return option in text.stdout + text.stderr


def central_notify_default():
    """The notification path relay-central uses by default (from its --help), None without the option."""
    text = subprocess.run([os.path.join(LOCAL_BIN, "relay-central"), "--help"], capture_output=True, text=True).stdout
    for line in text.splitlines():
        words = line.split()
        # `--notify-path signal|socket  ...`: the default path is listed first.
        if len(words) > 1 and words[0] == "--notify-path" and "|" in words[1]:
            return words[1].split("|")[0]
    return None


class Side:
    """How one side (relay or peers) is launched and asked for each job."""

    def __init__(self, name, files, size=MIB):
        self.name = name
        self.files = files
        self.size = size


class RelaySide(Side):
    def __init__(self, name, files, central_options=(), peripheral_options=(), size=MIB):
        super().__init__(name, files, size)
        # Messages on GATT unless the side names its lane: the programs' default (auto) takes the
        # L2CAP lane between two relays, which make bench measures as its own side (relay-lane).
        gatt = ["--lane", "gatt"] if has_option("relay-central", "--lane") else []
        self.central_options = list(central_options) + ([] if "--lane" in central_options else gatt)
        self.peripheral_options = list(peripheral_options) + ([] if "--lane" in peripheral_options else gatt)

    def peripheral(self, logs, echo):
        arguments = [os.path.join(LOCAL_BIN, "relay-peripheral"), "--adapter", "hci0", "--json",
                     "--max-message", str(2 * MIB)] + (["--echo"] if echo else []) + self.peripheral_options
        process = launch("peripheral", arguments, logs)
        process.send("start\n")
        advertising = process.wait("advertising", timeout=60)
        return process, advertising.stamp - process.launched

    def central(self, logs):
        arguments = [os.path.join(LOCAL_BIN, "relay-central"), "--adapter", "hci1", "--json", "--connect", "sample",
                     "--scan-timeout", "60", "--max-message", str(2 * MIB)] + self.central_options
        process = launch("central", arguments, logs)
        ready = process.wait("ready", timeout=90)
        return process, ready.stamp - process.launched, int(ready["mtu"])

    def counters(self, central, peripheral, count):
        since = peripheral.mark()
        started = central.send("".join(f"write {value}\n" for value in range(count)))
        return started, since

    def write(self, central, value):
        return central.send(f"write {value}\n")

    def notify_counters(self, central, peripheral, count):
        """The peripheral notifies `count` counters back to back (`notify N` lines)."""
        since = central.mark()
        started = peripheral.send("".join(f"notify {value}\n" for value in range(count)))
        return started, since

    def send_c2p(self, central, peripheral, size, chunk):
        since = peripheral.mark()
        started = central.send(f"send-file {self.files['central']}\n")
        return self._finish(started, peripheral, since)

    def send_p2c(self, central, peripheral, size, chunk):
        since = central.mark()
        started = peripheral.send(f"send-file {self.files['peripheral']}\n")
        return self._finish(started, central, since)

    def _finish(self, started, receiver, since):
        try:  # a lost frame means no message ever: give up at a rate below 2 KiB/s
            message = receiver.wait("message", since, timeout=max(120.0, self.size / 2048))
        except WaitFailed:
            return started, None, None, 0
        return started, message.stamp, message.get("sha256"), int(message.get("length", 0))


class PeerSide(Side):
    def peripheral(self, logs, echo):
        arguments = [PYTHON, os.path.join(PEERS, "bless_peripheral.py"), "--adapter", "hci0", "--commands",
                     "--timeout", "0"] + (["--echo"] if echo else [])
        process = launch("peripheral", arguments, logs)
        advertising = process.wait("advertising", timeout=60)
        return process, advertising.stamp - process.launched

    def central(self, logs):
        arguments = [PYTHON, os.path.join(PEERS, "bleak_central.py"), "--adapter", "hci1", "--commands",
                     "--scan-timeout", "60", "--timeout", "0"]
        process = launch("central", arguments, logs)
        ready = process.wait("ready", timeout=90)
        return process, ready.stamp - process.launched, int(ready["mtu"])

    def counters(self, central, peripheral, count):
        since = peripheral.mark()
        started = central.send(f"counters {count}\n")
        return started, since

    def write(self, central, value):
        return central.send(f"write {value}\n")

    def _raw(self, sender, receiver, size, send_command):
        since = receiver.mark()
        receiver.send(f"expect {size}\n")
        receiver.wait("expecting", since, timeout=30)
        since = receiver.mark()
        started = sender.send(send_command)
        received = -1
        while True:  # as long as bytes keep coming (the peers can be slow), at most 15 minutes
            try:
                done = receiver.wait("received", since, timeout=30)
                return started, done.stamp, done.get("sha256"), int(done.get("bytes", 0))
            except WaitFailed:
                mark = receiver.mark()
                receiver.send("status\n")
                status = receiver.wait("status", mark, timeout=30)
                if int(status.get("received", 0)) <= received or time.monotonic() - started > 900:
                    return started, None, None, int(status.get("received", 0))
                received = int(status.get("received", 0))

    def send_c2p(self, central, peripheral, size, chunk):
        return self._raw(central, peripheral, size, f"send {size}\n")

    def send_p2c(self, central, peripheral, size, chunk):
        return self._raw(peripheral, central, size, f"send {size} {chunk}\n")


def main_session(side, logs, options, result, transfers):
    os.makedirs(logs, exist_ok=True)
    restart_bluetooth(logs)
    daemon = bluetoothd_pid()
    peripheral, peripheral_startup = side.peripheral(logs, echo=False)
    central = None
    try:
        central, central_startup, mtu = side.central(logs)
        chunk = min(mtu - 3, 510)
        ready = central.last("ready")
        if ready and ready.get("notify"):
            result["notify_path"] = ready["notify"]
        result["startup_peripheral"].append(peripheral_startup)
        result["startup_central"].append(central_startup)
        result["mtu"] = mtu
        log(f"{side.name}: peripheral advertising after {peripheral_startup:.3f} s, central ready after "
            f"{central_startup:.3f} s, MTU {mtu}")
        peripheral.wait("subscribed", timeout=30)
        normal_scheduling(daemon)
        time.sleep(0.5)

        # 1. counters
        started, since = side.counters(central, peripheral, options.counters)
        entry = wait_counters(peripheral, since, started, options.counters)
        result["counters"].append(entry)
        log(f"{side.name}: {entry['received']}/{options.counters} counters in {entry['seconds']:.3f} s")
        time.sleep(1.0)

        # 1b. counters the other way (relay only): every notification must reach the central
        if hasattr(side, "notify_counters"):
            started, since = side.notify_counters(central, peripheral, options.counters)
            entry = wait_counters(central, since, started, options.counters)
            result["counters_p2c"].append(entry)
            log(f"{side.name}: {entry['received']}/{options.counters} notified counters in {entry['seconds']:.3f} s")
            time.sleep(1.0)

        # 2. goodput, both directions, repeated (memory trend), CPU per MiB
        processes = {"central": central, "peripheral": peripheral}
        rss = {name: [] for name in processes}  # VmRSS after each transfer of this session
        for repetition in range(transfers):
            for direction, send in (("c2p", side.send_c2p), ("p2c", side.send_p2c)):
                before = {name: process.cpu() for name, process in processes.items()}
                before["bluetoothd"] = cpu_seconds(daemon)
                started, ended, sha256, length = send(central, peripheral, options.size, chunk)
                after = {name: process.cpu() for name, process in processes.items()}
                after["bluetoothd"] = cpu_seconds(daemon)
                expected = side.files["sha256"][direction]
                intact = ended is not None and length == options.size and (sha256 == expected or expected is None)
                seconds = (ended - started) if ended is not None else None
                result[f"goodput_{direction}"].append({
                    "seconds": seconds, "bytes": length, "intact": intact,
                    "lost": options.size - length if ended is None or not intact else 0,
                    "bytes_per_second": options.size / seconds if intact else None,
                    "cpu": {name: after[name] - before[name] for name in after}})
                for name, process in processes.items():
                    rss[name].append(process.memory("VmRSS"))
                log(f"{side.name} {direction} #{repetition + 1}: " + (
                    f"{options.size / seconds / 1024:.1f} KiB/s, cpu " if intact else f"LOST ({length} bytes), cpu ")
                    + ", ".join(f"{name} {after[name] - before[name]:.2f}" for name in after))
                time.sleep(0.5)
        for name, process in processes.items():
            result["hwm_kib"][name].append(process.memory("VmHWM"))
            result["rss_kib"][name].append(rss[name])
    finally:
        if central is not None:
            central.stop()
        peripheral.stop()


def wait_counters(receiver, since, started, count):
    """Waits until `receiver` showed counters 0..count-1 (or 10 s without a new one)."""
    seen, last, progress = set(), started, time.monotonic()
    while len(seen) < count and time.monotonic() - progress < 10:
        time.sleep(0.02)
        counters = [(event.stamp, event.get("value")) for event in receiver.select("counter", since)]
        if len(counters) > len(seen):
            progress = time.monotonic()
        seen = {value for _, value in counters}
        if counters:
            last = counters[-1][0]
    received = len(seen & set(range(count)))
    return {"seconds": last - started, "received": received, "lost": count - received}


def echo_session(side, logs, options, result):
    os.makedirs(logs, exist_ok=True)
    restart_bluetooth(logs)
    daemon = bluetoothd_pid()
    peripheral, peripheral_startup = side.peripheral(logs, echo=True)
    central = None
    try:
        central, central_startup, _ = side.central(logs)
        result["startup_peripheral"].append(peripheral_startup)
        result["startup_central"].append(central_startup)
        peripheral.wait("subscribed", timeout=30)
        normal_scheduling(daemon)
        time.sleep(0.5)
        trips = []
        for value in range(options.warmup + options.round_trips):
            since = central.mark()
            started = side.write(central, value)
            echo = central.wait("counter", since, timeout=10, where=lambda event: event.get("value") == value)
            if value >= options.warmup:
                trips.append(echo.stamp - started)
        result["round_trips"] += trips
        result.setdefault("round_trip_medians", []).append(statistics.median(trips))
        log(f"{side.name}: round trip median {statistics.median(trips) * 1000:.2f} ms over {len(trips)}")
    finally:
        if central is not None:
            central.stop()
        peripheral.stop()


def fresh_result():
    return {"startup_peripheral": [], "startup_central": [], "counters": [], "counters_p2c": [], "goodput_c2p": [],
            "goodput_p2c": [], "round_trips": [], "rss_kib": {"central": [], "peripheral": []},
            "hwm_kib": {"central": [], "peripheral": []}, "errors": []}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="relay main sessions")
    parser.add_argument("--peer-runs", type=int, default=1, help="peer main sessions (the peers are slow)")
    parser.add_argument("--transfers", type=int, default=2,
                        help="relay: transfers per direction in the first main session (memory trend); others do 1")
    parser.add_argument("--peer-transfers", type=int, default=1, help="peers: transfers per direction per session")
    parser.add_argument("--counters", type=int, default=1000)
    parser.add_argument("--size", type=int, default=MIB // 4, help="bytes per goodput transfer")
    parser.add_argument("--paths", choices=("auto", "no"), default="auto",
                        help="auto: one more relay main session on the D-Bus paths, if the programs have the options")
    parser.add_argument("--notify-paths", choices=("auto", "no"), default="auto",
                        help="auto: one more relay main + echo session with relay-central on its other notification path")
    parser.add_argument("--notify-runs", type=int, default=1, help="main sessions of that other notification path")
    parser.add_argument("--round-trips", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--echo-runs", type=int, default=1,
                        help="echo sessions per side, interleaved (their round trips are pooled)")
    parser.add_argument("--sides", default="relay,peers")
    parser.add_argument("--keep-fifo", action="store_true",
                        help="leave bluetoothd SCHED_FIFO during the measurements (as before 2026-11-29)")
    options = parser.parse_args()
    global KEEP_FIFO
    KEEP_FIFO = options.keep_fifo

    files = {}
    for role in ("central", "peripheral"):
        path = f"/tmp/bench-{role}.bin"
        with open(path, "wb") as handle:
            handle.write(os.urandom(options.size))
        with open(path, "rb") as handle:
            files[role] = path
            files.setdefault("sha256", {})["c2p" if role == "central" else "p2c"] = hashlib.sha256(handle.read()).hexdigest()
    install_binaries()
    sides = {"relay": RelaySide("relay", files, size=options.size),
             "peers": PeerSide("peers", dict(files, sha256={"c2p": None, "p2c": None}), size=options.size)}
    chosen = [sides[name] for name in options.sides.split(",")]
    results = {side.name: fresh_result() for side in chosen}
    started = time.monotonic()
    # Interleaved: relay, peers, relay, relay ... so the host's changing load falls on both sides.
    runs = {"relay": options.runs, "peers": options.peer_runs}
    plan = []
    for run in range(max(runs.values())):
        order = chosen if run % 2 == 0 else chosen[::-1]
        plan += [(run, side, "main") for side in order if run < runs[side.name]]
    for run in range(options.echo_runs):
        order = chosen if run % 2 == 0 else chosen[::-1]
        plan += [(run, side, "echo") for side in order]
    relay_chosen = "relay" in options.sides.split(",")
    notify_default = central_notify_default()
    if relay_chosen and options.notify_paths == "auto":
        if notify_default in ("socket", "signal"):
            other = "signal" if notify_default == "socket" else "socket"
            alternative = RelaySide(f"relay-central-notify-{other}", files,
                                    central_options=["--notify-path", other], size=options.size)
            results[alternative.name] = fresh_result()
            for run in range(options.notify_runs):
                plan.insert(min(len(plan), 2 * run + 1), (run, alternative, "main"))
            for run in range(options.echo_runs):  # next to relay's: the round trips compared
                echo_at = next((index + 1 for index, (number, side, kind) in enumerate(plan)
                                if side.name == "relay" and kind == "echo" and number == run), len(plan))
                plan.insert(echo_at, (run, alternative, "echo"))
        else:
            log("relay-central has no --notify-path: no session on its other notification path")
    if relay_chosen and options.paths == "auto":
        if has_option("relay-central", "--write-path") and has_option("relay-peripheral", "--notify-path"):
            central_dbus = ["--write-path", "write-value"] + (["--notify-path", "signal"] if notify_default else [])
            dbus = RelaySide("relay-dbus-paths", files, central_options=central_dbus,
                             peripheral_options=["--notify-path", "signal"], size=options.size)
            results[dbus.name] = fresh_result()
            plan += [(0, dbus, "main"), (0, dbus, "echo")]
        else:
            log("no --write-path / --notify-path options: no D-Bus path session")
    for run, side, kind in plan:
        logs = os.path.join(OUT, f"{side.name}-{kind}-{run + 1}")
        log(f"session {side.name} {kind} {run + 1}")
        try:
            if kind == "main":
                first = side.name == "relay" or side.name.startswith("relay-central-notify")
                transfers = options.transfers if (first and run == 0) else (
                    options.peer_transfers if side.name == "peers" else 1)
                main_session(side, logs, options, results[side.name], transfers)
            else:
                echo_session(side, logs, options, results[side.name])
        except Exception as error:  # a failed session is reported, the others still run
            log(f"{side.name} {kind} {run + 1} FAILED: {error!r}")
            results[side.name]["errors"].append(f"{kind} {run + 1}: {error}")
        save(results, options, started)  # after every session: a watchdog kill keeps what was measured
    return 1 if any(results[side]["errors"] for side in results) else 0


def save(results, options, started):
    machine = {"guest_kernel": os.uname().release, "guest_nproc": os.cpu_count(),
               "bluetoothd": subprocess.run(["bluetoothd", "--version"], capture_output=True, text=True).stdout.strip(),
               "seconds": time.monotonic() - started,
               "bluetoothd_scheduling": "SCHED_FIFO throughout" if KEEP_FIFO else "SCHED_OTHER once connected",
               "options": vars(options)}
    with open(os.path.join(OUT, "results.json.partial"), "w") as handle:
        json.dump({"machine": machine, **results}, handle, indent=1)
    os.replace(os.path.join(OUT, "results.json.partial"), os.path.join(OUT, "results.json"))
    log(f"saved after {machine['seconds']:.0f} s: {os.path.join(OUT, 'results.json')}")


if __name__ == "__main__":
    sys.exit(main())
