#!/bin/sh
# CLI tests: run the iwspec binary as a user would and check exit codes and output.
# $IWSPEC names the binary (default build/iwspec). Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"


FIG5='00 00 00 00 00 2a 40 03 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00
00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 4c 86 b3 84'

expect 0 "help" "$IWSPEC" --help
contains "decode" "help lists decode"
expect 0 "version" "$IWSPEC" --version
contains "iwspec" "version names the tool"
expect 2 "no command" "$IWSPEC"
expect 2 "unknown command" "$IWSPEC" frobnicate
contains "unknown command" "unknown command message"
for c in run list serve decode; do
	expect 0 "$c --help" "$IWSPEC" $c --help
	contains "usage: iwspec $c" "$c --help usage line"
done

# decode: the seed's Figure 5 comes out clean, field by field (requirements.md §5.1)
expect 0 "decode Figure 5" "$IWSPEC" decode --profile seed-exact --markers --hex "$FIG5"
contains "ULPDU_Length=42" "Figure 5 length"
contains "MSN=1" "Figure 5 MSN"
contains "Opcode=0x3 (Send)" "Figure 5 opcode"
contains "conforms" "Figure 5 conforms"
# one flipped octet is a CRC error, MPA code 2
FLIP=$(echo "$FIG5" | sed 's/00 00 00 01/00 00 00 03/')
expect 1 "decode flipped octet" "$IWSPEC" decode --profile seed-exact --markers --hex "$FLIP"
contains "MPA-5.2-11" "flipped octet cites the sender's CRC requirement, as run does"
contains "LLP/0x0/0x02" "flipped octet is MPA code 2"
# the CRC in the wrong byte order is rejected too
REV=$(echo "$FIG5" | sed 's/4c 86 b3 84/84 b3 86 4c/')
expect 1 "decode reversed CRC" "$IWSPEC" decode --profile seed-exact --markers --hex "$REV"
contains "LLP/0x0/0x02" "reversed CRC is MPA code 2"
contains "CRC field 0x84b3864c, should be 0x4c86b384 (both in wire order)" "reversed CRC shown as the wire has it"
contains "sent its CRC most-significant octet first" "reversed CRC named, as run names it"
# the JSON form parses as JSON and says it conforms
expect 0 "decode --json" "$IWSPEC" decode --profile seed-exact --markers --json --hex "$FIG5"
contains '"conforms": true' "json conforms"
# bad input: precise messages, exit 2
expect 2 "odd hex" "$IWSPEC" decode --hex "00 2"
contains "odd number of hex digits" "odd hex message"
expect 2 "not hex" "$IWSPEC" decode --hex "00 zz"
contains "'z' at character 4" "bad hex digit message"
expect 2 "no input" "$IWSPEC" decode
expect 2 "missing file" "$IWSPEC" decode "$tmp/none"
contains "cannot open" "missing file message"
expect 2 "bad profile" "$IWSPEC" decode --profile rfc9999 --hex 00
contains "unknown profile" "bad profile message"
# --start places the markers; it must name an FPDU boundary (a multiple of 4, A23)
expect 2 "start not aligned" "$IWSPEC" decode --markers --start 501 --hex "00 00"
contains "not a multiple of 4" "start alignment message"
# a truncated stream is a violation, not a crash
expect 1 "truncated" "$IWSPEC" decode --profile seed-exact --markers --hex "00 00 00 00 00 2a 40 03"
contains "ends inside an FPDU" "truncated message"
# garbage from a file and from stdin never crashes
head -c 5000 /dev/urandom >"$tmp/garbage"
"$IWSPEC" decode "$tmp/garbage" >/dev/null 2>&1
st=$?
if [ $st -le 2 ]; then ok; else bad "garbage file: exit $st"; fi
"$IWSPEC" decode --markers - <"$tmp/garbage" >/dev/null 2>&1
st=$?
if [ $st -le 2 ]; then ok; else bad "garbage stdin: exit $st"; fi
# a startup frame then FPDUs: RFC 5044 Request
expect 0 "decode Request" "$IWSPEC" decode --profile rfc5044 --hex "4d50412049442052657120467261 6d65 40 01 00 00"
contains "Request frame" "Request decoded"
# RFC 5040 §4.2: a plain Send's RDMAP reserved word (RsvdULP octets 2-5) is zero; only Send
# with Invalidate carries an STag there (DDP-6.3-02, a sender violation)
SEND_RSVD='00 12 41 43 00 00 00 07 00000000 00000001 00000000 00000000'
expect 1 "Send with a reserved word" "$IWSPEC" decode --no-crc --hex "$SEND_RSVD"
contains "DDP-6.3-02 at offset 0: sender violation: the sender's Send has RDMAP reserved word 0x00000007 in DDP header octets 2-5" "reserved word named"
expect 0 "Send with Invalidate" "$IWSPEC" decode --no-crc --hex '00 12 41 46 00 00 00 07 00000000 00000001 00000000 00000000'
contains "Invalidate STag=0x00000007" "Invalidate STag shown"
# a Terminate's attached DDP header (RFC 5040 §4.8) is shown field by field: the segment at fault
TERM='00 26 41 47 00000000 00000002 00000001 00000000 11 00 c0 00 00 2e c1 40 00008888 00000000 00000010 00000000'
expect 0 "Terminate" "$IWSPEC" decode --no-crc --hex "$TERM"
contains "at fault: DDP tagged L=1 DV=1 STag=0x00008888 TO=0x0000000000000010, RDMAP RDMA Write, segment length 46" \
	"Terminate's attached header decoded"
