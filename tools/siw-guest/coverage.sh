#!/bin/bash
# siw's coverage in the guest, read into lcov tracefiles and reported (issue 40). The guest must
# run the profiled siw (boot.sh --coverage: siw-cov.ko or siw-patched-cov.ko, build.sh; its
# runtime is siw-cov/siw_gcov.c, and the guest's agent relays its counters).
#
#   bash tools/siw-guest/coverage.sh capture KIND OUT.info [--reset]
#       reads the counters of the running guest (KIND stock or patched: which profiled build it
#       runs) and writes them as an lcov tracefile of siw's own sources; --reset zeroes the
#       counters after, so the next capture holds only what came after this one.
#   bash tools/siw-guest/coverage.sh report OUTDIR [--title T] LABEL=INFO[,INFO...]...
#       merges each label's tracefiles (a pass, a campaign) and all labels together, and writes
#       OUTDIR/summary.txt and summary.json (lines, functions and branches per label, in all and
#       for each of siw's .c files), OUTDIR/html/ (genhtml of all labels together), and
#       OUTDIR/unentered.txt: the functions of siw the wire can reach (below) that no label
#       entered.
#   bash tools/siw-guest/coverage.sh plot KCOV.tsv
#       prints an SVG of a campaign's series (tools/fuzz-siw.sh's OUT/kcov.tsv): the arcs reached over
#       its time and the runs per second.
#   bash tools/siw-guest/coverage.sh to-stock IN.info OUT.info
#       moves a tracefile of siw-patched-cov.ko onto siw's own (stock) lines: a line the patches
#       left as it was takes its stock number, one they added or changed is left out. So a
#       campaign on the patched module and the suite on the stock one add up on one source.
#
# Reachable from the wire: the functions siw hands the kernel to call on a network event (its
# socket callbacks, its receive handlers of iwarp_pktinfo, its connection manager's work
# handler, its transmit thread) and to rdma_cm's calls on a connection (iw_connect, iw_accept,
# iw_reject, iw_create_listen, iw_destroy_listen), each read from siw's source by the pattern
# that installs it; then every function they call directly, by the call graphs gcc wrote while
# compiling the profiled build (-fcallgraph-info, siw-cov/Kbuild). The verbs an application
# calls (posting work, registering memory) are not roots: the wire does not call them.
#
# IWSPEC_NETNS names the namespace (default iwspec-siw); the agent is 10.213.0.2:4790.
# IWSPEC_SIW_GUEST_DIR: the guest build directory (default build/siw-guest; a test's own).
# Exit: 0, 1 failed (the message says what), 2 usage.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/kernel.env"
GUEST=${IWSPEC_SIW_GUEST_DIR:-$ROOT/build/siw-guest${GUEST_SUBDIR:+/$GUEST_SUBDIR}}
NETNS=${IWSPEC_NETNS:-iwspec-siw}
AGENT_HOST=10.213.0.2
AGENT_PORT=4790
LCOV_RC="--rc lcov_branch_coverage=1"
say() { echo "coverage: $*"; }
die() { echo "coverage: FAIL: $*" >&2; exit 1; }
help() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
usage() { help >&2; exit 2; }
command -v lcov >/dev/null 2>&1 && command -v genhtml >/dev/null 2>&1 ||
	die "lcov and genhtml are missing (apt-get install lcov; tools/siw-guest/host-deps.sh installs it)"

src_of() { # KIND -> the profiled build's directory (its .gcno, its sources)
	case $1 in
	stock) echo "$GUEST/siw-cov-src" ;;
	patched) echo "$GUEST/siw-patched-cov-src" ;;
	*) echo "coverage: KIND is stock or patched, not '$1'" >&2; exit 2 ;;
	esac
}

# One request to the guest's agent; its answer on stdout, 0 when it ended `exit 0`.
agent() {
	ip netns exec "$NETNS" timeout 60 bash -c 'exec 3<>/dev/tcp/'"$AGENT_HOST/$AGENT_PORT"' || exit 1
		echo "$1" >&3; cat <&3' _ "$1" >"$tmp/answer" 2>/dev/null
	tail -n 1 "$tmp/answer" | grep -qx 'exit 0'
}

