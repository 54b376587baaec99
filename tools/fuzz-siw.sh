#!/bin/bash
# `make fuzz-siw`: a fuzzing campaign against Linux siw in the qemu guest, with the guest kernel's
# console as an oracle (docs/fuzzing-network.md, "Fuzzing a kernel stack: siw in the guest").
#
#   bash tools/fuzz-siw.sh [--time T] [--seed S] [--out DIR] [--roles "responder initiator"]
#                        [--initiator-share PCT] [--stock] [--kasan] [--coverage] [--no-feedback]
#                        [--corpus DIR] [--with-suite DIR] [--confirm N] [--smoke] [--baseline FILE]
#                        [--on-running-guest] [--shard I/N]
#
#   1. builds the reflector and the guest (tools/siw-guest/build.sh; --kasan: build-kasan.sh's
#      sanitizer kernel too), boots a fresh guest and measures the bare connection rate to it
#      (connect, a 20-octet request and its answer through the guest's agent, close; 5 s);
#   2. fuzzes for T (default 10m; the initiator role gets PCT percent of it, default 50, when
#      the roles include it) with `iwspec fuzz --console ... --console-mark ...`: each run is
#      marked in the guest's console, and a kernel report (BUG, WARNING, Oops, refcount_t, KASAN,
#      UBSAN, RCU stall, hung task) is a finding of kind kernel, tied to the run it followed,
#      with its console excerpt. A guest that dies or stops answering ends that segment; the
#      guest is booted again and fuzzing goes on from the next run of the seed;
#   3. confirms each finding on a fresh guest (unless --smoke): a kernel finding's candidate
#      cases are replayed one by one (at most N of them, default 2; each up to three times on
#      its fresh guest) until one makes the console show the same signature again (a signature
#      any replay showed is confirmed by it); a network finding's case is replayed and must
#      fail again;
#   4. writes DIR/summary.json and DIR/summary.html (runs, runs/s, the bare rate and the ratio,
#      coverage, boots, every finding with its case, its replay and its console excerpt) and
#      prints each kernel finding with whether --baseline (default duts/linux-siw.kernel-baseline)
#      allows it.
#
# The guest runs siw with the project's patches (docs/interop/siw-patches/, siw-patched.ko): the
# faults they fix (F3 breaking the listener one run in three, the initiator's NULL dereference
# killing its connection manager) would mask whatever lies behind them and spend the night on
# restarts; --stock fuzzes Debian's siw as it is (--kasan implies it: that kernel builds siw in).
# --coverage runs the profiled module (boot.sh --coverage) and steers the fuzzer by it: `iwspec
# fuzz --kernel-coverage` keeps each program that reached siw arcs no run reached before and
# mutates the kept ones, in the corpus DIR (default OUT/corpus; give a lasting one for a nightly
# run: the next night starts where this one stopped); --no-feedback reads the same coverage but
# steers nothing (the comparison). Each segment's counters are read before its guest goes, and
# OUT/coverage/ gets siw's line, function and branch coverage of the campaign
# (tools/siw-guest/coverage.sh), with --with-suite DIR (make interop COVERAGE=1's coverage
# directory) also suite and campaign together on stock siw's lines; summary.html plots the arcs
# reached and the runs per second over the campaign's time.
#
# --shard I/N: this machine's part of a campaign spread over N (`make fuzz-siw SHARD=I/N`,
# .github/workflows/fuzz-siw.yml): `iwspec fuzz --shard`, seed S*N + I - 1, so the shards of one
# --seed never make each other's runs; tools/fuzz-siw-merge.sh merges their output directories.
#
# --smoke (make test): responder only, T default 30s (stopped 5 s past it), no confirmation, no
# bare rate, findings as found (--no-minimize); fails when the kernel says anything the baseline
# does not allow. (20 s saved nothing: the smoke then ran into its wall at 35 s, where 30 s ends
# on its own at 32-38 s, with 17 runs instead of about 22.)
# --on-running-guest: fuzz the guest that runs now (make interop's, after its findings pass)
# instead of building and booting one; a guest that dies is still booted again. Exit: 0, 1 (a kernel finding outside the baseline in
# --smoke; a harness or guest failure), 77 cannot run here (SKIP; a failure under CI=true).
# IWSPEC_NETNS names the network namespace (default iwspec-siw).
set -u
DIR=$(cd "$(dirname "$0")/.." && pwd)
cd "$DIR" || exit 2
IWSPEC=${IWSPEC:-build/iwspec}
NETNS=${IWSPEC_NETNS:-iwspec-siw}
AGENT=10.213.0.2:4790
TIME=
SEED=1
OUT=out/fuzz-siw
ROLES=
SHARE=50
KASAN=0
STOCK=0
COV=0
FEEDBACK=1
CORPUS=
WITH_SUITE=
SHARD=
CONFIRM=2
SMOKE=0
RUNNING=0
BASELINE=duts/linux-siw.kernel-baseline
while [ $# -gt 0 ]; do
	case $1 in
	--time) TIME=$2; shift ;;
	--seed) SEED=$2; shift ;;
	--out) OUT=$2; shift ;;
	--roles) ROLES=$2; shift ;;
	--initiator-share) SHARE=$2; shift ;;
	--kasan) KASAN=1 ;;
	--stock) STOCK=1 ;;
	--coverage) COV=1 ;;
	--no-feedback) FEEDBACK=0 ;;
	--corpus) CORPUS=$2; shift ;;
	--with-suite) WITH_SUITE=$2; shift ;;
	--shard) SHARD=$2; shift ;;
	--confirm) CONFIRM=$2; shift ;;
	--smoke) SMOKE=1 ;;
	--on-running-guest) RUNNING=1 ;;
	--baseline) BASELINE=$2; shift ;;
	-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) echo "fuzz-siw: unknown option '$1' (--help)" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$TIME" ] || { [ $SMOKE = 1 ] && TIME=30s || TIME=10m; }
