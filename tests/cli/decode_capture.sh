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
