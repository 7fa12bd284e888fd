#!/usr/bin/env python3
# `--check` (issue 33), inside the bluez-vm guest, on real bluetoothd: each program checks that the
# machine can play its part, one line (or JSON object) per check, the fix on every warning and
# failure, exit 0 when it can. Cases, each run with --json (and the healthy one in human mode too):
#   - healthy: relay-peripheral --secure (hci0) and relay-central (hci1): nothing failed, exit 0;
#   - hci0 rfkill-blocked (so bluetoothd powers it off): rfkill and powered failed with their
#     fixes (`rfkill unblock bluetooth`, `..., then bluetoothctl power on`), exit 1;
#   - every advertising slot of hci0 taken by another process (scenarios/vm/peers/advertising_filler.py):
#     relay-peripheral's advertising check failed, exit 1; relay-central still ready (exit 0);
#   - a D-Bus policy that refuses the user `nobody` (a policy file added to a copy of a policy
#     folder bind-mounted over it, the bus told to reload): run as nobody, bluetoothd failed with the
#     policy's fix, exit 1;
#   - interrupted: SIGINT and SIGTERM at six moments, some during its registrations;
#   - bluetoothd stopped: bluetoothd failed with `systemctl start bluetooth`, exit 1.
# After each case bluetoothd holds nothing of relay's: hci0's ActiveInstances is back to what it
# was, and its UUIDs do not name the check's test service. Every JSON line is an object of the
# documented shape (`check`, `status` ok|warning|failed, `detail`, `fix` on non-ok) and the last is
# `checked` with `ready` true exactly when the exit status is 0.
# vm-controllers: 2
# vm-timeout: 240
import glob
import os
import signal

from faults import bluetoothd_pid
from scenario import err_tail, BIN, PYTHON, WaitFailed, fail, finish, passed, pause, peer, relay, run, start, tail

if not PYTHON:
    fail("no Python venv (run scripts/python-env.sh on the host)")
TEST_SERVICE = "5e1a7c4e-c4ec-4b1e-9a55-0e1a7c4ec4ec"
# A check runs to its end: no limit of its own (the bash waited for it), the scenario's vm-timeout.
LIMIT = 240


def dbus_send(*arguments, literal=False):
    """dbus-send --system ARGUMENTS with its reply printed: (exit status, output)."""
    return run(["dbus-send", "--system", "--print-reply=literal" if literal else "--print-reply", *arguments])


def bus(*arguments, literal=False):
    """The reply dbus-send prints, "" when it failed."""
    status, output = dbus_send(*arguments, literal=literal)
    return output if status == 0 else ""


def active_instances():
    """hci0's LEAdvertisingManager1.ActiveInstances (the last word of each line of the reply)."""
    reply = bus("--dest=org.bluez", "/org/bluez/hci0", "org.freedesktop.DBus.Properties.Get",
                "string:org.bluez.LEAdvertisingManager1", "string:ActiveInstances", literal=True)
    return "\n".join(line.split()[-1] for line in reply.splitlines() if line.split())


def uuids():
    """hci0's Adapter1.UUIDs reply, lower case."""
    return bus("--dest=org.bluez", "/org/bluez/hci0", "org.freedesktop.DBus.Properties.Get",
               "string:org.bluez.Adapter1", "string:UUIDs").lower()


def reload_bus():
    return dbus_send("--dest=org.freedesktop.DBus", "/", "org.freedesktop.DBus.ReloadConfig")[0] == 0


baseline = active_instances()
if not baseline:
    fail("cannot read hci0's ActiveInstances")


def holds_nothing(case):
    pause(0.5)
    now = active_instances()
    if now != baseline:
        fail(f"{case}: bluetoothd holds {now} advertisements (before: {baseline})")
    if TEST_SERVICE in uuids():
        fail(f"{case}: the check's test service is still registered")


def shape_problem(program, status):
    """What is wrong with a --check --json run's lines (every one a `check` object of the
    documented shape, then a `checked` summary that agrees with them and with the exit STATUS);
    None when nothing is."""
    lines = program.select()
    if len(lines) != len(program.lines()):
        return "a line that is not a JSON event"
    if len(lines) < 2 or lines[-1].name != "checked":
        return "no summary line"
    checks, summary = lines[:-1], lines[-1]
    for check in checks:
        if check.name != "check":
            return f"not a check: {check.text}"
        if set(check) - {"event", "time", "check", "status", "detail", "fix"}:
            return f"fields beyond the documented ones: {check.text}"
        if check.get("status") not in ("ok", "warning", "failed"):
            return f"no such status: {check.text}"
        if not isinstance(check.get("detail"), str) or not check["detail"]:
            return f"no detail: {check.text}"
        if ("fix" in check) != (check["status"] != "ok"):
            return f"fix on every warning and failure only: {check.text}"
    failed = [check for check in checks if check["status"] == "failed"]
    if "ready" not in summary or not summary["ready"] == (not failed) == (status == 0):
        return f"ready does not agree with the checks and the exit status {status}: {summary.text}"
    if "failed" not in summary or summary["failed"] != len(failed):
        return f"failed does not count the failed checks: {summary.text}"
    return None


