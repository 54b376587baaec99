# tools/siw-guest/driver.sh - sourced, not run: what the scripts that drive the siw guest share
# (tools/interop-siw.sh, tools/fuzz-siw.sh). Set TAG (the prefix of their lines) and SKIP_STATUS
# (a skip's exit status outside CI: 0 for a make stage that passes when it cannot run, 77 for a
# script whose caller tells a skip from a pass) before sourcing; IWSPEC names the binary.
#   say TEXT          a line of the script's output
#   now               seconds since the epoch
#   skip REASON       the guest cannot run here: SKIP, or under CI=true a failure
#   guest_host_ready  root, qemu and the built binary, or skip / fail naming what is missing
say() { echo "$TAG: $*"; }
now() { date +%s; }
skip() {
	if [ "${CI:-}" = true ]; then
		say "FAIL: $1 (CI=true: the siw guest must run here)" >&2
		exit 1
	fi
	say "SKIP: $1"
	exit "$SKIP_STATUS"
}
guest_host_ready() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (a network namespace and a TAP device for the guest)"
	command -v qemu-system-x86_64 >/dev/null 2>&1 || skip "qemu-system-x86_64 is missing (apt-get install qemu-system-x86)"
	[ -x "$IWSPEC" ] || { say "FAIL: $IWSPEC is not built (make)" >&2; exit 1; }
}
