#!/bin/sh
# tools/siw-guest/coverage.sh on a made-up siw: to-stock moves a patched module's tracefile onto
# stock lines (unchanged lines renumbered, the patches' own lines left out), and report sums
# lines, functions and branches per file and lists the wire-reachable functions nobody entered
# (roots by siw's patterns, callees by gcc's call graph). No guest: the tracefiles are written
# here. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 2
command -v lcov >/dev/null 2>&1 || { [ "${CI:-}" = true ] && { echo "FAIL: lcov is missing (tools/siw-guest/host-deps.sh installs it)" >&2; exit 1; }; echo "SKIP: no lcov (apt-get install lcov)"; exit 0; }
G=$tmp/guest
S=$G/siw-cov-src
P=$G/siw-patched-cov-src
mkdir -p "$S" "$P"
# Stock: 14 lines. Patched: a line added after 2, line 8 changed, line 12 deleted.
i=1
while [ $i -le 14 ]; do echo "stock line $i;"; i=$((i + 1)); done >"$S/siw_x.c"
awk 'NR == 3 { print "added line;" } NR == 8 { print "changed line;"; next } NR == 12 { next } { print }' "$S/siw_x.c" >"$P/siw_x.c"
# A tracefile of the patched build: every line counted by its own number, a function, branches.
{
	echo "TN:"
	echo "SF:$P/siw_x.c"
	echo "FN:1,siw_a"
	echo "FNDA:5,siw_a"
	echo "FNF:1"
	echo "FNH:1"
	echo "BRDA:10,0,0,4"
	echo "BRDA:10,0,1,0"
	echo "BRF:2"
	echo "BRH:1"
	n=$(wc -l <"$P/siw_x.c")
	i=1
	while [ $i -le "$n" ]; do echo "DA:$i,$i"; i=$((i + 1)); done
	echo "LF:$n"
	echo "LH:$n"
	echo "end_of_record"
} >"$tmp/patched.info"
export IWSPEC_SIW_GUEST_DIR=$G
expect 0 "to-stock moves the patched tracefile" bash tools/siw-guest/coverage.sh to-stock "$tmp/patched.info" "$tmp/stock.info"
grep -q "^SF:$S/siw_x.c$" "$tmp/stock.info" && ok || bad "to-stock: the source is not the stock one: $(grep '^SF' "$tmp/stock.info")"
# Stock line:count (the count is the patched line's number): patched 1,2 are stock 1,2; 3 (added)
# is gone; 4..8 are stock 3..7; 9 (stock 8 changed) is gone; 10..12 are stock 9..11; stock 12 was
# deleted; 13,14 are stock 13,14.
want="1:1 2:2 3:4 4:5 5:6 6:7 7:8 9:10 10:11 11:12 13:13 14:14"
got=$(sed -n 's/^DA:\([0-9]*\),\([0-9]*\)$/\1:\2/p' "$tmp/stock.info" | sort -n | tr '\n' ' ' | sed 's/ $//')
[ "$got" = "$want" ] && ok || bad "to-stock: stock_line:count is '$got', wanted '$want'"
grep -q '^DA:8,' "$tmp/stock.info" && bad "to-stock: stock line 8 (changed by the patch) has a count" || ok
grep -q '^DA:12,' "$tmp/stock.info" && bad "to-stock: stock line 12 (deleted by the patch) has a count" || ok
grep -q '^BRDA:9,0,0,4$' "$tmp/stock.info" && ok || bad "to-stock: the branch of patched line 10 is not on stock line 9"
grep -q '^LF:12$' "$tmp/stock.info" && ok || bad "to-stock: lcov did not count the moved lines again (LF: $(grep '^LF' "$tmp/stock.info"))"

