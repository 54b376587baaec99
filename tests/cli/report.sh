#!/bin/sh
# CLI tests of the certification report (docs/reports.md): report.html against the built-in
# DUT, opened in headless Chromium with no network; one pcap per case, decoded by tshark;
# provenance; baselines failing the run in either direction; SIGINT and SIGTERM leaving valid
# reports marked incomplete.
#
# Chromium and tshark are optional: each check that needs one says SKIP with the reason when it
# is missing (tools/install-deps.sh installs both). $IWSPEC names the binary (default
# build/iwspec); REPORT_QUICK=1 leaves out the browser and tshark checks (a quick run by hand).
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
skip() { echo "report: SKIP: $*"; }
has() { if grep -q -- "$2" "$1"; then ok; else bad "$3: $1 lacks '$2'"; fi; }
hasnt() { if grep -q -- "$2" "$1"; then bad "$3: $1 has '$2'"; else ok; fi; }
status() { if [ "$1" -eq "$2" ]; then ok; else bad "$3: exit $1, wanted $2"; sed 's/^/    /' "$tmp/out" | tail -25 >&2; fi; }
json_ok() {
	if command -v jq >/dev/null 2>&1; then
		if jq -e "$2" "$1" >/dev/null 2>&1; then ok; else bad "$3: jq '$2' on $1"; fi
	else
		ok # jq absent: the C tests read results.json through jansson
	fi
}
xml_ok() {
	if command -v xmllint >/dev/null 2>&1; then
		if xmllint --noout "$1" 2>/dev/null; then ok; else bad "$2: $1 is not well-formed XML"; fi
	fi
}

# ---- a full run against the built-in DUT, every report ------------------------------------
R="$tmp/full"
"$IWSPEC" run --no-progress --report "$R" --html --pcap --write-expect "$tmp/base.txt" >"$tmp/out" 2>&1
status $? 0 "full run with --html --pcap"
json_ok "$R/results.json" '[.cases[] | select(.verdict != "SKIP" and (.reason | test("not run")))] | length == 0' \
	"every case that ran has its own reason, not the placeholder of a case not yet run"
for f in results.json junit.xml report.html; do
	if [ -s "$R/$f" ]; then ok; else bad "full run: $R/$f missing"; fi
done
json_ok "$R/results.json" '.run.complete == true and (.run.vectors.sha256 | length) > 0 and (.run.dut_settings | test("dut = ref"))' "provenance in results.json"
xml_ok "$R/junit.xml" "junit.xml"
has "$R/junit.xml" 'name="vectors.sha256"' "provenance in junit.xml"
H="$R/report.html"
# One self-contained file: no URL, no fetched resource, no script.
hasnt "$H" 'http://' "report.html is self-contained"
hasnt "$H" 'https://' "report.html is self-contained"
hasnt "$H" 'src=' "report.html loads nothing"
hasnt "$H" '<script' "report.html runs nothing"
hasnt "$H" '<link' "report.html links no stylesheet"
has "$H" "default-src 'none'" "report.html forbids fetches"
for id in summary provenance coverage cases; do has "$H" "<section id=\"$id\">" "section $id"; done
has "$H" 'id="case-mpa.startup.resp.happy-path"' "a section per case"
has "$H" 'href="pcap/mpa.startup.resp.happy-path.pcap"' "each case links its pcap"
has "$H" 'id="req-MPA-6.1-R5"' "coverage lists the wire MUSTs"
has "$H" 'requirements.md sha256' "provenance names the catalog"
hasnt "$H" 'id="incomplete"' "a complete run has no INCOMPLETE banner"
npcap=$(ls "$R/pcap" | wc -l)
nran=$(grep -c '^[^#][^ ]* \(PASS\|FAIL\|WARN\|INFO\|ERROR\)' "$tmp/base.txt")
if [ "$npcap" -ge 1 ] && [ "$npcap" -eq "$nran" ]; then ok; else bad "one pcap per case that ran: $npcap pcaps, $nran cases ran"; fi
if ls -a "$R" "$R/pcap" | grep -q '\.tmp$'; then bad "temporary files left in $R"; else ok; fi
# iwspec decode judges the harness's own captures: a happy path conforms; a Request with a
# corrupted key is listed with its requirement (the harness sent it on purpose).
"$IWSPEC" decode "$R/pcap/mpa.startup.resp.happy-path.pcap" >"$tmp/dec" 2>&1
status $? 0 "decode of the happy-path pcap"
has "$tmp/dec" "the capture conforms" "decode says the happy-path capture conforms"
"$IWSPEC" decode "$R/pcap/mpa.startup.resp.key-octet-00.pcap" >"$tmp/dec" 2>&1
status $? 1 "decode of the corrupted-key pcap"
has "$tmp/dec" "VIOLATION MPA-6.1.1-01" "decode names the key requirement (the sender's: a Request carries the Request key)"

