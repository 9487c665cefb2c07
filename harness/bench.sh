#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: boots the kernel once and runs harness/guest-bench.sh in it:
# the cost of binding 64 MiB, 256 MiB and 1 GiB dmabufs (time, kernel
# memory per 4 KiB net_iov; 5 runs each, median and spread); receiver CPU
# per GiB and goodput, devmem vs plain recv() of the same stream (A/B
# interleaved, 3 runs each at 4 KiB, 64 KiB and 1 MiB reads); syscalls,
# cmsgs and CPU-copied payload bytes per GiB (devmem: counted by the
# kernel's tracepoints through devmemstat); SO_DEVMEM_DONTNEED cost per
# token by batch size; the same receive on e1000e; large net_iovs with
# and without hdsim's packing, connections on one binding, bind cost of
# 1 and 4 GiB by net_iov size. Tables here, CSVs and a PNG plot in
# build/bench/.
# Method and figures: bench/README.md.
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/bench
# The guest's CPU layout (harness/guest-bench.sh) and how the tables
# describe the machine; the defaults are TCG's two vCPUs.
# harness/device-kvm.sh sets them for a KVM guest with more vCPUs.
GUEST_ENV="BENCH_RX_CPU=${BENCH_RX_CPU:-1} BENCH_TX_CPUS=${BENCH_TX_CPUS:-0} BENCH_NAPI_CPU=${BENCH_NAPI_CPU:-}"
GUEST_ENV+=" BENCH_SCALE_REPS=${BENCH_SCALE_REPS:-3} BENCH_SCALE_CONNS=${BENCH_SCALE_CONNS:-1,4,16,64}"
GUEST_ENV+=" BENCH_E1000E_REPS=${BENCH_E1000E_REPS:-5}"
export BENCH_MACHINE=${BENCH_MACHINE:-TCG}
export BENCH_LAYOUT=${BENCH_LAYOUT:-"receiver pinned to CPU 1, sender and hdsim's NAPI to CPU 0"}
# the tables need Python's standard library only: the system's, or the
# first on PATH where there is no /usr/bin/python3
PY3=/usr/bin/python3
[ -x "$PY3" ] || PY3=python3
mkdir -p "$OUT" "$LOGS"
FAILED=
# Under TCG, the same runs count instructions per vCPU with our TCG
# plugin (harness/tcg-count.sh): the receiver's vCPU and the others
# (sender, NAPI), kernel and user, per GiB beside the times. On e1000e,
# whose device model writes the payload by DMA, the plugin also counts
# the bytes the CPU loads from and stores to the pages the payload lands
# in (TCG_MEM=1; the memory callbacks slow a run several times, so the
# hdsim parts run with mem=off).
TCG_MEM_OPTS=
if [ "$(cat "$BUILD/accel" 2>/dev/null || echo tcg)" = tcg ] &&
   opts=$("$REPO/harness/tcg-count.sh" opts "$LOGS/tcg.ctl" "$LOGS/tcg.out"); then
	export VM_QEMU_OPTS="$opts,mem=off"
	TCG_MEM_OPTS=$opts
	rm -rf "$LOGS/tcg-attr"
	mkdir -p "$LOGS/tcg-attr"
	GUEST_ENV+=" TCG_CTL=$LOGS/tcg.ctl TCG_OUT=$LOGS/tcg.out TCG_ATTR=$LOGS/tcg-attr"
	: > "$LOGS/tcg.out"
else
	warn "no TCG plugin (make tools builds it; KVM runs have none): times without instruction counts"
fi

# part_failed <part> <console log>: say why a part did not finish (the
# guest script's own message, a kernel splat, or the end of the log),
# run the other parts, and fail at the end
part_failed()
{
	local why

	why=$(grep -aE '^(bench: |tx-bench |bind of |parallel run |[a-z0-9 ]*failed)' "$2" | tail -n 3)
	splats_in "$2" && why="the kernel reported problems (see $2)${why:+; $why}"
	[ -n "$why" ] || why=$(tail -n 5 "$2")
	printf '\n!!! FAILED: the %s benchmark: %s\n(console: %s)\n\n' "$1" "$why" "$2" >&2
	FAILED="$FAILED $1"
}
# BENCH_ONLY=rx, large or e1000e: that part alone (rx: bind and receive
# on hdsim, DONTNEED by batch; the others take ~4 min);
# scale: only the large part's connections table; paths: only its
# receive paths at MTU 1500 (recvmsg, io_uring and zcrx against copy,
# and a zcrx queue two rings share against one ring)
ONLY=${BENCH_ONLY:-all}
if [ "$ONLY" = all ] || [ "$ONLY" = rx ]; then
rm -f "$OUT/bind.csv"
say "booting the VM for the bind benchmark (udmabuf.size_limit_mb=1100)"
VM_APPEND="udmabuf.size_limit_mb=1100" timeout --kill-after=15 900 \
	"$REPO/harness/vm.sh" --exec \
	"env $GUEST_ENV $REPO/harness/guest-bench.sh $KST $LOGS/bind.csv $LOGS/rx.csv" \
	> "$LOGS/bench-console.log" 2>&1
