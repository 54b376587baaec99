# fuzz/fuzz.mk - the in-process fuzz targets (docs/fuzzing.md), included by the Makefile.
#
#   make fuzz-build        every target with clang -fsanitize=fuzzer,address,undefined (build-fuzz/)
#   make fuzz-corpus       the generated seed corpora (build-fuzz/seeds/<target>/)
#   make fuzz-smoke        each target for FUZZ_SMOKE_TIME seconds (CI; skipped without clang)
#   make fuzz              each target for FUZZ_TIME seconds (FUZZ_TARGET=name for one)
#   make fuzz-bench        exec/s of each target (part of `make bench`)
#   make fuzz-standalone   the same targets without libFuzzer ($(CC) + ASan/UBSan, standalone_main.c)
#   make fuzz-afl          the same targets for AFL++ (afl-clang-fast, persistent mode)
#   make test-cflite       the OSS-Fuzz/ClusterFuzzLite build contract (.clusterfuzzlite/build.sh
#                          run as the infrastructure runs it, then every target it made, briefly)
#
# The engine and the harness sources the targets reach are compiled again with the fuzz flags
# into the variant's directory, so coverage and sanitizers see all of them.

FUZZ_TARGETS     := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_SUPPORT_SRC := fuzz/connrun.c fuzz/refwalk.c fuzz/corpus.c fuzz/corpus_proto.c fuzz/corpus_engine.c \
                    fuzz/corpus_pair.c fuzz/corpus_diff.c fuzz/corpus_files.c
# The whole harness (the linker takes only what the targets reach), so a target never breaks
# when a harness file gains a dependency.
FUZZ_APP_SRC     := $(APP_SRC)
# What tests/test_fuzz_regress.c links into run_tests, built by the ordinary rules in $(BUILD).
FUZZ_OBJ         := $(patsubst %.c,$(BUILD)/%.o,$(wildcard fuzz/fuzz_*.c) $(FUZZ_SUPPORT_SRC))

FUZZ_CC          ?= clang
FUZZ_AFL_CC      ?= afl-clang-fast
FUZZ_SMOKE_TIME  ?= 5
FUZZ_TIME        ?= 600
FUZZ_VARIANT     ?= libfuzzer
FUZZ_SAN         := -fsanitize=address,undefined -fno-sanitize-recover=all

ifeq ($(FUZZ_VARIANT),libfuzzer)
FZ_CC      := $(FUZZ_CC)
FZ_DIR     := build-fuzz
FZ_CFLAGS  := -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FZ_LDFLAGS := -fsanitize=fuzzer $(FUZZ_SAN)
FZ_MAIN    :=
# The objects are the sanitizer build's (Makefile: san-build compiles them with clang,
# -fsanitize=fuzzer-no-link and these sanitizers), not a second compile of the tree.
FZ_OBJ_DIR := build-san
else ifeq ($(FUZZ_VARIANT),standalone)
FZ_CC      := $(CC)
FZ_DIR     := build-fuzz/standalone
FZ_CFLAGS  := $(FUZZ_SAN)
FZ_LDFLAGS := $(FUZZ_SAN)
FZ_MAIN    := fuzz/standalone_main.c
else ifeq ($(FUZZ_VARIANT),afl)
FZ_CC      := $(FUZZ_AFL_CC)
FZ_DIR     := build-fuzz/afl
FZ_CFLAGS  := $(FUZZ_SAN)
FZ_LDFLAGS := $(FUZZ_SAN)
FZ_MAIN    := fuzz/standalone_main.c
else ifeq ($(FUZZ_VARIANT),ossfuzz)
# .clusterfuzzlite/build.sh: the infrastructure's compilers and flags from the environment (CC,
# CFLAGS, CXX, CXXFLAGS, LIB_FUZZING_ENGINE, WORK). Its clang is newer than the ones the project is
# checked with, so its warnings do not stop the build (no -Werror); CFLAGS carries the optimisation
# and the sanitizers. The targets link with $(CXX), as LIB_FUZZING_ENGINE may be a C++ archive,
# and Jansson and libpcap (with the libdbus it needs) statically: the runner image has neither;
# libsystemd, which every Ubuntu base has, stays dynamic.
FZ_CC      := $(CC)
FZ_DIR     := $(WORK)/iwspec
FZ_CFLAGS  := $(CFLAGS)
FZ_LDFLAGS := $(LIB_FUZZING_ENGINE)
FZ_MAIN    :=
FZ_TUNE    :=
FZ_LIBS    := -Wl,-Bstatic -ljansson -lpcap -ldbus-1 -Wl,-Bdynamic -l:libsystemd.so.0 -lpthread
endif

