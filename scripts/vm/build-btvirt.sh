#!/usr/bin/env bash
# Builds the test bed's patched btvirt (BlueZ's virtual controller) into the bluez-vm cache.
#
#   scripts/vm/build-btvirt.sh [--bluez VERSION] [--check] [--print-path]
#
# Fetches the Debian source package of the bluez the host runs (the guest runs the host's
# bluetoothd; the installed version, else apt's candidate), or of `--bluez VERSION` (a clean
# root file system's own, scripts/vm/build-rootfs.sh: Debian 13's 5.82-1.1), from deb.debian.org's pool
# (checksums verified by dpkg-source), applies scripts/vm/btvirt-unique-handles.patch (each
# link one handle, unique on each controller: several centrals on one peripheral),
# scripts/vm/btvirt-air.patch (radio timing: `btvirt --air SPEC`, docs/test-bed.md) and
# scripts/vm/btvirt-pending-connect.patch (an LE connection waits until its peer advertises,
# and can be cancelled: centrals dialling one peripheral at once), compiles
# only btvirt (its emulator/*.c and the few src/shared and lib files it links; no configure)
# and installs it as $CACHE/btvirt/btvirt. Idempotent: skips when
# $CACHE/btvirt/btvirt.stamp names the same bluez version, patches and build script. Another
# version than the host's goes to $CACHE/btvirt-VERSION/btvirt.
# Installs its build dependencies (scripts/install-deps.sh btvirt) when missing.
#   --bluez V     build from Debian's bluez V (e.g. 5.82-1.1) instead of the host's
#   --check       exit 0 when the built btvirt is current, 1 otherwise; builds nothing
#   --print-path  print the binary's path on stdout when done (messages go to stderr)
# Environment: RELAY_VM_CACHE (as scripts/bluez-vm), RELAY_DEBIAN_POOLS (space-separated
# archive roots to fetch from; default deb.debian.org's debian and debian-security).
set -euo pipefail
vm_dir=$(dirname "$(readlink -f "$0")")
patches=("$vm_dir/btvirt-unique-handles.patch" "$vm_dir/btvirt-air.patch" "$vm_dir/btvirt-pending-connect.patch")
say() { echo "build-btvirt: $*" >&2; }
die() { say "$*"; exit 1; }

check=0 print_path=0 requested=
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --print-path) print_path=1 ;;
    --bluez) requested=${2:-}; [ -n "$requested" ] || die "--bluez needs a version"; shift ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 64 ;;
  esac
  shift
done

default_cache() { # the same choice as scripts/bluez-vm
  if mkdir -p /var/cache/relay-vm 2>/dev/null && [ -w /var/cache/relay-vm ]; then
    echo /var/cache/relay-vm
  else
    echo "${XDG_CACHE_HOME:-$HOME/.cache}/relay-vm"
  fi
}
cache=${RELAY_VM_CACHE:-$(default_cache)}/btvirt

