#!/bin/sh
# `make interop`: the whole suite against a real iWARP stack, Linux siw, in both roles.
#
#   1. builds the reflector (reflector/, librdmacm + libibverbs) and the guest (tools/siw-guest/
#      build.sh: Debian's kernel, siw.ko built from the same source, rdma-core; cached in build/);
#   2. for each pass boots a fresh guest under qemu on a TAP link inside network namespace
#      iwspec-siw (a fresh kernel each time: siw's listener bug F3 corrupts kernel memory, and
#      one pass must not inherit another's damage; after the first boot of a kind, "boots" is a
#      restore of the guest saved the moment that boot was ready, about a second instead of 7
#      to 12 under TCG: tools/siw-guest/boot.sh). The exception: a pass after one of the two
#      short rping passes or the perftest passes, which leave nothing behind (rping and perftest
#      exit after each case or connection), reuses its guest, and the findings pass (the F3
#      cases) comes last for that reason: one boot for the six instead of six;
#   3. runs every case with duts/linux-siw.conf (siw as responder) and
#      duts/linux-siw-initiator.conf (siw as initiator), then the rping cases against rdma-core's
#      rping on siw (duts/linux-siw-rping*.conf, docs/rping.md), then the DDP and RDMAP cases
#      against Debian's perftest server on siw, its three modes side by side (the `perftest`
#      pass: duts/linux-siw-perftest-*.conf, docs/ulp-profiles.md), then the findings pass (the
#      cases the responder configuration disables as F3, alone), inside that namespace, writing
#      out/interop/linux-siw/{responder,initiator,findings,rping-*,perftest-*}/ (HTML, JSON,
#      JUnit, pcaps);
#   4. compares each pass with its committed baseline (duts/linux-siw.*.expect): any verdict that
#      changed, siw's or iwspec's, fails the run; a case that differs once and matches when run
#      again alone is a one-off, printed with the cause duts/linux-siw.oneoffs names for it, and
#      one with no cause there fails the run too (INTEROP_ONEOFFS_STRICT=0, make test's: a NOTE).
#      The reruns of a pass whose guest's kernel reported (F3's damage) run on a fresh guest;
#   5. the patched pass: a fresh guest running siw-patched.ko (siw with the fixes of
#      docs/interop/siw-patches/, built by build.sh), the responder configuration, the cases of
#      duts/linux-siw.patched.cases only (those the baselines attribute to the patched findings,
#      and a fixed sample), against duts/linux-siw.patched.expect; then
#      tools/siw-patched-flips.sh prints the verdicts each patch changed and fails the run if a
#      patch changed any other. IWSPEC_SIW_PATCHES=0002 (or =F1,F8) builds the module with those
#      patches only and checks exactly their flips (a proof per patch, by hand);
#   6. the fuzzing smoke, on a guest of its own running siw-patched.ko profiled (what the nightly
#      campaign fuzzes): 30 s of `iwspec fuzz` steered by siw's coverage, with the guest's
#      console as an oracle (tools/fuzz-siw.sh --smoke --coverage, docs/fuzzing-network.md); it
#      fails on a kernel report duts/linux-siw.kernel-baseline does not allow, and when the
#      coverage path did not work end to end (the fuzzer's reads grow, the counters come back
#      as lines of siw's sources: docs/interop/siw-coverage.md).
#
# A machine that cannot run the guest (no qemu, no /dev/net/tun, not root) prints SKIP and
# exits 0; under CI=true that is a failure instead. INTEROP_WRITE_EXPECT=1 rewrites the
# baselines from this run (review the diff: docs/interop/linux-siw.md explains each verdict).
#
# After the perftest pass, on its guest: perftest-initiator, Debian's perftest client on siw
# (`ib_MODE_bw -R -F -n 5`, siw the initiator) against iwspec as perftest's server, the three modes
# side by side (duts/linux-siw-perftest-*-initiator.conf, docs/ulp-profiles.md); alone,
# perftest-send-initiator, perftest-write-initiator, perftest-read-initiator. make test leaves it
# out (INTEROP_SKIP_PASSES, set by tools/test-all.sh), to stay within its time.
#
# After it, on the same guest: perftest-send-lat, ib_send_lat's server on siw (`ib_send_lat -R -s
# 65536`, which answers each Send it receives with one of its own: duts/linux-siw-perftest-send-lat.conf);
# make test leaves it out too.
#
# INTEROP_COVERAGE=1 (`make interop COVERAGE=1`): every guest runs the profiled siw (boot.sh
# --coverage), its counters are read at the end of each pass (and before a pass's guest is
# replaced), and out/interop/linux-siw/coverage/ gets siw's line, function and branch coverage per
# pass and for all together, per kind of module (stock/, patched/: tools/siw-guest/coverage.sh
# report), and suite/: every pass on stock siw's lines (the patched passes moved onto them).
#
#   IWSPEC=build/iwspec sh tools/interop-siw.sh [responder|initiator|findings|rping-responder|rping-initiator|perftest|perftest-send|perftest-write|perftest-read|perftest-any|perftest-initiator|perftest-MODE-initiator|perftest-send-lat|patched|patched-f32|fuzz-smoke]...
set -u
DIR=$(cd "$(dirname "$0")/.." && pwd)
cd "$DIR" || exit 2
IWSPEC=${IWSPEC:-build/iwspec}
NETNS=${IWSPEC_NETNS:-iwspec-siw}
# Another namespace (two guests side by side from one tree) keeps its reports and its guest's
# console apart too.
OUT=out/interop/linux-siw${IWSPEC_NETNS:+-$IWSPEC_NETNS}
CONSOLE=$(sh tools/siw-guest/boot.sh --run-dir)/console.log
PASSES=${*:-responder initiator rping-responder rping-initiator perftest perftest-any perftest-initiator perftest-send-lat findings fuzz-smoke patched patched-f32}
# make test leaves out what its time cannot hold (tools/test-all.sh: perftest-initiator, 37 to 66 s;
# perftest-any, whose cases the four server passes judge already; perftest-send-lat; patched-f32,
# a guest more).
if [ $# -eq 0 ] && [ -n "${INTEROP_SKIP_PASSES:-}" ]; then
	kept=
	for p in $PASSES; do
		case " $INTEROP_SKIP_PASSES " in
		*" $p "*) echo "interop: $p: left out (INTEROP_SKIP_PASSES; make interop runs it)" ;;
		*) kept="$kept $p" ;;
		esac
	done
	PASSES=$kept
