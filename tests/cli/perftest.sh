#!/bin/sh
# The perftest profiles (docs/ulp-profiles.md) against the built-in DUT playing perftest's server
# (ib_send_bw, ib_write_bw, ib_read_bw -R: its comm connection before each connection, its keys
# on it after the startup frames): every case whose needs the mode's profile meets runs and
# PASSes, among them a share of the DDP and RDMAP cases; the same cases FAIL against a DUT that
# sends no Terminate, so the PASSes are not vacuous; a case that needs more SKIPs naming the
# capability and the profile; ib_send_lat's server (perftest-send-lat), which answers each Send
# with one of its own, runs the cases that need only `answer`; the same for perftest's client on the DUT (the initiator role),
# iwspec playing the server; a bad mode is refused. $IWSPEC names the binary. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

for m in send write read; do
	printf 'dut = ref\nrole = responder\nprofile = rfc6581\nulp = perftest-%s\n' $m >"$tmp/$m.conf"
	out="$tmp/run-$m"
	run_all "$tmp/$m.conf" "$out" "perftest-$m"
	# Measured: send 68 cases (26 DDP and RDMAP), write 67 (25), read 85 (41); the reflector-less
	# configuration before the profiles ran 42 and none of the DDP and RDMAP cases.
	all=$(ran "$out/results.json")
	dr=$(ran "$out/results.json" '^(ddp|rdmap)[.]')
	[ "$all" -ge 60 ] && ok || bad "perftest-$m: only $all cases ran"
	[ "$dr" -ge 20 ] && ok || bad "perftest-$m: only $dr DDP and RDMAP cases ran"
done
# perftest-read runs at least half of the DDP and RDMAP cases (docs/ulp-profiles.md): a case
# whose needs grow past what ib_read_bw gives shows here.
half "$tmp/run-read/results.json" perftest-read
# A Write one octet past the end of the range the DUT's keys name: judged only because the keys
# were read (to=end: perftest's vaddr is 65536 octets from its buffer's end).
for m in write read; do
	r=$(jq -r '.cases[] | select(.id == "ddp.tagged.to-past-end") | "\(.verdict) \(.reason)"' "$tmp/run-$m/results.json")
	case $r in PASS*) ok ;; *) bad "ddp.tagged.to-past-end under perftest-$m: $r" ;; esac
done
r=$(jq -r '.cases[] | select(.id == "ddp.tagged.write-at-edges") | "\(.verdict) \(.reason)"' "$tmp/run-read/results.json")
case $r in PASS*) ok ;; *) bad "ddp.tagged.write-at-edges under perftest-read (writes, reads back): $r" ;; esac
r=$(jq -r '.cases[] | select(.id == "rdmap.read.bounds") | "\(.verdict) \(.reason)"' "$tmp/run-write/results.json")
case $r in "SKIP needs read-stag=16: the DUT runs ib_write_bw -R (ulp profile perftest-write-server)"*) ok ;;
*) bad "rdmap.read.bounds under perftest-write: $r" ;; esac
r=$(jq -r '.cases[] | select(.id == "ddp.untagged.msn-below-window") | "\(.verdict) \(.reason)"' "$tmp/run-send/results.json")
case $r in "SKIP needs answer: the DUT runs ib_send_bw -R"*) ok ;; *) bad "an answer case under perftest-send: $r" ;; esac
r=$(jq -r '.cases[] | select(.id == "ddp.untagged.multi-segment-out-of-order") | "\(.verdict) \(.reason)"' "$tmp/run-send/results.json")
case $r in "SKIP needs echo: the DUT runs ib_send_bw -R"*) ok ;; *) bad "an echo case under perftest-send: $r" ;; esac

# The MSN one past ib_send_bw's 512 receives (msn=recv+1), and a Send one octet longer than them.
sent_is "$tmp/run-send/results.json" ddp.untagged.msn-no-buffer tail "MSN=513 MO=0, 9 payload octets"
sent_is "$tmp/run-send/results.json" ddp.untagged.message-longer-than-buffer tail \
	"L=1 DV=1 QN=0 MSN=1 MO=65464, 73 payload octets"

