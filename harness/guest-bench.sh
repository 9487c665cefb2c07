#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM: bind cost for dmabufs of several sizes, a few runs
# each. usage: guest-bench.sh <kselftest dir> <out csv>
KST=$1
CSV=$2
BIN=$KST/drivers/net/devmem/ncdevmem
REPS=5
export PATH=$PATH:/usr/sbin:/sbin

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
echo "8 4" > /sys/bus/hdsim/new_device || exit 1
IF=$(basename "$(ls -d /sys/bus/hdsim/devices/hdsim8/net/* | head -n1)")
ip link set "$IF" up

echo "size_mib,run,niovs,kernel_bind_us,netlink_bind_us,mem_bytes,bytes_per_niov" > "$CSV"
for mib in 64 256 1024; do
	for run in $(seq $REPS); do
		out=$("$BIN" -f "$IF" --bind-only --size $((mib << 20))) || {
			echo "bind of $mib MiB failed"; exit 1; }
		echo "$out" | sed -n 's/^bind size_bytes=[0-9]* niovs=\([0-9]*\) kernel_bind_us=\([0-9]*\) netlink_bind_us=\([0-9]*\) mem_bytes=\([0-9]*\) bytes_per_niov=\([0-9.]*\)$/'"$mib,$run"',\1,\2,\3,\4,\5/p' >> "$CSV"
		sleep 0.5
	done
done
echo "BENCH DONE"
