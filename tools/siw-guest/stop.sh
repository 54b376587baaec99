#!/bin/sh
# Stops the siw guest and removes its TAP device and network namespace; does nothing, and
# succeeds, when nothing runs.
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(cd "$HERE/../.." && pwd)/build/siw-guest
NETNS=${IWSPEC_NETNS:-iwspec-siw}
# Another namespace's guest keeps its files apart (boot.sh).
[ "$NETNS" = iwspec-siw ] || OUT=$OUT/ns-$NETNS
pid=$(cat "$OUT/qemu.pid" 2>/dev/null)
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
	kill "$pid"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	kill -9 "$pid" 2>/dev/null
fi
rm -f "$OUT/qemu.pid"
ip netns del "$NETNS" 2>/dev/null
exit 0
