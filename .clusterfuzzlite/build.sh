#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every fuzz/fuzz_<name>.c target built with the
# infrastructure's $CC $CFLAGS and $LIB_FUZZING_ENGINE into $OUT/fuzz_<name>, next to its
# fuzz_<name>.dict, fuzz_<name>.options and fuzz_<name>_seed_corpus.zip (OSS-Fuzz names).
# The engine and the harness sources the targets reach are compiled with the same flags, so the
# sanitizers and the coverage see them. Jansson and libpcap (with the libdbus it needs) are
# linked statically: the runner image has neither; libsystemd, which every Ubuntu base has,
# stays dynamic.
set -eu
cd "$SRC/iwspec"
STD="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE"
INC="-Iengine -Icapture -Icase -Idrivers -Iverify -Irun -Ireports -Inetfuzz -Ivectors -Icli -Ifuzz -DIWSPEC_VERSION=\"cflite\" -DIWSPEC_GIT_REV=\"cflite\""
WORK=${WORK:-/tmp}/iwspec-fuzz
rm -rf "$WORK"
mkdir -p "$WORK/obj"

objs=()
# The whole harness but its main(); the linker takes only what the targets reach.
for f in engine/*.c $(ls capture/*.c case/*.c drivers/*.c verify/*.c run/*.c reports/*.c netfuzz/*.c vectors/*.c cli/*.c \
		2>/dev/null | grep -v '^cli/main\.c$') \
	 fuzz/connrun.c fuzz/refwalk.c fuzz/corpus*.c fuzz/fuzz_*.c; do
	o="$WORK/obj/$(echo "$f" | tr / _).o"
	# shellcheck disable=SC2086
	$CC $CFLAGS $STD $INC -c "$f" -o "$o"
	objs+=("$o")
done
ar rcs "$WORK/libiwfuzz.a" "${objs[@]}"
JANSSON="-Wl,-Bstatic -ljansson -lpcap -ldbus-1 -Wl,-Bdynamic -l:libsystemd.so.0 -lpthread"

# The seed generator is an ordinary program built from the same objects.
# shellcheck disable=SC2086
$CC $CFLAGS $STD $INC fuzz/gen_corpus.c "$WORK/libiwfuzz.a" $JANSSON -o "$WORK/gen_corpus"
ASAN_OPTIONS=detect_leaks=0 "$WORK/gen_corpus" "$WORK/seeds" cases

for src in fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	name=${t#fuzz_}
	# shellcheck disable=SC2086
	$CC $CFLAGS $STD $INC -DIW_FUZZ_TARGET="$name" -c fuzz/entry.c -o "$WORK/entry_$name.o"
	# shellcheck disable=SC2086
	$CXX $CXXFLAGS $LIB_FUZZING_ENGINE "$WORK/entry_$name.o" "$WORK/libiwfuzz.a" $JANSSON -o "$OUT/$t"
	[ -f "fuzz/$t.dict" ] && cp "fuzz/$t.dict" "$OUT/$t.dict"
	[ -f "fuzz/$t.options" ] && cp "fuzz/$t.options" "$OUT/$t.options"
	(cd "$WORK/seeds/$name" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
	if [ -d "fuzz/regressions/$name" ]; then
		(cd "fuzz/regressions/$name" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
	fi
done
