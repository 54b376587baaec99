#!/bin/sh
# CLI tests of `iwspec crosscheck DIR` (docs/reports.md, "Cross-check with decode"): a run's
# verdicts held against `iwspec decode` of its case pcaps. The built-in DUT and the run agree; a
# mutant that sends non-zero pad octets fails cases on MPA-4-02 judged on every frame, and decode
# finds MPA-4-02 in those captures: they agree too. Then results.json is edited where the two
# must part: such a case said to PASS (a violation decode sees and the run passed), and said to
# rest on another per-frame rule (one decode does not find); each is one DISAGREE line naming the
# case, the requirement and both sides, and exit 1. --skip leaves a case out; a capture that is
# missing, a directory without results.json and no directory at all are errors (exit 2). Ends
# with "crosscheck: N passed, N failed".
. "$(dirname "$0")/lib.sh"
CASE=rdmap.send.round-trip
# expect STATUS DESC CMD...: the output in $tmp/out.
expect() {
	want=$1; shift; desc=$1; shift
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else bad "$desc: exit $got, wanted $want"; head -c 2000 "$tmp/out" >&2; fi
}
contains() {
	if grep -q -- "$1" "$tmp/out"; then ok; else bad "$2: output lacks '$1'"; tail -5 "$tmp/out" | sed 's/^/    /' >&2; fi
}
# edit FILTER: a copy of the mutant's report with results.json rewritten by jq.
edit() {
	rm -rf "$tmp/edit"
	cp -r "$tmp/mut" "$tmp/edit"
	jq "$1" "$tmp/mut/results.json" >"$tmp/edit/results.json" || bad "jq cannot edit results.json"
}

run() { # DIR [run options]
	d=$1
	shift
	"$IWSPEC" run --no-progress --case-dir "$ROOT/cases" --report "$d" --pcap "$@" >"$tmp/run.log" 2>&1
}

# The built-in DUT: the rdmap.send cases.
run "$tmp/ref" --cases 'rdmap.send.*'
expect 0 "the built-in DUT's verdicts and decode agree" "$IWSPEC" crosscheck "$tmp/ref"
contains ': 0 disagreements' "the summary says they agree"
contains 'captures decoded' "the summary counts the captures"

# A mutant that pads with 0xFF: the run fails on MPA-4-02 judged on every frame, decode finds it.
printf 'mutant = pad-nonzero\n' >"$tmp/pad.conf"
run "$tmp/mut" --cases "$CASE" --dut-config "$tmp/pad.conf"
if jq -e --arg id "$CASE" '.cases[] | select(.id == $id) | .failed_requirement == "MPA-4-02" and
	(.reason | contains("judged on every frame"))' "$tmp/mut/results.json" >/dev/null; then ok; else
	bad "$CASE against pad-nonzero should fail on MPA-4-02 judged on every frame"; fi
expect 0 "a per-frame failure decode finds too" "$IWSPEC" crosscheck "$tmp/mut"
contains '1 failures judged on every frame looked for' "the per-frame failure was looked for"

# The same capture said to PASS: decode's MPA-4-02 is a disagreement.
edit '(.cases[] | select(.id == "'$CASE'")) |= (.verdict = "PASS" | .failed_requirement = null | .reason = "")'
expect 1 "a violation decode sees beside a PASS" "$IWSPEC" crosscheck "$tmp/edit"
contains "^DISAGREE $CASE: MPA-4-02: decode: the DUT broke it" "the disagreement names the case and the requirement"
contains 'frame [0-9]*: ' "decode's side gives the frame"
contains 'run: PASS' "the run's side gives its verdict"
contains ': 1 disagreement$' "the summary counts it"

# Said to rest on another per-frame rule: decode does not find that one.
edit '(.cases[] | select(.id == "'$CASE'")) |= (.failed_requirement = "MPA-5.2-11" |
	.reason = "the CRC [requirement MPA-5.2-11 MUST, judged on every frame]" | .judged = [])'
expect 1 "a per-frame failure decode does not find" "$IWSPEC" crosscheck "$tmp/edit"
contains "^DISAGREE $CASE: MPA-5.2-11: decode: it found MPA-4-02 in the DUT's octets" "decode's findings are named"
# decode's MPA-4-02 is in the octets the run failed on: the run stops at the first rule broken
# there, so it is counted, not held against the verdict.
contains ', 1 in the octets it failed on and not judged there,' "decode's other finding in the failure's octets is counted"
if grep -q "^DISAGREE $CASE: MPA-4-02: " "$tmp/out"; then bad "decode's other finding in the failure's octets is not a disagreement"; else ok; fi
expect 0 "--skip leaves the case out" "$IWSPEC" crosscheck --skip "$CASE" "$tmp/edit"
contains '1 left out (--skip)' "the case left out is counted"

# The same PASS, its connection made the probe before the case (the wire log's connection 0): the
# probe gives no verdict, so decode's MPA-4-02 on it is counted, not compared.
edit '(.cases[] | select(.id == "'$CASE'")) |= (.verdict = "PASS" | .failed_requirement = null | .reason = "" |
	.wire |= map(if .what == "connect" then .conn = 0 else . end))'
expect 0 "a violation on the probe before the case is not compared" "$IWSPEC" crosscheck "$tmp/edit"
contains ' on the probe before a case)' "the probe's violations are counted"
if grep -q ', 0 on the probe before a case)' "$tmp/out"; then bad "the probe's violations are counted, not 0"; else ok; fi

# What cannot be read.
rm -f "$tmp/edit/pcap/$CASE.pcap"
expect 2 "a missing capture" "$IWSPEC" crosscheck "$tmp/edit"
contains 'iwspec run --pcap' "the fix is named"
expect 2 "no results.json" "$IWSPEC" crosscheck "$tmp/nowhere"
contains 'No such file or directory' "the reason is given"
expect 2 "no directory" "$IWSPEC" crosscheck
expect 0 "--help" "$IWSPEC" crosscheck --help
contains 'judged on every frame' "the help says the rules"

finish crosscheck
