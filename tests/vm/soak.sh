#!/usr/bin/env bash
# Soak (issue 8, load 6), inside the bluez-vm guest; run by `make soak` (not part of make test):
#   relay-peripheral (hci0) and relay-central (hci1) each send SOAK_COUNTERS counters (default
#   10000) and SOAK_MESSAGES messages of random sizes from 0 B to SOAK_MAX_BYTES (default 1000
#   and 65536) to the other, interleaved (counters between messages), both directions at once.
#   Checks: every counter arrives once, in order (0..N-1); every message arrives once, in order,
#   with the right length and SHA-256; no error or dropped event; memory (VmRSS) of both
#   programs flat: the RSS after the last message is at most SOAK_RSS_SLACK_KIB (default 8192)
#   above the RSS sampled once the first hundred messages had arrived.
# Prints the figures (duration, bytes each way, RSS samples) and writes them to $out/figures.
# vm-timeout: 7200
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults-lib.sh"
counters=${SOAK_COUNTERS:-10000} messages=${SOAK_MESSAGES:-1000} max_bytes=${SOAK_MAX_BYTES:-65536}
slack=${SOAK_RSS_SLACK_KIB:-8192}
per_message=$(( (counters + messages - 1) / messages ))
p=$out/peripheral.out c=$out/central.out

make_side() { # side command-for-counters
  local side=$1 counter=$2 i n sent=0
  mkdir -p "$out/$side"
  : > "$out/$side.sha"
  for ((i = 0; i < messages; i++)); do
    n=$(( (RANDOM * 32768 + RANDOM) % (max_bytes + 1) ))
    [ $i = 0 ] && n=0
    [ $i = 1 ] && n=$max_bytes
    head -c "$n" /dev/urandom > "$out/$side/$i.bin"
    sha256sum "$out/$side/$i.bin" | cut -d' ' -f1 >> "$out/$side.sha"
  done
  for ((i = 0; i < messages; i++)); do
    for ((k = 0; k < per_message && sent < counters; k++)); do echo "$counter"; sent=$((sent + 1)); done
    echo "send-file $out/$side/$i.bin"
  done > "$out/$side.commands"
  while [ $sent -lt $counters ]; do echo "$counter" >> "$out/$side.commands"; sent=$((sent + 1)); done
}
make_side p notify
make_side c write
{ echo start; echo "wait advertising 60"; echo "wait subscribed 120"; cat "$out/p.commands"
  for ((i = 0; i < messages; i++)); do echo "wait message 600"; done; echo "sleep 5"; echo quit; } > "$out/peripheral.script"
{ echo "wait state 30"; echo scan; echo "wait discovered 60"; echo "connect 0"; echo "wait ready 60"; cat "$out/c.commands"
  for ((i = 0; i < messages; i++)); do echo "wait message 600"; done; echo "sleep 5"; echo disconnect; echo quit; } > "$out/central.script"

started_at=$(date +%s)
start_fed central "$out/central.script" "$bin/relay-central" --scan-timeout 60 --adapter hci1 --json --max-message 1048576
wait_for_line "$c" '"event":"scanning"' 30 || fail "the central never scanned"
start_fed peripheral "$out/peripheral.script" "$bin/relay-peripheral" --adapter hci0 --json --max-message 1048576
# RSS samples: seconds, messages received by each, RSS of each (KiB).
: > "$out/rss"
early_p="" early_c=""
while kill -0 "${started[peripheral]}" 2>/dev/null && kill -0 "${started[central]}" 2>/dev/null; do
  mp=$(count "$p" '"event":"message"') mc=$(count "$c" '"event":"message"')
  rp=$(vm_rss "${started[peripheral]}" 2>/dev/null || echo 0) rc=$(vm_rss "${started[central]}" 2>/dev/null || echo 0)
  echo "$(( $(date +%s) - started_at )) $mp $mc $rp $rc" >> "$out/rss"
  [ -z "$early_p" ] && [ "$mp" -ge 100 ] && early_p=$rp
  [ -z "$early_c" ] && [ "$mc" -ge 100 ] && early_c=$rc
  if [ "$mp" -ge "$messages" ] && [ "$mc" -ge "$messages" ]; then
    late_p=$rp late_c=$rc
    break
  fi
  sleep 5
done
finish central 120 || fail "relay-central failed: $(grep '"event":"error"' "$c" | head -n 2)"
finish peripheral 120 || fail "relay-peripheral failed: $(grep '"event":"error"' "$p" | head -n 2)"
elapsed=$(( $(date +%s) - started_at ))

expected_counters=$(seq 0 $((counters - 1)) | tr '\n' ',')
[ "$(field "$p" counter value)" = "$expected_counters" ] || fail "the peripheral's counters are not 0..$((counters - 1)) in order ($(count "$p" '"event":"counter"') received)"
[ "$(field "$c" counter value)" = "$expected_counters" ] || fail "the central's counters are not 0..$((counters - 1)) in order ($(count "$c" '"event":"counter"') received)"
[ "$(field "$p" message sha256)" = "$(tr '\n' ',' < "$out/c.sha")" ] || fail "the peripheral's messages differ (lost, duplicated, reordered or corrupted)"
[ "$(field "$c" message sha256)" = "$(tr '\n' ',' < "$out/p.sha")" ] || fail "the central's messages differ (lost, duplicated, reordered or corrupted)"
grep -qE '"event":"(error|dropped)"' "$p" "$c" && fail "an error or drop was reported: $(grep -hE '"event":"(error|dropped)"' "$p" "$c" | head -n 1)"
[ -n "${early_p:-}" ] && [ -n "${late_p:-}" ] || fail "no RSS samples at 100 and $messages messages"
bytes_p=$(du -cb "$out"/p/*.bin | tail -n 1 | cut -f1) bytes_c=$(du -cb "$out"/c/*.bin | tail -n 1 | cut -f1)
{
  echo "soak: $counters counters and $messages messages (0-$max_bytes B) each way in ${elapsed}s"
  echo "bytes: central->peripheral $bytes_c, peripheral->central $bytes_p"
  echo "RSS peripheral: ${early_p} KiB after 100 messages, ${late_p} KiB after $messages"
  echo "RSS central:    ${early_c} KiB after 100 messages, ${late_c} KiB after $messages"
} | tee "$out/figures"
[ "$late_p" -le $((early_p + slack)) ] || fail "the peripheral's RSS grew from $early_p to $late_p KiB"
[ "$late_c" -le $((early_c + slack)) ] || fail "the central's RSS grew from $early_c to $late_c KiB"
echo "PASS soak"