# ---- headless Chromium, no network -------------------------------------------------------
CHROME=""
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && { CHROME=$c; break; }
done
if [ -n "${REPORT_QUICK:-}" ]; then
	skip "browser check left out (REPORT_QUICK)"
elif [ -z "$CHROME" ]; then
	skip "chromium is not installed (tools/install-deps.sh installs it): report.html not opened in a browser"
else
	# --dump-dom prints the DOM after load; with the network off any fetch would fail anyway,
	# and the page's CSP forbids them. Chromium wants a writable home for its profile.
	HOME="$tmp/home" timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--no-first-run --no-default-browser-check --disable-extensions --user-data-dir="$tmp/chrome" \
		--dump-dom "file://$H" >"$tmp/dom.html" 2>"$tmp/chrome.err"
	st=$?
	if [ $st -eq 0 ] && [ -s "$tmp/dom.html" ]; then ok; else bad "chromium --dump-dom: exit $st"; tail -5 "$tmp/chrome.err" >&2; fi
	for id in summary provenance coverage cases coverage-table case-mpa.startup.resp.happy-path; do
		has "$tmp/dom.html" "id=\"$id\"" "DOM has #$id"
	done
	has "$tmp/dom.html" 'class="v PASS"' "DOM shows verdicts"
fi

# ---- tshark decodes each pcap ------------------------------------------------------------
if [ -n "${REPORT_QUICK:-}" ]; then
	skip "tshark check left out (REPORT_QUICK)"
elif ! command -v tshark >/dev/null 2>&1; then
	skip "tshark is not installed (tools/install-deps.sh installs it): per-case pcaps not decoded"
