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
# Every line also goes, with the time it was read, to kselftest.times:
# written to the guest's tmpfs (a write per line to the shared log
# directory costs milliseconds under TCG and would make the stamps lag)
# by a bash loop (no fork per line, which costs seconds on a debug kernel).
./run_kselftest.sh "$@" 2>&1 | tee -a "$LOGS/kselftest.log" | {
	while IFS= read -r line; do
		printf '%s %s\n' "$EPOCHREALTIME" "$line"
	done > /tmp/kselftest.times
}
cp /tmp/kselftest.times "$LOGS/kselftest.times"
if [ -w $KMEMLEAK ]; then
	# An object must be unreferenced over two scans (and 5 s old) to be
	# reported; RCU-freed objects need a grace period first.
	sleep 6
	echo scan > $KMEMLEAK
	sleep 6
	echo scan > $KMEMLEAK
	cat $KMEMLEAK > "$LOGS/kmemleak.log"
fi
dmesg > "$LOGS/dmesg.log"
echo "GUEST_DONE uptime=$(cut -d' ' -f1 /proc/uptime)s"
