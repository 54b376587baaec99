#!/bin/sh
# CLI tests of `iwspec run --wait-dut DURATION` (and the configuration's wait_dut): a DUT that a
# lab script starts together with the run listens a moment after it. Checked:
#   - with the option the run waits for the DUT, says so once on stderr, and judges the case;
#   - without it the refused first connection stops the run as before (exit 3, at once);
#   - a wait that runs out stops the run (exit 3) with a message naming the option;
#   - the configuration's key waits too, and the option wins over it;
#   - SIGINT ends the wait promptly (exit 130);
#   - bad values are refused before anything runs (exit 2) with a message naming the problem.
# $IWSPEC names the binary (default build/iwspec). Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
spid=
on_exit '[ -n "$spid" ] && kill "$spid" 2>/dev/null'

show() { sed 's/^/    /' "$1" | head -30 >&2; }
now() { date +%s; }

# expect STATUS DESCRIPTION -- command...   (stdout+stderr in $tmp/out)
expect() {
	want=$1; shift; desc=$1; shift
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else bad "$desc: exit $got, wanted $want"; show "$tmp/out"; fi
}
contains() {
	if grep -q -- "$1" "$tmp/out"; then ok; else bad "$2: output lacks '$1'"; show "$tmp/out"; fi
}

# A port nothing listens on: one the built-in DUT could listen on a moment ago, then freed. It
# comes from below the ephemeral range, as the exec: driver's ports do (drivers/net.h): there no
# other program's port-0 socket takes it meanwhile, and no retried connection meets itself.
lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
[ "${lo:-0}" -gt 11024 ] 2>/dev/null || lo=32768
port=
i=0
while [ -z "$port" ] && [ $i -lt 20 ]; do
	i=$((i + 1))
	cand=$((10000 + $(od -An -N2 -tu2 /dev/urandom) % (lo - 10000)))
	"$IWSPEC" serve --port "$cand" >"$tmp/serve.log" 2>&1 &
	spid=$!
	k=0
	while [ $k -lt 50 ] && kill -0 $spid 2>/dev/null && ! grep -q 'listening on' "$tmp/serve.log"; do
		sleep 0.1; k=$((k + 1))
	done
	grep -q "listening on 127.0.0.1:$cand " "$tmp/serve.log" && port=$cand
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	spid=
done
if [ -z "$port" ]; then
	bad "no free port for the DUT (iwspec serve --port N failed 20 times)"; show "$tmp/serve.log"
	finish wait_dut
	exit
fi
DUT="tcp:127.0.0.1:$port"
CASE=mpa.startup.resp.happy-path

# late_dut [S]: the built-in DUT starts listening on the port S seconds (default 1) from now.
late_dut() {
	(sleep "${1:-1}"; exec "$IWSPEC" serve --quiet --port "$port") >/dev/null 2>&1 &
	spid=$!
}
stop_dut() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	[ -n "$spid" ] && wait "$spid" 2>/dev/null
	spid=
}

# With --wait-dut the run waits for the late DUT and judges the case.
late_dut
expect 0 "--wait-dut 10s and a DUT a second late" "$IWSPEC" run --dut "$DUT" --wait-dut 10s --cases "$CASE" \
	--no-progress --report "$tmp/r1"
stop_dut
contains "waiting up to 10 s for the DUT at 127.0.0.1:$port to listen (--wait-dut 10s)" "the wait is announced"
if [ "$(grep -c 'waiting up to' "$tmp/out")" -eq 1 ]; then ok; else bad "the wait is announced more than once"; show "$tmp/out"; fi
contains "PASS  *1" "the case is judged"
grep -q 'before it listened (--wait-dut 10s)' "$tmp/r1/results.json" && ok ||
	bad "the case's report does not note the wait"

# Without it, a late DUT stops the run at its refused first connection, at once (3 s late: a
# loaded machine's run still meets the refusal).
late_dut 3
t0=$(now)
expect 3 "a DUT a second late, no --wait-dut" "$IWSPEC" run --dut "$DUT" --cases "$CASE" --no-progress \
	--report "$tmp/r2"
t=$(($(now) - t0))
stop_dut
contains "STOPPED" "without --wait-dut the run stops"
contains "Connection refused" "the stop names the refusal"
contains "--wait-dut DURATION waits for one that starts with the run" "the stop names the option"
if ! grep -q 'waiting up to' "$tmp/out"; then ok; else bad "no wait was asked for, one was announced"; fi
if [ "$t" -le 2 ]; then ok; else bad "without --wait-dut the run took $t s"; fi

