#!/bin/sh
# `make interop`: the whole suite against a real iWARP stack, Linux siw, in both roles.
#
#   1. builds the reflector (reflector/, librdmacm + libibverbs) and the guest (tools/siw-guest/
#      build.sh: Debian's kernel, siw.ko built from the same source, rdma-core; cached in build/);
#   2. for each pass boots a fresh guest under qemu on a TAP link inside network namespace
#      iwspec-siw (a fresh kernel each time: siw's listener bug F3 corrupts kernel memory, and
#      one pass must not inherit another's damage). The exception: a pass after one of the two
#      short rping passes, which leave nothing behind (rping exits after each case), reuses its
#      guest, and the findings pass (the F3 cases) comes last for that reason: one boot for the
#      three instead of three, 40 s less;
#   3. runs every case with duts/linux-siw.conf (siw as responder) and
#      duts/linux-siw-initiator.conf (siw as initiator), then the rping cases against rdma-core's
#      rping on siw (duts/linux-siw-rping*.conf, docs/rping.md), then the findings pass (the
#      cases the responder configuration disables as F3, alone), inside that namespace, writing
#      out/interop/linux-siw/{responder,initiator,findings,rping-*}/ (HTML, JSON, JUnit, pcaps);
#   4. compares each pass with its committed baseline (duts/linux-siw.*.expect): any verdict that
#      changed, siw's or iwspec's, fails the run.
#
# A machine that cannot run the guest (no qemu, no /dev/net/tun, not root) prints SKIP and
# exits 0; under CI=true that is a failure instead. INTEROP_WRITE_EXPECT=1 rewrites the
# baselines from this run (review the diff: docs/interop/linux-siw.md explains each verdict).
#
#   IWSPEC=build/iwspec sh tools/interop-siw.sh [responder|initiator|findings|rping-responder|rping-initiator]...
set -u
DIR=$(cd "$(dirname "$0")/.." && pwd)
cd "$DIR" || exit 2
IWSPEC=${IWSPEC:-build/iwspec}
OUT=out/interop/linux-siw
NETNS=${IWSPEC_NETNS:-iwspec-siw}
PASSES=${*:-responder initiator rping-responder rping-initiator findings}
# The passes whose guest the next pass may reuse (see 2. above).
LEAVE_CLEAN="rping-responder rping-initiator"
JOBS=${INTEROP_JOBS:-8}

say() { echo "interop: $*"; }
now() { date +%s; }
skip() {
	if [ "${CI:-}" = true ]; then
		say "FAIL: $1 (CI=true: the siw guest must run here)" >&2
		exit 1
	fi
	say "SKIP: $1"
	exit 0
}

[ "$(id -u)" -eq 0 ] || skip "needs root (a network namespace and a TAP device for the guest)"
command -v qemu-system-x86_64 >/dev/null 2>&1 || skip "qemu-system-x86_64 is missing (apt-get install qemu-system-x86)"
[ -x "$IWSPEC" ] || { say "FAIL: $IWSPEC is not built (make)" >&2; exit 1; }

