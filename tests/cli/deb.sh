#!/bin/sh
# `make deb`: the packages build, lintian reports no error and no warning, and the iwspec package
# installs with dpkg into a scratch root (its own dpkg database) and runs there: `iwspec run`
# against its built-in DUT finds the packaged catalog and vectors, `man` reads its page.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 2
for t in dpkg-buildpackage dh lintian fakeroot help2man; do
	command -v $t >/dev/null 2>&1 && continue
	[ "${CI:-}" = true ] && { echo "FAIL: $t is missing (tools/install-deps.sh installs it)" >&2; exit 1; }
	echo "SKIP: $t is missing (apt-get install debhelper lintian fakeroot help2man)"
	exit 0
done
expect 0 "make deb builds lintian-clean packages" make --no-print-directory deb
contains "^deb: lintian: no error, no warning" "lintian said nothing worse than information"
deb=$(ls build/deb/iwspec_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] && [ -f "$(ls build/deb/iwspec-reflector_*_amd64.deb 2>/dev/null | head -1)" ] && ok ||
	bad "build/deb has not both iwspec_*.deb and iwspec-reflector_*.deb"
# A scratch root with an empty dpkg database: the package's dependencies are the host's own
# libraries (--force-depends), which the installed binary then uses.
R=$tmp/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
: >"$R/var/lib/dpkg/status"
expect 0 "dpkg installs iwspec into a scratch root" dpkg --root="$R" --force-depends --force-not-root --force-script-chrootless -i "$deb"
[ -x "$R/usr/bin/iwspec" ] && [ -d "$R/usr/share/iwspec/cases" ] && [ -d "$R/usr/share/iwspec/duts" ] &&
	[ -f "$R/usr/share/man/man1/iwspec.1.gz" ] && [ -f "$R/usr/share/bash-completion/completions/iwspec" ] && ok ||
	bad "the installed package lacks the binary, the catalog, the DUT configurations, the page or the completion"
cd /
expect 0 "the installed iwspec runs a case against its built-in DUT" "$R/usr/bin/iwspec" run --no-progress \
	--cases 'mpa.startup.resp.happy-path' --report "$tmp/r"
grep -q '"sha256": "[0-9a-f]\{64\}"' "$tmp/r/results.json" && ok || bad "the installed iwspec found no vector set"
if command -v man >/dev/null 2>&1; then
	MANWIDTH=100 man -l "$R/usr/share/man/man1/iwspec.1.gz" 2>/dev/null | grep -q '^ *iwspec fuzz$' && ok ||
		bad "man does not read the packaged page (or it has no iwspec fuzz section)"
fi
finish deb
