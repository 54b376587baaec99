#!/bin/sh
# Boots the siw guest (build.sh made it) in the background and waits until it is ready.
#
#   sh tools/siw-guest/boot.sh [--selftest] [--patched] [--coverage] [--kasan]
#
# The guest's virtio NIC is a TAP device, iwtap0, inside network namespace iwspec-siw: the
# harness's TCP (run with `ip netns exec iwspec-siw`) talks to the guest's TCP directly, with no
# user-mode networking in between to re-segment or terminate it, and none of it touches the
# host's own network. Host end 10.213.0.1/24, guest 10.213.0.2, reflector on 4791, agent 4790.
# --selftest runs rping over siw inside the guest first (IWSPEC-SELFTEST-PASS on the console).
# --patched loads siw-patched.ko (siw with docs/interop/siw-patches/ applied) instead of siw.ko;
# the console says which (`guest: siw module ...`), and boot.sh checks it.
# --coverage loads the profiled build of that module (siw-cov.ko or siw-patched-cov.ko: its
# counters in /sys/kernel/debug/siw_gcov/, which the agent reads: tools/siw-guest/coverage.sh).
# --kasan boots the sanitizer kernel of build-kasan.sh (KASAN, lockdep, UBSAN; siw built in)
# with the same user space.
# IWSPEC_NETNS=name: another namespace, so two guests run side by side from one tree; the
# guest's files (console.log, qemu.pid, qemu.log) are then in build/siw-guest/ns-name/ (the
# default namespace keeps build/siw-guest/). `boot.sh --run-dir` prints that directory.
#
# A guest is booted once per kind (stock, --patched) and image: when it is ready, boot.sh saves
# its state (qemu's migration stream, with the console up to then) in build/siw-guest/, and the
# next boot of that kind restores it instead, in about a second where a boot under TCG takes 7 to
# 12: the same fresh kernel, memory as it was the moment the guest became ready, so no pass
# inherits another's damage (issue 39: five boots were 40 to 55 s of make test's critical path).
# IWSPEC_GUEST_SNAPSHOT=0 boots every time; IWSPEC_GUEST_SAVE=0 restores but does not save (the
# caller boots no other guest of this kind). A restore that fails is said and followed by a boot.
#
# Exit: 0 ready, 1 failed (console tail shown), 77 this host cannot run it (says why).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/kernel.env"
# The guest's image (SIW_KERNEL's, kernel.env) and where this boot's files go (always
# build/siw-guest, so stop.sh finds them whichever kernel runs).
OUT=$ROOT/build/siw-guest${GUEST_SUBDIR:+/$GUEST_SUBDIR}
NETNS=${IWSPEC_NETNS:-iwspec-siw}
TIMEOUT=${IWSPEC_GUEST_TIMEOUT:-240}
RUN=$ROOT/build/siw-guest
[ "$NETNS" = iwspec-siw ] || RUN=$RUN/ns-$NETNS
SELFTEST=0
SIW=
COV=
KERNEL=$OUT/bzImage
ARGS="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--selftest) SELFTEST=1 ;;
	--patched) SIW=patched ;;
	--coverage) COV=-cov ;;
	--kasan) SIW=kasan; KERNEL=$ROOT/build/siw-guest-kasan/bzImage ;;
	--run-dir) echo "$RUN"; exit 0 ;;
	*) echo "guest: unknown option '$1' (--selftest, --patched, --coverage, --kasan, --run-dir)" >&2; exit 2 ;;
	esac
	shift
done
say() { echo "guest: $*"; }
[ "$SIW" = kasan ] && [ -n "$COV" ] && { echo "guest: --coverage profiles siw.ko; the sanitizer kernel (--kasan) has siw built in, unprofiled" >&2; exit 2; }
cant() { echo "guest: cannot boot here: $*" >&2; exit 77; }

[ "$(id -u)" -eq 0 ] || cant "needs root (a network namespace and a TAP device)"
[ -c /dev/net/tun ] || cant "/dev/net/tun is missing (no TAP devices: modprobe tun, or a container without it)"
command -v qemu-system-x86_64 >/dev/null 2>&1 || cant "qemu-system-x86_64 is missing (apt-get install qemu-system-x86)"
[ -f "$OUT/bzImage" ] && [ -f "$OUT/initrd.gz" ] || cant "the guest is not built (sh tools/siw-guest/build.sh)"
[ -f "$KERNEL" ] || cant "the sanitizer kernel is not built (sh tools/siw-guest/build-kasan.sh)"
mkdir -p "$RUN"

