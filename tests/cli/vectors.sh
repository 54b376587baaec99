#!/bin/sh
# CLI tests of `iwspec vectors` (generate, check, dump fields), of the committed vector set
# (regenerating it gives the same files; the files are valid against the JSON Schema), and of
# `iwspec decode` on captures, one of them taken live between `iwspec run` and `iwspec serve`,
# and (tests/cli/decode_capture.sh) on captures of many thousand connections.
# $IWSPEC names the binary, $VECTORS the committed set. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
VECTORS=${VECTORS:-vectors}
bgpids=""
on_exit 'for p in $bgpids; do kill "$p" 2>/dev/null; done'

# The pcap of the conversation whose description contains $2, in set $1.
pcap_of() {
	awk -v want="$2" '/"description":/ { hit = index($0, want) > 0 } hit && /"pcap":/ { sub(/.*"pcap": "/, ""); sub(/".*/, ""); print; exit }' \
		"$1/conversations.json"
}

# ---- usage ----
expect 0 "vectors --help" "$IWSPEC" vectors --help
contains "usage: iwspec vectors" "vectors usage line"
contains "--dump-fields" "vectors help names --dump-fields"
expect 2 "vectors without a mode" "$IWSPEC" vectors
contains "exactly one of" "vectors mode message"
expect 2 "two modes" "$IWSPEC" vectors --out "$tmp/a" --check "$tmp/b"
expect 2 "wireshark view alone" "$IWSPEC" vectors --wireshark-view --out "$tmp/a"
expect 2 "bad profile" "$IWSPEC" vectors --out "$tmp/a" --profile rfc9999
contains "unknown profile" "bad profile message"
expect 3 "culley has no vectors" "$IWSPEC" vectors --out "$tmp/a" --profile culley-mpa-02
contains "no vectors for culley-mpa-02" "culley message"
expect 2 "check of a missing directory" "$IWSPEC" vectors --check "$tmp/none"
contains "cannot open" "missing directory message"

# ---- generate and check ----
expect 0 "generate the set" "$IWSPEC" vectors --out "$tmp/v"
contains "vectors and .* captures written" "generation summary"
for f in mpa-startup mpa-fpdu mpa-markers mpa-crc ddp-headers ddp-placement rdmap rdmap-terminate conversations; do
	if [ -s "$tmp/v/$f.json" ]; then ok; else bad "generated set lacks $f.json"; fi
done
if [ -s "$tmp/v/schema/vectors.schema.json" ] && ls "$tmp/v/pcap/"*.pcap >/dev/null 2>&1; then ok; else bad "schema or pcaps missing"; fi
expect 0 "check the generated set" "$IWSPEC" vectors --check "$tmp/v"
contains " 0 failed" "check summary"

