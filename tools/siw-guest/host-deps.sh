#!/bin/sh
# Installs what building and booting the siw guest needs on a Debian host, when missing:
# qemu, the pinned kernel's headers and source (siw.ko is built from them), the other sources the
# patch series is checked against, patch (for siw-patched.ko), cpio, kmod, and rdma-core's
# development files for the reflector. Used by `make test`; needs root or sudo.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/kernel.env"
# Every source the patch series must apply to (tools/siw-series.sh), not only the guest's.
sources=
for k in $SIW_SERIES_KERNELS; do
	[ "linux-source-$k" = "$KERNEL_SOURCE_PKG" ] || sources="$sources linux-source-$k"
done
IWSPEC_PACKAGES="qemu-system-x86 linux-headers-$KERNEL_ABI $KERNEL_SOURCE_PKG$sources cpio kmod xz-utils gcc make patch binutils lcov \
librdmacm-dev libibverbs-dev iproute2" exec sh "$HERE/../install-deps.sh"
