#!/bin/sh
# The raw segment path (suite/rawtcp/, docs/raw-segments.md) against the built-in DUT behind a TAP
# device in a network namespace of its own.
#
#   namespace iwspec-raw-PID: iwraw0 (TAP) 10.214.0.1/24, `iwspec serve` on 10.214.0.1:4791
#   this process: build/rawtcp_probe holds the TAP's descriptor and plays 10.214.0.2
#
# The probe runs its scenarios (in order, reverse order, duplicates and an overlapping re-cut,
# a held-back segment, a drop fast-retransmitted after three duplicate ACKs, a hole re-cut after
# two duplicate ACKs), each an MPA Request and a Send FPDU cut as the scenario says; each passes
# when the DUT's Reply is valid (judged by the engine) and its echo of the Send is octet for
# octet what was sent. Then tshark reads each scenario's pcap: every data segment the probe
# sent behind the highest octet sent before it must be flagged out-of-order or retransmission,
# none in the in-order scenario, and the drop must show the DUT's duplicate ACKs and a fast
# retransmission.
#
# Then the tcp.* cases (cases/mpa/5.4-tcp-segments) run through the executor over the same
# link (--raw-link): against the built-in DUT without markers (the marker cases SKIP), with
# markers (`serve --markers`), and against the mutant resync-on-read (both framings), which the
# held-segment cases must FAIL citing MPA-5.4.1-01. Each case's pcap is read by tshark: every
# data segment sent behind the highest octet sent before it must be flagged out-of-order or
# retransmission, each case must have at least one, and the lost segment must show the DUT's
# duplicate ACKs (two at least: tshark's bound for a fast retransmission) and a fast
# retransmission. Before any of that, and without root: the tcp.* cases SKIP (never PASS) when
# the run has no raw link.
#
# Needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN), /dev/net/tun and iproute2: without them it
# prints SKIP and the reason, except under CI=true, where it fails. The namespace (named with
# this process's id, so runs side by side do not collide) goes away on exit.
#
#   IWSPEC=build/iwspec PROBE=build/rawtcp_probe sh tests/cli/rawtcp.sh
. "$(dirname "$0")/lib.sh"
PROBE=${PROBE:-$(dirname "$IWSPEC")/rawtcp_probe}
NS=iwspec-raw-$$
DEV=iwraw0
PORT=4791
ok_tag="rawtcp: "
fail_tag="rawtcp: "
skip() {
	if [ "${CI:-}" = true ]; then
		bad "$* (CI must run the raw segment path)"
		finish rawtcp
		exit
	fi
	echo "rawtcp: SKIP: $*"
	finish rawtcp
	exit
}

# Without a raw link the cases that need one cannot judge: every one SKIPs, with the reason.
nolink=$tmp/nolink
mkdir "$nolink"
"$IWSPEC" run --cases 'tcp.*' --no-progress --report "$nolink" >"$nolink/out" 2>&1
ncases=$(jq '.cases | length' "$nolink/results.json" 2>/dev/null || echo 0)
nskip=$(jq '[.cases[] | select(.verdict == "SKIP" and (.reason | test("raw segment path")))] | length' \
	"$nolink/results.json" 2>/dev/null || echo 0)
if [ "$ncases" -ge 12 ] && [ "$nskip" = "$ncases" ]; then
	ok "without a raw link the $ncases tcp.* cases SKIP, naming the raw segment path"
else
	bad "without a raw link: $nskip of $ncases tcp.* cases SKIP naming the raw segment path (all, at least 12, expected)"
fi
rm -rf "$nolink"

[ "$(id -u)" = 0 ] || skip "needs root (TAP device and network namespace)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun (load the tun module)"
command -v ip >/dev/null 2>&1 || skip "iproute2 (ip) is not installed"
for b in "$IWSPEC" "$PROBE"; do
	if [ ! -x "$b" ]; then
		bad "$b is not built (make all)"
		finish rawtcp
		exit
	fi
done