bluez_version() { # the bluez the host has installed, else the one apt would install
  local version
  version=$(dpkg-query -W -f='${Version}' bluez 2>/dev/null || true)
  [ -n "$version" ] || version=$(apt-cache policy bluez 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
  if [ -z "$version" ] || [ "$version" = "(none)" ]; then   # apt's lists never fetched here
    # shellcheck source=../apt.sh
    source "$vm_dir/../apt.sh"
    relay_apt build-btvirt update -qq || die "apt-get update failed: $relay_apt_last_error"
    version=$(apt-cache policy bluez 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
  fi
  [ -n "$version" ] && [ "$version" != "(none)" ] || die "no bluez version known to apt"
  echo "$version"
}
version=$(bluez_version)
if [ -n "$requested" ] && [ "$requested" != "$version" ]; then
  [[ "$requested" =~ ^[0-9][0-9A-Za-z.+~:-]*$ ]] || die "--bluez: '$requested' is not a Debian version"
  version=$requested
  cache=$cache-${version//:/_}
fi
binary=$cache/btvirt
stamp="bluez $version patches $(cat "${patches[@]}" | sha256sum | cut -c1-16) script $(sha256sum < "$0" | cut -c1-16)"

current() { [ -x "$binary" ] && [ "$(cat "$binary.stamp" 2>/dev/null)" = "$stamp" ]; }
done_ok() { [ $print_path = 1 ] && echo "$binary"; exit 0; }
if [ $check = 1 ]; then current; exit; fi
current && done_ok

mkdir -p "$cache"
exec 9> "$cache/.lock"
flock 9
current && done_ok   # another caller built it while we waited

# Build dependencies (the compiler, dpkg-source to unpack, curl to fetch, glib's headers:
# BlueZ 5.7x's bthost builds advertising data with src/shared/ad.c, whose src/eir.h includes
# <glib.h>, nothing of glib is linked): scripts/install-deps.sh's set btvirt, one apt call for all.
"$vm_dir/../install-deps.sh" btvirt >&2 || die "its build dependencies could not be installed (the line above says why)"

started=$SECONDS
upstream=${version#*:}                  # no epoch in file names
dsc=bluez_$upstream.dsc
downloads=$cache/downloads
mkdir -p "$downloads"
fetch() { # file -> $downloads/file from the first pool that has it
  local pool
  [ -s "$downloads/$1" ] && return 0
  for pool in ${RELAY_DEBIAN_POOLS:-http://deb.debian.org/debian http://deb.debian.org/debian-security}; do
    if curl -sSfL --retry 2 -o "$downloads/$1.partial" "$pool/pool/main/b/bluez/$1" 2>/dev/null; then
      mv "$downloads/$1.partial" "$downloads/$1"
      return 0
    fi
  done
  rm -f "$downloads/$1.partial"
  die "cannot fetch $1 from ${RELAY_DEBIAN_POOLS:-deb.debian.org}"
}
say "fetching the bluez $version source package"
fetch "$dsc"
# The files the .dsc lists (orig and debian tarballs); dpkg-source checks their sums.
for file in $(awk '/^Files:/ { on = 1; next } /^[^ ]/ { on = 0 } on && NF == 3 { print $3 }' "$downloads/$dsc"); do
  fetch "$file"
done
find "$downloads" -maxdepth 1 -type f ! -name "bluez_${upstream%%-*}*" -delete   # older versions

work=$(mktemp -d "$cache/build.XXXX")
trap 'rm -rf "$work"' EXIT
(cd "$work" && dpkg-source -q -x "$downloads/$dsc" src > /dev/null 2>&1) ||
  die "dpkg-source could not unpack $dsc (checksum mismatch?); delete $downloads and retry"
for patch_file in "${patches[@]}"; do
  patch -s -d "$work/src" -p1 --no-backup-if-mismatch < "$patch_file" ||
    die "$(basename "$patch_file") does not apply to bluez $version"
done

# What emulator_btvirt_SOURCES and its libraries (Makefile.tools, Makefile.am) need, with a
# config.h that only names the version; <bluetooth/*.h> are lib/*.h.
mkdir -p "$work/include/bluetooth"
ln -s "$work"/src/lib/*.h "$work/include/bluetooth/"
printf '#define VERSION "%s+relay"\n' "$upstream" > "$work/include/config.h"
sources=(emulator/{main,serial,server,vhci,btdev,bthost,smp,phy,le}.c
  src/shared/{queue,util,crypto,ecc,io-mainloop,timeout-mainloop,mainloop,mainloop-notify}.c
  lib/{bluetooth,hci}.c)
[ -f "$work/src/emulator/amp.c" ] && sources+=(emulator/amp.c)   # gone in 5.7x (AMP removed)
grep -q bt_ad_new "$work/src/emulator/bthost.c" && sources+=(src/shared/ad.c lib/uuid.c)
say "compiling btvirt"
(cd "$work/src" && gcc -O2 -w -DHAVE_CONFIG_H -I"$work/include" -I. $(pkg-config --cflags glib-2.0) \
  -o "$work/btvirt" "${sources[@]}" -lm) ||
  die "compiling btvirt failed (bluez $version: the source list above may need updating)"
"$work/btvirt" -h > /dev/null 2>&1 || die "the built btvirt does not run"
install -m 755 "$work/btvirt" "$binary.new"
mv "$binary.new" "$binary"
echo "$stamp" > "$binary.stamp"
say "built $binary (bluez $version + ${#patches[@]} patches) in $((SECONDS - started)) s"
done_ok
