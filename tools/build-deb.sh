#!/bin/sh
# `make deb`: the packages iwspec and iwspec-reflector (debian/) from a copy of the tree's files
# (git's list, uncommitted files too) in build/deb/, by dpkg-buildpackage, then lintian on them
# (any error or warning fails; informational tags are printed). build/deb/*.deb.
# Exit: 0 built and clean, 1 failed (the message says what).
set -u
cd "$(dirname "$0")/.." || exit 1
say() { echo "deb: $*"; }
for t in dpkg-buildpackage dh lintian fakeroot help2man; do
	command -v $t >/dev/null 2>&1 || { say "FAIL: $t is missing (apt-get install devscripts debhelper lintian fakeroot help2man)" >&2; exit 1; }
done
version=$(dpkg-parsechangelog -S Version)
OUT=build/deb
SRC=$OUT/iwspec-$version
rm -rf "$OUT"
mkdir -p "$SRC"
git ls-files -co --exclude-standard -z | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' _ |
	cpio -0 -pdm --quiet "$SRC" || { say "FAIL: cannot copy the tree to $SRC" >&2; exit 1; }
t0=$(date +%s)
# With Debian's own compiler, whatever CC the caller has (make test's clang leg sets CC=clang):
# Debian 12's dwz cannot read clang 14's DWARF 5 (.debug_addr), and the archive builds with gcc.
(cd "$SRC" && env -u CC dpkg-buildpackage -b -us -uc -j2) >"$OUT/build.log" 2>&1 ||
	{ tail -30 "$OUT/build.log" >&2; say "FAIL: dpkg-buildpackage failed ($OUT/build.log)" >&2; exit 1; }
say "built in $(($(date +%s) - t0)) s: $(cd "$OUT" && ls *.deb | tr '\n' ' ')"
lintian --no-tag-display-limit --info "$OUT"/*.changes >"$OUT/lintian.log" 2>&1
grep -E '^[EW]: ' "$OUT/lintian.log" >"$OUT/lintian.bad"
if [ -s "$OUT/lintian.bad" ]; then
	cat "$OUT/lintian.bad" >&2
	say "FAIL: lintian reports the errors and warnings above ($OUT/lintian.log)" >&2
	exit 1
fi
say "lintian: no error, no warning ($(grep -c '^[IP]: ' "$OUT/lintian.log") informational or pedantic tags: $OUT/lintian.log)"
