#!/bin/sh
# CLI tests of `iwspec decode CAPTURE` on captures of many connections (issue 14): one line per
# connection and a summary by default, every Request that no Reply answers reported
# (MPA-6.1-R2a) and the capture not said to conform then, --details and --json, --max-conns and
# --max-buffer; and memory bounded by the connections open at once, not by the capture: max RSS
# of decoding 10k and 100k short connections measured with /usr/bin/time -v (printed, and held
# under a generous bound: memory, not timing). The captures are written by tests/cli/gen_conns.c
# (the project's pcap writer), built here. Run from vectors.sh; $IWSPEC names the binary, $CC
# the compiler. Ends with "decode-capture: N passed, N failed".
. "$(dirname "$0")/lib.sh"
CC=${CC:-cc}
RSS_MAX_KB=102400           # 100 MB for 100k short connections (measured: under 10 MB)
say() { echo "decode-capture: $*"; }
# expect STATUS DESC CMD...: the output in $tmp/out; under /usr/bin/time when there is one.
expect() {
	want=$1; shift; desc=$1; shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err"
	else
		"$@" >"$tmp/out" 2>"$tmp/err"
	fi
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else bad "$desc: exit $got, wanted $want"; head -c 2000 "$tmp/err" >&2; fi
}
contains() {
	if grep -q -- "$1" "$tmp/out"; then ok; else bad "$2: output lacks '$1'"; tail -5 "$tmp/out" | sed 's/^/    /' >&2; fi
}
lacks() {
	if grep -q -- "$1" "$tmp/out"; then bad "$2: output has '$1'"; else ok; fi
}
# count PATTERN WANT DESC: lines of $tmp/out matching PATTERN.
count() {
	n=$(grep -c -- "$1" "$tmp/out")
	if [ "$n" -eq "$2" ]; then ok; else bad "$3: $n lines match '$1', wanted $2"; fi
}
# The last run's max RSS in kB and wall time, from /usr/bin/time -v.
rss() { sed -n 's/.*Maximum resident set size (kbytes): *//p' "$tmp/time"; }
wall() { sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): *//p' "$tmp/time"; }
# measure DESC: prints the figures; holds RSS under RSS_MAX_KB unless a sanitizer inflates it.
measure() {
	if [ ! -x /usr/bin/time ]; then
		say "SKIP memory of $1: /usr/bin/time is missing (apt-get install time)"
		return
	fi
	r=$(rss)
	say "$1: max RSS $r kB, wall $(wall), $(wc -l <"$tmp/out") lines, $(wc -c <"$tmp/out") octets of output"
	if [ -n "${ASAN_OPTIONS:-}" ]; then
		say "SKIP the memory bound of $1: a sanitizer build ($(basename "$IWSPEC")) holds freed memory in quarantine"
	elif [ "$r" -lt $RSS_MAX_KB ]; then ok; else bad "$1: max RSS $r kB, over $RSS_MAX_KB kB"; fi
}

# ---- usage ----
expect 0 "decode --help" "$IWSPEC" decode --help
contains "--details, -v" "help names --details"
contains "--max-conns N" "help names --max-conns"
contains "--max-buffer SIZE" "help names --max-buffer"
contains "MPA-6.1-R2a" "help says what a missing Reply breaks"
contains "one line" "help says the default is one line per connection"
contains "--side initiator|responder" "help names --side"
contains "--dut ADDRESS\[:PORT\]" "help names --dut"
contains "counted apart, and said once in the summary" "help says the other side is not judged, said once"
expect 2 "--side sideways" "$IWSPEC" decode --side sideways "$tmp/none.pcap"
grep -q "use initiator or responder" "$tmp/err" && ok || bad "--side sideways: message"
expect 2 "--dut by name" "$IWSPEC" decode --dut dut.example:4791 "$tmp/none.pcap"
grep -q "not a numeric IPv4 or IPv6 address" "$tmp/err" && ok || bad "--dut by name: message"
expect 2 "--dut port 0" "$IWSPEC" decode --dut 10.0.0.2:0 "$tmp/none.pcap"
expect 2 "--side on a stream" "$IWSPEC" decode --side responder --hex 00
expect 2 "--max-conns 0" "$IWSPEC" decode --max-conns 0 "$tmp/none.pcap"
grep -q "is not a positive number" "$tmp/err" && ok || bad "--max-conns 0: message"
expect 2 "--max-buffer 12X" "$IWSPEC" decode --max-buffer 12X "$tmp/none.pcap"
expect 2 "--max-conns on a stream" "$IWSPEC" decode --max-conns 5 --hex 00
grep -q "apply to a capture only" "$tmp/err" && ok || bad "--max-conns on a stream: message"

