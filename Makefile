# iwspec - conformance and fuzzing suite for iWARP (MPA, DDP, RDMAP).
#
#   make            build build/iwspec and the test binaries
#   make run        install missing build dependencies, build, run the suite against the
#                   built-in reference DUT, write reports to out/latest/ (report.html and pcaps too)
#   make test       installs what is missing (make deps, the siw guest's host packages), then
#                   every check once, in three lanes (tools/test-all.sh, docs/testing.md): unit,
#                   CLI, matrices, siw, the ASan+UBSan pass, the fuzz targets
#   make reflector  build/iwspec-reflector, docs/reflector.md's application on the verbs API
#   make interop    the suite against Linux siw in a qemu guest, both roles, against the
#                   committed baselines (part of make test; docs/interop/linux-siw.md);
#                   SIW_KERNEL=6.12 runs it on Debian's 6.12 kernel (tools/siw-guest/kernel.env)
#   make siw-series the siw patch series checked as mailed, each patch built after the one
#                   before on every kernel (tools/siw-series.sh; make interop checks the rest)
#   make mutants    the detection matrix of the mutant zoo (part of make test; docs/mutants.md)
#   make bench      benchmarks (figures, never pass/fail on timing), fuzz targets' exec/s included,
#                   the network fuzzer's runs/s against the bare loopback rate (iwspec fuzz --bench)
#   make fuzz-smoke  each fuzz target briefly (part of make test when clang is there); see fuzz/fuzz.mk
#   make install    install iwspec under $(PREFIX) (default /usr/local), its manual page and bash completion;
#                   make install-reflector adds iwspec-reflector and its page (it needs rdma-core)
#   make clean

.DEFAULT_GOAL := all