splats_in "$LOGS/bench-console.log" && die "the kernel reported problems during the bench"
grep -q "^BENCH DONE" "$LOGS/bench-console.log" ||
	{ tail -n 20 "$LOGS/bench-console.log"; die "benchmark run failed"; }
cp "$LOGS/bind.csv" "$LOGS/rx.csv" "$OUT/"

"$PY3" - "$OUT/bind.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"{'dmabuf':>8} {'niovs':>8} {'bind ms (median)':>17} {'min..max ms':>14} {'B/net_iov':>10}  goal: <= 100 ms, <= 40 B")
for size in sorted({int(r['size_mib']) for r in rows}):
    rs = [r for r in rows if int(r['size_mib']) == size]
    ms = [int(r['netlink_bind_us']) / 1000 for r in rs]
    print(f"{size:>6}MiB {rs[0]['niovs']:>8} {statistics.median(ms):>17.1f} "
          f"{min(ms):>6.1f}..{max(ms):<6.1f} {float(rs[0]['bytes_per_niov']):>10.1f}")
PY

"$PY3" - "$OUT/rx.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def per_gib(r):
    return float(r['cpu_s']) / (int(r['bytes']) / 2**30)
def gput(r):
    return int(r['bytes']) / 1e6 / float(r['time_s'])
print()
import os
print(f"receive, same sender/NIC/stream (64 MiB), {os.environ['BENCH_MACHINE']}: receiver thread CPU s per GiB")
print(f"({os.environ['BENCH_LAYOUT']}) and goodput; medians of 3 interleaved runs")
print(f"{'read size':>10} {'devmem cpu/GiB':>15} {'copy cpu/GiB':>13} {'ratio':>6} {'devmem MB/s':>12} {'copy MB/s':>10} {'runs':>5}")
for rs in sorted({int(r['read_size']) for r in rows}):
    d = [r for r in rows if r['mode'] == 'devmem' and int(r['read_size']) == rs and r['dontneed_batch'] == '1024']
    c = [r for r in rows if r['mode'] == 'copy' and int(r['read_size']) == rs]
    if not d or not c:
        continue
    dc = statistics.median(per_gib(r) for r in d)
    cc = statistics.median(per_gib(r) for r in c)
    dg = statistics.median(gput(r) for r in d)
    cg = statistics.median(gput(r) for r in c)
    dr = sorted(per_gib(r) for r in d)
    cr = sorted(per_gib(r) for r in c)
    print(f"{rs:>10} {dc:>15.2f} {cc:>13.2f} {dc / cc:>6.2f} {dg:>12.1f} {cg:>10.1f} {len(d):>5}"
          f"   spread devmem {dr[0]:.2f}..{dr[-1]:.2f}, copy {cr[0]:.2f}..{cr[-1]:.2f}")
print()
print("speed-independent counts per GiB received (medians; syscalls = recv/recvmsg + DONTNEED)")
print(f"{'read size':>10} {'mode':>7} {'syscalls':>10} {'cmsgs':>10} {'CPU-copied payload bytes':>25}")
for rs in sorted({int(r['read_size']) for r in rows}):
    for mode in ('devmem', 'copy'):
        m = [r for r in rows if r['mode'] == mode and int(r['read_size']) == rs and r['dontneed_batch'] in ('0', '1024')]
        if not m:
            continue
        gib = lambda r: int(r['bytes']) / 2**30
        sc = statistics.median((int(r['recv_calls']) + int(r['dontneed_calls'])) / gib(r) for r in m)
        cm = statistics.median(int(r['frags']) / gib(r) for r in m)
        cp = statistics.median(int(r['cpu_copied_bytes']) / gib(r) for r in m)
        print(f"{rs:>10} {mode:>7} {sc:>10.0f} {cm:>10.0f} {cp:>25.0f}")