# ib_send_lat's server (ulp = perftest-send-lat): the built-in DUT answers each Send of the test
# connection with one of 65536 octets of its own. Every case its profile runs PASSes; the cases
# that need only `answer` run there and nowhere under ib_send_bw; a case that judges the echo's
# content still SKIPs.
printf 'dut = ref\nrole = responder\nprofile = rfc6581\nulp = perftest-send-lat\n' >"$tmp/lat.conf"
run_all "$tmp/lat.conf" "$tmp/lat" perftest-send-lat
all=$(ran "$tmp/lat/results.json")
dr=$(ran "$tmp/lat/results.json" '^(ddp|rdmap)[.]')
drsend=$(ran "$tmp/run-send/results.json" '^(ddp|rdmap)[.]')
allsend=$(ran "$tmp/run-send/results.json")
[ "$all" -gt "$allsend" ] && ok || bad "perftest-send-lat: $all cases ran, no more than ib_send_bw's $allsend"
[ "$dr" -gt "$drsend" ] && ok || bad "perftest-send-lat: $dr DDP and RDMAP cases ran, no more than ib_send_bw's $drsend"
# The answer cases: delivery (or its absence after a bad CRC, a Terminate then) is all they judge.
for id in ddp.control.rsvd-bits-ignored rdmap.header.reserved-ignored ddp.untagged.msn-below-window \
	ddp.untagged.multi-segment-out-of-order-once mpa.crc.corrupt-crc-value mpa.crc.corrupt-payload \
	mpa.crc.corrupt-payload-initiator mpa.crc.terminate-code-2 mpa.crc.wrong-byte-order \
	mpa.errors.crc-error-ulp-closes mpa.fpdu.pad-nonzero-accepted mpa.mulpdu.mss-88-reassembly; do
	r=$(jq -r --arg id $id '.cases[] | select(.id == $id) | .verdict' "$tmp/lat/results.json")
	[ "$r" = PASS ] && ok || bad "$id under perftest-send-lat: $r"
done
grep -q "ib_send_lat answered the startup Send with 65536 octets of its own" "$tmp/lat/results.json" && ok ||
	bad "perftest-send-lat: startup took no answer"
# The payload of an answer is perftest's: an `expect send data=` is taken as the answer, saying so.
grep -q "line [0-9]*: .expect send. taken as the application's answer (ulp profile perftest-send-lat-server answers, it does not echo): a Send of 65536 octets" \
	"$tmp/lat/results.json" && ok || bad "perftest-send-lat: no note that an answer's payload is not judged"
r=$(jq -r '.cases[] | select(.id == "ddp.untagged.multi-segment-out-of-order") | "\(.verdict) \(.reason)"' "$tmp/lat/results.json")
case $r in "SKIP needs echo: the DUT runs ib_send_lat -R -s 65536"*) ok ;; *) bad "an echo case under perftest-send-lat: $r" ;; esac
# An `expect send msn=` is written against the reflector's startup (the DUT's next MSN 3);
# ib_send_lat's startup leaves it at 2: msn=3 is its first answer after startup, msn=4 is not.
mkdir -p "$tmp/msn"
for m in 3 4; do
	printf 'id: t.answer-msn-%s\ntitle: T\nrequirement: DDP-6.3-08 MUST\nrole: responder\nneeds: recv=1x16 answer\n\nstartup\nsend send data="x"\nexpect send data="x" msn=%s\n' \
		$m $m >"$tmp/msn/answer-msn-$m.iwt"