else
	# Every capture through Wireshark's reader at once (tshark starts in about a second, a
	# hundred starts would dominate the test): mergecap reads each file, tshark the whole.
	if command -v mergecap >/dev/null 2>&1; then
		if mergecap -w "$tmp/all.pcap" "$R"/pcap/*.pcap 2>"$tmp/ts.err"; then ok; else bad "mergecap cannot read the pcaps: $(head -3 "$tmp/ts.err")"; fi
		tshark -n -r "$tmp/all.pcap" >"$tmp/all.txt" 2>"$tmp/ts.err"
		st=$?
		if [ $st -eq 0 ] && [ "$(grep -c . "$tmp/all.txt")" -gt "$npcap" ]; then ok; else bad "tshark on all pcaps: exit $st"; fi
	fi
	# Wireshark's MPA dissector (heuristic) finds the startup frames of a responder case.
	P="$R/pcap/mpa.startup.resp.happy-path.pcap"
	tshark -n -r "$P" -o tcp.try_heuristic_first:TRUE -Y iwarp_mpa -T fields -e iwarp_mpa.key.req -e iwarp_mpa.key.rep \
		>"$tmp/mpa.txt" 2>/dev/null
	if [ "$(grep -c . "$tmp/mpa.txt")" -ge 2 ]; then ok; else bad "tshark finds no MPA Request and Reply in $P"; fi
	# The harness's connections: 10.0.0.1 opened to the DUT at 10.0.0.2:4791.
	tshark -n -r "$P" -Y 'tcp.flags.syn == 1 && tcp.flags.ack == 0' -T fields -e ip.src -e ip.dst -e tcp.dstport \
		>"$tmp/syn.txt" 2>/dev/null
	has "$tmp/syn.txt" "10.0.0.1	10.0.0.2	4791" "the harness opened the connection"
	# An initiator case: the DUT opened it.
	P=$(ls "$R"/pcap/mpa.startup.init.*.pcap 2>/dev/null | head -1)
	if [ -n "$P" ]; then
		tshark -n -r "$P" -Y 'tcp.flags.syn == 1 && tcp.flags.ack == 0' -T fields -e ip.src >"$tmp/syn.txt" 2>/dev/null
		has "$tmp/syn.txt" "10.0.0.2" "the DUT initiator opened the connection"
	fi
fi

# ---- baselines ---------------------------------------------------------------------------
SEL='mpa.startup.resp.key-octet-0*'   # ten quick cases
has "$tmp/base.txt" '^mpa.startup.resp.happy-path PASS$' "--write-expect lists each case"
grep "^mpa\.startup\.resp\.key-octet-0" "$tmp/base.txt" >"$tmp/resp.txt"
"$IWSPEC" run --no-progress --report "$tmp/b1" --cases "$SEL" --expect "$tmp/resp.txt" --html >"$tmp/out" 2>&1
status $? 0 "the same results as the baseline"
has "$tmp/out" "every result as expected" "baseline agreement is said"
has "$tmp/b1/report.html" '<section id="baseline">' "report.html shows the baseline"
# A known failure that no longer fails.
sed 's/^mpa.startup.resp.key-octet-00 PASS$/mpa.startup.resp.key-octet-00 FAIL : [MPA-6.1-R5] known: accepts it/' \
	"$tmp/resp.txt" >"$tmp/known.txt"
"$IWSPEC" run --no-progress --report "$tmp/b2" --cases "$SEL" --expect "$tmp/known.txt" >"$tmp/out" 2>&1
status $? 1 "a fixed known failure fails the run"
has "$tmp/out" "mpa.startup.resp.key-octet-00: expected FAIL" "the difference is listed"
has "$tmp/out" "no longer fails" "a fixed failure is named"
# A case the baseline does not list, and one it lists that does not exist.
grep -v '^mpa.startup.resp.key-octet-00 ' "$tmp/resp.txt" >"$tmp/missing.txt"
echo "mpa.startup.resp.no-such-case PASS" >>"$tmp/missing.txt"
"$IWSPEC" run --no-progress --report "$tmp/b3" --cases "$SEL" --expect "$tmp/missing.txt" >"$tmp/out" 2>&1
status $? 1 "differences in the case list fail the run"
has "$tmp/out" "key-octet-00: got PASS, which the baseline does not list" "an unlisted case"
has "$tmp/out" "no-such-case: expected PASS" "a listed case that did not run"
# A regression: the DUT breaks a MUST the baseline expects it to keep (a mutant built-in DUT).
printf 'mutant = reply-wrong-rev\n' >"$tmp/mutant.conf"
grep '^mpa.startup.resp.happy-path ' "$tmp/base.txt" >"$tmp/happy.txt"
"$IWSPEC" run --no-progress --report "$tmp/b4" --cases 'mpa.startup.resp.happy-path' --dut-config "$tmp/mutant.conf" \
	--expect "$tmp/happy.txt" --html --write-expect "$tmp/mut.txt" >"$tmp/out" 2>&1
status $? 1 "a regression fails the run"
has "$tmp/out" "happy-path: expected PASS (.*happy.txt line 1), got FAIL (a regression)" "the regression is listed"
has "$tmp/mut.txt" "happy-path FAIL : \[RFC5044-7.1.1-01\]" "a failure is pinned to its requirement (RFC 5044's sender Rev rule)"
# The failure's field is highlighted in the report.
has "$tmp/b4/report.html" '<mark>Rev=2</mark>' "the offending field is highlighted"
has "$tmp/b4/report.html" 'mutant = reply-wrong-rev' "the DUT configuration is in the provenance"
# The same failure, pinned: passes; pinned to another requirement: a difference.
"$IWSPEC" run --no-progress --report "$tmp/b5" --cases 'mpa.startup.resp.happy-path' --dut-config "$tmp/mutant.conf" \
	--expect "$tmp/mut.txt" >"$tmp/out" 2>&1
status $? 0 "a known failure as pinned"
sed 's/\[RFC5044-7.1.1-01\]/[MPA-6.1-R5]/' "$tmp/mut.txt" >"$tmp/mut2.txt"
"$IWSPEC" run --no-progress --report "$tmp/b6" --cases 'mpa.startup.resp.happy-path' --dut-config "$tmp/mutant.conf" \
	--expect "$tmp/mut2.txt" >"$tmp/out" 2>&1
status $? 1 "a known failure on another requirement"
has "$tmp/out" "expected FAIL on \[MPA-6.1-R5\]" "the requirement difference is listed"
# A broken baseline is a usage error, before anything runs.
printf 'mpa.x maybe\n' >"$tmp/broken.txt"
"$IWSPEC" run --no-progress --report "$tmp/b7" --expect "$tmp/broken.txt" >"$tmp/out" 2>&1
status $? 2 "a broken baseline"
has "$tmp/out" "broken.txt:1: unknown verdict 'maybe'" "the baseline error names file and line"

# ---- interruption ------------------------------------------------------------------------
mkdir -p "$tmp/cases"
cat >"$tmp/cases/a-quick.iwt" <<'EOF'
id: test.interrupt.a-quick
title: A quick case before the slow one
requirement: MPA-6.1-R2f SHOULD
role: responder

connect
send request
expect reply r=0
EOF
cat >"$tmp/cases/b-slow.iwt" <<'EOF'
id: test.interrupt.b-slow
title: A long silence, to be interrupted
requirement: MPA-6.1-R4 MUST
role: responder
timeout: 60s

connect
send request
expect reply r=0
expect silence for=30s
EOF
cat >"$tmp/cases/c-never.iwt" <<'EOF'
id: test.interrupt.c-never
title: A case the interrupted run never reaches
requirement: MPA-6.1-R2f SHOULD
role: responder

connect
send request
expect reply r=0
EOF
# One case at a time: the interruption keeps the third case from starting.
for sig in INT TERM; do
	D="$tmp/int-$sig"
	"$IWSPEC" run --jobs 1 --no-progress --report "$D" --cases "$tmp/cases" --html --pcap >"$tmp/out" 2>&1 &
	pid=$!
	# The quick case takes milliseconds; a second later the slow one is in its silence.
	sleep 1
	t0=$(date +%s)
	kill -$sig $pid
	wait $pid
	st=$?
	t1=$(date +%s)
	want=130
	[ $sig = TERM ] && want=143
	status $st $want "SIG$sig exit status"
	if [ $((t1 - t0)) -le 5 ]; then ok; else bad "SIG$sig: the run took $((t1 - t0)) s to stop"; fi
	json_ok "$D/results.json" ".run.complete == false and .run.interrupted_by == \"SIG$sig\"" "SIG$sig: results.json marked incomplete"
	json_ok "$D/results.json" '.cases | length == 2' "SIG$sig: the case after the interruption did not run"
	json_ok "$D/results.json" '.cases[1].verdict == "ERROR" and (.cases[1].reason | test("interrupted"))' "SIG$sig: the cut case has no verdict"
	has "$D/results.json" '"complete": false' "SIG$sig: results.json says incomplete"
	xml_ok "$D/junit.xml" "SIG$sig: junit.xml"
	has "$D/junit.xml" 'name="run-complete"' "SIG$sig: junit.xml marked incomplete"
	has "$D/report.html" 'id="incomplete"' "SIG$sig: report.html has the INCOMPLETE banner"
	has "$D/report.html" '</html>' "SIG$sig: report.html is whole"
	has "$tmp/out" "INCOMPLETE" "SIG$sig: the console says so"
	if ls -a "$D" "$D/pcap" 2>/dev/null | grep -q '\.tmp$'; then bad "SIG$sig: temporary files left"; else ok; fi
done

# Cases in parallel (the default against the built-in DUT): the quick ones have finished, the
# slow one is cut; the results keep catalog order.
D="$tmp/int-parallel"
"$IWSPEC" run --no-progress --report "$D" --cases "$tmp/cases" >"$tmp/out" 2>&1 &
pid=$!
sleep 1
kill -INT $pid
wait $pid
status $? 130 "parallel run: SIGINT exit status"
json_ok "$D/results.json" '[.cases[].id] == ["test.interrupt.a-quick", "test.interrupt.b-slow", "test.interrupt.c-never"]' \
	"parallel run: every case started, in catalog order"
json_ok "$D/results.json" '.cases[0].verdict == "PASS" and .cases[2].verdict == "PASS"' "parallel run: the quick cases have their verdicts"
json_ok "$D/results.json" '.cases[1].verdict == "ERROR" and (.cases[1].reason | test("interrupted"))' \
	"parallel run: the cut case has no verdict"

finish report
