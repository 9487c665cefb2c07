#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM: the installed kselftests, then saves the kernel log.
# usage: guest-run.sh <kselftest dir> <log dir> [run_kselftest.sh args]
KST=$1
LOGS=$2
shift 2

echo "GUEST_START uptime=$(cut -d' ' -f1 /proc/uptime)s $(uname -r)"
date +%s.%N > "$LOGS/guest-start"
# which kernel booted, for run-kselftests.sh to compare with the build
{ uname -r; cat /proc/version; } > "$LOGS/guest-kernel"
export PATH=$PATH:/usr/sbin:/sbin
# A modular kernel (the fleet's): udev has loaded e1000e and p2pbuf for
# their PCI ids by now; hdsim has no device to be loaded for, so it is
# loaded as a user would, by modprobe. Everything else
# (netfilter, bridge, openvswitch, esp, tls, veth, sch_*) is loaded on
# demand by the tools and the kernel. The log says who loaded what.
if [ -f /proc/modules ]; then
	command -v udevadm > /dev/null && udevadm settle --timeout=30
	echo "modules at start (udev): $(cut -d' ' -f1 /proc/modules | sort | xargs)"
	modprobe hdsim || echo "modprobe hdsim failed"
fi
cd "$KST" || exit 1
# The runner reopens /dev/stdout for nested output; the guest init may
# point it at the console, so point it back at our stdout: a real file.
[ "$(readlink /dev/stdout)" = /proc/self/fd/1 ] || ln -sf /proc/self/fd/1 /dev/stdout
: > "$LOGS/kselftest.log"
# Debug kernels: forget what boot allocated, so that only leaks made while
# the tests ran are reported.
KMEMLEAK=/sys/kernel/debug/kmemleak
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[ -w $KMEMLEAK ] && echo clear > $KMEMLEAK
./run_kselftest.sh "$@" >> "$LOGS/kselftest.log" 2>&1
if [ -w $KMEMLEAK ]; then
	# An object must be unreferenced over two scans (and 5 s old) to be
	# reported; RCU-freed objects need a grace period first.
	sleep 6
	echo scan > $KMEMLEAK
	sleep 6
	echo scan > $KMEMLEAK
	cat $KMEMLEAK > "$LOGS/kmemleak.log"
fi
# KCSAN kernels: its counters (watchpoints set up, races found) show
# that it watched at all; harness/kcsan-report.py reads them
[ -r /sys/kernel/debug/kcsan ] && cat /sys/kernel/debug/kcsan > "$LOGS/kcsan-stats.log"
dmesg > "$LOGS/dmesg.log"
[ -f /proc/modules ] && cut -d' ' -f1 /proc/modules | sort > "$LOGS/modules.txt"
echo "GUEST_DONE uptime=$(cut -d' ' -f1 /proc/uptime)s"
