#!/bin/sh
# Builds the siw guest from Debian packages only: build/siw-guest/bzImage and initrd.gz
# (SIW_KERNEL=6.12: build/siw-guest/k-6.12/, kernel.env).
#
#   sh tools/siw-guest/build.sh [--reflector PATH]
#
# The kernel and its modules come from linux-image-$KERNEL_ABI-unsigned (kernel.env pins it),
# fetched with `apt-get download`; siw.ko is built out of tree from $KERNEL_SOURCE_PKG against
# linux-headers-$KERNEL_ABI, and its vermagic must equal the image's. A second module,
# siw-patched.ko, is built from the same source with the patches docs/interop/siw-patches/series
# lists (IWSPEC_SIW_PATCHES=0002 or =F1,F8 builds it with those only); the guest loads it when
# booted with --patched. Each of the two is also built profiled (siw-cov.ko, siw-patched-cov.ko: gcc's
# coverage counters with their own runtime, tools/siw-guest/siw-cov/), which boot.sh --coverage loads;
# their .gcno files and sources stay in siw-cov-src/ and siw-patched-cov-src/ for coverage.sh.
# When the series does not apply to this kernel's source (patch
# --fuzz=0), the guest has siw.ko only and siw-patched.missing says which patch failed: the
# patched passes SKIP with that reason, every other pass runs. User space is busybox, iproute2 (`rdma`), rdma-core, ibverbs-providers
# (siw's provider), librdmacm1, rdmacm-utils (rping), perftest, and the reflector built on the host. The
# result is cached: a stamp holds a hash of every input (the patches and the selection
# included), and a second run with the same inputs does nothing.
#
# Exit: 0 built (or cached), 1 failed (the message says what), 77 this host cannot build it.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/kernel.env"
OUT=$ROOT/build/siw-guest${GUEST_SUBDIR:+/$GUEST_SUBDIR}
REFLECTOR=
while [ $# -gt 0 ]; do
	case $1 in
	--reflector) REFLECTOR=$2; shift 2 ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "guest: unknown option '$1' (--reflector PATH)" >&2; exit 2 ;;
	esac
done
say() { echo "guest: $*"; }
die() { echo "guest: FAIL: $*" >&2; exit 1; }
cant() { echo "guest: cannot build here: $*" >&2; exit 77; }

HEADERS=/usr/src/linux-headers-$KERNEL_ABI
SOURCE=/usr/src/$KERNEL_SOURCE_PKG.tar.xz
for tool in apt-get dpkg-deb cpio gzip xz make gcc modinfo depmod readelf strip sha256sum patch; do
	command -v $tool >/dev/null 2>&1 || cant "$tool is missing (sh tools/siw-guest/host-deps.sh installs what the build needs)"
done
[ -d "$HEADERS" ] || cant "$HEADERS is missing (apt-get install linux-headers-$KERNEL_ABI)"
[ -f "$SOURCE" ] || cant "$SOURCE is missing (apt-get install $KERNEL_SOURCE_PKG)"
if [ -n "$REFLECTOR" ]; then
	[ -x "$REFLECTOR" ] || die "the reflector '$REFLECTOR' is not an executable (make reflector)"
	REFLECTOR=$(cd "$(dirname "$REFLECTOR")" && pwd)/$(basename "$REFLECTOR")
fi

# The patches for siw-patched.ko: each line of the series is "FILE FINDING"; IWSPEC_SIW_PATCHES
# (number prefixes or findings, comma- or space-separated) keeps the lines it names.
PATCHDIR=$ROOT/docs/interop/siw-patches
[ -f "$PATCHDIR/series" ] || die "$PATCHDIR/series is missing"
PATCHES=
PATCHED_FINDINGS=
PATCH_DESC=
while read -r file finding rest; do
	case $file in ''|'#'*) continue ;; esac
	[ -f "$PATCHDIR/$file" ] || die "the series names $file, which $PATCHDIR does not have"
	if [ -n "${IWSPEC_SIW_PATCHES:-}" ]; then
		keep=no
		for want in $(echo "$IWSPEC_SIW_PATCHES" | tr ',' ' '); do
			case $file in "$want"*) keep=yes ;; esac
			[ "$want" = "$finding" ] && keep=yes
		done
		[ $keep = yes ] || continue
	fi
	PATCHES="$PATCHES $file"
	PATCHED_FINDINGS="$PATCHED_FINDINGS $finding"
	PATCH_DESC="$PATCH_DESC${PATCH_DESC:+, }${file%%-*} ($finding)"