# ---- the capture writer ----
if ! "$CC" -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -I"$ROOT/suite/capture" -I"$ROOT/suite/engine" \
	-o "$tmp/gen" "$ROOT/tests/cli/gen_conns.c" "$ROOT/suite/capture/pcap_write.c" "$ROOT/suite/capture/atomic_file.c" \
	"$ROOT/suite/engine/iw_err.c" -lpcap >"$tmp/cc.log" 2>&1; then
	if [ "${CI:-}" = true ]; then
		bad "cannot build tests/cli/gen_conns.c: $(head -c 300 "$tmp/cc.log")"
	else
		say "SKIP many-connection captures: cannot build tests/cli/gen_conns.c with $CC and libpcap ($(head -c 200 "$tmp/cc.log" | tr '\n' ' '))"
	fi
	finish decode-capture
	exit
fi
gen() { "$tmp/gen" "$@" || bad "gen_conns $*"; }

expect 2 "--details with --json" "$IWSPEC" decode --details --json "$tmp/none.pcap"
gen "$tmp/mixed8.pcap" 8 mixed 2
expect 2 "--details with --json" "$IWSPEC" decode --details --json "$tmp/mixed8.pcap"
grep -q "do not go together" "$tmp/err" && ok || bad "--details --json: message"

# ---- one side judged (issue 38): a suite run's capture holds the harness's deliberate faults ----
# The initiator (a harness) sends a Send whose CRC is wrong; the responder (the DUT) conforms.
gen "$tmp/inifault.pcap" 4 badcrc 2
expect 1 "the initiator's fault, both sides judged" "$IWSPEC" decode "$tmp/inifault.pcap"
contains "violations by side: initiator 4 in 4 connections, responder 0 in 0 connections" "per-side counts"
expect 0 "the initiator's fault, --side responder" "$IWSPEC" decode --side responder "$tmp/inifault.pcap"
count ": responder: conforms$" 4 "each line is the responder's verdict"
count "^judged: " 1 "the side judged said once"
contains "^judged: the responder's side only (--side responder); the initiator's 4 violations are listed as not judged" \
	"the other side's violations said once, with their count"
contains "^the capture conforms on the side judged: 4 MPA connections" "the verdict is the responder's"
lacks "VIOLATION" "no violation of the side not judged on the lines"
expect 1 "the initiator's fault, --side initiator" "$IWSPEC" decode --side initiator "$tmp/inifault.pcap"
expect 0 "the initiator's fault, --dut 10.0.0.2:4791 (the responder)" "$IWSPEC" decode --dut 10.0.0.2:4791 "$tmp/inifault.pcap"
count ": the DUT, responder: conforms$" 4 "the DUT named by its endpoint"
expect 1 "the initiator's fault, --dut 10.1.0.1 (the initiator)" "$IWSPEC" decode --dut 10.1.0.1 "$tmp/inifault.pcap"
expect 0 "--details --side responder" "$IWSPEC" decode --details --side responder "$tmp/inifault.pcap"
count "^  not judged: VIOLATION MPA-5.2-11" 4 "the other side's violations listed as not judged"
expect 0 "--json --side responder" "$IWSPEC" decode --json --side responder "$tmp/inifault.pcap"
contains '"violations_not_judged": 4' "JSON: the violations not judged counted apart"
contains '"judged": false' "JSON: marked not judged"
expect 3 "--dut that is in no connection" "$IWSPEC" decode --dut 192.0.2.9 "$tmp/inifault.pcap"
contains "nothing to judge: none of its 4 MPA connections has the DUT (192.0.2.9) as an endpoint" "said why"
# The reverse: the responder (the DUT) never answers; the initiator conforms.
gen "$tmp/rspfault.pcap" 4 noreply 2
expect 1 "the responder's fault, both sides judged" "$IWSPEC" decode "$tmp/rspfault.pcap"
expect 0 "the responder's fault, --side initiator" "$IWSPEC" decode --side initiator "$tmp/rspfault.pcap"
contains "^the capture conforms on the side judged: 4 MPA connections" "the verdict is the initiator's"
expect 1 "the responder's fault, --side responder" "$IWSPEC" decode --side responder "$tmp/rspfault.pcap"
count ": responder: 1 violation: VIOLATION MPA-6.1-R2a" 4 "each line names the responder's violation"
contains "^4 violations on the side judged in 4 MPA connections" "the verdict counts the side judged"
expect 1 "the responder's fault, --dut 10.0.0.2" "$IWSPEC" decode --dut 10.0.0.2 "$tmp/rspfault.pcap"
expect 0 "the responder's fault, --dut 10.1.0.1:1024 (one initiator)" "$IWSPEC" decode --dut 10.1.0.1:1024 "$tmp/rspfault.pcap"
contains "3 without the DUT as an endpoint, not judged" "the connections without the DUT are not judged"