dut=
duts=
on_exit '[ -n "$dut" ] && kill "$dut" 2>/dev/null && wait "$dut" 2>/dev/null'
on_exit 'for p in $duts; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done'
on_exit 'ip netns del "$NS" 2>/dev/null'

if ! ip netns add "$NS" 2>"$tmp/err"; then
	skip "cannot create a network namespace: $(cat "$tmp/err")"
fi
# No IPv6 in the namespace: the link carries only what the test sends and the DUT answers.
ip netns exec "$NS" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' 2>/dev/null
ip netns exec "$NS" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6' 2>/dev/null
if ! { ip -n "$NS" link set lo up && ip -n "$NS" tuntap add dev "$DEV" mode tap &&
	ip -n "$NS" addr add 10.214.0.1/24 dev "$DEV" && ip -n "$NS" link set "$DEV" up; } 2>"$tmp/err"; then
	bad "setting up $DEV in $NS: $(cat "$tmp/err")"
	finish rawtcp
	exit
fi

ip netns exec "$NS" "$IWSPEC" serve --host 10.214.0.1 --port $PORT --quiet >"$tmp/dut.log" 2>&1 &
dut=$!
i=0
until grep -q listening "$tmp/dut.log" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$dut" 2>/dev/null; then
		bad "the built-in DUT did not start in $NS: $(cat "$tmp/dut.log")"
		finish rawtcp
		exit
	fi
	sleep 0.1
done

t0=$(date +%s)
timeout 120 "$PROBE" --netns "$NS" --dev "$DEV" --port $PORT --pcap-dir "$tmp" >"$tmp/probe.out" 2>&1
rc=$?
t1=$(date +%s)
cat "$tmp/probe.out"
case $rc in
0) ;;
77) skip "$(sed -n 's/^SKIP: //p' "$tmp/probe.out")" ;;
124) bad "the probe hung (killed after 120 s)" ;;
esac
# field NAME LINE: the value of NAME=... in a probe line.
field() {
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
scenarios=0
while IFS= read -r line; do
	case $line in scenario=*) ;; *) continue ;; esac
	scenarios=$((scenarios + 1))
	name=$(field scenario "$line")
	if [ "$(field result "$line")" = ok ]; then
		ok "$name: the DUT's Reply valid and its echo exact ($(field segs "$line") segments, $(field ms "$line") ms)"
	else
		bad "$name: ${line#*error=}"
	fi
	[ "$(field bad "$line")" = 0 ] || bad "$name: $(field bad "$line") frames with a bad checksum from the DUT's kernel"
done <"$tmp/probe.out"
[ $scenarios -eq 6 ] || bad "the probe reported $scenarios scenarios, 6 expected"

if ! command -v tshark >/dev/null 2>&1; then
	if [ "${CI:-}" = true ]; then
		bad "tshark is not installed in CI; tools/install-deps.sh should have installed it"
	else
		echo "rawtcp: SKIP: tshark is not installed: the pcaps' TCP analysis flags not checked"
	fi