def run_check(name, argv):
    """Runs ARGV --check --json to its end as NAME (its lines in OUT/NAME.json, stderr in
    NAME.err); (the program, its exit status), once its lines are of the documented shape."""
    program = start(name, [*argv, "--check", "--json"], log_suffix=".json")
    program.close_input()
    status = finish(program, LIMIT)
    problem = shape_problem(program, status)
    if problem:
        fail(f"{name}: {problem}: {tail(program, 3)}")
    return program, status


def first_check(program, check):
    found = program.select("check", check=check)
    return found[0] if found else {}


def status_in(program, check):
    """The status of CHECK in PROGRAM's lines ("" when it has none)."""
    return first_check(program, check).get("status", "")


def fix_in(program, check):
    return first_check(program, check).get("fix", "")


peripheral, central = os.path.join(BIN, "relay-peripheral"), os.path.join(BIN, "relay-central")

# Healthy.
healthy, status = run_check("healthy-peripheral", [peripheral, "--adapter", "hci0", "--secure"])
if status != 0:
    fail(f"healthy peripheral: exit {status}: {' '.join(e.text for e in healthy.select('check', status='failed'))}")
for check in ("bus", "bluetoothd", "bluez", "adapter", "rfkill", "powered", "le", "advertising", "room",
              "gatt-application", "agent", "lane"):
    if status_in(healthy, check) != "ok":
        fail(f"healthy peripheral: {check} is {status_in(healthy, check)}")
# The test bed's bluetoothd runs with -E: it reads the advertising interval relay asks for.
if not first_check(healthy, "room").get("detail", "").startswith("bluetoothd advertises every 100 ms as asked"):
    fail(f"healthy peripheral: room says '{first_check(healthy, 'room').get('detail')}'")
holds_nothing("healthy-peripheral")
checked, status = run_check("healthy-central", [central, "--adapter", "hci1"])
if status != 0:
    fail(f"healthy central: exit {status}")
for check in ("discovery", "lane"):
    if status_in(checked, check) != "ok":
        fail(f"healthy central: {check} is {status_in(checked, check)}")
human = relay("healthy-human", "relay-peripheral", "--adapter", "hci0", "--check", json=False, merge_stderr=True,
              log_suffix=".txt")
human.close_input()
if finish(human, LIMIT) != 0:
    fail("human mode: exit status not 0")
if not human.lines(r"^ok  *advertising  *a test advertisement was registered and removed"):
    fail(f"human mode: no advertising line: {' | '.join(human.lines())}")
last = human.lines()[-1:]
if not last or "relay-peripheral can play its part on this machine" not in last[0]:
    fail(f"human mode: no summary: {' '.join(last)}")

# rfkill-blocked, hence powered off.
switches = []
for path in sorted(glob.glob("/sys/class/rfkill/rfkill*/name")):
    with open(path) as handle:
        if "hci0" in handle.read().split("\n"):
            switches.append(os.path.dirname(path))
if not switches:
    fail("hci0 has no rfkill switch in the guest")
soft = f"{switches[0]}/soft"


def set_soft(value):
    with open(soft, "w") as handle:
        handle.write(f"{value}\n")


set_soft(1)
for _ in range(50):
    with open(soft) as handle:
        if handle.read().rstrip("\n") == "1":
            break
    pause(0.1)
pause(1)
blocked, status = run_check("blocked", [peripheral, "--adapter", "hci0"])
if status != 1:
    fail(f"blocked: exit {status}")
if not (status_in(blocked, "rfkill") == "failed" and fix_in(blocked, "rfkill") == "rfkill unblock bluetooth"):
    fail(f"blocked: rfkill is {status_in(blocked, 'rfkill')} ({fix_in(blocked, 'rfkill')})")
if not (status_in(blocked, "powered") == "failed"
        and fix_in(blocked, "powered") == "rfkill unblock bluetooth, then bluetoothctl power on"):
    fail(f"blocked: powered is {status_in(blocked, 'powered')} ({fix_in(blocked, 'powered')})")
set_soft(0)
if dbus_send("--dest=org.bluez", "/org/bluez/hci0", "org.freedesktop.DBus.Properties.Set",
             "string:org.bluez.Adapter1", "string:Powered", "variant:boolean:true")[0] != 0:
    fail("cannot power hci0 on again")
pause(1)
holds_nothing("blocked")

# Every advertising slot taken by another process.
filler = peer("filler", "advertising_filler.py", "--adapter", "hci0", merge_stderr=False)
try:
    held = filler.wait_text('"held"', timeout=60)["held"]
