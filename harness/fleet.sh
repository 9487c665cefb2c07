#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fleet's kernel: our series with the networking options of Debian
# 12's own 6.1 config built in (harness/fleet-config.sh), booted with the
# PCIe switch layout, running the tests of what a peer or a local
# feature can do to a devmem flow (harness/data/fleet-subset): the
# remote-peer items and the fuzzer with netfilter, conntrack, tc, kTLS
# and MPTCP present, the reader audit, bindings, faults and error
# recovery. `make check-fleet`; not part of `make check` (a second cold
# kernel build of about 25 minutes on two cores).
export VARIANT=fleet
. "$(dirname "$0")/lib.sh"

H=$REPO/harness
mkdir -p "$LOGS"
if ! "$H/fleet-config.sh" || ! "$H/kernel.sh" || ! "$H/tools.sh"; then
	printf 'FAIL\tfleet kernel build\n' > "$LOGS/results"
	exit 1
fi
args=$(grep -v '^#' "$REPO/harness/data/fleet-subset" | sed 's/^/-t /' | xargs)
export VM_P2P=1
CHECK_LABEL="fleet kernel (Debian 12 networking options)" \
	KSELFTEST_ARGS="$args" DEVMEM_STREAMS=0 "$H/run-kselftests.sh"