expect 0 "Terminate --json" "$IWSPEC" decode --no-crc --json --hex "$TERM"
contains '"ddp_header": {' "Terminate's attached header in JSON"

# Issue 12: the Request summary names the PD_Length that went out (it said 0 for a frame carrying
# the 8 octets of REJECTME, because an automatic PD_Length is only known once encoded).
expect 0 "reject case" "$IWSPEC" run --cases mpa.startup.resp.reject --report "$tmp/rj" --no-progress
if grep -q 'Request key=Req [^"]*PD_Length=8 (28 octets)' "$tmp/rj/results.json"; then ok; else
	bad "reject case's Request summary lacks PD_Length=8"; grep -o 'Request key=[^"]*' "$tmp/rj/results.json" >&2; fi
# reflector = no implies reject = no: the reject case is skipped, not failed (it was a false FAIL).
printf 'reflector = no\n' >"$tmp/norefl.conf"
expect 3 "reject without reflector (nothing ran)" "$IWSPEC" run --dut-config "$tmp/norefl.conf" \
	--cases mpa.startup.resp.reject --report "$tmp/rj2" --no-progress
if grep -q '"reason": "needs reject' "$tmp/rj2/results.json"; then ok; else bad "reject case not skipped for 'needs reject'"; fi
# exec_host: {host} is where the listening side is. The harness listens on 127.0.0.2 for an
# initiator DUT told to connect to {host}; a mismatch either way would time out.
cat >"$tmp/exechost.conf" <<EOC
dut = exec:'$IWSPEC serve --quiet --once --role initiator --host {host} --port {port}'
role = initiator
exec_host = 127.0.0.2
EOC
expect 0 "exec_host initiator" "$IWSPEC" run --dut-config "$tmp/exechost.conf" --cases mpa.startup.init.reply-byte-by-byte \
	--report "$tmp/eh" --no-progress
contains "PASS  *[1-9]" "exec_host initiator case passed"
printf 'exec_host = localhost\n' >"$tmp/badhost.conf"
expect 2 "exec_host by name" "$IWSPEC" run --dut-config "$tmp/badhost.conf" --cases mpa.startup.resp.reject --no-progress
contains "badhost.conf:1: bad value 'localhost' for exec_host" "exec_host error names file, line and value"

