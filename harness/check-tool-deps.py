#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""No circle among the files of a tool.

check-tool-deps.py <headers> <dir>...: for each directory, its C files
depend on each other in two ways: A calls or reads what B defines (the
undefined symbols of A's object against the defined ones of B's, each
file compiled alone with -I<dir>, -I tools/net/lib and the kernel's
uAPI headers in <headers>), and A includes B's header, B.h beside B.c,
directly or through another header of the directory. A file that
depends on itself through others is a circle: it is printed, and the
exit status is 1.
"""
import os
import re
import subprocess
import sys
import tempfile

INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path, seen):
    """The quoted headers @path includes, directly or through others."""
    d = os.path.dirname(path)
    for h in INC.findall(open(path).read()):
        p = os.path.normpath(os.path.join(d, h))
        if p in seen or not os.path.exists(p):
            continue
        seen.add(p)
        includes(p, seen)
    return seen


def symbols(obj, defined):
    args = ['nm', '--defined-only' if defined else '-u', obj]
    out = subprocess.run(args, capture_output=True, text=True,
                         check=True).stdout
    syms = set()
    for line in out.splitlines():
        f = line.split()
        if defined and len(f) == 3 and f[1] in 'TDBR':
            syms.add(f[2])
        elif not defined and f:
            syms.add(f[-1])
    return syms


def graph(hdrs, d, tmp):
    cs = sorted(f for f in os.listdir(d) if f.endswith('.c'))
    deps = {c: set() for c in cs}
    defs, undefs = {}, {}
    for c in cs:
        o = os.path.join(tmp, c + '.o')
        subprocess.run(['cc', '-c', '-w', '-D_GNU_SOURCE', '-I', d,
                        '-I', 'tools/net/lib', '-I', hdrs,
                        '-o', o, os.path.join(d, c)], check=True)
        defs[c] = symbols(o, True)
        undefs[c] = symbols(o, False)
    for a in cs:
        for b in cs:
            if a != b and undefs[a] & defs[b]:
                deps[a].add(b)
        for h in includes(os.path.join(d, a), set()):
            b = os.path.basename(h)[:-2] + '.c'
            if os.path.dirname(h) == os.path.normpath(d) and b in deps \
               and b != a:
                deps[a].add(b)
    return deps


def circle(deps):
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(deps[n]):
            if state.get(m) == 1:
                return path[path.index(m):] + [m]
            if m not in state:
                c = visit(m, path + [m])
                if c:
                    return c
        state[n] = 2
        return None

    for n in sorted(deps):
        if n not in state:
            c = visit(n, [n])
            if c:
                return c
    return None


def main():
    hdrs, dirs = sys.argv[1], sys.argv[2:]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for d in dirs:
            deps = graph(hdrs, d, tmp)
            c = circle(deps)
            if c:
                print(f'{d}: a circle: {" -> ".join(c)}')
                bad += 1
            else:
                order = ', '.join(f'{a} -> {"/".join(sorted(b)) or "-"}'
                                  for a, b in sorted(deps.items()))
                print(f'{d}: {len(deps)} files, no circle ({order})')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
