#!/bin/sh
# `iwspec run` judging slow, silent and unreachable DUTs (issue 14). The built-in DUT's hostile
# modes take the connection and then answer nothing (silent), close it at once (close), reset it
# at once (rst), trickle their Reply (slow) or announce private data they never send
# (bad-reply-stall); a port with nothing listening is an unreachable DUT. Checked:
#   - the happy path FAILs on the MUST the Reply rests on (MPA-6.1-R2a; bad-reply-stall's Reply
#     header breaks MPA-6.1.1-08), and the run exits 1, never 0;
#   - the cases that expect a close and no Reply (key-octet-00, rev-80) do not FAIL with
#     "expected a Reply" against a DUT that closes every connection;
#   - one level per requirement in every reason (the catalog's: R2f is a SHOULD everywhere), and
#     every FAIL or WARN rests on a requirement its case cites, or says it was judged on every
#     frame or by the liveness probe;
#   - an unreachable DUT stops the run at once with one message and exit 3;
#   - bad arguments are refused before anything runs, with exit 2.
# Times are bounds against a hang, far from what a sound harness takes. $IWSPEC names the
# binary. Ends with "hostile_run: N passed, N failed".
. "$(dirname "$0")/lib.sh"
CASES="$ROOT/cases"
show() { sed 's/^/    /' "$1" | tail -${2:-20} >&2; }
now() { date +%s; }

R=$CASES/mpa/6.1-startup-responder
mkdir -p "$tmp/cases"
cp "$R/happy-path.iwt" "$R/as-model-happy-path.iwt" "$R/key-octet-00.iwt" "$R/rev-80.iwt" "$R/pd-one-octet.iwt" \
	"$R/request-byte-by-byte.iwt" "$R/reject-private-data.iwt" "$CASES/ddp/9.1-tagged/write-then-read.iwt" "$tmp/cases/"