print()
print("SO_DEVMEM_DONTNEED cost per token (64 KiB reads)")
for r in rows:
    if r['mode'] == 'devmem' and r['read_size'] == '65536' and r['dontneed_batch'] in ('1', '8', '32', '128'):
        mib = int(r['bytes']) / 2**20
        print(f"  batch {r['dontneed_batch']:>4} tokens: {int(r['dontneed_ns_per_token']):>6} ns/token, "
              f"{int(r['dontneed_calls']) / mib:.1f} calls/MiB")
d = [r for r in rows if r['mode'] == 'devmem' and r['dontneed_batch'] == '1024' and r['read_size'] == '65536']
print(f"  default (up to 1024): {statistics.median(int(r['dontneed_ns_per_token']) for r in d)} ns/token, "
      f"{statistics.median(int(r['dontneed_calls']) / (int(r['bytes']) / 2**20) for r in d):.2f} calls/MiB")
PY
say "CSV: $OUT/bind.csv (netlink_bind_us: the whole bind-rx request, queue restart included; mem_bytes from debugfs devmem/binding_mem)"
fi

if [ "$ONLY" = all ] || [ "$ONLY" = e1000e ]; then
# The same receive on a real driver: e1000e on QEMU's 82574L model, whose
# device model writes the payload into the dmabuf itself (hdsim's "DMA"
# is a memcpy the guest pays for). The CPU figures to quote first.
say "booting the VM for the e1000e benchmark (receive: 64 MiB streams, MTU 1500 and 9000; send: devmem, MSG_ZEROCOPY, send())"
rm -f "$LOGS/rx-e1000e.csv"
if NIC=e1000e VM_QEMU_OPTS=${TCG_MEM_OPTS:-${VM_QEMU_OPTS:-}} \
   timeout --kill-after=15 2400 "$REPO/harness/vm.sh" --exec \
	"env NIC=e1000e TCG_MEM=$([ -n "$TCG_MEM_OPTS" ] && echo 1 || echo 0) env $GUEST_ENV $REPO/harness/guest-bench.sh $KST $LOGS/bind-e1000e.csv $LOGS/rx-e1000e.csv" \
	> "$LOGS/bench-e1000e-console.log" 2>&1 &&
   ! splats_in "$LOGS/bench-e1000e-console.log" &&
   grep -q "^BENCH DONE" "$LOGS/bench-e1000e-console.log"; then
	cp "$LOGS/rx-e1000e.csv" "$OUT/"
	"$PY3" - "$OUT/rx-e1000e.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
gib = lambda r: int(r['bytes']) / 2**30
print()
print("e1000e (QEMU 82574L, packet split, device model writes the payload): 64 MiB streams, 64 KiB reads,")
print("sender TSO off (QEMU 7.2 sends TSO frames as IP fragments, see e1000e_env.sh), net_iovs of 4 KiB")
print("and the large ones e1000e takes (8, 32 KiB); receiver thread CPU s per GiB, goodput, syscalls and")
print("cmsgs per GiB; ratio = devmem CPU / copy CPU at the same MTU; medians of 5 interleaved runs")
print("goal: devmem receiver CPU <= 0.5x copy's at MTU 9000 with the largest net_iov")
print(f"{'MTU':>5} {'net_iov':>8} {'devmem cpu/GiB':>15} {'copy cpu/GiB':>13} {'ratio':>6} {'devmem MB/s':>12} {'copy MB/s':>10}"
      f" {'devmem syscalls':>16} {'copy syscalls':>14} {'cmsgs':>8} {'CPU-copied':>11}")
