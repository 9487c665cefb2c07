#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fleet's kernel: our series with the networking options of Debian
# 12's own 6.1 config built in (harness/fleet-config.sh), booted with the
# PCIe switch layout, running the tests of what a peer or a local
# feature can do to a devmem flow (harness/data/fleet-subset): the
# remote-peer items and the fuzzer with netfilter (log, queue, u32,
# conntrack), bridge with br_netfilter, Open vSwitch, tc, kTLS, ESP and
# MPTCP present, the reader audit, bindings, faults and error recovery.
#   fleet.sh		build the kernel (if FLEET_BUILT is not 1), run the
#			subset (make check-fleet; `make check` runs it last)
#   fleet.sh build	only the config and the kernel: `make check` runs
#			this in the background, at nice 19, after the debug
#			kernel's build
# The kselftests are the plain kernel's (`make tools`): the uapi is the
# same, and rebuilding them here would replace them under a running test.
export VARIANT=fleet
. "$(dirname "$0")/lib.sh"

H=$REPO/harness
mkdir -p "$LOGS"
if [ "${FLEET_BUILT:-0}" != 1 ] && { ! "$H/fleet-config.sh" || ! "$H/kernel.sh"; }; then
	printf 'FAIL\tfleet kernel build\n' > "$LOGS/results"
	exit 1
fi
[ "${1:-}" = build ] && exit 0
[ -d "$KST/drivers/net/devmem" ] || die "no kselftests in $KST (run: make tools)"
args=$(grep -v '^#' "$REPO/harness/data/fleet-subset" | sed 's/^/-t /' | xargs)
export VM_P2P=1
CHECK_LABEL="fleet kernel (Debian 12 networking options)" \
	KSELFTEST_ARGS="$args" DEVMEM_STREAMS=0 "$H/run-kselftests.sh"
