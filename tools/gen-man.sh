#!/bin/sh
# Writes a program's manual page from its own --help and --version, with Debian's help2man, so
# the page and the program cannot disagree: `make man` (and `make install`, the package) rebuild
# it from the binary they install.
#
#   sh tools/gen-man.sh iwspec BINARY OUT.1
#   sh tools/gen-man.sh iwspec-reflector BINARY OUT.1
#
# iwspec's page also holds each command's `iwspec COMMAND --help`, word for word, under COMMANDS
# (help2man reads one --help only), and both pages the sections no --help has: FILES, ENVIRONMENT
# where it applies, SEE ALSO. Exit: 0, 1 failed (the message says what), 2 usage.
set -u
[ $# -eq 3 ] || { echo "usage: sh tools/gen-man.sh iwspec|iwspec-reflector BINARY OUT.1" >&2; exit 2; }
name=$1
bin=$2
out=$3
command -v help2man >/dev/null 2>&1 || { echo "gen-man: help2man is missing (apt-get install help2man)" >&2; exit 1; }
[ -x "$bin" ] || { echo "gen-man: '$bin' is not an executable (make it first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc=$tmp/include.h2m
# troff escapes: a backslash doubled, a line's leading dot or quote protected.
verbatim() { sed 's/\\/\\e/g; s/^\([.'"'"']\)/\\\&\1/'; }
case $name in
iwspec)
	summary="conformance and fuzzing suite for iWARP (MPA, DDP, RDMAP)"
	{
		printf '%s\n' "[SYNOPSIS]" ".B iwspec" ".I command" ".RI [ options ]"
		printf '%s\n' "[=DESCRIPTION]" ".nf"
		"$bin" --help | verbatim
		printf '%s\n' ".fi" "[COMMANDS]" "Each command's own help, as \\fBiwspec\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR prints it."
		for cmd in $("$bin" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'); do
			printf '.SS "iwspec %s"\n' "$cmd"
			echo ".nf"
			"$bin" "$cmd" --help 2>&1 | verbatim
			echo ".fi"
		done
		echo "[FILES]"
		echo ".TP"
		echo ".I ../share/iwspec/cases"
		echo "the case catalog, found from the binary's own directory (make install)"
		echo ".TP"
		echo ".I ../share/iwspec/vectors"
		echo "the test-vector set; its hash goes into every report's provenance"
		echo "[SEE ALSO]"
		echo ".BR iwspec-reflector (1)."
		echo "docs/ of the source: case-language.md, dut-config.md, reports.md, fuzzing-network.md."
	} >"$inc" || exit 1
	;;
iwspec-reflector)
	summary="the DUT-side application of iwspec on an RDMA device"
	{
		printf '%s\n' "[SYNOPSIS]" ".B iwspec-reflector" "\\-\\-listen|\\-\\-connect|\\-\\-agent|\\-\\-via ..."
		printf '%s\n' "[=DESCRIPTION]" ".nf"
		"$bin" --help 2>&1 | verbatim
		echo ".fi"
		echo "[SEE ALSO]"
		echo ".BR iwspec (1),"
		echo ".BR rping (1)."
		echo "docs/reflector.md of the source."
	} >"$inc"
	;;
*) echo "gen-man: iwspec or iwspec-reflector, not '$name'" >&2; exit 2 ;;
esac
# help2man runs the program by the path it is given: a copy named as the program, so the page
# says "iwspec", not the build directory's path.
mkdir -p "$tmp/bin"
cp "$bin" "$tmp/bin/$name"
# The version without the build's details (git revision, CRC32C engine), the date the source's
# (its last commit), so two builds of one source write the same page.
version=$("$bin" --version | head -1 | awk '{ print $2 }')
[ -n "${SOURCE_DATE_EPOCH:-}" ] || SOURCE_DATE_EPOCH=$(git -C "$(dirname "$0")" log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH
help2man --no-info --section 1 --name "$summary" --version-string "$version" --include "$inc" --output "$tmp/page.1" "$tmp/bin/$name" \
	>"$tmp/help2man.log" 2>&1 || { cat "$tmp/help2man.log" >&2; echo "gen-man: help2man failed on $bin" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
mv "$tmp/page.1" "$out"