done
timeout 60 "$IWSPEC" run --dut-config "$tmp/lat.conf" --cases "$tmp/msn" --report "$tmp/msn-run" >"$tmp/log" 2>&1
[ $? -eq 1 ] && ok || bad "perftest-send-lat msn=: not exit 1"
r=$(jq -r '.cases[] | select(.id == "t.answer-msn-3") | .verdict' "$tmp/msn-run/results.json")
[ "$r" = PASS ] && ok || bad "perftest-send-lat: msn=3 (the reflector's) not taken as ib_send_lat's 2: $r"
r=$(jq -r '.cases[] | select(.id == "t.answer-msn-4") | "\(.verdict) \(.reason)"' "$tmp/msn-run/results.json")
case $r in "FAIL msn=3 expected (the case's msn=4, written against the reflector's startup"*", 2 seen"*) ok ;;
*) bad "perftest-send-lat: msn=4 $r" ;; esac
# Against DUTs that break what the answer cases judge, they FAIL: one that checks RDMAP's
# reserved bits (a Terminate where the answer was due), one that sends no Terminate for an MSN
# below the window, one that delivers a Send whose CRC does not match (its answer, where none was due).
for m in rdmap-rsvd-checked:rdmap.header.reserved-ignored:RFC5040-4.1-05 no-terminate:rdmap.read.invalid-stag:RFC5040-7.1-02 \
	crc-unchecked:mpa.crc.corrupt-payload:MPA-5.2-14; do
	mut=${m%%:*} rest=${m#*:}; id=${rest%%:*}; req=${rest#*:}
	printf 'dut = ref\nrole = responder\nprofile = rfc6581\nulp = perftest-send-lat\nmutant = %s\n' $mut >"$tmp/latm.conf"
	timeout 120 "$IWSPEC" run --dut-config "$tmp/latm.conf" --cases "$id" --report "$tmp/latm-$mut" >"$tmp/log" 2>&1
	[ $? -eq 1 ] && ok || bad "perftest-send-lat against $mut: not exit 1"
	r=$(jq -r --arg id $id '.cases[] | select(.id == $id) | "\(.verdict) \(.reason)"' "$tmp/latm-$mut/results.json")
	case $r in "FAIL "*"[requirement $req "*) ok ;; *) bad "$id under perftest-send-lat against $mut: $r" ;; esac
done
# Through exec:, `iwspec serve --perftest send-lat` playing ib_send_lat's server: the answer cases
# PASS. A server that answers nothing (ib_send_bw's, `--perftest send`) declared as ib_send_lat's:
# startup's answer never comes, and the case is not judged, saying so (never a PASS).
bin=$(cd "$(dirname "$IWSPEC")" && pwd)/$(basename "$IWSPEC")
for mode in send-lat send; do
	printf "dut = exec:'%s serve --quiet --profile rfc6581 --perftest %s --port {port}'\nrole = responder\nprofile = rfc6581\nulp = perftest-send-lat\nconnect_timeout = 2s\nclose_timeout = 2s\n" \
		"$bin" $mode >"$tmp/lat-exec.conf"
	timeout 120 "$IWSPEC" run --dut-config "$tmp/lat-exec.conf" --cases ddp.untagged.msn-below-window --report "$tmp/lat-exec-$mode" \
		>"$tmp/log" 2>&1
	r=$(jq -r '.cases[0] | "\(.verdict) \(.reason)"' "$tmp/lat-exec-$mode/results.json")
	case $mode:$r in
	send-lat:PASS*) ok ;;
	send:"SKIP not judged: the DUT's application did not take the connection"*"perftest_answer: expected an FPDU, nothing arrived in time"*) ok ;;
	*) bad "msn-below-window under ulp = perftest-send-lat against serve --perftest $mode: $r" ;;
	esac
