#!/bin/sh
# Which siw guest boots save the guest for later restores (tools/interop-siw.sh's
# later_boot_of_kind, taken from the script itself; tools/siw-guest/boot.sh): a boot saves only
# when a later pass boots a guest of its kind, stock or patched, so the last boot of each kind
# does not spend its seconds on a stream nobody reads. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 2

awk '/^later_boot_of_kind\(\) \{/ { on = 1 } on { print } on && /^}$/ { exit }' tools/interop-siw.sh >"$tmp/fn.sh"
[ -s "$tmp/fn.sh" ] && ok || bad "tools/interop-siw.sh has no later_boot_of_kind"
. "$tmp/fn.sh"

# saves PASSES PASS BOOTOPT WANT: whether PASS's boot saves (yes or no).
saves() {
	PASSES=$1
	if later_boot_of_kind "$2" "$3"; then got=yes; else got=no; fi
	[ "$got" = "$4" ] && ok || bad "passes '$1': $2 ($3): saves $got, wanted $4"
}
# make test's passes: the stock guest is saved by the responder pass and restored after; the
# patched pass is the only patched boot.
T="responder initiator rping-responder rping-initiator perftest findings fuzz-smoke patched"
saves "$T" responder "" yes
saves "$T" initiator "" yes
saves "$T" rping-responder "" yes
saves "$T" fuzz-smoke "" no
saves "$T" patched --patched no
# make interop's: patched-f32 after the patched pass boots a patched guest too.
saves "$T patched-f32" patched --patched yes
saves "$T patched-f32" fuzz-smoke "" no
# One pass alone saves nothing.
saves "responder" responder "" no

finish siw-guest-save
