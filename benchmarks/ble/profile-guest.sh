#!/usr/bin/env bash
# Inside the bluez-vm guest: where relay-peripheral and relay-central spend their CPU while 1 MiB
# crosses each way. perf (cpu-clock samples, call graphs) on both processes and on bluetoothd;
# reports in $RELAY_VM_OUT/perf-*.txt. Host side:
#   RELAY_BIN=$PWD/.build-bench-release/release scripts/bluez-vm run --controllers 0 -- benchmarks/ble/profile-guest.sh
set -euo pipefail
repo=${RELAY_REPO:?}
bin=${RELAY_BIN:?}
out=${RELAY_VM_OUT:?}
"$repo/scripts/vm/guest-bluetooth" restart --controllers 2 --logs "$out" > /dev/null
head -c 1048576 /dev/urandom > /tmp/one-mib
mkfifo /tmp/p.in /tmp/c.in
"$bin/relay-peripheral" --adapter hci0 --json --max-message 2097152 < /tmp/p.in > "$out/p.jsonl" 2> "$out/p.err" &
peripheral=$!
exec 7> /tmp/p.in
echo start >&7
until grep -q '"advertising"' "$out/p.jsonl"; do sleep 0.2; done
"$bin/relay-central" --adapter hci1 --json --connect sample --scan-timeout 60 --max-message 2097152 < /tmp/c.in > "$out/c.jsonl" 2> "$out/c.err" &
central=$!
exec 8> /tmp/c.in
until grep -q '"ready"' "$out/c.jsonl"; do sleep 0.2; done
sleep 1
daemon=$(pidof -s bluetoothd)
perf record -F 250 -g -o "$out/perf-peripheral.data" -p "$peripheral" 2> /dev/null &
p1=$!
perf record -F 250 -g -o "$out/perf-central.data" -p "$central" 2> /dev/null &
p2=$!
perf record -F 250 -g -o "$out/perf-bluetoothd.data" -p "$daemon" 2> /dev/null &
p3=$!
sleep 2
echo "send-file /tmp/one-mib" >&8
until grep -q '"message"' "$out/p.jsonl"; do sleep 0.5; done
echo "c2p done $(date +%s)"
echo "send-file /tmp/one-mib" >&7
until grep -q '"message"' "$out/c.jsonl"; do sleep 0.5; done
echo "p2c done $(date +%s)"
kill -INT $p1 $p2 $p3
wait $p1 $p2 $p3 || true
echo quit >&8
echo quit >&7
wait $central $peripheral || true
for name in peripheral central bluetoothd; do
  perf report -i "$out/perf-$name.data" --stdio --no-children --percent-limit 1.5 2> /dev/null | head -n 150 > "$out/perf-$name.txt"
  perf report -i "$out/perf-$name.data" --stdio --no-children --sort dso 2> /dev/null | head -n 30 > "$out/perf-$name-dso.txt"
done
echo profiled
