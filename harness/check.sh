#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: host checks, the whole kselftest suite on the kernel
# (the series with Debian 12's networking options, modules where Debian
# has modules, hdsim, e1000e and p2pbuf as modules: harness/fleet-config.sh),
# then the lifetime and bad-input tests (harness/data/debug-subset) on the
# debug kernel, and one closing line for all. DEVMEM_DEBUG=0 skips the
# debug kernel; CHECK_FULL=1 (make check-full) or DEVMEM_SYSTEM=1 adds
# `make system-test`.
#
# On the kernel, the long streams (devmem_rx.sh, devmem_tx.sh,
# e1000e_tx.sh) are 128 MiB, to keep CI well inside its time;
# `make check-full` (CHECK_FULL=1) runs them at 1 GiB, DEVMEM_LONG_MIB and
# DEVMEM_TX_LONG_MIB set them. The debug kernel keeps its own defaults
# (harness/debug.sh).
. "$(dirname "$0")/lib.sh"

if [ "${CHECK_FULL:-0}" = 1 ]; then
	long=1024
else
	long=128
fi

H=$REPO/harness
rc=0
# Where the time goes, printed before the closing line: "<step> m:ss"
# for each step; before them, what make did ahead of this script (the
# archive, the tree, the kernel and the kselftests) when .ci/run set
# DEVMEM_T0.
times=()
t_mark=$(date +%s)
if [ -n "${DEVMEM_T0:-}" ]; then
	times+=("set-up and builds $(mmss $((t_mark - DEVMEM_T0)))")
fi
# took <step>: the time since the last mark, for the line of times
took()
{
	local now

	now=$(date +%s)
	times+=("$1 $(mmss $((now - t_mark)))")
	t_mark=$now
}
# Three builds run at nice 19 in the background, one after the other,
# while the host checks and the kernel's tests run (guests waiting on the
# wire leave CPU idle): the debug kernel (its kselftests are a copy of
# the plain kernel's: KST_FROM, harness/tools.sh), then the
# CONFIG_INET=n kernel and the kernel where only e1000e wants page_pool
# (the host checks build-noinet and build-e1000e-only; each is skipped
# when patches/configs.built records a build of the same inputs, so a
# fresh clone of committed work spends no time on them). Each leaves its
# exit status in build/bg-<name>.rc.
bg=$BUILD/bg
rm -f "$bg"-*.rc
(
	if [ "${DEVMEM_DEBUG:-1}" = 1 ]; then
		KST_FROM=$KST nice -n 19 "$H/debug.sh" build > "$bg-debug.out" 2>&1
		echo $? > "$bg-debug.rc"
	fi
	BUILD_RECORDED=skip nice -n 19 "$H/build-noinet.sh" > "$LOGS/build-noinet.log" 2>&1
	echo $? > "$bg-noinet.rc"
	BUILD_RECORDED=skip nice -n 19 "$H/build-e1000e-only.sh" > "$LOGS/build-e1000e-only.log" 2>&1
	echo $? > "$bg-e1000e-only.rc"
) &
bg_pid=$!
# bg_built <name>: wait for that background build, show its output on
# stderr, print 1 if it succeeded (else 0: the caller builds it again, in
# the foreground)
bg_built() {
	[ -f "$bg-$1.rc" ] || say "waiting for its background build" >&2
	while [ ! -f "$bg-$1.rc" ] && kill -0 "$bg_pid" 2>/dev/null; do
		sleep 5
	done
	if [ -f "$bg-$1.out" ]; then sed 's/^/    /' "$bg-$1.out" >&2; fi
	if [ "$(cat "$bg-$1.rc" 2>/dev/null)" = 0 ]; then echo 1; else echo 0; fi
}
say "background, at nice 19: the debug kernel's build, then build-noinet and build-e1000e-only (logs: $bg-debug.out, $LOGS/build-*.log)"
# The host checks run beside the kernel's suite too, at nice 10 (the
# series' git am and checkpatch are minutes of CPU that the guest leaves
# idle); their output and results follow the suite's.
rm -f "$LOGS/host-results" "$LOGS/host-results.bg"
say "host checks, beside the suite at nice 10 (their output follows it: $LOGS/host-checks.out)"
HOST_CHECKS_SKIP="build-noinet build-e1000e-only" HOST_RESULTS=$LOGS/host-results.bg \
	nice -n 10 "$H/host-checks.sh" > "$LOGS/host-checks.out" 2>&1 &
host_pid=$!
CHECK_LABEL="kernel $LOCALVERSION" DEVMEM_LONG_MIB=${DEVMEM_LONG_MIB:-$long} \
	DEVMEM_TX_LONG_MIB=${DEVMEM_TX_LONG_MIB:-$long} "$H/run-kselftests.sh" || rc=1
