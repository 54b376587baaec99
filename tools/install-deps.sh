#!/bin/sh
# Installs the Debian packages iwspec's build and tests need, when they are missing.
# Used by `make run` and by .ci/run. Needs root (or sudo) only when something is missing.
set -e
need=""
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in ${IWSPEC_PACKAGES:-gcc make clang libjansson-dev libpcap-dev libisal-dev libxml2-utils}; do
	have "$pkg" || need="$need $pkg"
done
[ -z "$need" ] && exit 0
echo "iwspec: installing missing packages:$need"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need
