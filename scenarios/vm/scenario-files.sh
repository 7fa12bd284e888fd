#!/usr/bin/env bash
# Files as files (issue 16), inside the bluez-vm guest, on the phone radio with up to 100 PDUs an
# event (168 kB/s of ATT values, above what the programs' CPU in the guest moves: what is tested
# is names, saving and memory, not air time). Not on btvirt's instant radio (`off`): it reports an advertiser
# only when scanning or advertising is switched on, once, and a central that began to scan
# while bluetoothd was still setting the advertisement up never heard it (seen once the
# harness started the central 1.5 s after `advertising`):
#   1. relay-peripheral (hci0) and relay-central (hci1), both with --save-dir: a 5 MiB file
#      ($RELAY_FILES_MIB) named `räksmörgås 写真 (1).jpg` each way arrives under its name, SHA-256
#      equal, and another file of that name as `räksmörgås 写真 (1) (1).jpg` (nothing is
#      overwritten). While it comes, the receiver's `NAME.part` grows (written as it arrives, not
#      at the end). Neither program holds the file: each one's peak resident memory stays under
#      50 MB and grows by less than half the file's size from when the link was ready. (The
#      release builds move about 120 KiB/s here, the debug build 45; docs/performance.md has a
#      50 MiB run.)
#   2. A transfer cut for good (the sending central killed mid-file; the peripheral has
#      --resume-timeout 5 and --delivery-timeout 10): the peripheral reports it dropped and its
#      `.part` file is gone.
#   3. A foreign central speaking protocol 2 (scenarios/vm/peers/named_files_central.py) sends
#      files named `../../etc/passwd`, `/tmp/x`, `a/b`, `..`, 255 bytes of `A`, NUL, invalid
#      UTF-8, `.hidden`, `-rf`: every one is delivered and saved directly inside the folder under
#      its safe name (docs/cli.md, "Saved files"), with its content.
# vm-controllers: 2
# vm-timeout: 900
# vm-air: phone
# vm-air-extra: events=100,buffers=251x16
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
name='räksmörgås 写真 (1).jpg'
second='räksmörgås 写真 (1) (1).jpg'
mib=${RELAY_FILES_MIB:-5}
# The files live in the guest's memory (tmpfs), not in the log folder.
data=$(mktemp -d /tmp/relay-files.XXXXXX)
mkdir -p "$data/send" "$data/psaved" "$data/csaved" "$data/small"
head -c $((mib << 20)) /dev/urandom > "$data/send/$name"
expected=$(sha "$data/send/$name")
p=$out/peripheral.out c=$out/central.out
# Waits until DIR's `NAME.part` holds some but not all of the file (it is written as it comes).
part_grows() {
  local part="$1/$name.part" ticks=0 size
  # stat is a process (a fifth of a second of the guest's CPU): four looks a second.
  while [ $ticks -lt 480 ]; do
    size=$(stat -c %s "$part" 2>/dev/null || echo 0)
    if [ "$size" -gt 0 ] && [ "$size" -lt $((mib << 20)) ]; then echo "$size"; return 0; fi
    ticks=$((ticks + 1))
    pause 0.25
  done
  return 1
}

# 1. Between two relays.
open_input peripheral 7
start_fed peripheral "$fifos/peripheral.in" "$bin/relay-peripheral" --adapter hci0 --json --save-dir "$data/psaved" \
  --resume-timeout 5 --delivery-timeout 10
echo start >&7
wait_for_line "$p" '"event":"advertising"' 60 || fail "relay-peripheral did not advertise"
open_input central 8
start_fed central "$fifos/central.in" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --connect sample \
  --save-dir "$data/csaved"
wait_for_line "$c" '"event":"ready".*"protocol":2' 90 || fail "relay-central is not ready with protocol 2"
rss_p=$(vm_rss "${started[peripheral]}") rss_c=$(vm_rss "${started[central]}")
started_at=$SECONDS
echo "send-file $data/send/$name" >&7
partial=$(part_grows "$data/csaved") || fail "no growing '$name.part' on the central while the file came"
wait_for_count "$c" '"event":"message"' 1 1200 || fail "the peripheral's file did not arrive"
to_central=$((SECONDS - started_at)) started_at=$SECONDS
echo "send-file $data/send/$name" >&8
partial_p=$(part_grows "$data/psaved") || fail "no growing '$name.part' on the peripheral while the file came"
wait_for_count "$p" '"event":"message"' 1 1200 || fail "the central's file did not arrive"
to_peripheral=$((SECONDS - started_at))
[ "$(count "$c" '"event":"progress".*"direction":"in".*"name":')" -gt 0 ] || fail "no named progress on the central"
# The same name again (a small file): saved beside the first, which stays as it was.
head -c 3000 /dev/urandom > "$data/small/$name"
small=$(sha "$data/small/$name")
echo "send-file $data/small/$name" >&7
echo "send-file $data/small/$name" >&8
wait_for_count "$c" '"event":"message"' 2 60 || fail "the peripheral's second file did not arrive"
wait_for_count "$p" '"event":"message"' 2 60 || fail "the central's second file did not arrive"
for side in p c; do
  dir=$data/${side}saved file=$out/$([ $side = p ] && echo peripheral || echo central).out
  [ "$(json_list "$file" message name)" = "$name,$name" ] || fail "$side: names $(json_list "$file" message name)"
  [ "$(json_list "$file" message saved)" = "$dir/$name,$dir/$second" ] || fail "$side: saved $(json_list "$file" message saved)"
  [ "$(sha "$dir/$name")" = "$expected" ] && [ "$(sha "$dir/$second")" = "$small" ] || fail "$side: content differs"
  [ "$(ls -A "$dir" | wc -l)" = 2 ] || fail "$side: the folder holds $(ls -A "$dir") (a .part left behind?)"
