#!/bin/sh
# tools/check-octets.sh finds a hand read of protocol octets outside suite/engine/ and names it, and
# passes this tree (issue 13: the engine is the only parser).
DIR=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "check_octets: FAIL: $*" >&2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

sh "$DIR/tools/check-octets.sh" >"$T/out" 2>&1 && ok || ko "this tree has hand reads: $(cat "$T/out")"

for d in suite/capture suite/case drivers suite/rawtcp suite/verify suite/run reports fuzz/network vectors suite/cli reflector tests/bench; do
	mkdir -p "$T/tree/$d"
	cp "$DIR/$d"/*.[ch] "$T/tree/$d/" 2>/dev/null
done
# Each planted line is one of the three shapes the check knows.
n=0
for line in 'static int f(const unsigned char *hdr) { return hdr[16] & IW_MPA_FLAG_M; }' \
	'static unsigned g(const unsigned char *b) { return (unsigned)b[0] << 8 | b[1]; }' \
	'static void h(unsigned char *o, unsigned v) { o[18] = (uint8_t)(v >> 8); }'; do
	n=$((n + 1))
	printf '%s\n' "$line" >"$T/tree/suite/run/planted.c"
	if sh "$DIR/tools/check-octets.sh" "$T/tree" >"$T/out" 2>&1; then
		ko "planted line $n passed: $line"
	elif grep -q "suite/run/planted.c:1:" "$T/out" && grep -q 'hand read' "$T/out"; then
		ok
	else
		ko "planted line $n: the message does not name suite/run/planted.c:1: $(cat "$T/out")"
	fi
done
# An allowed file stays allowed wherever the tree is.
rm -f "$T/tree/suite/run/planted.c"
printf 'static unsigned x(const unsigned char *p) { return (unsigned)(p[0] >> 4); }\n' >>"$T/tree/suite/capture/pcap_read.c"
sh "$DIR/tools/check-octets.sh" "$T/tree" >"$T/out" 2>&1 && ok || ko "an allowed file was flagged: $(cat "$T/out")"

echo "check_octets: $pass passed, $fail failed"
[ $fail -eq 0 ]