[ -n "$ROLES" ] || { [ $SMOKE = 1 ] && ROLES=responder || ROLES="responder initiator"; }
# The smoke writes findings as found: no minimising, no recording of a kernel report's candidates.
FUZZOPT=
[ $SMOKE = 1 ] && FUZZOPT=--no-minimize
case $TIME in
*m) T=$((${TIME%m} * 60)) ;;
*s) T=${TIME%s} ;;
*) T=$TIME ;;
esac
case $T in ''|*[!0-9]*) echo "fuzz-siw: --time '$TIME': give seconds or minutes (50s, 10m)" >&2; exit 2 ;; esac

TAG=fuzz-siw SKIP_STATUS=77
. tools/siw-guest/driver.sh
guest_host_ready
[ -f "$BASELINE" ] || { say "FAIL: no baseline $BASELINE" >&2; exit 1; }

t_all=$(now)
[ $RUNNING = 1 ] || make --no-print-directory reflector >build/reflector-build.log 2>&1 || {
	cat build/reflector-build.log >&2
	say "FAIL: cannot build the reflector" >&2
	exit 1
}
rc=0
if [ $RUNNING = 0 ]; then
	sh tools/siw-guest/build.sh --reflector build/iwspec-reflector >build/fuzz-siw-guest-build.log 2>&1
	rc=$?
fi
[ $rc -eq 77 ] && skip "the guest cannot be built here ($(tail -1 build/fuzz-siw-guest-build.log))"
[ $rc -eq 0 ] || { tail -20 build/fuzz-siw-guest-build.log >&2; say "FAIL: the guest build failed" >&2; exit 1; }
[ $KASAN = 1 ] && [ $COV = 1 ] && { say "--coverage profiles siw.ko; the sanitizer kernel (--kasan) builds siw in, unprofiled" >&2; exit 2; }
[ $KASAN = 1 ] && STOCK=1
KIND=patched
[ $STOCK = 1 ] && KIND=stock
BOOTOPT=
[ $STOCK = 0 ] && BOOTOPT=--patched
[ $COV = 1 ] && BOOTOPT="$BOOTOPT --coverage"
if [ $STOCK = 0 ] && [ $RUNNING = 0 ] && [ -f build/siw-guest/siw-patched.missing ]; then
	say "FAIL: no siw-patched.ko on this kernel ($(cat build/siw-guest/siw-patched.missing)): give --stock" >&2
	exit 1
fi
if [ $KASAN = 1 ]; then
	sh tools/siw-guest/build-kasan.sh || { say "FAIL: the sanitizer kernel did not build (tools/siw-guest/build-kasan.sh)" >&2; exit 1; }
	BOOTOPT=--kasan
fi
[ -n "$CORPUS" ] || CORPUS=$OUT/corpus
[ -z "$SHARD" ] || FUZZOPT="$FUZZOPT --shard $SHARD"
if [ $COV = 1 ]; then
	# The corpus carries the union of arcs reached from segment to segment (a reboot starts the
	# guest's counters again). Without feedback the fuzzer still reads the counters, for its time
	# series, and keeps no program.
	FUZZOPT="$FUZZOPT --kernel-coverage $AGENT --corpus $CORPUS"
	[ $FEEDBACK = 1 ] || FUZZOPT="$FUZZOPT --kernel-coverage-no-feedback"
fi
CONSOLE=$(sh tools/siw-guest/boot.sh --run-dir)/console.log
rm -rf "$OUT"
mkdir -p "$OUT"
# A guest this script booted is stopped at the end; a running one it was given is left running.
[ $RUNNING = 1 ] || trap 'sh tools/siw-guest/stop.sh >/dev/null 2>&1' EXIT INT TERM

