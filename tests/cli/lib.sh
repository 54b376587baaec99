# tests/cli/lib.sh - what every CLI script shares. A script sources it first:
#
#     . "$(dirname "$0")/lib.sh"
#
# and then has:
#
#   ROOT          the checkout's top directory, absolute.
#   IWSPEC        the binary under test: $IWSPEC, default build/iwspec; a relative path is made
#                 absolute (against the directory the script started in), so the script may cd
#                 and may write it into exec: DUT configurations. A bare name stays a PATH lookup.
#   pass failn    the counters, both 0.
#   ok [MSG]      counts a passed check. Silent, unless ok_tag is set: then it also prints
#                 "${ok_tag}ok: MSG" (rawtcp.sh says what passed).
#   bad MSG...    counts a failed check and prints "${fail_tag}FAIL: MSG" on stderr (fail_tag is
#                 empty unless the script sets it, as check_octets.sh and rawtcp.sh do, "NAME: ").
#                 A script may also count by hand (failn=$((failn + 1))) where its message has
#                 another shape.
#   tmp           a fresh temporary directory, removed on exit. With KEEP set in the environment
#                 it is kept, and "kept DIR" is said on stderr at the start.
#   on_exit CMD   adds CMD (a string, evaluated at exit, so it sees the variables' values then) to
#                 what runs on exit, in the order added, before tmp goes: a script that starts a
#                 background DUT kills it this way, e.g.
#                     spid=
#                     on_exit '[ -n "$spid" ] && kill "$spid" 2>/dev/null'
#                 The commands run whatever the exit: the end of the script, an exit on the way, or
#                 SIGHUP, SIGINT or SIGTERM (the script then exits 128 + the signal number).
#   low_port      prints a random port number from 10000 up to the kernel's ephemeral range
#                 (ip_local_port_range), as the exec: driver picks its DUTs' ports (drivers/net.c,
#                 iw_net_free_port). No port-0 bind and no outgoing connection takes a port there,
#                 so one a DUT listened on stays free after it is gone; in the ephemeral range
#                 another program's port-0 listener (any run's built-in DUT) takes it within
#                 seconds on a loaded machine. Not checked free: start the DUT on it, and take
#                 another number when that fails.
#   expect STATUS DESCRIPTION command...
#                 runs the command (stdout and stderr into $tmp/out) and counts a check that its
#                 exit status is STATUS; on another, the status and the output's first lines.
#   contains PATTERN DESCRIPTION
#                 counts a check that $tmp/out (the last `expect`'s output) has a line matching
#                 PATTERN (grep's basic regular expression).
#   finish NAME [NOTE]
#                 prints the closing line "NAME: N passed, M failed" (then NOTE, if given) and
#                 returns 0 when nothing failed, 1 otherwise. The script's last command, so its
#                 status is the script's; on an early way out, `finish NAME; exit`.
#
# The exit status of the script is kept through the cleanup.

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
IWSPEC=${IWSPEC:-build/iwspec}
case $IWSPEC in
/*) ;;
*/*) IWSPEC="$(pwd)/$IWSPEC" ;;
esac

pass=0
failn=0
ok_tag=
fail_tag=
ok() {
	pass=$((pass + 1))
	[ -z "$ok_tag" ] || echo "${ok_tag}ok: $*"
}
bad() {
	failn=$((failn + 1))
	echo "${fail_tag}FAIL: $*" >&2
}
expect() {
	want=$1; shift; desc=$1; shift
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" -eq "$want" ]; then ok; else bad "$desc: exit $got, wanted $want"; sed 's/^/    /' "$tmp/out" | head -20 >&2; fi
}
contains() {
	if grep -q -- "$1" "$tmp/out"; then ok; else bad "$2: output lacks '$1'"; sed 's/^/    /' "$tmp/out" | head -20 >&2; fi
}
finish() {
	echo "$1: $pass passed, $failn failed${2:+ $2}"
	[ "$failn" -eq 0 ]
}

low_port() {
	lib_lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
	[ "${lib_lo:-0}" -gt 11024 ] 2>/dev/null || lib_lo=32768
	echo $((10000 + $(od -An -N2 -tu2 /dev/urandom) % (lib_lo - 10000)))
}

