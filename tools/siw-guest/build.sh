#!/bin/sh
# Builds the siw guest from Debian packages only: build/siw-guest/bzImage and initrd.gz.
#
#   sh tools/siw-guest/build.sh [--reflector PATH]
#
# The kernel and its modules come from linux-image-$KERNEL_ABI-unsigned (kernel.env pins it),
# fetched with `apt-get download`; siw.ko is built out of tree from linux-source-6.1 against
# linux-headers-$KERNEL_ABI, and its vermagic must equal the image's. User space is busybox,
# iproute2 (`rdma`), rdma-core, ibverbs-providers (siw's provider), librdmacm1, rdmacm-utils
# (rping), and the reflector built on the host. The result is cached: a stamp holds a hash of
# every input, and a second run with the same inputs does nothing.
#
# Exit: 0 built (or cached), 1 failed (the message says what), 77 this host cannot build it.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/kernel.env"
OUT=$ROOT/build/siw-guest
REFLECTOR=
while [ $# -gt 0 ]; do
	case $1 in
	--reflector) REFLECTOR=$2; shift 2 ;;
	-h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "guest: unknown option '$1' (--reflector PATH)" >&2; exit 2 ;;
	esac
done
say() { echo "guest: $*"; }
die() { echo "guest: FAIL: $*" >&2; exit 1; }
cant() { echo "guest: cannot build here: $*" >&2; exit 77; }

HEADERS=/usr/src/linux-headers-$KERNEL_ABI
SOURCE=/usr/src/$KERNEL_SOURCE_PKG.tar.xz
for tool in apt-get dpkg-deb cpio gzip xz make gcc modinfo depmod readelf sha256sum; do
	command -v $tool >/dev/null 2>&1 || cant "$tool is missing (sh tools/siw-guest/host-deps.sh installs what the build needs)"
done
[ -d "$HEADERS" ] || cant "$HEADERS is missing (apt-get install linux-headers-$KERNEL_ABI)"
[ -f "$SOURCE" ] || cant "$SOURCE is missing (apt-get install $KERNEL_SOURCE_PKG)"
if [ -n "$REFLECTOR" ]; then
	[ -x "$REFLECTOR" ] || die "the reflector '$REFLECTOR' is not an executable (make reflector)"
	REFLECTOR=$(cd "$(dirname "$REFLECTOR")" && pwd)/$(basename "$REFLECTOR")
fi

# The cache key: everything that goes into the guest.
key=$( { cat "$HERE/kernel.env" "$HERE/build.sh" "$HERE/init"; [ -n "$REFLECTOR" ] && cat "$REFLECTOR"; \
	echo "reflector=${REFLECTOR:+yes}"; } | sha256sum | cut -d' ' -f1)
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$key" ] && [ -f "$OUT/initrd.gz" ] && [ -f "$OUT/bzImage" ]; then
	say "cached ($OUT, kernel $KERNEL_ABI${REFLECTOR:+, with the reflector})"
	exit 0
fi
t0=$(date +%s)
mkdir -p "$OUT/debs"
rm -f "$OUT/stamp"

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

# 3. siw.ko, built from the same source as the image, checked against it.
SRC=$OUT/siw-src
if [ ! -f "$SRC/siw.ko" ]; then
	rm -rf "$SRC" "$OUT/src-tmp"
	mkdir -p "$OUT/src-tmp"
	say "building siw.ko from $SOURCE against $HEADERS"
	tar -xJf "$SOURCE" -C "$OUT/src-tmp" "$KERNEL_SOURCE_PKG/drivers/infiniband/sw/siw"
	mv "$OUT/src-tmp/$KERNEL_SOURCE_PKG/drivers/infiniband/sw/siw" "$SRC"
	rm -rf "$OUT/src-tmp"
	make -C "$HEADERS" M="$SRC" CONFIG_RDMA_SIW=m modules >"$OUT/siw-build.log" 2>&1 || {
		tail -30 "$OUT/siw-build.log" >&2
		die "siw.ko did not build (log: $OUT/siw-build.log)"
	}
fi
M=$OUT/kmod/lib/modules/$KERNEL_ABI
ref_vermagic=$(modinfo -F vermagic "$(find "$M" -name 'ib_core.ko*' | head -1)")
siw_vermagic=$(modinfo -F vermagic "$SRC/siw.ko")
[ "$siw_vermagic" = "$ref_vermagic" ] || die "siw.ko's vermagic '$siw_vermagic' differs from the image's '$ref_vermagic' (headers and image from different versions?)"
case $siw_vermagic in "$KERNEL_ABI "*) ;; *) die "siw.ko's vermagic '$siw_vermagic' is not for $KERNEL_ABI" ;; esac

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
cp "$SRC/siw.ko" usr/lib/modules/siw.ko
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
for f in usr/bin/rdma usr/bin/rping usr/bin/iwspec-reflector usr/lib/x86_64-linux-gnu/libibverbs/*.so; do
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
say "built in $(($(date +%s) - t0)) s: kernel $KERNEL_ABI ($KERNEL_DEB_VERSION), initrd $(du -k "$OUT/initrd.gz" | cut -f1) KiB"
