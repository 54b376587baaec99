#!/bin/bash
# The shards of one siw campaign as one (`make fuzz-siw SHARD=I/N` on N machines,
# .github/workflows/fuzz-siw.yml's last job): their corpora and findings merged by `iwspec fuzz
# --merge` (the union of arcs, each kept program once, each finding once), their coverage by
# tools/siw-guest/coverage.sh (a label per shard, and all), their counts added up, in
# OUT/summary.json and OUT/summary.html.
#
#   bash tools/fuzz-siw-merge.sh [--out OUT] DIR...      (DIR: a shard's output directory)
#
# Exit: 0, 1 a kernel finding a shard's baseline does not allow (the night's only failure: the
# network findings are reported, not gated), 2 usage or a directory that is not a shard's.
set -u
DIR=$(cd "$(dirname "$0")/.." && pwd)
IWSPEC=${IWSPEC:-$DIR/build/iwspec}
OUT=out/fuzz-siw-merged
SHARDS=()
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=$2; shift ;;
	-h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	-*) echo "fuzz-siw-merge: unknown option '$1' (--help)" >&2; exit 2 ;;
	*) SHARDS+=("$1") ;;
	esac
	shift
done
say() { echo "fuzz-siw-merge: $*"; }
[ ${#SHARDS[@]} -gt 0 ] || { say "give the shards' output directories (--help)" >&2; exit 2; }
for d in "${SHARDS[@]}"; do
	[ -f "$d/summary.json" ] || { say "$d has no summary.json: not the output of tools/fuzz-siw.sh (make fuzz-siw SHARD=I/N)" >&2; exit 2; }
done
command -v jq >/dev/null 2>&1 || { say "jq is missing (apt-get install jq)" >&2; exit 2; }
mkdir -p "$OUT"
"$IWSPEC" fuzz --merge "${SHARDS[@]}" --out "$OUT" >"$OUT/merge.log" 2>&1 || { cat "$OUT/merge.log" >&2; exit 2; }
sed 's/^/fuzz-siw-merge: /' "$OUT/merge.log"

# The counts of every shard, added up; the kernel findings of all, each signature once.
jq -s '{
	shards: [ .[] | {shard, seed: (.seed_fuzzed // (if (.shard // "") != "" then ((.shard | split("/") | map(tonumber)) as $sn | .seed * $sn[1] + $sn[0] - 1) else .seed end)), runs, runs_initiator, fuzz_s, runs_per_s, guest_dead,
		arcs: (.siw_coverage.arcs_reached // null), findings: (.findings | length), kernel_findings: (.kernel_findings | length)} ],
	runs: (map(.runs) | add), runs_initiator: (map(.runs_initiator // 0) | add), fuzz_s: (map(.fuzz_s) | add),
	guest_dead: (map(.guest_dead) | add),
	kernel_findings: ([ .[] | .kernel_findings[] ] | group_by(.signature) | map({signature: .[0].signature, kind: .[0].kind,
		baselined: (map(.baselined) | all), confirmed: (map(.confirmed) | if index("yes") then "yes" else .[0] end), shards: length})),
	not_allowed: ([ .[] | .kernel_findings[] | select(.baselined | not) | .signature ] | unique)
}' $(for d in "${SHARDS[@]}"; do echo "$d/summary.json"; done) >"$OUT/counts.json" || { say "cannot read the shards' summary.json" >&2; exit 2; }
merged=$(grep -o 'kernel arcs [0-9]*/[0-9]*' "$OUT/merge.log" | head -1)
nfind=$(grep -vc '^#' "$OUT/findings.tsv")

# Coverage: each shard's segments a label, all of them together.
specs=
i=0
for d in "${SHARDS[@]}"; do
	i=$((i + 1))
	infos=$(ls "$d"/coverage/seg-*.info 2>/dev/null | grep -v stock-lines | tr '\n' ',' | sed 's/,$//')
	[ -n "$infos" ] && specs="$specs shard-$i=$infos"
done
covrow=
if [ -n "$specs" ]; then
	bash "$DIR/tools/siw-guest/coverage.sh" report "$OUT/coverage" --title "siw under ${#SHARDS[@]} shards of fuzz-siw" $specs >/dev/null &&
		covrow=$(grep -m1 '^all ' "$OUT/coverage/summary.txt" | sed 's/^all *//; s/  */ /g')
fi

jq --arg merged "$merged" --argjson nfind "$nfind" --arg cov "$covrow" \
	'. + {merged_corpus: $merged, findings_distinct: $nfind, lines: $cov}' "$OUT/counts.json" >"$OUT/summary.json"
runs=$(jq .runs "$OUT/summary.json")
say "${#SHARDS[@]} shard(s): $runs runs ($(jq .runs_initiator "$OUT/summary.json") as initiator) in $(jq .fuzz_s "$OUT/summary.json") s of fuzzing; $merged in the merged corpus; $nfind distinct findings; ${covrow:+lines: $covrow}"
esc() { sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g'; }
{
	echo '<!doctype html><html><head><meta charset="utf-8"><title>iwspec fuzz: siw, shards merged</title>'
	echo '<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}table{border-collapse:collapse}</style></head><body>'
	echo "<h1>iwspec fuzz campaign: Linux siw, ${#SHARDS[@]} shards merged</h1>"
	echo '<table><tr><th>shard</th><th>seed</th><th>runs</th><th>as initiator</th><th>runs/s</th><th>siw arcs</th><th>findings</th><th>kernel findings</th></tr>'
	jq -r '.shards[] | "<tr><td>\(.shard)</td><td>\(.seed)</td><td>\(.runs)</td><td>\(.runs_initiator)</td><td>\(.runs_per_s)</td><td>\(.arcs)</td><td>\(.findings)</td><td>\(.kernel_findings)</td></tr>"' "$OUT/summary.json"
	echo "<tr><th>all</th><td></td><th>$runs</th><th>$(jq .runs_initiator "$OUT/summary.json")</th><td></td><th>$merged</th><th>$nfind distinct</th><th>$(jq '.kernel_findings | length' "$OUT/summary.json") distinct</th></tr></table>"
	[ -n "$covrow" ] && echo "<p>siw coverage, all shards: $(printf '%s' "$covrow" | esc) (<a href=\"coverage/html/index.html\">per file</a>)</p>"
	echo '<h2>Findings, each once</h2><table><tr><th>what</th><th>kind or signature</th><th>requirement</th><th>DUT role</th><th>shards</th><th>first seen in</th></tr>'
	grep -v '^#' "$OUT/findings.tsv" | esc | awk -F'\t' '{ print "<tr><td>" $1 "</td><td>" $2 "</td><td>" $3 "</td><td>" $4 "</td><td>" $5 "</td><td><code>" $6 "</code></td></tr>" }'
	echo '</table></body></html>'
} >"$OUT/summary.html"
say "summary: $OUT/summary.json, $OUT/summary.html, $OUT/findings.tsv; the next night's corpus: $OUT/corpus/"
bad=$(jq -r '.not_allowed[]' "$OUT/summary.json")
if [ -n "$bad" ]; then
	say "FAIL: kernel findings no shard's baseline allows: $(echo "$bad" | tr '\n' ';')" >&2
	exit 1
fi
exit 0
