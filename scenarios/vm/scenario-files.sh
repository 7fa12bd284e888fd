#!/usr/bin/env bash
# Files as files (issue 16), inside the bluez-vm guest, on btvirt's instant radio (what is tested is
# names, saving and memory, not air time; 5 MiB take a minute each way on the phone radio):
#   1. relay-peripheral (hci0) and relay-central (hci1), both with --save-dir: a 5 MiB file named
#      `räksmörgås 写真 (1).jpg` each way arrives under its name, SHA-256 equal, and another
#      file of that name as `räksmörgås 写真 (1) (1).jpg` (nothing is overwritten); each program's
#      peak resident memory is reported and bounded.
#   2. A foreign central speaking protocol 2 (scenarios/vm/peers/named_files_central.py) sends
#      files named `../../etc/passwd`, `/tmp/x`, `a/b`, `..`, 255 bytes of `A`, NUL, invalid
#      UTF-8, `.hidden`, `-rf`: every one is delivered and saved directly inside the folder under
#      its safe name (docs/cli.md, "Saved files"), with its content.
# vm-controllers: 2
# vm-timeout: 600
# vm-air: off
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
name='räksmörgås 写真 (1).jpg'
second='räksmörgås 写真 (1) (1).jpg'
mkdir -p "$out/send" "$out/psaved" "$out/csaved"
head -c $((5 << 20)) /dev/urandom > "$out/send/$name"
expected=$(sha "$out/send/$name")
p=$out/peripheral.out c=$out/central.out

# 1. Between two relays.
open_input peripheral 7
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --save-dir "$out/psaved"
echo start >&7
wait_for_line "$p" '"event":"advertising"' 60 || fail "relay-peripheral did not advertise"
open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --connect sample \
  --save-dir "$out/csaved"
wait_for_line "$c" '"event":"ready".*"protocol":2' 90 || fail "relay-central is not ready with protocol 2"
echo "send-file $out/send/$name" >&7
wait_for_count "$c" '"event":"message"' 1 180 || fail "the peripheral's file did not arrive"
echo "send-file $out/send/$name" >&8
wait_for_count "$p" '"event":"message"' 1 180 || fail "the central's file did not arrive"
# The same name again (a small file): saved beside the first, which stays as it was.
mkdir -p "$out/small" && head -c 3000 /dev/urandom > "$out/small/$name"
small=$(sha "$out/small/$name")
echo "send-file $out/small/$name" >&7
echo "send-file $out/small/$name" >&8
wait_for_count "$c" '"event":"message"' 2 60 || fail "the peripheral's second file did not arrive"
wait_for_count "$p" '"event":"message"' 2 60 || fail "the central's second file did not arrive"
for side in p c; do
  dir=$out/${side}saved file=$out/$([ $side = p ] && echo peripheral || echo central).out
  [ "$(json_list "$file" message name)" = "$name,$name" ] || fail "$side: names $(json_list "$file" message name)"
  [ "$(json_list "$file" message saved)" = "$dir/$name,$dir/$second" ] || fail "$side: saved $(json_list "$file" message saved)"
  [ "$(sha "$dir/$name")" = "$expected" ] && [ "$(sha "$dir/$second")" = "$small" ] || fail "$side: content differs"
  [ "$(ls "$dir" | wc -l)" = 2 ] || fail "$side: the folder holds $(ls "$dir")"
done
hwm_p=$(vm_hwm "${started[peripheral]}") hwm_c=$(vm_hwm "${started[central]}")
echo "1. 5 MiB '$name' each way, saved under its name, then a second one as '$second'; peak RSS peripheral $((hwm_p / 1024)) MiB, central $((hwm_c / 1024)) MiB"
# The whole file is held in memory on each side today (a few copies of 5 MiB).
[ "$hwm_p" -lt $((96 * 1024)) ] && [ "$hwm_c" -lt $((96 * 1024)) ] || fail "peak RSS above 96 MiB"
echo quit >&8
finish central 30 || fail "relay-central exited $?"

# 2. A foreign central with hostile names.
rm -rf "$out/psaved"/*
start hostile "$python" "$peers/named_files_central.py" --adapter hci1 --address "${RELAY_VM_HCI1_ADDRESS:-00:AA:01:01:00:01}"
finish hostile 240 || fail "the foreign central failed: $(tail -n 3 "$out/hostile.err")"
[ "$(grep -c '"delivered": true' "$out/hostile.out")" = 10 ] || fail "not every hostile file was delivered: $(cat "$out/hostile.out")"
[ -z "$(find "$out/psaved" -mindepth 2)" ] || fail "something was saved below the folder: $(find "$out/psaved" -mindepth 2)"
[ ! -e /tmp/x ] && [ ! -e "$out/psaved/../x" ] || fail "a file escaped the folder"
[ "$(ls -A "$out/psaved" | wc -l)" = 10 ] || fail "the folder holds $(ls -A "$out/psaved" | wc -l) entries: $(ls -A "$out/psaved")"
[ -z "$(ls -A "$out/psaved" | grep -E '^[.-]')" ] || fail "a hidden or dash name was saved"
saved_hashes=$(cd "$out/psaved" && sha256sum -- * | cut -d' ' -f1)
for hash in $(grep -o '"sha256": "[0-9a-f]*"' "$out/hostile.out" | cut -d'"' -f4); do
  grep -qx "$hash" <<< "$saved_hashes" || fail "no saved file has $hash"
done
echo "2. hostile names saved as: $(ls -A "$out/psaved" | sed 's/^/[/; s/$/]/' | tr '\n' ' ' | cut -c1-400)"
echo quit >&7
finish peripheral 30 || fail "relay-peripheral exited $?"
echo "PASS files"
