#!/bin/sh
# The harness against hostile modes of the built-in DUT (issue 3, "Robustness"): random bytes, a
# reset in the middle of a frame, one octet a second, private data never fulfilled, an endless
# stream, a connection never closed. Every run must end on its own within the cases' timeouts
# (no hang, no crash), with valid reports and a verdict for every case. Ends with
# "hostile: N passed, N failed".
. "$(dirname "$0")/lib.sh"
mkdir -p "$tmp/cases"
cp cases/mpa/6.1-startup-responder/happy-path.iwt cases/mpa/6.1-startup-responder/key-octet-00.iwt \
	"$tmp/cases/"

modes="garbage reset-mid-frame slow pd-never endless never-close"
for m in $modes; do
	printf 'dut = ref\nrole = responder\nhostile = %s\n' "$m" >"$tmp/$m.conf"
	# Two cases of 10 s at most each: 60 s is a generous outer bound, never reached by a sound harness.
	( timeout 60 "$IWSPEC" run --no-progress --dut-config "$tmp/$m.conf" --cases "$tmp/cases" \
		--report "$tmp/$m" >"$tmp/$m.out" 2>&1; echo $? >"$tmp/$m.rc" ) &
done
wait
for m in $modes; do
	rc=$(cat "$tmp/$m.rc")
	# 0/1: verdicts reached; 124 would be our timeout (a hang), >= 128 a crash.
	if [ "$rc" -le 1 ]; then ok; else bad "hostile $m: exit $rc"; sed 's/^/    /' "$tmp/$m.out" | tail -15 >&2; fi
	if grep -q '"id": "mpa.startup.resp.happy-path"' "$tmp/$m/results.json" 2>/dev/null &&
	   grep -q '"id": "mpa.startup.resp.key-octet-00"' "$tmp/$m/results.json"; then
		ok
	else
		bad "hostile $m: results.json lacks a verdict for every case"
	fi
	# Every hostile mode breaks a rule one of the two cases checks: some case must not pass (FAIL, or
	# WARN where the broken rule is a SHOULD).
	if grep -qE '^  (FAIL|WARN)  mpa\.startup\.resp\.' "$tmp/$m.out"; then ok; else
		bad "hostile $m: every case passed"; sed 's/^/    /' "$tmp/$m.out" | tail -15 >&2; fi
done
finish hostile
