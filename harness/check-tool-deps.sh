#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# No circle among the files of our tools (harness/check-tool-deps.py):
# devmemctl, and the netlink, ethtool and PCI code it shares with the
# selftests. Needs the uAPI headers make tools installs.
. "$(dirname "$0")/lib.sh"

[ -d "$BUILD/headers/include" ] || die "no uAPI headers in $BUILD/headers (run: make tools)"
cd "$REPO" && python3 harness/check-tool-deps.py "$BUILD/headers/include" \
	tools/net/devmemctl tools/net/lib
