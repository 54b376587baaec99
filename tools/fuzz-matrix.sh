#!/bin/sh
# fuzz-matrix.sh: iwspec fuzz against the built-in DUT, conforming and as each mutant, in the
# DUT configurations a lab declares (issue 38: a fuzzer with no false finding). The conforming
# DUT runs in every marker and CRC setting (markers yes/no x crc required/optional-off) and must
# give no finding; each mutant runs in the setting it applies to (iwspec mutants --list: a
# markers mutant with markers on, a crc-off one in the no-CRC mode, the others in the default),
# and its findings are listed with their IDs, "right" when one is the mutant's requirement. A mutant of the startup exchange that breaks calibration's conforming
# startup stops the fuzzer with exit 3: said so, not a false finding.
#
#   sh tools/fuzz-matrix.sh [CLEAN-SECONDS [MUTANT-SECONDS [JOBS]]]   (default 60 15 2)
#
# Writes out/fuzz-matrix/matrix.txt (a line per run) and exits 1 when the conforming DUT had a
# finding in any setting. The fuzzers' own reports are in out/fuzz-matrix/<run>/.
set -u
cd "$(dirname "$0")/.."
IWSPEC=${IWSPEC:-build/iwspec}
CLEAN=${1:-60}
MUT=${2:-15}
JOBS=${3:-2}
if [ "${1:-}" = --job ]; then
	OUT=${OUT:-out/fuzz-matrix}
else
	OUT=out/fuzz-matrix
	rm -rf "$OUT"
	mkdir -p "$OUT"
fi

# job NAME MUTANT MARKERS CRC SECONDS: one fuzz run, its summary line into $OUT/NAME.line.
job() {
	name=$1 mutant=$2 markers=$3 crc=$4 secs=$5
	printf 'dut = ref\nmarkers = %s\ncrc = %s\n' "$markers" "$crc" >"$OUT/$name.conf"
	# --mutant, not the configuration's key: a crash mutant then runs as a process of its own.
	set -- --dut-config "$OUT/$name.conf"
	[ "$mutant" = none ] || set -- "$@" --mutant "$mutant"
	"$IWSPEC" fuzz "$@" --seed 1 --time "${secs}s" --max-findings 5 --out "$OUT/$name" --no-progress \
		>"$OUT/$name.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^fuzz: \([0-9]*\) runs.*/\1/p' "$OUT/$name.log" | tail -1)
	ids=$(sed -n 's/^iwspec fuzz: FINDING [0-9]* ([^)]*): [a-z-]* \[\([^]]*\)\].*/\1/p' "$OUT/$name.log" |
		sort -u | tr '\n' ' ')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mutant" "markers=$markers" "crc=$crc" "exit $rc" "runs ${runs:-0}" \
		"${ids:-none}" "$(grep -m1 '^iwspec fuzz: .*calibration' "$OUT/$name.log" | cut -c1-160)" >"$OUT/$name.line"
}

if [ "${1:-}" = --job ]; then
	shift
	job "$@"
	echo "fuzz-matrix: $1 done: $(cut -f4-6 "$OUT/$1.line")"
	exit 0
fi

# The list of jobs, then JOBS at a time.
: >"$OUT/jobs"
for m in no yes; do
	for c in required optional-off; do
		echo "clean-m$m-$c none $m $c $CLEAN" >>"$OUT/jobs"
	done
done
"$IWSPEC" mutants --list | while read -r name family req applies _; do
	case " $applies " in
	*" markers "*) echo "$name-markers $name yes required $MUT" ;;
	*" crc-off "*) echo "$name-crcoff $name no optional-off $MUT" ;;
	*) echo "$name $name no required $MUT" ;;
	esac
done >>"$OUT/jobs"
n=$(wc -l <"$OUT/jobs")
echo "fuzz-matrix: $n runs, $JOBS at a time"
# JOBS at a time: each line of the list is one `sh fuzz-matrix.sh --job ...` (xargs -P).
IWSPEC=$IWSPEC OUT=$OUT xargs -P "$JOBS" -L 1 sh "$0" --job <"$OUT/jobs"

# The matrix: the mutant's requirement next to the IDs found.
{
	printf 'mutant\tsetting\t\texit\truns\tfindings (IDs)\tright\n'
	reqs=$("$IWSPEC" mutants --list | awk '{ print $1 " " $3 }')
	for f in "$OUT"/*.line; do
		IFS='	' read -r mutant mk cr rc runs ids cal <"$f"
		req=$(echo "$reqs" | awk -v m="$mutant" '$1 == m { print $2 }')
		right=-
		if [ "$mutant" = none ]; then
			[ "$ids" = none ] && right="ok (no finding)" || right="FALSE FINDING"
		elif [ "$rc" = "exit 3" ]; then
			right="calibration stopped: ${cal:-see the log}"
		else
			case " $ids " in *" $req "*) right=yes ;; *) right="no ($req)" ;; esac
		fi
		printf '%s\t%s %s\t%s\t%s\t%s\t%s\n' "$mutant" "$mk" "$cr" "$rc" "$runs" "$ids" "$right"
	done
} >"$OUT/matrix.txt"
cat "$OUT/matrix.txt"
false_findings=$(grep -c 'FALSE FINDING' "$OUT/matrix.txt")
right=$(grep -c '	yes$' "$OUT/matrix.txt")
mutants=$(grep -vc '^none\|^mutant' "$OUT/matrix.txt")
echo "fuzz-matrix: conforming DUT: $false_findings settings with a finding (of 4); mutant runs: $right of $mutants with a finding under the mutant's own requirement"
[ "$false_findings" -eq 0 ]
