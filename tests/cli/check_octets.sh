#!/bin/sh
# tools/check-octets.sh finds a hand read of protocol octets outside suite/engine/ and names it, and
# passes this tree (issue 13: the engine is the only parser).
. "$(dirname "$0")/lib.sh"
fail_tag="check_octets: "

sh "$ROOT/tools/check-octets.sh" >"$tmp/out" 2>&1 && ok || bad "this tree has hand reads: $(cat "$tmp/out")"

for d in suite/capture suite/case drivers suite/rawtcp suite/verify suite/run reports fuzz/network vectors suite/cli reflector tests/bench; do
	mkdir -p "$tmp/tree/$d"
	cp "$ROOT/$d"/*.[ch] "$tmp/tree/$d/" 2>/dev/null
done
# Each planted line is one of the three shapes the check knows.
n=0
for line in 'static int f(const unsigned char *hdr) { return hdr[16] & IW_MPA_FLAG_M; }' \
	'static unsigned g(const unsigned char *b) { return (unsigned)b[0] << 8 | b[1]; }' \
	'static void h(unsigned char *o, unsigned v) { o[18] = (uint8_t)(v >> 8); }'; do
	n=$((n + 1))
	printf '%s\n' "$line" >"$tmp/tree/suite/run/planted.c"
	if sh "$ROOT/tools/check-octets.sh" "$tmp/tree" >"$tmp/out" 2>&1; then
		bad "planted line $n passed: $line"
	elif grep -q "suite/run/planted.c:1:" "$tmp/out" && grep -q 'hand read' "$tmp/out"; then
		ok
	else
		bad "planted line $n: the message does not name suite/run/planted.c:1: $(cat "$tmp/out")"
	fi
done
# An allowed file stays allowed wherever the tree is.
rm -f "$tmp/tree/suite/run/planted.c"
printf 'static unsigned x(const unsigned char *p) { return (unsigned)(p[0] >> 4); }\n' >>"$tmp/tree/suite/capture/pcap_read.c"
sh "$ROOT/tools/check-octets.sh" "$tmp/tree" >"$tmp/out" 2>&1 && ok || bad "an allowed file was flagged: $(cat "$tmp/out")"

finish check_octets
