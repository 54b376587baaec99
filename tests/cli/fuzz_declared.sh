#!/bin/sh
# iwspec fuzz against `iwspec serve` in the DUT configurations a user declares (issue 38, parts 3
# and 4; docs/fuzzing-network.md): a conforming DUT with markers on and off and crc required and
# optional-off (then in its no-CRC mode) is fuzzed for 10 s each with a fixed seed and gives no
# finding and exit 0 (with markers on, calibration read the DUT's octets with the wrong framing,
# saw no greeting, and every run reported the reflector's greeting: FINDING 1 extra-message
# [DDP-7.4-01], exit 1); `serve --mutant crc-unchecked` gives a finding under MPA-5.2-14, the rule
# its detail names (it was filed under RFC5040-4.8-01), whose case replays with `iwspec run` as
# the finding says; the application the configuration declares wins over calibration, and a
# disagreement is said in one line; a --time too short for any run is exit 3, not a pass.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || { echo "tests/cli/fuzz_declared.sh: jq is missing (apt-get install jq)" >&2; exit 2; }

on_exit '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null'

# serve NAME ARGS...: a built-in DUT (iwspec serve ARGS) on a free port it picks: $port.
serve() {
	if serve_dut "$@"; then ok; else bad "$1: iwspec serve printed no port"; fi
}

# conf NAME LINES...: a DUT configuration for the DUT serve started, one key = value a line.
conf() {
	name=$1; shift
	printf 'dut = tcp:127.0.0.1:%s\n' "$port" >"$tmp/$name.conf"
	for l in "$@"; do printf '%s\n' "$l" >>"$tmp/$name.conf"; done
}

# No finding against the conforming DUT in each declared configuration: MARKERS CRC SERVE-ARGS.
for spec in "yes required --markers" "no required" "yes optional-off --markers --crc-off" \
	    "no optional-off --crc-off"; do
	# shellcheck disable=SC2086 # the words of spec, split on purpose
	set -- $spec
	m=$1 c=$2
	shift 2
	name=clean-$m-$c
	serve "$name" --quiet "$@"
	conf "$name" "markers = $m" "crc = $c" "ulp = reflector"
	expect 0 "$name: no finding" "$IWSPEC" fuzz --dut-config "$tmp/$name.conf" --seed 1 --time 10s \
		--out "$tmp/$name" --no-progress
	contains "reflector yes, greeting yes" "$name: calibration sees the reflector and its greeting"
	if [ "$m" = yes ]; then contains "markers on" "$name: markers"; else contains "markers off" "$name: markers"; fi
	if [ "$c" = optional-off ]; then
		contains "in its no-CRC mode" "$name: calibration finds the no-CRC mode"
	fi
	if grep -q "calibration saw" "$tmp/out"; then bad "$name: declaration and calibration disagree"; else ok; fi
	contains "^fuzz: [1-9][0-9]* runs.*, 0 findings" "$name: runs made, no finding"
	if [ -d "$tmp/$name/finding-1" ]; then bad "$name: a finding was written"; else ok; fi
done

# The CRC not checked: found under the row its detail names, MPA-5.2-14, and its case replays
# against the DUT of the finding as the finding says (FAIL resting on MPA-5.2-14), and passes on
# the clean built-in DUT (the fuzzer's own check, in seed.txt).
serve crc-unchecked --quiet --mutant crc-unchecked
conf crc-unchecked "ulp = reflector"
expect 1 "crc-unchecked: found" "$IWSPEC" fuzz --dut-config "$tmp/crc-unchecked.conf" --seed 1 --time 30s \
	--max-findings 3 --out "$tmp/crc" --no-progress
contains "FINDING [0-9]* (run [0-9]*, .*): terminate \[MPA-5.2-14\] .*where a conforming DUT reports LLP/0x0/0x02 (MPA CRC error)" \
	"crc-unchecked: the CRC finding is MPA-5.2-14"
# Every finding line names no row in its detail but its own.
grep 'FINDING [0-9]' "$tmp/out" | while IFS= read -r line; do
	id=$(printf '%s\n' "$line" | sed 's/^.*): [a-z-]* \[\([^]]*\)\] .*/\1/')
	for other in $(printf '%s\n' "$line" | sed 's/^.*): [a-z-]* \[[^]]*\] //' |
		grep -oE '(MPA|DDP|RDMAP|RFC[0-9]+|TR)-[0-9A-Za-z.]+(-[0-9A-Za-z]+)*'); do
		[ "$other" = "$id" ] || echo "$line"
	done