capture() {
	local kind=$1 out=$2 reset=${3:-} src
	src=$(src_of "$kind") || exit 2
	[ -f "$src/siw.ko" ] || die "no profiled build of $kind siw in $src (sh tools/siw-guest/build.sh)"
	agent coverage-gcda ||
		die "the guest's agent gave no coverage: $(grep -m1 '^error' "$tmp/answer" || echo "no answer from $AGENT_HOST:$AGENT_PORT in $NETNS") (is the guest booted with --coverage?)"
	# The counters come as "file PATH" and "hex ..." lines; a .gcda belongs beside its .gcno.
	mkdir -p "$tmp/data"
	cp "$src"/*.gcno "$tmp/data/"
	awk -v d="$tmp/data" '
		/^out file / { n = split($3, p, "/"); f = d "/" p[n] ".hex"; files++; next }
		/^out hex / { if (f == "") exit 1; print $3 > f; next }
		END { if (!files) exit 1 }' "$tmp/answer" || die "the agent's answer holds no .gcda ($tmp/answer)"
	for h in "$tmp"/data/*.gcda.hex; do
		perl -ne 'chomp; print pack("H*", $_)' "$h" >"${h%.hex}" && rm -f "$h"
	done
	# gcov finds the sources by the absolute paths the .gcno holds: the tracefile names them so.
	lcov -q $LCOV_RC --capture --directory "$tmp/data" --output-file "$tmp/all.info" >"$tmp/lcov.log" 2>&1 ||
		{ cat "$tmp/lcov.log" >&2; die "lcov could not read the counters"; }
	lcov -q $LCOV_RC --extract "$tmp/all.info" "$src/*" --output-file "$out" >>"$tmp/lcov.log" 2>&1 ||
		{ cat "$tmp/lcov.log" >&2; die "lcov found no siw source in the counters"; }
	if [ "$reset" = --reset ]; then
		agent coverage-reset || die "the agent did not reset the counters: $(head -1 "$tmp/answer")"
	fi
	rm -rf "$tmp/data"
}

# The functions reachable from the wire, one a line, from the build's sources and call graphs.
reachable() {
	local src=$1
	{
		grep -ho 'sk->sk_[a-z_]* = siw_[a-z0-9_]*' "$src"/*.c | sed 's/.* = //'
		grep -ho '\.rx_data = siw_[a-z0-9_]*' "$src"/*.c | sed 's/.* = //'
		grep -hoE '\.iw_(connect|accept|reject|create_listen|destroy_listen) = siw_[a-z0-9_]*' "$src"/*.c | sed 's/.* = //'
		grep -ho 'INIT_DELAYED_WORK([^,]*, siw_[a-z0-9_]*)' "$src"/*.c | sed 's/.*, //; s/)//'
		grep -ho 'kthread_run_on_cpu(siw_[a-z0-9_]*' "$src"/*.c | sed 's/.*(//'
	} | sort -u >"$tmp/roots"
	[ -s "$tmp/roots" ] || die "no roots found in $src (siw's source changed: update the patterns)"
	ls "$src"/*.ci >/dev/null 2>&1 || die "no call graphs (.ci) in $src (build.sh builds with -fcallgraph-info)"
	# "path:name" for a unit's own static functions, "name" for the others: by name.
	sed -n 's/^edge: { sourcename: "\([^"]*\)" targetname: "\([^"]*\)".*/\1 \2/p' "$src"/*.ci |
		sed 's/[^ ]*:\([^ :]*\) /\1 /; s/ [^ ]*:\([^ :]*\)$/ \1/' >"$tmp/edges"
	awk 'FNR == NR { reach[$1] = 1; queue[++n] = $1; next }
		{ callees[$1] = callees[$1] " " $2 }
		END {
			for (i = 1; i <= n; i++) {
				m = split(callees[queue[i]], c, " ")
				for (j = 1; j <= m; j++)
					if (!(c[j] in reach)) { reach[c[j]] = 1; queue[++n] = c[j] }
			}
			for (f in reach) print f
		}' "$tmp/roots" "$tmp/edges" | sort
}

