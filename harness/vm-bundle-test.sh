#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make vm-bundle-test: the bundle (harness/vm-bundle.sh) booted here
# under TCG, as harness/device-kvm.sh boots it on a KVM machine: the
# demo on hdsim and on e1000e (64 MiB each, every byte validated), and
# one row of the connections table with the device run's CPU layout on
# 4 vCPUs (receiver, threaded NAPI and senders each on a CPU of their
# own). Part of `make check-full`; `make check` does not build the bundle.
. "$(dirname "$0")/lib.sh"

export VM_BUNDLE=$BUILD/vm-bundle DEVMEM_ACCEL=tcg
[ -x "$VM_BUNDLE/run-vm" ] || die "no bundle in $VM_BUNDLE (run: make vm-bundle)"
pass=0 fail=0
RESULTS=$LOGS/bundle-results	# PASS/FAIL lines, as the suite's
: > "$RESULTS"
result()
{
	if [ "$1" = 0 ]; then
		echo "ok: $2"
		printf 'PASS\t%s\n' "$2" >> "$RESULTS"
		pass=$((pass + 1))
	else
		echo "FAILED: $2 (log: $3)"
		printf 'FAIL\t%s (log: %s)\n' "$2" "$3" >> "$RESULTS"
		fail=$((fail + 1))
	fi
}

rc=0
DEMO_MIB=64 "$REPO/harness/demo.sh" > "$LOGS/bundle-demo.log" 2>&1 || rc=$?
result $rc "bundle: demo on hdsim" "$LOGS/bundle-demo.log"
rc=0
DEMO_MIB=64 DEMO_NIC=e1000e "$REPO/harness/demo.sh" > "$LOGS/bundle-demo-e1000e.log" 2>&1 || rc=$?
result $rc "bundle: demo on e1000e (driver loaded by the bundle's coldplug)" "$LOGS/bundle-demo-e1000e.log"
rc=0
VM_CPUS=4 BENCH_ONLY=scale BENCH_PLOT=0 BENCH_RX_CPU=1 BENCH_NAPI_CPU=2 BENCH_TX_CPUS=3 \
	BENCH_SCALE_REPS=1 BENCH_SCALE_CONNS=4 BENCH_MACHINE="TCG, 4 vCPUs" \
	BENCH_LAYOUT="receiver on CPU 1, threaded NAPI on CPU 2, senders on CPU 3" \
	"$REPO/harness/bench.sh" > "$LOGS/bundle-scale.log" 2>&1 || rc=$?
# every layout of the row, none failed
[ $rc = 0 ] && [ "$(grep -cE '^ +4 +(queue|rss4|bind4|uring|copy) ' "$LOGS/bundle-scale.log")" = 5 ] || rc=1
result $rc "bundle: 4 connections, 5 layouts, the device run's CPU layout" "$LOGS/bundle-scale.log"
echo "vm-bundle-test: $pass passed, $fail failed"
[ $fail = 0 ]