done >"$tmp/other-rows"
if [ -s "$tmp/other-rows" ]; then bad "crc-unchecked: a finding's detail names another row:"; sed 's/^/    /' "$tmp/other-rows" >&2; else ok; fi
crcdir=
for f in "$tmp"/crc/finding-*; do
	[ "$(sed -n 's/^requirement: //p' "$f/seed.txt")" = MPA-5.2-14 ] && crcdir=$f
done
if [ -n "$crcdir" ]; then
	ok
	if grep -q '^case: reproduces the finding: FAIL \[MPA-5.2-14\] against the DUT of the finding, PASS against the built-in DUT' \
		"$crcdir/seed.txt"; then ok; else bad "crc-unchecked: the fuzzer's check: $(grep '^case:' "$crcdir/seed.txt")"; fi
	"$IWSPEC" run --cases "$crcdir/case.iwt" --dut-config "$tmp/crc-unchecked.conf" --report "$tmp/crc-replay" \
		--no-progress >/dev/null 2>&1
	got=$(jq -r '.cases[0] | "\(.verdict) \(.failed_requirement // "-")"' "$tmp/crc-replay/results.json" 2>/dev/null)
	if [ "$got" = "FAIL MPA-5.2-14" ]; then ok; else bad "crc-unchecked: the replay gives ${got:-nothing}, not FAIL MPA-5.2-14"; fi
	# The same behaviour: the replay's reason is the finding's Terminate.
	if jq -r '.cases[0].reason' "$tmp/crc-replay/results.json" |
		grep -q 'expected Terminate LLP/0x0/0x02 (MPA CRC error), seen '; then ok; else
		bad "crc-unchecked: the replay fails on something else: $(jq -r '.cases[0].reason' "$tmp/crc-replay/results.json")"
	fi
	expect 0 "crc-unchecked: the case passes on the clean built-in DUT" "$IWSPEC" run --cases "$crcdir/case.iwt" \
		--report "$tmp/crc-clean" --no-progress
else
	bad "crc-unchecked: no finding under MPA-5.2-14 in $tmp/crc"
	cat "$tmp"/crc/finding-*/seed.txt >&2 2>/dev/null
fi

# The declared application wins over calibration, and the disagreement is one line before the
# fuzzing: a DUT running the reflector declared to run none. Its greeting is then reported.
serve declared-none --quiet
conf declared-none "ulp = none"
expect 1 "declared ulp = none against a reflector" "$IWSPEC" fuzz --dut-config "$tmp/declared-none.conf" --seed 1 \
	--time 10s --max-findings 1 --out "$tmp/none" --no-progress
contains "reflector no, greeting no" "declared ulp = none: used"
contains "^iwspec fuzz: the DUT configuration declares ulp = none (echo no, greeting no), calibration saw echo yes, greeting yes (waiting up to [0-9]* ms): fuzzing with the declaration's$" \
	"declared ulp = none: the disagreement line"
if [ "$(grep -n 'calibration saw' "$tmp/out" | cut -d: -f1)" -lt "$(grep -n 'FINDING 1' "$tmp/out" | cut -d: -f1)" ]; then
	ok; else bad "declared ulp = none: the disagreement is not said before the fuzzing"; fi

# --time too short for any run: calibration waits for the echo of a DUT without a reflector (none
# declared) until the time is up, then no run is made. Exit 3, saying so (it was exit 0).
serve no-reflector --quiet --no-reflector
expect 3 "--time too short for a run" "$IWSPEC" fuzz --dut "tcp:127.0.0.1:$port" --seed 1 --time 3s \
	--out "$tmp/short" --no-progress
contains "^fuzz: 0 runs" "--time too short: 0 runs"
contains "no run was made: calibration left no time for one" "--time too short: why"
# The same DUT with its application declared: calibration waits only the reaction timeout, and
# the runs are judged.
conf no-reflector "reflector = no"
expect 0 "declared reflector = no: fuzzed" "$IWSPEC" fuzz --dut-config "$tmp/no-reflector.conf" --seed 1 --time 6s \
	--out "$tmp/nr" --no-progress
contains "^fuzz: [1-9][0-9]* runs.*, 0 findings" "declared reflector = no: runs made, no finding"

finish fuzz_declared
