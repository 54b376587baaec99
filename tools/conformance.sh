#!/bin/sh
# The conformance matrix: the whole suite against the built-in DUT, `iwspec run --profile all`,
# for each DUT configuration (markers yes/no x crc required/optional-off, tests/conformance/*.conf,
# each run with the framing it declares: --markers on for markers = yes, --crc off for
# optional-off), plus the built-in DUT as an initiator (nomarkers-crc, --role initiator: the cases
# that open every connection with `startup` run in either role), and each resegmentation mode
# (none, octet, random, coalesce). Fails when any run
# has a FAIL or an ERROR. Runs are mostly waiting on the DUT, so they go JOBS at a time (each runs its cases 40 at a time).
# Each run writes its case pcaps (--pcap) and is then read twice: `iwspec crosscheck` decodes every
# case capture and fails the run on any disagreement between a verdict and what decode finds in
# the DUT's octets (docs/reports.md, "Cross-check with decode"); CROSSCHECK=0 leaves it out. The
# pcaps (1.2 GB for the matrix, mostly the octet columns') of a column that passed are removed
# afterwards, unless CONFORMANCE_OUT names where the reports go.
#
#   IWSPEC=build/iwspec JOBS=2 sh tools/conformance.sh [extra iwspec run options]
IWSPEC=${IWSPEC:-build/iwspec}
JOBS=${JOBS:-2}
DIR=$(cd "$(dirname "$0")/.." && pwd)
KEEP_PCAPS=${CONFORMANCE_OUT:+yes}
OUT=${CONFORMANCE_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
MODES=${MODES:-"none octet random coalesce"}
CONFIGS="markers-crc nomarkers-crc markers-nocrc nomarkers-nocrc initiator"
EXTRA="$*"
CROSSCHECK=${CROSSCHECK:-1}
start=$(date +%s)

run_one() { # config mode
	flags=""
	conf=$1
	case $1 in markers-*) flags="--markers on" ;; *) flags="--markers off" ;; esac
	case $1 in *-nocrc) flags="$flags --crc off" ;; esac
	case $1 in initiator) conf=nomarkers-crc flags="$flags --role initiator" ;; esac
	"$IWSPEC" run --profile all --no-progress --case-dir "$DIR/cases" \
		--dut-config "$DIR/tests/conformance/$conf.conf" --resegment "$2" $flags \
		--report "$OUT/$1-$2" --pcap $EXTRA >"$OUT/$1-$2.log" 2>&1
	echo $? >"$OUT/$1-$2.rc"
}

# The cross-checks of the runs just finished, in the background: they take CPU while the next
# runs mostly wait on the DUT (the next `wait` waits for both).
check_runs() { # config-mode...
	[ "$CROSSCHECK" != 0 ] || return 0
	for r in "$@"; do
		("$IWSPEC" crosscheck "$OUT/$r" >"$OUT/$r.xcheck" 2>&1; echo $? >"$OUT/$r.xrc") &
	done
}

n=0
batch=
for c in $CONFIGS; do
	for m in $MODES; do
		run_one "$c" "$m" &
		batch="$batch $c-$m"
		n=$((n + 1))
		if [ $((n % JOBS)) -eq 0 ]; then
			wait
			check_runs $batch
			batch=
		fi
	done
done
wait
check_runs $batch
wait

bad=0
xc=0
printf '%-18s %-9s %5s %5s %5s %5s %5s %5s %8s\n' config mode PASS FAIL WARN INFO SKIP ERROR seconds
for c in $CONFIGS; do
	for m in $MODES; do
		log="$OUT/$c-$m.log"
		get() { sed -n "s/^  $1 *\([0-9][0-9]*\)\$/\1/p" "$log" | head -1; }
		secs=$(sed -n 's/^  [0-9]* cases in \([0-9.]*\) s.*/\1/p' "$log" | head -1)
		p=$(get PASS) f=$(get FAIL) w=$(get WARN) i=$(get INFO) s=$(get SKIP) e=$(get ERROR)
		printf '%-18s %-9s %5s %5s %5s %5s %5s %5s %8s\n' "$c" "$m" "${p:--}" "${f:--}" "${w:--}" "${i:--}" \
			"${s:--}" "${e:--}" "${secs:--}"
		rc=$(cat "$OUT/$c-$m.rc" 2>/dev/null || echo 9)
		colbad=0
		if [ "$rc" != 0 ] || [ "${f:-1}" != 0 ] || [ "${e:-1}" != 0 ]; then
			colbad=1
			echo "  $c/$m: exit $rc; see $log" >&2
			grep -A2 '^  FAIL  \|^  ERROR  ' "$log" | head -20 >&2
		fi
		if [ "$CROSSCHECK" = 0 ]; then
			bad=$((bad + colbad))
			[ $colbad -ne 0 ] || [ -n "$KEEP_PCAPS" ] || rm -rf "$OUT/$c-$m/pcap"
			continue
		fi
		x="$OUT/$c-$m.xcheck"
		n=$(sed -n 's/^crosscheck .*: [0-9]* cases, \([0-9]*\) captures decoded.*/\1/p' "$x" 2>/dev/null)
		xc=$((xc + ${n:-0}))
		if [ "$(cat "$OUT/$c-$m.xrc" 2>/dev/null || echo 9)" != 0 ]; then
			colbad=1
			echo "  $c/$m: the verdicts and decode of the case pcaps disagree (iwspec crosscheck $OUT/$c-$m):" >&2
			grep -v '^crosscheck ' "$x" 2>/dev/null | head -20 | sed 's/^/    /' >&2
		fi
		bad=$((bad + colbad))
		[ $colbad -ne 0 ] || [ -n "$KEEP_PCAPS" ] || rm -rf "$OUT/$c-$m/pcap"
	done
done
echo "conformance matrix: $(( $(date +%s) - start )) s, reports in $OUT"
if [ "$CROSSCHECK" != 0 ]; then
	echo "crosscheck: $xc case captures decoded and held against their verdicts (iwspec crosscheck DIR lists each disagreement)"
fi
total=$(( $(echo $CONFIGS | wc -w) * $(echo $MODES | wc -w) ))
echo "conformance: $((total - bad)) passed, $bad failed"
[ $bad -eq 0 ]