fi
# Whether a pass after $1 boots a guest of its kind ($2, the boot options: --patched or none):
# saving the guest when it is ready (boot.sh) pays only then.
later_boot_of_kind() {
	after=no
	for p in $PASSES; do
		if [ $after = yes ]; then
			case $p in patched|patched-f32) k=--patched ;; *) k= ;; esac
			[ "$k" = "$2" ] && return 0
		fi
		[ "$p" = "$1" ] && after=yes
	done
	return 1
}
# The passes whose guest the next pass may reuse (see 2. above).
LEAVE_CLEAN="rping-responder rping-initiator perftest perftest-send perftest-write perftest-read perftest-any perftest-initiator perftest-send-initiator perftest-write-initiator perftest-read-initiator perftest-send-lat"
JOBS=${INTEROP_JOBS:-8}
# The perftest passes start a perftest server per connection (two or three per case, each
# through the agent) where the reflector passes start one listener per case.
PERFTEST_JOBS=${INTEROP_PERFTEST_JOBS:-4}

TAG=interop SKIP_STATUS=0
. tools/siw-guest/driver.sh
guest_host_ready

# `iwspec decode` reads each pass's pcaps on its own: where the run failed a case on the pad
# octets (F1, pinned [MPA-4-02] in the baseline) the decoder must report MPA-4-02 in that
# capture, and where the case passed it must not: the decoder and the run agree on siw.
decode_agrees() {
	# Only the DUT's own octets count: a case may send non-zero pad octets itself.
	role=responder
	case $1 in initiator*|rping-initiator*|perftest-*-initiator*) role=initiator ;; esac
	n=0
	mism=0
	skipped=0
	for f in "$OUT/$1"/pcap/*.pcap; do
		[ -f "$f" ] || continue
		id=$(basename "$f" .pcap)
		# A one-off's capture shows the race, not the behaviour its baseline line explains.
		case " $3 " in *" $id "*) skipped=$((skipped + 1)); continue ;; esac
		line=$(grep "^$id " "$2" 2>/dev/null)
		"$IWSPEC" decode --details "$f" >"$OUT/decode.tmp" 2>&1
		# perftest's comm connections (the wire log's 32 and up, suite/run/exec_perftest.c) are
		# the means of the case, noted and not judged: siw's pad octets (F1) show on them in
		# every case. The capture numbers connections in the order the wire log opens them.
		comm=$(grep "^    {\"id\": \"$id\"" "$OUT/$1/results.json" 2>/dev/null |
			grep -o '"conn": [0-9]*, "t_us": [0-9]*, "what": "connect"' |
			awk '{ sub(/,/, "", $2); n++; if ($2 + 0 >= 32) printf " %d ", n }')
		pad=$(awk -v role=$role -v comm="$comm" '/^connection [0-9]*:/ { c = $2; sub(/:/, "", c) }
			/^(initiator|responder) [0-9]/ { dir = $1 }
			dir == role && /VIOLATION MPA-4-02/ && index(comm, " " c " ") == 0 { print "yes"; exit }' "$OUT/decode.tmp")
		pad=${pad:-no}
		case $line in
		*" FAIL : [MPA-4-02]"*) want=yes ;;
		*" PASS"|*" PASS :"*) want=no ;;
		*) continue ;;
		esac
		n=$((n + 1))
		if [ $pad != $want ]; then
			say "decode disagrees on $id: pad violation $pad, the run says $want" >&2
			mism=$((mism + 1))
		fi
	done
	rm -f "$OUT/decode.tmp"
	say "$1: iwspec decode agrees with the run on $((n - mism)) of $n captures (pad octets, F1)${3:+; $skipped one-off capture(s) not compared}"
	[ $mism -eq 0 ]
}

t0=$(now)
mkdir -p build "$OUT"
make --no-print-directory reflector >build/reflector-build.log 2>&1 || {
	cat build/reflector-build.log >&2
	say "FAIL: cannot build the reflector (apt-get install librdmacm-dev libibverbs-dev)" >&2
	exit 1
}
sh tools/siw-guest/build.sh --reflector build/iwspec-reflector
rc=$?
[ $rc -eq 77 ] && skip "the guest cannot be built here (see above)"
[ $rc -eq 0 ] || { say "FAIL: the guest build failed" >&2; exit 1; }
t_build=$(($(now) - t0))
trap 'sh tools/siw-guest/stop.sh >/dev/null 2>&1' EXIT INT TERM
# The guest's kernel (SIW_KERNEL, kernel.env) and its build directory: siw-patched.missing there
# says the series does not apply to this kernel, and the patched passes SKIP saying why.
. tools/siw-guest/kernel.env
GUEST_BUILD=build/siw-guest${GUEST_SUBDIR:+/$GUEST_SUBDIR}
# The patch series as it would be mailed (tools/siw-series.sh: numbering, Fixes:, applies to
# every kernel source of kernel.env, checkpatch.pl --strict of the guest's source, the table in
# docs/interop/linux-siw.md), beside the passes: about 20 s, mostly unpacking the sources once.
rm -f "$OUT/siw-series.rc" "$OUT/unexplained"
(sh tools/siw-series.sh check >"$OUT/siw-series.log" 2>&1; echo $? >"$OUT/siw-series.rc") &
series_pid=$!

# Coverage (INTEROP_COVERAGE=1): the kind of siw the running guest has, and each pass's tracefiles.
COVERAGE=${INTEROP_COVERAGE:-0}
COVOPT=
[ "$COVERAGE" = 1 ] && COVOPT=--coverage
COVDIR=$OUT/coverage
[ "$COVERAGE" = 1 ] && rm -rf "$COVDIR" && mkdir -p "$COVDIR"
cov_kind=stock
cov_n=0
cov_on=no
# cov_take LABEL: the running guest's counters since its boot or the last take, as LABEL's.
cov_take() {
	[ "$COVERAGE" = 1 ] || return 0
	[ $cov_on = yes ] || return 0
	cov_n=$((cov_n + 1))
	bash tools/siw-guest/coverage.sh capture $cov_kind "$COVDIR/$1.$cov_n.info" --reset ||
		{ say "FAIL: $1: siw's coverage could not be read (above)" >&2; bad=1; }
}
# cov_take_prev: the pass before is over (fuzz-siw.sh reads the smoke's itself; patched-f32's
# guest is not profiled, cov_take skips it).
cov_take_prev() {
	[ -n "$prev" ] && [ "$prev" != fuzz-smoke ] && cov_take "${prev%-f32}"
}
# fresh_guest NAME: NAME's coverage so far, then a fresh guest of the running kind for its reruns
# (a restore, a second); 1 when none came up.
fresh_guest() {
	cov_take "$1"
	sh tools/siw-guest/stop.sh >/dev/null 2>&1
	IWSPEC_GUEST_SAVE=0 sh tools/siw-guest/boot.sh $bootopt $([ $cov_on = yes ] && echo --coverage) && return 0
	say "FAIL: $1: no fresh guest for the reruns" >&2
	return 1
}
# rerun_case ID: in run_cases, the case once more, alone, against its own baseline line (the
# pass's $name, $rconf); iwspec's status.
rerun_case() {
	ip netns exec "$NETNS" "$IWSPEC" run --dut-config "$rconf" --cases "$1" --no-progress \
		--report "$OUT/$name-rerun" --expect "$OUT/$name-rerun.expect" \
		--write-expect "$OUT/$name-rerun.got" >"$OUT/$name-rerun.log" 2>&1
}

# Runs cases of one pass: $1 name (log $OUT/$1.log, reports $OUT/$1/), $2 configuration, $3 the
# --cases selection (empty: all), $4 baseline, $5 cases at a time. Sets rc (iwspec's exit status,
# 0 when every difference was a one-off) and oneoffs. $OUT/$1.got holds the run's verdicts (a
# one-off's from its rerun); with INTEROP_WRITE_EXPECT=1 nothing is compared.
run_cases() {
	rm -f "$OUT/$1.got"
	set -- "$1" "$2" "$3" "$4" "$5" run --dut-config "$2" --jobs "$5" --no-progress --html --pcap \
		--report "$OUT/$1" --write-expect "$OUT/$1.got"
	name=$1
	rconf=$2
	rexpect=$4
	[ -n "$3" ] && set -- "$@" --cases "$3"
	shift 5
	if [ "${INTEROP_WRITE_EXPECT:-}" = 1 ]; then
		:
	elif [ -f "$rexpect" ]; then
		set -- "$@" --expect "$rexpect"
	else
		say "FAIL: no baseline $rexpect (INTEROP_WRITE_EXPECT=1 writes one from a run)" >&2
		rc=2
		return
	fi
	ip netns exec "$NETNS" "$IWSPEC" "$@" >"$OUT/$name.log" 2>&1
	rc=$?
	oneoffs=
	# A difference that does not repeat is one of siw's races or a harness bound the host's load
	# shows, which a first run cannot tell apart: each differing case runs once more, alone; only
	# one that differs again fails the pass. The one-off verdicts are printed with their cause
	# (oneoff_cause, duts/linux-siw.oneoffs), never hidden.
	rm -f "$OUT/$name.console-all.log"
	ONEOFF_CONSOLE=$CONSOLE
	if [ $rc -eq 1 ] && [ "${INTEROP_WRITE_EXPECT:-}" != 1 ]; then
		again=0
		found=0
		# A guest whose kernel reported during the pass (F3's damage to siw's listener state) is
		# no place to run a case again: it refused even the reruns' connections (issue 39, a
		# fresh clone's make test). A pass that has the guest to itself reruns on a fresh one of
		# its kind (a restore, a second), and the causes are read from the pass's console.
		if [ -n "${FRESH_RERUNS:-}" ] && [ "$(kernel_reports "$CONSOLE")" -gt 0 ]; then
			cp "$CONSOLE" "$OUT/$name.console-pass.log"
			ONEOFF_CONSOLE=$OUT/$name.console-pass.log
			say "$name: the guest's kernel reported during the pass (docs/interop/linux-siw.md, F3): the reruns run on a fresh guest"
			fresh_guest "$name" || { rc=2; return; }
		fi
		for id in $(sed -n '/difference.* from the baseline/,/^$/s/^    \([a-z0-9._-]*\): .*/\1/p' "$OUT/$name.log"); do
			found=$((found + 1))
			say "$name: $id differs from the baseline; running it once more, alone:"
			grep "^    $id: " "$OUT/$name.log" | sed "s/^ */interop:   first run: /"
			# Files of the pass's own: the perftest passes run side by side.
			grep "^$id " "$rexpect" >"$OUT/$name-rerun.expect"
			rerun_case "$id"
			rrc=$?
			# A rerun that reached no DUT judged nothing: its guest died under it (siw's F3
			# damage ending in a panic, a fresh clone's make test of 2026-11-29). A pass that
			# has the guest to itself gets a fresh one and runs the case once more.
			if [ $rrc -eq 3 ] && [ -n "${FRESH_RERUNS:-}" ]; then
				cp "$OUT/$name-rerun.log" "$OUT/$name-rerun-$id.unreached.log"
				say "$name: $id: the rerun reached no DUT ($(grep -m1 -o 'cannot [a-z].*' "$OUT/$name-rerun.log" | cut -c1-120)); on a fresh guest, once more"
				fresh_guest "$name" || { rc=2; return; }
				rerun_case "$id"
				rrc=$?
			fi
			case $rrc in
			0) oneoff_cause "$name" "$id" "$(grep "^    $id: " "$OUT/$name.log" | head -1)"
			   oneoffs="$oneoffs $id"
			   # The rerun's verdict is the one the pass keeps.
			   grep -v "^$id[ @]" "$OUT/$name.got" >"$OUT/$name-rerun.tmp"
			   grep "^$id[ @]" "$OUT/$name-rerun.got" >>"$OUT/$name-rerun.tmp"
			   mv "$OUT/$name-rerun.tmp" "$OUT/$name.got" ;;
			*) again=1; grep -A3 'from the baseline' "$OUT/$name-rerun.log" | grep "$id" | sed 's/^ */interop:   rerun: /' ;;
			esac
		done
		[ $again -eq 0 ] && [ $found -gt 0 ] && rc=0
		# The pass's console, then (pass_console) the fresh guest's, as one file for the pass.
		[ "$ONEOFF_CONSOLE" = "$CONSOLE" ] ||
			{ cat "$ONEOFF_CONSOLE"; echo "--- the reruns, on a fresh guest ---"; } >"$OUT/$name.console-all.log"
	fi
	sed -n '/^  verdict/,/^  total/p' "$OUT/$name.log" | tr -s ' ' | tr '\n' ' ' | sed "s/^/interop: $name:/"
	echo
}

