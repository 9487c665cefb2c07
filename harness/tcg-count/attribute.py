#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions by kernel symbol: the TCG plugin's "dump" of one vCPU's
blocks (<address> <instructions> per line, "done" last) mapped through a
copy of the guest's /proc/kallsyms taken in the same boot (KASLR and
module addresses included). User-space blocks are summed as one row.
With the unit "bytes", the plugin's "touchers" file instead: the bytes
each instruction loaded from or stored to the window.

    attribute.py <kallsyms> <dump> [top N (10)] [label] [unit]
"""
import bisect
import sys


def symbols(path):
    syms = []
    for line in open(path):
        f = line.split()
        if len(f) < 3 or f[1] not in 'tTwW':
            continue
        name = f[2] + (f" {f[3]}" if len(f) > 3 else '')
        syms.append((int(f[0], 16), name))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def main():
    addrs, names = symbols(sys.argv[1])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    label = sys.argv[4] if len(sys.argv) > 4 else sys.argv[2]
    unit = sys.argv[5] if len(sys.argv) > 5 else 'instructions'
    # millions of instructions; bytes as they are
    scale, fmt = (1, '.0f') if unit == 'bytes' else (1e6, '.1f')
    by = {}
    total = 0
    for line in open(sys.argv[2]):
        f = line.split()
        if len(f) != 2:
            continue
        a, n = int(f[0], 16), int(f[1])
        total += n
        if a < 0xffff800000000000:
            name = '(user space)'
        else:
            i = bisect.bisect_right(addrs, a) - 1
            name = names[i] if i >= 0 else '(unknown)'
        by[name] = by.get(name, 0) + n
    if not total:
        print(f"{label}: no {unit} attributed")
        return
    m = '' if unit == 'bytes' else ' M'
    print(f"{label}: {total / scale:{fmt}}{m} {unit}; top {top} symbols")
    for name, n in sorted(by.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {n / total:6.1%} {n / scale:11{fmt}}{m}  {name}")


main()
