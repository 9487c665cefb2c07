# SPDX-License-Identifier: GPL-2.0
"""Check the syzkaller descriptions of fuzz/descriptions/ against the uAPI
headers of build/src, without syzkaller or Go.

For each NAME.txt there:
- every constant the description uses (an upper-case identifier outside
  strings and call or type names) has its amd64 value in NAME.txt.const,
  and that file holds nothing else;
- each value is the one the headers give (a C program built against
  build/src's include/uapi prints them) or, for __NR_*, the one of
  arch/x86/entry/syscalls/syscall_64.tbl; a define's expression too;
- a struct, union or type alias preceded by "# uapi:" lines has the layout
  they name, laid out as syzkaller lays it out for amd64:
    # uapi: struct NAME     the same fields, by name, at the same offsets
                            and of the same sizes, and the same size
    # uapi: size EXPR       its size is the C expression EXPR
    # uapi: offset F EXPR   its field F is at byte EXPR
- the syzkaller types it reuses in such layouts have the size recorded in
  REUSED below, which is the size of their C struct.

Prints one closing line; exits 1 naming every disagreement.
"""
import os
import re
import subprocess
import sys
import tempfile

src, fuzz = sys.argv[1], sys.argv[2]

# syzkaller's own types that our checked layouts embed:
# name -> (size, alignment, C type of the same layout)
REUSED = {
    'io_sqring_offsets': (40, 8, 'struct io_sqring_offsets'),
    'io_cqring_offsets': (40, 8, 'struct io_cqring_offsets'),
    'io_uring_zcrx_offsets': (32, 8, 'struct io_uring_zcrx_offsets'),
    'io_uring_region_desc': (64, 8, 'struct io_uring_region_desc'),
}
# syzkaller's resources that our checked layouts embed, all int32 based
REUSED_RESOURCES = {'fd', 'sock', 'sock_tcp', 'sock_tcp6', 'ifindex',
                    'fd_dma_buf', 'fd_io_uring', 'fd_memfd'}
INTS = {'int8': 1, 'int16': 2, 'int32': 4, 'int64': 8, 'intptr': 8,
        'int16be': 2, 'int32be': 4, 'int64be': 8}
PTRS = {'ptr', 'ptr64', 'vma', 'vma64'}

errors = []


def err(msg):
    errors.append(msg)


# --- syzlang, the subset these files use ---------------------------------

def split_args(s):
    """Split 'a, b[c, d], e' at top-level commas."""
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch in '[(':
            depth += 1
        elif ch in '])':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_type(s):
    """'name[args]' -> (name, [args])"""
    s = s.strip()
    m = re.match(r'([\w$]+)\s*(?:\[(.*)\])?$', s, re.S)
    if not m:
        return s, []
    return m.group(1), split_args(m.group(2)) if m.group(2) else []


class Desc:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.includes = []
        self.resources = {}
        self.defines = {}
        self.aggregates = {}	# name -> (kind, fields, attrs, notes, line)
        self.aliases = {}	# name -> (type, notes, line)
        self.consts = set()
        self.parse()

    def parse(self):
        lines = open(self.path).read().split('\n')
        notes = []
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            s = line.strip()
            if s.startswith('#'):
                m = re.match(r'#\s*uapi:\s*(.*)$', s)
                if m:
                    notes.append((i, m.group(1).strip()))
                continue
            if not s:
                continue
            self.collect_consts(s)
            m = re.match(r'include\s+<(.+)>$', s)
            if m:
                self.includes.append(m.group(1))
                continue
            m = re.match(r'resource\s+(\w+)\[(\w+)\]', s)
            if m:
                self.resources[m.group(1)] = m.group(2)
                continue
            m = re.match(r'define\s+(\w+)\s+(.+)$', s)
            if m:
                self.defines[m.group(1)] = m.group(2)
                continue
            m = re.match(r'type\s+([\w$]+)\s+(.+)$', s)
            if m:
                self.aliases[m.group(1)] = (m.group(2), notes, i)
                notes = []
                continue
            m = re.match(r'([\w$]+)\s*([{\[])$', s)
            if m:
                kind = 'struct' if m.group(2) == '{' else 'union'
                close = '}' if kind == 'struct' else ']'
                fields = []
                start = i
                while i < len(lines):
                    f = lines[i].strip()
                    i += 1
                    if f.startswith(close):
                        attrs = f[1:].strip()
                        break
                    if not f or f.startswith('#'):
                        continue
                    self.collect_consts(f)
                    fm = re.match(r'(\w+)\s+(.+?)(?:\s+\((in|out|inout)\))?$', f)
                    fields.append((fm.group(1), fm.group(2)))
                self.aggregates[m.group(1)] = (kind, fields, attrs, notes, start)
                notes = []
                continue
            notes = []

    def collect_consts(self, s):
        s = re.sub(r'"[^"]*"|\'[^\']*\'', '', s)
        s = re.sub(r'[\w]*\$\w+', '', s)	# call, type and template names
        for w in re.findall(r'\b[A-Z_][A-Z0-9_]*\b', s):
            if re.search(r'[A-Z]', w):
                self.consts.add(w)