# report: two labels on the stock build, a call graph and roots.
touch "$S/siw.ko"
printf '%s\n' "sk->sk_data_ready = siw_a;" "INIT_DELAYED_WORK(&w->work, siw_work);" >>"$S/siw_x.c"
cat >"$S/siw_x.ci" <<CI
graph: { title: "$S/siw_x.c"
edge: { sourcename: "$S/siw_x.c:siw_a" targetname: "$S/siw_x.c:siw_b" label: "" }
edge: { sourcename: "$S/siw_x.c:siw_b" targetname: "siw_c" label: "" }
edge: { sourcename: "$S/siw_x.c:siw_d" targetname: "siw_e" label: "" }
}
CI
mk() { # $1 file, $2 DA list "line:count ...", $3 FNDA list "name:count ..."
	{
		echo "TN:"
		echo "SF:$S/siw_x.c"
		for f in $3; do echo "FN:1,${f%%:*}"; done
		for f in $3; do echo "FNDA:${f#*:},${f%%:*}"; done
		for d in $2; do echo "DA:${d%%:*},${d#*:}"; done
		echo "end_of_record"
	} >"$1"
}
mk "$tmp/one.info" "1:1 2:0 3:0 4:0" "siw_a:1 siw_b:0 siw_c:0 siw_d:0 siw_e:0 siw_work:0"
mk "$tmp/two.info" "1:0 2:3 3:0 4:0" "siw_a:0 siw_b:2 siw_c:0 siw_d:0 siw_e:0 siw_work:0"
expect 0 "report merges two labels" bash tools/siw-guest/coverage.sh report "$tmp/rep" --title t one="$tmp/one.info" two="$tmp/two.info"
grep -Eq '^all +lines +2/4 ' "$tmp/rep/summary.txt" && ok || bad "report: all labels together should reach 2 of 4 lines: $(grep '^all' "$tmp/rep/summary.txt")"
grep -Eq '^one +lines +1/4 ' "$tmp/rep/summary.txt" && ok || bad "report: label one should reach 1 of 4 lines"
grep -Eq '^    siw_x.c +lines +2/4 ' "$tmp/rep/summary.txt" && ok || bad "report: no per-file line for siw_x.c with 2/4"
grep -Eq '^only one +1 lines no other label reached, 1 in siw_x.c$' "$tmp/rep/summary.txt" && ok || bad "report: label one reached line 1 alone: $(grep '^only one' "$tmp/rep/summary.txt")"
jq -e '.labels.all["siw_x.c"].lines == [2,4]' "$tmp/rep/summary.json" >/dev/null 2>&1 && ok || bad "report: summary.json's all/siw_x.c lines are not [2,4]"
[ -f "$tmp/rep/html/index.html" ] && ok || bad "report: no html/index.html"
# Reachable: siw_a, siw_work (roots), siw_b, siw_c (callees); siw_d, siw_e are not. Entered: a, b.
un=$(grep '^    ' "$tmp/rep/unentered.txt" | tr -d ' ' | sort | tr '\n' ' ' | sed 's/ $//')
[ "$un" = "siw_c siw_work" ] && ok || bad "report: unentered reachable functions are '$un', wanted 'siw_c siw_work'"
# plot: three reads over 25 s, 100 arcs more, 30 runs: a line of three points and a bar a 10-s step.
printf '# seconds\truns\tarcs\ttotal\tkept\n0.1\t0\t800\t4026\t0\n12.0\t10\t850\t4026\t1\n25.0\t30\t900\t4026\t2\n' >"$tmp/kcov.tsv"
expect 0 "plot draws the series" bash tools/siw-guest/coverage.sh plot "$tmp/kcov.tsv"
[ "$(grep -o '<polyline[^>]*points="[^"]*"' "$tmp/out" | sed 's/.*points="//' | tr -s ' ' '\n' | grep -c ,)" = 3 ] && ok || bad "plot: the line has not three points"
[ "$(grep -o '<rect ' "$tmp/out" | wc -l)" = 3 ] && ok || bad "plot: not one bar per 10-s step (3)"
grep -q '>784</text>' "$tmp/out" && grep -q '>919</text>' "$tmp/out" && ok || bad "plot: the left axis does not run from 784 (the first read, less 2%) to 919"
expect 2 "a label without tracefiles is refused" bash tools/siw-guest/coverage.sh report "$tmp/rep2"
expect 1 "a missing tracefile is named" bash tools/siw-guest/coverage.sh report "$tmp/rep3" one="$tmp/none.info"
contains "one: no tracefile" "the message names the label and the file"
finish siw_coverage
