#!/bin/sh
# The coverage bar (issue 15): the number of wire-observable MUSTs of requirements.md that the
# suite judges on the wire against the built-in DUT (results.json summary.coverage.judged, run
# with --profile all) may not drop below the committed floor tests/coverage-floor.txt. When it
# does, the requirements of tests/coverage-judged.txt no longer judged are named. When it rises,
# the script says how to commit the new floor and list. And every wire-observable MUST is covered:
# cited by a case header, judged on the wire, or listed with its reason in cases/untestable.md
# (summary.coverage.uncovered is 0; the uncovered ones are named from report.html's coverage
# table). $IWSPEC names the binary (default build/iwspec). Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
here=$(dirname "$0")
FLOOR=$here/../coverage-floor.txt
LIST=$here/../coverage-judged.txt

command -v jq >/dev/null || { echo "tests/cli/coverage.sh: jq is missing (apt-get install jq)" >&2; exit 2; }
floor=$(tr -d ' \n' <"$FLOOR")
case $floor in
'' | *[!0-9]*) echo "tests/cli/coverage.sh: $FLOOR must hold one number, it holds '$floor'" >&2; exit 2 ;;
esac
# The list holds every requirement judged on the wire, SHOULDs too (MPA-5.3.2-04); the floor
# counts the MUSTs among them, so it can be no larger.
[ "$floor" -le "$(grep -c . "$LIST")" ] && ok ||
	bad "$FLOOR ($floor) counts more MUSTs than $LIST lists ids ($(grep -c . "$LIST")): regenerate both (below)"

"$IWSPEC" run --profile all --no-progress --html --report "$tmp/r" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok || { bad "the suite against the built-in DUT exits $rc"; sed 's/^/    /' "$tmp/out" | tail -20 >&2; }
J=$tmp/r/results.json
[ -f "$J" ] || { failn=$((failn + 1)); finish coverage "(no results.json)"; exit; }

judged=$(jq '.summary.coverage.judged' "$J")
jq -r '[.cases[].judged[].requirement] | unique | .[]' "$J" >"$tmp/now.txt"
sort "$LIST" >"$tmp/was.txt"
lost=$(comm -23 "$tmp/was.txt" "$tmp/now.txt")
new=$(comm -13 "$tmp/was.txt" "$tmp/now.txt")
how="to commit the new bar: build/iwspec run --profile all --no-progress --report /tmp/cov &&
    jq -r '[.cases[].judged[].requirement] | unique | .[]' /tmp/cov/results.json > tests/coverage-judged.txt &&
    jq '.summary.coverage.judged' /tmp/cov/results.json > tests/coverage-floor.txt"
if [ "$judged" -ge "$floor" ] 2>/dev/null; then
	ok
else
	bad "wire MUSTs judged on the wire: $judged, below the floor of $floor ($FLOOR)"
fi
if [ -n "$lost" ]; then
	bad "no longer judged on the wire (in $LIST):" $lost
fi
[ -z "$lost" ] && ok
# Every wire MUST covered: a case, a per-frame rule, or a reason in cases/untestable.md.
uncovered=$(jq '.summary.coverage.uncovered' "$J")
if [ "$uncovered" = 0 ]; then
	ok
else
	ids=$(grep 'class="gap">uncovered' "$tmp/r/report.html" 2>/dev/null | sed -n 's/.*<tr id="req-\([^"]*\)">.*/\1/p')
	bad "$uncovered wire MUSTs neither cited by a case, judged on the wire, nor listed in cases/untestable.md:" $ids
fi
[ "$(jq '.summary.coverage.untestable_list' "$J")" != null ] && ok ||
	bad "results.json names no untestable list: cases/untestable.md was not found beside the cases"
if [ -n "$new" ] || [ "$judged" -gt "$floor" ]; then
	echo "coverage: $judged wire MUSTs judged, the floor is $floor; newly judged:" $new
	echo "  $how"
fi
finish coverage "($judged wire MUSTs judged on the wire, floor $floor; $uncovered uncovered)"
