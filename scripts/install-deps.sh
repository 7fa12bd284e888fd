#!/usr/bin/env bash
# Installs what building and testing relay needs, idempotently (run as root on Debian), in one
# apt call for every set named: a caller that runs steps side by side names every set first.
# Usage: scripts/install-deps.sh [build|test|vm|package|rootfs|btvirt|browser|all]...   (default: build)
#   build    the libraries the programs link (D-Bus, readline)
#   test     build + the Python venv's needs, and the test bed's patched btvirt (built once)
#   vm       the test bed's host packages (qemu, bluez, busybox, ...)
#   package  dpkg-dev, lintian, man-db (make package, make package-test)
#   rootfs   mmdebstrap (the clean Debian roots of the package scenarios)
#   btvirt   what scripts/vm/build-btvirt.sh compiles btvirt with (gcc, dpkg-dev, curl, glib headers)
#   browser  Chromium (the Web Bluetooth page's scenario runs it in the test bed) and Node.js (the
#            page's protocol code is tested against docs/protocol.md's vectors with it)
#   all      every set above: what any stage of make test needs
# apt calls wait (bounded) for a lock another process holds, and a failed install says so in
# one line with apt's own error (scripts/apt.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=apt.sh
source "$here/apt.sh"
want=("$@"); [ ${#want[@]} -gt 0 ] || want=(build)
[[ " ${want[*]} " == *" all "* ]] && want=(build test vm package rootfs btvirt browser)
[[ " ${want[*]} " == *" test "* ]] && want+=(btvirt)
pkgs=(libdbus-1-dev libreadline-dev pkg-config dbus)
for w in "${want[@]}"; do
  case "$w" in
    build) ;;
    test) pkgs+=(python3-venv) ;;
    vm) pkgs+=(qemu-system-x86 bluez bluez-test-tools busybox-static kmod cpio xz-utils python3-venv tmux) ;;
    package) pkgs+=(dpkg-dev lintian binutils xz-utils man-db) ;;
    rootfs) pkgs+=(mmdebstrap) ;;
    btvirt) pkgs+=(gcc libc6-dev dpkg-dev curl xz-utils libglib2.0-dev pkg-config patch) ;;
    browser) pkgs+=(chromium nodejs) ;;
    *) echo "install-deps: unknown set '$w' (build, test, vm, package, rootfs, btvirt, browser, all)" >&2; exit 64 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  [[ " ${missing[*]} " == *" $p "* ]] && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  relay_apt_install install-deps "${missing[@]}" || exit 1
fi
# The VM scenarios run a patched btvirt (several connections per controller); built once.
if [[ " ${want[*]} " == *" test "* ]]; then
  "$here/vm/build-btvirt.sh"
fi
