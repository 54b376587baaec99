#!/bin/sh
# tools/cflite-check.sh - the OSS-Fuzz/ClusterFuzzLite build contract (`make test-cflite`, part of
# make test). Runs .clusterfuzzlite/build.sh as the infrastructure does: the project as
# $SRC/iwspec, OUT and WORK empty, CC=clang CXX=clang++, OSS-Fuzz's AddressSanitizer flags and
# LIB_FUZZING_ENGINE=-fsanitize=fuzzer. Then every target it left in $OUT runs for CFLITE_TIME
# seconds (default 2) on its unpacked fuzz_<name>_seed_corpus.zip, with the [libfuzzer] settings of
# its .options and its .dict, as ClusterFuzzLite runs them. Fails on a build error, a target of
# fuzz/ missing from $OUT or without its seed corpus, or a target that crashes. Without clang it
# says SKIP, except under CI=true.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TIME=${CFLITE_TIME:-2}
say() { echo "cflite: $*"; }
if ! sh "$ROOT/fuzz/run.sh" probe clang >/dev/null 2>&1 || ! command -v clang++ >/dev/null 2>&1 ||
	! command -v zip >/dev/null 2>&1 || ! command -v unzip >/dev/null 2>&1; then
	[ "${CI:-}" = true ] && { say "FAIL: CI needs clang, clang++, zip and unzip (tools/install-deps.sh installs them)"; exit 1; }
	say "SKIP: clang, clang++, zip or unzip is missing (tools/install-deps.sh installs them)"
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/src" "$T/out" "$T/scratch"
ln -s "$ROOT" "$T/src/iwspec"
# OSS-Fuzz's flags for an AddressSanitizer build with libFuzzer.
san="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
t0=$(date +%s)
if ! env SRC="$T/src" OUT="$T/out" WORK="$T/scratch" CC=clang CXX=clang++ CFLAGS="$san" CXXFLAGS="$san" \
	LIB_FUZZING_ENGINE=-fsanitize=fuzzer SANITIZER=address FUZZING_LANGUAGE=c \
	bash -eu "$ROOT/.clusterfuzzlite/build.sh" >"$T/build.log" 2>&1; then
	tail -n 30 "$T/build.log"
	say "FAIL: .clusterfuzzlite/build.sh failed (above)"
	exit 1
fi
say "build.sh made $(ls "$T/out" | grep -c '^fuzz_[a-z0-9_]*$') targets in $(($(date +%s) - t0)) s"

pass=0 failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); say "FAIL: $*"; }
# -key=value flags of the [libfuzzer] section of an .options file (OSS-Fuzz's format).
options() {
	[ -f "$1" ] || return 0
	awk '/^\[/{s=($0=="[libfuzzer]")} s && /=/{gsub(/[ \t]/,""); print "-" $0}' "$1" | tr '\n' ' '
}
# one TARGET: unpacks its seeds and runs it; its line goes to $T/TARGET.res, "ok" or "FAIL ...".
one() {
	t=$1
	bin=$T/out/$t
	[ -x "$bin" ] || { echo "FAIL $t: no \$OUT/$t" >"$T/$t.res"; return; }
	[ -f "$T/out/${t}_seed_corpus.zip" ] || { echo "FAIL $t: no \$OUT/${t}_seed_corpus.zip" >"$T/$t.res"; return; }
	mkdir -p "$T/corpus/$t" "$T/scratch/$t"
	unzip -q -o "$T/out/${t}_seed_corpus.zip" -d "$T/corpus/$t"
	n=$(ls "$T/corpus/$t" | wc -l)
	[ "$n" -gt 0 ] || { echo "FAIL $t: its seed corpus is empty" >"$T/$t.res"; return; }
	dict=
	[ -f "$T/out/$t.dict" ] && dict="-dict=$T/out/$t.dict"
	# shellcheck disable=SC2046
	if (cd "$T/scratch/$t" && ASAN_OPTIONS=detect_leaks=1 "$bin" $(options "$T/out/$t.options") $dict \
		-max_total_time="$TIME" -print_final_stats=1 "$T/corpus/$t" >"$T/$t.log" 2>&1); then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/$t.log")
		echo "ok $t: ${runs:-?} runs in $TIME s on $n seeds${dict:+, with its dictionary}" >"$T/$t.res"
	else
		echo "FAIL $t: the target failed: $(grep -m1 -E 'ERROR|SUMMARY|deadly' "$T/$t.log")" >"$T/$t.res"
	fi
}
# Two at a time: a target is single-threaded.
targets=$(for src in "$ROOT"/fuzz/fuzz_*.c; do basename "$src" .c; done)
set -- $targets
while [ $# -gt 0 ]; do
	one "$1" &
	[ $# -gt 1 ] && one "$2" &
	wait
	shift; [ $# -gt 0 ] && shift
done
for t in $targets; do
	r=$(cat "$T/$t.res")
	case $r in
	ok*) say "${r#ok }"; ok ;;
	*) [ -f "$T/$t.log" ] && tail -n 20 "$T/$t.log"; bad "${r#FAIL }" ;;
	esac
done
echo "cflite: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
