#!/bin/sh
# tests/bench/netfuzz_profile.sh - where a network fuzz run's time goes (make bench; issue 28).
#
#   sh tests/bench/netfuzz_profile.sh [IWSPEC] [SECONDS]
#
# Records `iwspec fuzz --bench` twice with perf (cpu-clock samples, DWARF call chains): its bare
# exchanges only (IWSPEC_BENCH_ONLY=bare: connect + 20 octets echoed + close), then its fuzz runs
# only (IWSPEC_BENCH_ONLY=fuzz: runs against the built-in DUT). Every sample goes into one bucket
# by its thread (the main thread: the bare client or the fuzzer's harness; the other: the echo
# server or the built-in DUT's server thread) and its call chain:
#
#   connection set-up   socket(), connect() (the loopback handshake runs inside it), accept4()
#   teardown            shutdown(), close() (the FIN exchange and freeing the socket run inside it)
#   send                send() (loopback delivery to the peer's socket runs inside it)
#   receive and wait    recv(), poll()
#   judging             the harness's judgment of a reaction (nf_judge, suite/verify/, the decoder)
#   model               the model of a conforming DUT fed the same octets (nf_model_*, iw_conn_*)
#   generation          programs and their octets (nf_generate, nf_render_*, the FPDU encoder)
#   DUT protocol work   the built-in DUT's own user-space work (its engine, its server loop)
#   loopback delivery   TCP receive processing (softirq) whose system call perf could not unwind
#   libc                allocator, memset/memcpy when perf could not unwind past libc
#   other               the rest (the scheduler, page faults, the fuzz loop itself)
#
# Prints a table: microseconds of CPU per exchange (bare) and per run (fuzz) in each bucket, each
# thread's CPU time per run (which the bench measures itself) shared out by its samples, so the two
# sides can be compared bucket by bucket. Without perf (Debian: apt-get install linux-perf)
# or without permission to record, says so and exits 0: a figure, never a failure.
set -u
cd "$(dirname "$0")/../.."
IWSPEC=${1:-build/iwspec}
SECS=${2:-3}
if ! command -v perf >/dev/null 2>&1; then
	echo "netfuzz profile: skipped: perf not found (Debian: apt-get install linux-perf)"
	exit 0
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT INT TERM
# record MODE: perf.data.MODE, MODE.out (the bench's line), MODE.script
record() {
	if ! IWSPEC_BENCH_ONLY=$1 perf record -q -F 1999 --call-graph dwarf,8192 -o "$d/perf.data.$1" -- \
		"$IWSPEC" fuzz --bench --time "${SECS}s" >"$d/$1.out" 2>"$d/perf.err"; then
		echo "netfuzz profile: skipped: perf record failed:"
		tail -n 3 "$d/perf.err" | sed 's/^/  /'
		exit 0
	fi
	perf script -i "$d/perf.data.$1" -F pid,tid,ip,sym 2>/dev/null >"$d/$1.script" || {
		echo "netfuzz profile: skipped: perf script failed"
		exit 0
	}
	echo "netfuzz profile: $(cat "$d/$1.out")"
}
record bare
record fuzz
# classify MODE: lines "bucket<TAB>main|other<TAB>us per run", the thread's CPU per run (from the
# bench's line) shared out by the thread's samples.
classify() {
	awk -v line="$(cat "$d/$1.out")" '
function bucket(   i, f) {
	for (i = 1; i <= n; i++) {
		f = fr[i]
		if (f ~ /^(__sys_connect|__x64_sys_socket|__sys_socket|__sys_accept4|__x64_sys_accept4|do_accept|__libc_connect|__GI_socket|accept4|nf_drv_connect)$/)
			return "connection set-up"
		if (f ~ /^(__x64_sys_close|__x64_sys_shutdown|__sys_shutdown|__fput|____fput|task_work_run|__GI___close|__close|__GI_shutdown|shutdown|nf_sock_close|iw_net_reset)$/)
			return "teardown"
		if (f ~ /^(__sys_sendto|__sys_sendmsg|tcp_sendmsg|__libc_send|nf_push_all)$/)
			return "send"
		if (f ~ /^(__sys_recvfrom|tcp_recvmsg|do_sys_poll|__x64_sys_poll|__x64_sys_ppoll|__libc_recv|__GI___poll|__poll)$/)
			return "receive and wait"
	}
	for (i = 1; i <= n; i++) {
		f = fr[i]
		if (f ~ /^(nf_judge|nf_dec|iw_verify|verify_|vf_)/)
			return "judging"
		if (f ~ /^(nf_generate|nf_gen_|gen_|nf_render|nf_act_octet|iw_mpa_tx|nf_rng|nf_tx_sync)/)
			return "generation"
		if (f ~ /^(nf_model|iw_conn|nf_cov)/)
			return tid == pid ? "model" : "DUT protocol work"
		if (f ~ /^(rs_|iw_ref_server|ref_|iw_mpa|iw_ddp|iw_rdmap|iw_crc32c|crc32c)/ && tid != pid)
			return "DUT protocol work"
	}
	for (i = 1; i <= n; i++)
		if (fr[i] ~ /^(net_rx_action|process_backlog|tcp_v4_rcv)$/)
			return "loopback delivery"
	if (fr[1] ~ /(malloc|free|memset|memcpy|memmove|calloc|realloc|_int_)/)
		return "libc (alloc, memset)"
	return "other"
}
function flush() {
	if (!have)
		return
	th = tid == pid ? "main" : "other"
	cnt[bucket() SUBSEP th]++
	tot[th]++
	have = 0
}
/^ *[0-9]+\/[0-9]+/ { flush(); split($1, a, "/"); pid = a[1]; tid = a[2]; have = 1; n = 0; next }
NF >= 2 { fr[++n] = $2; next }
END {
	flush()
	# "... CPU per run|exchange M us (...) + O us (...)"
	m = 0; o = 0
	if (match(line, /per (run|exchange) [0-9.]+ us/)) { s = substr(line, RSTART, RLENGTH); sub(/^per [a-z]+ /, "", s); m = s + 0 }
	if (match(line, /\+ [0-9.]+ us/)) o = substr(line, RSTART + 2) + 0
	cpu["main"] = m; cpu["other"] = o
	for (k in cnt) {
		split(k, p, SUBSEP)
		printf "%s\t%s\t%.1f\n", p[1], p[2], tot[p[2]] ? cpu[p[2]] * cnt[k] / tot[p[2]] : 0
	}
	printf "total\tmain\t%.1f\ntotal\tother\t%.1f\n", m, o
	printf "samples\tmain\t%d\nsamples\tother\t%d\n", tot["main"], tot["other"]
}' "$d/$1.script"
}
classify bare | sed 's/^/bare\t/' >"$d/table"
classify fuzz | sed 's/^/fuzz\t/' >>"$d/table"
awk -F '\t' '
{ v[$1, $2, $3] = $4; seen[$2] = 1 }
END {
	printf "netfuzz profile: CPU us per bare exchange and per fuzz run, by where it goes (perf samples: bare %d + %d, fuzz %d + %d)\n", v["bare", "samples", "main"], v["bare", "samples", "other"], v["fuzz", "samples", "main"], v["fuzz", "samples", "other"]
	printf "netfuzz profile:   %-22s %8s %8s %9s %9s %8s\n", "where", "client", "echo", "harness", "DUT", "extra"
	n = split("connection set-up,teardown,send,receive and wait,loopback delivery,judging,model,generation,DUT protocol work,libc (alloc, memset),other,total", order, ",")
	for (i = 1; i <= n; i++) {
		b = order[i]
		if (!(b in seen)) continue
		bc = v["bare", b, "main"] + 0; be = v["bare", b, "other"] + 0
		fh = v["fuzz", b, "main"] + 0; fd = v["fuzz", b, "other"] + 0
		printf "netfuzz profile:   %-22s %8.1f %8.1f %9.1f %9.1f %+8.1f\n", b, bc, be, fh, fd, fh + fd - bc - be
	}
	print "netfuzz profile: (extra: what a fuzz run costs beyond a bare exchange in that row, both threads)"
}' "$d/table"