# The project's standard, include directories and defines, as the ordinary build has them.
FZ_TUNE    ?= $(WARN) -O1 -g -fno-omit-frame-pointer
FZ_LIBS    ?= $(LDLIBS_ALL)
FZ_FLAGS   := -std=c11 $(filter -D%,$(CFLAGS_ALL)) $(INC_ALL) -Ifuzz $(FZ_TUNE)
FZ_LIB_SRC := $(ENGINE_SRC) $(FUZZ_APP_SRC) $(FUZZ_SUPPORT_SRC) $(wildcard fuzz/fuzz_*.c)
FZ_OBJ_DIR ?= $(FZ_DIR)/obj
FZ_LIB_OBJ := $(FZ_LIB_SRC:%.c=$(FZ_OBJ_DIR)/%.o)
FZ_BINS    := $(FUZZ_TARGETS:%=$(FZ_DIR)/fuzz_%)

# The differential targets' reference reading (fuzz/refwalk.c) walks every octet of streams up to
# 70000 octets long with a branch or two per octet: with comparison tracing, three quarters of
# diff_markers' time went to __sanitizer_cov_trace_cmp*. It is the oracle, not code under test (the
# engine makes the same comparisons, traced), so it keeps its edge counters and ASan and loses
# the comparison hooks.
FZ_ORACLE_NOCMP := -fno-sanitize-coverage=trace-cmp
ifneq ($(findstring fuzzer-no-link,$(OPT)),)
build-san/fuzz/refwalk.o: CFLAGS_ALL += $(FZ_ORACLE_NOCMP)
endif
ifeq ($(FUZZ_VARIANT),ossfuzz)
$(FZ_OBJ_DIR)/fuzz/refwalk.o: FZ_CFLAGS += $(if $(findstring fuzzer-no-link,$(CFLAGS)),$(FZ_ORACLE_NOCMP))
endif

.PHONY: fuzz fuzz-build fuzz-bins fuzz-targets test-cflite fuzz-corpus fuzz-smoke fuzz-bench fuzz-standalone fuzz-afl test-fuzz

ifeq ($(FZ_OBJ_DIR),build-san)
# make decides in the sub-make whether the objects are current; the archive is rebuilt each time.
$(FZ_DIR)/libiwfuzz.a: FORCE
	@$(MAKE) --no-print-directory san-build
	@mkdir -p $(dir $@)
	@if [ ! -f $@ ] || [ -n "$$(find $(FZ_LIB_OBJ) -newer $@ | head -1)" ]; then \
		rm -f $@; echo "ar rcs $@ (the sanitizer build's objects)"; ar rcs $@ $(FZ_LIB_OBJ); fi
else
$(FZ_OBJ_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FZ_CC) $(FZ_FLAGS) $(FZ_CFLAGS) -MMD -MP -c $< -o $@

$(FZ_OBJ_DIR)/suite/run/version.o: $(REV_STAMP)