done
# ib_send_lat's client is no profile: every case SKIPs, saying to use perftest-send.
printf 'dut = ref\nrole = initiator\nprofile = rfc6581\nulp = perftest-send-lat\n' >"$tmp/latc.conf"
timeout 60 "$IWSPEC" run --dut-config "$tmp/latc.conf" --report "$tmp/latc" >"$tmp/log" 2>&1
[ $? -eq 3 ] && ok || bad "perftest-send-lat as initiator: not exit 3"
n=$(jq -r '[.cases[] | select(.verdict != "SKIP")] | length' "$tmp/latc/results.json")
[ "$n" -eq 0 ] && ok || bad "perftest-send-lat as initiator: $n cases ran"
n=$(jq -r '[.cases[] | select(.reason | test("^ulp profile perftest-send-lat-client: .*use ulp = perftest-send in the initiator role"))] | length' \
	"$tmp/latc/results.json")
[ "$n" -ge 100 ] && ok || bad "perftest-send-lat as initiator: only $n cases SKIPped saying why"

# Against a DUT that sends no Terminate the DDP and RDMAP cases that expect one FAIL.
printf 'dut = ref\nrole = responder\nprofile = rfc6581\nulp = perftest-read\nmutant = no-terminate\n' >"$tmp/mut.conf"
timeout 120 "$IWSPEC" run --dut-config "$tmp/mut.conf" --report "$tmp/mut" >"$tmp/log" 2>&1
[ $? -eq 1 ] && ok || bad "perftest-read against no-terminate: not exit 1"
# A DDP error closed without a Terminate is a WARN (RFC5040-6.2-03, a SHOULD), an RDMAP one a FAIL
# (RFC5040-7.1-02).
n=$(jq -r '[.cases[] | select((.verdict == "FAIL" or .verdict == "WARN") and (.id | test("^(ddp|rdmap)[.]")))] | length' "$tmp/mut/results.json")
[ "$n" -ge 15 ] && ok || bad "perftest-read against no-terminate: only $n DDP and RDMAP cases FAIL or WARN"

# The comm connections are the means of a case, noted and not judged (siw's pad octets, F1, show
# on them in every case of the siw perftest passes): `iwspec crosscheck` counts what decode finds
# there apart and holds none of it against a verdict. Against a DUT whose pad octets are not zero
# every comm connection breaks MPA-4-02 while the cases whose own connections carry no padded FPDU
# PASS; the cross-check before this rule found 175 "disagreements" in such cases.
printf 'dut = ref\nrole = responder\nprofile = rfc6581\nulp = perftest-read\nmutant = pad-nonzero\n' >"$tmp/pad.conf"
timeout 120 "$IWSPEC" run --dut-config "$tmp/pad.conf" --pcap --report "$tmp/pad" >"$tmp/log" 2>&1
[ $? -eq 1 ] && ok || bad "perftest-read against pad-nonzero: not exit 1"
if "$IWSPEC" crosscheck "$tmp/pad" >"$tmp/xc" 2>&1; then ok; else bad "crosscheck of perftest-read against pad-nonzero:"; sed 's/^/    /' "$tmp/xc" | tail -5 >&2; fi
grep -Eq ', [1-9][0-9]* on perftest.s comm connections\)' "$tmp/xc" && ok || bad "crosscheck does not count the comm connections' violations: $(tail -1 "$tmp/xc")"