# pass_console PASS: keeps the guest's console of the pass (with its reruns' on a fresh guest).
pass_console() {
	if [ -f "$OUT/$1.console-all.log" ]; then
		cat "$CONSOLE" >>"$OUT/$1.console-all.log" 2>/dev/null
		mv "$OUT/$1.console-all.log" "$OUT/$1.console.log"
	else
		cp "$CONSOLE" "$OUT/$1.console.log" 2>/dev/null
	fi
}

# oneoff_cause PASS CASE FIRST-RUN-LINE: says the cause duts/linux-siw.oneoffs names for a one-off
# (a difference its rerun did not repeat), or that none does: those go to $OUT/unexplained, which
# fails the run under INTEROP_ONEOFFS_STRICT=1 (the end of the script). A cause that needs a
# kernel report looks for it in the pass's console ($ONEOFF_CONSOLE: run_cases keeps it when the
# reruns moved to a fresh guest; else the guest's, $CONSOLE).
oneoff_cause() {
	cause=
	# Fields are separated by " | " (a regular expression's own | has no spaces around it).
	while IFS="$(printf '\037')" read -r c pglob cglob re console what; do
		pass_ok=
		# The globs are case patterns, not file names: no pathname expansion of "*".
		set -f
		for g in $(echo "$pglob" | tr ',' ' '); do
			# shellcheck disable=SC2254 # the file's globs
			case $1 in $g) pass_ok=1 ;; esac
		done
		set +f
		# shellcheck disable=SC2254
		case $2 in $cglob) ;; *) pass_ok= ;; esac
		# A cause the guest's console must show (its kernel's report) is named only when it does.
		[ "$console" = - ] || grep -Eq -- "$console" "${ONEOFF_CONSOLE:-$CONSOLE}" 2>/dev/null || pass_ok=
		if [ -n "$pass_ok" ] && printf '%s\n' "$3" | grep -Eq -- "$re"; then
			cause="$c: $what"
			break
		fi
	done <<CAUSES
