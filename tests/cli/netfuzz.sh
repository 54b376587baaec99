#!/bin/sh
# The network fuzzer end to end (docs/fuzzing-network.md): no finding against the clean
# built-in DUT, the same seed gives the same findings, injected faults (a process crash, a
# hang, a wrong startup frame) are found and minimised, and the written cases replay as FAIL
# against the faulty DUT and PASS against the clean one; every finding of those and of six more
# mutants replays with `iwspec run` as the finding says, its verdict and its requirement
# (`finding replays`). Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

exists() {
	if [ -s "$1" ]; then ok; else bad "$2: $1 is missing"; fi
}
command -v jq >/dev/null || { echo "tests/cli/netfuzz.sh: jq is missing (apt-get install jq)" >&2; exit 2; }

# replays DIR DESC RUN-OPTIONS...: every finding DIR holds (at least one) replays with `iwspec run`
# against the DUT of the finding (RUN-OPTIONS) as the finding says: the verdict its requirement's
# level gives, resting on that requirement; and the fuzzer's own check of the case said so in
# seed.txt (issue 25 item 11: a Request followed at once by a FIN was written as a case that
# waited for the Reply first, and replayed it failed for another reason).
replays() {
	dir=$1; shift; desc=$1; shift
	nrep=0
	for f in "$dir"/finding-*; do
		[ -f "$f/case.iwt" ] || { bad "finding replays: $desc: $f has no case.iwt"; continue; }
		nrep=$((nrep + 1))
		req=$(sed -n 's/^requirement: //p' "$f/seed.txt")
		lvl=$(sed -n 's/^requirement: [^ ]* \([A-Z]*\).*/\1/p' "$f/case.iwt")
		case $lvl in MUST) want=FAIL ;; SHOULD) want=WARN ;; *) want=INFO ;; esac
		"$IWSPEC" run --cases "$f/case.iwt" "$@" --report "$f/replay" --no-progress >/dev/null 2>&1
		got=$(jq -r '.cases[0] | "\(.verdict) \(.failed_requirement // "-")"' "$f/replay/results.json" 2>/dev/null)
		if [ "$got" = "$want $req" ]; then ok; else
			bad "finding replays: $desc $(basename "$f"): the finding is $want $req, the replay gives ${got:-nothing}"
			sed 's/^/    /' "$f/seed.txt" >&2
		fi
		if grep -q "^case: reproduces the finding: " "$f/seed.txt"; then ok; else
			bad "finding replays: $desc $(basename "$f"): seed.txt: $(grep '^case:' "$f/seed.txt")"
		fi
		total_replays=$((total_replays + 1))
	done
	if [ "$nrep" -gt 0 ]; then ok; else bad "finding replays: $desc: no finding in $dir"; fi
}
total_replays=0

expect 0 "fuzz --help" "$IWSPEC" fuzz --help
contains "usage: iwspec fuzz" "fuzz --help usage line"
expect 2 "fuzz bad option" "$IWSPEC" fuzz --frobnicate
expect 2 "fuzz bad mutant" "$IWSPEC" fuzz --mutant no-such-mutant --runs 1
contains "unknown mutant" "bad mutant message"

# The clean built-in DUT: no finding, a progress line with the coverage.
expect 0 "clean DUT" "$IWSPEC" fuzz --seed 7 --runs 3000 --out "$tmp/clean" --progress
contains "0 findings" "clean DUT summary"
contains "coverage" "clean DUT coverage"
if [ -d "$tmp/clean/finding-1" ]; then bad "clean DUT wrote a finding"; else ok; fi

# A wrong startup frame (a mutant of the in-process DUT): found, minimised to the frame, and
# the same seed finds the same thing again.
expect 1 "reply-wrong-rev found" "$IWSPEC" fuzz --mutant reply-wrong-rev --seed 3 --runs 200 --max-findings 1 \
	--out "$tmp/rev1" --no-progress
contains "RFC5044-7.1.1-01" "reply-wrong-rev requirement (RFC 5044's sender Rev rule, as run and decode name it)"
contains "the case reproduces it (FAIL \[RFC5044-7.1.1-01\])" "reply-wrong-rev case checked before it is reported"
exists "$tmp/rev1/finding-1/case.iwt" "reply-wrong-rev case"
exists "$tmp/rev1/finding-1/capture.pcap" "reply-wrong-rev pcap"
exists "$tmp/rev1/finding-1/seed.txt" "reply-wrong-rev seed"
expect 1 "reply-wrong-rev again" "$IWSPEC" fuzz --mutant reply-wrong-rev --seed 3 --runs 200 --max-findings 1 \
	--out "$tmp/rev2" --no-progress
