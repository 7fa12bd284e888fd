#!/usr/bin/env python3
"""Where a guest's CPU goes, per scenario (the suite's time table, docs/test-bed.md).

Inside the guest (scenarios/vm/guest-runner.sh):
  guest_cpu.py enable FILE       turns the kernel's process accounting on into FILE (acct(2), v3
                                 records: every process that exits leaves its CPU time there)
On the host:
  guest_cpu.py summary DIR       reads DIR/cpu (two lines of guest-runner.sh's cpu_mark: uptime,
                                 the guest's CPU counters from /proc/stat in clock ticks, the CPU
                                 ticks of the long-lived dbus-daemon) and DIR/acct (the records of the
                                 processes that exited meanwhile) and prints one JSON object:
                                 wall seconds, busy and idle CPU seconds of the guest, CPU seconds
                                 per process group (relay, bluetoothd, btvirt, dbus-daemon, the
                                 Python peers, the short-lived harness tools) and process count.
Only the standard library: it runs on the system python3 of every guest root.
"""
import ctypes
import json
import os
import struct
import sys

# struct acct_v3 (include/uapi/linux/acct.h): 64 bytes.
RECORD = struct.Struct("<BBHIIIIIIfHHHHHHHH16s")
TICKS = 100  # AHZ: comp_t times are in 1/100 s


def comp_t(value):
    """The kernel's 16-bit float: 13-bit mantissa, 3-bit base-8 exponent."""
    return (value & 0x1FFF) << (3 * (value >> 13))


def enable(path):
    open(path, "ab").close()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.acct(path.encode()) != 0:
        sys.exit(f"guest_cpu: acct({path}) failed: {os.strerror(ctypes.get_errno())}")


def group(comm, elapsed):
    # A process's name is cut to 15 characters: relay-peripheral is "relay-periphera".
    if comm == "relay-central" or comm == "relay-periphera":
        return "relay-central" if comm == "relay-central" else "relay-peripheral"
    if comm in ("bluetoothd", "btvirt", "btmon", "dbus-daemon"):
        return comm
    if comm.startswith("python") or comm == "relay-python":
        # The Python scenarios themselves (scenarios/vm/scenario.py: they drive the programs)
        # and the peers (bleak, bless, the hostile and article peers) run for seconds; the bash
        # scenarios' one-off checks (air_capacity.py) for a fraction of one.
        return "python (scenarios and peers)" if elapsed >= 3 else "python (short runs)"
    return "harness tools (bash, grep, sleep, dbus-send...)"


def summary(directory):
    with open(os.path.join(directory, "cpu")) as marks:
        first, last = [line.split() for line in marks.read().splitlines()[:2]]
    wall = float(last[0]) - float(first[0])
    before, after = [int(x) for x in first[1:-1]], [int(x) for x in last[1:-1]]
    delta = [b - a for a, b in zip(before, after)]
    idle = delta[3] + (delta[4] if len(delta) > 4 else 0)  # idle + iowait
    ticks = os.sysconf("SC_CLK_TCK")
    groups = {}
    processes = 0
    try:
        with open(os.path.join(directory, "acct"), "rb") as records:
            data = records.read()
    except OSError:
        data = b""
    for offset in range(0, len(data) - RECORD.size + 1, RECORD.size):
        fields = RECORD.unpack_from(data, offset)
        if fields[1] & 0x0F != 3:
            continue
        utime, stime = comp_t(fields[10]), comp_t(fields[11])
        comm = fields[18].split(b"\0", 1)[0].decode(errors="replace")
        name = group(comm, fields[9] / TICKS)  # ac_etime is in AHZ ticks too
        groups[name] = groups.get(name, 0.0) + (utime + stime) / TICKS
        processes += 1
    dbus = (int(last[-1]) - int(first[-1])) / ticks
    if dbus > 0:
        groups["dbus-daemon"] = groups.get("dbus-daemon", 0.0) + dbus
    print(
        json.dumps(
            {
                "wall": round(wall, 1),
                "busy": round((sum(delta) - idle) / ticks, 1),
                "idle": round(idle / ticks, 1),
                "processes": processes,
                "groups": {k: round(v, 1) for k, v in sorted(groups.items(), key=lambda kv: -kv[1])},
            }
        )
    )


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "enable" and len(sys.argv) == 3:
        enable(sys.argv[2])
    elif command == "summary" and len(sys.argv) == 3:
        summary(sys.argv[2])
    else:
        sys.exit(__doc__)
