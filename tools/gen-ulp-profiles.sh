#!/bin/sh
# gen-ulp-profiles.sh: rewrites the generated part of docs/ulp-profiles.md (between the lines
# `iwspec list --ulp` opens and closes it with) from the case headers and the ULP profiles.
# tests/test_ulp_table.c fails while the file differs from what this writes.
#   IWSPEC=build/iwspec sh tools/gen-ulp-profiles.sh
set -eu
cd "$(dirname "$0")/.."
IWSPEC=${IWSPEC:-build/iwspec}
doc=docs/ulp-profiles.md
gen=$(mktemp)
out=$(mktemp)
trap 'rm -f "$gen" "$out"' EXIT
"$IWSPEC" list --case-dir cases --ulp >"$gen"
begin=$(head -n 1 "$gen")
end=$(tail -n 1 "$gen")
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" || {
	echo "gen-ulp-profiles.sh: $doc lacks the lines that open and close the generated part:" >&2
	printf '  %s\n  %s\n' "$begin" "$end" >&2
	exit 1
}
# The lines before the opening marker, the generated part, the lines after the closing one.
awk -v b="$begin" -v e="$end" -v gen="$gen" '
	$0 == b { while ((getline l < gen) > 0) print l; skip = 1; next }
	$0 == e { skip = 0; next }
	!skip { print }
' "$doc" >"$out"
cat "$out" >"$doc"
echo "gen-ulp-profiles.sh: $doc rewritten"