# Lines, functions and branches of a tracefile, per source file: "file lf lh fnf fnh brf brh".
per_file() {
	awk -F'[:,]' '
		/^SF:/ { f = substr($0, 4); sub(/.*\//, "", f) }
		/^LF:/ { lf[f] += $2 } /^LH:/ { lh[f] += $2 } /^FNF:/ { fnf[f] += $2 } /^FNH:/ { fnh[f] += $2 }
		/^BRF:/ { brf[f] += $2 } /^BRH:/ { brh[f] += $2 }
		END { for (f in lf) print f, lf[f], lh[f] + 0, fnf[f] + 0, fnh[f] + 0, brf[f] + 0, brh[f] + 0 }' "$1" | sort
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f%%", 100 * a / b; else printf "-" }'; }

report() {
	local outdir=$1 title="siw coverage"
	shift
	[ "${1:-}" = --title ] && { title=$2; shift 2; }
	[ $# -gt 0 ] || usage
	mkdir -p "$outdir"
	local labels= all_inputs= label infos i args
	for spec in "$@"; do
		label=${spec%%=*}
		infos=${spec#*=}
		[ "$label" != "$spec" ] && [ -n "$infos" ] || die "'$spec': give LABEL=INFO[,INFO...]"
		args=
		for i in $(echo "$infos" | tr ',' ' '); do
			[ -s "$i" ] || die "$label: no tracefile $i"
			args="$args -a $i"
		done
		lcov -q $LCOV_RC $args -o "$outdir/$label.info" >"$tmp/lcov.log" 2>&1 ||
			{ cat "$tmp/lcov.log" >&2; die "$label: lcov could not merge $infos"; }
		labels="$labels $label"
		all_inputs="$all_inputs -a $outdir/$label.info"
	done
	lcov -q $LCOV_RC $all_inputs -o "$outdir/all.info" >"$tmp/lcov.log" 2>&1 ||
		{ cat "$tmp/lcov.log" >&2; die "lcov could not merge the labels"; }
	{
		echo "# $title: lines, functions and branches reached (lcov, gcc's counters in siw.ko)"
		for label in $labels all; do
			per_file "$outdir/$label.info" >"$tmp/pf"
			awk -v l="$label" '{ a += $2; b += $3; c += $4; d += $5; e += $6; g += $7 }
				END { printf "%-28s lines %5d/%-5d %5.1f%%  functions %3d/%-3d %5.1f%%  branches %5d/%-5d %5.1f%%\n",
					l, b, a, (a ? 100 * b / a : 0), d, c, (c ? 100 * d / c : 0), g, e, (e ? 100 * g / e : 0) }' "$tmp/pf"
			grep '\.c ' "$tmp/pf" | while read -r f lf lh fnf fnh brf brh; do
				printf '    %-24s lines %5d/%-5d %6s  functions %3d/%-3d %6s  branches %5d/%-5d %6s\n' \
					"$f" "$lh" "$lf" "$(pct "$lh" "$lf")" "$fnh" "$fnf" "$(pct "$fnh" "$fnf")" "$brh" "$brf" "$(pct "$brh" "$brf")"
			done
		done
		# What each label reached that no other did (with two labels or more): a campaign's lines
		# beyond the suite's, say.
		set -- $labels
		if [ $# -gt 1 ]; then
			for label in $labels; do
				awk -v me="$outdir/$label.info" -F'[:,]' '
					/^SF:/ { f = substr($0, 4); sub(/.*\//, "", f) }
					/^DA:/ && $3 > 0 { k = f ":" $2; if (FILENAME == me) mine[k] = f; else other[k] = 1 }
					END { for (k in mine) if (!(k in other)) { n++; per[mine[k]]++ }
						printf "%-28s %d lines no other label reached", "only " lbl, n
						for (f in per) if (f ~ /\.c$/) printf ", %d in %s", per[f], f
						printf "\n" }' lbl="$label" $(for l in $labels; do echo "$outdir/$l.info"; done)
			done
		fi
	} >"$outdir/summary.txt"
	{
		printf '{"title":"%s","labels":{' "$title"
		sep=
		for label in $labels all; do
			printf '%s"%s":{' "$sep" "$label"
			per_file "$outdir/$label.info" | awk 'BEGIN { ORS = "" }
				{ printf "%s\"%s\":{\"lines\":[%d,%d],\"functions\":[%d,%d],\"branches\":[%d,%d]}", (NR > 1 ? "," : ""), $1, $3, $2, $5, $4, $7, $6 }'
			printf '}'
			sep=,
		done
		printf '}}\n'
	} >"$outdir/summary.json"
	genhtml -q $LCOV_RC --title "$title" --output-directory "$outdir/html" "$outdir/all.info" >"$tmp/genhtml.log" 2>&1 ||
		{ cat "$tmp/genhtml.log" >&2; die "genhtml failed"; }
	# Unentered: per profiled build in the report, reachable functions with no call.
	: >"$outdir/unentered.txt"
	for src in $(sed -n 's/^SF:\(.*\)\/[^/]*$/\1/p' "$outdir/all.info" | sort -u); do
		[ -f "$src/siw.ko" ] || continue
		reachable "$src" >"$tmp/reach"
		awk -F'[:,]' '/^FNDA:/ { if ($2 > 0) hit[$3] = 1; seen[$3] = 1 }
			END { for (f in seen) print f, (f in hit) }' "$outdir/all.info" | sort >"$tmp/fn"
		{
			echo "# $src: functions reachable from the wire ($(wc -l <"$tmp/reach") of them, roots: $(tr '\n' ' ' <"$tmp/roots")) that nothing entered:"
			awk 'FNR == NR { r[$1] = 1; next } ($1 in r) && $2 == 0 { print "    " $1 }' "$tmp/reach" "$tmp/fn"
		} >>"$outdir/unentered.txt"
	done
	say "$title: $(grep -m1 '^all ' "$outdir/summary.txt" | sed 's/  */ /g'); $outdir/summary.txt, $outdir/html/index.html, $outdir/unentered.txt"
}

# The stock line of each line of the patched file, from diff's hunks: "patched_line stock_line".
line_map() {
	diff "$1" "$2" | awk -v np="$(wc -l <"$2")" '
		function copy(upto) { while (p < upto) { p++; s++; print p, s } }
		/^[0-9]/ {
			split($0, h, /[acd]/); op = substr($0, length(h[1]) + 1, 1)
			n1 = split(h[1], a, ","); o1 = a[1]; o2 = (n1 > 1 ? a[2] : a[1])
			n2 = split(h[2], b, ","); q1 = b[1]; q2 = (n2 > 1 ? b[2] : b[1])
			if (op == "a") { copy(q1 - 1); p = q2; s = o1 }
			else if (op == "d") { copy(q1); s = o2 }
			else { copy(q1 - 1); p = q2; s = o2 }
		}
		END { copy(np) }'
}

to_stock() {
	local in=$1 out=$2 psrc ssrc
	psrc=$(src_of patched)
	ssrc=$(src_of stock)
	: >"$tmp/mapped"
	grep -q '^SF:' "$in" 2>/dev/null || die "$in is not an lcov tracefile"
	# One source file at a time: its records moved line by line.
	for f in $(sed -n "s|^SF:$psrc/||p" "$in" | sort -u); do
		[ -f "$ssrc/$f" ] || continue
		line_map "$ssrc/$f" "$psrc/$f" >"$tmp/map"
		awk -v want="SF:$psrc/$f" -v sf="SF:$ssrc/$f" -F'[:,]' 'FNR == NR { split($0, x, " "); m[x[1]] = x[2]; next }
			$0 == want { on = 1; print sf; next }
			on && /^end_of_record/ { on = 0; print; next }
			!on { next }
			/^(DA|FN|BRDA):/ { tag = $1; ln = (tag == "FN" ? $2 : $2); if (!(ln in m)) next
				rest = substr($0, length(tag) + length(ln) + 3); print tag ":" m[ln] "," rest; next }
			/^(LF|LH|BRF|BRH|FNF|FNH):/ { next }
			{ print }' "$tmp/map" "$in" >>"$tmp/mapped"
	done
	[ -s "$tmp/mapped" ] || die "$in holds no source of the patched build ($psrc)"
	# lcov counts the totals again from the moved records.
	lcov -q $LCOV_RC -a "$tmp/mapped" -o "$out" >"$tmp/lcov.log" 2>&1 || { cat "$tmp/lcov.log" >&2; die "lcov could not read the moved tracefile"; }
}

# An SVG of a campaign's kcov.tsv (seconds, runs, arcs reached, arcs, kept): the arcs reached as a
# line (left axis, from the first read: the growth is what matters) and runs per second in 10-s
# steps as bars (right axis; the runs between two reads go to the later one). Nothing without samples.
plot() {
	awk -F'\t' -v W=760 -v H=260 -v L=60 -v R=60 -v T=20 -v B=40 '
		!/^#/ { n++; t[n] = $1; r[n] = $2; a[n] = $3; if ($1 > tmax) tmax = $1; if ($3 > amax) amax = $3
			if (n == 1) amin = $3; if ($3 < amin) amin = $3
			b = int($1 / 10); if (n > 1) dr[b] += $2 - r[n - 1]; if (b > bmax) bmax = b }
		END {
			if (n < 1) exit
			if (tmax < 10) tmax = 10
			amin = int(amin * 0.98); amax = int(amax * 1.02) + 1
			for (b = 0; b <= bmax; b++) { w = (b < bmax ? 10 : tmax - 10 * bmax); rate[b] = dr[b] / (w > 1 ? w : 1); if (rate[b] > rmax) rmax = rate[b] }
			rmax = rmax * 1.2 + 0.1
			pw = W - L - R; ph = H - T - B
			printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"11\">", W, H
			for (b = 0; b <= bmax; b++) {
				x = L + pw * b * 10 / tmax; w = pw * 10 / tmax - 1; if (w < 1) w = 1; h = ph * rate[b] / rmax
				printf "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#cfe0f3\"/>", x, T + ph - h, w, h
			}
			printf "<polyline fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" points=\""
			for (i = 1; i <= n; i++) printf "%.1f,%.1f ", L + pw * t[i] / tmax, T + ph - ph * (a[i] - amin) / (amax - amin)
			printf "\"/>"
			printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", L, T + ph, L + pw, T + ph
			printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", L, T, L, T + ph
			printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text>", L - 4, T + 10, amax, L - 4, T + ph, amin
			printf "<text x=\"%d\" y=\"%d\">%.1f/s</text>", L + pw + 4, T + 10, rmax
			printf "<text x=\"%d\" y=\"%d\">0 s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d s</text>", L, T + ph + 15, L + pw, T + ph + 15, tmax
			printf "<text x=\"%d\" y=\"%d\" fill=\"#c0392b\">siw arcs reached (left)</text>", L + 10, H - 6
			printf "<text x=\"%d\" y=\"%d\" fill=\"#5b8bc4\">runs per second, 10-s steps (right)</text></svg>", L + 220, H - 6
		}' "$1"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case ${1:-} in
capture) [ $# -ge 3 ] || usage; capture "$2" "$3" "${4:-}" ;;
report) [ $# -ge 3 ] || usage; shift; report "$@" ;;
to-stock) [ $# -eq 3 ] || usage; to_stock "$2" "$3" ;;
plot) [ $# -eq 2 ] || usage; [ -f "$2" ] || die "no series $2"; plot "$2" ;;
-h|--help) help ;;
*) usage ;;
esac
