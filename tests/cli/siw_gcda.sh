#!/bin/sh
# The .gcda writer of siw's coverage (tools/siw-guest/siw-cov/gcda.h), which siw_gcov.c runs in
# the guest, against libgcov's own: tests/cli/siw_gcda/ holds two units, built once with libgcov
# (the reference, which writes its .gcda at exit) and once as siw.ko is, with
# -fprofile-info-section between gcov_begin.o and gcov_end.o and gcda.h's writer. gcov must read
# the same counts, branches and calls out of both. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 2
D=$ROOT/tests/cli/siw_gcda
C=$ROOT/tools/siw-guest/siw-cov
command -v gcov >/dev/null 2>&1 || { echo "SKIP: no gcov (Debian's gcc has it)"; exit 0; }
[ "$(gcc -dumpversion)" = 12 ] || { echo "SKIP: gcc $(gcc -dumpversion): gcda.h describes gcc 12's layout (Debian 12's kernels are built with it)"; exit 0; }
mkdir -p "$tmp/ref" "$tmp/sec"
cp "$D/sample.c" "$D/second.c" "$tmp/ref/"
cp "$D/sample.c" "$D/second.c" "$tmp/sec/"
PROF="-O2 -fprofile-arcs -ftest-coverage"
expect 0 "the reference builds with libgcov" sh -c "cd '$tmp/ref' && gcc $PROF -c sample.c second.c && gcc -O2 -c '$D/main_libgcov.c' && gcc -fprofile-arcs sample.o second.o main_libgcov.o -o t"
expect 0 "the reference runs and writes its .gcda" sh -c "cd '$tmp/ref' && ./t && test -s sample.gcda && test -s second.gcda"
expect 0 "the section build links (gcov_begin.o first, gcov_end.o last, no libgcov)" sh -c "cd '$tmp/sec' && gcc $PROF -fprofile-info-section -c sample.c second.c && gcc -O2 -Wall -Wextra -Werror -I'$C' -c '$D/main_section.c' '$C/gcov_begin.c' '$C/gcov_end.c' && gcc gcov_begin.o sample.o second.o gcov_end.o main_section.o -o t"
expect 0 "gcda.h's writer writes both units' .gcda" sh -c "cd '$tmp/sec' && ./t && test -s sample.gcda && test -s second.gcda"
contains '^units 2$' "the section between the markers holds both units"
for unit in sample second; do
	expect 0 "gcov reads the reference's $unit.gcda" sh -c "cd '$tmp/ref' && gcov -b -c $unit.c"
	expect 0 "gcov reads gcda.h's $unit.gcda" sh -c "cd '$tmp/sec' && gcov -b -c $unit.c"
	if diff "$tmp/ref/$unit.c.gcov" "$tmp/sec/$unit.c.gcov" >"$tmp/diff"; then
		ok
	else
		bad "$unit: gcov reads other counts from gcda.h's .gcda than from libgcov's: $(head -8 "$tmp/diff" | tr '\n' '|')"
	fi
done
# What the comparison rests on: the run reached the sample's code and not never().
grep -q '^ *60: *6:' "$tmp/sec/sample.c.gcov" && ok || bad "sample.c line 6 was not counted 60 times (the run did not reach it?)"
grep -q '^ *#####: *3:' "$tmp/sec/sample.c.gcov" && ok || bad "sample.c's never() is not shown as never run (all-zero counters)"
finish siw_gcda