boots=0
t_boot=0
boot() {
	local tb
	tb=$(now)
	sh tools/siw-guest/stop.sh >/dev/null 2>&1
	sh tools/siw-guest/boot.sh $BOOTOPT >"$OUT/boot.log" 2>&1
	local rc=$?
	boots=$((boots + 1))
	t_boot=$((t_boot + $(now) - tb))
	[ $rc -eq 77 ] && { cat "$OUT/boot.log"; skip "the guest cannot boot here"; }
	[ $rc -eq 0 ] || { cat "$OUT/boot.log" >&2; say "FAIL: the guest did not boot" >&2; exit 1; }
	trap 'sh tools/siw-guest/stop.sh >/dev/null 2>&1' EXIT INT TERM
}
# One request to the guest's agent: a mark in its console. 0 when the agent answered.
mark() {
	ip netns exec "$NETNS" timeout 10 bash -c 'exec 3<>/dev/tcp/'"${AGENT%:*}/${AGENT#*:}"' || exit 1
		echo "mark $1" >&3; read -t 8 l <&3; [ "${l%% *}" = exit ]' _ "$1" 2>/dev/null
}
# The reports of the console after mark $1 (file $2): "kind<TAB>signature" lines.
reports_after() {
	"$IWSPEC" fuzz --console-reports "$2" | awk -F'\t' -v m="$1" '$1 == "report" && $4 == m { print $2 "\t" $3 }'
}
# The console excerpt of the first report of signature $1 after mark $2 in file $3.
excerpt_of() {
	"$IWSPEC" fuzz --console-reports "$3" | awk -F'\t' -v s="$1" -v m="$2" '
		$1 == "report" { on = (!done && $3 == s && $4 == m); if (on) done = 1; next }
		on { sub(/^    /, ""); print }'
}
allowed() { # is signature $1 in the baseline?
	local line glob
	while IFS= read -r line; do
		case $line in ''|'#'*) continue ;; esac
		glob=${line%% : *}
		# shellcheck disable=SC2254
		case $1 in $glob) return 0 ;; esac
	done <"$BASELINE"
	return 1
}
json_str() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g; s/\t/\\t/g' | awk 'BEGIN { ORS = "" } NR > 1 { print "\\n" } { print }'; }
html_esc() { sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g'; }

# 1. A fresh guest, and the bare connection rate to it.
if [ $RUNNING = 1 ]; then
	mark "campaign start" || { say "FAIL: --on-running-guest: the guest's agent at $AGENT takes no mark" >&2; exit 1; }
	say "guest: the one running ($CONSOLE)"
else
	boot
	say "guest: $(sed -n 's/^guest: //p' "$OUT/boot.log" | tail -1)"
fi
bare="0 0"
[ $SMOKE = 1 ] || bare=$(ip netns exec "$NETNS" bash -c 'n=0; s=$(date +%s%N); end=$((s / 1000000 + 5000))
	while [ $(( $(date +%s%N) / 1000000 )) -lt $end ]; do
		exec 3<>/dev/tcp/'"${AGENT%:*}/${AGENT#*:}"' || break
		echo "mark bare $n" >&3; read -t 5 l <&3; exec 3<&-; n=$((n + 1))
	done; e=$(date +%s%N); echo "$n $(( (e - s) / 1000000 ))"')
bare_n=${bare% *}
bare_ms=${bare#* }
bare_rate=$(awk -v n="$bare_n" -v ms="$bare_ms" 'BEGIN { printf "%.2f", (ms > 0 ? n * 1000 / ms : 0) }')
[ $SMOKE = 1 ] || say "bare connection rate to the guest: $bare_rate/s ($bare_n connect + 20-octet exchange + close through its agent in $bare_ms ms)"

# 2. Fuzzing, in segments: one per guest boot and role.
seg=0
runs_total=0
runs_init=0
fuzz_s=0
dead=0
segs_json=
cov_max=0
cov_total=47
fuzz_fail=0
t_fuzz=$(now)
for role in $ROLES; do
	case $role in
	responder) conf=duts/linux-siw.conf ;;
	initiator) conf=duts/linux-siw-initiator.conf ;;
	*) say "unknown role '$role' (responder, initiator)" >&2; exit 2 ;;
	esac
	share=$T
	if [ "$ROLES" != "$role" ]; then
		[ $role = initiator ] && share=$((T * SHARE / 100)) || share=$((T - T * SHARE / 100))
	fi
	end=$(($(now) + share))
	first=0
	while [ $(($(now) + 5)) -lt $end ]; do
		seg=$((seg + 1))
		[ $seg -gt 1 ] && [ -n "${need_boot:-}" ] && boot
		need_boot=
		left=$((end - $(now)))
		sd=$OUT/seg-$seg
		say "segment $seg: $role, runs from $first, ${left} s"
		ts=$(now)
		# The smoke (make test) has a wall: siw's findings each get a confirmation's allowance,
		# and a run with five of them took 208 s of a 30 s budget. SIGTERM stops the fuzzer with
		# its summary and what it found so far (exit 143). 5 s past the budget: most smokes end
		# on their own in 32-37 s, and one that runs on (45-50 s, three of 16 in the logs of
		# 2026-11-29) spent the rest on the critical path of make test.
		wall=
		[ $SMOKE = 1 ] && wall="timeout --preserve-status -s TERM $((left + 5))"
		ip netns exec "$NETNS" $wall "$IWSPEC" fuzz --dut-config "$conf" --seed "$SEED" --first-run "$first" --time "${left}s" \
			--out "$sd" --console "$CONSOLE" --console-mark "$AGENT" --no-progress $FUZZOPT >"$sd.log" 2>&1
		frc=$?
		# A fuzzer stopped at the wall can leave its last DUT behind: the exec driver's relay to
		# the guest's agent (`iwspec-reflector --via`), waiting on a run the agent still has, with
		# nobody left to end it (two of five walls in fresh-clone runs, 2026-11-29). Nothing else
		# talks to this guest's agent now (the namespace's own processes: another guest's are not
		# ours).
		for pid in $(ip netns pids "$NETNS" 2>/dev/null); do
			case $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) in
			*"iwspec-reflector --via $AGENT "*) kill "$pid" 2>/dev/null ;;
			esac
		done
		te=$(now)
		fuzz_s=$((fuzz_s + te - ts))
		echo "$seg $((ts - t_fuzz)) $runs_total" >>"$OUT/segments.tsv"
		if [ $COV = 1 ]; then
			mkdir -p "$OUT/coverage"
			bash tools/siw-guest/coverage.sh capture $KIND "$OUT/coverage/seg-$seg.info" --reset >>"$OUT/coverage.log" 2>&1 ||
				say "segment $seg: siw's counters could not be read (the guest is dead or stuck?): its lines are missing from $OUT/coverage/, its arcs are in the fuzzer's union ($OUT/coverage.log)"
		fi
		cp "$CONSOLE" "$sd.console.log" 2>/dev/null
		line=$(grep '^fuzz: [0-9]* runs' "$sd.log" | tail -1)
		n=$(echo "$line" | sed -n 's/^fuzz: \([0-9]*\) runs.*/\1/p')
		n=${n:-0}
		cov=$(echo "$line" | sed -n 's/.*coverage \([0-9]*\)\/\([0-9]*\).*/\1/p')
		cov_total=$(echo "$line" | sed -n 's/.*coverage [0-9]*\/\([0-9]*\).*/\1/p')
		cov=${cov:-0}
		cov_total=${cov_total:-47}
		[ "$cov" -gt $cov_max ] && cov_max=$cov
		runs_total=$((runs_total + n))
		[ $role = initiator ] && runs_init=$((runs_init + n))
		stop=$(sed -n 's/.*fuzzing stops at run \([0-9]*\).*/\1/p' "$sd.log" | tail -1)
		first=${stop:-$((first + n))}
		grep -E '^iwspec fuzz: (FINDING|KERNEL) ' "$sd.log" | sed 's/^iwspec fuzz: /fuzz-siw:   /'
		say "segment $seg: exit $frc, $line"
		segs_json="$segs_json${segs_json:+,}{\"segment\":$seg,\"role\":\"$role\",\"exit\":$frc,\"seconds\":$((te - ts)),\"runs\":$n,\"coverage\":$cov,\"summary\":\"$(json_str "$line")\"}"
		case $frc in
		0|1|3) ;;
		143) if [ $SMOKE = 1 ]; then say "segment $seg: stopped at the smoke's wall ($((left + 5)) s)"; frc=1
		     else fuzz_fail=1; say "segment $seg: iwspec fuzz was stopped (SIGTERM): $sd.log" >&2; fi ;;
		*) fuzz_fail=1; say "segment $seg: iwspec fuzz failed (exit $frc): $sd.log" >&2 ;;
		esac
		# Too little time left for one run (iwspec fuzz's exit 3 for zero runs): the campaign's
		# end, not a dead guest.
		if [ $frc -eq 3 ] && grep -q "no run was made: calibration left no time" "$sd.log"; then
			say "segment $seg: too little time was left for a run; the campaign ends here"
			break
		fi
		# Dead or stuck? The agent must still take a mark.
		if [ $frc -eq 3 ] || ! mark "campaign check after segment $seg"; then
			dead=$((dead + 1))
			say "segment $seg: the guest is dead or stuck (or its DUT cannot be restarted): booting a fresh one"
			need_boot=yes
		elif [ $(($(now) + 5)) -lt $end ]; then
			# The fuzzer stopped early with the guest alive (e.g. --max-findings): a fresh kernel.
			need_boot=yes
		fi
	done
	# The next role starts on a fresh guest.
	need_boot=yes