else
	count() {
		tshark -n -r "$1" -Y "$2" 2>/dev/null | wc -l | tr -d ' '
	}
	flagged_f='ip.src==10.214.0.2 && tcp.len>0 && (tcp.analysis.out_of_order || tcp.analysis.retransmission ||
		tcp.analysis.fast_retransmission || tcp.analysis.spurious_retransmission)'
	while IFS= read -r line; do
		case $line in scenario=*) ;; *) continue ;; esac
		name=$(field scenario "$line")
		pcap=$tmp/$name.pcap
		behind=$(field behind "$line")
		segs=$(field segs "$line")
		flagged=$(count "$pcap" "$flagged_f")
		if [ "$name" = in-order ]; then
			[ "$flagged" = 0 ] && [ "$behind" = 0 ] && ok "$name.pcap: no segment flagged by tshark" ||
				bad "$name.pcap: $flagged segments flagged by tshark, $behind sent behind, none expected"
		elif [ "$behind" -gt 0 ] && [ "$flagged" -ge "$behind" ] && [ "$flagged" -le "$segs" ]; then
			ok "$name.pcap: tshark flags $flagged of $segs data segments out-of-order or retransmitted ($behind sent behind)"
		else
			bad "$name.pcap: tshark flags $flagged of $segs data segments; $behind were sent behind the highest octet sent"
		fi
		if [ "$name" = drop ]; then
			dup=$(count "$pcap" 'ip.src==10.214.0.1 && tcp.analysis.duplicate_ack')
			fast=$(count "$pcap" 'ip.src==10.214.0.2 && tcp.analysis.fast_retransmission')
			[ "$dup" -ge 3 ] && [ "$fast" -ge 1 ] &&
				ok "$name.pcap: $dup duplicate ACKs from the DUT, $fast fast retransmission(s)" ||
				bad "$name.pcap: $dup duplicate ACKs from the DUT, $fast fast retransmissions; at least 3 and 1 expected"
		fi
	done <"$tmp/probe.out"
fi
echo "rawtcp: probe $((t1 - t0)) s"

# ---- the tcp.* cases through the executor, over the same link ----
# serve PORT NAME ARGS...: another built-in DUT in the namespace
serve() {
	port=$1 name=$2
	shift 2
	ip netns exec "$NS" "$IWSPEC" serve --host 10.214.0.1 --port "$port" --quiet "$@" >"$tmp/$name.log" 2>&1 &
	duts="$duts $!"
}
serve 4792 markers --markers
serve 4793 mutant --mutant resync-on-read
serve 4794 mutant-markers --markers --mutant resync-on-read
for name in markers mutant mutant-markers; do
	i=0
	until grep -q listening "$tmp/$name.log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && { bad "the $name DUT did not start: $(cat "$tmp/$name.log")"; break; }
		sleep 0.1
	done
done
echo "markers = no" >"$tmp/nomarkers.conf"
# Against the mutant the echo never comes: 2 s of waiting for it is enough.
printf 'markers = no\nclose_timeout = 2s\n' >"$tmp/mutant.conf"
echo "close_timeout = 2s" >"$tmp/mutant-markers.conf"
# cases NAME PORT SELECT [ARGS...]: iwspec run over the raw link into $tmp/NAME
cases() {
	name=$1 port=$2 sel=$3
	shift 3
	timeout 120 "$IWSPEC" run --dut "tcp:10.214.0.1:$port" --raw-link "$NS:$DEV" --cases "$sel" --no-progress \
		--pcap --report "$tmp/$name" "$@" >"$tmp/$name.out" 2>&1
}
verdicts() {
	jq -r '.cases[] | "\(.id) \(.verdict) \(.failed_requirement // "-") \(.duration_ms)"' "$tmp/$1/results.json" 2>/dev/null
}
reason() {
	jq -r --arg id "$2" '.cases[] | select(.id == $id) | .reason' "$tmp/$1/results.json" 2>/dev/null
}
t0=$(date +%s)
# One TAP, one connection at a time: the runs go one after the other.
cases plain 4791 'tcp.*' --dut-config "$tmp/nomarkers.conf"
cases markers 4792 'tcp.*-markers'
cases mutant 4793 'tcp.held-segment' --dut-config "$tmp/mutant.conf"
cases mutant-markers 4794 'tcp.held-segment-markers' --dut-config "$tmp/mutant-markers.conf"
t1=$(date +%s)
verdicts plain >"$tmp/plain.v"
verdicts markers >"$tmp/markers.v"
np=0 nm=0
while read -r id v req ms; do
	case $id in
	*-markers)
		[ "$v" = SKIP ] && nm=$((nm + 1)) || bad "$id against a DUT with markers = no: $v, SKIP expected" ;;
	*)
		if [ "$v" = PASS ]; then
			np=$((np + 1))
			echo "rawtcp: $id PASS ($ms ms)"
		else
			bad "$id: $v, PASS expected: $(reason plain "$id")"
		fi ;;
	esac