def read_consts(path):
    vals, arches = {}, None
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        name, _, val = (x.strip() for x in line.partition('='))
        if arches is None:
            if name != 'arches':
                err(f'{path}:{n}: no "arches" line first')
            arches = [a.strip() for a in val.split(',')]
            if arches != ['amd64']:
                err(f'{path}:{n}: arches {val}, expected amd64 only')
            continue
        try:
            vals[name] = int(val, 0)
        except ValueError:
            err(f'{path}:{n}: {name} = {val} is not one number')
    return vals


# --- syzkaller's layout of a type, for amd64 -----------------------------

class Layout:
    def __init__(self, descs):
        self.aggs, self.aliases, self.res = {}, {}, {}
        for d in descs:
            self.aggs.update(d.aggregates)
            self.aliases.update(d.aliases)
            self.res.update(d.resources)

    def int_size(self, name):
        # boolN is syzkaller's intN that takes 0 or 1
        name = re.sub(r'^bool(\d+)$', r'int\1', name)
        base = re.match(r'(int\d+(?:be)?|intptr)', name)
        return INTS.get(base.group(1)) if base else None

    def resolve(self, t):
        """Return (size, align) of a type expression."""
        name, args = parse_type(t)
        size = self.int_size(name)
        if size:
            return size, size
        if name in ('const', 'flags', 'len', 'bytesize', 'offsetof'):
            return self.resolve(args[1])
        if name in PTRS:
            return 8, 8
        if name in self.res:
            return self.resolve(self.res[name])
        if name in REUSED_RESOURCES:
            return 4, 4
        if name == 'array':
            if len(args) != 2 or not re.match(r'\d+$', args[1]):
                raise ValueError(f'array of no fixed length: {t}')
            size, align = self.resolve(args[0])
            return size * int(args[1]), align
        if name == 'cmsghdr_t':
            size, _ = self.resolve(args[2])
            return (16 + size + 7) & ~7, 8
        if name in self.aliases:
            return self.resolve(self.aliases[name][0])
        if name in REUSED:
            return REUSED[name][:2]
        if name in self.aggs:
            return self.aggregate(name)[:2]
        raise ValueError(f'type {t} unknown to this check')

    def aggregate(self, name):
        """Return (size, align, {field: (offset, size)})."""
        kind, fields, attrs, _, _ = self.aggs[name]
        if 'varlen' in attrs:
            raise ValueError(f'{name} has no fixed size')
        packed = 'packed' in attrs
        off, align, where = 0, 1, {}
        for fname, ftype in fields:
            size, falign = self.resolve(ftype)
            if packed:
                falign = 1
            if kind == 'struct':
                off = (off + falign - 1) // falign * falign
                where[fname] = (off, size)
                off += size
            else:
                where[fname] = (0, size)
                off = max(off, size)
            align = max(align, falign)
        m = re.search(r'align\[(\d+)\]', attrs)
        if m:
            align = int(m.group(1))
        size = (off + align - 1) // align * align
        return size, align, where


# --- C side ---------------------------------------------------------------

