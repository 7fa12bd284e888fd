#!/usr/bin/env bash
# Installs what building and testing relay needs, idempotently (run as root on Debian).
# Usage: scripts/install-deps.sh [build|test|vm|package|rootfs]...   (default: build)
set -euo pipefail
want=("$@"); [ ${#want[@]} -gt 0 ] || want=(build)
pkgs=(libdbus-1-dev libreadline-dev pkg-config dbus)
for w in "${want[@]}"; do
  case "$w" in
    build) ;;
    test) pkgs+=(python3-venv) ;;
    vm) pkgs+=(qemu-system-x86 bluez bluez-test-tools busybox-static kmod cpio xz-utils python3-venv tmux) ;;
    package) pkgs+=(dpkg-dev lintian binutils xz-utils man-db) ;;
    rootfs) pkgs+=(mmdebstrap) ;;
    *) echo "install-deps: unknown set '$w' (build, test, vm, package, rootfs)" >&2; exit 64 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; fi
  echo "install-deps: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The VM scenarios run a patched btvirt (several connections per controller); built once.
if [[ " ${want[*]} " == *" test "* ]]; then
  "$(dirname "$0")/vm/build-btvirt.sh"
fi