$(awk -F ' [|] ' 'NF >= 6 && $1 !~ /^#/ { printf "%s\037%s\037%s\037%s\037%s\037%s\n", $1, $2, $3, $4, $5, $6 }' duts/linux-siw.oneoffs)
CAUSES
	if [ -n "$cause" ]; then
		say "  $2 matches its baseline on the rerun: a one-off, $cause"
	else
		say "  $2 matches its baseline on the rerun: a one-off, UNEXPLAINED (no cause in duts/linux-siw.oneoffs matches its first run)" >&2
		echo "$1 $2" >>"$OUT/unexplained"
	fi
}

# Judges a run_cases: with INTEROP_WRITE_EXPECT=1 a FAIL verdict (exit 1) is what the baseline
# then holds; otherwise any difference that repeated fails the run. Then the decode cross-check.
judge_cases() { # $1 name, $2 baseline
	if [ "${INTEROP_WRITE_EXPECT:-}" = 1 ] && [ $rc -le 1 ]; then
		return
	fi
	if [ $rc -ne 0 ]; then
		bad=1
		grep -A12 'from the baseline' "$OUT/$1.log" | head -30 >&2
	fi
	decode_agrees "$1" "$2" "$oneoffs" || bad=1
	# One judgment, read twice: every verdict of the pass against `iwspec decode` of its capture
	# (docs/reports.md, "Cross-check with decode"); the one-offs' captures stay out, as above.
	if "$IWSPEC" crosscheck $(for id in $oneoffs; do echo "--skip $id"; done) "$OUT/$1" >"$OUT/$1.xcheck" 2>&1; then
		say "$1: $(tail -1 "$OUT/$1.xcheck")"
	else
		bad=1
		say "FAIL: $1: the verdicts and iwspec decode of the captures disagree:" >&2
		sed 's/^/  /' "$OUT/$1.xcheck" >&2
	fi
	# Read a third time, by Wireshark: every FPDU of every capture of the pass, field by field
	# against the engine (tests/cli/tshark_check.sh), in the background while the next pass runs
	# (one tshark for up to 200 captures, iwspec pcap-combine: about 0.07 s of CPU a capture);
	# tshark_results collects them before the end.
	if command -v tshark >/dev/null 2>&1; then
		rm -f "$OUT/$1.tshark" "$OUT/$1.tshark.rc"
		# At the lowest priority: the guest under TCG and the harness's timers come first (a
		# pass's one-offs grow with the host's load), and the checks catch up on idle CPU.
		(TSHARK_CASES_ONLY=1 TSHARK_CASE_DIRS="$OUT/$1" IWSPEC="$IWSPEC" nice -n 19 sh tests/cli/tshark_check.sh \
			>"$OUT/$1.tshark" 2>&1; echo $? >"$OUT/$1.tshark.rc") &
		tshark_passes="$tshark_passes $1"
	elif [ "${CI:-}" = true ]; then
		say "FAIL: tshark is missing (tools/install-deps.sh installs it)" >&2
		bad=1
	fi
}

# Waits for the passes' tshark checks and says what each found.
tshark_results() {
	wait
	for p in $tshark_passes; do
		if [ "$(cat "$OUT/$p.tshark.rc" 2>/dev/null)" = 0 ]; then
			say "$p: $(grep '^tshark-check: case pcaps:' "$OUT/$p.tshark" | sed 's/^tshark-check: //')"
		else
			bad=1
			say "FAIL: $p: Wireshark and the engine read the captures differently ($OUT/$p.tshark):" >&2
			grep -A3 '^FAIL' "$OUT/$p.tshark" | head -20 | sed 's/^/  /' >&2
		fi
	done
}

