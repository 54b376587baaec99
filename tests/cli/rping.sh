#!/bin/sh
# The rping profile (docs/rping.md) against the built-in DUT running rping: every rping case
# in both directions (the DUT as `rping -s` for the responder cases, as `rping -c -C 2` for the
# initiator ones) and both profiles with and without the RFC 6581 IRD/ORD block, each case
# asserted PASS, and through the exec: driver (`iwspec serve --rping`); the same cases must FAIL against a DUT that sends no Terminate and one that
# numbers its messages from 0, so the PASSes are not vacuous; a reflector case SKIPs, saying
# why, and the rping cases SKIP against a reflector DUT. $IWSPEC names the binary.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

ncases=$(ls "$(dirname "$0")"/../../cases/rping/*.iwt | wc -l)
[ "$ncases" -ge 13 ] && ok || bad "cases/rping holds $ncases cases, expected 13 or more"

# verdicts RESULTS.JSON: "ID VERDICT" lines
verdicts() { jq -r '.cases[] | "\(.id) \(.verdict)"' "$1"; }

printf 'ulp = rping\n' >"$tmp/rping.conf"
for p in rfc5044 rfc6581; do
	out="$tmp/run-$p"
	timeout 120 "$IWSPEC" run --dut-config "$tmp/rping.conf" --profile $p --cases 'rping.*' --report "$out" \
		>"$tmp/log" 2>&1
	rc=$?
	[ $rc -eq 0 ] && ok || { bad "$p: iwspec run exited $rc"; sed 's/^/    /' "$tmp/log" | tail -20 >&2; }
	n=$(verdicts "$out/results.json" | grep -c ' PASS$')
	[ "$n" -eq "$ncases" ] && ok || { bad "$p: $n of $ncases rping cases PASS"; verdicts "$out/results.json" | grep -v ' PASS$' >&2; }
	for role in initiator responder; do
		n=$(jq -r --arg r $role '[.cases[] | select(.dut_role == $r and .verdict == "PASS")] | length' "$out/results.json")
		[ "$n" -ge 6 ] && ok || bad "$p: only $n rping cases PASS with the DUT as $role"
	done
done

# The exec: path, as a real rping is driven: `iwspec serve --rping` started per case (responder)
# or per connection (initiator, --once), every case of its role PASS.
bin=$(cd "$(dirname "$IWSPEC")" && pwd)/$(basename "$IWSPEC")
printf "dut = exec:'%s serve --quiet --rping --port {port}'\nrole = responder\nulp = rping\n" "$bin" >"$tmp/exec-r.conf"
printf "dut = exec:'%s serve --quiet --once --rping --role initiator --host {host} --port {port}'\nrole = initiator\nulp = rping\n" \
	"$bin" >"$tmp/exec-i.conf"
for role in r i; do
	timeout 180 "$IWSPEC" run --dut-config "$tmp/exec-$role.conf" --cases 'rping.*' --report "$tmp/exec-$role" >"$tmp/log" 2>&1
	rc=$?
	[ $rc -eq 0 ] && ok || { bad "exec ($role): iwspec run exited $rc"; sed 's/^/    /' "$tmp/log" | tail -20 >&2; }
	np=$(verdicts "$tmp/exec-$role/results.json" | grep -c ' PASS$')
	ns=$(verdicts "$tmp/exec-$role/results.json" | grep -c ' SKIP$')
	[ "$np" -ge 6 ] && [ $((np + ns)) -eq "$ncases" ] && ok || { bad "exec ($role): $np PASS, $ns SKIP"; verdicts "$tmp/exec-$role/results.json" >&2; }
done

# The negative cases judge the Terminate: without one they fail; a DUT that numbers its
# messages from MSN 0 fails every case (each judges the DUT's frames).
for m in no-terminate msn-start-0; do
	printf 'ulp = rping\nmutant = %s\n' $m >"$tmp/m.conf"
	timeout 120 "$IWSPEC" run --dut-config "$tmp/m.conf" --cases 'rping.*' --report "$tmp/m-$m" >"$tmp/log" 2>&1
	[ $? -eq 1 ] && ok || bad "mutant $m: iwspec run did not exit 1"
	nf=$(verdicts "$tmp/m-$m/results.json" | grep -c ' FAIL$')
	case $m in
	no-terminate) want=$((ncases - 2)) ;;   # all but the two happy paths
	*) want=$ncases ;;
	esac
	[ "$nf" -ge "$want" ] && ok || { bad "mutant $m: $nf rping cases FAIL, expected $want"; verdicts "$tmp/m-$m/results.json" >&2; }
done

# Under ulp = rping a case that needs the reflector's echo SKIPs naming the capability and rping's
# profile; one that needs only a connection in full operation runs and is judged (issue 26);
# without ulp = rping the rping cases SKIP.
timeout 60 "$IWSPEC" run --dut-config "$tmp/rping.conf" --cases 'ddp.untagged.msn-below-window' --report "$tmp/sk1" >"$tmp/log" 2>&1
r=$(jq -r '.cases[0] | "\(.verdict) \(.reason)"' "$tmp/sk1/results.json")
case $r in "SKIP needs echo: the DUT runs rping -s"*"(ulp profile rping-server)"*) ok ;; *) bad "echo case under ulp = rping: $r" ;; esac
timeout 60 "$IWSPEC" run --dut-config "$tmp/rping.conf" --cases 'rdmap.read.invalid-stag' --report "$tmp/sk3" >"$tmp/log" 2>&1
r=$(jq -r '.cases[0] | .verdict' "$tmp/sk3/results.json")
[ "$r" = PASS ] && ok || bad "rdmap.read.invalid-stag under ulp = rping (needs nothing but a connection): $r"
timeout 60 "$IWSPEC" run --cases 'rping.server.happy-path' --report "$tmp/sk2" >"$tmp/log" 2>&1
r=$(jq -r '.cases[0] | "\(.verdict) \(.reason)"' "$tmp/sk2/results.json")
case $r in "SKIP needs rping"*) ok ;; *) bad "rping case against the reflector: $r" ;; esac

# A bad ulp value stops the run with exit 2, naming the fix.
printf 'ulp = rpong\n' >"$tmp/bad.conf"
"$IWSPEC" run --dut-config "$tmp/bad.conf" --cases 'rping.*' >"$tmp/log" 2>&1
[ $? -eq 2 ] && ok || bad "ulp = rpong: not exit 2"
grep -q "bad value 'rpong' for ulp: use reflector" "$tmp/log" && ok || bad "ulp = rpong: message lacks the fix"

finish rping
