#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""build/bench/bench.png from the CSVs of make bench (harness/bench.sh):

  receive paths   receiver CPU s per GiB, MTU 1500, hdsim: copy, recvmsg
                  devmem, io_uring RECVMSG, zcrx, at 4 KiB net_iovs without
                  packing and 64 KiB with packing (rx-large.csv)
  connections     receiver CPU s per GiB by connections and layout
                  (scale-large.csv)
  send            sender CPU s per GiB on e1000e: copy, MSG_ZEROCOPY, devmem
                  (tx-e1000e.csv)
  token return    ns per token by SO_DEVMEM_DONTNEED batch (rx.csv)

Medians over the runs; a panel whose CSV is missing or empty says so.
Usage: bench-plot.py <dir>
"""
import csv
import os
import statistics
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = sys.argv[1]


def rows(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def per_gib(r):
    return float(r['cpu_s']) / (int(r['bytes']) / 2**30)


def med(rs, f=per_gib):
    return statistics.median(f(r) for r in rs) if rs else 0


def missing(ax, title, name):
    ax.set_title(title)
    ax.text(0.5, 0.5, f"not measured ({name})", ha='center', va='center',
            transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def annotate(ax, title, ylabel, xlabel=None, legend=False):
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if xlabel:
        ax.set_xlabel(xlabel)
    if legend:
        ax.legend(fontsize=8)


CPU = 'receiver CPU s per GiB (TCG)'
fig, axes = plt.subplots(2, 2, figsize=(12, 8))
(paths, conns), (send, tokens) = axes

rx = [r for r in rows('rx-large.csv') if r['mtu'] == '1500']
if rx:
    cases = (('4 KiB, packing off', '4096', 'off'),
             ('64 KiB, packing on', '65536', 'on'))
    kinds = (('copy', 'copy'), ('recvmsg devmem', 'devmem'),
             ('io_uring RECVMSG', 'uring'), ('zcrx', 'zcrx'))
    w = 0.2
    for k, (label, mode) in enumerate(kinds):
        ys = []
        for _, size, pack in cases:
            if mode == 'copy':
                rs = [r for r in rx if r['mode'] == 'copy']
            else:
                rs = [r for r in rx if r['mode'] == mode and
                      r['rx_page_size'] == size and r['packing'] == pack]
            ys.append(med(rs))
        paths.bar([i + (k - 1.5) * w for i in range(len(cases))], ys, w,
                  label=label)
    paths.set_xticks(range(len(cases)), [c[0] for c in cases])
    annotate(paths, 'receive paths, hdsim, MTU 1500', CPU, legend=True)
else:
    missing(paths, 'receive paths', 'rx-large.csv: make bench BENCH_ONLY=paths')

sc = rows('scale-large.csv')
if sc:
    ns = sorted({int(r['connections']) for r in sc})
    for layout in ('queue', 'rss4', 'bind4', 'uring', 'copy'):
        pts = [(n, med([r for r in sc if r['layout'] == layout and
                        int(r['connections']) == n])) for n in ns]
        pts = [(n, y) for n, y in pts if y]
        if pts:
            conns.plot([n for n, _ in pts], [y for _, y in pts], 'o-',
                       label=layout)
    conns.set_xscale('log', base=2)
    annotate(conns, 'many connections, 64 KiB net_iovs, packing on', CPU,
             'connections', legend=True)
else:
    missing(conns, 'many connections', 'scale-large.csv: make bench BENCH_ONLY=scale')

tx = rows('tx-e1000e.csv')
if tx:
    modes = [m for m in ('copy', 'zerocopy', 'devmem')
             if any(r['mode'] == m for r in tx)]
    send.bar(modes, [med([r for r in tx if r['mode'] == m]) for m in modes])
    annotate(send, 'send on e1000e', 'sender CPU s per GiB (TCG)')
else:
    missing(send, 'send on e1000e', 'tx-e1000e.csv: make bench BENCH_ONLY=e1000e')

bat = [r for r in rows('rx.csv')
       if r['mode'] == 'devmem' and r['read_size'] == '65536']
if bat:
    by = {}
    for r in bat:
        by.setdefault(int(r['dontneed_batch']), []).append(
            int(r['dontneed_ns_per_token']))
    xs = sorted(by)
    tokens.plot(xs, [statistics.median(by[x]) for x in xs], 'o-')
    tokens.set_xscale('log')
    annotate(tokens, 'token return cost', 'ns per token',
             'tokens per SO_DEVMEM_DONTNEED call')
else:
    missing(tokens, 'token return cost', 'rx.csv: make bench')

fig.tight_layout()
fig.savefig(os.path.join(out, 'bench.png'), dpi=100)
print(f"plot: {os.path.join(out, 'bench.png')}")
