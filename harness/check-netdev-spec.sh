#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The netdev family spec, its uapi header and the kernel policies agree:
# every attribute and command value in the spec compiles to the same value
# in include/uapi/linux/netdev.h, and every operation's request attributes
# are exactly the attributes of its policy in net/core/netdev-genl.c. The
# same for our own devmem-stats family (include/uapi/linux/devmem_stats.h,
# net/core/devmem_stats.c).
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 "$REPO/harness/check-netdev-spec.py" "$REPO" netdev &&
	exec /usr/bin/python3 "$REPO/harness/check-netdev-spec.py" "$REPO" devmem-stats
