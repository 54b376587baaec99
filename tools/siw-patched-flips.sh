#!/bin/sh
# The patched pass's proof by fix (docs/interop/linux-siw.md, "Proof by fix"): which verdicts the
# siw patches changed, per finding, and that they changed nothing else.
#
#   sh tools/siw-patched-flips.sh check CASES EXPECT GOT "FIXED" "ALL"
#   sh tools/siw-patched-flips.sh expect CASES EXPECT "FIXED" "ALL" >FILE
#
# CASES  duts/linux-siw.patched.cases: each case with its verdict on unpatched siw and the finding
#        that verdict rests on (- for a PASS), followed by the patched findings it hides, in order
#        (F1>F2: with F1 fixed the case rests on F2);
# EXPECT duts/linux-siw.patched.expect: the verdicts with every patch of the series applied, each
#        FAIL or WARN naming the finding it now rests on (its first F-number);
# GOT    the run's verdicts (`iwspec run --write-expect`, several files joined);
# FIXED  the findings the module under test fixes (the guest's console names its patches), ALL
#        those of the whole series.
#
# `check` prints every case whose verdict changed, grouped by the finding whose patch changed it,
# and fails (exit 1) when
#   - a case of a finding no applied patch fixes has another verdict than on unpatched siw (its
#     unpatched line may hold two, F18);
#   - with the whole series applied, a case of a fixed finding keeps a non-PASS verdict its
#     EXPECT line does not explain with another finding, or EXPECT gives a case of an unfixed
#     finding another verdict than CASES, or the two files list different cases;
#   - a case has no verdict in GOT, or one EXPECT does not allow (iwspec's --expect judges that
#     too, with the pinned requirement; GOT holds a one-off's rerun verdict).
# With some of the patches (IWSPEC_SIW_PATCHES), a case of a fixed finding that keeps its verdict
# is listed for review ("still"), since EXPECT describes the whole series.
# `expect` writes the baseline a module with the FIXED patches must match: EXPECT's line for a
# case whose finding is fixed (a FAIL on the first finding of its chain the FIXED patches leave),
# its unpatched verdict for every other case.
#
# Exit: 0 as described, 1 a check failed, 2 bad usage.
set -u
mode=${1:-}
case $mode in
check) [ $# -eq 6 ] || { echo "usage: $0 check CASES EXPECT GOT FIXED ALL" >&2; exit 2; } ;;
expect) [ $# -eq 5 ] || { echo "usage: $0 expect CASES EXPECT FIXED ALL" >&2; exit 2; } ;;
*) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
shift
for f in "$1" "$2"; do
	[ -f "$f" ] || { echo "siw-patched-flips: no file '$f'" >&2; exit 2; }
done
if [ "$mode" = expect ]; then
	cases=$1 expect=$2 fixed=$3 all=$4 got=/dev/null
else
	cases=$1 expect=$2 got=$3 fixed=$4 all=$5
	[ -f "$got" ] || { echo "siw-patched-flips: no file '$got'" >&2; exit 2; }
fi

