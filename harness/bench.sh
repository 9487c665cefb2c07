#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what exists of the benchmark (issue 7). Today: the cost of
# binding 64 MiB, 256 MiB and 1 GiB dmabufs (time, kernel memory per
# 4 KiB net_iov), 5 runs each, median and spread, as a table and a CSV in
# build/bench/. Receive CPU devmem-vs-copy and DONTNEED cost per batch
# size are not measured yet.
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/bench
mkdir -p "$OUT" "$LOGS"
rm -f "$OUT/bind.csv"
say "booting the VM for the bind benchmark (udmabuf.size_limit_mb=1100)"
VM_APPEND="udmabuf.size_limit_mb=1100" timeout --kill-after=15 900 \
	"$REPO/harness/vm.sh" --exec \
	"$REPO/harness/guest-bench.sh $KST $LOGS/bind.csv" > "$LOGS/bench-console.log" 2>&1
grep -q "^BENCH DONE" "$LOGS/bench-console.log" ||
	{ tail -n 20 "$LOGS/bench-console.log"; die "benchmark run failed"; }
cp "$LOGS/bind.csv" "$OUT/bind.csv"

/usr/bin/python3 - "$OUT/bind.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"{'dmabuf':>8} {'niovs':>8} {'bind ms (median)':>17} {'min..max ms':>14} {'B/net_iov':>10}  goal: <= 100 ms, <= 40 B")
for size in sorted({int(r['size_mib']) for r in rows}):
    rs = [r for r in rows if int(r['size_mib']) == size]
    ms = [int(r['kernel_bind_us']) / 1000 for r in rs]
    print(f"{size:>6}MiB {rs[0]['niovs']:>8} {statistics.median(ms):>17.1f} "
          f"{min(ms):>6.1f}..{max(ms):<6.1f} {float(rs[0]['bytes_per_niov']):>10.1f}")
PY
say "CSV: $OUT/bind.csv (kernel_bind_us from debugfs: dma_buf_get to id; netlink_bind_us: whole bind-rx incl. queue restart)"
