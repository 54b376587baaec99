#!/bin/sh
# Checks siw's patch series (docs/interop/siw-patches/) as a kernel maintainer receives it, so
# that what docs/interop/linux-siw.md says of it cannot drift from what it is.
#
#   sh tools/siw-series.sh check [--build]
#   sh tools/siw-series.sh table | flips
#
# check:
#   1. one mailing: 0000-cover-letter.patch is [PATCH 0/N], the patches `series` lists are
#      [PATCH n/N] in its order, N their count, and the cover letter names each finding;
#   2. each patch has a `Fixes: <12 hex digits> ("subject")` trailer and no Signed-off-by (the
#      person who sends the series signs it; the project cannot sign for anyone);
#   3. the series applies in order, `patch -p1 --fuzz=0`, to drivers/infiniband/sw/siw of every
#      kernel source of SIW_SERIES_KERNELS (tools/siw-guest/kernel.env) that is installed
#      (/usr/src/linux-source-K.tar.xz; host-deps.sh installs them; under CI=true each must be);
#   4. scripts/checkpatch.pl --strict of the guest kernel's own source (SIW_KERNEL) reports on
#      each patch nothing but the missing Signed-off-by (with --ignore UNKNOWN_COMMIT_ID: the
#      Fixes: commits are looked up in a kernel git tree, which no Debian package holds);
#   5. with --build: after each patch, in order, siw builds with no warning against the headers
#      of each of those kernels whose headers are installed (the series bisects); 4 to 8 s of CPU
#      per patch and kernel, so `make interop` leaves it out and `make siw-series` runs it;
#   6. the table docs/interop/linux-siw.md holds between its `siw-series` marks is `table`'s.
#   7. the flips table docs/interop/linux-siw.md holds between its `siw-series flips` marks is
#      `flips`'s.
# table: that table, from the patch files: patch, finding, subject, Fixes, Cc: stable.
# flips: what each patch changes in the patched pass, from duts/linux-siw.patched.cases (each case's
#      verdict on siw.ko and the findings it rests on) and duts/linux-siw.patched.expect (its verdict
#      with the series): the patched pass checks both files against the guest on every run.
#
# The sources are unpacked once (siw and checkpatch.pl only) into build/siw-series/, keyed by
# the tarball's size and time (under a lock: checks may run side by side); each check's other files
# go to a directory of its own there, removed at the end. Exit: 0 the series holds, 1 it does not (each line says what), 2
# usage.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
. tools/siw-guest/kernel.env
# SIW_SERIES_DIR and SIW_SERIES_DOC point the check at a copy (tests/cli/siw_series.sh).
DIR=${SIW_SERIES_DIR:-docs/interop/siw-patches}
DOC=${SIW_SERIES_DOC:-docs/interop/linux-siw.md}
WORK=build/siw-series
say() { echo "siw-series: $*"; }
bad=0
fail() { say "FAIL: $*" >&2; bad=1; }

patches() { sed -n 's/^\([0-9][0-9][0-9][0-9]-[^ ]*\.patch\) .*/\1/p' "$DIR/series"; }
finding() { sed -n "s/^$1 \\(F[0-9]*\\).*/\\1/p" "$DIR/series"; }
# A patch's subject without its [PATCH n/N] (format-patch folds a long one onto a second line).
subject() { awk '/^Subject: /{s=$0; getline n; if (n ~ /^ /) s=s n; print s; exit}' "$1" | sed 's/^Subject: //; s/  */ /g'; }
fixes() { sed -n 's/^Fixes: \([0-9a-f]\{12\}\) ("\(.*\)")$/\1 ("\2")/p' "$1" | head -1; }

table() {
	echo "| patch | finding | subject | Fixes | Cc: stable |"
	echo "|---|---|---|---|---|"
	for p in $(patches); do
		s=$(subject "$DIR/$p" | sed 's/^\[PATCH [0-9]*\/[0-9]*\] //')
		st=no
		grep -q '^Cc: stable@vger.kernel.org' "$DIR/$p" && st=yes
		echo "| \`${p%%-*}\` | $(finding "$p") | $s | \`$(fixes "$DIR/$p")\` | $st |"
	done
}