# case_file ID: the case file of an id among the copies
case_file() { grep -l "^id: $1\$" "$tmp/cases"/*.iwt | head -1; }

# The modes side by side: each case waits at most its timeout (10 s, 15 s for byte-by-byte,
# plus the liveness baseline's 5 s), so 60 s means a hang.
modes="silent close rst slow bad-reply-stall"
for m in $modes; do
	printf 'dut = ref\nrole = responder\nhostile = %s\n' "$m" >"$tmp/$m.conf"
	( t0=$(now); timeout 60 "$IWSPEC" run --no-progress --dut-config "$tmp/$m.conf" --cases "$tmp/cases" \
		--report "$tmp/$m" >"$tmp/$m.out" 2>&1; echo $? >"$tmp/$m.rc"; echo $(($(now) - t0)) >"$tmp/$m.time" ) &
done
wait

for m in $modes; do
	rc=$(cat "$tmp/$m.rc")
	echo "hostile_run: $m: exit $rc in $(cat "$tmp/$m.time") s"
	# A DUT that never answers a valid Request is not conformant: never exit 0.
	if [ "$rc" -eq 1 ]; then ok; else bad "$m: exit $rc, wanted 1 (a case failed)"; show "$tmp/$m.out"; fi
	want=MPA-6.1-R2a
	[ "$m" = bad-reply-stall ] && want=MPA-6.1.1-08
	for c in mpa.startup.resp.happy-path mpa.startup.resp.model-happy-path; do
		if grep -q "^  FAIL  $c  \[$want[]:]" "$tmp/$m.out"; then ok; else
			bad "$m: $c should FAIL on $want"; grep -A1 "  $c " "$tmp/$m.out" | head -2 >&2; fi
	done
	# One level per requirement: the catalog's, in every reason of the run.
	grep -o '\[requirement [A-Za-z0-9.-]* [^],]*' "$tmp/$m/results.json" | sort -u >"$tmp/$m.levels"
	dup=$(cut -d' ' -f2 "$tmp/$m.levels" | uniq -d)
	if [ -z "$dup" ]; then ok; else bad "$m: requirements with two levels: $dup"; cat "$tmp/$m.levels" >&2; fi
	if grep -q 'MPA-6.1-R2f MUST' "$tmp/$m.levels"; then bad "$m: MPA-6.1-R2f shown as a MUST"; else ok; fi
	# Every FAIL or WARN rests on a requirement its case cites, or on a check every case makes.
	# The summary lists each as "  FAIL  ID  [REQ]" with its reason on the next line.
	awk '/^  (FAIL|WARN)  [a-z]/ { l = $0; getline r; print l "\t" r }' "$tmp/$m.out" >"$tmp/$m.failed"
	while IFS= read -r line; do
		id=$(echo "$line" | sed 's/^  [A-Z]*  \([^ ]*\)  \[.*/\1/')
		req=$(echo "$line" | sed 's/^  [A-Z]*  [^ ]*  \[\([^]:]*\).*/\1/')    # [ID] or [ID: KW, where]
		if grep -q "^requirement: $req " "$(case_file "$id")" ||
		   echo "$line" | grep -q 'judged on every frame\|judged by the liveness probe'; then ok; else
			bad "$m: $id fails on $req, which it does not cite"; echo "$line" >&2; fi
	done <"$tmp/$m.failed"
done

# A DUT that closes every connection at once refuses a bad Request as it should: the cases that
# expect a close and no Reply do not FAIL for want of a Reply (the liveness probe cannot judge a
# DUT that answered no fresh connection before the case either).
for c in mpa.startup.resp.key-octet-00 mpa.startup.resp.rev-80; do
	if grep -A1 "^  FAIL  $c " "$tmp/close.out" | grep -q 'expected a Reply'; then
		bad "close: $c FAILs with 'expected a Reply'"; grep -A1 "  $c " "$tmp/close.out" >&2
	else ok; fi
done
# The reasons say what happened.
grep -A1 '^  FAIL  mpa.startup.resp.happy-path ' "$tmp/silent.out" | grep -q 'nothing arrived in' && ok ||
	bad "silent: the happy path's reason does not say nothing arrived"
grep -A1 '^  FAIL  mpa.startup.resp.happy-path ' "$tmp/rst.out" | grep -q 'reset' && ok ||
	bad "rst: the happy path's reason does not say the DUT reset"

# Unreachable: a port the built-in DUT listened on, then freed. The first case's connection is
# refused, and the run stops there: one message, exit 3, no case waiting for a timeout. The port
# comes from below the ephemeral range (low_port): one of that range, once free, may be taken
# within seconds by another program's port-0 listener (a built-in DUT of a run beside this one),
# and the runs below would reach it.
port=
for try in 1 2 3 4 5 6 7 8 9 10; do
	cand=$(low_port)
	"$IWSPEC" serve --quiet --port "$cand" >"$tmp/serve.log" 2>&1 &
	spid=$!
	i=0
	while [ $i -lt 100 ] && kill -0 $spid 2>/dev/null && ! grep -q 'listening on' "$tmp/serve.log" 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	grep -q "listening on 127\.0\.0\.1:$cand" "$tmp/serve.log" && port=$cand
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	[ -n "$port" ] && break
done
if [ -n "$port" ]; then ok; else bad "no free port from iwspec serve"; show "$tmp/serve.log"; fi
t0=$(now)
timeout 60 "$IWSPEC" run --no-progress --dut "tcp:127.0.0.1:$port" --report "$tmp/gone" >"$tmp/gone.out" 2>&1
rc=$?
t=$(($(now) - t0))
echo "hostile_run: unreachable: exit $rc in $t s"
if [ "$rc" -eq 3 ]; then ok; else bad "unreachable: exit $rc, wanted 3"; show "$tmp/gone.out"; fi
# Every case would wait 5 s for the connection: 152 of them, 13 minutes. 20 s is generous.
if [ "$t" -le 20 ]; then ok; else bad "unreachable: the run took $t s"; fi
if [ "$(grep -c 'STOPPED' "$tmp/gone.out")" -eq 1 ] && grep -q 'Connection refused' "$tmp/gone.out" &&
   grep -q -- '--keep-going' "$tmp/gone.out"; then ok; else
	bad "unreachable: no single STOPPED message naming the refusal and --keep-going"; show "$tmp/gone.out"; fi
if grep -q '"complete": false' "$tmp/gone/results.json" 2>/dev/null; then ok; else
	bad "unreachable: results.json missing or not marked incomplete"; fi
# --keep-going runs what was asked, each case waiting its connect timeout (1 s here).
printf 'dut = tcp:127.0.0.1:%s\nconnect_timeout = 1s\n' "$port" >"$tmp/gone.conf"
timeout 60 "$IWSPEC" run --no-progress --keep-going --dut-config "$tmp/gone.conf" \
	--cases 'mpa.startup.resp.key-octet-0[0-2]' --report "$tmp/gone2" >"$tmp/gone2.out" 2>&1
rc=$?
if [ "$rc" -eq 3 ] && [ "$(grep -c '^  ERROR mpa.startup.resp.key-octet-0' "$tmp/gone2.out")" -eq 3 ] &&
   ! grep -q STOPPED "$tmp/gone2.out"; then ok; else
	bad "--keep-going: exit $rc, wanted 3 with three ERRORs and no stop"; show "$tmp/gone2.out"; fi

# Arguments are checked before anything runs: exit 2, a message naming the problem, no report.
# usage DESC PATTERN -- ARGS...
usage() {
	desc=$1; pat=$2; shift 3
	t0=$(now)
	"$IWSPEC" run --no-progress "$@" >"$tmp/u.out" 2>&1
	rc=$?
	t=$(($(now) - t0))
	if [ "$rc" -eq 2 ] && grep -q -- "$pat" "$tmp/u.out" && [ "$t" -le 5 ]; then ok; else
		bad "$desc: exit $rc after $t s, wanted 2 at once with '$pat'"; show "$tmp/u.out" 5; fi
}
: >"$tmp/empty.conf"
printf '# only a comment\n\n' >"$tmp/comments.conf"
usage "--report in /proc" "cannot create directory" -- --report /proc/nope --cases 'mpa.startup.resp.*'
usage "--cases naming a missing file" "No such file or directory" -- --cases "$tmp/nonexist.iwt" --report "$tmp/u1"
[ ! -e "$tmp/u1" ] && ok || bad "a report directory was created for a usage error"
usage "--seed -1" "is not a seed" -- --seed -1 --report "$tmp/u2"
usage "--seed with trailing junk" "is not a seed" -- --seed 12x --report "$tmp/u2"
usage "--seed past 2^64-1" "is not a seed" -- --seed 18446744073709551616 --report "$tmp/u2"
usage "--dut-config ''" "needs a file name" -- --dut-config '' --report "$tmp/u2"
usage "an empty --dut-config" "declares nothing" -- --dut-config "$tmp/empty.conf" --report "$tmp/u2"
usage "a --dut-config of comments" "declares nothing" -- --dut-config "$tmp/comments.conf" --report "$tmp/u2"
# The edges that are fine: the largest seed, and a glob that matches nothing (exit 3, not 2).
"$IWSPEC" run --no-progress --seed 18446744073709551615 --cases mpa.startup.resp.happy-path \
	--report "$tmp/u3" >"$tmp/u.out" 2>&1 && ok || { bad "--seed 2^64-1 refused"; show "$tmp/u.out" 5; }
grep -q '"seed": "18446744073709551615"' "$tmp/u3/results.json" && ok || bad "--seed 2^64-1 not kept"
"$IWSPEC" run --no-progress --cases 'no.such.*' --report "$tmp/u4" >"$tmp/u.out" 2>&1
[ $? -eq 3 ] && grep -q 'no case matches' "$tmp/u.out" && ok || { bad "a glob matching nothing: want exit 3"; show "$tmp/u.out" 5; }

finish hostile_run