lib_on_exit=
on_exit() {
	lib_on_exit="$lib_on_exit$1
"
}
lib_exit() {
	eval "$lib_on_exit"
	[ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
# serve_dut NAME ARGS...: `iwspec serve --port 0 ARGS` in the background, on the port it picks:
# sets $port (empty when it printed none within 10 s, its log then on stderr) and $serve_pid,
# after stopping the one an earlier call started. The script stops the last one on exit:
#     on_exit '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null'
serve_pid=
serve_dut() {
	lib_name=$1; shift
	[ -z "$serve_pid" ] || { kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; }
	# The log exists before the child opens it: the poll below may read it first.
	: >"$tmp/serve-$lib_name.log"
	"$IWSPEC" serve --port 0 "$@" >"$tmp/serve-$lib_name.log" 2>&1 &
	serve_pid=$!
	port=
	lib_i=0
	while [ $lib_i -lt 100 ] && kill -0 "$serve_pid" 2>/dev/null; do
		port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/serve-$lib_name.log")
		[ -n "$port" ] && return 0
		sleep 0.1
		lib_i=$((lib_i + 1))
	done
	sed 's/^/    /' "$tmp/serve-$lib_name.log" >&2
	return 1
}

# On a run's results.json (iwspec run --report DIR):
# ran RESULTS [ID-REGEX]: how many cases (whose id matches) did not SKIP.
ran() { jq -r --arg re "${2:-.}" '[.cases[] | select(.verdict != "SKIP" and (.id | test($re)))] | length' "$1"; }
# half RESULTS NAME: at least half of the catalog's DDP and RDMAP cases ran (issue 26's target).
half() {
	lib_n=$(jq -r '[.cases[] | select(.id | test("^(ddp|rdmap)[.]"))] | length' "$1")
	lib_r=$(ran "$1" '^(ddp|rdmap)[.]')
	[ "$lib_n" -gt 0 ] && [ $((lib_r * 2)) -ge "$lib_n" ] && ok ||
		bad "$2: $lib_r of ${lib_n:-no} DDP and RDMAP cases ran, fewer than half"
}
# run_all CONF OUT NAME [--cases ...]: `iwspec run` under CONF, reports in OUT, exits 0 and every
# case that ran PASSed or is INFO (the others are listed with their reasons).
run_all() {
	lib_conf=$1 lib_out=$2 lib_name=$3
	shift 3
	timeout 300 "$IWSPEC" run --dut-config "$lib_conf" --report "$lib_out" "$@" >"$tmp/log" 2>&1
	lib_run=$?
	[ $lib_run -eq 0 ] && ok || { bad "$lib_name: iwspec run exited $lib_run"; sed 's/^/    /' "$tmp/log" | tail -20 >&2; }
	lib_n=$(jq -r '[.cases[] | select(.verdict != "SKIP" and .verdict != "PASS" and .verdict != "INFO")] | length' "$lib_out/results.json" 2>/dev/null)
	[ "${lib_n:-1}" -eq 0 ] && ok || { bad "$lib_name: ${lib_n:-no results:} cases neither PASS nor INFO"
		jq -r '.cases[] | select(.verdict != "SKIP" and .verdict != "PASS" and .verdict != "INFO") | "  \(.id) \(.reason)"' "$lib_out/results.json" >&2; }
}
# sent_is RESULTS CASE head|tail SUFFIX: the first (head) or last (tail) FPDU the harness sent in
# the case (perftest's comm connections, 32 and up, left out) ends with SUFFIX.
sent_is() {
	lib_s=$(jq -r --arg c "$2" '.cases[] | select(.id == $c) | .wire[]? | select(.conn < 32) | .summary? // empty' \
		"$1" | grep '^FPDU send: ' | $3 -n 1)
	case $lib_s in *"$4") ok ;; *) bad "$2: the harness's $3 FPDU is '${lib_s:-none}', not one ending '$4'" ;; esac
}

tmp=$(mktemp -d) || { echo "$0: mktemp -d failed" >&2; exit 2; }
[ -z "${KEEP:-}" ] || echo "kept $tmp" >&2
trap 'lib_rc=$?; lib_exit; exit $lib_rc' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
