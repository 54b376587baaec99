#!/bin/sh
# The raw segment path (rawtcp/, docs/raw-segments.md) against the built-in DUT behind a TAP
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
# Needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN), /dev/net/tun and iproute2: without them it
# prints SKIP and the reason, except under CI=true, where it fails. The namespace (named with
# this process's id, so runs side by side do not collide) goes away on exit.
#
#   IWSPEC=build/iwspec PROBE=build/rawtcp_probe sh tests/cli/rawtcp.sh
IWSPEC=${IWSPEC:-build/iwspec}
PROBE=${PROBE:-$(dirname "$IWSPEC")/rawtcp_probe}
NS=iwspec-raw-$$
DEV=iwraw0
PORT=4791
pass=0
failn=0

ok() {
	pass=$((pass + 1))
	echo "rawtcp: ok: $*"
}
bad() {
	failn=$((failn + 1))
	echo "rawtcp: FAIL: $*" >&2
}
skip() {
	if [ "${CI:-}" = true ]; then
		echo "rawtcp: FAIL: $* (CI must run the raw segment path)" >&2
		echo "rawtcp: 0 passed, 1 failed"
		exit 1
	fi
	echo "rawtcp: SKIP: $*"
	echo "rawtcp: 0 passed, 0 failed"
	exit 0
}

[ "$(id -u)" = 0 ] || skip "needs root (TAP device and network namespace)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun (load the tun module)"
command -v ip >/dev/null 2>&1 || skip "iproute2 (ip) is not installed"
for b in "$IWSPEC" "$PROBE"; do
	if [ ! -x "$b" ]; then
		echo "rawtcp: FAIL: $b is not built (make all)" >&2
		echo "rawtcp: 0 passed, 1 failed"
		exit 1
	fi
done

tmp=$(mktemp -d)
dut=
cleanup() {
	[ -n "$dut" ] && kill "$dut" 2>/dev/null && wait "$dut" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

if ! ip netns add "$NS" 2>"$tmp/err"; then
	skip "cannot create a network namespace: $(cat "$tmp/err")"
fi
# No IPv6 in the namespace: the link carries only what the test sends and the DUT answers.
ip netns exec "$NS" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' 2>/dev/null
ip netns exec "$NS" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6' 2>/dev/null
if ! { ip -n "$NS" link set lo up && ip -n "$NS" tuntap add dev "$DEV" mode tap &&
	ip -n "$NS" addr add 10.214.0.1/24 dev "$DEV" && ip -n "$NS" link set "$DEV" up; } 2>"$tmp/err"; then
	bad "setting up $DEV in $NS: $(cat "$tmp/err")"
	echo "rawtcp: $pass passed, $failn failed"
	exit 1
fi

ip netns exec "$NS" "$IWSPEC" serve --host 10.214.0.1 --port $PORT --quiet >"$tmp/dut.log" 2>&1 &
dut=$!
i=0
until grep -q listening "$tmp/dut.log" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$dut" 2>/dev/null; then
		bad "the built-in DUT did not start in $NS: $(cat "$tmp/dut.log")"
		echo "rawtcp: $pass passed, $failn failed"
		exit 1
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
echo "rawtcp: $pass passed, $failn failed"
[ $failn -eq 0 ]
