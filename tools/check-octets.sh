#!/bin/sh
# The engine is the only parser of protocol octets (issue 13): outside suite/engine/, no code reads a
# header field by indexing a buffer at a fixed offset and shifting or masking it, assembles an
# integer from indexed octets, or writes one into octets by hand. Such code goes through the
# engine's views and setters (mpa_frame.h, mpa_fpdu.h, ddp.h, rdmap.h, iw_octets.h,
# iw_field_span.h). Part of `make test`; exits 1 naming every new hand read.
#
# Scanned: the pipeline's folders and the benchmarks. Not scanned: suite/engine/ (it is the parser),
# tests/ (tests poke octets on purpose), and fuzz/, whose oracles are deliberately independent
# of the engine: fuzz/refwalk.c is a second FPDU decoder written apart from suite/engine/mpa_rx.c,
# and the targets check the engine's decodes against their own reading of the octets
# (docs/fuzzing.md). Lines that index octets for another reason are listed, with that reason,
# in tools/check-octets.allow.
#
#   sh tools/check-octets.sh [TREE]     (TREE: another checkout to scan, default this one)
set -eu
ALLOW=$(cd "$(dirname "$0")" && pwd)/check-octets.allow
cd "${1:-$(dirname "$0")/..}"
DIRS="suite/capture suite/case drivers suite/rawtcp suite/verify suite/run reports fuzz/network vectors suite/cli reflector tests/bench"
# 1: an indexed element shifted or masked; 2: an integer assembled from an indexed element;
# 3: a shifted value stored into an indexed octet.
cat >"${TMPDIR:-/tmp}/iw-octet-re.$$" <<'RE'
[A-Za-z_][A-Za-z0-9_]*((->|\.)[A-Za-z0-9_]+)*\[[0-9]+\] *(<<|>>|& *(0x|[A-Z(])|\| *[(A-Za-z])
(<<|>>) *[0-9]+ *\| *(\([a-z0-9_ ]+\))? *[A-Za-z_][A-Za-z0-9_]*((->|\.)[A-Za-z0-9_]+)*\[[0-9]+\]
\[[0-9]+\] *= *\(uint8_t\) *\(?[^;]*(>>|<<)
RE
files=$(for d in $DIRS; do ls "$d"/*.c "$d"/*.h 2>/dev/null || true; done)
# shellcheck disable=SC2086
hits=$(grep -nE -f "${TMPDIR:-/tmp}/iw-octet-re.$$" $files || true)
rm -f "${TMPDIR:-/tmp}/iw-octet-re.$$"
echo "$hits" | while IFS= read -r line; do
	[ -n "$line" ] || continue
	file=${line%%:*}
	text=${line#*:*:}
	allowed=no
	while IFS= read -r a; do
		case $a in '#'* | '') continue ;; esac
		afile=${a%%	*}
		apat=${a#*	}
		apat=${apat%%	*}
		if [ "$afile" = "$file" ] && { [ "$apat" = '*' ] || case $text in *"$apat"*) true ;; *) false ;; esac; }; then
			allowed=yes
			break
		fi
	done <"$ALLOW"
	if [ $allowed = no ]; then
		echo "check-octets: $line" >&2
		echo x
	fi
done >"${TMPDIR:-/tmp}/iw-octet-bad.$$"
bad=$(wc -l <"${TMPDIR:-/tmp}/iw-octet-bad.$$")
rm -f "${TMPDIR:-/tmp}/iw-octet-bad.$$"
n=$(echo "$hits" | grep -c . || true)
if [ "$bad" -ne 0 ]; then
	echo "check-octets: $bad hand read(s) of protocol octets outside suite/engine/: use the engine's views" \
		"(mpa_frame.h, mpa_fpdu.h, ddp.h, rdmap.h, iw_octets.h), or list the line in tools/check-octets.allow with the reason" >&2
	exit 1
fi
echo "check-octets: no hand read of protocol octets outside suite/engine/ ($n indexed lines allowed by $ALLOW)"