# With an initiator DUT the harness, as responder, sends no FPDU before the DUT's first
# (MPA-6.1-R4): `startup` waits for the greeting, then sends its Send. Linux siw resets a
# connection whose Reply is followed at once by an FPDU; the capture must show no violation.
expect 0 "startup with an initiator DUT" "$IWSPEC" run --role initiator --cases rdmap.send.round-trip \
	--pcap --report "$tmp/r4" --no-progress
expect 0 "decode of an initiator-DUT startup" "$IWSPEC" decode "$tmp/r4/pcap/rdmap.send.round-trip.pcap"
contains "the capture conforms" "the harness as responder waits for the initiator's first FPDU"
# A responder that stops listening after its first connection fails (the finding siw's listener
# gives, docs/interop/linux-siw.md F3); it is not a harness ERROR. The first connection is the
# liveness baseline a case with `expect alive` opens before its own (connection 0), so the
# case's own connection is the one refused.
# The server listens on a port from below the ephemeral range (low_port, another number when it
# is taken); the run starts once it listens. The case's connection after the baseline is retried
# for the connect timeout (5 s): a port of the ephemeral range, once free, may be taken meanwhile
# by any program's port-0 listener (the built-in DUT of a run beside this one), whose answer made
# the case fail on its connection 2 under make test's load.
lport=
for try in 1 2 3 4 5 6 7 8 9 10; do
	cand=$(low_port)
	"$IWSPEC" serve --quiet --once --port "$cand" >"$tmp/once.log" 2>&1 &
	spid=$!
	i=0
	while [ $i -lt 100 ] && kill -0 $spid 2>/dev/null && ! grep -q 'listening on' "$tmp/once.log" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "listening on 127\.0\.0\.1:$cand" "$tmp/once.log" && { lport=$cand; break; }
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
done
expect 1 "a DUT that stops listening" "$IWSPEC" run --dut tcp:127.0.0.1:$lport --cases mpa.startup.resp.pd-short-then-fin \
	--no-progress --report "$tmp/gone"
contains "FAIL  mpa.startup.resp.pd-short-then-fin" "liveness refused is a FAIL"
contains "the DUT no longer accepts connections (connection 1)" "the FAIL says the DUT stopped accepting"
kill $spid 2>/dev/null
wait $spid 2>/dev/null

# serve takes one --mutant and one --hostile: a second is refused, never silently kept in the
# first's place (issue 38: `--mutant A --mutant B` served B alone).
expect 2 "serve --mutant twice" "$IWSPEC" serve --mutant term-wrong-code --mutant no-terminate
contains "--mutant given twice ('term-wrong-code', then 'no-terminate')" "the second --mutant is named"
expect 2 "serve --hostile twice" "$IWSPEC" serve --hostile slow --hostile=drip
contains "--hostile given twice ('slow', then 'drip')" "the second --hostile is named"

# serve again at once on the port whose connections an earlier serve closed first (--hostile
# close), so they wait in TIME-WAIT on that port: it listens (SO_REUSEADDR), as after a fuzz run.
# serve_on PORT LOG ARGS...: starts serve on PORT (pid in spid); true once it listens there.
on_exit '[ -n "$spid" ] && kill "$spid" 2>/dev/null'
serve_on() {
	so_port=$1 so_log=$2
	shift 2
	"$IWSPEC" serve --quiet --port "$so_port" "$@" >"$so_log" 2>&1 &
	spid=$!
	i=0
	while [ $i -lt 100 ] && kill -0 $spid 2>/dev/null && ! grep -q 'listening on' "$so_log" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "listening on 127\.0\.0\.1:$so_port" "$so_log"
}
twport=
for try in 1 2 3 4 5 6 7 8 9 10; do
	cand=$(low_port)
	serve_on "$cand" "$tmp/tw1.log" --hostile close && { twport=$cand; break; }
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
done
"$IWSPEC" run --dut tcp:127.0.0.1:$twport --cases 'mpa.startup.resp.*' --no-progress --report "$tmp/tw" >/dev/null 2>&1
kill $spid 2>/dev/null
wait $spid 2>/dev/null
if command -v ss >/dev/null 2>&1; then
	ntw=$(ss -Htan state time-wait "( sport = :$twport )" 2>/dev/null | grep -c .)
	[ "${ntw:-0}" -gt 0 ] && ok || bad "no connection in TIME-WAIT on port $twport after serve --hostile close: nothing tested"
