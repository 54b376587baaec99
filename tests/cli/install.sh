#!/bin/sh
# `make install` gives a binary that works away from the checkout: it finds its case catalog
# (../share/iwspec/cases) and the vector set (whose hash every report carries).
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# -o: install the binary as built. The other CLI scripts run beside this one (make test-cli), and
# a relink here (after an edit made the tree's git stamp change) would pull the binary from under
# them.
make -C "$ROOT" --no-print-directory -o build/iwspec install PREFIX="$tmp/usr" >"$tmp/install.log" 2>&1 && ok ||
	{ bad "make install failed"; cat "$tmp/install.log" >&2; }
cd /
"$tmp/usr/bin/iwspec" list >"$tmp/list" 2>&1 && ok || bad "the installed iwspec cannot list its cases: $(head -1 "$tmp/list")"
grep -q '^mpa.startup.resp.happy-path ' "$tmp/list" && ok || bad "the installed catalog lacks mpa.startup.resp.happy-path"
"$tmp/usr/bin/iwspec" run --no-progress --cases 'mpa.startup.resp.happy-path' --report "$tmp/r" >"$tmp/run" 2>&1 && ok ||
	bad "the installed iwspec could not run a case: $(tail -3 "$tmp/run")"
grep -q '"sha256": "[0-9a-f]\{64\}"' "$tmp/r/results.json" && ok || bad "the installed iwspec found no vector set"

finish install