# The patched pass's cases: $OUT/patched-cases/{main,alone,initiator}/ hold links to the case
# files duts/linux-siw.patched.cases lists (iwspec run --cases DIR), the `alone` ones and those
# for siw as initiator (`initiator`) apart.
patched_case_dirs() {
	rm -rf "$OUT/patched-cases"
	mkdir -p "$OUT/patched-cases/main" "$OUT/patched-cases/alone" "$OUT/patched-cases/initiator"
	grep -r '^id: ' cases --include='*.iwt' | sed 's/^\([^:]*\):id: *\([^ ]*\).*/\2 \1/' >"$OUT/patched-ids.tmp"
	missing=
	while read -r id unpatched finding where; do
		case $id in ''|'#'*) continue ;; esac
		file=$(awk -v id="$id" '$1 == id { print $2; exit }' "$OUT/patched-ids.tmp")
		[ -n "$file" ] || { missing="$missing $id"; continue; }
		ln -s "$DIR/$file" "$OUT/patched-cases/${where:-main}/$id.iwt"
	done <duts/linux-siw.patched.cases
	rm -f "$OUT/patched-ids.tmp"
	[ -z "$missing" ] || { say "FAIL: duts/linux-siw.patched.cases names cases that do not exist:$missing" >&2; return 1; }
}

# The three perftest modes side by side on one guest, perftest's servers ($1 empty: the perftest
# pass) or its clients ($1 -initiator), started at $2: each waits out its slowest cases (20-26 s
# for a Terminate or a close siw does not send, F15, F16), not the guest, so the three servers
# took 29 s together against 75 s one after another, with the same verdicts.
# How many reports of the kernel (a WARNING, a BUG, refcount_t, an RCU stall, a general
# protection fault: suite/cli/kernel_console.h) the console file $1 holds, read as the fuzzer
# reads a guest's console.
kernel_reports() { "$IWSPEC" fuzz --console-reports "$1" 2>/dev/null | grep -c '^report'; }

# F32's proof by fix (docs/interop/linux-siw.md, F32), on siw-patched.ko: the Requests siw refuses
# at once (the 18 `key-*` cases), 4 at a time against perftest's server, whose listener has a
# backlog of 1. On siw.ko they lose connections: TCP accepts one, siw never reads its Request (no
# Reply, the port then refuses) and its close frees the listener (a kernel report). Under perftest
# these cases are not judged (their frames end perftest's run): what is checked is that no
# connection went without a Reply, no port refused, and the kernel reported nothing.
f32_proof() { # $1 the configuration, $2 the cases
	ip netns exec "$NETNS" "$IWSPEC" run --dut-config "$1" --cases "$2" --jobs "$PERFTEST_JOBS" --no-progress \
		--report "$OUT/patched-f32" >"$OUT/patched-f32.log" 2>&1
	sleep 2
	cp "$CONSOLE" "$OUT/patched-f32.console.log" 2>/dev/null
	r=$OUT/patched-f32/results.json
	[ -f "$r" ] || { say "FAIL: patched-f32: no results (see $OUT/patched-f32.log)" >&2; bad=1; return; }
	n=$(jq '.cases | length' "$r")
	noreply=$(jq -r '.cases[] | .wire[]? | select(.what == "ex_note") | .summary' "$r" |
		grep -c "expected a Reply frame; nothing arrived")
	refused=$(jq -r '.cases[] | select(.verdict == "FAIL") | .reason' "$r" | grep -c "no longer accepts")
	kernel=$(kernel_reports "$OUT/patched-f32.console.log")
	say "patched-f32: $n cases, $noreply connections without a Reply, $refused refused ports, $kernel kernel reports (siw.ko: 1-4, 1-4 and 2-5 in each of 3 runs)"
	[ "$n" -ge 18 ] && [ "$noreply" -eq 0 ] && [ "$refused" -eq 0 ] && [ "$kernel" -eq 0 ] ||
		{ say "FAIL: patched-f32: siw-patched.ko still loses connections (F32); the guest's console: $OUT/patched-f32.console.log" >&2; bad=1; }
}

perftest_modes() {
	pids=
	n0=$(wc -l <"$CONSOLE" 2>/dev/null || echo 0)
	for m in send write read; do
		p=perftest-$m$1
		(run_cases $p duts/linux-siw-$p.conf "" duts/linux-siw.$p.expect "$PERFTEST_JOBS"
		 echo "$rc" >"$OUT/$p.rc"; echo "$oneoffs" >"$OUT/$p.oneoffs") >"$OUT/$p.say" 2>&1 &
		pids="$pids $!"
	done
	wait $pids
	t_suite=$((t_suite + $(now) - $2))
	cp "$CONSOLE" "$OUT/perftest$1.console.log" 2>/dev/null
	# F32: a connection siw never accepted frees perftest's listener when it is closed (a
	# startup without a Reply, seen as a one-off under host load); the kernel then holds a
	# freed endpoint, so the next pass gets a fresh guest instead of this one.
	tail -n +$((n0 + 1)) "$CONSOLE" >"$OUT/perftest$1.console-passes.log" 2>/dev/null
	if [ "$(kernel_reports "$OUT/perftest$1.console-passes.log")" -gt 0 ]; then
		say "perftest$1: the guest's kernel reported on its console during the passes (F32, docs/interop/linux-siw.md): the next pass boots a guest of its own"
		prev=perftest-f32
	fi
	for m in send write read; do
		p=perftest-$m$1
		cat "$OUT/$p.say"
		rc=$(cat "$OUT/$p.rc" 2>/dev/null || echo 2)
		oneoffs=$(cat "$OUT/$p.oneoffs" 2>/dev/null)
		expect=duts/linux-siw.$p.expect
		if [ "${INTEROP_WRITE_EXPECT:-}" = 1 ] && [ -f "$OUT/$p.got" ]; then
			cp "$OUT/$p.got" "$expect"
			say "$p: baseline written: $expect (add each FAIL's finding: docs/interop/linux-siw.md)"
		fi
		judge_cases $p "$expect"
	done
	say "perftest$1: send, write and read side by side: exit $(for m in send write read; do cat "$OUT/perftest-$m$1.rc"; done | tr '\n' ' ')in $(($(now) - $2)) s; reports in $OUT/perftest-*$1/, the guest's console in $OUT/perftest$1.console.log"
}