except (WaitFailed, KeyError):
    fail(f"the filler did not start: {err_tail(filler, 2)}")
taken, status = run_check("taken", [peripheral, "--adapter", "hci0"])
if status != 1:
    fail(f"slots taken: exit {status}")
if status_in(taken, "advertising") != "failed":
    fail(f"slots taken: advertising is {status_in(taken, 'advertising')}")
if "stop the other advertisers" not in fix_in(taken, "advertising"):
    fail(f"slots taken: fix {fix_in(taken, 'advertising')}")
_, status = run_check("taken-central", [central, "--adapter", "hci0"])
if status != 0:
    fail(f"slots taken: the central's part needs no slot, yet exit {status}")
filler.terminate()
pause(1)
holds_nothing("taken")

# A D-Bus policy that refuses the user nobody: a copy of a policy folder the bus reads, with a
# file added, bind-mounted over it (the guest's root is read-only).
policies = "/etc/dbus-1/system.d"
if not os.path.isdir(policies):
    policies = "/usr/share/dbus-1/system.d"
os.makedirs("/tmp/system.d", exist_ok=True)
run(["cp", "-a", f"{policies}/.", "/tmp/system.d/"])
with open("/tmp/system.d/zz-relay-check-deny.conf", "w") as handle:
    handle.write("""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><policy user="nobody"><deny send_destination="org.bluez"/></policy></busconfig>
""")
if run(["mount", "--bind", "/tmp/system.d", policies])[0] != 0:
    fail("cannot put the policy in place")
if not reload_bus():
    fail("the bus did not reload its policy")
pause(0.5)
refused, status = run_check("refused", ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", central,
                                        "--adapter", "hci1"])
unmounted = run(["umount", policies])
if unmounted[0] != 0:
    fail(f"cannot take the policy away: {unmounted[1].strip()}")
if not reload_bus():
    fail("the bus did not reload its policy")
if status != 1:
    fail(f"policy: exit {status}")
if status_in(refused, "bluetoothd") != "failed":
    fail(f"policy: bluetoothd is {status_in(refused, 'bluetoothd')}")
if "run as root or as a member of the 'bluetooth' group" not in fix_in(refused, "bluetoothd"):
    fail(f"policy: fix {fix_in(refused, 'bluetoothd')}")

# Interrupted by SIGINT or SIGTERM, at once and at moments that fall in its registrations: the
# check waits for bluetoothd's answer to a registration on its way, then removes it. (A SIGKILL
# in that moment can leave the registration with bluetoothd 5.66, which watches a client only
# after answering it; nothing a program can do about that.)
for delay in (0, 0.3, 0.5, 0.6, 0.7, 1):
    for name, number in (("INT", signal.SIGINT), ("TERM", signal.SIGTERM)):
        # Started with SIGINT ignored, as bash starts a background command: a SIGINT before the
        # program handles it is lost, as in the bash scenario, rather than killing it.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            interrupted = relay("interrupted", "relay-peripheral", "--adapter", "hci0", "--secure", "--check",
                                merge_stderr=True, log_suffix=".json")
        finally:
            signal.signal(signal.SIGINT, previous)
        interrupted.close_input()
        pause(delay)
        interrupted.signal(number)
        finish(interrupted, LIMIT)
        holds_nothing(f"interrupted (SIG{name} after {delay} s)")

# bluetoothd stopped (the last case: the guest's bluetoothd is not started again).
os.kill(bluetoothd_pid(), signal.SIGTERM)
for _ in range(100):
    if "false" in bus("--dest=org.freedesktop.DBus", "/", "org.freedesktop.DBus.NameHasOwner", "string:org.bluez",
                      literal=True):
        break
    pause(0.1)
stopped, status = run_check("stopped", [peripheral, "--adapter", "hci0"])
if status != 1:
    fail(f"bluetoothd stopped: exit {status}")
if status_in(stopped, "bluetoothd") != "failed":
    fail(f"bluetoothd stopped: bluetoothd is {status_in(stopped, 'bluetoothd')}")
if "systemctl start bluetooth" not in fix_in(stopped, "bluetoothd"):
    fail(f"bluetoothd stopped: fix {fix_in(stopped, 'bluetoothd')}")
_, status = run_check("stopped-central", [central])
if status != 1:
    fail(f"bluetoothd stopped (central): exit {status}")

passed(f"healthy: {healthy.count('check', status='ok')} ok, features {status_in(healthy, 'features')} on the "
       f"peripheral, exit 0 both; blocked: rfkill and powered failed, exit 1; {held} slots taken: advertising "
       f"failed, exit 1, the central ready; policy: bluetoothd failed, exit 1; 12 interruptions leave nothing; "
       f"bluetoothd stopped: failed, exit 1")
