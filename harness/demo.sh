#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The main job: boot the built kernel and run harness/guest-demo.sh in it.
# Exits non-zero if anything failed.
. "$(dirname "$0")/lib.sh"

# DEMO_NIC=e1000e: on QEMU's e1000e instead of hdsim
# DEMO_MEM=p2p: into a PCI BAR behind a PCIe switch (p2pbuf), received
# by the e1000e port under the same switch (harness/vm.sh, VM_P2P=1)
# DEMO_RX=zcrx: received through io_uring zero-copy receive
DEMO_NIC=${DEMO_NIC:-hdsim}
DEMO_RX=${DEMO_RX:-recvmsg}
DEMO_MIB=${DEMO_MIB:-256}
DEMO_MEM=${DEMO_MEM:-udmabuf}
if [ "$DEMO_MEM" = p2p ]; then
	DEMO_NIC=e1000e
	export VM_P2P=1
fi
mkdir -p "$LOGS"
release=$(cat "$OBJ/include/config/kernel.release" 2>/dev/null ||
	  sed -n 's/^kernel \([^ ]*\).*/\1/p' "${VM_BUNDLE:-/dev/null}/MANIFEST" 2>/dev/null || true)
say "booting $release in QEMU for the demo on $DEMO_NIC into $DEMO_MEM through $DEMO_RX ($DEMO_MIB MiB stream; under TCG this takes a few minutes)"
set +e
timeout --kill-after=15 "${VM_TIMEOUT:-1800}" "$REPO/harness/vm.sh" --exec \
	"env DEMO_NIC=$DEMO_NIC DEMO_MEM=$DEMO_MEM DEMO_RX=$DEMO_RX $REPO/harness/guest-demo.sh $KST $DEMO_MIB" > "$LOGS/demo-console.log" 2>&1
set -e
# the guest's own output, without the kernel console
sed -n '/^--- \(creating\|two e1000e\|device memory\)/,/^DEMO \(PASSED\|FAILED\)/p' "$LOGS/demo-console.log"
splats_in "$LOGS/demo-console.log" && exit 1
if grep -q '^DEMO PASSED' "$LOGS/demo-console.log"; then
	exit 0
fi
echo
echo "demo failed; full console log: $LOGS/demo-console.log"
tail -n 30 "$LOGS/demo-console.log"
exit 1