m = lambda rs, f: statistics.median(f(r) for r in rs)
for mtu in sorted({int(r['mtu']) for r in rows}):
    c = [r for r in rows if r['mode'] == 'copy' and int(r['mtu']) == mtu]
    if not c:
        continue
    cc = m(c, lambda r: float(r['cpu_s']) / gib(r))
    for size in sorted({int(r['rx_page_size']) for r in rows if r['mode'] == 'devmem'}):
        d = [r for r in rows if r['mode'] == 'devmem' and int(r['mtu']) == mtu and
             int(r['rx_page_size']) == size]
        if not d:
            continue
        dc = m(d, lambda r: float(r['cpu_s']) / gib(r))
        print(f"{mtu:>5} {(size or 4096) // 1024:>6}Ki {dc:>15.2f} {cc:>13.2f} {dc / cc:>6.2f}"
              f" {m(d, lambda r: int(r['bytes']) / 1e6 / float(r['time_s'])):>12.1f}"
              f" {m(c, lambda r: int(r['bytes']) / 1e6 / float(r['time_s'])):>10.1f}"
              f" {m(d, lambda r: (int(r['recv_calls']) + int(r['dontneed_calls'])) / gib(r)):>16.0f}"
              f" {m(c, lambda r: int(r['recv_calls']) / gib(r)):>14.0f}"
              f" {m(d, lambda r: int(r['frags']) / gib(r)):>8.0f}"
              f" {m(d, lambda r: int(r['cpu_copied_bytes'])):>11.0f}")
# what the CPU touched where the payload lands (our TCG plugin, same
# runs): the dmabuf's pages for devmem and zcrx, the receiver's buffer
# for copy; by kernel and by user-space instructions
t = [r for r in rows if r.get('kernel_touch_bytes')]
if t:
    print()
    print("CPU loads and stores into the pages the payload lands in, bytes per GiB received (TCG plugin,")
    print("same runs, medians): devmem and zcrx, the dmabuf (the device model writes it by DMA, unseen);")
    print("copy, the receiver's own buffer. user: ncdevmem checking the payload (a choice of the application);")
    print("insn: receiver vCPU instructions per GiB, millions, kernel + user; / copy at the same MTU")
    print("goals: kernel bytes 0 for devmem and zcrx; copy >= 1 GiB per GiB; devmem insn <= 0.5x copy")
    print(f"{'MTU':>5} {'path':>8} {'net_iov':>8} {'kernel B/GiB':>14} {'user B/GiB':>14} {'insn M':>8} {'/ copy':>7}")
    ins = lambda rs: m(rs, lambda r: (int(r['rx_kernel_insns']) + int(r['rx_user_insns'])) / gib(r) / 1e6)
    for mtu in sorted({int(r['mtu']) for r in t}):
        c = [r for r in t if r['mode'] == 'copy' and int(r['mtu']) == mtu]
        for mode in ('devmem', 'zcrx', 'copy'):
            for size in sorted({int(r['rx_page_size']) for r in t if r['mode'] == mode}):
                d = [r for r in t if r['mode'] == mode and int(r['mtu']) == mtu and
                     int(r['rx_page_size']) == size]
                if not d:
                    continue
                k = m(d, lambda r: int(r['kernel_touch_bytes']) / gib(r))
                u = m(d, lambda r: int(r['user_touch_bytes']) / gib(r))
                goal = (k >= 2**30) if mode == 'copy' else (k == 0)
                print(f"{mtu:>5} {mode:>8} {(size or 4096) // 1024:>6}Ki {k:>14.0f} {u:>14.0f}"
                      f" {ins(d):>8.0f} {ins(d) / ins(c) if c else 0:>7.2f}"
                      f"  kernel touch goal {'met' if goal else 'missed'}")
PY
	# what touched those pages, by symbol (the first run of each path)
	for f in "$LOGS"/tcg-attr/e1000e-*.touch; do
		[ -f "$f" ] && [ "$(wc -l < "$f")" -gt 1 ] || continue
		echo
		"$PY3" "$REPO/harness/tcg-count/attribute.py" "$LOGS/tcg-attr/e1000e-kallsyms" \
			"$f" 5 "$(basename "$f" .touch), first run: bytes loaded and stored where the payload lands" bytes
	done
	say "CSV: $OUT/rx-e1000e.csv"
	cp "$LOGS/tx-e1000e.csv" "$OUT/"
	"$PY3" - "$OUT/tx-e1000e.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
