#!/bin/sh
# `iwspec fuzz` against slow, silent, closing, resetting, lying and unreachable DUTs (issue 14),
# and its argument checks: each ends with the right finding or error, the documented exit
# status, and within a generous wall-time bound (--time T ends within T plus one reaction
# timeout; the bounds here add wide slack for a loaded machine, they only catch a hang).
# A slow DUT is slow, not dead; a DUT that stops answering is dead. Ends with
# "fuzz_hostile: N passed, N failed".
. "$(dirname "$0")/lib.sh"
spid=
on_exit 'if [ -n "$spid" ]; then kill -CONT "$spid" 2>/dev/null; kill "$spid" 2>/dev/null; fi'

show() { sed 's/^/    /' "$tmp/out" | head -20 >&2; }

# run LIMIT command...: runs it (killed after LIMIT s, a hang guard far above every bound
# below), output in $tmp/out, exit status in $rc, whole seconds taken in $took
run() {
	limit=$1; shift
	t0=$(date +%s)
	timeout "$limit" "$@" >"$tmp/out" 2>&1
	rc=$?
	took=$(($(date +%s) - t0))
}
status() { if [ "$rc" -eq "$1" ]; then ok; else bad "$2: exit $rc, wanted $1"; show; fi; }
within() { if [ "$took" -le "$1" ]; then ok; else bad "$2: took $took s, more than $1 s"; show; fi; }
has() { if grep -q -- "$1" "$tmp/out"; then ok; else bad "$2: output lacks '$1'"; show; fi; }
lacks() { if grep -q -- "$1" "$tmp/out"; then bad "$2: output has '$1'"; show; else ok; fi; }

hostile() { printf 'dut = ref\nrole = responder\nhostile = %s\n' "$1" >"$tmp/$1.conf"; echo "$tmp/$1.conf"; }

# 1. One octet a second: calibration counts against --time, the command ends near 10 s, and the
#    DUT is called slow, never dead (it was reported dead after 50 to 280 s).
run 120 "$IWSPEC" fuzz --dut-config "$(hostile slow)" --time 10s --out "$tmp/o" --no-progress
status 3 "slow --time 10s"
within 25 "slow --time 10s"
has "slow, not dead" "slow --time 10s"
lacks "dead \[" "slow --time 10s: no dead finding"

# 2. A Reply announcing PD_Length 65535 under rfc5044, then nothing: calibration names the
#    engine's verdict on it, not a hang of the runs.
run 120 "$IWSPEC" fuzz --dut-config "$(hostile bad-reply-stall)" --time 60s --out "$tmp/o" --no-progress
status 3 "bad-reply-stall"
within 20 "bad-reply-stall"
has "PD_Length 65535 above the rfc5044 limit of 512; a receiver refuses it, MPA-6.1-R9a \[RFC5044-7.1.1-04\]" "bad-reply-stall verdict (RFC 5044's sender PD_Length rule, the receiver's R9a in the sentence)"
lacks "hang" "bad-reply-stall: no hang"

# DUTs that never complete a startup: a clear error naming what they did, at once or after the
# liveness timeout (4 x 250 ms + 1 s).
for m in silent close rst; do
	run 120 "$IWSPEC" fuzz --dut-config "$(hostile $m)" --time 10s --out "$tmp/o" --no-progress
	status 3 "$m"
	within 15 "$m"
	has "cannot complete a conforming startup: it sent no Reply" "$m message"
	has "\[MPA-6.1-R2a\]" "$m requirement"
done
run 120 "$IWSPEC" fuzz --dut tcp:127.0.0.1:9 --time 10s --out "$tmp/o" --no-progress
status 3 "unreachable"
within 15 "unreachable"
has "cannot reach the DUT" "unreachable message"

# A DUT that stops answering mid-session (its process stopped) is dead: found, confirmed and
# reported within the time.
"$IWSPEC" serve --port 0 --quiet >"$tmp/serve.out" 2>&1 &
spid=$!
port=
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/serve.out")
	[ -n "$port" ] && break
	sleep 0.25
done
if [ -n "$port" ]; then
	(sleep 3; kill -STOP "$spid") &
	run 120 "$IWSPEC" fuzz --dut "tcp:127.0.0.1:$port" --timeout 100ms --time 15s --max-findings 1 \
		--out "$tmp/dead" --no-progress
	status 1 "stopped DUT"
	within 30 "stopped DUT"
	has "FINDING 1 .*: dead \[" "stopped DUT: dead"
	has "nothing came for" "stopped DUT: why"
	kill -CONT "$spid" 2>/dev/null
else
	bad "iwspec serve printed no port"
fi
kill "$spid" 2>/dev/null
spid=

# 8. Arguments, checked before anything runs (no DUT is touched: no "DUT" line).
touch "$tmp/afile"
run 60 "$IWSPEC" fuzz --mutant reply-wrong-rev --runs 50 --out "$tmp/afile" --no-progress
status 2 "--out FILE"
has "'$tmp/afile' is a file, not a directory" "--out FILE message"
lacks "iwspec fuzz: DUT" "--out FILE: nothing ran"
run 60 "$IWSPEC" fuzz --runs 5 --out "$tmp/afile/sub" --no-progress
status 2 "--out under a file"
has "is a file, so the directory cannot be created" "--out under a file message"
for s in -1 " -1" 1x 0x 0xZZ 18446744073709551616 ""; do
	run 60 "$IWSPEC" fuzz --seed "$s" --runs 5 --out "$tmp/o" --no-progress
	status 2 "--seed '$s'"
	lacks "iwspec fuzz: DUT" "--seed '$s': nothing ran"
	has "is not a seed: use a number from 0 to 18446744073709551615" "--seed '$s': the message names the range (as run's)"
done
run 60 "$IWSPEC" fuzz --runs 0 --out "$tmp/o" --no-progress
status 2 "--runs 0"
has "1 or more" "--runs 0 message"
run 60 "$IWSPEC" fuzz --max-findings 0 --runs 5 --out "$tmp/o" --no-progress
status 2 "--max-findings 0"
# --runs with --time: whichever comes first, as --help says.
run 60 "$IWSPEC" fuzz --help
has "With both, whichever comes first" "--help: --runs with --time"
has "130 interrupted by SIGINT" "--help: exit status 130"
run 60 "$IWSPEC" fuzz --runs 200 --time 60s --out "$tmp/o" --no-progress
status 0 "--runs 200 --time 60s"
has "fuzz: 200 runs" "--runs first"
within 30 "--runs first"
run 60 "$IWSPEC" fuzz --runs 100000000 --time 2s --out "$tmp/o" --no-progress
status 0 "--runs 1e8 --time 2s"
within 10 "--time first"

# SIGINT: the summary so far, exit 130.
"$IWSPEC" fuzz --time 60s --out "$tmp/o" --no-progress >"$tmp/out" 2>&1 &
fpid=$!
sleep 2
kill -INT "$fpid"
wait "$fpid"
rc=$?
status 130 "SIGINT"
has "^fuzz: [0-9]* runs" "SIGINT summary"
has "interrupted by SIGINT" "SIGINT note"

finish fuzz_hostile