# perftest's client on the DUT (the initiator role): iwspec plays its server, the built-in DUT its
# client (ib_*_bw -R -F -n 5 HARNESS); every case whose needs the profile meets runs and PASSes.
# Measured: send 32 cases (20 DDP and RDMAP), write 37 (25), read 54 (41); none ran before.
for m in send write read; do
	printf 'dut = ref\nrole = initiator\nprofile = rfc6581\nulp = perftest-%s\n' $m >"$tmp/cli-$m.conf"
	out="$tmp/cli-$m"
	run_all "$tmp/cli-$m.conf" "$out" "perftest-$m client"
	all=$(ran "$out/results.json")
	dr=$(ran "$out/results.json" '^(ddp|rdmap)[.]')
	[ "$all" -ge 30 ] && ok || bad "perftest-$m client: only $all cases ran"
	[ "$dr" -ge 18 ] && ok || bad "perftest-$m client: only $dr DDP and RDMAP cases ran"
	# startup took the client's whole test
	grep -q "perftest's client ran its test: 5 " "$out/results.json" && ok || bad "perftest-$m client: no test taken"
	# perftest's client exits only at the end of its flow, and an exec: DUT's next client starts
	# only then: the harness ends each run, the probe's (its keys after the Reply) and a tested
	# connection's (the closing exchange) before the next connection, and the client always
	# follows (exec_perftest.c, ex_perftest_end).
	grep -q "perftest's client, at the end of its connection 0: its keys after the connection's Reply" \
		"$out/results.json" && ok || bad "perftest-$m client: the probe's run was not ended"
	grep -q "perftest's client, at the end of its connection [0-9]*: the closing exchange after its test" \
		"$out/results.json" && ok || bad "perftest-$m client: no tested run was ended by the closing exchange"
	n=$(grep -c "perftest's client, at the end of its connection [0-9]*, did not send" "$out/results.json")
	[ "$n" -eq 0 ] && ok || bad "perftest-$m client: $n runs not ended as perftest ends them"
done
half "$tmp/cli-read/results.json" "perftest-read client"
r=$(jq -r '.cases[] | select(.id == "ddp.tagged.write-at-edges") | "\(.verdict) \(.reason)"' "$tmp/cli-read/results.json")
case $r in PASS*) ok ;; *) bad "ddp.tagged.write-at-edges under perftest-read client: $r" ;; esac
r=$(jq -r '.cases[] | select(.id == "rdmap.read.bounds") | "\(.verdict) \(.reason)"' "$tmp/cli-write/results.json")
case $r in "SKIP needs read-stag=16: the DUT runs ib_write_bw -R -F -n 5 HARNESS (ulp profile perftest-write-client)"*) ok ;;
*) bad "rdmap.read.bounds under perftest-write client: $r" ;; esac
# Against a client that sends no Terminate the cases that expect one FAIL.
printf 'dut = ref\nrole = initiator\nprofile = rfc6581\nulp = perftest-read\nmutant = no-terminate\n' >"$tmp/cmut.conf"
timeout 120 "$IWSPEC" run --dut-config "$tmp/cmut.conf" --report "$tmp/cmut" >"$tmp/log" 2>&1
[ $? -eq 1 ] && ok || bad "perftest-read client against no-terminate: not exit 1"
n=$(jq -r '[.cases[] | select((.verdict == "FAIL" or .verdict == "WARN") and (.id | test("^(ddp|rdmap)[.]")))] | length' "$tmp/cmut/results.json")
[ "$n" -ge 10 ] && ok || bad "perftest-read client against no-terminate: only $n DDP and RDMAP cases FAIL or WARN"

# ulp = perftest: each case against the first of perftest's programs (read, send, write,
# send-lat) that provides all it needs, in one run: every case that runs PASSes or is INFO against
# the built-in DUT, which plays the program the runner picked, more of the DDP and RDMAP cases run
# than under any one program (measured: 51 of 77 as server, 41 as client), and each case names its
# program.
for role in responder initiator; do
	printf 'dut = ref\nrole = %s\nprofile = rfc6581\nulp = perftest\n' $role >"$tmp/any-$role.conf"
	run_all "$tmp/any-$role.conf" "$tmp/any-$role" "ulp = perftest ($role)"
	half "$tmp/any-$role/results.json" "ulp = perftest ($role)"
done
[ "$(ran "$tmp/any-responder/results.json" '^(ddp|rdmap)[.]')" -gt "$(ran "$tmp/run-read/results.json" '^(ddp|rdmap)[.]')" ] &&
	ok || bad "ulp = perftest runs no more DDP and RDMAP cases than ib_read_bw alone"
picked() { jq -r --arg c "$2" '.cases[] | select(.id == $c) | .wire[]? | .summary? // empty' "$1" |
	sed -n 's/^ulp = perftest: for this case the DUT runs \(ib_[a-z_]*\) .*/\1/p'; }