gib = lambda r: int(r['bytes']) / 2**30
print()
print("send on e1000e (the device model fetches the payload by DMA): 256 MiB from one 64 MiB buffer, MTU 1500,")
print("TSO on, 1 MiB per call, sender pinned to CPU 1 and a socat receiver to CPU 0; sender thread CPU s per GiB,")
print("goodput to the last ACK, calls, completion notifications and payload bytes the CPU copied, per GiB")
print("(copy: every byte; zero-copy: the bytes of completions the kernel reported as copied); medians of 5")
print(f"{'source':>22} {'cpu/GiB':>8} {'vs copy':>8} {'MB/s':>7} {'calls/GiB':>10} {'compl/GiB':>10} {'copied/GiB':>11}")
names = {'devmem': 'device memory (devmem)', 'zerocopy': 'host, MSG_ZEROCOPY', 'copy': 'host, send()'}
m = lambda rs, f: statistics.median(f(r) for r in rs)
cpu = {k: m([r for r in rows if r['mode'] == k], lambda r: float(r['cpu_s']) / gib(r)) for k in names}
for k, name in names.items():
    rs = [r for r in rows if r['mode'] == k]
    copied = m(rs, lambda r: (int(r['bytes']) if k == 'copy' else int(r['copied']) << 20) / gib(r))
    print(f"{name:>22} {cpu[k]:>8.2f} {cpu[k] / cpu['copy']:>8.2f} "
          f"{m(rs, lambda r: int(r['bytes']) / 1e6 / float(r['time_s'])):>7.1f} "
          f"{m(rs, lambda r: int(r['calls']) / gib(r)):>10.0f} "
          f"{m(rs, lambda r: int(r['notifications']) / gib(r)):>10.0f} {copied:>11.0f}")
PY
	say "CSV: $OUT/tx-e1000e.csv"
else
	part_failed e1000e "$LOGS/bench-e1000e-console.log"
fi
fi

# Large net_iovs: what one cmsg, one frag and one token cost when the
# device packs segments into 4, 16 and 64 KiB buffers (hdsim rx-gro-hw).
if [ "$ONLY" != e1000e ] && [ "$ONLY" != rx ]; then
if [ "$ONLY" = scale ]; then
	say "booting the VM for the connections table (hdsim, 64 KiB net_iovs, packing on)"
else
	say "booting the VM for the large net_iov benchmark (hdsim, -b 4/16/64 KiB, packing off/on; 8 GiB guest for 4 GiB binds)"
fi
rm -f "$LOGS/rx-large.csv" "$LOGS/bind-large.csv" "$LOGS/scale-large.csv"
if VM_MEMORY=8G VM_APPEND="udmabuf.size_limit_mb=4200" \
   timeout --kill-after=15 1800 "$REPO/harness/vm.sh" --exec \
	"env NIC=large SCALE_ONLY=$([ "$ONLY" = scale ] && echo 1 || echo 0) PATHS_ONLY=$([ "$ONLY" = paths ] && echo 1 || echo 0) env $GUEST_ENV $REPO/harness/guest-bench.sh $KST $LOGS/bind-large.csv $LOGS/rx-large.csv" \
	> "$LOGS/bench-large-console.log" 2>&1 &&
   ! splats_in "$LOGS/bench-large-console.log" &&
   grep -q "^BENCH DONE" "$LOGS/bench-large-console.log"; then
	cp "$LOGS/rx-large.csv" "$LOGS/bind-large.csv" "$LOGS/scale-large.csv" "$OUT/"
	"$PY3" - "$OUT/rx-large.csv" "$OUT/bind-large.csv" "$OUT/scale-large.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