# Unpacks siw and checkpatch.pl of kernel $1 (6.1, 6.12) into $WORK/src-$1 once; prints the
# directory, or nothing when the source is not installed.
source_tree() {
	tarball=/usr/src/linux-source-$1.tar.xz
	[ -f "$tarball" ] || return 0
	key=$(stat -c '%s %Y' "$tarball")
	t=$WORK/src-$1
	mkdir -p "$WORK"
	# One unpacker at a time; the others wait and find it done.
	exec 9>"$WORK/src.lock"
	flock 9
	if [ "$(cat "$t.key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$t" "$t.key"
		mkdir -p "$t"
		tar -xJf "$tarball" -C "$t" --strip-components=1 "linux-source-$1/drivers/infiniband/sw/siw" \
			"linux-source-$1/scripts/checkpatch.pl" "linux-source-$1/scripts/spelling.txt" \
			"linux-source-$1/scripts/const_structs.checkpatch" || { rm -rf "$t"; return 1; }
		echo "$key" >"$t.key"
	fi
	flock -u 9
	echo "$t"
}

# Copies the pristine siw of tree $1 to $2 (a directory with drivers/infiniband/sw/siw in it).
fresh_copy() {
	rm -rf "$2"
	mkdir -p "$2/drivers/infiniband/sw"
	cp -a "$1/drivers/infiniband/sw/siw" "$2/drivers/infiniband/sw/"
}

build_siw() { # $1 tree, $2 headers, $3 log
	make -C "$2" M="$ROOT/$1/drivers/infiniband/sw/siw" CONFIG_RDMA_SIW=m modules >"$3" 2>&1 &&
		! grep -q 'warning:' "$3"
}

check() {
	build=no
	[ "${1:-}" = --build ] && build=yes
	list=$(patches)
	n=$(echo "$list" | wc -w)
	[ "$n" -gt 0 ] || { fail "$DIR/series lists no patches"; return; }
	# 1. and 2.
	cover=$DIR/0000-cover-letter.patch
	if [ -f "$cover" ]; then
		subject "$cover" | grep -q "^\[PATCH 0*0/$n\] " || fail "$cover: its subject is not [PATCH 0/$n] (the series has $n patches)"
		for p in $list; do
			f=$(finding "$p")
			grep -q "\\b$f\\b" "$cover" || fail "$cover does not name $f ($p)"
		done
	else
		fail "$cover is missing (git format-patch --cover-letter)"
	fi
	i=0
	for p in $list; do
		i=$((i + 1))
		[ -f "$DIR/$p" ] || { fail "the series names $p, which $DIR does not have"; continue; }
		subject "$DIR/$p" | grep -q "^\[PATCH 0*$i/$n\] RDMA/siw: " || fail "$p: its subject is not [PATCH $i/$n] RDMA/siw: ..."
		[ -n "$(fixes "$DIR/$p")" ] || fail "$p: no Fixes: <12 hex digits> (\"subject\") trailer"
		! grep -q '^Signed-off-by:' "$DIR/$p" || fail "$p: has a Signed-off-by (the sender signs, not the project)"
	done
	for f in "$DIR"/[0-9][0-9][0-9][0-9]-*.patch; do
		b=$(basename "$f")
		[ "$b" = 0000-cover-letter.patch ] && continue
		echo "$list" | grep -qx "$b" || fail "$b is in $DIR but not in the series"
	done
	# 3. and 5.
	mkdir -p "$WORK"
	# Each check's own files apart: make interop's and a test's may run at once.
	RUN=$(mktemp -d "$WORK/run.XXXXXX")
	trap 'rm -rf "$RUN"' EXIT
	for k in $SIW_SERIES_KERNELS; do
		src=$(source_tree "$k") || { fail "cannot unpack /usr/src/linux-source-$k.tar.xz"; continue; }
		if [ -z "$src" ]; then
			if [ "${CI:-}" = true ]; then
				fail "linux-source-$k is not installed (sh tools/siw-guest/host-deps.sh installs it)"
			else
				say "SKIP: linux-source-$k is not installed: not checked against it (apt-get install linux-source-$k)"
			fi
			continue
		fi
		ver=$(dpkg-query -W -f='${Version}' "linux-source-$k" 2>/dev/null)
		headers=
		if [ $build = yes ]; then
			abi=$(SIW_KERNEL=$k sh -c '. tools/siw-guest/kernel.env; echo $KERNEL_ABI')
			headers=/usr/src/linux-headers-$abi
			[ -d "$headers" ] || { say "SKIP: $headers is missing: the series is not built against $k"; headers=; }
		fi
		tree=$RUN/apply-$k
		fresh_copy "$src" "$tree"
		applied=0
		built=0
		for p in $list; do
			if ! patch -d "$tree" -p1 --fuzz=0 --forward --batch --no-backup-if-mismatch <"$DIR/$p" >"$RUN/patch.log" 2>&1; then
				sed 's/^/siw-series:   /' "$RUN/patch.log" >&2
				fail "$p does not apply to linux-source-$k $ver after the patches before it (patch --fuzz=0)"
				break
			fi
			applied=$((applied + 1))
			if [ -n "$headers" ]; then
				rm -rf "$RUN/build-$k"
				cp -a "$tree" "$RUN/build-$k"
				if build_siw "$RUN/build-$k" "$headers" "$RUN/build-$k.log"; then
					built=$((built + 1))
				else
					grep -E 'error|warning' "$RUN/build-$k.log" | head -5 | sed 's/^/siw-series:   /' >&2
					fail "siw does not build cleanly against $headers after $p"
				fi
			fi
		done
		say "linux-source-$k $ver: $applied of $n patches apply in order$([ -n "$headers" ] && echo ", $built of them build with no warning after each")"
	done
	# 4.
	src=$(source_tree "$SIW_KERNEL")
	if [ -n "$src" ]; then
		ok=0
		for p in $list; do
			# UNKNOWN_COMMIT_ID is checkpatch looking the Fixes: commits up in a git tree of the
			# kernel, which no Debian package holds (the sender's tree has them: `git log -1 SHA`).
			(cd "$src" && perl scripts/checkpatch.pl --strict --no-tree --no-color --ignore UNKNOWN_COMMIT_ID \
				"$(cd "$ROOT" && realpath "$DIR/$p")") >"$RUN/checkpatch.log" 2>&1
			other=$(grep -E '^(ERROR|WARNING|CHECK):' "$RUN/checkpatch.log" | grep -v '^ERROR: Missing Signed-off-by: line(s)$')
			if [ -n "$other" ]; then
				echo "$other" | sed 's/^/siw-series:   /' >&2
				fail "$p: checkpatch.pl --strict ($KERNEL_SOURCE_PKG) reports more than the missing Signed-off-by"
			else
				ok=$((ok + 1))
			fi
		done
		say "checkpatch.pl --strict of $KERNEL_SOURCE_PKG: $ok of $n patches report only the missing Signed-off-by"
	fi
	# 6. and 7.
	for t in table flips; do
		sed -n "/^<!-- siw-series $t: begin/,/^<!-- siw-series $t: end/p" "$DOC" | sed '1d;$d' >"$RUN/doc-$t.md"
		$t >"$RUN/$t.md"
		if ! cmp -s "$RUN/doc-$t.md" "$RUN/$t.md"; then
			diff "$RUN/doc-$t.md" "$RUN/$t.md" | sed 's/^/siw-series:   /' >&2
			fail "$DOC's series $t differs from the files (sh tools/siw-series.sh $t prints the right one)"
		fi
	done
}

# For each patch: the cases whose chain of findings names its finding, unpatched -> patched.
flips() {
	echo "| patch | finding | cases: verdict on siw.ko -> with the series |"
	echo "|---|---|---|"
	for p in $(patches); do
		f=$(finding "$p")
		cases=$(awk -v f="$f" '$0 !~ /^#/ && NF >= 3 { n = split($3, c, ">"); for (i = 1; i <= n; i++) if (c[i] == f) print $1, $2, $3 }' \
			duts/linux-siw.patched.cases | while read -r id uv chain; do
			line=$(awk -v id="$id" '$1 == id { print; exit }' duts/linux-siw.patched.expect)
			pv=$(echo "$line" | cut -d' ' -f2)
			now=
			case $pv in PASS|INFO|'') ;; *) now=" (now $(echo "${line#* : }" | sed 's/^\[[^]]*\] *//' | grep -o 'F[0-9]*' | head -1))" ;; esac
			via=
			[ "${chain%%>*}" = "$f" ] || via=" (behind ${chain%%>*})"
			printf '`%s` %s -> %s%s%s; ' "$id" "$(echo "$uv" | sed 's/|/ or /g')" "${pv:-?}" "$now" "$via"
		done)
		[ -n "$cases" ] || cases="none in the patched pass; "
		echo "| \`${p%%-*}\` | $f | ${cases%; } |"
	done
}

case ${1:-} in
check) shift; check "$@" ;;
table) table; exit 0 ;;
flips) flips; exit 0 ;;
-h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "usage: sh tools/siw-series.sh check [--build] | table | flips" >&2; exit 2 ;;
esac
[ $bad -eq 0 ] || exit 1
say "the series holds: $(patches | wc -l) patches, one mailing"