done
t_fuzz=$(($(now) - t_fuzz))
rate=$(awk -v n=$runs_total -v s=$fuzz_s 'BEGIN { printf "%.2f", (s > 0 ? n / s : 0) }')
# Three significant digits: against a guest the ratio is small (0.03, 0.003), and 0.00 says nothing.
ratio=$(awk -v r="$rate" -v b="$bare_rate" 'BEGIN { printf "%.3g", (b > 0 ? r / b : 0) }')
reboots=$boots
[ $RUNNING = 1 ] || reboots=$((boots - 1))
say "fuzzing: $runs_total runs in $fuzz_s s of fuzzing ($t_fuzz s with $reboots reboots): $rate runs/s, $ratio of the bare rate ($bare_rate/s); coverage up to $cov_max/$cov_total in a segment; guest dead or stuck $dead times"

# 3. The findings, one per signature (kernel) or kind and requirement (network), first seen kept.
KLIST=$OUT/kernel.tsv
NLIST=$OUT/network.tsv
: >"$KLIST"
: >"$NLIST"
for s in $(seq 1 $seg); do
	for d in "$OUT/seg-$s"/kernel-*; do
		[ -f "$d/seed.txt" ] || continue
		sig=$(sed -n 's/^signature: //p' "$d/seed.txt")
		if grep -qF "	$sig	" "$KLIST"; then
			awk -F'\t' -v s="$sig" 'BEGIN { OFS = "\t" } $2 == s { $4 = $4 + 1 } { print }' "$KLIST" >"$KLIST.tmp" && mv "$KLIST.tmp" "$KLIST"
		else
			printf '%s\t%s\t%s\t1\t%s\n' "$d" "$sig" "$(sed -n 's/^report: //p' "$d/seed.txt")" \
				"$(sed -n 's/^mark: //p' "$d/seed.txt")" >>"$KLIST"
		fi
	done
	for d in "$OUT/seg-$s"/finding-*; do
		[ -f "$d/seed.txt" ] || continue
		role=responder
		grep -q '(rfc[0-9]*, initiator)' "$OUT/seg-$s.log" && role=initiator
		key="$(sed -n 's/^kind: //p' "$d/seed.txt") $(sed -n 's/^requirement: //p' "$d/seed.txt") ($role)"
		grep -qF "	$key	" "$NLIST" || printf '%s\t%s\t%s\n' "$d" "$key" "$(sed -n 's/^detail: //p' "$d/seed.txt")" >>"$NLIST"
	done