bad=0
tshark_passes=
prev=
t_boot=0
t_suite=0
for pass in $PASSES; do
	bootopt=
	cov_take_prev
	if [ $pass = fuzz-smoke ]; then
		# 6. above: a guest of its own, the patched siw profiled; the last of its kind (no save).
		ts=$(now)
		smokeopt=
		[ -f "$GUEST_BUILD/siw-patched.missing" ] && smokeopt=--stock
		IWSPEC_GUEST_SAVE=0 IWSPEC=$IWSPEC bash tools/fuzz-siw.sh --smoke --coverage $smokeopt --out "$OUT/fuzz-smoke" >"$OUT/fuzz-smoke.log" 2>&1
		frc=$?
		prev=$pass
		t_suite=$((t_suite + $(now) - ts))
		grep -E '^fuzz-siw: (segment [0-9]*: exit|KERNEL|FAIL)' "$OUT/fuzz-smoke.log" | sed 's/^fuzz-siw: /interop: fuzz-smoke: /'
		say "fuzz-smoke: exit $frc in $(($(now) - ts)) s; log $OUT/fuzz-smoke.log, findings in $OUT/fuzz-smoke/"
		[ $frc -eq 0 ] || { say "FAIL: fuzz-smoke: a kernel report the baseline does not allow, or the fuzzer failed" >&2; bad=1; }
		continue
	fi
	case $pass in
	responder) conf=duts/linux-siw.conf; sel= ;;
	initiator) conf=duts/linux-siw-initiator.conf; sel= ;;
	# rdma-core's rping in the guest instead of the reflector (docs/rping.md): its own cases.
	rping-responder) conf=duts/linux-siw-rping.conf; sel='rping.*' ;;
	rping-initiator) conf=duts/linux-siw-rping-initiator.conf; sel='rping.*' ;;
	# Debian's perftest in the guest instead of the reflector, siw its server (ib_MODE_bw -R, one
	# per connection, through the agent): the perftest profiles (docs/ulp-profiles.md). Their
	# configurations disable the MPA startup cases, which the reflector passes judge.
	perftest-send|perftest-write|perftest-read) conf=duts/linux-siw-$pass.conf; sel= ;;
	# ulp = perftest: each case against the server of the mode it needs ({perftest}), the three
	# passes' cases in one run, each verdict as its mode's pass gives it (docs/ulp-profiles.md).
	perftest-any) conf=duts/linux-siw-perftest.conf; sel= ;;
	# The three at once (below).
	perftest) conf=; sel= ;;
	# perftest's client on siw (ib_MODE_bw -R -F -n 5 through the agent, one run per connection),
	# iwspec its server: by name only. The MPA startup cases are disabled, as under the servers.
	perftest-send-initiator|perftest-write-initiator|perftest-read-initiator) conf=duts/linux-siw-$pass.conf; sel= ;;
	perftest-initiator) conf=; sel= ;;
	# ib_send_lat's server on siw (ib_send_lat -R -s 65536 through the agent, one per connection),
	# which answers each Send with one of its own: the cases that need only delivery shown
	# (`answer`) run too. After perftest-initiator, on its guest; make test leaves it out.
	perftest-send-lat) conf=duts/linux-siw-$pass.conf; sel= ;;
	findings)
		# The F3 cases, alone, from the responder configuration without their disable lines.
		sel=$(sed -n 's/^disable = \([^ ]*\) : F3 .*/\1/p' duts/linux-siw.conf | tr '\n' ',' | sed 's/,$//')
		[ -n "$sel" ] || continue
		grep -v '^disable = .* : F3 ' duts/linux-siw.conf >"$OUT/findings.conf"
		conf=$OUT/findings.conf
		;;
	# F32's proof by fix (f32_proof above), on siw-patched.ko.
	patched-f32)
		conf=$OUT/patched-f32.conf; sel='mpa.startup.resp.key-*'; bootopt=--patched
		grep -v '^disable = mpa.startup' duts/linux-siw-perftest-read.conf >"$conf"
		;;
	# siw-patched.ko, the responder configuration, the selected cases (5. above).
	patched) conf=duts/linux-siw.conf; sel=; bootopt=--patched ;;
	# By hand: the patched pass's cases on siw.ko, against the unpatched verdicts the case list
	# keeps (to check that list after the judge changed).
	unpatched) conf=duts/linux-siw.conf; sel= ;;
	*) say "unknown pass '$pass': use responder, initiator, findings, rping-responder, rping-initiator, perftest (the next three at once), perftest-send, perftest-write, perftest-read, perftest-any (ulp = perftest: each case its mode), perftest-initiator (perftest-MODE-initiator side by side), perftest-send-lat, patched, patched-f32, unpatched or fuzz-smoke" >&2; exit 2 ;;
	esac
	if [ -n "$bootopt" ] && [ -f "$GUEST_BUILD/siw-patched.missing" ]; then
		say "SKIP: $pass: the guest has no siw-patched.ko on kernel $KERNEL_ABI: $(cat "$GUEST_BUILD/siw-patched.missing")"
		continue
	fi
	tb=$(now)
	reuse=no
	case " $LEAVE_CLEAN " in *" $prev "*) [ -z "$bootopt" ] && reuse=yes ;; esac
	if [ $reuse = yes ]; then
		say "$pass: on the guest of the $prev pass (it leaves nothing behind)"
	else
		sh tools/siw-guest/stop.sh >/dev/null 2>&1
		# F32's proof by fix is made on the module as built: on the profiled one, 2 and 3
		# connections went without a Reply in 2 of 3 runs (0 in the third; 0 in every run on the
		# module as built), its timing changed by the counters (docs/interop/siw-coverage.md).
		passcov=$COVOPT
		[ $pass = patched-f32 ] && passcov=
		IWSPEC_GUEST_SAVE=$(later_boot_of_kind "$pass" "$bootopt" && echo 1 || echo 0) sh tools/siw-guest/boot.sh $bootopt $passcov
		rc=$?
		cov_on=no
		[ -n "$passcov" ] && cov_on=yes
		cov_kind=stock
		[ "$bootopt" = --patched ] && cov_kind=patched
		[ $rc -eq 77 ] && skip "the guest cannot boot here (see above)"
		[ $rc -eq 0 ] || { say "FAIL: the guest did not boot" >&2; exit 1; }
	fi
	prev=$pass
	ts=$(now)
	t_boot=$((t_boot + ts - tb))
	expect=duts/linux-siw.$pass.expect
	case $pass in
	perftest) perftest_modes "" "$ts"; continue ;;
	perftest-initiator) perftest_modes -initiator "$ts"; continue ;;
	patched-f32) f32_proof "$conf" "$sel"; t_suite=$((t_suite + $(now) - ts)); continue ;;
	esac
	if [ "$pass" != patched ] && [ "$pass" != unpatched ]; then
		jobs=$JOBS
		case $pass in perftest-*) jobs=$PERFTEST_JOBS ;; esac
		FRESH_RERUNS=yes
		run_cases "$pass" "$conf" "$sel" "$expect" "$jobs"
		FRESH_RERUNS=
		t_suite=$((t_suite + $(now) - ts))
		pass_console "$pass"
		say "$pass: exit $rc in $(($(now) - ts)) s; reports in $OUT/$pass/, the guest's console in $OUT/$pass.console.log"
		if [ "${INTEROP_WRITE_EXPECT:-}" = 1 ] && [ -f "$OUT/$pass.got" ]; then
			cp "$OUT/$pass.got" "$expect"
			say "$pass: baseline written: $expect"
		fi
		judge_cases "$pass" "$expect"
		continue
	fi

	# The patched pass. The findings the running module fixes are the ones its console names.
	all=$(sed -n 's/^[^#][^ ]* \(F[0-9]*\).*/\1/p' docs/interop/siw-patches/series | tr '\n' ' ' | sed 's/ $//')
	fixed=$(sed -n 's/^guest: siw patches: //p' "$CONSOLE" | tr -d '\r' | grep -o 'F[0-9]*' | tr '\n' ' ' | sed 's/ $//')
	if [ $pass = unpatched ]; then
		grep -q 'guest: siw module siw.ko loaded' "$CONSOLE" ||
			{ say "FAIL: unpatched: the guest did not load siw.ko" >&2; bad=1; continue; }
		fixed=
		say "unpatched: the patched pass's cases on siw.ko, against the verdicts duts/linux-siw.patched.cases keeps"
	else
		[ -n "$fixed" ] || { say "FAIL: patched: the guest's console names no siw patches" >&2; bad=1; continue; }
		say "patched: siw-patched.ko fixes $fixed$( [ "$fixed" = "$all" ] || echo " (IWSPEC_SIW_PATCHES: the series fixes $all)")"
	fi
	patched_case_dirs || { bad=1; continue; }
	# The cases of the series' findings run whichever patches the module has, those the responder
	# configuration disables (F3's break the listener) too: patched.cases puts them alone, last.
	findings_re=$(echo "$all" | sed 's/ /\\|/g')
	grep -v "^disable = .* : \($findings_re\) " "$conf" >"$OUT/$pass.conf"
	conf=$OUT/$pass.conf
	expect=duts/linux-siw.patched.expect
	pexpect=$expect
	if [ "$fixed" != "$all" ]; then
		# Some of the patches: the baseline is the committed one for the fixed findings' cases and
		# the unpatched verdicts for the rest (a proof per patch; nothing is written back).
		pexpect=$OUT/$pass-subset.expect
		sh tools/siw-patched-flips.sh expect duts/linux-siw.patched.cases "$expect" "$fixed" "$all" >"$pexpect" || {
			cat "$pexpect" >&2; bad=1; continue; }
	fi
	[ -f "$pexpect" ] || [ "${INTEROP_WRITE_EXPECT:-}" = 1 ] ||
		{ say "FAIL: no baseline $pexpect (INTEROP_WRITE_EXPECT=1 writes one from a run)" >&2; bad=1; continue; }
	[ -f "$pexpect" ] && for part in main alone initiator; do
		grep -v '^#' "$pexpect" | while read -r id rest; do
			[ -e "$OUT/patched-cases/$part/$id.iwt" ] && echo "$id $rest"
		done >"$OUT/$pass-$part.expect"
	done
	FRESH_RERUNS=yes
	run_cases $pass "$conf" "$OUT/patched-cases/main" "$OUT/$pass-main.expect" "$JOBS"
	FRESH_RERUNS=
	rc_main=$rc
	oneoffs_main=$oneoffs
	rc=0
	oneoffs=
	rm -rf "$OUT/$pass-alone" "$OUT/$pass-alone.got" "$OUT/$pass-initiator" "$OUT/$pass-initiator.got"
	if [ -n "$(ls "$OUT/patched-cases/alone")" ]; then
		run_cases $pass-alone "$conf" "$OUT/patched-cases/alone" "$OUT/$pass-alone.expect" 1
	fi
	rc_alone=$rc
	oneoffs_alone=$oneoffs
	rc=0
	oneoffs=
	# siw as initiator (F31's and F39's cases crash siw.ko's kernel: the initiator pass disables them):
	# the initiator configuration without the series' findings' disable lines, one at a time.
	if [ -n "$(ls "$OUT/patched-cases/initiator")" ]; then
		grep -v "^disable = .* : \($findings_re\) " duts/linux-siw-initiator.conf >"$OUT/$pass-initiator.conf"
		run_cases $pass-initiator "$OUT/$pass-initiator.conf" "$OUT/patched-cases/initiator" "$OUT/$pass-initiator.expect" 1
	fi
	t_suite=$((t_suite + $(now) - ts))
	pass_console "$pass"
	say "$pass: exit $rc_main, $rc_alone and $rc in $(($(now) - ts)) s; reports in $OUT/$pass/, $OUT/$pass-alone/ and $OUT/$pass-initiator/, the guest's console in $OUT/$pass.console.log"
	cat "$OUT/$pass.got" "$OUT/$pass-alone.got" "$OUT/$pass-initiator.got" 2>/dev/null >"$OUT/$pass-all.got"
	if [ "${INTEROP_WRITE_EXPECT:-}" = 1 ]; then
		[ "$fixed" = "$all" ] || { say "FAIL: INTEROP_WRITE_EXPECT=1 writes the patched baseline only with every patch (unset IWSPEC_SIW_PATCHES; not for the unpatched pass)" >&2; bad=1; continue; }
		# A case whose verdict is unchanged keeps its line's explanation (the finding it rests on),
		# with the requirement this run pinned; a changed or new one gets the run's reason.
		[ -f "$expect" ] && cp "$expect" "$OUT/patched-old.expect" || : >"$OUT/patched-old.expect"
		{ grep '^#' "$OUT/patched-old.expect" || echo "# iwspec baseline for siw-patched.ko (docs/interop/siw-patches/series) as MPA responder."
		  awk 'FNR == NR { if ($0 !~ /^#/ && NF >= 2) { v[$1] = $2; i = index($0, " : ")
				n = i ? substr($0, i + 3) : ""; sub(/^\[[^]]*\] */, "", n); note[$1] = n }; next }
			/^#/ || NF < 2 { next }
			{ id = $1; pin = ""; if (match($0, / : \[[^]]*\]/)) pin = substr($0, RSTART + 3, RLENGTH - 3) " "
			  if ((id in v) && v[id] == $2 && note[id] != "") print id " " $2 " : " pin note[id]
			  else print }' "$OUT/patched-old.expect" "$OUT/$pass-all.got"; } >"$expect"
		say "patched: baseline written: $expect (review it: each FAIL or WARN must name its finding first; tools/siw-patched-flips.sh checks it next run)"
		continue
	fi
	rc_init=$rc
	oneoffs_init=$oneoffs
	rc=$rc_main; oneoffs=$oneoffs_main; judge_cases $pass "$OUT/$pass-main.expect"
	if [ -n "$(ls "$OUT/patched-cases/alone")" ]; then
		rc=$rc_alone; oneoffs=$oneoffs_alone; judge_cases $pass-alone "$OUT/$pass-alone.expect"
	fi
	if [ -n "$(ls "$OUT/patched-cases/initiator")" ]; then
		rc=$rc_init; oneoffs=$oneoffs_init; judge_cases $pass-initiator "$OUT/$pass-initiator.expect"
	fi
	say "$pass: the verdicts the patches changed, per finding (unpatched -> patched):"
	sh tools/siw-patched-flips.sh check duts/linux-siw.patched.cases "$pexpect" "$OUT/$pass-all.got" \
		"$fixed" "$all" >"$OUT/$pass-flips.txt"
	frc=$?
	sed 's/^/interop: /' "$OUT/$pass-flips.txt"
	[ $frc -eq 0 ] || { say "FAIL: $pass: a patch changed what it should not, or a flip is unexplained (above)" >&2; bad=1; }