# ---- 10k and 100k connections, each a Request that no Reply answers, 8 in flight ----
for n in 10000 100000; do
	if [ $n -eq 100000 ] && [ -n "${ASAN_OPTIONS:-}" ]; then
		say "SKIP 100000 connections under a sanitizer build (10000 ran)"
		continue
	fi
	gen "$tmp/c.pcap" $n noreply 8
	expect 1 "$n connections without a Reply" "$IWSPEC" decode "$tmp/c.pcap"
	measure "$n connections"
	count "^connection " $n "one line per connection"
	count "^connection [0-9]*: .*, FPDUs 0+0, profile rfc5044 (from Rev 1): 1 violation, responder: VIOLATION MPA-6.1-R2a at offset 0: error: no Reply to the Request (frame [0-9]*): the responder sent nothing before the connection closed (FIN both ways" \
		$n "each connection's line names the missing Reply"
	lines=$(wc -l <"$tmp/out")
	if [ "$lines" -le $((n + 6)) ]; then ok; else bad "$n connections: $lines lines of output, wanted about one per connection"; fi
	contains "^$n MPA connections: 0 conform, $n with violations ($n Requests without a Reply, MPA-6.1-R2a)" "summary counts"
	contains "^$n violations in $n MPA connections" "the verdict"
	lacks "the capture conforms" "no conformance claimed"
	contains "$n TCP connections, at most [0-9]* open at once" "connections open at once reported"
	open_most=$(sed -n 's/.*at most \([0-9]*\) open at once.*/\1/p' "$tmp/out")
	if [ "${open_most:-99999}" -le 100 ]; then ok; else bad "$n connections, 8 in flight: $open_most held at once"; fi
done

# ---- a mix: answered or not, closed by FINs or an RST, 32 in flight ----
gen "$tmp/mixed.pcap" 2000 mixed 32
expect 1 "2000 mixed connections" "$IWSPEC" decode "$tmp/mixed.pcap"
count ": conforms$" 1000 "the answered connections conform"
count "VIOLATION MPA-6.1-R2a" 1000 "the unanswered ones are reported"
count "before the connection was reset (RST at frame" 500 "an RST ends them too"
contains "^2000 MPA connections: 1000 conform, 1000 with violations (1000 Requests without a Reply, MPA-6.1-R2a)" "mixed summary"

# ---- the details and the JSON document ----
expect 1 "decode --details" "$IWSPEC" decode --details "$tmp/mixed8.pcap"
count "MPA Request frame" 8 "every Request detailed"
count "MPA Reply frame" 4 "every Reply detailed"
count "^  VIOLATION MPA-6.1-R2a at offset 0: error: no Reply" 4 "the missing Replies in the details"
count "^connection [0-9]*: 10.1.0.1:[0-9]* -> 10.0.0.2:4791, profile rfc5044" 8 "a header per connection"
expect 1 "decode -v" "$IWSPEC" decode -v "$tmp/mixed8.pcap"
count "MPA Request frame" 8 "-v is --details"
expect 1 "decode --json" "$IWSPEC" decode --json "$tmp/mixed8.pcap"
contains '"requests_without_reply": 4' "JSON summary"
contains '"conforms": false' "JSON verdict"
count '"requirement": "MPA-6.1-R2a"' 4 "JSON violations"
if perl -MJSON::PP -e 1 2>/dev/null; then
	if perl -MJSON::PP -e 'local $/; my $d = JSON::PP->new->decode(<STDIN>);
		exit(@{$d->{connections}} == 8 && $d->{summary}{conforming} == 4 ? 0 : 1)' <"$tmp/out"; then ok
	else bad "the JSON document does not parse, or lacks 8 connections and 4 conforming"; fi
else
	say "SKIP parsing the JSON document: perl's JSON::PP is missing"
fi

# ---- at most N connections held: evicted, judged as far as they went, said so ----
gen "$tmp/open.pcap" 20000 open 1
expect 0 "20000 open connections, --max-conns 1000" "$IWSPEC" decode --max-conns 1000 "$tmp/open.pcap"
measure "20000 open connections, --max-conns 1000"
contains "20000 TCP connections, at most 1000 open at once" "never more than --max-conns held"
count "conforms; NOTE (not judged to its end): evicted at frame [0-9]*, when more than 1000 connections were open at once (--max-conns)" \
	19000 "each eviction said"
contains "19000 not judged to their end" "evictions counted"
contains "the capture conforms as far as it was judged: 20000 MPA connections, 19000 not to their end" "qualified verdict"
expect 0 "--max-buffer 4K" "$IWSPEC" decode --max-buffer 4K "$tmp/open.pcap"
contains "when the octets held for open connections reached 4096 (--max-buffer)" "evicted for the octets held"
contains "20000 MPA connections: 20000 conform" "every connection still judged"

finish decode-capture
