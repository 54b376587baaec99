#!/bin/sh
# CLI tests of `iwspec fuzz --console FILE --console-mark HOST:PORT` and `--console-reports FILE`
# (docs/fuzzing-network.md, "Fuzzing a kernel stack"), without a guest:
#   - --console and --console-mark go together, and a console file that does not exist or an
#     agent address that is not HOST:PORT is refused before anything runs (exit 2);
#   - --console-reports reads a console file as the fuzzer does: F3's two reports, each with its
#     signature and the mark it began under, a mark printed between a report's lines not cutting
#     it (exit 1: reports); a console without reports gives none (exit 0);
#   - a guest whose agent takes no mark ends the fuzzing before the first run: exit 3, saying the
#     guest is dead or stuck (the campaign, tools/fuzz-siw.sh, then boots a fresh one).
# The marks themselves (the agent's answer awaited) are tested in tests/test_kernel_console.c.
# $IWSPEC names the binary (default build/iwspec). Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

show() { sed 's/^/    /' "$tmp/out" | head -30 >&2; }
expect() { # STATUS DESCRIPTION -- command... (stdout+stderr in $tmp/out)
	want=$1; shift; desc=$1; shift
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else bad "$desc: exit $got, wanted $want"; show; fi
}
contains() {
	if grep -q -- "$1" "$tmp/out"; then ok; else bad "$2: output lacks '$1'"; show; fi
}

: >"$tmp/console.log"
expect 2 "--console alone" "$IWSPEC" fuzz --console "$tmp/console.log" --time 1s
contains "needs --console-mark" "--console alone"
expect 2 "--console-mark alone" "$IWSPEC" fuzz --console-mark 127.0.0.1:4790 --time 1s
contains "needs --console FILE" "--console-mark alone"
expect 2 "a console that does not exist" "$IWSPEC" fuzz --console "$tmp/nope.log" --console-mark 127.0.0.1:4790
contains "nope.log" "a console that does not exist"
expect 2 "an agent that is not HOST:PORT" "$IWSPEC" fuzz --console "$tmp/console.log" --console-mark nowhere
contains "HOST:PORT" "an agent that is not HOST:PORT"

# F3 as siw 6.1 printed it in the guest, a mark landing between the WARNING's lines.
cat >"$tmp/f3.log" <<'EOF'
[    4.45] IWSPEC-GUEST-READY
[  226.1] iwspec-mark: fuzz run 1
[  226.210484] ------------[ cut here ]------------
[  226.210750] WARNING: CPU: 1 PID: 141 at /build/siw-src/siw_cm.c:453 siw_cep_put+0x11d/0x130 [siw]
[  226.211201] Modules linked in: siw(OE) libcrc32c rdma_ucm ib_uverbs rdma_cm
[  226.2112] iwspec-mark: fuzz run 2
[  226.211850] CPU: 1 PID: 141 Comm: iwspec-reflecto Tainted: G           OE      6.1.0-56-amd64 #1
[  226.212000] ---[ end trace 0000000000000000 ]---
[  226.238842] ------------[ cut here ]------------
[  226.238910] refcount_t: underflow; use-after-free.
[  226.239016] WARNING: CPU: 1 PID: 141 at lib/refcount.c:28 refcount_warn_saturate+0xba/0x110
[  226.245622] Call Trace:
[  226.245731]  siw_destroy_listen+0xf9/0x1a0 [siw]
[  226.248200] ---[ end trace 0000000000000000 ]---
EOF
expect 1 "--console-reports on F3's console" "$IWSPEC" fuzz --console-reports "$tmp/f3.log"
tab=$(printf '\t')
contains "^report${tab}WARNING${tab}WARNING at siw_cm.c siw_cep_put${tab}fuzz run 1\$" "F3's WARNING, under the mark of run 1"
contains "^report${tab}refcount_t${tab}refcount_t: underflow; use-after-free. in siw_destroy_listen${tab}fuzz run 2\$" \
	"F3's refcount underflow, under the mark of run 2"
contains "^    \[  226.211850\] CPU: 1 PID: 141" "the WARNING's lines after the mark stay in its report"
[ "$(grep -c '^report' "$tmp/out")" -eq 2 ] && ok || { bad "F3's console: $(grep -c '^report' "$tmp/out") reports, wanted 2"; show; }
expect 0 "--console-reports on a quiet console" "$IWSPEC" fuzz --console-reports "$tmp/console.log"
[ -s "$tmp/out" ] && { bad "a quiet console printed something"; show; } || ok

# An agent that is not there: nothing listens on the port (it is never bound here).
port=$(low_port)
expect 3 "an agent that takes no mark" "$IWSPEC" fuzz --mutant reply-wrong-rev --seed 1 --time 20s --out "$tmp/fz" \
	--console "$tmp/console.log" --console-mark "127.0.0.1:$port" --no-progress
contains "dead or stuck" "an agent that takes no mark"
finish fuzz_console