gib = lambda r: int(r['bytes']) / 2**30
m = lambda rs, f: statistics.median(f(r) for r in rs)
if rows:
    print()
    import os
    print(f"large net_iovs on hdsim ({os.environ['BENCH_MACHINE']}): 64 MiB streams, 1 MiB reads,")
    print(f"{os.environ['BENCH_LAYOUT']} (hdsim's DMA copy runs in NAPI);")
    print("per GiB received, medians of 3 interleaved runs;")
    print("cpu ratio = devmem receiver CPU / plain recv() receiver CPU at the same MTU, same run")
    print("goals: <= 20,000 cmsgs per GiB at 64 KiB with packing; devmem receiver CPU <= 0.5x copy")
    print(f"{'MTU':>5} {'net_iov':>8} {'packing':>8} {'cmsgs':>9} {'recvmsg':>8} {'DONTNEED':>9}"
          f" {'cpu s':>7} {'ratio':>6} {'MB/s':>7}")
    for mtu in sorted({int(r['mtu']) for r in rows}):
        c = [r for r in rows if r['mode'] == 'copy' and int(r['mtu']) == mtu]
        cc = m(c, lambda r: float(r['cpu_s']) / gib(r))
        for size in sorted({int(r['rx_page_size']) for r in rows if r['mode'] == 'devmem'}):
            for pack in ('off', 'on'):
                d = [r for r in rows if r['mode'] == 'devmem' and int(r['mtu']) == mtu and
                     int(r['rx_page_size']) == size and r['packing'] == pack]
                if not d:
                    continue
                dc = m(d, lambda r: float(r['cpu_s']) / gib(r))
                frags = m(d, lambda r: int(r['frags']) / gib(r))
                print(f"{mtu:>5} {size // 1024:>6}Ki {pack:>8} {frags:>9.0f}"
                      f" {m(d, lambda r: int(r['recv_calls']) / gib(r)):>8.0f}"
                      f" {m(d, lambda r: int(r['dontneed_calls']) / gib(r)):>9.0f}"
                      f" {dc:>7.2f} {dc / cc:>6.2f}"
                      f" {m(d, lambda r: int(r['bytes']) / 1e6 / float(r['time_s'])):>7.1f}")
        print(f"{mtu:>5} {'copy':>8} {'':>8} {'':>9}"
              f" {m(c, lambda r: int(r['recv_calls']) / gib(r)):>8.0f} {'':>9}"
              f" {cc:>7.2f} {1:>6.2f} {m(c, lambda r: int(r['bytes']) / 1e6 / float(r['time_s'])):>7.1f}")
    print("(cmsgs: device-memory cmsgs as the kernel counted them = frags handed out = tokens = DONTNEED entries;")
    print(" recvmsg and DONTNEED: calls per GiB)")
    u = [r for r in rows if r['mode'] == 'uring']
    if u:
        print()
        print("recvmsg(2) vs io_uring (ncdevmem --uring: one multishot IORING_OP_RECVMSG, 64 provided buffers)")
        print("vs io_uring zero-copy receive (ncdevmem --zcrx: RECV_ZC, buffers back through the refill ring),")
        print("MTU 1500, same runs; syscalls per GiB: receive (recvmsg or io_uring_enter) + DONTNEED setsockopt;")
        print("cmsgs: devmem cmsgs, or zcrx CQEs; copied: payload bytes the CPU copied per GiB")
        print("insn: the receiver vCPU's instructions per GiB, millions, kernel + user (our TCG plugin, same runs)")
        print(f"{'net_iov':>8} {'packing':>8} {'path':>9} {'receive':>8} {'DONTNEED':>9} {'cmsgs':>8}"
              f" {'copied':>8} {'cpu s':>7} {'ratio':>6} {'MB/s':>7} {'insn M':>8} {'kernel':>7}")
        c = [r for r in rows if r['mode'] == 'copy' and int(r['mtu']) == 1500]
        cc = m(c, lambda r: float(r['cpu_s']) / gib(r))
        counted = all(r.get('rx_kernel_insns') for r in rows)
        ins = lambda rs: m(rs, lambda r: (int(r['rx_kernel_insns']) + int(r['rx_user_insns'])) / gib(r) / 1e6)
        kpart = lambda rs: m(rs, lambda r: int(r['rx_kernel_insns']) /
                             max(1, int(r['rx_kernel_insns']) + int(r['rx_user_insns'])))
        cols = lambda rs: f" {ins(rs):>8.0f} {kpart(rs):>6.0%}" if counted else f" {'-':>8} {'-':>7}"
        for size, pack in ((4096, 'off'), (65536, 'on')):
            for mode, name in (('devmem', 'recvmsg'), ('uring', 'io_uring'),
                               ('zcrx', 'zcrx')):
                d = [r for r in rows if r['mode'] == mode and int(r['mtu']) == 1500 and
                     int(r['rx_page_size']) == size and r['packing'] == pack]
                if not d:
                    continue
                dc = m(d, lambda r: float(r['cpu_s']) / gib(r))
                print(f"{size // 1024:>6}Ki {pack:>8} {name:>9}"
                      f" {m(d, lambda r: int(r['recv_calls']) / gib(r)):>8.0f}"
                      f" {m(d, lambda r: int(r['dontneed_calls']) / gib(r)):>9.0f}"
                      f" {m(d, lambda r: int(r['frags']) / gib(r)):>8.0f}"
                      f" {m(d, lambda r: int(r['cpu_copied_bytes']) / gib(r)):>8.0f}"
                      f" {dc:>7.2f} {dc / cc:>6.2f}"
                      f" {m(d, lambda r: int(r['bytes']) / 1e6 / float(r['time_s'])):>7.1f}"
                      + cols(d))
        print(f"{'':>8} {'':>8} {'copy':>9} {m(c, lambda r: int(r['recv_calls']) / gib(r)):>8.0f}"
              f" {'':>9} {'':>8} {'':>8} {cc:>7.2f} {1:>6.2f}"
              f" {m(c, lambda r: int(r['bytes']) / 1e6 / float(r['time_s'])):>7.1f}" + cols(c))
        z = {s: [r for r in rows if r['mode'] == mo and int(r['mtu']) == 1500 and
                 int(r['rx_page_size']) == 65536 and r['packing'] == 'on']
             for s, mo in (('zcrx', 'zcrx'), ('recvmsg', 'devmem'))}
        if z['zcrx'] and z['recvmsg']:
            ratio = (m(z['zcrx'], lambda r: float(r['cpu_s']) / gib(r)) /
                     m(z['recvmsg'], lambda r: float(r['cpu_s']) / gib(r)))
            print(f"zcrx receiver cpu / recvmsg devmem at 64 KiB, packing on: {ratio:.2f}"
                  f" (goal <= 0.70: {'met' if ratio <= 0.7 else 'missed'})")
            if counted:
                ir = ins(z['zcrx']) / ins(z['recvmsg'])
                print(f"the same on the counts, receiver vCPU instructions: {ir:.2f}"
                      f" (goal <= 0.70: {'met' if ir <= 0.7 else 'missed'})")
                for size, pack in ((4096, 'off'), (65536, 'on')):
                    for mode, name in (('devmem', 'recvmsg'), ('uring', 'io_uring'), ('zcrx', 'zcrx')):
                        d = [r for r in rows if r['mode'] == mode and int(r['mtu']) == 1500 and
                             int(r['rx_page_size']) == size and r['packing'] == pack]
                        if d and c:
                            q = ins(d) / ins(c)
                            print(f"  {name} at {size // 1024} KiB / copy, instructions: {q:.2f}"
                                  f" (goal <= 0.20: {'met' if q <= 0.2 else 'missed'})")