def shim_dir(tmp):
    """Headers that headers_install would provide: empty compiler
    headers, and asm/ wrappers of asm-generic/ for what x86 does not
    have itself (the build generates those)."""
    os.makedirs(os.path.join(tmp, 'linux'))
    os.makedirs(os.path.join(tmp, 'asm'))
    for h in ('compiler.h', 'compiler_types.h'):
        open(os.path.join(tmp, 'linux', h), 'w').close()
    x86 = os.path.join(src, 'arch/x86/include/uapi/asm')
    gen = os.path.join(src, 'include/uapi/asm-generic')
    for h in os.listdir(gen):
        if h.endswith('.h') and not os.path.exists(os.path.join(x86, h)):
            with open(os.path.join(tmp, 'asm', h), 'w') as f:
                f.write(f'#include <asm-generic/{h}>\n')


def kernel_header_bits(path, names):
    """What a description takes from a header outside uapi: plain
    numeric defines of the constants it uses and, where the header has
    it, struct cmsghdr with its CMSG_ macros."""
    text = open(path).read()
    out = []
    for m in re.finditer(r'^#define\s+(\w+)\s+(0x[0-9a-fA-F]+|\d+)\b', text, re.M):
        if m.group(1) in names:
            out.append(f'#ifndef {m.group(1)}\n#define {m.group(1)} {m.group(2)}\n#endif')
    m = re.search(r'^struct cmsghdr \{.*?^\};', text, re.M | re.S)
    if m:
        out.append(m.group(0))
        for mac in ('CMSG_ALIGN', 'CMSG_SPACE', 'CMSG_LEN'):
            d = re.search(r'^#define ' + mac + r'\(.*$', text, re.M)
            if d:
                out.append(d.group(0))
    return out


def c_values(descs, queries):
    """queries: [(key, C expression)] -> {key: int}, or None on a build
    error (reported)."""
    includes, extra = [], []
    used = set().union(*(d.consts for d in descs))
    for d in descs:
        for inc in d.includes:
            path = os.path.join(src, 'include', inc)
            if not os.path.exists(path):
                err(f'{d.name}: include <{inc}>: no {path}')
                continue
            if inc.startswith('uapi/'):
                line = f'#include <{inc[5:]}>'
                if line not in includes:
                    includes.append(line)
            else:
                extra += [b for b in kernel_header_bits(path, used) if b not in extra]
    prog = ['#include <stddef.h>', '#include <stdio.h>'] + includes + extra
    prog.append('int main(void)\n{')
    for key, expr in queries:
        prog.append(f'\tprintf("%s %llu\\n", "{key}", (unsigned long long)({expr}));')
    prog.append('\treturn 0;\n}')
    with tempfile.TemporaryDirectory() as tmp:
        shim = os.path.join(tmp, 'shim')
        shim_dir(shim)
        c = os.path.join(tmp, 'q.c')
        with open(c, 'w') as f:
            f.write('\n'.join(prog) + '\n')
        exe = os.path.join(tmp, 'q')
        res = subprocess.run(['gcc', '-D__EXPORTED_HEADERS__', '-D__user=',
                              '-I', shim,
                              '-I', os.path.join(src, 'include/uapi'),
                              '-I', os.path.join(src, 'arch/x86/include/uapi'),
                              '-o', exe, c], capture_output=True, text=True)
        if res.returncode:
            msgs = [ln for ln in res.stderr.split('\n') if 'error' in ln]
            err('the uAPI headers do not define what the descriptions use:\n  ' +
                '\n  '.join(msgs[:20]))
            return None
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    vals = {}
    for line in out.split('\n'):
        if line:
            key, val = line.rsplit(' ', 1)
            vals[key] = int(val)
    return vals


def syscall_numbers():
    nrs = {}
    for line in open(os.path.join(src, 'arch/x86/entry/syscalls/syscall_64.tbl')):
        f = line.split()
        if len(f) >= 3 and not f[0].startswith('#') and f[1] in ('common', '64'):
            nrs[f[2]] = int(f[0])
    return nrs


# --- the check ------------------------------------------------------------

if os.uname().machine != 'x86_64':
    sys.exit('check-fuzz-descriptions: the .const files are for amd64; run on x86_64')

descs = [Desc(os.path.join(fuzz, f)) for f in sorted(os.listdir(fuzz)) if f.endswith('.txt')]
if not descs:
    sys.exit(f'check-fuzz-descriptions: no descriptions in {fuzz}')
