#!/bin/sh
# tools/test-all.sh - `make test`: every check of the project, in lanes that run side by side.
#
# Most of the checks wait (on DUT timers, on the qemu guest, on case timeouts) rather than
# compute, so on a 2-core machine three lanes finish far sooner than one line of them. The
# stages in one lane run in order, every one of them even after a failure (so one run shows every
# failure), and the run fails if any stage failed. Each stage's output goes to its own log, printed
# (its tail) when the stage fails; a line per stage says how long it took. What several lanes
# share (build/iwspec, the reflector) is built first, before the lanes start, so no two makes
# write the same files.
#
#   sh tools/test-all.sh [STAGE...]      (default: all stages; a stage is a Makefile target)
#
# Lanes (TEST_LANES overrides, lanes separated by ';'):
#   test-unit test-cli conformance mutants    the built-in DUT: unit and CLI tests, matrices
#   test-san test-fuzz                        the sanitizer build, its tests, the fuzz targets on it
#   interop                                   Linux siw in the qemu guest
set -u
cd "$(dirname "$0")/.."
LOGS=${TEST_LOG_DIR:-build/test-logs}
LANES=${TEST_LANES:-"test-unit test-cli conformance mutants; test-san test-fuzz; interop"}
mkdir -p "$LOGS"
rm -f "$LOGS"/*.log "$LOGS"/*.result
start=$(date +%s)

only="$*"
wanted() {
	[ -z "$only" ] && return 0
	for w in $only; do [ "$w" = "$1" ] && return 0; done
	return 1
}

# One stage: its make target with the output in its log; "ok|FAIL SECONDS" in its .result.
stage() {
	t0=$(date +%s)
	make --no-print-directory "$1" >"$LOGS/$1.log" 2>&1
	rc=$?
	t1=$(date +%s)
	counts=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$LOGS/$1.log" |
		sed 's/^[A-Za-z_-]*: //' | awk '{p += $1; f += $3} END {if (NR) printf "%d passed, %d failed", p, f}')
	if [ $rc -eq 0 ]; then
		echo "test: $1 ok in $((t1 - t0)) s${counts:+ ($counts)} [at $((t1 - start)) s]"
		echo ok >"$LOGS/$1.result"
	else
		# The failures first (compile lines would bury them), then the end of the log.
		echo "test: $1 FAILED (exit $rc) in $((t1 - t0)) s${counts:+ ($counts)}; its failures, then the end of $LOGS/$1.log:"
		grep -E -A3 '(^|[^A-Za-z])(FAIL|ERROR|Error|error:)' "$LOGS/$1.log" | grep -v '^clang \|^cc \|^gcc ' |
			head -n 80 | sed 's/^/    /'
		echo "    ..."
		tail -n 25 "$LOGS/$1.log" | cut -c1-400 | sed 's/^/    /'
		echo fail >"$LOGS/$1.result"
	fi
	return $rc
}

lane() {
	for s in $1; do
		wanted "$s" && stage "$s"
	done
}

trap 'kill 0 2>/dev/null; exit 130' INT
trap 'kill 0 2>/dev/null; exit 143' TERM
make --no-print-directory all >"$LOGS/build.log" 2>&1 || { cat "$LOGS/build.log"; echo "stages: 0 passed, 1 failed"; exit 1; }
if [ -f /usr/include/rdma/rdma_cma.h ]; then
	make --no-print-directory reflector >"$LOGS/reflector.log" 2>&1 || { cat "$LOGS/reflector.log"; echo "stages: 0 passed, 1 failed"; exit 1; }
fi
echo "test: lanes side by side: $LANES (logs in $LOGS/)"
rest=$LANES
while [ -n "$rest" ]; do
	l=${rest%%;*}
	case $rest in *\;*) rest=${rest#*;} ;; *) rest= ;; esac
	lane "$l" &
done
wait

pass=0
failn=0
for r in "$LOGS"/*.result; do
	[ -f "$r" ] || continue
	if [ "$(cat "$r")" = ok ]; then pass=$((pass + 1)); else failn=$((failn + 1)); fi
done
echo "test: $(($(date +%s) - start)) s in all"
echo "stages: $pass passed, $failn failed"
[ $failn -eq 0 ] && [ $pass -gt 0 ]
