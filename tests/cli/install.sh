#!/bin/sh
# `make install` gives a binary that works away from the checkout: it finds its case catalog
# (../share/iwspec/cases) and the vector set (whose hash every report carries).
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# -o: install the binary as built. The other CLI scripts run beside this one (make test-cli), and
# a relink here (after an edit made the tree's git stamp change) would pull the binary from under
# them.
# The manual page is made from the binary as it is (-o would keep one made from an older one).
rm -f "$ROOT/build/man/iwspec.1"
make -C "$ROOT" --no-print-directory -o build/iwspec install PREFIX="$tmp/usr" >"$tmp/install.log" 2>&1 && ok ||
	{ bad "make install failed"; cat "$tmp/install.log" >&2; }
cd /
"$tmp/usr/bin/iwspec" list >"$tmp/list" 2>&1 && ok || bad "the installed iwspec cannot list its cases: $(head -1 "$tmp/list")"
grep -q '^mpa.startup.resp.happy-path ' "$tmp/list" && ok || bad "the installed catalog lacks mpa.startup.resp.happy-path"
"$tmp/usr/bin/iwspec" run --no-progress --cases 'mpa.startup.resp.happy-path' --report "$tmp/r" >"$tmp/run" 2>&1 && ok ||
	bad "the installed iwspec could not run a case: $(tail -3 "$tmp/run")"
grep -q '"sha256": "[0-9a-f]\{64\}"' "$tmp/r/results.json" && ok || bad "the installed iwspec found no vector set"

# The manual page and the completion, installed beside the binary (tools/gen-man.sh, from --help).
page=$tmp/usr/share/man/man1/iwspec.1
[ -f "$page" ] && ok || bad "make install put no manual page at share/man/man1/iwspec.1"
if command -v man >/dev/null 2>&1; then
	MANPATH=$tmp/usr/share/man MANWIDTH=120 man iwspec >"$tmp/man.txt" 2>"$tmp/man.err" && ok ||
		bad "man iwspec with MANPATH=PREFIX/share/man failed: $(head -2 "$tmp/man.err")"
	# Every option of every command's --help is in the page: it was made from this binary.
	missing=
	for cmd in $("$tmp/usr/bin/iwspec" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'); do
		grep -q "^ *iwspec $cmd$" "$tmp/man.txt" || missing="$missing $cmd(section)"
		for o in $("$tmp/usr/bin/iwspec" "$cmd" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
			grep -q -- "$o" "$tmp/man.txt" || missing="$missing $cmd:$o"
		done
	done
	[ -z "$missing" ] && ok || bad "the manual page lacks what --help says:$missing"
else
	echo "SKIP: no man (man-db) to render the page"
fi
comp=$tmp/usr/share/bash-completion/completions/iwspec
[ -f "$comp" ] && ok || bad "make install put no bash completion at share/bash-completion/completions/iwspec"
got=$(PATH="$tmp/usr/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(iwspec fuzz --kernel-coverage-n); COMP_CWORD=2; _iwspec iwspec; echo "${COMPREPLY[*]}"' _ "$comp" 2>&1)
[ "$got" = --kernel-coverage-no-feedback ] && ok || bad "completing 'iwspec fuzz --kernel-coverage-n' gave '$got'"
got=$(PATH="$tmp/usr/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(iwspec run --cases mpa.startup.resp.happy); COMP_CWORD=3; _iwspec iwspec; echo "${COMPREPLY[*]}"' _ "$comp" 2>&1)
[ "$got" = mpa.startup.resp.happy-path ] && ok || bad "completing a case id gave '$got'"

finish install