# `iwspec decode` reads each pass's pcaps on its own: where the run failed a case on the pad
# octets (F1, pinned [MPA-4-02] in the baseline) the decoder must report MPA-4-02 in that
# capture, and where the case passed it must not: the decoder and the run agree on siw.
decode_agrees() {
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
		pad=no
		grep -q 'VIOLATION MPA-4-02' "$OUT/decode.tmp" && pad=yes
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

bad=0
prev=
t_boot=0
t_suite=0
for pass in $PASSES; do
	case $pass in
	responder) conf=duts/linux-siw.conf; sel= ;;
	initiator) conf=duts/linux-siw-initiator.conf; sel= ;;
	# rdma-core's rping in the guest instead of the reflector (docs/rping.md): its own cases.
	rping-responder) conf=duts/linux-siw-rping.conf; sel='rping.*' ;;
	rping-initiator) conf=duts/linux-siw-rping-initiator.conf; sel='rping.*' ;;
	findings)
		# The F3 cases, alone, from the responder configuration without their disable lines.
		sel=$(sed -n 's/^disable = \([^ ]*\) : F3 .*/\1/p' duts/linux-siw.conf | tr '\n' ',' | sed 's/,$//')
		[ -n "$sel" ] || continue
		grep -v '^disable = .* : F3 ' duts/linux-siw.conf >"$OUT/findings.conf"
		conf=$OUT/findings.conf
		;;
	*) say "unknown pass '$pass': use responder, initiator, findings, rping-responder or rping-initiator" >&2; exit 2 ;;
	esac
	tb=$(now)
	case " $LEAVE_CLEAN " in
	*" $prev "*) say "$pass: on the guest of the $prev pass (it leaves nothing behind)" ;;
	*)
		sh tools/siw-guest/stop.sh >/dev/null 2>&1
		sh tools/siw-guest/boot.sh
		rc=$?
		[ $rc -eq 77 ] && skip "the guest cannot boot here (see above)"
		[ $rc -eq 0 ] || { say "FAIL: the guest did not boot" >&2; exit 1; }
		;;
	esac
	prev=$pass
	ts=$(now)
	t_boot=$((t_boot + ts - tb))
	expect=duts/linux-siw.$pass.expect
	set -- run --dut-config "$conf" --jobs "$JOBS" --no-progress --html --pcap --report "$OUT/$pass"
	[ -n "$sel" ] && set -- "$@" --cases "$sel"
	if [ "${INTEROP_WRITE_EXPECT:-}" = 1 ]; then
		set -- "$@" --write-expect "$expect"
	elif [ -f "$expect" ]; then
		set -- "$@" --expect "$expect"
	else
		say "FAIL: no baseline $expect (INTEROP_WRITE_EXPECT=1 writes one from a run)" >&2
		bad=1
		continue
	fi
	ip netns exec "$NETNS" "$IWSPEC" "$@" >"$OUT/$pass.log" 2>&1
	rc=$?
	oneoffs=
	# A difference that does not repeat is one of siw's races (F18 in docs/interop/linux-siw.md):
	# each differing case runs once more, alone; only one that differs again fails the pass. The
	# one-off verdicts are printed, never hidden.
	if [ $rc -eq 1 ] && [ "${INTEROP_WRITE_EXPECT:-}" != 1 ]; then
		again=0
		found=0
		for id in $(sed -n '/difference.* from the baseline/,/^$/s/^    \([a-z0-9._-]*\): .*/\1/p' "$OUT/$pass.log"); do
			found=$((found + 1))
			say "$pass: $id differs from the baseline; running it once more, alone:"
			grep "^    $id: " "$OUT/$pass.log" | sed "s/^ */interop:   first run: /"
			grep "^$id " "$expect" >"$OUT/rerun.expect"
			ip netns exec "$NETNS" "$IWSPEC" run --dut-config "$conf" --cases "$id" --no-progress \
				--report "$OUT/$pass-rerun" --expect "$OUT/rerun.expect" >"$OUT/$pass-rerun.log" 2>&1
			case $? in
			0) say "  $id matches its baseline on the rerun: a one-off (a race in siw, F18)"
			   oneoffs="$oneoffs $id" ;;
			*) again=1; grep -A3 'from the baseline' "$OUT/$pass-rerun.log" | grep "$id" | sed 's/^ */interop:   rerun: /' ;;
			esac
		done
		[ $again -eq 0 ] && [ $found -gt 0 ] && rc=0
	fi
	t_suite=$((t_suite + $(now) - ts))
	cp build/siw-guest/console.log "$OUT/$pass.console.log" 2>/dev/null
	sed -n '/^  verdict/,/^  total/p' "$OUT/$pass.log" | tr -s ' ' | tr '\n' ' ' | sed "s/^/interop: $pass:/"
	echo
	say "$pass: exit $rc in $(($(now) - ts)) s; reports in $OUT/$pass/, the guest's console in $OUT/$pass.console.log"
	# Without --expect, exit 1 is a FAIL verdict, which the baseline then holds and explains.
	if [ "${INTEROP_WRITE_EXPECT:-}" = 1 ] && [ $rc -le 1 ]; then
		continue
	fi
	if [ $rc -ne 0 ]; then
		bad=1
		grep -A12 'from the baseline' "$OUT/$pass.log" | head -30 >&2
	fi
	decode_agrees "$pass" "$expect" "$oneoffs" || bad=1
done
sh tools/siw-guest/stop.sh >/dev/null 2>&1
say "times: guest build $t_build s, boots $t_boot s, suite $t_suite s"
if [ $bad -ne 0 ]; then
	say "FAIL: see $OUT/*.log and the guests' consoles in $OUT/*.console.log" >&2
	exit 1
fi
say "siw matches its baselines"
