#!/bin/sh
# Installs the Debian packages iwspec's build and tests need, when they are missing.
# Used by `make run` and `make test` (tools/siw-guest/host-deps.sh names other packages through
# IWSPEC_PACKAGES). Needs root (or sudo) only when something is missing; without either it names
# the missing packages and the command that installs them, and fails.
set -e
need=""
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in ${IWSPEC_PACKAGES:-gcc make clang libclang-rt-dev libjansson-dev libpcap-dev libisal-dev libxml2-utils tshark libjson-validator-perl chromium librdmacm-dev libibverbs-dev jq time iproute2 zip unzip libdbus-1-dev help2man man-db debhelper lintian fakeroot}; do
	have "$pkg" || need="$need $pkg"
done
[ -z "$need" ] && exit 0
echo "iwspec: installing missing packages:$need"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "iwspec: cannot install them: not root and no sudo; as root: apt-get install$need" >&2
		exit 1
	fi
	SUDO="sudo"
fi
$SUDO apt-get update -qq
# tshark (the Wireshark cross-check of the vector captures) pulls in wireshark-common, which
# asks whether non-root users may capture: answer no beforehand so nothing prompts.
if command -v debconf-set-selections >/dev/null 2>&1; then
	echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
fi
# chromium is for one test only: tests/cli/report.sh opens report.html headless, with no network
# (about 20 s to install on a fresh machine; the test says SKIP without it).
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need