[ "$(picked "$tmp/any-responder/results.json" ddp.untagged.msn-no-buffer)" = ib_send_bw ] && ok ||
	bad "msn-no-buffer under ulp = perftest did not run against ib_send_bw"
[ "$(picked "$tmp/any-responder/results.json" rdmap.read.bounds)" = ib_read_bw ] && ok ||
	bad "rdmap.read.bounds under ulp = perftest did not run against ib_read_bw"
[ "$(picked "$tmp/any-responder/results.json" ddp.untagged.msn-below-window)" = ib_send_lat ] && ok ||
	bad "msn-below-window (needs answer) under ulp = perftest did not run against ib_send_lat"
# As client no program answers: the answer case SKIPs saying what each lacks.
r=$(jq -r '.cases[] | select(.id == "ddp.untagged.msn-below-window") | "\(.verdict) \(.reason)"' "$tmp/any-initiator/results.json")
case $r in "SKIP needs answer: no program of perftest's provides all it needs (ib_read_bw lacks answer"*) ok ;;
*) bad "an answer case under ulp = perftest as client: $r" ;; esac
# Through exec:, as the agent starts perftest: {perftest} names the program (the built-in DUT's
# `iwspec serve --perftest MODE` playing it), a Send case's, a Read case's and an answer case's.
bin=$(cd "$(dirname "$IWSPEC")" && pwd)/$(basename "$IWSPEC")
printf "dut = exec:'%s serve --quiet --profile rfc6581 --perftest {perftest} --port {port}'\nrole = responder\nprofile = rfc6581\nulp = perftest\n" \
	"$bin" >"$tmp/any-exec.conf"
for c in ddp.untagged.msn-no-buffer rdmap.read.bounds ddp.untagged.msn-below-window; do
	timeout 120 "$IWSPEC" run --dut-config "$tmp/any-exec.conf" --cases $c --report "$tmp/any-exec" >"$tmp/log" 2>&1
	rc=$?
	[ $rc -eq 0 ] && [ "$(jq -r '.cases[0].verdict' "$tmp/any-exec/results.json")" = PASS ] && ok ||
		{ bad "$c under ulp = perftest through exec: {perftest}: exit $rc"; tail -20 "$tmp/log" >&2; }
done
# A server the lab started is one program: refused before anything runs, naming the fix; so is
# an exec: command that cannot be told which program.
printf 'dut = tcp:127.0.0.1:18515\nulp = perftest\n' >"$tmp/any-tcp.conf"
"$IWSPEC" run --dut-config "$tmp/any-tcp.conf" --report "$tmp/any-tcp" >"$tmp/log" 2>&1
[ $? -eq 2 ] && grep -q "which a server you started (dut = tcp:127.0.0.1:18515) cannot: name its mode" "$tmp/log" &&
	ok || bad "ulp = perftest with dut = tcp: not refused: $(cat "$tmp/log")"
printf "dut = exec:'%s serve --perftest read --port {port}'\nulp = perftest\n" "$bin" >"$tmp/any-nomode.conf"
"$IWSPEC" run --dut-config "$tmp/any-nomode.conf" --report "$tmp/any-nomode" >"$tmp/log" 2>&1
[ $? -eq 2 ] && grep -q "the exec: command takes it as {perftest}" "$tmp/log" && ok ||
	bad "ulp = perftest with an exec: command without {perftest} not refused: $(cat "$tmp/log")"
printf 'ulp = perftest-atomic\n' >"$tmp/bad.conf"
"$IWSPEC" run --dut-config "$tmp/bad.conf" >"$tmp/log" 2>&1
[ $? -eq 2 ] && ok || bad "ulp = perftest-atomic: not exit 2"
grep -q "bad value 'perftest-atomic' for ulp: use reflector" "$tmp/log" && ok || bad "ulp = perftest-atomic: message lacks the fix"

finish perftest
