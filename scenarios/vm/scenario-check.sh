#!/usr/bin/env bash
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
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
[ -n "$python" ] || fail "no Python venv (run scripts/python-env.sh on the host)"
state=/run/relay-vm
test_service=5e1a7c4e-c4ec-4b1e-9a55-0e1a7c4ec4ec

active_instances() {
  dbus-send --system --print-reply=literal --dest=org.bluez /org/bluez/hci0 org.freedesktop.DBus.Properties.Get \
    string:org.bluez.LEAdvertisingManager1 string:ActiveInstances | awk '{ print $NF }'
}
uuids() {
  dbus-send --system --print-reply --dest=org.bluez /org/bluez/hci0 org.freedesktop.DBus.Properties.Get \
    string:org.bluez.Adapter1 string:UUIDs | tr 'A-F' 'a-f'
}
baseline=$(active_instances)
[ -n "$baseline" ] || fail "cannot read hci0's ActiveInstances"
holds_nothing() { # CASE
  pause 0.5
  [ "$(active_instances)" = "$baseline" ] || fail "$1: bluetoothd holds $(active_instances) advertisements (before: $baseline)"
  uuids | grep -q "$test_service" && fail "$1: the check's test service is still registered"
  return 0
}
# Runs the check: CASE PROGRAM ARGS...; the JSON lines go to $out/CASE.json, the status to $status.
run_check() {
  local name=$1; shift
  status=0
  "$@" --check --json > "$out/$name.json" 2> "$out/$name.err" || status=$?
  python3 -I - "$out/$name.json" "$status" << 'PY' || fail "$name: $(cat "$out/$name.json" | tail -n 3)"
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
status = int(sys.argv[2])
checks, summary = lines[:-1], lines[-1]
assert checks and summary["event"] == "checked", "no summary line"
for check in checks:
    assert check["event"] == "check", check
    assert set(check) - {"event", "time", "check", "status", "detail", "fix"} == set(), check
    assert check["status"] in ("ok", "warning", "failed"), check
    assert isinstance(check["detail"], str) and check["detail"], check
    assert ("fix" in check) == (check["status"] != "ok"), f"fix on every warning and failure only: {check}"
failed = [c for c in checks if c["status"] == "failed"]
assert summary["ready"] == (not failed) == (status == 0), (summary, status)
assert summary["failed"] == len(failed), summary
PY
}
# The status of CHECK in CASE's lines, and its fix.
status_of() { python3 -I -c 'import json,sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("check") == sys.argv[2]: print(e["status"]); break' "$out/$1.json" "$2"; }
fix_of() { python3 -I -c 'import json,sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("check") == sys.argv[2]: print(e.get("fix", "")); break' "$out/$1.json" "$2"; }

# Healthy.
run_check healthy-peripheral "$bin/relay-peripheral" --adapter hci0 --secure
[ "$status" = 0 ] || fail "healthy peripheral: exit $status: $(grep failed "$out/healthy-peripheral.json")"
for check in bus bluetoothd bluez adapter rfkill powered le advertising gatt-application agent; do
  [ "$(status_of healthy-peripheral $check)" = ok ] || fail "healthy peripheral: $check is $(status_of healthy-peripheral $check)"
done
holds_nothing healthy-peripheral
run_check healthy-central "$bin/relay-central" --adapter hci1
[ "$status" = 0 ] || fail "healthy central: exit $status"
[ "$(status_of healthy-central discovery)" = ok ] || fail "healthy central: discovery is $(status_of healthy-central discovery)"
"$bin/relay-peripheral" --adapter hci0 --check > "$out/healthy-human.txt" 2>&1 || fail "human mode: exit status not 0"
grep -q "^ok  *advertising  *a test advertisement was registered and removed" "$out/healthy-human.txt" ||
  fail "human mode: no advertising line: $(cat "$out/healthy-human.txt")"
tail -n 1 "$out/healthy-human.txt" | grep -q "relay-peripheral can play its part on this machine" ||
  fail "human mode: no summary: $(tail -n 1 "$out/healthy-human.txt")"

# rfkill-blocked, hence powered off.
switch=$(grep -lx hci0 /sys/class/rfkill/rfkill*/name | head -n 1)
[ -n "$switch" ] || fail "hci0 has no rfkill switch in the guest"
switch=$(dirname "$switch")
echo 1 > "$switch/soft"
for _ in $(seq 50); do [ "$(cat "$switch/soft")" = 1 ] && break; pause 0.1; done
pause 1
run_check blocked "$bin/relay-peripheral" --adapter hci0
[ "$status" = 1 ] || fail "blocked: exit $status"
[ "$(status_of blocked rfkill)" = failed ] && [ "$(fix_of blocked rfkill)" = "rfkill unblock bluetooth" ] ||
  fail "blocked: rfkill is $(status_of blocked rfkill) ($(fix_of blocked rfkill))"