done
hwm_p=$(vm_hwm "${started[peripheral]}") hwm_c=$(vm_hwm "${started[central]}")
echo "1. $mib MiB '$name' each way (to the central in ${to_central} s, to the peripheral in ${to_peripheral} s;" \
  "part files seen at $partial and $partial_p bytes), saved under its name, then a second one as '$second';" \
  "RSS at ready peripheral $((rss_p / 1024)) MiB, central $((rss_c / 1024)) MiB; peak peripheral" \
  "$((hwm_p / 1024)) MiB, central $((hwm_c / 1024)) MiB"
# 50 MB = 48828 KiB; holding the file would add at least its size (the code before issue 16 added
# about twice that).
[ "$hwm_p" -lt 48828 ] && [ "$hwm_c" -lt 48828 ] || fail "peak RSS at or above 50 MB"
half=$((mib << 9))
[ $((hwm_p - rss_p)) -lt $half ] && [ $((hwm_c - rss_c)) -lt $half ] \
  || fail "memory grew by $(((hwm_p - rss_p) / 1024)) / $(((hwm_c - rss_c) / 1024)) MiB: the file is held"

# 2. A file cut for good: its part file goes.
rm -f "$data/psaved"/*
head -c $((mib << 20)) /dev/urandom > "$data/send/cut.bin"
echo "send-file $data/send/cut.bin" >&8
deadline=$((${EPOCHREALTIME/./} + 120000000))
until [ -s "$data/psaved/cut.bin.part" ]; do
  past_us "$deadline" && fail "no cut.bin.part"
  pause 0.1
done
kill -KILL "${started[central]}"
wait "${started[central]}" 2>/dev/null || true
unset 'started[central]'
wait_for_line "$p" '"event":"dropped"' 60 || fail "the peripheral did not drop the cut file"
[ -z "$(ls -A "$data/psaved")" ] || fail "left behind after the drop: $(ls -A "$data/psaved")"
echo "2. a transfer cut for good: $(grep '"event":"dropped"' "$p" | tail -n 1 | cut -c1-200); nothing left in the folder"
exec 8>&-

# 3. A foreign central with hostile names.
rm -rf "$data/psaved"/*
start hostile "$python" "$peers/named_files_central.py" --adapter hci1 --address "${RELAY_VM_HCI1_ADDRESS:-00:AA:01:01:00:01}" \
  --flood 100
finish hostile 300 || fail "the foreign central failed: $(tail -n 3 "$out/hostile.err")"
[ "$(grep -c '"delivered": true' "$out/hostile.out")" = 12 ] || fail "not every hostile file was delivered: $(cat "$out/hostile.out")"
flood=$(grep '"flood"' "$out/hostile.out")
flood_saved=$(json_field "$flood" delivered)
flood_refused=$(json_field "$flood" not_saved)
flood_seconds=$(($(json_field "$flood" seconds | cut -d. -f1) + 1))
# At most 60 saves a minute from one sender: a burst of 60 (the 12 files among them), then one a
# second; the rest are acknowledged `not saved`.
[ $((12 + flood_saved)) -le $((60 + flood_seconds)) ] ||
  fail "the save folder took $((12 + flood_saved)) messages from one sender in $flood_seconds s"
[ "$flood_refused" -ge 1 ] && [ $((flood_saved + flood_refused)) = 100 ] ||
  fail "the flood was not refused as 'not saved': $flood"
[ -z "$(find "$data/psaved" -mindepth 2)" ] || fail "something was saved below the folder: $(find "$data/psaved" -mindepth 2)"
[ ! -e /tmp/x ] && [ ! -e "$data/psaved/../x" ] || fail "a file escaped the folder"
[ "$(ls -A "$data/psaved" | wc -l)" = $((12 + flood_saved)) ] || fail "the folder holds $(ls -A "$data/psaved" | wc -l) entries: $(ls -A "$data/psaved")"
[ -z "$(ls -A "$data/psaved" | grep -E '^[.-]')" ] || fail "a hidden or dash name was saved"
[ ! -e "$data/psaved/message-0042-00_AA_01_02_00_02.txt" ] || fail "a sender took the name of another central's unnamed message"
saved_hashes=$(cd "$data/psaved" && sha256sum -- * | cut -d' ' -f1)
grep -q 'more than 60 messages a minute' "$p" || fail "the flood's refusals were not reported"
for hash in $(grep -o '"sha256": "[0-9a-f]*"' "$out/hostile.out" | cut -d'"' -f4); do
  grep -qx "$hash" <<< "$saved_hashes" || fail "no saved file has $hash"
done
echo "3. hostile names saved as: $(ls -A "$data/psaved" | grep -v '^message-' | sed 's/^/[/; s/$/]/' | tr '\n' ' ' | cut -c1-600); a flood of 100 from that sender: $flood_saved saved, $flood_refused not saved in $flood_seconds s"
echo quit >&7
finish peripheral 30 || fail "relay-peripheral exited $?"
echo "PASS files"
rm -rf "$data"
