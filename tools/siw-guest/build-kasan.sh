#!/bin/sh
# Builds a sanitizer kernel for the siw guest: build/siw-guest-kasan/bzImage, from the same
# Debian source siw.ko is built from (linux-source-6.1, kernel.env), with a minimal configuration
# (tinyconfig, then virtio-net, the serial console, an initramfs, the RDMA core with user access,
# rdma_cm and siw, all built in) plus KASAN (generic, inline), lockdep (PROVE_LOCKING), UBSAN and
# the hung-task, soft-lockup and RCU stall detectors. Nothing is a module, so the guest's init
# loads none (boot.sh --kasan). The guest's user space (initrd.gz) is the one build.sh makes.
#
#   sh tools/siw-guest/build-kasan.sh [--config-only] [--max-minutes M]
#
# The compile runs under `nice -n 19` with 2 jobs and is cached: a stamp holds a hash of the
# configuration fragment below and the source package; a second run with the same inputs does
# nothing. --max-minutes M stops the compile after M minutes and prints how far it got (objects
# built of those the configuration needs), for extrapolating a build this machine cannot finish
# in time. Times and counts go to build/siw-guest-kasan/build-times.txt.
#
# Exit: 0 built (or cached), 1 failed, 3 stopped by --max-minutes, 77 cannot build here.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/kernel.env"
OUT=$ROOT/build/siw-guest-kasan
SRC=$OUT/src
SOURCE=/usr/src/$KERNEL_SOURCE_PKG.tar.xz
CONFIG_ONLY=0
MAX_MIN=0
while [ $# -gt 0 ]; do
	case $1 in
	--config-only) CONFIG_ONLY=1 ;;
	--max-minutes) MAX_MIN=$2; shift ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "kasan: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
say() { echo "kasan: $*"; }
die() { echo "kasan: FAIL: $*" >&2; exit 1; }
cant() { echo "kasan: cannot build here: $*" >&2; exit 77; }
for tool in make gcc flex bison bc xz tar; do
	command -v $tool >/dev/null 2>&1 || cant "$tool is missing (apt-get install flex bison bc libelf-dev)"
done
[ -f /usr/include/libelf.h ] || cant "libelf.h is missing (apt-get install libelf-dev: objtool needs it)"
[ -f "$SOURCE" ] || cant "$SOURCE is missing (apt-get install $KERNEL_SOURCE_PKG)"

# The configuration on top of tinyconfig. y for all: no modules, no vermagic to match.
FRAGMENT="64BIT SMP PCI PRINTK TTY SERIAL_8250 SERIAL_8250_CONSOLE BLK_DEV_INITRD RD_GZIP
	BINFMT_ELF BINFMT_SCRIPT DEVTMPFS PROC_FS PROC_SYSCTL SYSFS TMPFS SHMEM MEMFD_CREATE MULTIUSER
	FUTEX EPOLL SIGNALFD TIMERFD EVENTFD POSIX_TIMERS FILE_LOCKING KALLSYMS KALLSYMS_ALL
	NET INET UNIX PACKET NETDEVICES NET_CORE VIRTIO_MENU VIRTIO VIRTIO_PCI VIRTIO_NET
	INFINIBAND INFINIBAND_USER_ACCESS INFINIBAND_ADDR_TRANS RDMA_SIW CRYPTO CRYPTO_CRC32C LIBCRC32C
	SLUB DEBUG_KERNEL DEBUG_INFO_NONE KASAN KASAN_GENERIC KASAN_INLINE PROVE_LOCKING DEBUG_ATOMIC_SLEEP
	UBSAN UBSAN_BOUNDS DETECT_HUNG_TASK SOFTLOCKUP_DETECTOR BUG DEBUG_BUGVERBOSE
	UNWINDER_FRAME_POINTER"
NEEDED="KASAN KASAN_GENERIC PROVE_LOCKING LOCKDEP RDMA_SIW INFINIBAND_USER_ACCESS VIRTIO_NET SERIAL_8250_CONSOLE
	BLK_DEV_INITRD UBSAN DETECT_HUNG_TASK"
key=$( { echo "$FRAGMENT"; cat "$0"; ls -l "$SOURCE"; } | sha256sum | cut -d' ' -f1)
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$key" ] && [ -f "$OUT/bzImage" ]; then
	say "cached ($OUT/bzImage)"
	exit 0
fi
mkdir -p "$OUT"
T=$OUT/build-times.txt
t0=$(date +%s)
if [ ! -f "$SRC/Makefile" ]; then
	say "unpacking $SOURCE"
	rm -rf "$SRC" "$OUT/unpack"
	mkdir -p "$OUT/unpack"
	nice -n 19 tar -xJf "$SOURCE" -C "$OUT/unpack" || die "cannot unpack $SOURCE"
	mv "$OUT/unpack"/* "$SRC" && rm -rf "$OUT/unpack"
fi
t1=$(date +%s)
echo "unpack_s $((t1 - t0))" >"$T"
cd "$SRC" || die "no $SRC"
make -s tinyconfig >"$OUT/config.log" 2>&1 || die "make tinyconfig failed ($OUT/config.log)"
for opt in $FRAGMENT; do
	./scripts/config --enable "$opt"
done
./scripts/config --disable MODULES --disable UNWINDER_ORC --disable SLOB --disable SLUB_TINY
make -s olddefconfig >>"$OUT/config.log" 2>&1 || die "make olddefconfig failed ($OUT/config.log)"
# olddefconfig drops what a dependency refuses: the options the guest needs must have stayed.
missing=
for opt in $NEEDED; do
	grep -q "^CONFIG_$opt=y" .config || missing="$missing $opt"
done
[ -z "$missing" ] || die "the configuration lost:$missing (a dependency is missing from the fragment)"
cp .config "$OUT/config"
say "configuration: $(grep -c '=y' .config) options set ($OUT/config)"
[ $CONFIG_ONLY = 1 ] && exit 0

say "compiling bzImage with 2 jobs under nice -n 19 (log: $OUT/build.log)"
t2=$(date +%s)
# Its own session, so --max-minutes stops make and every compiler it started, by its group.
setsid nice -n 19 make -j2 bzImage >"$OUT/build.log" 2>&1 &
mpid=$!
stopped=0
if [ "$MAX_MIN" -gt 0 ]; then
	while kill -0 $mpid 2>/dev/null; do
		if [ $(($(date +%s) - t2)) -ge $((MAX_MIN * 60)) ]; then
			kill -TERM -- -$mpid 2>/dev/null
			stopped=1
			break
		fi
		sleep 10
	done
fi
wait $mpid
rc=$?
t3=$(date +%s)
objs=$(find . -name '*.o' -newer "$OUT/config" 2>/dev/null | wc -l)
echo "compile_s $((t3 - t2))" >>"$T"
echo "objects_built $objs" >>"$T"
if [ $stopped = 1 ]; then
	say "stopped after $((t3 - t2)) s (--max-minutes $MAX_MIN): $objs objects built so far"
	exit 3
fi
[ $rc -eq 0 ] || { tail -30 "$OUT/build.log" >&2; die "the kernel build failed ($OUT/build.log)"; }
cp arch/x86/boot/bzImage "$OUT/bzImage"
echo "$key" >"$OUT/stamp"
say "built in $((t3 - t2)) s of compile ($((t1 - t0)) s unpacking): $objs objects, $OUT/bzImage"