# No DUT: the wait runs out, the run stops with exit 3 and a message naming the option.
t0=$(now)
expect 3 "--wait-dut 1s and no DUT" "$IWSPEC" run --dut "$DUT" --wait-dut 1s --cases "$CASE" --no-progress \
	--report "$tmp/r3"
t=$(($(now) - t0))
contains "the DUT at 127.0.0.1:$port refused every connection for 1 s (--wait-dut 1s): is it started?" \
	"the wait that ran out names the option"
contains "STOPPED" "the run stops when the wait runs out"
if [ "$t" -ge 1 ] && [ "$t" -le 5 ]; then ok; else bad "--wait-dut 1s took $t s"; fi
grep -q '"complete": false' "$tmp/r3/results.json" 2>/dev/null && ok || bad "results.json not marked incomplete"

# The configuration's key waits as the option does; the option wins over it.
printf 'dut = %s\nwait_dut = 10s\n' "$DUT" >"$tmp/wait.conf"
late_dut
expect 0 "wait_dut = 10s and a DUT a second late" "$IWSPEC" run --dut-config "$tmp/wait.conf" --cases "$CASE" \
	--no-progress --report "$tmp/r4"
stop_dut
contains "waiting up to 10 s for the DUT at 127.0.0.1:$port to listen (wait_dut = 10s)" "the key's wait is announced"
t0=$(now)
expect 3 "--wait-dut 1s over wait_dut = 10s" "$IWSPEC" run --dut-config "$tmp/wait.conf" --wait-dut 1s \
	--cases "$CASE" --no-progress --report "$tmp/r5"
t=$(($(now) - t0))
contains "refused every connection for 1 s (--wait-dut 1s)" "the option wins over the key"
if [ "$t" -le 5 ]; then ok; else bad "--wait-dut 1s over wait_dut = 10s took $t s"; fi
expect 3 "--wait-dut 0s turns the key's wait off" "$IWSPEC" run --dut-config "$tmp/wait.conf" --wait-dut 0s \
	--cases "$CASE" --no-progress --report "$tmp/r6"
contains "Connection refused" "--wait-dut 0s: the refusal stops the run"

# SIGINT ends the wait promptly: exit 130, the reports marked incomplete.
"$IWSPEC" run --dut "$DUT" --wait-dut 60s --cases "$CASE" --no-progress --report "$tmp/r7" >"$tmp/out" 2>&1 &
rpid=$!
i=0
while [ $i -lt 50 ] && ! grep -q 'waiting up to' "$tmp/out" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
t0=$(now)
kill -INT $rpid
wait $rpid
rc=$?
t=$(($(now) - t0))
if [ "$rc" -eq 130 ]; then ok; else bad "SIGINT during the wait: exit $rc, wanted 130"; show "$tmp/out"; fi
if [ "$t" -le 2 ]; then ok; else bad "SIGINT during the wait: the run took $t s to end"; fi
contains "INCOMPLETE: interrupted by SIGINT" "SIGINT during the wait: the run is interrupted, not stopped"

# Bad values: exit 2 before anything runs, naming the problem and the fix.
expect 2 "--wait-dut abc" "$IWSPEC" run --wait-dut abc --report "$tmp/bad"
contains "--wait-dut 'abc' is not a duration: use a number and a unit ms, s or m" "--wait-dut abc message"
expect 2 "--wait-dut -5s" "$IWSPEC" run --wait-dut -5s --report "$tmp/bad"
contains "--wait-dut '-5s': a wait cannot be negative" "negative --wait-dut message"
expect 2 "--wait-dut without a value" "$IWSPEC" run --wait-dut
contains "--wait-dut needs a duration" "missing --wait-dut value message"
expect 2 "--wait-dut ''" "$IWSPEC" run --wait-dut '' --report "$tmp/bad"
contains "--wait-dut needs a duration" "empty --wait-dut value message"
expect 2 "--wait-dut 2d" "$IWSPEC" run --wait-dut 2d --report "$tmp/bad"
contains "--wait-dut '2d' is not a duration" "--wait-dut 2d message"
printf 'dut = %s\nwait_dut = soon\n' "$DUT" >"$tmp/badwait.conf"
expect 2 "wait_dut = soon" "$IWSPEC" run --dut-config "$tmp/badwait.conf" --report "$tmp/bad"
contains "badwait.conf:2: bad value for wait_dut: 'soon' is not a duration" "bad wait_dut message"
if [ ! -e "$tmp/bad" ]; then ok; else bad "a bad --wait-dut left a report directory"; fi

# --help tells the truth about it.
expect 0 "run --help" "$IWSPEC" run --help
contains "--wait-dut DURATION" "run --help names --wait-dut"

finish wait_dut