CC       ?= cc
# The builds inside `make test` (sanitizer, fuzz targets) compile this many files at a time.
NPROC    := $(shell nproc 2>/dev/null || echo 1)
PREFIX   ?= /usr/local
BUILD    ?= build
VERSION  := 0.1.0
# The commit, "-dirty" when the tree differs from it: it goes into every report's provenance.
GIT_REV  := $(shell r=$$(git rev-parse --short HEAD 2>/dev/null) || r=unknown; \
		[ "$$r" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null && r="$$r-dirty"; echo $$r)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CSTD     := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
OPT      ?= -O2 -g
# The pipeline, one folder per stage, each a library that sees its own headers and those of the
# stages below it, nothing above: a backward #include does not compile. Lowest first:
#   suite/engine/   the protocol: MPA, DDP, RDMAP octets, the only parser of them
#   suite/verify/   judging a sender's octets frame by frame: one judge for the runner, the
#                   network fuzzer and `decode`, so the three cannot name one fault differently
#   suite/capture/  files in and out: pcap read/write, hex input, atomic writes, `decode`
#   suite/case/     the .iwt case language: parser, schema, the catalog of cases/
#   suite/rawtcp/   the raw segment path: a TCP sender in user space over a TAP device, so a case
#                   says which octets go in which segment and in what order (docs/raw-segments.md)
#   drivers/        the DUT backends behind driver.h, and the built-in DUT
#   suite/run/      the runner and the executor of a case's steps, the verdict and the result
#   reports/        what a run leaves: JSON, JUnit, HTML, pcaps, baselines, provenance
#   fuzz/network/   the network fuzzer: generation, minimisation, output
#   vectors/        the test-vector set
#   suite/cli/      main and the subcommands
# A layer is named by its folder's last part; DIR_<layer> is its folder, LAYERS_<layer> what it sees.
DIR_engine  := suite/engine
DIR_verify  := suite/verify
DIR_capture := suite/capture
DIR_case    := suite/case
DIR_rawtcp  := suite/rawtcp
DIR_drivers := drivers
DIR_run     := suite/run
DIR_reports := reports
DIR_netfuzz := fuzz/network
DIR_vectors := vectors
DIR_cli     := suite/cli
LAYERS_engine  := engine
LAYERS_verify  := engine verify
LAYERS_capture := engine verify capture
LAYERS_case    := engine verify capture case
LAYERS_rawtcp  := engine rawtcp
LAYERS_drivers := engine rawtcp drivers
LAYERS_run     := engine verify capture case rawtcp drivers run
LAYERS_reports := engine verify capture case rawtcp drivers run reports
LAYERS_netfuzz := engine verify capture case rawtcp drivers run reports netfuzz
LAYERS_vectors := engine verify capture reports vectors
LAYERS_ALL     := engine verify capture case rawtcp drivers run reports netfuzz vectors cli
layer_dirs = $(foreach l,$(1),$(DIR_$(l)))
# The include path of a source file: its folder's layers; tests, fuzz targets and benchmarks see all.
INC_ALL   := $(addprefix -I,$(call layer_dirs,$(LAYERS_ALL)))
layer_of   = $(firstword $(foreach l,$(LAYERS_ALL),$(if $(filter $(DIR_$(l))/%,$(1)),$(l))))
layer_inc  = $(addprefix -I,$(call layer_dirs,$(or $(LAYERS_$(call layer_of,$(1))),$(LAYERS_ALL))))
CFLAGS_ALL := $(CSTD) $(WARN) $(OPT) $(EXTRA_CFLAGS) \
              -DIWSPEC_VERSION='"$(VERSION)"' -DIWSPEC_GIT_REV='"$(GIT_REV)"'
LDLIBS_ALL := -ljansson -lpcap -lpthread $(EXTRA_LDLIBS)

ENGINE_SRC := $(wildcard suite/engine/*.c)
APP_SRC    := $(filter-out suite/cli/main.c,$(wildcard $(addsuffix /*.c,$(call layer_dirs,$(filter-out engine,$(LAYERS_ALL))))))
TEST_SRC   := $(wildcard tests/*.c)
BENCH_SRC  := $(wildcard tests/bench/*.c)

ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
APP_OBJ    := $(APP_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ   := $(TEST_SRC:%.c=$(BUILD)/%.o)

include fuzz/fuzz.mk
include reflector/reflector.mk

.PHONY: all run test test-unit test-cli test-hostile test-san test-san-unit test-san-cli test-san-conformance san-cli bench install clean deps test-deps vectors conformance mutants interop
all: $(BUILD)/iwspec $(BUILD)/run_tests $(BUILD)/rawtcp_probe

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(call layer_inc,$<) -MMD -MP -c $< -o $@

# version.o carries the commit: rebuilt when the commit changes, nothing else is.
REV_STAMP := $(BUILD)/git_rev.stamp
$(REV_STAMP): FORCE
	@mkdir -p $(BUILD)
	@echo '$(GIT_REV)' | cmp -s - $@ || echo '$(GIT_REV)' >$@
$(BUILD)/suite/run/version.o: $(REV_STAMP)
.PHONY: FORCE
FORCE:

$(BUILD)/libiwengine.a: $(ENGINE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/iwspec: $(BUILD)/suite/cli/main.o $(APP_OBJ) $(BUILD)/libiwengine.a
	$(CC) $(CFLAGS_ALL) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/run_tests: $(TEST_OBJ) $(APP_OBJ) $(FUZZ_OBJ) $(BUILD)/libiwengine.a
	$(CC) $(CFLAGS_ALL) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# The raw segment path against the built-in DUT in a network namespace (tests/cli/rawtcp.sh).
RAWTCP_OBJ := $(filter $(BUILD)/suite/rawtcp/%,$(APP_OBJ))
$(BUILD)/rawtcp_probe: $(BUILD)/tests/tools/rawtcp_probe.o $(RAWTCP_OBJ) $(BUILD)/libiwengine.a
	$(CC) $(CFLAGS_ALL) $(EXTRA_LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# What the build and the tests need (Debian packages, installed only when missing; root or sudo).
# make test adds what the siw guest needs on the host (qemu, the pinned kernel's headers and
# source), so the README's two commands are the whole set-up; where they cannot be installed
# (no root, no sudo) the siw stage says SKIP and why, except under CI=true, where it fails.
deps:
	@sh tools/install-deps.sh

test-deps: deps
	@sh tools/siw-guest/host-deps.sh || [ "$${CI:-}" != true ] || \
		{ echo "make test: CI=true and the siw guest's host packages are missing"; exit 1; }

# Builds only what it runs, NPROC files at a time (the test binaries are make test's).
run: deps
	$(MAKE) -j$(NPROC) $(BUILD)/iwspec
	$(BUILD)/iwspec run --profile all --report out/latest --html --pcap

# Every check, in three lanes side by side (tools/test-all.sh: stage times, logs in build/test-logs/).
test: test-deps
	@sh tools/test-all.sh

test-unit: $(BUILD)/run_tests
	$(BUILD)/run_tests -j 8

# Each CLI script is a target of its own (cli.NAME runs tests/cli/NAME.sh with the binary
# CLI_IWSPEC, under CLI_ENV), so a stage can run its scripts side by side (test-cli CLI_JOBS at
# a time), -k: a failing script does not hide those after it; --output-sync keeps each one's
# output whole.
CLI_JOBS    ?= 3
CLI_IWSPEC  ?= $(BUILD)/iwspec
CLI_ENV     ?=
cli_run      = $(MAKE) --no-print-directory -k -j$(1) --output-sync=target
cli.%:
	$(CLI_ENV) IWSPEC=$(CLI_IWSPEC) REFLECTOR=$(BUILD)/iwspec-reflector sh tests/cli/$*.sh

# The CLI scripts split between the two builds (docs/testing.md, "Which build runs which check"):
# each runs once. These run on the ordinary build; run.sh, vectors.sh, netfuzz.sh, report.sh and
# crosscheck.sh run under ASan+UBSan in test-san-cli, and test-hostile holds the scripts that mostly
# wait on DUT timers. decode_capture.sh runs here as well as inside vectors.sh under the sanitizers,
# which skip its memory bounds and its 100000 connections. CLI_ALL=1 runs every CLI script here.
CLI_GCC     := check_octets rows siw_series siw_oneoffs siw_guest_save siw_gcda siw_coverage workflows mutants decode_capture tshark_check rawtcp coverage rping perftest install reflector wait_dut fuzz_console fuzz_declared fuzz_shards
CLI_HOSTILE := fuzz_hostile hostile hostile_run lab_walkthrough
CLI_SAN     := run vectors netfuzz report crosscheck
test-cli: $(BUILD)/iwspec
	sh tools/check-octets.sh
	@if [ -f /usr/include/rdma/rdma_cma.h ]; then $(MAKE) --no-print-directory reflector; fi
	@$(call cli_run,$(CLI_JOBS)) $(addprefix cli.,$(CLI_GCC))
	@if [ -n "$(CLI_ALL)" ]; then $(MAKE) --no-print-directory test-hostile SAN_CLI_IWSPEC=$(BUILD)/iwspec SAN_CLI_ENV= san-cli; fi

# The CLI scripts that mostly wait (hostile DUTs' timeouts, a lab's loop against iwspec serve's
# mutants): minutes of waiting for little CPU, so make test runs them beside the CPU-bound stages
# (tools/test-all.sh), all four at once.
test-hostile: $(BUILD)/iwspec
	@$(call cli_run,4) $(addprefix cli.,$(CLI_HOSTILE))

# Real Linux siw (tools/siw-guest/) as the DUT in both roles, against duts/linux-siw.*.expect.
# COVERAGE=1: every guest runs siw profiled, and out/interop/linux-siw/coverage/ gets its line,
# function and branch coverage per pass and in all (tools/siw-guest/coverage.sh).
interop: $(BUILD)/iwspec
	IWSPEC=$(BUILD)/iwspec $(if $(filter 1,$(COVERAGE)),INTEROP_COVERAGE=1 )sh tools/interop-siw.sh

# siw's patch series (docs/interop/siw-patches/): what make interop checks, and each patch built
# in order against each kernel's headers (about 2 minutes of CPU).
.PHONY: siw-series
siw-series:
	sh tools/siw-series.sh check --build

# A fuzzing campaign against Linux siw in the guest, its kernel's console as an oracle
# (tools/fuzz-siw.sh, docs/fuzzing-network.md): SIW_FUZZ_TIME (default 10m), SIW_FUZZ_SEED (default 1),
# KASAN=1 for the sanitizer kernel (tools/siw-guest/build-kasan.sh); out/fuzz-siw/summary.{json,html}.
# It fuzzes siw-patched.ko (SIW_FUZZ_STOCK=1: Debian's siw as it is). COVERAGE=1 profiles it and steers
# the fuzzer by its coverage (FEEDBACK=0: measured, not steered), with SIW_FUZZ_CORPUS=DIR a corpus
# that lasts from night to night; out/fuzz-siw/coverage/, with the suite's too after
# make interop COVERAGE=1.
# SHARD=I/N: this machine's part of a campaign over N (seed S*N + I - 1), in out/fuzz-siw-shard-I-of-N/;
# tools/fuzz-siw-merge.sh merges the shards (.github/workflows/fuzz-siw.yml runs both).
.PHONY: fuzz-siw
fuzz-siw: $(BUILD)/iwspec
	IWSPEC=$(BUILD)/iwspec bash tools/fuzz-siw.sh --time $(or $(SIW_FUZZ_TIME),10m) --seed $(or $(SIW_FUZZ_SEED),1) \
		$(if $(SHARD),--shard $(SHARD) --out out/fuzz-siw-shard-$(subst /,-of-,$(SHARD))) \
		$(if $(filter 1,$(SIW_FUZZ_STOCK)),--stock) \
		$(if $(filter 1,$(COVERAGE)),--coverage $(if $(filter 0,$(FEEDBACK)),--no-feedback --out out/fuzz-siw-nofeedback) \
			$(if $(SIW_FUZZ_CORPUS),--corpus $(SIW_FUZZ_CORPUS)) \
			$(if $(wildcard out/interop/linux-siw/coverage/*.info),--with-suite out/interop/linux-siw/coverage)) \
		$(if $(filter 1,$(KASAN)),--kasan --out out/fuzz-siw-kasan)

# The whole suite against the built-in DUT in every profile, for each DUT configuration
# (markers yes/no x crc required/optional-off) and each resegmentation mode; fails on any FAIL
# or ERROR (tools/conformance.sh; JOBS runs at a time, default 2, each 40 cases at a time).
# make test sets CONFORMANCE_MODES to the columns other than random, which test-san-conformance runs.
CONFORMANCE_MODES ?= none octet random coalesce
conformance: $(BUILD)/iwspec
	IWSPEC=$(BUILD)/iwspec MODES="$(CONFORMANCE_MODES)" sh tools/conformance.sh

# The mutant zoo (docs/mutants.md): the suite against the clean built-in DUT and every mutant;
# fails on a clean FAIL or ERROR, a surviving mutant, one caught only by cases citing other
# requirements, or a matrix unlike tests/mutants.expect (the matrix of the commit before: made
# once and compared, where --repeat 2 made it twice, the same determinism check for half the
# CPU). The matrix goes to out/mutants/. The runs mostly wait on the DUTs' timers: 16 at a time
# keep 2 cores busy (86 s here).
mutants: $(BUILD)/iwspec
	$(BUILD)/iwspec mutants --jobs 16 --expect tests/mutants.expect --report out/mutants

# Regenerates the checked-in vector set (vectors/*.json, vectors/pcap, vectors/schema).
vectors: $(BUILD)/iwspec
	$(BUILD)/iwspec vectors --out vectors

# One sanitizer build (ASan+UBSan) serves both the sanitizer test pass and the libFuzzer targets
# (fuzz/fuzz.mk links them from these objects): with clang it also carries libFuzzer's coverage
# instrumentation, which costs the tests little and saves compiling the whole tree twice.
SAN_CC   := $(shell command -v $(FUZZ_CC) >/dev/null 2>&1 && echo $(FUZZ_CC) || echo $(CC))
SAN_OPT  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
            $(if $(filter $(FUZZ_CC),$(SAN_CC)),-fsanitize=fuzzer-no-link)
.PHONY: san-build
san-build:
	@$(MAKE) --no-print-directory -j$(NPROC) BUILD=build-san CC=$(SAN_CC) OPT="$(SAN_OPT)" all

# Under AddressSanitizer and UndefinedBehaviorSanitizer: the unit tests (test-san-unit), the CLI
# scripts that feed the binary its inputs: command lines, hex, captures, vector files, fuzzed
# streams, reports (test-san-cli), and the random-resegmentation column of the conformance matrix
# (test-san-conformance; make conformance runs the other columns when make test runs both,
# tools/test-all.sh). These run here only, not on the ordinary build as well: each check once, in
# the build that sees the most. `make test-san` runs the three; make test spreads them over its
# lanes. run_tests in eight workers, as on the ordinary build: with no per-connection block over
# 128 KB left, ASan serves them from its caches, and more workers no longer multiply the CPU as
# they did when each connection mapped and unmapped megabytes (TLB flushes across both cores);
# the tests mostly wait on timeouts (8 s with 8 workers, 22 s with 2, about 7 s of CPU either way).
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
SAN_CLI_IWSPEC ?= build-san/iwspec
SAN_CLI_ENV    ?= $(SAN_ENV)
# The Debian packages built, checked by lintian and installed into a scratch root (tests/cli/deb.sh):
# a stage of its own, after the siw guest has stopped (tools/test-all.sh): its compile beside the
# responder pass is load under which siw's races show.
.PHONY: test-deb
test-deb: $(BUILD)/iwspec
	@$(MAKE) --no-print-directory cli.deb

test-san: test-san-unit test-san-cli test-san-conformance

test-san-unit: san-build
	$(SAN_ENV) build-san/run_tests -j 8

test-san-cli: san-build
	@$(MAKE) --no-print-directory san-cli

# Its five configurations at once: 19 s where two at a time took 33 (21 s of CPU either way), so
# that beside test-san-cli and test-san-unit it no longer ends make test last.
test-san-conformance: san-build
	$(SAN_ENV) IWSPEC=build-san/iwspec MODES=random JOBS=5 sh tools/conformance.sh --jobs 8

# The CLI scripts of the sanitizer pass (CLI_ALL=1 make test-cli runs them on the ordinary build),
# all five at once: each waits on its DUTs for about half its time (13-18 s a script alone; the
# five took 27 s two at a time, 18 s at once, 12 s of CPU).
san-cli:
	@$(call cli_run,5) CLI_IWSPEC=$(SAN_CLI_IWSPEC) CLI_ENV="$(SAN_CLI_ENV)" $(addprefix cli.,$(CLI_SAN))

$(BUILD)/tests/bench/%: tests/bench/%.c $(BUILD)/libiwengine.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(call layer_inc,$<) -O3 -o $@ $^ $(LDLIBS_ALL) -lisal

bench: $(BENCH_SRC:%.c=$(BUILD)/%) $(BUILD)/iwspec
	@for b in $(BENCH_SRC:%.c=$(BUILD)/%); do $$b || exit 1; done
	@$(BUILD)/iwspec fuzz --bench --time 6s
	@sh tests/bench/netfuzz_profile.sh $(BUILD)/iwspec
	@$(MAKE) --no-print-directory fuzz-bench

# The manual pages, from the binaries' own --help (tools/gen-man.sh, help2man): rebuilt with them.
MANDIR ?= $(PREFIX)/share/man
.PHONY: man install-reflector
man: $(BUILD)/man/iwspec.1
$(BUILD)/man/iwspec.1: $(BUILD)/iwspec tools/gen-man.sh
	sh tools/gen-man.sh iwspec $(BUILD)/iwspec $@
$(BUILD)/man/iwspec-reflector.1: $(BUILD)/iwspec-reflector tools/gen-man.sh
	sh tools/gen-man.sh iwspec-reflector $(BUILD)/iwspec-reflector $@

# The binary, and what it reads at run time: the case catalog (found as ../share/iwspec/cases
# from the binary) and the vector set (its hash goes into every report's provenance).
# Its manual page and its bash completion (the commands and options read from --help as a word is
# completed: tools/completion/iwspec.bash).
install: $(BUILD)/iwspec $(BUILD)/man/iwspec.1
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/iwspec
	install -m 755 $(BUILD)/iwspec $(DESTDIR)$(PREFIX)/bin/iwspec
	rm -rf $(DESTDIR)$(PREFIX)/share/iwspec/cases $(DESTDIR)$(PREFIX)/share/iwspec/vectors
	cp -R cases $(DESTDIR)$(PREFIX)/share/iwspec/cases
	install -d $(DESTDIR)$(PREFIX)/share/iwspec/vectors
	cp -R vectors/*.json vectors/schema vectors/pcap $(DESTDIR)$(PREFIX)/share/iwspec/vectors/
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 $(BUILD)/man/iwspec.1 $(DESTDIR)$(MANDIR)/man1/iwspec.1
	install -m 644 tools/completion/iwspec.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/iwspec

install-reflector: $(BUILD)/iwspec-reflector $(BUILD)/man/iwspec-reflector.1
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BUILD)/iwspec-reflector $(DESTDIR)$(PREFIX)/bin/iwspec-reflector
	install -m 644 $(BUILD)/man/iwspec-reflector.1 $(DESTDIR)$(MANDIR)/man1/iwspec-reflector.1

# The Debian packages iwspec and iwspec-reflector (debian/): built from a copy of the tree's files
# (git's, the uncommitted ones too) in build/deb/ with dpkg-buildpackage, then checked by lintian;
# build/deb/*.deb. Needs debhelper, lintian and the build dependencies of debian/control.
.PHONY: deb
deb:
	@sh tools/build-deb.sh

clean:
	rm -rf build build-san build-fuzz out

-include $(ENGINE_OBJ:.o=.d) $(APP_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d) $(BUILD)/suite/cli/main.d \
	$(BUILD)/tests/tools/rawtcp_probe.d
