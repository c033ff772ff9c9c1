#!/bin/sh
# Debian packages two test suites use, installed when missing:
#   tshark    Wireshark's TCP analysis of the simulator's pcap files
#   chromium  headless rendering of the HTML report
# Idempotent and non-interactive (CI runs `make test` as root on a fresh
# Debian machine). Where they cannot be installed (not root, no apt-get,
# no network) it says so and succeeds: the tests that need a missing tool
# are then skipped with that reason.
set -u
missing=""
command -v tshark >/dev/null 2>&1 || missing="$missing tshark"
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != "0" ]; then
    echo "test-tools: not root, not installing:$missing (tests needing them will be skipped)"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "test-tools: no apt-get, not installing:$missing (tests needing them will be skipped)"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# tshark's package asks whether users may capture packets: they need not
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null
apt="apt-get -q -o DPkg::Lock::Timeout=600"
echo "test-tools: installing:$missing"
# shellcheck disable=SC2086  # $missing is a list of package names
if $apt update >/dev/null && $apt install -y --no-install-recommends $missing fonts-dejavu-core >/dev/null; then
    echo "test-tools: installed:$missing"
else
    echo "test-tools: could not install:$missing (tests needing them will be skipped)"
fi
exit 0
