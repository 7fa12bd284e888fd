#!/usr/bin/env bash
# The package as a user gets it (issue 17), on the host, after scripts/package:
#   - the .deb's Depends come from dpkg-shlibdeps and name no Swift library; it holds both
#     programs, their man pages and bash completions, /usr/share/doc/relay and the browser page
#     (/usr/share/relay/web); lintian: no error;
#   - extracted with dpkg -x, the programs link no Swift library and run with an empty
#     environment: --version names the package version, the wire protocols and HEAD's commit;
#     without a system bus each says what is missing in one line;
#   - every option of --help is in the man page (generated from it), which man renders without
#     a warning; the completion completes options and the choices of an option;
#   - the .tar.gz holds the same files.
# The extracted package stays in .build-package/installed: `make vm-package-test` runs VM
# scenarios with its programs (make test).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/.*static let package = "\(.*\)".*/\1/p' Sources/Shared/RelayApp/Program/ProgramVersion.swift)
deb=dist/relay_${version}_amd64.deb
tarball=dist/relay-$version-linux-x86_64.tar.gz
fail() { echo "FAIL package: $*" >&2; exit 1; }
[ -f "$deb" ] && [ -f "$tarball" ] || fail "no $deb or $tarball: run make package"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

depends=$(dpkg-deb -f "$deb" Depends)
grep -qi swift <<< "$depends" && fail "Depends names Swift: $depends"
for library in libc6 libdbus-1-3 libreadline8 bluez; do
  grep -q "$library" <<< "$depends" || fail "Depends lacks $library: $depends"
done
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' | sort > "$work/deb.files"
for file in /usr/bin/relay-peripheral /usr/bin/relay-central /usr/share/man/man1/relay-peripheral.1.gz \
  /usr/share/man/man1/relay-central.1.gz /usr/share/bash-completion/completions/relay-peripheral \
  /usr/share/bash-completion/completions/relay-central /usr/share/doc/relay/copyright \
  /usr/share/doc/relay/changelog.gz /usr/share/doc/relay/README.md /usr/share/doc/relay/protocol.md.gz \
  /usr/share/doc/relay/workshop.md.gz /usr/share/relay/web/relay.html /usr/share/relay/web/relay-protocol.js \
  /usr/share/relay/web/relay-meaning.js /usr/share/relay/web/relay-session.js /usr/share/relay/web/relay-page.js /usr/share/relay/web/relay.css; do
  grep -qx "$file" "$work/deb.files" || fail "$file is not in the package"
done
lintian "$deb" > "$work/lintian.txt" 2>&1 || true
grep '^E:' "$work/lintian.txt" && fail "lintian reports errors"

installed=.build-package/installed
rm -rf "$installed"
dpkg -x "$deb" "$installed"
ln -s "$PWD/$installed" "$work/root"
commit=$(git rev-parse --short=12 HEAD)
for program in relay-peripheral relay-central; do
  path=$work/root/usr/bin/$program
  ldd "$path" | grep -i swift && fail "$program links a Swift library"
  line=$(env -i "$path" --version)
  [ "$line" = "$program $version (wire protocol 2, also 1; commit $commit)" ] || fail "--version: $line"
  # No system bus here: one line saying what is missing, then the program goes on (status works).
  # relay-peripheral says first where the browser page is: beside it, in ../share/relay/web.
  said=$(echo status | env -i timeout 20 "$path" 2>&1)
  if [ $program = relay-peripheral ]; then
    page=$(head -n 1 <<< "$said")
    [ "$page" = "browsers join as centrals through the page $(readlink -f "$installed")/usr/share/relay/web/relay.html (Chrome, Edge)" ] ||
      fail "$program does not name the installed browser page: $page"
    said=$(tail -n +2 <<< "$said")
  fi
  problem=$(head -n 1 <<< "$said")
  [[ $problem == "Bluetooth is not available: cannot connect to the system D-Bus"*"systemctl start dbus)" ]] ||
    fail "$program without a system bus says: $problem"
  env -i "$path" --help > "$work/$program.help"
  # Rendered in the locales a user may have: none at all (man then uses groff's ASCII device),
  # C, and UTF-8; no warning in any of them.
  for locale in unset C C.UTF-8; do
    if [ $locale = unset ]; then set_locale=(env -u LANG -u LC_ALL -u LC_CTYPE -u LANGUAGE)
    else set_locale=(env -u LANGUAGE LANG=$locale LC_ALL=$locale); fi
    "${set_locale[@]}" MANWIDTH=100 man --warnings -l "$work/root/usr/share/man/man1/$program.1.gz" \
      > "$work/$program.man" 2> "$work/$program.man.err" || fail "man cannot render $program.1 (locale $locale)"
    [ -s "$work/$program.man.err" ] &&
      fail "man warns about $program.1 with the locale $locale: $(head -n 3 "$work/$program.man.err")"
  done
  for option in $(grep -oE '^  --[a-z-]+' "$work/$program.help"); do
    grep -qF -- "$option" "$work/$program.man" || fail "$program.1 lacks $option"
  done
  for section in OPTIONS COMMANDS EVENTS "EXIT STATUS"; do
    grep -q "^$section" "$work/$program.man" || fail "$program.1 has no $section"
  done
  completed=$(bash -c 'source "$1"; COMP_WORDS=("$2" --nus-); COMP_CWORD=1; "$3"; echo "${COMPREPLY[*]}"' _ \
    "$work/root/usr/share/bash-completion/completions/$program" "$program" "_${program//-/_}")
  [ "$completed" = "--nus-eol" ] || fail "$program: completing --nus- gives '$completed'"
  choices=$(bash -c 'source "$1"; COMP_WORDS=("$2" --protocol ""); COMP_CWORD=2; "$3"; echo "${COMPREPLY[*]}"' _ \
    "$work/root/usr/share/bash-completion/completions/$program" "$program" "_${program//-/_}")
  [ "$choices" = "2 1" ] || fail "$program: completing --protocol gives '$choices'"
done

mkdir -p "$work/tar"
tar -C "$work/tar" -xzf "$tarball"
(cd "$work/tar/relay-$version" && find . -type f | sed 's|^\.|/usr|' | sort) > "$work/tar.files"
grep -v '/$' "$work/deb.files" | while read -r file; do [ -f "$work/root$file" ] && echo "$file"; done \
  > "$work/deb.regular"
diff -u "$work/deb.regular" "$work/tar.files" > /dev/null || fail "the tarball's files differ from the .deb's"
echo "package: $(du -k "$deb" | cut -f1) KiB .deb, $(wc -l < "$work/tar.files") files; Depends: $depends"
echo "PASS package-check"
