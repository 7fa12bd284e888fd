#!/usr/bin/env bash
# Builds (cached, idempotent) a clean Debian root file system for the bluez-vm guest with the
# relay package installed the way a user installs it (apt install ./relay_<version>_amd64.deb,
# which resolves its Depends), and prints its path:
#
#   scripts/vm/build-rootfs.sh RELEASE DEB      RELEASE: debian-12 (bookworm, BlueZ 5.66),
#                                               debian-13 (trixie, BlueZ 5.82)
#
# The system holds only what a user's laptop has for relay: its release's kernel, bluez, dbus
# and the package's dependencies, plus the guest harness's needs (bash, kmod, procps, iproute2) and python3 for
# the third-party peers: bleak and bless (the versions scripts/python-env.sh pins) are put in
# /opt/relay-peers for that python3 by the pip of the project's venv, and /usr/local/bin/relay-python runs
# python3 with them (bluez-vm --root makes it the scenarios' $python). No Swift and no -dev
# package. Built with mmdebstrap from deb.debian.org under
# $RELAY_VM_CACHE/rootfs/RELEASE-<hash of the package and this list>; older ones are removed.
# The guest boots it with scripts/bluez-vm --root (the project, the cache and the output
# folder are shared into it at their host paths).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
release=${1:?usage: build-rootfs.sh RELEASE DEB}
deb=${2:?usage: build-rootfs.sh RELEASE DEB}
[ -f "$deb" ] || { echo "build-rootfs: no package $deb (make package)" >&2; exit 1; }
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
case "$release" in
  debian-12) suite=bookworm ;;
  debian-13) suite=trixie ;;
  *) echo "build-rootfs: unknown release '$release' (debian-12, debian-13)" >&2; exit 64 ;;
esac
cache=${RELAY_VM_CACHE:-/var/cache/relay-vm}
# linux-image-amd64: the release's own kernel, which bluez-vm --root boots.
packages=bluez,dbus,kmod,procps,iproute2,python3,linux-image-amd64
peers=$(sed -n 's/^req="\(.*\)"$/\1/p' "$here/../python-env.sh" | tr ' ' '\n' | grep -E '^(bleak|bless)==')
key=$( (sha256sum "$deb" | cut -d' ' -f1; echo "$suite $packages $peers"; sha256sum "$0" | cut -d' ' -f1) |
  sha256sum | cut -c1-16)
root=$cache/rootfs/$release-$key
if [ -f "$root/.relay-rootfs" ]; then
  echo "$root"
  exit 0
fi
command -v mmdebstrap > /dev/null || "$here/../install-deps.sh" rootfs >&2
mkdir -p "$cache/rootfs"
# Older roots of this release go, with the kernel folders bluez-vm made for them (ROOT.kernel).
find "$cache/rootfs" -mindepth 1 -maxdepth 1 -name "$release-*" -exec rm -rf {} + 2> /dev/null || true
rm -rf "$root.partial"
echo "build-rootfs: $release ($suite) with $(basename "$deb")…" >&2
# The package is installed as a user does (apt install ./relay_….deb: apt resolves its Depends,
# from the mirror when the system lacks one).
mmdebstrap --variant=minbase --mode=root --include="$packages" \
  --customize-hook="copy-in $deb /tmp" \
  --customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/$(basename "$deb")" \
  --customize-hook='rm -f "$1"/tmp/*.deb' \
  --customize-hook='chroot "$1" dpkg-query -W -f="\${Version}\n" relay > "$1/.relay-version"' \
  --customize-hook='chroot "$1" dpkg-query -W -f="\${Version}\n" bluez > "$1/.bluez-version"' \
  "$suite" "$root.partial" http://deb.debian.org/debian >&2
if ls "$root.partial/usr/lib" | grep -qi swift || [ -n "$(find "$root.partial/usr" -name 'libswift*' -print -quit)" ]; then
  echo "build-rootfs: a Swift library is in the root file system" >&2
  exit 1
fi
# The peers for the system's own python3 (its minor version picks the wheels), fetched by the
# project's venv's pip (a fresh Debian's python3 has no pip module; scripts/python-env.sh).
python=$(basename "$(ls -d "$root.partial"/usr/lib/python3.[0-9]* | sort -V | tail -n 1)")
"$("$here/../python-env.sh")" -m pip install -q --disable-pip-version-check --target "$root.partial/opt/relay-peers" \
  --python-version "${python#python}" --implementation cp --only-binary=:all: \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
  $peers >&2 2> >(grep -v 'Running pip as the' >&2)
mkdir -p "$root.partial/usr/local/bin"
printf '#!/bin/sh\n# python3 with the third-party peers (scripts/vm/build-rootfs.sh)\nexport PYTHONPATH=/opt/relay-peers\nexec /usr/bin/python3 "$@"\n' \
  > "$root.partial/usr/local/bin/relay-python"
chmod 755 "$root.partial/usr/local/bin/relay-python"
echo "$release $suite relay $(cat "$root.partial/.relay-version") bluez $(cat "$root.partial/.bluez-version")" \
  > "$root.partial/.relay-rootfs"
mv "$root.partial" "$root"
echo "$root"
