#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# On a lent machine with /dev/kvm and no QEMU (the device tool's; see
# bench/README.md "KVM"): the demo and the benchmark in the VM bundle
# (make vm-bundle, carried as build/vm-bundle with build/kselftest),
# under KVM, the guest on KVM_CPUS vCPUs laid out so that no two sides
# share one: the receivers on CPU 1, hdsim's NAPI (threaded) on CPU 2,
# the senders spread over CPUs 3 and up; CPU 0 keeps the rest.
#   harness/device-kvm.sh [step...]   steps: demo scale rx e1000e paths
#                                      large demo-e1000e (default: all,
#                                      in that order, most wanted first)
# Each step's output goes to $RESULTS/<step>.log (default build/device,
# the device tool's $OUT where set), then the CSVs and console logs to
# $RESULTS/results.tar.gz, refreshed after every step: a run cut short
# still brings back what finished.
. "$(dirname "$0")/lib.sh"
set +e

RESULTS=${RESULTS:-${OUT:-$BUILD/device}}
mkdir -p "$RESULTS"
export VM_BUNDLE=${VM_BUNDLE:-$BUILD/vm-bundle}
[ -x "$VM_BUNDLE/run-vm" ] || die "no VM bundle in $VM_BUNDLE (make vm-bundle here, carry it there)"
[ -d "$KST" ] || die "no kselftests in $KST (carry build/kselftest)"
cpus=${KVM_CPUS:-10}
[ "$cpus" -ge 4 ] || die "KVM_CPUS: 4 or more"
export VM_CPUS=$cpus BENCH_PLOT=0
export BENCH_RX_CPU=1 BENCH_NAPI_CPU=2
BENCH_TX_CPUS=$(seq -s, 3 $((cpus - 1)))
export BENCH_TX_CPUS
export BENCH_LAYOUT="receivers on CPU 1, hdsim's NAPI threaded on CPU 2, senders on CPUs 3-$((cpus - 1))"
host="$(nproc)-CPU host ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1), $(uname -r))"

steps=${*:-demo scale rx e1000e paths large demo-e1000e}
# KVM or TCG, decided once (vm.sh's probe boots the bundle with KVM)
"$REPO/harness/vm.sh" --exec true > "$RESULTS/probe.log" 2>&1
accel=$(sed -n 's/.*VM bundle [^:]*: \([a-z]*\),.*/\1/p' "$RESULTS/probe.log" | head -n1)
export DEVMEM_ACCEL=${accel:-tcg}
export BENCH_MACHINE="${DEVMEM_ACCEL^^}, $cpus vCPUs on a $host"
{
	echo "device-kvm: $(date -u +%FT%TZ) on $host"
	echo "bundle: $(head -n2 "$VM_BUNDLE/MANIFEST" | tr '\n' ' ')"
	echo "guest: $DEVMEM_ACCEL, $cpus vCPUs; $BENCH_LAYOUT"
	[ "$DEVMEM_ACCEL" = kvm ] || { echo "KVM probe failed:"; tail -n 5 "$LOGS/kvm-probe.log"; }
} | tee "$RESULTS/summary.txt"

collect()
{
	tar -czf "$RESULTS/results.tar.gz" -C "$BUILD" bench \
		$(cd "$BUILD" && ls logs/*console*.log logs/kvm-probe.log logs/bundle-*.log 2>/dev/null) 2>/dev/null
}

for step in $steps; do
	start=$(date +%s)
	case $step in
	demo) cmd=(env DEMO_MIB=1024 "$REPO/harness/demo.sh") ;;
	demo-e1000e) cmd=(env DEMO_NIC=e1000e DEMO_MIB=1024 "$REPO/harness/demo.sh") ;;
	scale|rx|e1000e|paths) cmd=(env BENCH_ONLY=$step "$REPO/harness/bench.sh") ;;
	large) cmd=(env BENCH_ONLY=large "$REPO/harness/bench.sh") ;;
	*) echo "device-kvm: no step $step"; continue ;;
	esac
	"${cmd[@]}" > "$RESULTS/$step.log" 2>&1
	printf '%-12s rc %d, %4d s\n' "$step" $? $(($(date +%s) - start)) |
		tee -a "$RESULTS/summary.txt"
	collect
done
echo "device-kvm: done $(date -u +%FT%TZ)" | tee -a "$RESULTS/summary.txt"
