#!/bin/sh
# Cross-check with an independent decoder: Wireshark's iWARP dissectors (tshark) against the
# engine, on the conversation captures of the vector set (vectors/pcap/*.pcap).
#
# For each capture, tshark's PDML is reduced to one line per startup frame and per FPDU
# (ULPDU length, CRC good or bad, markers, DDP and RDMAP fields, Terminate fields) and compared
# with `iwspec vectors --dump-fields CAPTURE --wireshark-view`, the engine's view in the same
# words. Where Wireshark 4.0 is known to differ (rfc-and-interop.md §2) the engine's view says so
# in a "# exception NAME" line and shows the field as Wireshark does; this test prints every such
# exception by name, so none is hidden, and fails on any other difference. Wireshark's expert
# infos for the MPA frames are compared the same way (`tshark -z expert`).
#
# Skips, saying why, when tshark is not installed. $IWSPEC names the binary, $VECTORS the set.
. "$(dirname "$0")/lib.sh"
VECTORS=${VECTORS:-vectors}

if ! command -v tshark >/dev/null 2>&1; then
	if [ "${CI:-}" = true ]; then
		# CI installs tshark (tools/install-deps.sh): its absence there is a broken setup.
		fail_tag="tshark-check: "
		bad "tshark is not installed in CI; tools/install-deps.sh should have installed it"
		finish tshark-check
		exit
	fi
	echo "tshark-check: SKIP: tshark is not installed (tools/install-deps.sh installs it); Wireshark cross-check not run"
	finish tshark-check
	exit