fi
if serve_on "$twport" "$tmp/tw2.log"; then ok; else
	bad "serve on port $twport, its connections in TIME-WAIT: $(head -c 300 "$tmp/tw2.log")"; fi
kill $spid 2>/dev/null
wait $spid 2>/dev/null

# A DUT that contradicts its declared configuration is neither an outage nor a harness error
# (issue 38: markers = yes against a DUT without markers exited 3, the code of "unreachable"):
# the cases that need markers are ERRORs naming the key, the console says so once, exit 4.
cat >"$tmp/mk.conf" <<EOC
dut = exec:'$IWSPEC serve --quiet --port {port}'
markers = yes
EOC
expect 4 "markers = yes, the DUT's frames M=0" "$IWSPEC" run --dut-config "$tmp/mk.conf" --cases 'mpa.markers.*' \
	--no-progress --report "$tmp/mk"
contains "ERROR mpa.markers.harness-reserved-set" "a case that needs markers is an ERROR"
contains "its frame has M=0 although its configuration says markers = yes: set the DUT up to send M=1" "the ERROR says why"
contains "DUT CONFIGURATION: [0-9]* cases not judged: the DUT contradicts its declared configuration (markers;" \
	"the contradiction said once, with the key"
contains "PASS  *[1-9]" "the cases that need no markers still ran"
jq -e '[.cases[] | select(.verdict == "ERROR")] | length > 0 and all(.dut_contradicts == "markers")' \
	"$tmp/mk/results.json" >/dev/null && ok || bad "results.json: every ERROR has dut_contradicts = markers"
# The same DUT with the default declaration says the default was taken; declared right, or set up
# as declared (serve --markers wants markers on every connection), it is judged: exit 0.
grep -v '^markers' "$tmp/mk.conf" >"$tmp/mkdef.conf"
expect 4 "the default markers = yes, the DUT's frames M=0" "$IWSPEC" run --dut-config "$tmp/mkdef.conf" \
	--cases 'mpa.markers.harness-*' --no-progress --report "$tmp/mkdef"
contains "says markers = yes (the default): set the DUT up" "the default is named as such"
printf 'markers = no\n' >>"$tmp/mkdef.conf"
expect 0 "markers = no, the DUT's frames M=0" "$IWSPEC" run --dut-config "$tmp/mkdef.conf" --cases 'mpa.markers.*' \
	--no-progress --report "$tmp/mkno"
cat >"$tmp/mkon.conf" <<EOC
dut = exec:'$IWSPEC serve --quiet --markers --port {port}'
markers = yes
EOC
expect 0 "markers = yes, the DUT's frames M=1" "$IWSPEC" run --dut-config "$tmp/mkon.conf" --cases 'mpa.markers.*' \
	--no-progress --report "$tmp/mkon"

# The reflector's buffer at a non-zero base TO, as on a device that registers at a virtual
# address (siw ignores a requested zero base): the cases' TOs are offsets from the advertised
# base, so every tagged case passes against the conforming built-in DUT. Sent as absolute TOs,
# five of them failed falsely.
cat >"$tmp/baseto.conf" <<EOC
dut = exec:'$IWSPEC serve --quiet --base-to 0x7f5596c70000 --port {port}'
EOC
expect 0 "tagged cases at a non-zero base TO" "$IWSPEC" run --dut-config "$tmp/baseto.conf" --cases 'ddp.tagged.*' \
	--jobs 4 --no-progress --report "$tmp/bto"
