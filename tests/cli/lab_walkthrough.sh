#!/bin/sh
# A lab's nightly loop, as issue 38's vendor test engineer ran it, against `iwspec serve` over tcp:
# with a DUT configuration written from docs/dut-config.md (responder, rfc5044, markers = yes,
# crc = required, ulp = reflector):
#   1. today's firmware (mutant term-wrong-code: a Terminate with 0x22 for a CRC error) judged: the
#      five CRC cases and terminate-code-2 FAIL on RFC5040-4.8-08, the rule broken, at the Code
#      field, one severity for the one defect; report.html says so and what the DUT did;
#   2. its baseline (--write-expect) pins rule and outcome and holds on a rerun (exit 0);
#   3. a regression (mutant crc-unchecked: the corrupt data delivered) under the same verdicts
#      shows as changed behaviour, counted, listed before anything that got better, each reason
#      whole, all six on MPA-5.2-14 at one level; exit 1 under both --expect-fail-on policies;
#   4. the fixed firmware (the conforming DUT): only "now passing", exit 0 with
#      --expect-fail-on regressions, 1 with any;
#   5. a DUT that does not want markers while the configuration says yes: exit 4, not 3;
#   6. a capture of a run (dumpcap on lo) judged on the DUT's side only: the harness's deliberate
#      faults are not the DUT's (exit 0), both sides judged they are (exit 1).
# The fuzzer's part of the walkthrough (no finding on the conforming DUT with markers on, the CRC
# bug found under MPA-5.2-14, zero runs not exit 0) is tests/cli/fuzz_declared.sh, against the
# same DUTs and declaration. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || { echo "tests/cli/lab_walkthrough.sh: jq is missing (apt-get install jq)" >&2; exit 2; }

dpid=
on_exit '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; [ -n "$dpid" ] && kill "$dpid" 2>/dev/null'

# serve NAME ARGS...: iwspec serve ARGS on a port it picks ($port), the DUT of the lab's
# configuration ($tmp/lab.conf).
serve() {
	name=$1; shift
	serve_dut "$name" --quiet "$@" || { bad "$name: iwspec serve $* printed no port"; finish lab-walkthrough; exit; }
	printf 'dut = tcp:127.0.0.1:%s\nrole = responder\nprofile = rfc5044\nmarkers = yes\ncrc = required\nulp = reflector\n' \
		"$port" >"$tmp/lab.conf"
}

run() { "$IWSPEC" run --dut-config "$tmp/lab.conf" --cases 'mpa.crc.*' --no-progress "$@"; }
CRC_CASES="mpa.crc.corrupt-crc-value mpa.crc.corrupt-ddp-header mpa.crc.corrupt-payload mpa.crc.corrupt-payload-initiator mpa.crc.wrong-byte-order mpa.crc.terminate-code-2"
WRONG='Terminate LLP/0x0/0x22 (unknown MPA error)'

# ---- 1. today's firmware judged ----
serve firmware --markers --mutant term-wrong-code
expect 1 "firmware: its failures" run --report "$tmp/fw" --html --write-expect "$tmp/base.txt"
J=$tmp/fw/results.json
for c in $CRC_CASES; do
	got=$(jq -r --arg c "$c" '.cases[] | select(.id == $c) | "\(.verdict) \(.failed_requirement) \(.failed_field) \(.outcome)"' "$J")
	if [ "$got" = "FAIL RFC5040-4.8-08 Code $WRONG" ]; then ok; else
		bad "firmware: $c: $got, not FAIL on RFC5040-4.8-08 at Code after the DUT's $WRONG"; fi
	if grep -q "^$c FAIL : \[RFC5040-4.8-08\] {$WRONG} " "$tmp/base.txt"; then ok; else
		bad "firmware: the baseline's $c line: $(grep "^$c " "$tmp/base.txt")"; fi
done
if grep -q 'Rests on <b class="mono">RFC5040-4.8-08</b>.*field <mark>Code</mark>' "$tmp/fw/report.html" &&
	grep -q "What the DUT did: <span class=\"mono\">$WRONG</span>" "$tmp/fw/report.html"; then ok; else
	bad "firmware: report.html does not rest the failure on RFC5040-4.8-08 at Code, or lacks what the DUT did"; fi