fi
set -- "$VECTORS"/pcap/*.pcap
if [ ! -f "$1" ]; then
	fail_tag="tshark-check: "
	bad "no capture in $VECTORS/pcap (run 'make vectors')"
	finish tshark-check
	exit
fi

# rfc-and-interop.md §2.3: heuristics first (the MPA dissector is heuristic-only), and the
# ULP heuristics that would claim small Sends switched off.
ts() {
	tshark -n -r "$@" -o tcp.try_heuristic_first:TRUE --disable-heuristic rpcrdma_iwarp \
		--disable-heuristic smb_direct_iwarp 2>/dev/null
}

# PDML -> one line per MPA PDU, in iwspec's field words (see vectors/vec_fields.c).
pdml_rows() {
	awk '
	function attr(s, a,    i, t) {
		i = index(s, " " a "=\"")
		if (!i) return ""
		t = substr(s, i + length(a) + 3)
		return substr(t, 1, index(t, "\"") - 1)
	}
	function num(v) { v = tolower(v); sub(/^0+/, "", v); return v == "" ? "0" : v }
	function put(k, v) { f[k] = v }
	function flush(    n, i, line, keys) {
		if (kind == "") return
		if (kind == "fpdu")
			n = split("ulpdu crc crcv mk t l dv qn msn mo stag to rv op inval sinkstag sinkto size srcstag srcto tlayer tetype tecode tm td tr tseglen tddp trdma", keys, " ")
		else
			n = split("m c r res rev pdlen", keys, " ")
		line = "frame=" frame " from=" from " " kind
		for (i = 1; i <= n; i++)
			if (keys[i] in f) line = line " " keys[i] "=" f[keys[i]]
		print line
		kind = ""
		for (i in f) delete f[i]
	}
	/<packet>/ { flush(); frame = ""; from = "" }
	/<\/packet>/ { flush() }
	/<proto name="iwarp_mpa"/ { flush(); kind = "?" }
	/<field name="/ {
		name = attr($0, "name"); v = attr($0, "value")
		if (name == "frame.number") frame = attr($0, "show")
		else if (name == "tcp.srcport") from = attr($0, "show")
		else if (name == "iwarp_mpa.key.req") kind = "req"
		else if (name == "iwarp_mpa.key.rep") kind = "rep"
		else if (name == "iwarp_mpa.fpdu") kind = "fpdu"
		else if (name == "iwarp_mpa.marker_flag") put("m", num(v))
		else if (name == "iwarp_mpa.crc_flag") put("c", num(v))
		else if (name == "iwarp_mpa.rej_flag") put("r", num(v))
		else if (name == "iwarp_mpa.res") put("res", num(v))
		else if (name == "iwarp_mpa.rev") put("rev", num(v))
		else if (name == "iwarp_mpa.pdlength") put("pdlen", num(v))
		else if (name == "iwarp_mpa.ulpdulength") put("ulpdu", num(v))
		else if (name == "iwarp_mpa.crc_check") { put("crc", index(attr($0, "showname"), "Good") ? "good" : "bad"); put("crcv", tolower(v)) }
		else if (name == "iwarp_mpa.crc") { put("crc", "unchecked"); put("crcv", tolower(v)) }
		else if (name == "iwarp_mpa.marker_fpduptr") put("mk", ("mk" in f ? f["mk"] "," : "") num(v))
		else if (name == "iwarp_ddp.tagged_flag") put("t", num(v))
		else if (name == "iwarp_ddp.last_flag") put("l", num(v))
		else if (name == "iwarp_ddp.dv") put("dv", num(v))
		else if (name == "iwarp_ddp.qn") put("qn", num(v))
		else if (name == "iwarp_ddp.msn") put("msn", num(v))
		else if (name == "iwarp_ddp.mo") put("mo", num(v))
		else if (name == "iwarp_ddp.stag") put("stag", num(v))
		else if (name == "iwarp_ddp.tagged_offset") put("to", num(v))
		else if (name == "iwarp_rdma.version") put("rv", num(v))
		else if (name == "iwarp_rdma.opcode") put("op", num(v))
		else if (name == "iwarp_rdma.inval_stag") put("inval", num(v))
		else if (name == "iwarp_rdma.sinkstag") put("sinkstag", num(v))
		else if (name == "iwarp_rdma.sinkto") put("sinkto", num(v))
		else if (name == "iwarp_rdma.rdmardsz") put("size", num(v))
		else if (name == "iwarp_rdma.srcstag") put("srcstag", num(v))
		else if (name == "iwarp_rdma.srcto") put("srcto", num(v))
		else if (name == "iwarp_rdma.term_layer") put("tlayer", num(v))
		else if (name ~ /^iwarp_rdma\.term_etype/) put("tetype", num(v))
		else if (name ~ /^iwarp_rdma\.term_errcode/) put("tecode", num(v))
		else if (name == "iwarp_rdma.term_hdrct_m") put("tm", num(v))
		else if (name == "iwarp_rdma.hdrct_d") put("td", num(v))
		else if (name == "iwarp_rdma.hdrct_r") put("tr", num(v))
		else if (name == "iwarp_rdma.term_ddp_seg_len") put("tseglen", tolower(v))
		else if (name == "iwarp_rdma.term_ddp_h") put("tddp", tolower(v))
		else if (name == "iwarp_rdma.term_rdma_h") put("trdma", tolower(v))
	}'
}

# tshark -z expert -> "expert SEVERITY SUMMARY" for the MPA dissector's expert infos.
expert_rows() {
	awk '
	/^Errors \(/ { sev = "Error" } /^Warns \(/ { sev = "Warn" } /^Notes \(/ { sev = "Note" }
	/^Chats \(/ { sev = "Chat" } /^Comments \(/ { sev = "Comment" }
	$3 == "IWARP_MPA" { s = $0; sub(/^ *[0-9]+ +[^ ]+ +IWARP_MPA +/, "", s); print "expert " sev " " s }' | sort -u
}

for p in "$@"; do
	name=$(basename "$p")
	# One tshark per capture (its start costs more than the dissection): the PDML, then after
	# </pdml> the expert table of -z expert.
	ts "$p" -T pdml -z expert >"$tmp/ts" || { failn=$((failn + 1)); echo "FAIL $name: tshark failed" >&2; continue; }
	grep -q '</pdml>' "$tmp/ts" || { failn=$((failn + 1)); echo "FAIL $name: tshark wrote no PDML" >&2; continue; }
	sed -n '1,/<\/pdml>/p' "$tmp/ts" | pdml_rows >"$tmp/tshark"
	sed '1,/<\/pdml>/d' "$tmp/ts" | expert_rows >"$tmp/tshark_expert"
	if ! "$IWSPEC" vectors --dump-fields "$p" --wireshark-view >"$tmp/engine" 2>"$tmp/err"; then
		failn=$((failn + 1))
		echo "FAIL $name: iwspec vectors --dump-fields failed: $(cat "$tmp/err")" >&2
		continue
	fi
	grep '^frame=' "$tmp/engine" >"$tmp/engine_rows"
	grep '^expert ' "$tmp/engine" | sort -u >"$tmp/engine_expert"
	# Directions the engine says Wireshark mis-frames are left out of the comparison (named below).
	cp "$tmp/tshark" "$tmp/tshark_rows"
	for port in $(sed -n 's/^skip from=\([0-9]*\)$/\1/p' "$tmp/engine"); do
		grep -v " from=$port fpdu " "$tmp/tshark_rows" >"$tmp/x"
		mv "$tmp/x" "$tmp/tshark_rows"
	done
	rows=$(wc -l <"$tmp/engine_rows")
	if ! cmp -s "$tmp/engine_rows" "$tmp/tshark_rows"; then
		failn=$((failn + 1))
		echo "FAIL $name: Wireshark and the engine disagree (< engine, > tshark):" >&2
		diff "$tmp/engine_rows" "$tmp/tshark_rows" | sed 's/^/    /' | head -30 >&2
	elif ! cmp -s "$tmp/engine_expert" "$tmp/tshark_expert"; then
		failn=$((failn + 1))
		echo "FAIL $name: expert infos differ (< expected, > tshark):" >&2
		diff "$tmp/engine_expert" "$tmp/tshark_expert" | sed 's/^/    /' >&2
	else
		pass=$((pass + 1))
		echo "ok   $name: $rows frames and FPDUs agree field by field"
	fi
	sed -n 's/^# exception \([^:]*\): \(.*\)$/     KNOWN DIVERGENCE \1: \2/p' "$tmp/engine"
done

finish tshark-check
