#!/bin/sh
# fuzz/run.sh - runs the libFuzzer targets built in build-fuzz/ (docs/fuzzing.md).
#
#   run.sh probe CC    exit 0 when CC builds and runs a libFuzzer program, else say why and exit 1
#   run.sh corpus      regenerate the seed corpora in build-fuzz/seeds/
#   run.sh smoke       every target for FUZZ_SMOKE_TIME seconds (default 5); fails on any crash
#   run.sh long        every target (or FUZZ_TARGET) for FUZZ_TIME seconds (default 600)
#   run.sh bench       exec/s of every target over FUZZ_BENCH_TIME seconds (default 2), a table
#
# Each run keeps its corpus in build-fuzz/corpus/<target>/ (grown across runs), reads the seeds
# from build-fuzz/seeds/<target>/, uses fuzz/fuzz_<target>.dict and the [libfuzzer] settings of
# fuzz/fuzz_<target>.options (OSS-Fuzz names), and writes crashes to build-fuzz/artifacts/.
set -u
cd "$(dirname "$0")/.."
B=build-fuzz

targets() {
	if [ -n "${FUZZ_TARGET:-}" ]; then
		echo "$FUZZ_TARGET"
	else
		for f in fuzz/fuzz_*.c; do
			t=${f#fuzz/fuzz_}
			echo "${t%.c}"
		done
	fi
}

# -key=value flags from the [libfuzzer] section of fuzz/fuzz_<target>.options (OSS-Fuzz format).
options() {
	f=fuzz/fuzz_$1.options
	[ -f "$f" ] || return 0
	awk '/^\[/{s=($0=="[libfuzzer]")} s && /=/{gsub(/[ \t]/,""); print "-" $0}' "$f" | tr '\n' ' '
}

dict() {
	[ -f "fuzz/fuzz_$1.dict" ] && printf '%s' "-dict=fuzz/fuzz_$1.dict"
}

probe() {
	cc=${1:-clang}
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "fuzz: skipped: $cc not found (libFuzzer needs clang; tools/install-deps.sh installs it)"
		return 1
	fi
	d=$(mktemp -d)
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' >"$d/p.c"
	if ! "$cc" -fsanitize=fuzzer,address,undefined "$d/p.c" -o "$d/p" >"$d/log" 2>&1 || ! "$d/p" -runs=1 >>"$d/log" 2>&1; then
		echo "fuzz: skipped: $cc cannot build a libFuzzer program with ASan/UBSan:"
		sed 's/^/  /' "$d/log" | tail -n 5
		rm -rf "$d"
		return 1
	fi
	rm -rf "$d"
	return 0
}

corpus() {
	rm -rf "$B/seeds"
	ASAN_OPTIONS=detect_leaks=1 "$B/gen_corpus" "$B/seeds" cases >"$B/seeds.log" 2>&1 || {
		cat "$B/seeds.log"
		echo "fuzz: seed generation failed"
		exit 1
	}
}

# one TARGET TIME LABEL: runs one target; its result line goes to $B/logs/TARGET.result, and
# TARGET.failed marks a failure.
one() {
	t=$1
	time=$2
	label=$3
	bin=$B/fuzz_$t
	res=$B/logs/$t.result
	rm -f "$B/logs/$t.failed"
	if [ ! -x "$bin" ]; then
		echo "$label: $t: $bin is not built" >"$res"
		: >"$B/logs/$t.failed"
		return
	fi
	mkdir -p "$B/corpus/$t" "$B/seeds/$t"
	log=$B/logs/$t.log
	# shellcheck disable=SC2046
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" $(options "$t") $(dict "$t") -max_total_time="$time" -rss_limit_mb=2048 -timeout=25 \
		-print_final_stats=1 -artifact_prefix="$B/artifacts/$t-" "$B/corpus/$t" "$B/seeds/$t" \
		>"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	cov=$(sed -n 's/.*DONE *cov: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	if [ $rc -ne 0 ]; then
		: >"$B/logs/$t.failed"
		{
			echo "$label: $t FAILED (exit $rc); the end of $log:"
			tail -n 40 "$log" | sed 's/^/    /'
			art=$(ls -t "$B/artifacts/$t-"* 2>/dev/null | head -n 1)
			[ -n "$art" ] && echo "    reproduce: $bin $art   (then keep it: see docs/fuzzing.md, Regressions)"
		} >"$res"
	else
		echo "$label: $t ok: ${runs:-?} runs, ${rate:-?} exec/s, coverage ${cov:-?}" >"$res"
	fi
}

# run TIME LABEL: every target for TIME seconds, FUZZ_JOBS at a time (default: the CPUs; each
# libFuzzer process uses one), so a target's figures are those of one core; prints one line per
# target, in the targets' order.
run() {
	time=$1
	label=$2
	mkdir -p "$B/corpus" "$B/artifacts" "$B/logs"
	[ -d "$B/seeds" ] || corpus
	jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
	n=0
	for t in $(targets); do
		one "$t" "$time" "$label" &
		n=$((n + 1))
		[ $((n % jobs)) -eq 0 ] && wait
	done
	wait
	failed=""
	for t in $(targets); do
		cat "$B/logs/$t.result"
		[ -f "$B/logs/$t.failed" ] && failed="$failed $t"
	done
	if [ -n "$failed" ]; then
		echo "$label: FAILED:$failed"
		return 1
	fi
	return 0
}

# A table: each target's exec/s (libFuzzer, ASan+UBSan, one core, from its seeds), against the
# 5 000 exec/s every in-process target is held to (docs/fuzzing.md, "Speed"), with the load
# average beside it: figures taken on a busy machine are lower, compare them only within a run.
bench() {
	[ -d "$B/seeds" ] || corpus
	mkdir -p "$B/logs"
	echo "fuzz exec/s: libFuzzer, ASan+UBSan, ${FUZZ_BENCH_TIME:-2} s each from the seed corpus, one at a time; load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
	printf 'fuzz exec/s   %-16s %9s  %s\n' target exec/s "(target 5000)"
	for t in $(targets); do
		log=$B/logs/bench-$t.log
		# A fresh run from the seeds (new inputs go to a scratch directory) so figures
		# compare across runs. The scratch directory is in memory where there is one: in its
		# first seconds libFuzzer writes hundreds of new inputs, and creating files in a busy
		# /tmp on ext4 was up to a fifth of a target's time (diff_cuts), the disk's, not the
		# target's.
		scratch=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
		ASAN_OPTIONS=detect_leaks=0 "$B/fuzz_$t" $(options "$t") $(dict "$t") \
			-max_total_time="${FUZZ_BENCH_TIME:-2}" -print_final_stats=1 -rss_limit_mb=2048 \
			"$scratch" "$B/seeds/$t" >"$log" 2>&1
		rm -rf "$scratch"
		rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
		if [ -z "$rate" ]; then
			printf 'fuzz exec/s   %-16s %9s  %s\n' "$t" "-" "failed, see $log"
		else
			printf 'fuzz exec/s   %-16s %9s  %s\n' "$t" "$rate" "$([ "$rate" -ge 5000 ] && echo ok || echo BELOW)"
		fi
	done
	echo "fuzz exec/s: load average at the end $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
}

case "${1:-}" in
probe) probe "${2:-clang}" ;;
corpus) corpus ;;
smoke) corpus && run "${FUZZ_SMOKE_TIME:-5}" fuzz-smoke ;;
long) run "${FUZZ_TIME:-600}" fuzz ;;
bench) bench ;;
*) echo "usage: fuzz/run.sh probe CC | corpus | smoke | long | bench" >&2; exit 2 ;;
esac