done
# The last pass's coverage, then every pass's together.
cov_take_prev
sh tools/siw-guest/stop.sh >/dev/null 2>&1
# The guest is gone: what is left reads captures. make test's stages that must not run beside
# the guest may start now (tools/test-all.sh, TEST_RELEASE).
[ -z "${TEST_RELEASE:-}" ] || : >"$TEST_RELEASE"
tshark_results
# (tshark_results's `wait` may have reaped it already: its status is in the file.)
wait $series_pid 2>/dev/null
if [ "$(cat "$OUT/siw-series.rc" 2>/dev/null)" = 0 ]; then
	sed -n 's/^siw-series: /interop: series: /p' "$OUT/siw-series.log" | grep -v FAIL
else
	sed 's/^siw-series: /interop: series: /' "$OUT/siw-series.log" >&2
	say "FAIL: the patch series does not hold (tools/siw-series.sh check; log $OUT/siw-series.log)" >&2
	bad=1
fi
say "times: guest build $t_build s, boots $t_boot s, suite $t_suite s"
if [ "$COVERAGE" = 1 ]; then
	# Per kind of module (their lines differ), each pass a label; then the suite on stock siw's lines.
	for kind in stock patched; do
		specs=
		for label in $(ls "$COVDIR" | sed -n 's/^\(.*\)\.[0-9]*\.info$/\1/p' | sort -u); do
			infos=
			for i in "$COVDIR/$label".*.info; do
				grep -q "^SF:.*/siw-patched-cov-src/" "$i" && k=patched || k=stock
				[ $k = $kind ] && infos="$infos${infos:+,}$i"
			done
			[ -n "$infos" ] && specs="$specs $label=$infos"
		done
		[ -n "$specs" ] || continue
		bash tools/siw-guest/coverage.sh report "$COVDIR/$kind" --title "siw ($kind) under make interop" $specs ||
			{ say "FAIL: the coverage report ($kind) failed" >&2; bad=1; }
	done
	all=
	for i in "$COVDIR"/*.info; do
		if grep -q "^SF:.*/siw-patched-cov-src/" "$i"; then
			bash tools/siw-guest/coverage.sh to-stock "$i" "${i%.info}.stock-lines" || bad=1
			all="$all${all:+,}${i%.info}.stock-lines"
		else
			all="$all${all:+,}$i"
		fi
	done
	[ -z "$all" ] || bash tools/siw-guest/coverage.sh report "$COVDIR/suite" --title "siw under make interop, on stock siw's lines" suite="$all" ||
		{ say "FAIL: the coverage report (suite) failed" >&2; bad=1; }
	say "coverage: $COVDIR/{stock,patched,suite}/summary.txt and html/"
fi
if [ -s "$OUT/unexplained" ]; then
	n=$(wc -l <"$OUT/unexplained")
	if [ "${INTEROP_ONEOFFS_STRICT:-1}" = 1 ]; then
		say "FAIL: $n one-off(s) without a cause in duts/linux-siw.oneoffs: $(tr '\n' ';' <"$OUT/unexplained")" >&2
		bad=1
	else
		say "NOTE: $n one-off(s) without a cause in duts/linux-siw.oneoffs (make interop fails on them): $(tr '\n' ';' <"$OUT/unexplained")"
	fi
fi
if [ $bad -ne 0 ]; then
	say "FAIL: see $OUT/*.log and the guests' consoles in $OUT/*.console.log" >&2
	exit 1
fi
say "siw matches its baselines"