# Every tagged case passes; on a loaded machine under ASan the served DUT may miss a startup's
# deadline, which the run says is not judged (a SKIP naming the step), never a FAIL: that is
# allowed, said, and no more than one. The catalog says how many tagged cases there are (10, then
# 12 when 2764e19 split their read-backs into cases of their own).
ntagged=$("$IWSPEC" list 2>/dev/null | grep -c '^ddp\.tagged\.')
if [ "$ntagged" -ge 10 ] && jq -e --argjson n "$ntagged" '(.cases | length) == $n and
	([.cases[] | select(.verdict != "PASS")] | (length <= 1) and
	all(.verdict == "SKIP" and (.reason | startswith("not judged: "))))' \
	"$tmp/bto/results.json" >/dev/null; then ok; else
	bad "all $ntagged tagged cases pass at base TO 0x7f5596c70000"; grep -A1 '^  \(FAIL\|ERROR\|SKIP\)  ' "$tmp/out" | head -6 >&2; fi
jq -r '.cases[] | select(.verdict == "SKIP") | "run: note: \(.id) not judged at base TO 0x7f5596c70000: \(.reason[0:160])"' \
	"$tmp/bto/results.json"
expect 2 "serve --base-to that leaves no room" "$IWSPEC" serve --base-to 0xffffffffffffff00
contains "--base-to needs a TO the 64 KiB buffer fits after" "a bad --base-to is named"

# private_data_limit: a DUT that fails a case whose Request carries more private data than the
# configuration declares is SKIPped with both sizes (a declared deviation, Linux siw's 256);
# without the key the same failure is a FAIL.
cat >"$tmp/pdl.conf" <<EOC
dut = exec:'$IWSPEC serve --quiet --reject --port {port}'
profile = rfc6581
private_data_limit = 256
EOC
expect 3 "a failure beyond the declared PD limit" "$IWSPEC" run --dut-config "$tmp/pdl.conf" \
	--cases mpa.startup.resp.pd-limit-rfc6581 --no-progress --report "$tmp/pdl"
grep -q 'sent PD_Length 512, above the DUT.s declared private_data_limit 256' "$tmp/pdl/results.json" && ok ||
	bad "the SKIP names PD_Length 512 and the limit 256"
grep -v private_data_limit "$tmp/pdl.conf" >"$tmp/pdl2.conf"
expect 1 "the same failure without a declared limit" "$IWSPEC" run --dut-config "$tmp/pdl2.conf" \
	--cases mpa.startup.resp.pd-limit-rfc6581 --no-progress --report "$tmp/pdl2"

# A DUT whose application is silent past the startup time (here: no reflector, where the
# configuration says there is one) leaves the case not judged, a SKIP that says why, never a FAIL
# on the case's first requirement; `expect greeting` in a case's own steps the same.
cat >"$tmp/late.conf" <<EOC
dut = exec:'$IWSPEC serve --quiet --profile rfc6581 --no-reflector --port {port}'
profile = rfc6581
connect_timeout = 1s
EOC
expect 3 "an application that never greets" "$IWSPEC" run --dut-config "$tmp/late.conf" \
	--cases 'rdmap.write.zero-length' --no-progress --report "$tmp/late"
[ "$(jq -r '.cases[0].verdict' "$tmp/late/results.json")" = SKIP ] && ok || bad "a silent application: not SKIP"
grep -q "not judged: the DUT's application did not take the connection to where the case begins in time" \
	"$tmp/late/results.json" && ok || bad "the SKIP does not say the application was late"
expect 3 "a case's own expect greeting, never greeted" "$IWSPEC" run --dut-config "$tmp/late.conf" \
	--cases 'rdmap.read.beyond-ird' --no-progress --report "$tmp/late2"
[ "$(jq -r '.cases[0].verdict' "$tmp/late2/results.json")" = SKIP ] && ok || bad "expect greeting, silent: not SKIP"

finish cli