done
# The role a finding's segment fuzzed, for its replay.
conf_of() { # $1 a finding's directory
	local s=${1#"$OUT"/seg-}
	s=${s%%/*}
	grep -q '(rfc[0-9]*, initiator)' "$OUT/seg-$s.log" && echo duts/linux-siw-initiator.conf || echo duts/linux-siw.conf
}

bad=0
kjson=
khtml=
i=0
# Every signature a replay on a fresh guest showed, with the case and the replay's console: one
# replay often shows several (F3's WARNING and its refcount underflow), and each is confirmed by it.
SHOWN=$OUT/confirm/shown.tsv
mkdir -p "$OUT/confirm"
: >"$SHOWN"
while IFS="$(printf '\t')" read -r d sig kind count kmark; do
	i=$((i + 1))
	conf=$(conf_of "$d")
	base=no
	allowed "$sig" && base=yes
	confirmed=not-tried
	ccase=
	cexcerpt=
	if [ $SMOKE = 0 ]; then
		confirmed=no
		tried=0
		prior=$(awk -F'\t' -v s="$sig" '$1 == s { print $2 "\t" $3; exit }' "$SHOWN")
		if [ -n "$prior" ]; then
			confirmed=yes
			ccase=${prior%%	*}
			cexcerpt=${prior#*	}
			say "kernel $i: already shown on a fresh guest by the replay of $ccase"
		fi
		[ $confirmed = yes ] || for c in $(sed -n 's/^cases: //p' "$d/seed.txt"); do
			case $c in *.iwt) ;; *) continue ;; esac
			[ $tried -ge "$CONFIRM" ] && break
			tried=$((tried + 1))
			boot
			m="campaign confirm kernel $i case ${c%.iwt}"
			mark "$m" || { say "kernel $i: the fresh guest takes no mark"; continue; }
			rd=$OUT/confirm/kernel-$i-${c%.iwt}
			mkdir -p "$rd"
			# Up to three times on this guest: siw's faults are races (F3 is FAIL or PASS run by
			# run; the initiator's NULL dereference showed on 3 of 3 fresh guests within 3 replays).
			for try in 1 2 3; do
				ip netns exec "$NETNS" "$IWSPEC" run --cases "$d/$c" --dut-config "$conf" --no-progress --report "$rd" >"$rd.log" 2>&1
				sleep 3 # the DUT's listener is torn down when the case ends: what the kernel says then counts
				cp "$CONSOLE" "$rd.console.log" 2>/dev/null
				reports_after "$m" "$rd.console.log" | cut -f2 | grep -qxF "$sig" && break
			done
			reports_after "$m" "$rd.console.log" | cut -f2 | sort -u | while IFS= read -r shown; do
				excerpt_of "$shown" "$m" "$rd.console.log" >"$rd.excerpt-$(printf '%s' "$shown" | cksum | cut -d' ' -f1).txt"
				printf '%s\t%s\t%s\n' "$shown" "$d/$c" "$rd.excerpt-$(printf '%s' "$shown" | cksum | cut -d' ' -f1).txt" >>"$SHOWN"
			done
			if reports_after "$m" "$rd.console.log" | cut -f2 | grep -qxF "$sig"; then
				confirmed=yes
				ccase=$d/$c
				excerpt_of "$sig" "$m" "$rd.console.log" >"$rd.excerpt.txt"
				cexcerpt=$rd.excerpt.txt
				break
			fi
			other=$(reports_after "$m" "$rd.console.log" | cut -f2 | tr '\n' ';')
			say "kernel $i: $c on a fresh guest: not this report${other:+ (it showed: $other)}"
		done
	fi
	say "KERNEL $i: $sig ($kind; $count segment(s); first after the mark '$kmark'): confirmed on a fresh guest: $confirmed${ccase:+ by $ccase}; baseline: $([ $base = yes ] && echo allowed || echo NOT in $BASELINE)"
	[ $base = no ] && [ $SMOKE = 1 ] && bad=1
	kjson="$kjson${kjson:+,}{\"signature\":\"$(json_str "$sig")\",\"kind\":\"$(json_str "$kind")\",\"segments\":$count,\"mark\":\"$(json_str "$kmark")\",\"dir\":\"$(json_str "$d")\",\"baselined\":$([ $base = yes ] && echo true || echo false),\"confirmed\":\"$confirmed\",\"case\":\"$(json_str "$ccase")\",\"console\":\"$(json_str "$(cat "$d/console.txt")")\",\"replay_console\":\"$(json_str "$( [ -n "$cexcerpt" ] && cat "$cexcerpt")")\"}"
	khtml="$khtml<h3>Kernel $i: $(printf '%s' "$sig" | html_esc)</h3><p>$kind, first after the mark <code>$(printf '%s' "$kmark" | html_esc)</code>, in $count segment(s); baseline: $base; confirmed on a fresh guest: $confirmed${ccase:+ by <code>$ccase</code>}</p><pre>$(html_esc <"$d/console.txt")</pre>$( [ -n "$cexcerpt" ] && printf '<p>The replay on a fresh guest:</p><pre>%s</pre>' "$(html_esc <"$cexcerpt")")"
done <"$KLIST"

njson=
nhtml=
j=0
while IFS="$(printf '\t')" read -r d key detail; do
	j=$((j + 1))
	replay=not-tried
	verdict=
	if [ $SMOKE = 0 ] && [ -f "$d/case.iwt" ]; then
		boot
		rd=$OUT/confirm/finding-$j
		ip netns exec "$NETNS" "$IWSPEC" run --cases "$d/case.iwt" --dut-config "$(conf_of "$d")" --no-progress --report "$rd" >"$rd.log" 2>&1
		rrc=$?
		verdict=$(grep -m1 -E '^ *fuzz\.finding\.' "$rd.log" | sed 's/^ *//' | cut -c1-300)
		case $rrc in
		1) replay=fails-again ;;
		0) replay="passes (siw's race did not happen this time, or the case cannot show it)" ;;
		3) replay="not judged (SKIP: $(sed -n 's/.*"reason": *"\([^"]*\)".*/\1/p' "$rd/results.json" 2>/dev/null | head -1 | cut -c1-160))" ;;
		*) replay="exit $rrc" ;;
		esac
		cp "$CONSOLE" "$rd.console.log" 2>/dev/null
	fi
	say "FINDING $j: $key: $detail; case $d/case.iwt; replayed on a fresh guest: $replay"
	njson="$njson${njson:+,}{\"finding\":\"$(json_str "$key")\",\"detail\":\"$(json_str "$detail")\",\"case\":\"$(json_str "$d/case.iwt")\",\"replay\":\"$(json_str "$replay")\",\"replay_verdict\":\"$(json_str "$verdict")\"}"
	nhtml="$nhtml<tr><td>$(printf '%s' "$key" | html_esc)</td><td>$(printf '%s' "$detail" | html_esc)</td><td><code>$d/case.iwt</code></td><td>$replay</td></tr>"
done <"$NLIST"

# The campaign's coverage (--coverage): siw's arcs over its time, and its lines.
kcov_hit=0
kcov_total=0
kept=0
plot=
covrow=
if [ $COV = 1 ]; then
	# One series for the campaign: each segment's samples at the segment's offset, runs counted on.
	echo "# seconds_into_fuzzing	runs	siw_arcs_reached	siw_arcs	programs_kept" >"$OUT/kcov.tsv"
	while read -r s off before; do
		[ -f "$OUT/seg-$s/kcov.tsv" ] || continue
		awk -v off="$off" -v before="$before" -F'\t' '!/^#/ && NF >= 4 {
			printf "%.1f\t%d\t%d\t%d\t%d\n", off + $1 / 1000, before + $2, $3, $4, $5 }' "$OUT/seg-$s/kcov.tsv" >>"$OUT/kcov.tsv"
	done <"$OUT/segments.tsv"
	last=$(grep -v '^#' "$OUT/kcov.tsv" | tail -1)
	if [ -n "$last" ]; then
		kcov_hit=$(echo "$last" | cut -f3)
		kcov_total=$(echo "$last" | cut -f4)
		kept=$(echo "$last" | cut -f5)
	fi
	say "siw's arcs reached: $kcov_hit of $kcov_total ($kept programs kept; $([ $FEEDBACK = 1 ] && echo "steered by them" || echo "not steered: --no-feedback")); the series: $OUT/kcov.tsv"
	plot=$(bash tools/siw-guest/coverage.sh plot "$OUT/kcov.tsv")
	infos=$(ls "$OUT"/coverage/seg-*.info 2>/dev/null | grep -v stock-lines | tr '\n' ',' | sed 's/,$//')
	if [ -n "$infos" ]; then
		bash tools/siw-guest/coverage.sh report "$OUT/coverage/campaign" --title "siw ($KIND) under fuzz-siw, seed $SEED, $TIME" \
			campaign="$infos" || fuzz_fail=1
		covrow=$(grep -m1 '^all ' "$OUT/coverage/campaign/summary.txt" | sed 's/^all *//; s/  */ /g')
	fi
	if [ -n "$WITH_SUITE" ] && [ -n "$infos" ]; then
		# Suite and campaign on one source, stock siw's lines (a patched module's moved onto them).
		stockify() { # a list of tracefiles -> the same on stock lines, comma-separated
			local out= i
			for i in $(echo "$1" | tr ',' ' '); do
				if grep -q '^SF:.*/siw-patched-cov-src/' "$i"; then
					bash tools/siw-guest/coverage.sh to-stock "$i" "$OUT/coverage/$(basename "$i" .info).stock-lines.info" || return 1
					i=$OUT/coverage/$(basename "$i" .info).stock-lines.info
				fi
				out="$out${out:+,}$i"
			done
			echo "$out"
		}
		suite_infos=$(ls "$WITH_SUITE"/*.info 2>/dev/null | grep -v stock-lines | tr '\n' ',' | sed 's/,$//')
		if [ -z "$suite_infos" ]; then
			say "FAIL: --with-suite $WITH_SUITE holds no tracefile (make interop COVERAGE=1 writes them to out/interop/linux-siw/coverage/)" >&2
			fuzz_fail=1
		elif s=$(stockify "$suite_infos") && c=$(stockify "$infos"); then
			bash tools/siw-guest/coverage.sh report "$OUT/coverage/with-suite" --title "siw under make interop and fuzz-siw, on stock siw's lines" \
				suite="$s" campaign="$c" || fuzz_fail=1
		else
			fuzz_fail=1
		fi
	fi
	# The smoke checks the path end to end: the fuzzer's reads saw arcs its runs reached (the union
	# grew past the read made before the first run: the guest's boot and calibration), and the
	# campaign's counters came back as lines of siw's connection manager, which every run enters.
	# How far into siw's receive path 30 s get depends on the host's load (none of it when the
	# reflector's greeting came late, in one run beside make test's other lanes): said, not judged.
	if [ $SMOKE = 1 ]; then
		first_hit=$(grep -v '^#' "$OUT/kcov.tsv" | head -1 | cut -f3)
		cm=$(sed -n 's|^    siw_cm.c *lines *\([0-9]*\)/.*|\1|p' "$OUT/coverage/campaign/summary.txt" 2>/dev/null | head -1)
		rx=$(sed -n 's|^    siw_qp_rx.c *lines *\([0-9]*\)/.*|\1|p' "$OUT/coverage/campaign/summary.txt" 2>/dev/null | head -1)
		if [ "$kcov_hit" -gt "${first_hit:-0}" ] && [ "${cm:-0}" -gt 0 ]; then
			say "coverage path: the fuzzer's reads went from $first_hit arcs before its first run to $kcov_hit; the campaign reached $cm lines of siw_cm.c and ${rx:-0} of siw_qp_rx.c"
		else
			say "FAIL: coverage path: arcs read by the fuzzer ${first_hit:-none} before its first run, $kcov_hit after; lines of siw_cm.c reached ${cm:-none} ($OUT/coverage.log)" >&2
			fuzz_fail=1
		fi
	fi
fi

# 4. The summary.
t_all=$(($(now) - t_all))
cat >"$OUT/summary.json" <<EOF
{"dut":"linux-siw","shard":"$SHARD","seed_fuzzed":$( [ -n "$SHARD" ] && echo $((SEED * ${SHARD#*/} + ${SHARD%/*} - 1)) || echo $SEED),"kernel":"$([ $KASAN = 1 ] && echo kasan || echo debian)","siw":"$KIND","seed":$SEED,"time_s":$T,"roles":"$ROLES",
 "runs":$runs_total,"runs_initiator":$runs_init,"fuzz_s":$fuzz_s,"runs_per_s":$rate,"bare_per_s":$bare_rate,"ratio":$ratio,
 "coverage_max":$cov_max,"coverage_total":$cov_total,"siw_coverage":$([ $COV = 1 ] && echo "{\"feedback\":$([ $FEEDBACK = 1 ] && echo true || echo false),\"arcs_reached\":$kcov_hit,\"arcs\":$kcov_total,\"programs_kept\":$kept,\"lines\":\"$(json_str "$covrow")\",\"series\":\"kcov.tsv\"}" || echo null),
 "boots":$boots,"boot_s":$t_boot,"guest_dead":$dead,"wall_s":$t_all,
 "segments":[$segs_json],
 "kernel_findings":[$kjson],
 "findings":[$njson]}
EOF
cat >"$OUT/summary.html" <<EOF
<!doctype html><html><head><meta charset="utf-8"><title>iwspec fuzz: Linux siw</title>
<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}pre{background:#f4f4f4;padding:.5em;overflow-x:auto;font-size:12px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}table{border-collapse:collapse}</style></head><body>
<h1>iwspec fuzz campaign: Linux siw ($KIND)$([ $KASAN = 1 ] && echo " (KASAN kernel)")</h1>
<table><tr><th>seed</th><td>$SEED</td></tr><tr><th>roles</th><td>$ROLES</td></tr><tr><th>runs</th><td>$runs_total in $fuzz_s s of fuzzing</td></tr>
<tr><th>runs/s</th><td>$rate ($( [ $SMOKE = 1 ] && echo "the smoke does not measure the bare rate" || echo "bare connection rate to the guest $bare_rate/s, ratio $ratio"))</td></tr>
<tr><th>coverage</th><td>up to $cov_max/$cov_total in a segment</td></tr><tr><th>boots</th><td>$boots ($t_boot s), guest dead or stuck $dead times</td></tr>
<tr><th>wall time</th><td>$t_all s</td></tr>$( [ $COV = 1 ] && printf '<tr><th>siw coverage</th><td>%s arcs of %s reached, %s programs kept (%s); lines, functions, branches: %s (<a href="coverage/campaign/html/index.html">per file</a>)</td></tr>' "$kcov_hit" "$kcov_total" "$kept" "$([ $FEEDBACK = 1 ] && echo "fuzzing steered by them" || echo "not steered")" "$(printf '%s' "${covrow:-not read}" | html_esc)")</table>
$( [ -n "$plot" ] && printf '<h2>siw coverage over the campaign</h2>%s' "$plot")
<h2>Kernel findings</h2>${khtml:-<p>none</p>}
<h2>Network findings</h2><table><tr><th>kind and requirement</th><th>detail</th><th>case</th><th>replay on a fresh guest</th></tr>$nhtml</table>
</body></html>
EOF
say "summary: $OUT/summary.json, $OUT/summary.html ($t_all s in all)"
[ $fuzz_fail = 0 ] || bad=1
if [ $bad -ne 0 ]; then
	say "FAIL: $([ $SMOKE = 1 ] && echo "a kernel report the baseline ($BASELINE) does not allow, or ")iwspec fuzz failed (above)" >&2
	exit 1
fi
exit 0
