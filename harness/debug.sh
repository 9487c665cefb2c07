#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The debug kernel (KASAN, lockdep, kmemleak...: config/debug.config):
# build it and its kselftests, boot it, run the tests.
#   debug.sh subset	the tests in harness/data/debug-subset (make check),
#			in two VMs side by side: build/logs-debug and
#			build/logs-debug-2 (DEBUG_VMS=1: one VM)
#   debug.sh all	the whole suite (make check-debug), the e1000e ports
#			behind the emulated IOMMU
#   debug.sh build	only build the kernel and its kselftests (make check
#			runs this in the background, at nice 19, while the
#			plain kernel's tests run; DEBUG_BUILT=1 then skips
#			the build in `debug.sh subset`)
# The 1 GiB streams are cut there: receive to DEVMEM_LONG_MIB (default
# 128), send to DEVMEM_TX_LONG_MIB (default 8; its lifetime cases are
# what the debug kernel is for); the fuzzer sends FUZZ_NL_MSGS (default
# 10,000 there, 100,000 on the plain kernel) netlink messages, the remote
# peer's fuzzer plays PEER_FUZZ_ROUNDS connections (1 there, 4 on the
# plain kernel). In the subset (C programs only: data/debug-subset says
# why), large_niov leaves the streams that only vary sizes,
# families and senders to the plain kernel (DEVMEM_STREAMS=0).
# It boots without udev (VM_UDEV=0, harness/vm.sh): about 85 s of its
# boot under TCG, and nothing in the suite needs it.
# lib.sh derives the object, kselftest and log paths from VARIANT
export VARIANT=debug
export VM_UDEV=${VM_UDEV:-0}
. "$(dirname "$0")/lib.sh"

H=$REPO/harness
mkdir -p "$LOGS"
if [ "${DEBUG_BUILT:-0}" != 1 ] && { ! "$H/kernel.sh" || ! "$H/tools.sh"; }; then
	printf 'FAIL\tdebug kernel build\n' > "$LOGS/results"
	exit 1
fi
[ "${1:-}" = build ] && exit 0
rm -rf "$LOGS-2"

run() { run_slow_kernel "$@"; }

if [ "${1:-subset}" != subset ]; then
	# the e1000e ports behind the emulated IOMMU, as in make check's
	# IOMMU run: DMA API debugging then checks e1000e_rx.sh's and
	# e1000e_tx.sh's hot-removes against the IOMMU's DMA ops
	export VM_IOMMU=${VM_IOMMU:-1}
	# the whole suite outlasts run-kselftests.sh's 90 minutes for the
	# debug kernel: beside other builds on 2 cores a run reached the 23rd
	# program (sample.sh) when it was cut there
	export VM_TIMEOUT=${VM_TIMEOUT:-14400}
	run "debug kernel" ""
	exit
fi
export DEVMEM_STREAMS=${DEVMEM_STREAMS:-0}
# -t arguments of the subset's tests, of VM <n> (all with one VM)
tests()
{
	awk -v vm="$1" '!/^#/ && NF && (vm == 0 || $2 == vm) {print "-t " $1}' \
		"$REPO/harness/data/debug-subset" | xargs
}
if [ "${DEBUG_VMS:-2}" = 1 ]; then
	run "debug kernel" "$(tests 0)"
	exit
fi
# One vCPU each (VM_CPUS): two VMs of two vCPUs on a 2-core host spend
# their time waiting for each other's vCPU threads (IPIs, RCU); the
# subset took 701 s with one, 876 s with two, with the same results.
# Lockdep and KASAN see the same code paths; concurrency between tasks
# and softirqs stays, parallelism across CPUs goes (make check-debug, the
# whole suite in one VM, keeps two).
export VM_CPUS=${VM_CPUS:-1}
# The second VM's output waits in its log while the first's is shown.
say "two debug VMs side by side, $VM_CPUS vCPU each; the second's results follow the first's (its log: $LOGS-2/run.log)"
mkdir -p "$LOGS-2"
LOGS_SUFFIX=-2 run "debug kernel, VM 2" "$(tests 2)" > "$LOGS-2/run.log" 2>&1 &
second=$!
rc=0
run "debug kernel, VM 1" "$(tests 1)" || rc=1
wait $second || rc=1
cat "$LOGS-2/run.log"
exit $rc
