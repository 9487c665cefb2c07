#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The main job: stream TCP from a stock sender into a udmabuf through the
# header-split test NIC and validate every byte. Not built yet; this script
# says so instead of pretending.
. "$(dirname "$0")/lib.sh"

cat <<'MSG'
make demo: not available yet.

The demo needs pieces that do not exist in this tree yet:
  - the memory-provider core and the netdev netlink family (bind-rx)   issue 3
  - the header-split test NIC                                          issue 4
  - recvmsg(MSG_SOCK_DEVMEM) and SO_DEVMEM_DONTNEED                    issue 5
  - the ncdevmem tool and the demo script itself                       issue 6
See the status table in README.md. `make check` runs what exists today.
MSG
exit 1
