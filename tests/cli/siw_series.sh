#!/bin/sh
# The siw patch series as a maintainer receives it (issue 37): tools/siw-series.sh passes the
# committed series and fails, naming the patch and the fix, on each way a mailing goes wrong: a
# Signed-off-by the project cannot give, a missing Fixes: trailer, a subject out of its [PATCH n/N]
# place, a patch the series file does not list, docs/interop/linux-siw.md's table not matching the
# files, and (where linux-source-6.1 is installed) a patch that does not apply with --fuzz=0.
. "$(dirname "$0")/lib.sh"

SERIES=$ROOT/tools/siw-series.sh
PATCHES=$ROOT/docs/interop/siw-patches
DOC=$ROOT/docs/interop/linux-siw.md
# The format checks alone (no kernel source) unless a test names one.
check() { SIW_SERIES_KERNELS= SIW_SERIES_DIR=$tmp/p SIW_SERIES_DOC=$tmp/doc.md sh "$SERIES" check; }
fresh() {
	rm -rf "$tmp/p"
	cp -r "$PATCHES" "$tmp/p"
	cp "$DOC" "$tmp/doc.md"
}
first=$(sed -n 's/^\(0001-[^ ]*\) .*/\1/p' "$PATCHES/series")

fresh
expect 0 "the committed series" check
contains "the series holds: " "it holds"

fresh
sed -i '/^Fixes: /a Signed-off-by: Someone <someone@example.org>' "$tmp/p/$first"
expect 1 "a Signed-off-by in a patch" check
contains "$first: has a Signed-off-by (the sender signs, not the project)" "named, with why"

fresh
sed -i '/^Fixes: /d' "$tmp/p/$first"
expect 1 "a patch without Fixes:" check
contains "$first: no Fixes: <12 hex digits> (\"subject\") trailer" "the missing trailer"

fresh
sed -i 's/^Subject: \[PATCH 01\//Subject: [PATCH 02\//' "$tmp/p/$first"
expect 1 "a subject out of place" check
contains "$first: its subject is not .PATCH 1/" "the numbering"

fresh
cp "$tmp/p/$first" "$tmp/p/0099-RDMA-siw-a-stray-patch.patch"
expect 1 "a patch the series does not list" check
contains "0099-RDMA-siw-a-stray-patch.patch is in" "the stray file"

fresh
sed -i '/^<!-- siw-series table: begin/{n;n;n;s/| F1 |/| F7 |/}' "$tmp/doc.md"
expect 1 "the docs' table out of date" check
contains "series table differs from the files (sh tools/siw-series.sh table prints the right one)" "the fix named"

if [ -f /usr/src/linux-source-6.1.tar.xz ]; then
	fresh
	# A context line 0001 needs, changed: the patch no longer applies exactly.
	sed -i '0,/^ \t[a-z]/s/^ \t\([a-z]\)/ \t\1\1/' "$tmp/p/$first"
	expect 1 "a patch that does not apply" env SIW_SERIES_KERNELS=6.1 SIW_SERIES_DIR="$tmp/p" SIW_SERIES_DOC="$tmp/doc.md" sh "$SERIES" check
	contains "$first does not apply to linux-source-6.1" "the patch and the kernel named"
else
	echo "siw_series: linux-source-6.1 is not installed: the application check is not exercised"
fi
finish siw_series