awk -v mode="$mode" -v fixed=" $fixed " -v all=" $all " -v cases="$cases" -v expect="$expect" -v got="$got" '
function isfixed(f) { return f != "-" && index(fixed, " " f " ") > 0 }
function inall(f) { return f != "-" && index(all, " " f " ") > 0 }
function firstf(note,   m) {   # the first F-number of a note, after its [REQ-ID] pin
	sub(/^\[[^]]*\] */, "", note)
	if (match(note, /(^|[^A-Za-z0-9])F[0-9]+([^0-9]|$)/)) {
		m = substr(note, RSTART, RLENGTH)
		gsub(/[^F0-9]/, "", m)
		return m
	}
	return "-"
}
function oneof(v, set,   n, i, a) {   # v is one of the verdicts of "FAIL|PASS"
	n = split(set, a, "|")
	for (i = 1; i <= n; i++)
		if (a[i] == v)
			return 1
	return 0
}
function bad(msg) { print "  PROBLEM: " msg; nbad++ }
function about(f) { return f == "-" ? "a PASS on unpatched siw" : "no applied patch is about " f }
function hidden(id,   n, c, i) {   # the first finding of the chain no applied patch fixes, or ""
	n = split(chain[id], c, ">")
	for (i = 2; i <= n; i++)
		if (!isfixed(c[i]))
			return c[i]
	return ""
}
FILENAME == cases && $0 !~ /^#/ && NF >= 3 {
	ids[++n] = $1; uv[$1] = $2; chain[$1] = $3; uf[$1] = $3; sub(/>.*/, "", uf[$1]); next
}
FILENAME == expect && $0 !~ /^#/ && NF >= 2 {
	ev[$1] = $2; note = $0; sub(/^[^:]*: ?/, "", note)
	if (index($0, " : ") == 0) note = ""
	en[$1] = note; ef[$1] = firstf(note); eline[$1] = $0; next
}
FILENAME == got && $0 !~ /^#/ && NF >= 2 {
	id = $1; sub(/@.*/, "", id); gv[id] = $2
	note = $0; if (index($0, " : ") == 0) note = ""; else sub(/^[^:]*: ?/, "", note)
	gn[id] = note; next
}
END {
	full = (fixed == all)
	for (i = 1; i <= n; i++) {
		id = ids[i]
		if (!(id in ev)) { if (mode == "check" || isfixed(uf[id])) bad(id " is in " cases " but not in " expect); continue }
		if (full && !isfixed(uf[id]) && ev[id] != uv[id])
			bad(id ": " expect " says " ev[id] " where unpatched siw gives " uv[id] ", and " about(uf[id]))
		# An INFO case reports what the DUT does and rests on no finding (rdmap.read.beyond-ird).
		if (full && isfixed(uf[id]) && ev[id] != "PASS" && ev[id] != "INFO" && (ef[id] == "-" || inall(ef[id])))
			bad(id ": a patch fixes " uf[id] ", and " expect " keeps " ev[id] " without naming the finding it now rests on")
		listed[id] = 1
	}
	for (id in ev)
		if (!(id in listed))
			bad(id " is in " expect " but not in " cases)
	if (mode == "expect") {
		if (nbad) exit 1
		print "# The verdicts the patched pass expects from siw with the patches that fix" fixed "(written by"
		print "# tools/siw-patched-flips.sh from " expect " and " cases ")."
		for (i = 1; i <= n; i++) {
			id = ids[i]
			h = hidden(id)
			if (!isfixed(uf[id])) print id " " uv[id] " : unchanged: " about(uf[id])
			else if (h != "") print id " FAIL : " h " hidden behind " uf[id] " on unpatched siw, and not patched here"
			else print eline[id]
		}
		exit 0
	}
	nflip = 0; nsame = 0
	for (i = 1; i <= n; i++) {
		id = ids[i]
		if (!(id in gv)) { bad(id ": no verdict in the run"); continue }
		f = uf[id]
		mismatch = !oneof(gv[id], ev[id])
		if (mismatch)
			bad(id ": " gv[id] " where " expect " says " ev[id] ": " gn[id])
		if (!isfixed(f)) {
			if (!oneof(gv[id], uv[id]))
				bad(id ": " uv[id] " on unpatched siw, " gv[id] " now, though no applied patch is about " (f == "-" ? "it" : f) ": " gn[id])
			else
				nsame++
			continue
		}
		nf[f]++
		if (gv[id] == uv[id] && gv[id] != "PASS") {
			why = ef[id] != "-" && !isfixed(ef[id]) ? "now " ef[id] : "still " f "?"
			if (chain[id] != f) {
				c = chain[id]; gsub(/>/, ", then ", c)
				why = why "; " c
			}
			if (full && !mismatch && (ef[id] == "-" || isfixed(ef[id])))
				bad(id ": still " gv[id] " with " f " fixed, and " expect " names no next finding")
			line[f] = line[f] sprintf("    %-48s %s -> %s (%s)\n", id, uv[id], gv[id], why)
			nstill[f]++
			continue
		}
		why = gv[id] == "PASS" ? "" : oneof(gv[id], ev[id]) && ef[id] != "-" ? " (" ef[id] ")" : " (expected " ev[id] ")"
		if (chain[id] != f) {
			c = chain[id]; gsub(/>/, ", then ", c)
			why = why " (" c ")"
		}
		line[f] = line[f] sprintf("    %-48s %s -> %s%s\n", id, uv[id], gv[id], why)
		nflip++
		nchg[f]++
	}
	nfix = split(fixed, fx, " ")
	for (k = 1; k <= nfix; k++) {
		f = fx[k]
		printf "  %s: %d case(s), %d changed verdict, %d kept it (the next finding, or review)\n", f, nf[f] + 0, nchg[f] + 0, nstill[f] + 0
		printf "%s", line[f]
	}
	printf "  unchanged, as required: %d case(s) of findings no applied patch is about\n", nsame
	if (nbad) { printf "  %d problem(s)\n", nbad; exit 1 }
	exit 0
}' "$cases" "$expect" "$got"