sh "$HERE/stop.sh" >/dev/null 2>&1
ip netns add "$NETNS" || { echo "guest: FAIL: ip netns add $NETNS" >&2; exit 1; }
ip -n "$NETNS" link set lo up
ip -n "$NETNS" tuntap add dev iwtap0 mode tap || { echo "guest: FAIL: cannot create TAP device iwtap0" >&2; exit 1; }
# One MAC for the host's end whichever boot made it: a restored guest's ARP entry for the host
# stays right.
ip -n "$NETNS" link set iwtap0 address 02:00:0a:d5:00:01
ip -n "$NETNS" addr add 10.213.0.1/24 dev iwtap0
ip -n "$NETNS" link set iwtap0 up

tcg=tcg,thread=multi
tcg_what="TCG: no usable /dev/kvm, every instruction emulated"
accel=$tcg
what=$tcg_what
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	accel=kvm
	what=KVM
fi
rm -f "$RUN/console.log" "$RUN/qemu.pid"
t0=$(date +%s)
# no_timer_check: under TCG on a loaded host the kernel's check of the IO-APIC timer can miss
# its ticks and panic the boot ("IO-APIC + timer doesn't work!", seen in a make test with the
# host loaded); qemu's timer is sound, so the check is left out.
APPEND="console=ttyS0 panic=-1 loglevel=7 no_timer_check iwspec.selftest=$SELFTEST iwspec.siw=${SIW:-stock}${COV:+ iwspec.cov=1}"
# The monitor listens on the namespace's own loopback (the saving below talks to it); the
# console is appended to, so a restored guest's follows the boot's it was saved with.
MONITOR_PORT=4444
start_qemu() {
	ip netns exec "$NETNS" qemu-system-x86_64 -accel "$accel" -cpu max -m 768M -smp 2 \
		-kernel "$KERNEL" -initrd "$OUT/initrd.gz" -append "$APPEND" \
		-netdev tap,id=n0,ifname=iwtap0,script=no,downscript=no -device virtio-net-pci,netdev=n0,speed=10000,duplex=full \
		-display none -monitor "tcp:127.0.0.1:$MONITOR_PORT,server=on,wait=off" \
		-chardev "file,id=console,path=$RUN/console.log,append=on" -serial chardev:console -no-reboot \
		-daemonize -pidfile "$RUN/qemu.pid" "$@" >"$RUN/qemu.log" 2>&1
}

# monitor SECONDS WANT CMD...: gives qemu's monitor the commands, one a line, and succeeds when
# it answers a line holding WANT within SECONDS; the last command is asked again every 0.2 s
# until then (an incoming stream's status). A failed or cancelled migration, or an Error, fails at
# once. HMP's `migrate` returns only when the stream is complete.
monitor() {
	ip netns exec "$NETNS" bash -c '
		exec 3<>/dev/tcp/127.0.0.1/'"$MONITOR_PORT"' || exit 1
		end=$(($(date +%s) + $1)) want=$2
		shift 2
		for last; do :; done
		printf "%s\n" "$@" >&3
		while [ "$(date +%s)" -le $end ]; do
			while IFS= read -r -t 0.2 -u 3 line; do
				case $line in
				*"$want"*) exit 0 ;;
				*"Migration status: failed"*|*"Migration status: cancelled"*|Error*) exit 1 ;;
				esac
			done
			printf "%s\n" "$last" >&3
		done
		exit 1' _ "$@"
}