runs=("$BUILD/logs/results")
took "kernel's suite"
echo
wait "$host_pid" || true
cat "$LOGS/host-checks.out"
if grep -qs . "$LOGS/host-results.bg"; then
	cat "$LOGS/host-results.bg" >> "$BUILD/logs/results"
else
	printf 'FAIL\thost checks: no results (%s)\n' "$LOGS/host-checks.out" >> "$BUILD/logs/results"
fi
took "host checks after the suite"
echo
say "e1000e behind an emulated IOMMU: e1000e_rx.sh and e1000e_tx.sh again, the dmabufs mapped to IOVAs"
# the streams that only vary sizes and senders ran above (DEVMEM_STREAMS=0)
VARIANT=iommu DEVMEM_STREAMS=0 CHECK_LABEL="kernel $LOCALVERSION, e1000e behind an IOMMU" \
	DEVMEM_TX_LONG_MIB=64 KSELFTEST_ARGS="-t drivers/net/devmem:e1000e_rx.sh -t drivers/net/devmem:e1000e_tx.sh" \
	"$H/run-kselftests.sh" || rc=1
runs+=("$BUILD/logs-iommu/results")
took "IOMMU"
echo
say "device memory in a PCI BAR behind a PCIe switch: p2pbuf and p2p_rx.sh"
VARIANT=p2p CHECK_LABEL="kernel $LOCALVERSION, BAR memory behind a PCIe switch" \
	KSELFTEST_ARGS="-t drivers/net/devmem:p2pbuf -t drivers/net/devmem:p2p_rx.sh" \
	"$H/run-kselftests.sh" || rc=1
runs+=("$BUILD/logs-p2p/results")
took "P2P"

if [ "${DEVMEM_DEBUG:-1}" = 1 ]; then
	echo
	say "debug kernel (KASAN, lockdep, kmemleak): the subset in harness/data/debug-subset"
	built=$(bg_built debug)
	took "waiting for the debug kernel"
	DEBUG_BUILT=$built "$H/debug.sh" subset || rc=1
	took "debug subset"
	runs+=("$BUILD/logs-debug/results")
	[ -f "$BUILD/logs-debug-2/results" ] && runs+=("$BUILD/logs-debug-2/results")
fi

# A Debian 12 system booted from its own disk with our packages
# (harness/system-test.sh): `make check-full` runs it, or DEVMEM_SYSTEM=1.
# It builds the packages and downloads Debian 12: over CI's budget.
if [ "${DEVMEM_SYSTEM:-${CHECK_FULL:-0}}" = 1 ]; then
	echo
	say "a Debian 12 system from our packages (make system-test)"
	"$H/system-test.sh" || rc=1
	runs+=("$LOGS/system-results")
fi

# The VM bundle for a machine with /dev/kvm and no QEMU (make vm-bundle,
# harness/device-kvm.sh), booted here under TCG: `make check-full` only.
if [ "${CHECK_FULL:-0}" = 1 ]; then
	echo
	say "the VM bundle (make vm-bundle-test)"
	{ "$H/vm-bundle.sh" && "$H/vm-bundle-test.sh"; } || rc=1
	runs+=("$LOGS/bundle-results")
fi

# the background builds' results join the plain kernel's host checks
wait "$bg_pid"
took "waiting for the background builds"
for c in noinet e1000e-only; do
	if [ "$(cat "$bg-$c.rc" 2>/dev/null)" = 0 ]; then
		say "host check build-$c (background): $(tail -n 1 "$LOGS/build-$c.log")"
		printf 'PASS\thost/build-%s\n' "$c" >> "$BUILD/logs/results"
	else
		say "host check build-$c (background) failed:"
		sed 's/^/    /' "$LOGS/build-$c.log" | tail -n 40
		printf 'FAIL\thost/build-%s (log: %s)\n' "$c" "$LOGS/build-$c.log" >> "$BUILD/logs/results"
	fi
done

echo
if grep -qs '^FAIL' "${runs[@]}"; then
	echo "failed:"
	for f in "${runs[@]}"; do
		# (no match is no failure: pipefail would end the listing there)
		{ grep '^FAIL' "$f" 2>/dev/null || true; } |
			sed "s|^FAIL\t|  $(basename "$(dirname "$f")"): |"
	done
	rc=1
fi
grep -qs '^PASS' "${runs[@]}" || rc=1
(IFS=,; echo "time: ${times[*]}") | sed 's/,/, /g'
summary "${runs[@]}"
exit $rc