done <"$tmp/plain.v"
if [ $np -ge 6 ] && [ $nm -ge 6 ]; then
	ok "tcp.* without markers: $np PASS, $nm marker cases SKIP"
else
	bad "tcp.* without markers: $np PASS and $nm SKIP, at least 6 and 6 expected: $(tail -3 "$tmp/plain.out")"
fi
nk=0
while read -r id v req ms; do
	if [ "$v" = PASS ]; then
		nk=$((nk + 1))
		echo "rawtcp: $id PASS ($ms ms)"
	else
		bad "$id with markers: $v, PASS expected: $(reason markers "$id")"
	fi
done <"$tmp/markers.v"
[ $nk -ge 6 ] && ok "tcp.*-markers with markers: $nk PASS" || bad "tcp.*-markers: $nk PASS, at least 6 expected"
for run in mutant mutant-markers; do
	line=$(verdicts $run)
	case $line in
	*" FAIL MPA-5.4.1-01 "*) ok "mutant resync-on-read caught over the raw path: $line" ;;
	*) bad "$run: resync-on-read should FAIL the held-segment case citing MPA-5.4.1-01, got '$line'" ;;
	esac
done
echo "rawtcp: tcp.* runs $((t1 - t0)) s"

if command -v tshark >/dev/null 2>&1; then
	# One tshark pass per pcap: source, relative sequence number, length, expert messages.
	npcap=0
	for pcap in "$tmp"/plain/pcap/tcp.*.pcap "$tmp"/markers/pcap/tcp.*.pcap; do
		[ -f "$pcap" ] || continue
		npcap=$((npcap + 1))
		id=$(basename "$pcap" .pcap)
		tshark -n -r "$pcap" -T fields -E separator='|' -e ip.src -e tcp.seq -e tcp.len -e _ws.expert.message \
			2>/dev/null >"$tmp/fields"
		# behind: harness data segments ending at or below the highest octet it sent before;
		# unflagged: those of them tshark does not call out-of-order or a retransmission.
		# shellcheck disable=SC2046
		set -- $(awk -F'|' '
			$1 == "10.214.0.2" && $3 > 0 {
				end = $2 + $3
				if (seen && end <= top) { behind++; if ($4 !~ /[Oo]ut-[Oo]f-[Oo]rder|retransmission/) unflagged++ }
				if (!seen || end > top) top = end
				seen = 1
			}
			$1 == "10.214.0.1" && $4 ~ /Duplicate ACK/ { dup++ }
			$1 == "10.214.0.2" && $4 ~ /fast retransmission/ { fast++ }
			END { printf "%d %d %d %d\n", behind, unflagged, dup, fast }' "$tmp/fields")
		behind=$1 unflagged=$2 dup=$3 fast=$4
		if [ "$behind" -ge 1 ] && [ "$unflagged" = 0 ]; then
			ok "$id.pcap: $behind segment(s) sent behind the highest octet, each flagged by tshark"
		else
			bad "$id.pcap: $behind segment(s) sent behind the highest octet, $unflagged not flagged by tshark; at least 1, all flagged expected"
		fi
		case $id in
		# The harness retransmits after three ACKs of the hole's start; the first of them may be
		# the delayed ACK of the segment before the hole, which tshark does not call a duplicate
		# (the case's own note; seen in a fresh clone's make test under load: 2 and 1). tshark's
		# fast retransmission needs two duplicates before it: that is the bound.
		tcp.lost-segment*)
			if [ "$dup" -ge 2 ] && [ "$fast" -ge 1 ]; then
				ok "$id.pcap: $dup duplicate ACKs from the DUT, $fast fast retransmission(s)"
			else
				bad "$id.pcap: $dup duplicate ACKs and $fast fast retransmissions; at least 2 and 1 expected"
			fi ;;
		esac
	done
	[ $npcap -ge 12 ] || bad "$npcap tcp.* pcaps written, 12 expected"
fi
finish rawtcp
