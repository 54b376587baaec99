#!/bin/sh
# The network fuzzer end to end (docs/fuzzing-network.md): no finding against the clean
# built-in DUT, the same seed gives the same findings, injected faults (a process crash, a
# hang, a wrong startup frame) are found and minimised, and the written cases replay as FAIL
# against the faulty DUT and PASS against the clean one. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# expect STATUS DESCRIPTION -- command...   (stdout+stderr in $tmp/out)
expect() {
	want=$1; shift; desc=$1; shift
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else bad "$desc: exit $got, wanted $want"; sed 's/^/    /' "$tmp/out" | head -20 >&2; fi
}
contains() {
	if grep -q -- "$1" "$tmp/out"; then ok; else bad "$2: output lacks '$1'"; sed 's/^/    /' "$tmp/out" | head -20 >&2; fi
}
exists() {
	if [ -s "$1" ]; then ok; else bad "$2: $1 is missing"; fi
}

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
contains "MPA-6.1.1-06" "reply-wrong-rev requirement"
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

# The speed figure (printed, never judged here: make bench reports it).
expect 0 "bench" "$IWSPEC" fuzz --bench --time 1s
contains "ratio fuzz / bare" "bench ratio"

finish netfuzz