sc = list(csv.DictReader(open(sys.argv[3])))
print()
print("many connections at once (64 KiB net_iovs, packing on, MTU 1500, 64 MiB split evenly, 1 MiB reads,")
reps = sorted({len([r for r in sc if (r['layout'], r['connections']) == k])
               for k in {(r['layout'], r['connections']) for r in sc}})
runs = f"{reps[0]}" if len(reps) == 1 else f"{reps[0]}-{reps[-1]}" if reps else "0"
print(f"ncdevmem --connections N --parallel); per GiB, medians of {runs} runs; cpu = the receiving threads' CPU s;")
print("ratio = devmem cpu / copy cpu with the same connections; x1 = cpu / one connection on one queue")
print("  queue: one devmem queue     rss4: 4 queues of one binding, an RSS context and a rule into it")
print("  bind4: 4 bindings (4 dmabufs) on 4 queues, a receiver each with N/4 connections")
print("  uring: one queue, one io_uring (a multishot recvmsg per connection, ncdevmem --uring --parallel)")
print("  copy:  plain recv(), polled as devmem's")
print("  zcrx:  one zcrx instance on one queue, one ring reading the connections in turn (ncdevmem --zcrx)")
print("  zshare: that instance shared by a ring per connection, each in its own thread (--zcrx-rings N)")
print("  (zcrx, zshare: cmsgs are RECV_ZC CQEs; with BENCH_ONLY=paths, 2 connections only)")
print("goal at 64 connections: <= 25,000 cmsgs per GiB, cpu <= 1.5x one connection's, ratio <= 0.5")
print(f"{'conns':>5} {'layout':>6} {'cmsgs':>8} {'DONTNEED':>9} {'cpu s':>7} {'ratio':>6} {'x1':>5}"
      f" {'MB/s':>7} {'tokens held':>12}")