$(FZ_DIR)/libiwfuzz.a: $(FZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
-include $(FZ_LIB_OBJ:.o=.d)
endif

ifeq ($(FUZZ_VARIANT),ossfuzz)
$(FZ_DIR)/entry_%.o: fuzz/entry.c
	@mkdir -p $(dir $@)
	$(FZ_CC) $(FZ_FLAGS) $(FZ_CFLAGS) -DIW_FUZZ_TARGET=$* -c $< -o $@

$(FZ_DIR)/fuzz_%: $(FZ_DIR)/entry_%.o $(FZ_DIR)/libiwfuzz.a
	$(CXX) $(CXXFLAGS) $(FZ_LDFLAGS) -o $@ $^ $(FZ_LIBS)

# The generator runs as an ordinary program: instrumented objects link without libFuzzer.
$(FZ_DIR)/gen_corpus: fuzz/gen_corpus.c $(FZ_DIR)/libiwfuzz.a
	$(FZ_CC) $(FZ_FLAGS) $(FZ_CFLAGS) -o $@ $^ $(FZ_LIBS)
else
$(FZ_DIR)/fuzz_%: fuzz/entry.c $(FZ_MAIN) $(FZ_DIR)/libiwfuzz.a
	$(FZ_CC) $(FZ_FLAGS) $(FZ_LDFLAGS) -DIW_FUZZ_TARGET=$* -o $@ fuzz/entry.c $(FZ_MAIN) $(FZ_DIR)/libiwfuzz.a \
		$(FZ_LIBS)

# The generator runs as an ordinary program: instrumented objects link without libFuzzer.
$(FZ_DIR)/gen_corpus: fuzz/gen_corpus.c $(FZ_DIR)/libiwfuzz.a
	$(FZ_CC) $(FZ_FLAGS) $(FUZZ_SAN) -o $@ $^ $(FZ_LIBS)
endif

fuzz-bins: $(FZ_BINS) $(FZ_DIR)/gen_corpus

# The target names, one line, for .clusterfuzzlite/build.sh.
fuzz-targets:
	@echo $(FUZZ_TARGETS)

# The OSS-Fuzz/ClusterFuzzLite build contract: build.sh as the infrastructure runs it, then each
# target it made for CFLITE_TIME seconds on its seed corpus with its options and dictionary.
CFLITE_TIME ?= 1
test-cflite:
	@CFLITE_TIME=$(CFLITE_TIME) sh tools/cflite-check.sh

fuzz-build:
	@$(MAKE) -j$(NPROC) --no-print-directory FUZZ_VARIANT=libfuzzer fuzz-bins

fuzz-standalone:
	@$(MAKE) --no-print-directory FUZZ_VARIANT=standalone fuzz-bins

fuzz-afl:
	@command -v $(FUZZ_AFL_CC) >/dev/null 2>&1 || { echo "fuzz-afl: $(FUZZ_AFL_CC) not found: install AFL++ (Debian package afl++)"; exit 2; }
	@$(MAKE) --no-print-directory FUZZ_VARIANT=afl fuzz-bins

fuzz-corpus: fuzz-build
	@sh fuzz/run.sh corpus

# Skipped, saying why, without a working clang; in CI (CI=true, .ci/run) that is a failure.
fuzz-smoke:
	@if sh fuzz/run.sh probe "$(FUZZ_CC)"; then \
		$(MAKE) --no-print-directory fuzz-build && FUZZ_SMOKE_TIME=$(FUZZ_SMOKE_TIME) sh fuzz/run.sh smoke; \
	elif [ "$${CI:-}" = true ]; then \
		echo "fuzz-smoke: FAIL: CI must run the fuzz targets; tools/install-deps.sh installs clang"; exit 1; \
	fi

fuzz: fuzz-build
	@FUZZ_TIME=$(FUZZ_TIME) FUZZ_TARGET=$(FUZZ_TARGET) sh fuzz/run.sh long

fuzz-bench:
	@if sh fuzz/run.sh probe "$(FUZZ_CC)"; then \
		$(MAKE) --no-print-directory fuzz-build >/dev/null && sh fuzz/run.sh bench; \
	fi

test-fuzz: fuzz-smoke