layout = Layout(descs)
nrs = syscall_numbers()

queries, expect = [], {}	# key -> (what, expected value)
nconst = 0
for d in descs:
    cpath = d.path + '.const'
    if not os.path.exists(cpath):
        err(f'{d.name}: no {os.path.basename(cpath)}')
        continue
    vals = read_consts(cpath)
    for name in sorted(d.consts - set(vals)):
        err(f'{d.name}: {name} is used but has no value in {os.path.basename(cpath)}')
    for name in sorted(set(vals) - d.consts):
        if not name.startswith('__NR_'):
            err(f'{os.path.basename(cpath)}: {name} is not used by {d.name}')
    for name, val in sorted(vals.items()):
        nconst += 1
        if name.startswith('__NR_'):
            if nrs.get(name[5:]) != val:
                err(f'{os.path.basename(cpath)}: {name} = {val}, '
                    f'syscall_64.tbl has {nrs.get(name[5:])}')
            continue
        expr = d.defines.get(name, name)
        key = f'const:{d.name}:{name}'
        queries.append((key, expr))
        expect[key] = (f'{os.path.basename(cpath)}: {name} = {val:#x}', val % (1 << 64))

nlayout = 0
for d in descs:
    items = [(n, 'agg', a[3], a[4]) for n, a in d.aggregates.items()]
    items += [(n, 'alias', a[1], a[2]) for n, a in d.aliases.items()]
    for name, what, notes, line in items:
        if not notes:
            continue
        nlayout += 1
        where = f'{d.name}:{line}: {name}'
        try:
            if what == 'agg':
                size, _, fields = layout.aggregate(name)
            else:
                size, fields = layout.resolve(d.aliases[name][0])[0], {}
        except ValueError as e:
            err(f'{where}: {e}')
            continue
        for n, note in notes:
            m = re.match(r'(struct|size|offset)\s+(.*)$', note)
            if not m:
                err(f'{d.name}:{n}: cannot read "# uapi: {note}"')
                continue
            if m.group(1) == 'struct':
                ctype = 'struct ' + m.group(2).split()[-1]
                key = f'size:{where}'
                queries.append((key, f'sizeof({ctype})'))
                expect[key] = (f'{where}: size {size} bytes, {ctype}', size)
                for fname, (off, fsize) in fields.items():
                    key = f'off:{where}:{fname}'
                    queries.append((key, f'offsetof({ctype}, {fname})'))
                    expect[key] = (f'{where}: {fname} at byte {off}, in {ctype}', off)
                    key = f'fsize:{where}:{fname}'
                    queries.append((key, f'sizeof((({ctype} *)0)->{fname})'))
                    expect[key] = (f'{where}: {fname} of {fsize} bytes, in {ctype}', fsize)
            elif m.group(1) == 'size':
                key = f'size:{where}:{n}'
                queries.append((key, m.group(2)))
                expect[key] = (f'{where}: size {size} bytes, {m.group(2)}', size)
            else:
                fname, _, expr = m.group(2).partition(' ')
                if fname not in fields:
                    err(f'{d.name}:{n}: {name} has no field {fname}')
                    continue
                key = f'off:{where}:{fname}:{n}'
                queries.append((key, expr))
                expect[key] = (f'{where}: {fname} at byte {fields[fname][0]}, {expr}',
                               fields[fname][0])

for name, (size, _, ctype) in REUSED.items():
    key = f'reused:{name}'
    queries.append((key, f'sizeof({ctype})'))
    expect[key] = (f"syzkaller's {name} is {size} bytes, {ctype}", size)

got = c_values(descs, queries)
if got is not None:
    for key, (what, want) in expect.items():
        if got[key] != want:
            err(f'{what} is {got[key]:#x}' if key.startswith('const:') else f'{what} is {got[key]}')

if errors:
    print('\n'.join(errors))
    print(f'fuzz descriptions: {len(errors)} disagreement(s) with the uAPI of {src}')
    sys.exit(1)
print(f'fuzz descriptions: {nconst} constants and {nlayout} layouts of '
      f'{len(descs)} files agree with the uAPI')
