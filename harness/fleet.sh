#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fleet's kernel: our series with the networking options of Debian
# 12's own 6.1 config, modules where Debian has modules, and the series'
# drivers as modules (harness/fleet-config.sh), booted with the
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

# Host check on the modular build: modpost resolved every symbol the
# series' modules take (an unexported one, a GPL-only one in a non-GPL
# module or one of a namespace not imported fails the build), and each
# module imports the namespaces it uses.
modpost_check() {
	local ko ns

	grep -E 'modpost: .*(undefined|namespace|GPL)' "$LOGS/kernel-build.log" && return 1
	for ko in drivers/net/hdsim/hdsim.ko:NETDEV_INTERNAL \
		  drivers/net/ethernet/intel/e1000e/e1000e.ko:NETDEV_INTERNAL \
		  drivers/dma-buf/p2pbuf.ko:DMA_BUF; do
		ns=${ko#*:}; ko=$OBJ/${ko%%:*}
		[ -f "$ko" ] || { echo "$ko was not built as a module"; return 1; }
		/sbin/modinfo -F import_ns "$ko" | grep -qx "$ns" ||
			{ echo "$ko does not import $ns"; return 1; }
	done
	echo "$(wc -l < "$OBJ/modules.order") modules; hdsim, e1000e and p2pbuf link against exported symbols of the namespaces they import"
}
mkdir -p "$LOGS"
if modpost_check > "$LOGS/modpost.log" 2>&1; then
	printf 'PASS\thost/modpost (fleet kernel)\n' > "$LOGS/host-results"
else
	printf 'FAIL\thost/modpost (fleet kernel; log: %s)\n' "$LOGS/modpost.log" > "$LOGS/host-results"
fi
say "host check modpost: $(tail -n 1 "$LOGS/modpost.log")"
[ -d "$KST/drivers/net/devmem" ] || die "no kselftests in $KST (run: make tools)"
args=$(grep -v '^#' "$REPO/harness/data/fleet-subset" | sed 's/^/-t /' | xargs)
export VM_P2P=1
CHECK_LABEL="fleet kernel (Debian 12 networking options, modules)" \
	KSELFTEST_ARGS="$args" DEVMEM_STREAMS=0 "$H/run-kselftests.sh"