# The saved guest of this kind, valid for exactly this kernel, initrd, command line and qemu.
SNAPSHOT=${IWSPEC_GUEST_SNAPSHOT:-1}
[ $SELFTEST = 1 ] && SNAPSHOT=0   # the self-test's rping is to run, not to be remembered
SNAP=$RUN/snapshot-${SIW:-stock}$COV
snap_key="$(cksum <"$KERNEL") $(cksum <"$OUT/initrd.gz") $APPEND $(qemu-system-x86_64 --version | head -n 1)"
restored=no
if [ "$SNAPSHOT" = 1 ] && [ -f "$SNAP.mig" ] && [ "$(cat "$SNAP.key" 2>/dev/null)" = "$snap_key" ]; then
	accel=$(cat "$SNAP.accel")
	cp "$SNAP.console" "$RUN/console.log"
	say "restoring Debian $KERNEL_ABI ($KERNEL_DEB_VERSION)${SIW:+, $SIW siw}${COV:+, profiled}, as saved when it was ready ($SNAP.mig)"
	# The guest was saved stopped, and comes back stopped: run once the stream is in.
	if start_qemu -incoming "exec:cat $SNAP.mig" && monitor 60 "Migration status: completed" "info migrate" &&
		monitor 10 "VM status: running" cont "info status"; then
		restored=yes
	else
		say "the restore did not start ($(grep -m1 -i 'error' "$RUN/qemu.log" | cut -c1-100)); booting"
		kill "$(cat "$RUN/qemu.pid" 2>/dev/null)" 2>/dev/null
		i=0
		while kill -0 "$(cat "$RUN/qemu.pid" 2>/dev/null)" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$(cat "$RUN/qemu.pid" 2>/dev/null)" 2>/dev/null
		rm -f "$SNAP.mig" "$RUN/console.log" "$RUN/qemu.pid"
	fi
fi
[ $restored = yes ] || say "booting Debian $KERNEL_ABI ($KERNEL_DEB_VERSION) under qemu ($what)${SIW:+, $SIW siw}${COV:+, profiled}"
# A /dev/kvm that qemu cannot use (nested virtualisation refusing -cpu max's MSRs) falls back to
# TCG, which the baselines were made with, instead of failing the boot.
started=yes
[ $restored = yes ] || start_qemu || started=no
if [ $started = no ] && [ "$accel" = kvm ]; then
	say "qemu did not start under KVM ($(grep -m1 -i 'error' "$RUN/qemu.log" | cut -c1-100)); booting under TCG"
	accel=$tcg
	started=yes
	start_qemu || started=no
fi
[ $started = yes ] || {
	cat "$RUN/qemu.log" >&2
	echo "guest: FAIL: qemu did not start" >&2
	sh "$HERE/stop.sh" >/dev/null 2>&1
	exit 1
}

failed() {
	echo "guest: FAIL: $1; the console's last lines:" >&2
	tail -40 "$RUN/console.log" 2>/dev/null | sed 's/^/    /' >&2
	sh "$HERE/stop.sh" >/dev/null 2>&1
	exit 1
}
next=15
# A boot that hangs before the guest is ready: under TCG on a loaded host a vCPU has been seen
# spinning in a crypto self-test at boot (`watchdog: BUG: soft lockup ... [cryptomgr_test]`,
# the boot never ends); and, once in a fresh-clone make test (2026-11-27, host quiet), the kernel
# stopped printing 0.9 s into its boot with qemu spinning on both host cores, no stall reported
# after 195 s. Such a boot (a lockup on the console, or a console silent for 30 s where a boot
# prints every second or so) is stopped and qemu started once more (twice at most).
SILENT=${IWSPEC_GUEST_SILENT:-30}
retries=0
last_size=-1
last_change=$(date +%s)
while :; do
	el=$(($(date +%s) - t0))
	size=$(wc -c <"$RUN/console.log" 2>/dev/null || echo 0)
	if [ "$size" != "$last_size" ]; then
		last_size=$size
		last_change=$(date +%s)
	fi
	grep -q IWSPEC-GUEST-READY "$RUN/console.log" 2>/dev/null && break
	msg=$(grep -m1 IWSPEC-GUEST-FAILED "$RUN/console.log" 2>/dev/null) && failed "${msg#*: }"
	kill -0 "$(cat "$RUN/qemu.pid" 2>/dev/null)" 2>/dev/null || failed "qemu exited"
	[ "$el" -ge "$TIMEOUT" ] && failed "not ready after $TIMEOUT s (IWSPEC_GUEST_TIMEOUT)"
	hang=
	if grep -qE 'BUG: soft lockup|self-detected stall|detected stalls' "$RUN/console.log" 2>/dev/null; then
		hang=$(grep -m1 -oE 'BUG: soft lockup.*|rcu: INFO.*stall.*' "$RUN/console.log" | cut -c1-80)
	elif [ $(($(date +%s) - last_change)) -ge "$SILENT" ]; then
		hang="the console silent for $SILENT s after: $(tail -1 "$RUN/console.log" 2>/dev/null | cut -c1-60)"
	fi
	if [ $retries -lt 2 ] && [ -n "$hang" ]; then
		retries=$((retries + 1))
		say "the boot hangs ($hang): starting qemu again ($retries)"
		kill "$(cat "$RUN/qemu.pid" 2>/dev/null)" 2>/dev/null
		i=0
		while kill -0 "$(cat "$RUN/qemu.pid" 2>/dev/null)" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$(cat "$RUN/qemu.pid" 2>/dev/null)" 2>/dev/null
		cp "$RUN/console.log" "$RUN/console.hung-boot-$retries.log" 2>/dev/null
		rm -f "$RUN/console.log" "$RUN/qemu.pid"
		start_qemu || failed "qemu did not start again"
		next=$((el + 15))
		last_size=-1
		last_change=$(date +%s)
		continue
	fi
	if [ "$el" -ge $next ]; then
		say "booting, $el s (last console line: $(tail -1 "$RUN/console.log" 2>/dev/null | cut -c1-80))"
		next=$((next + 15))
	fi
	# The guest is ready 4-8 s after qemu starts: a second's polling lost half a second a boot.
	sleep 0.2