if cmp -s "$tmp/rev1/finding-1/case.iwt" "$tmp/rev2/finding-1/case.iwt"; then ok; else bad "same seed, different case"; fi
printf 'dut = ref\nmutant = reply-wrong-rev\n' >"$tmp/rev.conf"
expect 1 "reply-wrong-rev replay on the mutant" "$IWSPEC" run --cases "$tmp/rev1/finding-1/case.iwt" \
	--dut-config "$tmp/rev.conf" --report "$tmp/r1" --no-progress
expect 0 "reply-wrong-rev replay on the clean DUT" "$IWSPEC" run --cases "$tmp/rev1/finding-1/case.iwt" \
	--report "$tmp/r2" --no-progress
# The minimised program is the Request alone, then the FIN: the case sends the FIN before it
# expects the Reply, as the run did.
if awk '/^send request/{s=NR} /^close$/{c=NR} /^expect reply/{r=NR} END{exit !(s && c > s && r > c)}' \
	"$tmp/rev1/finding-1/case.iwt"; then ok; else bad "reply-wrong-rev case: the FIN is not right after the Request"; fi
replays "$tmp/rev1" reply-wrong-rev --dut-config "$tmp/rev.conf"

# A process crash (exec driver, iwspec serve --mutant crash-short-ulpdu).
expect 1 "crash found" "$IWSPEC" fuzz --mutant crash-short-ulpdu --seed 1 --time 20s --max-findings 1 \
	--out "$tmp/crash" --no-progress
contains "FINDING 1" "crash finding"
contains "crash" "crash kind"
# The same seed, the same finding, however loaded the machine: run 103 takes the DUT down, also
# when an earlier run in flight meets it dead first (fz_suspects, suite/cli/cmd_fuzz_loop.c).
contains "FINDING 1 (run 103, " "crash blamed on run 103"
exists "$tmp/crash/finding-1/case.iwt" "crash case"
expect 1 "crash replay on the mutant" "$IWSPEC" run --cases "$tmp/crash/finding-1/case.iwt" \
	--dut "exec:ulimit -c 0; exec $IWSPEC serve --port {port} --quiet --mutant crash-short-ulpdu" \
	--report "$tmp/r3" --no-progress
expect 0 "crash replay on the clean DUT" "$IWSPEC" run --cases "$tmp/crash/finding-1/case.iwt" \
	--report "$tmp/r4" --no-progress
replays "$tmp/crash" crash-short-ulpdu \
	--dut "exec:ulimit -c 0; exec $IWSPEC serve --port {port} --quiet --mutant crash-short-ulpdu"

# A DUT that stops reading on a partial FPDU header and never closes.
expect 1 "hang found" "$IWSPEC" fuzz --mutant hang-partial-header --seed 1 --time 20s --max-findings 1 \
	--timeout 200ms --out "$tmp/hang" --no-progress
contains "hang" "hang kind"
exists "$tmp/hang/finding-1/case.iwt" "hang case"
printf 'dut = ref\nmutant = hang-partial-header\n' >"$tmp/hang.conf"
expect 1 "hang replay on the mutant" "$IWSPEC" run --cases "$tmp/hang/finding-1/case.iwt" \
	--dut-config "$tmp/hang.conf" --report "$tmp/r5" --no-progress
expect 0 "hang replay on the clean DUT" "$IWSPEC" run --cases "$tmp/hang/finding-1/case.iwt" \
	--report "$tmp/r6" --no-progress
replays "$tmp/hang" hang-partial-header --dut-config "$tmp/hang.conf"

# Findings of other kinds, each replayed against its mutant: a Terminate with a wrong code, octets
# delivered after an error, a Read Response of the wrong length or after an error, a wrong R bit,
# and an initiator going on after a refusing Reply. MUTANT:SEED:ROLE:RUNS:FINDINGS, the runs the
# seed's findings come in (the built-in DUT is deterministic: the same seed, the same findings).
for spec in term-wrong-code:1:responder:200:2 deliver-after-error:2:responder:200:2 \
	    read-queue-off-by-one:3:responder:4000:2 zero-read-data:2:responder:1000:1 \
	    reply-echoes-r:1:responder:200:1 ignore-reject:1:initiator:200:1; do
	IFS=: read -r m seed role runs nf <<EOF
$spec
EOF
	"$IWSPEC" fuzz --mutant "$m" --role "$role" --seed "$seed" --runs "$runs" --time 20s --max-findings "$nf" \
		--out "$tmp/rt-$m" --no-progress >"$tmp/rt-$m.log" 2>&1
	printf 'dut = ref\nmutant = %s\nrole = %s\n' "$m" "$role" >"$tmp/rt-$m.conf"
	replays "$tmp/rt-$m" "$m" --dut-config "$tmp/rt-$m.conf"
done
echo "finding replays: $total_replays findings replayed as their finding says"

# The speed figure (printed, never judged here: make bench reports it).
expect 0 "bench" "$IWSPEC" fuzz --bench --time 1s
contains "ratio fuzz / bare" "bench ratio"

finish netfuzz