# ---- 2. the baseline holds on a rerun ----
expect 0 "firmware again: as the baseline" run --report "$tmp/fw2" --expect "$tmp/base.txt"
contains "every result as expected" "firmware again: said"

# ---- 3. the regression under the same verdicts ----
serve regression --markers --mutant crc-unchecked
for policy in any regressions; do
	expect 1 "regression, --expect-fail-on $policy" run --report "$tmp/rg" --expect "$tmp/base.txt" --expect-fail-on $policy
	contains "^  6 differences from the baseline .*: 0 regressions, 6 changed behaviour, 0 not listed or not run, 0 now passing" \
		"regression ($policy): counted as changed behaviour"
done
contains "mpa.crc.corrupt-payload: expected FAIL on \[RFC5040-4.8-08\] (.* line [0-9]*), got FAIL on \[MPA-5.2-14\] after {Send}: " \
	"regression: the rule and what the DUT did now"
# One behaviour, one severity: the case about the Terminate's code holds the delivered data as
# a MUST too (instead=MPA-5.2-14), where it was a WARN on MPA-7-02.
contains "mpa.crc.terminate-code-2: expected FAIL on \[RFC5040-4.8-08\] (.* line [0-9]*), got FAIL on \[MPA-5.2-14\] after {Send}: " \
	"regression: the case about the Terminate's code fails on the same rule, at the same level"
# Reasons whole: no line ends cut ("[requirement MPA-").
if grep '^    mpa\.' "$tmp/out" | grep -qv 'MUST\]$\|SHOULD\]$'; then
	bad "regression: a difference's reason is cut"; grep '^    mpa\.' "$tmp/out" | grep -v 'MUST\]$\|SHOULD\]$' | head -3 >&2
else ok; fi

# ---- 4. the fixed firmware ----
serve fixed --markers
expect 0 "fixed, --expect-fail-on regressions" run --report "$tmp/fx" --expect "$tmp/base.txt" --expect-fail-on regressions
contains ": 0 regressions, 0 changed behaviour, 0 not listed or not run, 6 now passing" "fixed: counted as now passing"
expect 1 "fixed, --expect-fail-on any" run --report "$tmp/fx" --expect "$tmp/base.txt" --expect-fail-on any
expect 2 "--expect-fail-on without --expect" run --report "$tmp/fx" --expect-fail-on regressions
contains "needs --expect FILE" "--expect-fail-on without --expect: said"
expect 2 "--expect-fail-on sideways" run --report "$tmp/fx" --expect "$tmp/base.txt" --expect-fail-on sideways

# ---- 5. the declaration contradicted ----
serve no-markers
expect 4 "markers = yes, the DUT wants none" "$IWSPEC" run --dut-config "$tmp/lab.conf" --cases 'mpa.markers.*' \
	--report "$tmp/mk" --no-progress
contains "DUT CONFIGURATION: .*markers" "markers = yes contradicted: said with the key"

# ---- 6. a capture judged on the DUT's side ----
if ! command -v dumpcap >/dev/null 2>&1; then
	echo "lab-walkthrough: SKIP the capture: dumpcap is not installed (it comes with tshark)"
else
	serve capture --markers
	dumpcap -q -i lo -f "tcp port $port" -w "$tmp/lab.pcapng" >"$tmp/dumpcap.log" 2>&1 &
	dpid=$!
	sleep 1
	if ! kill -0 "$dpid" 2>/dev/null; then
		dpid=
		echo "lab-walkthrough: SKIP the capture: cannot capture on lo here ($(head -c 200 "$tmp/dumpcap.log" | tr '\n' ' '))"
	else
		run --report "$tmp/cap" >/dev/null 2>&1
		sleep 0.5
		kill "$dpid" 2>/dev/null
		wait "$dpid" 2>/dev/null
		dpid=
		expect 1 "capture, both sides judged: the harness's faults" "$IWSPEC" decode --profile rfc5044 "$tmp/lab.pcapng"
		contains "violations by side: initiator [1-9][0-9]* in" "capture: the harness's side has violations"
		expect 0 "capture, the DUT's side judged" "$IWSPEC" decode --profile rfc5044 --side responder "$tmp/lab.pcapng"
		contains "^the capture conforms on the side judged" "capture: the DUT's side conforms"
	fi
fi

finish lab-walkthrough