[ "$(status_of blocked powered)" = failed ] && [ "$(fix_of blocked powered)" = "rfkill unblock bluetooth, then bluetoothctl power on" ] ||
  fail "blocked: powered is $(status_of blocked powered) ($(fix_of blocked powered))"
echo 0 > "$switch/soft"
dbus-send --system --print-reply --dest=org.bluez /org/bluez/hci0 org.freedesktop.DBus.Properties.Set \
  string:org.bluez.Adapter1 string:Powered variant:boolean:true > /dev/null || fail "cannot power hci0 on again"
pause 1
holds_nothing blocked

# Every advertising slot taken by another process.
start filler "$python" "$peers/advertising_filler.py" --adapter hci0
wait_for_line "$out/filler.out" '"held"' 60 || fail "the filler did not start: $(tail -n 2 "$out/filler.err")"
run_check taken "$bin/relay-peripheral" --adapter hci0
[ "$status" = 1 ] || fail "slots taken: exit $status"
[ "$(status_of taken advertising)" = failed ] || fail "slots taken: advertising is $(status_of taken advertising)"
fix_of taken advertising | grep -q "stop the other advertisers" || fail "slots taken: fix $(fix_of taken advertising)"
run_check taken-central "$bin/relay-central" --adapter hci0
[ "$status" = 0 ] || fail "slots taken: the central's part needs no slot, yet exit $status"
stop filler
pause 1
holds_nothing taken

# A D-Bus policy that refuses the user nobody: a copy of a policy folder the bus reads, with a
# file added, bind-mounted over it (the guest's root is read-only).
policies=/etc/dbus-1/system.d
[ -d "$policies" ] || policies=/usr/share/dbus-1/system.d
mkdir -p /tmp/system.d
cp -a "$policies/." /tmp/system.d/ 2>/dev/null || true
cat > /tmp/system.d/zz-relay-check-deny.conf << 'XML'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><policy user="nobody"><deny send_destination="org.bluez"/></policy></busconfig>
XML
mount --bind /tmp/system.d "$policies" || fail "cannot put the policy in place"
reload_bus() { dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ReloadConfig > /dev/null; }
reload_bus || fail "the bus did not reload its policy"
pause 0.5
run_check refused setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$bin/relay-central" --adapter hci1
umount "$policies"
reload_bus
[ "$status" = 1 ] || fail "policy: exit $status"
[ "$(status_of refused bluetoothd)" = failed ] || fail "policy: bluetoothd is $(status_of refused bluetoothd)"
fix_of refused bluetoothd | grep -q "run as root or as a member of the 'bluetooth' group" ||
  fail "policy: fix $(fix_of refused bluetoothd)"

# Interrupted by SIGINT or SIGTERM, at once and at moments that fall in its registrations: the
# check waits for bluetoothd's answer to a registration on its way, then removes it. (A SIGKILL
# in that moment can leave the registration with bluetoothd 5.66, which watches a client only
# after answering it; nothing a program can do about that.)
for delay in 0 0.3 0.5 0.6 0.7 1; do
  for sig in INT TERM; do
    "$bin/relay-peripheral" --adapter hci0 --secure --check --json > "$out/interrupted.json" 2>&1 &
    pid=$!
    pause "$delay"
    kill -s "$sig" "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    holds_nothing "interrupted (SIG$sig after $delay s)"
  done
done

# bluetoothd stopped (the last case: the guest's bluetoothd is not started again).
kill -TERM "$(cat "$state/bluetoothd.pid")"
for _ in $(seq 100); do
  dbus-send --system --print-reply=literal --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
    string:org.bluez | grep -q false && break
  pause 0.1
done
run_check stopped "$bin/relay-peripheral" --adapter hci0
[ "$status" = 1 ] || fail "bluetoothd stopped: exit $status"
[ "$(status_of stopped bluetoothd)" = failed ] || fail "bluetoothd stopped: bluetoothd is $(status_of stopped bluetoothd)"
fix_of stopped bluetoothd | grep -q "systemctl start bluetooth" || fail "bluetoothd stopped: fix $(fix_of stopped bluetoothd)"
run_check stopped-central "$bin/relay-central"
[ "$status" = 1 ] || fail "bluetoothd stopped (central): exit $status"

echo "PASS check (healthy: $(grep -c '"status":"ok"' "$out/healthy-peripheral.json") ok, features $(status_of healthy-peripheral features) on the peripheral, exit 0 both; blocked: rfkill and powered failed, exit 1; $(python3 -I -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["held"])' "$out/filler.out") slots taken: advertising failed, exit 1, the central ready; policy: bluetoothd failed, exit 1; 12 interruptions leave nothing; bluetoothd stopped: failed, exit 1)"
