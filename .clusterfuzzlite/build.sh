#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every fuzz/fuzz_<name>.c target, built by the Makefile
# (fuzz/fuzz.mk, FUZZ_VARIANT=ossfuzz) with the infrastructure's $CC $CFLAGS, $CXX $CXXFLAGS and
# $LIB_FUZZING_ENGINE, into $OUT/fuzz_<name>, next to its fuzz_<name>.dict, fuzz_<name>.options
# and fuzz_<name>_seed_corpus.zip (OSS-Fuzz names). The Makefile holds the sources and the
# include paths, so this script cannot drift from the ordinary build; `make test-cflite` (part
# of make test, tools/cflite-check.sh) runs it as the infrastructure does.
set -eu
cd "$SRC/iwspec"
export WORK=${WORK:-/tmp}
B=$WORK/iwspec
make -j"$(nproc)" --no-print-directory FUZZ_VARIANT=ossfuzz fuzz-bins
# The seeds come from the generator (an ordinary program built from the same objects) and the
# case catalog, as `make fuzz-corpus` makes them.
rm -rf "$B/seeds"
ASAN_OPTIONS=detect_leaks=0 "$B/gen_corpus" "$B/seeds" cases
for name in $(make -s --no-print-directory fuzz-targets); do
	t=fuzz_$name
	cp "$B/$t" "$OUT/$t"
	if [ -f "fuzz/$t.dict" ]; then cp "fuzz/$t.dict" "$OUT/$t.dict"; fi
	if [ -f "fuzz/$t.options" ]; then cp "fuzz/$t.options" "$OUT/$t.options"; fi
	rm -f "$OUT/${t}_seed_corpus.zip"
	(cd "$B/seeds/$name" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
	if [ -d "fuzz/regressions/$name" ]; then
		(cd "fuzz/regressions/$name" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
	fi
done