# The committed set is what the generator writes now (CI fails when someone forgets).
stale=0
for f in "$tmp/v"/*.json "$tmp/v"/pcap/*.pcap "$tmp/v"/schema/*.json; do
	rel=${f#"$tmp/v/"}
	if ! cmp -s "$f" "$VECTORS/$rel"; then stale=1; echo "    differs or missing: $VECTORS/$rel" >&2; fi
done
for f in "$VECTORS"/*.json "$VECTORS"/pcap/*.pcap; do
	[ -e "$f" ] || continue
	rel=${f#"$VECTORS/"}
	if [ ! -e "$tmp/v/$rel" ]; then stale=1; echo "    not generated any more: $VECTORS/$rel" >&2; fi
done
if [ $stale -eq 0 ]; then ok; else
	bad "the committed vector set ($VECTORS/) differs from what the generator writes: run 'make vectors' and commit $VECTORS/"
fi

# One profile only.
expect 0 "generate rfc6581 only" "$IWSPEC" vectors --out "$tmp/p" --profile rfc6581
if grep -q '"profile": "rfc5044"' "$tmp/p"/*.json; then bad "--profile rfc6581 wrote rfc5044 vectors"; else ok; fi
expect 0 "check rfc6581 only" "$IWSPEC" vectors --check "$tmp/p"

# An edited expected result fails the check, naming the vector.
cp -r "$tmp/v" "$tmp/e"
id=$(awk '/"id":/ { id = $2 } /"result": "invalid"/ { gsub(/[",]/, "", id); print id; exit }' "$tmp/e/mpa-crc.json")
awk 'done == 0 && /"result": "invalid"/ { sub(/"invalid"/, "\"valid\""); done = 1 } { print }' "$tmp/e/mpa-crc.json" >"$tmp/x"
mv "$tmp/x" "$tmp/e/mpa-crc.json"
expect 1 "check an edited set" "$IWSPEC" vectors --check "$tmp/e"
contains "FAIL mpa-crc.json $id" "the edited vector is named"
contains "1 failed" "exactly one vector fails"
# So does a changed octet.
cp "$tmp/v/mpa-crc.json" "$tmp/e/mpa-crc.json"
awk 'done == 0 && /"hex": "/ { sub(/"hex": "0/, "\"hex\": \"1"); done = 1 } { print }' "$tmp/e/ddp-headers.json" >"$tmp/x"
mv "$tmp/x" "$tmp/e/ddp-headers.json"
expect 1 "check a set with a changed octet" "$IWSPEC" vectors --check "$tmp/e"
contains "FAIL ddp-headers.json" "the changed vector is named"

# ---- the JSON Schema ----
if perl -MJSON::Validator::Schema::Draft7 -MMojo::JSON -e 1 2>/dev/null; then
	if perl -MJSON::Validator::Schema::Draft7 -MMojo::File=path -MMojo::JSON=decode_json -e '
		my $s = JSON::Validator::Schema::Draft7->new(decode_json(path(shift)->slurp));
		my $bad = 0;
		for my $f (@ARGV) {
			my @e = $s->validate(decode_json(path($f)->slurp));
			print STDERR "    $f: $_\n" for @e[0 .. ($#e < 4 ? $#e : 4)];
			$bad++ if @e;
		}
		exit($bad ? 1 : 0);' "$tmp/v/schema/vectors.schema.json" "$tmp/v"/*.json; then ok
	else bad "the generated files do not validate against vectors.schema.json"; fi
	# The validator is not a rubber stamp: a vector without its expected result is refused.
	awk '!done && /"expected": \{/ { sub(/"expected"/, "\"expectation\""); done = 1 } { print }' "$tmp/v/rdmap.json" >"$tmp/bad.json"
	if perl -MJSON::Validator::Schema::Draft7 -MMojo::File=path -MMojo::JSON=decode_json -e '
		my $s = JSON::Validator::Schema::Draft7->new(decode_json(path(shift)->slurp));
		exit(scalar($s->validate(decode_json(path(shift)->slurp))) ? 1 : 0);' \
		"$tmp/v/schema/vectors.schema.json" "$tmp/bad.json" 2>/dev/null; then
		bad "the schema accepted a vector without 'expected'"
	else ok; fi
elif [ "${CI:-}" = true ]; then
	bad "Perl's JSON::Validator is not installed in CI; tools/install-deps.sh should have installed libjson-validator-perl"
else
	echo "vectors: SKIP schema validation: Perl's JSON::Validator is not installed (libjson-validator-perl)"
fi

# ---- the engine's view of a capture ----
basic=$(pcap_of "$tmp/v" "A whole connection")
crcbad=$(pcap_of "$tmp/v" "flipped in transit")
if [ -n "$basic" ] && [ -n "$crcbad" ]; then ok; else bad "conversation captures not found"; fi
expect 0 "dump fields" "$IWSPEC" vectors --dump-fields "$tmp/v/$basic"
contains "from=40001 req m=0 c=1" "dump names the Request"
contains " fpdu ulpdu=" "dump lists FPDUs"
expect 0 "dump fields, Wireshark view" "$IWSPEC" vectors --dump-fields "$tmp/v/$crcbad" --wireshark-view
contains "crc=bad" "the flipped octet shows as a bad CRC"
expect 2 "dump fields of a missing file" "$IWSPEC" vectors --dump-fields "$tmp/none.pcap"

# ---- iwspec decode on captures ----
expect 0 "decode a conforming capture" "$IWSPEC" decode "$tmp/v/$basic"
contains "the capture conforms: 1 MPA connection" "conforming capture verdict"
contains "^connection 1: 10.0.0.1:40001 -> 10.0.0.2:4791, frames 1-[0-9]*, FPDUs [0-9]*+[0-9]*, profile [a-z0-9-]* (from Rev [0-9]*): conforms$" \
	"one summary line for the connection"
expect 0 "decode --details" "$IWSPEC" decode --details "$tmp/v/$basic"
contains "offset 0 (frame 4): MPA Request frame" "Request located in frame 4"
expect 1 "decode a capture with a CRC error" "$IWSPEC" decode "$tmp/v/$crcbad"
contains "1 violation, initiator: VIOLATION MPA-5.2-11 at offset [0-9]* (frame [0-9]*)" "CRC error with offset and frame (the sender's rule, as run names it)"
expect 1 "decode -v a capture with a CRC error" "$IWSPEC" decode -v "$tmp/v/$crcbad"
contains "  VIOLATION MPA-5.2-11 at offset [0-9]* (frame [0-9]*)" "CRC error in the details"
contains "Terminate LLP/0x0/0x02" "the responder's Terminate decoded"
expect 1 "decode --json" "$IWSPEC" decode --json "$tmp/v/$crcbad"
contains '"conforms": false' "json verdict"
contains '"requirement": "MPA-5.2-11"' "json violation"
expect 2 "stream options on a capture" "$IWSPEC" decode --markers "$tmp/v/$basic"
contains "do not apply to a capture" "stream options message"
for p in "$tmp/v"/pcap/*.pcap; do
	"$IWSPEC" decode "$p" >/dev/null 2>&1
	st=$?
	if [ $st -le 1 ]; then ok; else bad "decode $(basename "$p"): exit $st"; fi
done
printf '\324\303\262\241garbage after a pcap magic number' >"$tmp/garbage.pcap"
expect 2 "decode a garbage capture" "$IWSPEC" decode "$tmp/garbage.pcap"
contains "cannot read" "garbage capture message"
head -c 200 "$tmp/v/$basic" >"$tmp/cut.pcap"
"$IWSPEC" decode "$tmp/cut.pcap" >"$tmp/out" 2>&1
st=$?
if [ $st -le 3 ]; then ok; else bad "decode a truncated capture: exit $st"; fi
contains "ends inside record" "truncated capture noted"
# Captures of many connections (one line each, missing Replies, bounded memory): their own script.
if IWSPEC="$IWSPEC" sh "$(dirname "$0")/decode_capture.sh" >"$tmp/dc.out" 2>&1; then ok; else
	bad "tests/cli/decode_capture.sh"; grep -v '^decode-capture: [0-9]* passed' "$tmp/dc.out" | head -20 >&2; fi
grep '^decode-capture: ' "$tmp/dc.out" | sed 's/^/vectors: /'

# ---- a live capture: iwspec run against iwspec serve, taken with dumpcap ----
if ! command -v dumpcap >/dev/null 2>&1; then
	echo "vectors: SKIP live capture: dumpcap is not installed (it comes with tshark)"
else
	"$IWSPEC" serve --port 0 --greeting >"$tmp/serve.out" 2>&1 &
	spid=$!
	bgpids="$spid"
	port=""
	for i in 1 2 3 4 5 6 7 8 9 10; do
		port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/serve.out")
		[ -n "$port" ] && break
		sleep 0.2
	done
	dpid=""
	if [ -n "$port" ]; then
		dumpcap -q -i lo -f "tcp port $port" -w "$tmp/live.pcapng" >"$tmp/dumpcap.log" 2>&1 &
		dpid=$!
		bgpids="$spid $dpid"
		sleep 1
	fi
	if [ -z "$port" ]; then
		echo "vectors: SKIP live capture: iwspec serve did not start ($(head -c 200 "$tmp/serve.out" | tr '\n' ' '))"
	elif ! kill -0 "$dpid" 2>/dev/null; then
		echo "vectors: SKIP live capture: cannot capture on the loopback interface here ($(head -c 200 "$tmp/dumpcap.log" | tr '\n' ' '))"
	else
		# Quick cases only: bad keys and revisions (closed at once) and a Write then Read.
		rst=0
		for sel in 'mpa.startup.resp.key-*' 'mpa.startup.resp.rev-*' 'ddp.tagged.write-then-read'; do
			"$IWSPEC" run --dut "tcp:127.0.0.1:$port" --role responder --cases "$sel" \
				--report "$tmp/rep" --no-progress >"$tmp/run.out" 2>&1
			st=$?
			[ $st -gt $rst ] && rst=$st
		done
		sleep 0.5
		kill "$dpid" 2>/dev/null
		wait "$dpid" 2>/dev/null
		if [ $rst -gt 1 ]; then
			echo "vectors: SKIP live capture: iwspec run could not run its cases (exit $rst)"
		else
			expect 1 "decode the live capture of iwspec run against iwspec serve" \
				"$IWSPEC" decode --details --profile rfc5044 "$tmp/live.pcapng"
			contains "violations in [0-9]* MPA connections" "live capture: MPA connections judged"
			contains "VIOLATION MPA-6.1.1-01 at offset [0-9]* (frame [0-9]*)" "live capture: the harness's bad keys (the sender's rule)"
			contains "VIOLATION RFC5044-7.1.1-01 at offset 17" "live capture: the harness's bad revisions (RFC 5044's sender rule)"
			contains "RDMAP RV=1 Opcode=0x0 (RDMA Write)" "live capture: the Write and Read FPDUs decoded"
			if grep -q "VIOLATION MPA-6.1-R4\|VIOLATION MPA-6.1-R2b" "$tmp/out"; then
				bad "live capture: the built-in DUT broke a startup rule"; sed -n '/R4\|R2b/p' "$tmp/out" | head -5 >&2
			else ok; fi
		fi
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	bgpids=""
fi

finish vectors