done
want="siw module siw$COV.ko loaded"
[ "$SIW" = patched ] && want="siw module siw-patched$COV.ko loaded"
[ "$SIW" = kasan ] && want="siw built into the kernel"
grep -q "guest: $want" "$RUN/console.log" || failed "the guest did not say: $want"
if [ $SELFTEST = 1 ]; then
	grep -q IWSPEC-SELFTEST-PASS "$RUN/console.log" || failed "rping over siw failed in the guest"
	say "rping over siw in the guest: PASS"
fi
# Saved the moment it is ready, before the host has opened anything to it: stopped, its state
# written out through the monitor (qemu's HMP `migrate` returns when the stream is complete),
# then run on. What a restore reads is only ever a complete stream (written aside, then moved).
if [ $restored = no ] && [ "$SNAPSHOT" = 1 ] && [ "${IWSPEC_GUEST_SAVE:-1}" = 1 ]; then
	ts=$(date +%s)
	rm -f "$SNAP.mig" "$SNAP.tmp"
	saved=yes
	monitor 60 "Migration status: completed" stop "migrate \"exec:cat > $SNAP.tmp\"" "info migrate" || saved=no
	monitor 10 "VM status: running" cont "info status" || failed "the guest stayed stopped after saving it"
	if [ $saved = yes ] && [ -s "$SNAP.tmp" ]; then
		mv "$SNAP.tmp" "$SNAP.mig"
		cp "$RUN/console.log" "$SNAP.console"
		echo "$accel" >"$SNAP.accel"
		echo "$snap_key" >"$SNAP.key"
		say "saved as it is now for the next boot of its kind ($(($(du -k "$SNAP.mig" | cut -f1) / 1024)) MiB in $(($(date +%s) - ts)) s)"
	else
		rm -f "$SNAP.tmp"
		say "could not save the guest for the next boot (its monitor on 127.0.0.1:$MONITOR_PORT in $NETNS): the next passes boot theirs"
	fi
fi
# The host reaches the guest over the TAP link: a TCP connection to the agent's control port.
# Not to siw's port 4791: on 6.1 a connection closed before its MPA Request makes siw's
# listener refuse every later one (docs/interop/linux-siw.md). A restored guest runs once qemu
# has read its stream: tried for up to 30 s.
if grep -q 'iwspec-reflector agent: control port' "$RUN/console.log"; then
	tries=1 wait=20
	[ $restored = yes ] && tries=15 wait=2
	until ip netns exec "$NETNS" timeout $wait bash -c 'exec 3<>/dev/tcp/10.213.0.2/4790' 2>/dev/null; do
		tries=$((tries - 1))
		if [ $tries -le 0 ]; then
			if [ $restored = yes ]; then
				# A guest that does not come back from its saved state: boot, and save again.
				say "the restored guest does not answer on 10.213.0.2:4790; booting instead"
				rm -f "$SNAP.mig"
				exec sh "$0" $ARGS
			fi
			failed "the host cannot open a TCP connection to the guest's agent at 10.213.0.2:4790"
		fi
		sleep 0.2
	done
fi
say "ready in $(($(date +%s) - t0)) s (console: $RUN/console.log)"