one = [r for r in sc if r['layout'] == 'queue' and int(r['connections']) == 1]
c1 = m(one, lambda r: float(r['cpu_s']) / gib(r)) if one else 0
for n in sorted({int(r['connections']) for r in sc}):
    c = [r for r in sc if r['layout'] == 'copy' and int(r['connections']) == n]
    cc = m(c, lambda r: float(r['cpu_s']) / gib(r)) if c else 0
    for layout in ('queue', 'rss4', 'bind4', 'uring', 'zcrx', 'zshare', 'copy'):
        rs = [r for r in sc if r['layout'] == layout and int(r['connections']) == n]
        if not rs:
            continue
        cpu = m(rs, lambda r: float(r['cpu_s']) / gib(r))
        dev = layout != 'copy'
        print(f"{n:>5} {layout:>6}"
              f" {m(rs, lambda r: int(r['frags']) / gib(r)) if dev else 0:>8.0f}"
              f" {m(rs, lambda r: int(r['dontneed_calls']) / gib(r)) if dev else 0:>9.0f}"
              f" {cpu:>7.2f} {cpu / cc if cc else 0:>6.2f} {cpu / c1 if c1 else 0:>5.2f}"
              f" {m(rs, lambda r: int(r['bytes']) / 1e6 / float(r['time_s'])):>7.1f}"
              f" {m(rs, lambda r: int(r['tokens_held_max'])) if dev else 0:>12.0f}")
zr = {l: [r for r in sc if r['layout'] == l and int(r['connections']) == 2]
      for l in ('zcrx', 'zshare')}
if zr['zcrx'] and zr['zshare']:
    per = lambda l, k: m(zr[l], lambda r: float(r[k]) / gib(r))
    print(f"a queue shared by 2 rings / one ring, 2 connections: CQEs per GiB"
          f" {per('zshare', 'frags') / per('zcrx', 'frags'):.2f}x,"
          f" receiver CPU per GiB {per('zshare', 'cpu_s') / per('zcrx', 'cpu_s'):.2f}x")
b = list(csv.DictReader(open(sys.argv[2])))
if b:
    print()
    print("bind cost by dmabuf and net_iov size (hugetlb udmabuf; median of 3)")
    for mib in sorted({int(r['size_mib']) for r in b}):
        for size in sorted({int(r['rx_page_size']) for r in b}):
            rs = [r for r in b if int(r['rx_page_size']) == size and int(r['size_mib']) == mib]
            if not rs:
                continue
            print(f"  {mib // 1024} GiB, {size // 1024:>3} KiB net_iovs: {rs[0]['niovs']:>8} net_iovs, "
                  f"bind {statistics.median(int(r['netlink_bind_us']) / 1000 for r in rs):>7.1f} ms, "
                  f"{int(rs[0]['mem_bytes']) / 2**20:>6.2f} MiB kernel memory")
PY
	# where the receiver's instructions go, by kernel symbol, for the
	# paths at 64 KiB with packing and for copy (first run of each)
	for d in devmem-65536-on uring-65536-on zcrx-65536-on copy-0-off; do
		f=$LOGS/tcg-attr/large-$d-1500.dump
		[ -f "$f" ] || continue
		echo
		"$PY3" "$REPO/harness/tcg-count/attribute.py" "$LOGS/tcg-attr/large-kallsyms" \
			"$f" 10 "receiver vCPU, ${d%%-*} (${d#*-}), MTU 1500, first run"
	done
	say "CSV: $OUT/rx-large.csv, $OUT/scale-large.csv, $OUT/bind-large.csv"
else
	part_failed "large net_iov" "$LOGS/bench-large-console.log"
fi
fi
# The picture (matplotlib in the build venv, installed on first use), from
# whatever CSVs this run and earlier runs left in build/bench: receiver
# CPU per path at the headline buffer sizes, the many-connections table,
# the sender's CPU on e1000e, the token return cost. A panel whose CSV is
# missing says so.
# BENCH_PLOT=0: tables and CSVs only (a machine without the venv)
[ "${BENCH_PLOT:-1}" = 1 ] || { [ -z "$FAILED" ] || die "benchmark parts failed:$FAILED (reasons above)"; exit 0; }
if ! "$VENV/bin/python" -c "import matplotlib" 2>/dev/null; then
	say "pip: installing matplotlib into $VENV for the plot"
	"$VENV/bin/pip" install -q matplotlib || die "cannot install matplotlib"
fi
"$VENV/bin/python" "$REPO/harness/bench-plot.py" "$OUT"
[ -z "$FAILED" ] || die "benchmark parts failed:$FAILED (reasons above)"
