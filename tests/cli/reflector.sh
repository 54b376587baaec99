#!/bin/sh
# iwspec-reflector's command line and its agent/via relay, on loopback. No RDMA device is needed
# (or present on most build hosts): the --connect run the agent starts fails, and what is
# checked is that its message and exit status cross the relay intact, that bad requests are
# refused, and that errors name the problem. The RDMA paths run against siw in `make interop`.
# $REFLECTOR names the binary (default build/iwspec-reflector).
. "$(dirname "$0")/lib.sh"
REFLECTOR=${REFLECTOR:-build/iwspec-reflector}
agent=
on_exit '[ -n "$agent" ] && kill $agent 2>/dev/null'

if [ ! -x "$REFLECTOR" ]; then
	if [ "${CI:-}" = true ]; then echo "FAIL: $REFLECTOR is not built (make reflector)" >&2; exit 1; fi
	echo "reflector: SKIP: $REFLECTOR is not built (make reflector needs librdmacm-dev libibverbs-dev)"
	exit 0
fi

expect 0 "help" "$REFLECTOR" --help
contains "usage: iwspec-reflector --listen PORT" "help shows the modes"
expect 0 "version" "$REFLECTOR" --version
expect 2 "no mode" "$REFLECTOR"
contains "choose one of --listen" "no mode names the choice"
expect 2 "two modes" "$REFLECTOR" --listen 4791 --agent 4790
expect 2 "--bind alone" "$REFLECTOR" --connect 127.0.0.1:1 --bind 127.0.0.1
contains "--bind goes with --listen or --agent" "--bind alone says why"
expect 2 "via with both" "$REFLECTOR" --via 127.0.0.1:1 --listen 5 --connect 127.0.0.1:2
expect 2 "bad port" "$REFLECTOR" --listen 70000
contains "'70000' is not a port" "bad port named"
expect 1 "connect without a port" "$REFLECTOR" --connect 10.0.0.1
contains "is not HOST:PORT" "HOST:PORT asked for"
expect 1 "via to nobody" "$REFLECTOR" --via 127.0.0.1:1 --connect 127.0.0.1:2
contains "cannot reach the agent at 127.0.0.1:1" "unreachable agent named"
expect 2 "perftest mode unknown" "$REFLECTOR" --via 127.0.0.1:1 --perftest atomic --listen 5
contains "--perftest takes send, write, read or send-lat, not 'atomic'" "perftest modes named, send-lat among them"
expect 1 "perftest send-lat via nobody" "$REFLECTOR" --via 127.0.0.1:1 --perftest send-lat --listen 5
contains "cannot reach the agent at 127.0.0.1:1" "--perftest send-lat accepted, the agent asked for"

# The agent on a free port (another is tried while the one picked is taken); its runs find no
# RDMA stack here (or no peer) and exit 1.
for try in 1 2 3 4 5 6; do
	port=$((21000 + ($$ * 7 + try * 613) % 20000))
	"$REFLECTOR" --agent $port --bind 127.0.0.1 2>"$tmp/agent.log" &
	agent=$!
	i=0
	# "control port" alone also starts the error for a port in use: wait for the listening line.
	while ! grep -q "control port .*; runs" "$tmp/agent.log" && kill -0 $agent 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "control port .*; runs" "$tmp/agent.log" && kill -0 $agent 2>/dev/null && break
	wait $agent 2>/dev/null
	agent=
done
[ -n "$agent" ] || { bad "the agent did not start: $(cat "$tmp/agent.log")"; finish reflector; exit; }
"$REFLECTOR" --connect 127.0.0.1:9 >"$tmp/direct" 2>&1
direct=$?
expect $direct "via relays the run's exit status" "$REFLECTOR" --via 127.0.0.1:$port --connect 127.0.0.1:9
if [ $direct -ne 0 ]; then
	first=$(head -1 "$tmp/direct")
	contains "$first" "via relays the run's message"
fi
# A request the agent must not run: anything but an address and a port.
printf 'connect ;reboot 1\n' >"$tmp/req"
if command -v bash >/dev/null 2>&1; then
	timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; cat '$tmp/req' >&3; cat <&3" >"$tmp/out" 2>&1
	contains "error ';reboot 1' is not an address and a port" "agent refuses a request that is not HOST PORT"
fi
# ib_send_lat's client is no profile (docs/ulp-profiles.md): the agent says so rather than run it.
printf 'perftest-send-lat-connect 127.0.0.1 9\n' >"$tmp/req"
if command -v bash >/dev/null 2>&1; then
	timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; cat '$tmp/req' >&3; cat <&3" >"$tmp/out" 2>&1
	contains "error perftest-send-lat-connect: ib_send_lat's client is not run" "agent refuses ib_send_lat's client, saying why"
fi
grep -q "ended, exit" "$tmp/agent.log" && ok || bad "agent logs the end of each run"
kill $agent
wait $agent
got=$?
agent=
[ $got -eq 0 ] && ok || bad "agent exits 0 on SIGTERM (got $got)"
grep -q "stopping (signal)" "$tmp/agent.log" && ok || bad "agent says why it stops"

finish reflector
