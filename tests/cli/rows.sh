#!/bin/sh
# The RFC rows as a lab meets them (issue 36): `iwspec list --row` prints a row with its level,
# its place in the RFC, the RFC's sentence and the cases citing it; a case citing a retired row,
# or a SHOULD row as MUST, or naming in rule= a row it does not cite, is refused; a Terminate
# without the headers RFC 5040 §4.8 says SHOULD be attached is a WARN on that row and the case
# goes on to judge the close; a DUT that never closes after its error FAILs on the row that asks
# for the close (RFC5040-6.2-02), not on the Terminate code's. $IWSPEC names the binary.
. "$(dirname "$0")/lib.sh"


expect 0 "list --row" "$IWSPEC" list --row RFC5040-4.8-03 --case-dir "$ROOT/cases"
contains "RFC5040-4.8-03  SHOULD  (T = W)" "the row's keyword"
contains "where:       RFC 5040 §4.8" "where it stands"
contains "RFC text:    \"" "the RFC's sentence"
contains "SHOULD be set" "the sentence's own keyword"
contains "rdmap.terminate.layout-tagged-error" "a case citing it"
expect 2 "list --row of a retired row" "$IWSPEC" list --row RFC5040-5.4-04 --case-dir "$ROOT/cases"
contains "RFC5040-5.4-04 was retired from spec/rfc-rows.md" "retired named"
contains "replaced by RFC5040-5.4-03" "what replaced it"
expect 2 "list --row of no row" "$IWSPEC" list --row RFC5040-4.8-3 --case-dir "$ROOT/cases"
contains "closest: RFC5040-4.8-03" "the closest row first"

# Cases the catalog check refuses, each with the file, line and fix.
mkdir -p "$tmp/c/x"
case_with() {
	printf 'id: x.one\ntitle: t\n%s\nrole: responder\n\nstartup\n%s\n' "$1" "$2" >"$tmp/c/x/one.iwt"
}
case_with "requirement: RFC5040-5.4-04 MUST" ""
expect 2 "a retired row" "$IWSPEC" list --case-dir "$tmp/c"
contains "one.iwt:3: requirement: 'RFC5040-5.4-04' was retired from spec/rfc-rows.md: cite RFC5040-5.4-03" "retired, with its replacement"
case_with "requirement: RFC5040-4.8-03 MUST" ""
expect 2 "a SHOULD row cited as MUST" "$IWSPEC" list --case-dir "$tmp/c"
contains "RFC5040-4.8-03 is cited as MUST, but the catalog's keyword is SHOULD" "stronger than the keyword"
case_with "requirement: RFC5040-4.8-10 MUST" "expect close rule=RFC5040-6.2-02"
expect 2 "rule= of a row the case does not cite" "$IWSPEC" list --case-dir "$tmp/c"
contains "rule=RFC5040-6.2-02 is not a requirement this case cites" "rule= refused"

# Against the built-in DUT's mutants, served over tcp: (docs/mutants.md).
serve_and_run() {   # MUTANT CASES REPORT
	port=$(low_port)
	"$IWSPEC" serve --quiet --profile rfc5044 --mutant "$1" --port "$port" >"$tmp/serve.log" 2>&1 &
	spid=$!
	"$IWSPEC" run --dut "tcp:127.0.0.1:$port" --wait-dut 10s --profile rfc5044 --cases "$2" --no-progress --report "$tmp/$3" \
		>"$tmp/out" 2>&1
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
}
spid=
on_exit '[ -n "$spid" ] && kill "$spid" 2>/dev/null'
command -v jq >/dev/null || { echo "tests/cli/rows.sh: jq is missing (apt-get install jq)" >&2; exit 2; }

serve_and_run term-no-headers rdmap.read.bounds noheaders
J=$tmp/noheaders/results.json
[ "$(jq -r '.cases[0].verdict' "$J" 2>/dev/null)" = WARN ] && ok || bad "a Terminate without its headers: $(jq -r '.cases[0].verdict' "$J" 2>/dev/null), wanted WARN"
jq -r '.cases[0].failed_requirement' "$J" 2>/dev/null | grep -q '^RFC5040-4.8-0[34]$' && ok ||
	bad "the WARN rests on $(jq -r '.cases[0].failed_requirement' "$J" 2>/dev/null), not RFC5040-4.8-03/-04"
contains ": SHOULD, RFC 5040 §4.8" "the console names the level and the place"
# The case went on past the SHOULD: the close and the liveness probe were still judged.
jq -r '.cases[0].wire[] | .summary' "$J" 2>/dev/null | grep -q "below MUST: the case goes on" && ok ||
	bad "no note that the case went on past the SHOULD"

serve_and_run never-close rdmap.read.invalid-stag neverclose
J=$tmp/neverclose/results.json
[ "$(jq -r '.cases[0].verdict' "$J" 2>/dev/null)" = FAIL ] && ok || bad "no close after the error: $(jq -r '.cases[0].verdict' "$J" 2>/dev/null), wanted FAIL"
[ "$(jq -r '.cases[0].failed_requirement' "$J" 2>/dev/null)" = RFC5040-6.2-02 ] && ok ||
	bad "the missing close rests on $(jq -r '.cases[0].failed_requirement' "$J" 2>/dev/null), not RFC5040-6.2-02"

# One behaviour, one rule, one level (issue 38): a DUT that finds the CRC error and reports it with
# another code fails every CRC case on the rule that holds the code, pointing at the code, the
# SHOULD case included; one that delivers the corrupt data fails them on the CRC rule.
serve_and_run term-wrong-code 'mpa.crc.*' wrongcode
J=$tmp/wrongcode/results.json
n=$(jq -r '[.cases[] | select(.verdict != "SKIP" and .verdict != "PASS")] | length' "$J" 2>/dev/null)
m=$(jq -r '[.cases[] | select(.verdict == "FAIL" and .failed_requirement == "RFC5040-4.8-08" and .failed_field == "Code")] | length' "$J" 2>/dev/null)
[ "${n:-0}" -ge 6 ] && [ "$n" = "$m" ] && ok ||
	bad "term-wrong-code: $m of $n CRC cases FAIL on RFC5040-4.8-08 at the Code field: $(jq -r '.cases[] | select(.verdict != "PASS" and .verdict != "SKIP") | "\(.id) \(.verdict) \(.failed_requirement) \(.failed_field)"' "$J" 2>/dev/null | tr '\n' ';')"
serve_and_run crc-unchecked 'mpa.crc.corrupt-*' unchecked
J=$tmp/unchecked/results.json
n=$(jq -r '[.cases[] | select(.verdict == "FAIL" and .failed_requirement == "MPA-5.2-14")] | length' "$J" 2>/dev/null)
[ "${n:-0}" -ge 4 ] && ok || bad "crc-unchecked: $n corrupt-* cases FAIL on MPA-5.2-14, wanted them all"

finish rows