done <"$PATCHDIR/series"
[ -n "$PATCHES" ] || die "IWSPEC_SIW_PATCHES='${IWSPEC_SIW_PATCHES:-}' selects none of the series' patches"
PATCHED_FINDINGS=${PATCHED_FINDINGS# }

# The cache key: everything that goes into the guest.
key=$( { cat "$HERE/kernel.env" "$HERE/build.sh" "$HERE/init" "$HERE"/siw-cov/*; [ -n "$REFLECTOR" ] && cat "$REFLECTOR"; \
	echo "reflector=${REFLECTOR:+yes}"; echo "patches=$PATCHES"; for p in $PATCHES; do cat "$PATCHDIR/$p"; done; } |
	sha256sum | cut -d' ' -f1)
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$key" ] && [ -f "$OUT/initrd.gz" ] && [ -f "$OUT/bzImage" ]; then
	[ -f "$OUT/siw-patched.missing" ] && PATCHED_FINDINGS="nothing (no siw-patched.ko: $(cat "$OUT/siw-patched.missing"))"
	say "cached ($OUT, kernel $KERNEL_ABI${REFLECTOR:+, with the reflector}; siw-patched.ko fixes $PATCHED_FINDINGS)"
	exit 0
fi
t0=$(date +%s)
mkdir -p "$OUT/debs"
rm -f "$OUT/stamp"

# 3. siw.ko, built from the same source as the image (checked against it below); 3b.
#    siw-patched.ko: the same source with the selected patches applied (exactly: no fuzz), rebuilt
#    when the patches or the selection change. The source is unpacked once (decompressing the
#    kernel's tarball is most of the build's time), in the background from the start while the
#    packages are fetched and unpacked, and the two modules build side by side.
SRC=$OUT/siw-src
PSRC=$OUT/siw-patched-src
# 3c. The same two, profiled (siw-cov.ko, siw-patched-cov.ko: boot.sh --coverage): siw-cov/'s
#     Kbuild over siw's Makefile, its runtime beside siw's sources, and siw_main.c's module_init
#     and module_exit lines hooked (on those lines, so every other line keeps its number). The
#     .gcno files and sources stay here: the host reads the guest's counters against them
#     (tools/siw-guest/coverage.sh).
CSRC=$OUT/siw-cov-src
PCSRC=$OUT/siw-patched-cov-src
COVDIR=$HERE/siw-cov
build_module() { # $1 source directory, $2 log
	make -C "$HEADERS" M="$1" CONFIG_RDMA_SIW=m modules >"$2" 2>&1
}
# $1 a source to build as it is, $2 a copy of it to profile and build, $3 the log ($3.cov the
# profiled build's), $4 what the profiled build was made from (kept in $2/.iwspec-cov).
build_pair() {
	build_module "$1" "$3" || return 1
	profile_source "$2" >"$3.cov" 2>&1 && build_module "$2" "$3.cov.make" || { cat "$3.cov.make" >>"$3.cov" 2>/dev/null; cat "$3.cov" >>"$3"; return 1; }
	cat "$3.cov.make" >>"$3.cov"; rm -f "$3.cov.make"
	echo "$4" >"$2/.iwspec-cov"
}
# $1 a copy of siw's source to profile: in place.
profile_source() {
	cp "$COVDIR/siw_gcov.c" "$COVDIR/gcda.h" "$COVDIR/gcov_begin.c" "$COVDIR/gcov_end.c" "$1/"
	# The objects siw's own Makefile links, and no other: the Kbuild lists them by name.
	want=$(grep -o 'siw_[a-z_]*\.o' "$1/Makefile" | sort | tr '\n' ' ')
	have=$(grep -o 'siw_[a-z_]*\.o' "$COVDIR/Kbuild" | grep -v siw_gcov | sort | tr '\n' ' ')
	[ "$want" = "$have" ] || die "siw's Makefile in $SOURCE links $want; tools/siw-guest/siw-cov/Kbuild lists $have (update it)"
	cp "$COVDIR/Kbuild" "$1/Makefile"
	sed -i 's/^module_init(siw_init_module);$/void siw_gcov_start(void); static int __init siw_gcov_init_module(void) { int rc = siw_init_module(); if (!rc) siw_gcov_start(); return rc; } module_init(siw_gcov_init_module);/; s/^module_exit(siw_exit_module);$/void siw_gcov_stop(void); static void __exit siw_gcov_exit_module(void) { siw_gcov_stop(); siw_exit_module(); } module_exit(siw_gcov_exit_module);/' "$1/siw_main.c"
	[ "$(grep -c 'siw_gcov_\(init\|exit\)_module);$' "$1/siw_main.c")" = 2 ] ||
		die "siw_main.c of $SOURCE has no lines module_init(siw_init_module); and module_exit(siw_exit_module); to hook the coverage runtime to"
}
build_modules() {
	phash=$( { echo "$PATCHES"; for p in $PATCHES; do cat "$PATCHDIR/$p"; done; } | sha256sum | cut -d' ' -f1)
	need_stock=no
	need_patched=no
	[ -f "$SRC/siw.ko" ] || need_stock=yes
	[ -f "$PSRC/siw.ko" ] && [ "$(cat "$PSRC/.iwspec-patches" 2>/dev/null)" = "$phash" ] || need_patched=yes
	[ -f "$OUT/siw-patched.missing" ] && [ "$(cat "$OUT/siw-patched.phash" 2>/dev/null)" = "$phash" ] && need_patched=no
	covhash=$(cat "$COVDIR"/* | sha256sum | cut -d" " -f1)
	[ -f "$CSRC/siw.ko" ] && [ "$(cat "$CSRC/.iwspec-cov" 2>/dev/null)" = "$covhash" ] || need_stock=yes
	[ -f "$OUT/siw-patched.missing" ] || { [ -f "$PCSRC/siw.ko" ] && [ "$(cat "$PCSRC/.iwspec-cov" 2>/dev/null)" = "$covhash $phash" ]; } || need_patched=yes
	echo "$phash" >"$OUT/siw-patched.phash"
	[ $need_stock = yes ] || [ $need_patched = yes ] || return 0
	rm -rf "$OUT/src-tmp"
	mkdir -p "$OUT/src-tmp"
	tar -xJf "$SOURCE" -C "$OUT/src-tmp" "$KERNEL_SOURCE_PKG/drivers/infiniband/sw/siw"
	pristine=$OUT/src-tmp/$KERNEL_SOURCE_PKG/drivers/infiniband/sw/siw
	pid_stock=
	if [ $need_stock = yes ]; then
		say "building siw.ko and siw-cov.ko from $SOURCE against $HEADERS"
		rm -rf "$SRC" "$CSRC"
		cp -a "$pristine" "$SRC"
		cp -a "$pristine" "$CSRC"
		build_pair "$SRC" "$CSRC" "$OUT/siw-build.log" "$covhash" &
		pid_stock=$!
	fi
	pid_patched=
	if [ $need_patched = yes ]; then
		say "building siw-patched.ko and siw-patched-cov.ko (siw with$PATCHES)"
		rm -rf "$PSRC" "$PCSRC" "$OUT/siw-patched.missing"
		for p in $PATCHES; do
			patch -d "$OUT/src-tmp/$KERNEL_SOURCE_PKG" -p1 --fuzz=0 --forward --batch --no-backup-if-mismatch \
				<"$PATCHDIR/$p" >"$OUT/patch.log" 2>&1 || {
				# No siw-patched.ko on this kernel: the patched passes SKIP saying so, the
				# others run (a lab on another kernel can still test its siw).
				sed 's/^/guest:   /' "$OUT/patch.log"
				echo "$p does not apply to $SOURCE with --fuzz=0 (in the series' order)" >"$OUT/siw-patched.missing"
				say "no siw-patched.ko: $(cat "$OUT/siw-patched.missing")"
				break
			}
		done
		if [ ! -f "$OUT/siw-patched.missing" ]; then
			cp -a "$pristine" "$PCSRC"
			mv "$pristine" "$PSRC"
			build_pair "$PSRC" "$PCSRC" "$OUT/siw-patched-build.log" "$covhash $phash" &
			pid_patched=$!
		fi
	fi
	if [ -n "$pid_stock" ] && ! wait $pid_stock; then
		[ -z "$pid_patched" ] || wait $pid_patched
		tail -30 "$OUT/siw-build.log" >&2
		die "siw.ko or siw-cov.ko did not build (log: $OUT/siw-build.log)"
	fi
	if [ -n "$pid_patched" ]; then
		wait $pid_patched || {
			tail -30 "$OUT/siw-patched-build.log" >&2
			die "siw-patched.ko did not build (log: $OUT/siw-patched-build.log)"
		}
		! grep -q 'warning:' "$OUT/siw-patched-build.log" "$OUT/siw-patched-build.log.cov" ||
			die "siw-patched.ko or siw-patched-cov.ko built with warnings (logs: $OUT/siw-patched-build.log and its .cov)"
		echo "$phash" >"$PSRC/.iwspec-patches"
	fi
	rm -rf "$OUT/src-tmp"
}
build_modules >"$OUT/modules.out" 2>&1 &
modules_pid=$!

# 1. Packages, downloaded once into build/siw-guest/debs.
cd "$OUT/debs"
missing=""
for p in $GUEST_PACKAGES; do
	ls "${p}_"*.deb >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "apt-get download$missing"
	apt-get download $missing >"$OUT/download.log" 2>&1 || {
		cat "$OUT/download.log" >&2
		die "apt-get download failed (run apt-get update; is $KERNEL_DEB_VERSION still in the archive?)"
	}
fi
img=$(ls linux-image-"$KERNEL_ABI"-unsigned_*.deb)
ver=$(dpkg-deb -f "$img" Version)
[ "$ver" = "$KERNEL_DEB_VERSION" ] || die "the archive has linux-image-$KERNEL_ABI $ver, kernel.env pins $KERNEL_DEB_VERSION (update kernel.env)"

# 2. The root file system: every package unpacked, merged-/usr links, what the guest never
#    reads removed.
RFS=$OUT/rootfs
rm -rf "$RFS"
mkdir -p "$RFS"
for d in *.deb; do
	dpkg-deb -x "$d" "$RFS"
done
cd "$RFS"
for d in bin sbin lib lib64; do
	if [ -d "$d" ] && [ ! -L "$d" ]; then
		mkdir -p "usr/$d"
		cp -a "$d/." "usr/$d/"
		rm -rf "$d"
	fi
	mkdir -p "usr/$d"
	ln -s "usr/$d" "$d"
done
cp "boot/vmlinuz-$KERNEL_ABI" "$OUT/bzImage"
# The image's modules move out of the guest (it gets only the few it loads); the .deb has no
# modules.dep (depmod writes it at install time), so depmod writes one here.
rm -rf "$OUT/kmod"
mkdir -p "$OUT/kmod/lib/modules"
mv "usr/lib/modules/$KERNEL_ABI" "$OUT/kmod/lib/modules/"
depmod -b "$OUT/kmod" "$KERNEL_ABI" || die "depmod failed on the image's modules"
rm -rf boot usr/share/doc usr/share/man usr/share/locale usr/share/info usr/share/lintian usr/lib/modules
mkdir -p proc sys dev tmp run etc root usr/lib/modules

wait $modules_pid || { cat "$OUT/modules.out" >&2; exit 1; }
cat "$OUT/modules.out"
M=$OUT/kmod/lib/modules/$KERNEL_ABI
ref_vermagic=$(modinfo -F vermagic "$(find "$M" -name 'ib_core.ko*' | head -1)")
kos="$SRC/siw.ko $CSRC/siw.ko"
[ -f "$OUT/siw-patched.missing" ] || kos="$kos $PSRC/siw.ko $PCSRC/siw.ko"
for ko in $kos; do
	siw_vermagic=$(modinfo -F vermagic "$ko")
	[ "$siw_vermagic" = "$ref_vermagic" ] || die "$ko's vermagic '$siw_vermagic' differs from the image's '$ref_vermagic' (headers and image from different versions?)"
	case $siw_vermagic in "$KERNEL_ABI "*) ;; *) die "$ko's vermagic '$siw_vermagic' is not for $KERNEL_ABI" ;; esac
done

# 4. Modules, dependencies first (modules.dep), decompressed: busybox insmod reads plain ELF.
order=""
add_module() { # $1: path relative to the module directory
	case " $order " in *" $1 "*) return ;; esac
	for dep in $(grep "^$1:" "$M/modules.dep" | cut -d: -f2); do
		add_module "$dep"
	done
	order="$order $1"
}
for name in $GUEST_MODULES $(modinfo -F depends "$SRC/siw.ko" | tr ',' ' '); do
	path=$(grep -E "(^|/)$name\.ko(\.xz)?:" "$M/modules.dep" | cut -d: -f1 | head -1)
	if [ -z "$path" ]; then
		grep -qE "/$name\.ko" "$M/modules.builtin" && continue
		die "module $name is neither in the image's modules.dep nor built in"
	fi
	add_module "$path"
done
: >etc/iwspec-modules
for path in $order; do
	base=$(basename "$path")
	case $base in
	*.xz) xz -dc "$M/$path" >"usr/lib/modules/${base%.xz}"; base=${base%.xz} ;;
	*) cp "$M/$path" "usr/lib/modules/$base" ;;
	esac
	echo "$base" >>etc/iwspec-modules
done
# Without their debug information (5 MB each, which the guest never reads).
strip --strip-debug -o usr/lib/modules/siw.ko "$SRC/siw.ko"
strip --strip-debug -o usr/lib/modules/siw-cov.ko "$CSRC/siw.ko"
if [ -f "$OUT/siw-patched.missing" ]; then
	PATCHED_FINDINGS="nothing (no siw-patched.ko: $(cat "$OUT/siw-patched.missing"))"
else
	strip --strip-debug -o usr/lib/modules/siw-patched.ko "$PSRC/siw.ko"
	strip --strip-debug -o usr/lib/modules/siw-patched-cov.ko "$PCSRC/siw.ko"
	echo "$PATCH_DESC" >etc/iwspec-siw-patches
fi
echo siw.ko >>etc/iwspec-modules
echo "$siw_vermagic" >etc/iwspec-siw-vermagic
say "modules: $(tr '\n' ' ' <etc/iwspec-modules)"

# 5. The reflector and init.
if [ -n "$REFLECTOR" ]; then
	cp "$REFLECTOR" usr/bin/iwspec-reflector
else
	say "no --reflector: the guest will run siw and rping only"
fi
cp "$HERE/init" init
chmod 755 init
[ -x usr/bin/busybox ] || die "busybox-static did not unpack to /usr/bin/busybox"

# 6. Every program finds its libraries (a missing one would fail only at boot, in the guest).
libs=$( { find usr/lib/x86_64-linux-gnu usr/lib64 -name '*.so*'; } 2>/dev/null | xargs -n1 basename | sort -u)
bad=""
for f in usr/bin/rdma usr/bin/rping usr/bin/ib_send_bw usr/bin/ib_write_bw usr/bin/ib_read_bw usr/bin/ib_send_lat usr/bin/iwspec-reflector \
	usr/lib/x86_64-linux-gnu/libibverbs/*.so; do
	[ -e "$f" ] || continue
	for need in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
		echo "$libs" | grep -qx "$need" || bad="$bad $f:$need"
	done
done
[ -z "$bad" ] || die "libraries missing from the guest:$bad (add their packages to GUEST_PACKAGES in kernel.env)"
ls usr/lib/x86_64-linux-gnu/libibverbs/libsiw-*.so >/dev/null 2>&1 || die "siw's verbs provider (ibverbs-providers) is missing"

# 7. The initrd.
find . -print | cpio -o -H newc --quiet | gzip -1 >"$OUT/initrd.gz"
echo "$key" >"$OUT/stamp"
say "built in $(($(date +%s) - t0)) s: kernel $KERNEL_ABI ($KERNEL_DEB_VERSION), initrd $(du -k "$OUT/initrd.gz" | cut -f1) KiB, siw-patched.ko fixes $PATCHED_FINDINGS"
