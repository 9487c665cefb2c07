# SPDX-License-Identifier: GPL-2.0
"""Check a generic netlink family's spec (Documentation/netlink/specs/)
against its uapi header (compiled with gcc, so the C enum arithmetic is
what is checked) and the attribute policies of its kernel source: the
"netdev" family (upstream's) or "devmem-stats" (ours). Usage:
check-netdev-spec.py REPO [FAMILY]"""
import os
import re
import subprocess
import sys
import tempfile

import yaml

# family: spec, uapi header, source with the ops and policies, C prefix
FAMILIES = {
    'netdev': ('netdev.yaml', 'linux/netdev.h', 'net/core/netdev-genl-gen.c',
               'NETDEV'),
    'devmem-stats': ('devmem-stats.yaml', 'linux/devmem_stats.h',
                     'net/core/devmem_stats.c', 'DEVMEM_STATS'),
}
repo = sys.argv[1]
family = sys.argv[2] if len(sys.argv) > 2 else 'netdev'
spec_file, header, source, P = FAMILIES[family]
spec = yaml.safe_load(open(os.path.join(repo, 'Documentation/netlink/specs', spec_file)))
genl = open(os.path.join(repo, source)).read()


def cname(*parts):
    return '_'.join(p.upper().replace('-', '_') for p in parts)


asserts = []
sets = {}
for aset in spec['attribute-sets']:
    attrs = {}
    for a in aset['attributes']:
        if 'value' in a:
            attrs[a['name']] = a
            asserts.append((cname(P + '_A', aset['name'], a['name']), a['value']))
    sets[aset['name']] = attrs
for op in spec['operations']['list']:
    asserts.append((cname(P + '_CMD', op['name']), op['value']))
for d in spec.get('definitions', []):
    for i, e in enumerate(d['entries']):
        asserts.append((cname(P, d['name'], e), i))

src = f'#include <{header}>\n' + ''.join(
    f'_Static_assert({n} == {v}, "{n} is not {v}");\n' for n, v in asserts)
with tempfile.NamedTemporaryFile('w', suffix='.c', delete=False) as f:
    f.write(src)
res = subprocess.run(['gcc', '-fsyntax-only', '-I', os.path.join(repo, 'include/uapi'), f.name],
                     capture_output=True, text=True)
os.unlink(f.name)
errors = []
if res.returncode:
    errors.append('uapi header does not match the spec:\n' + res.stderr)

# op -> policy name, from the genl_ops table
ops = {}
for m in re.finditer(r'\.cmd\s*=\s*(' + P + r'_CMD_\w+),(.*?)\}', genl, re.S):
    pol = re.search(r'\.policy\s*=\s*(\w+)', m.group(2))
    ops[m.group(1)] = pol.group(1) if pol else None


def policy_attrs(name):
    m = re.search(r'nla_policy ' + name + r'\[[^\]]*\]\s*=\s*\{(.*?)\n\};', genl, re.S)
    if not m:
        return None
    return set(re.findall(r'\[(' + P + r'_A_\w+)\]', m.group(1)))


for op in spec['operations']['list']:
    cmd = cname(P + '_CMD', op['name'])
    if cmd not in ops:
        errors.append(f'{cmd}: in the spec but not in the ops of {source}')
        continue
    want = set()
    for mode in ('do', 'dump'):
        req = op.get(mode, {}).get('request', {})
        want |= {cname(P + '_A', op['attribute-set'], a) for a in req.get('attributes', [])}
    got = policy_attrs(ops[cmd]) if ops[cmd] else set()
    if got != want:
        errors.append(f'{cmd}: policy {ops[cmd]} has {sorted(got or [])}, spec requests {sorted(want)}')
    for flag, cflag in (('admin-perm', 'GENL_ADMIN_PERM'),
                        ('uns-admin-perm', 'GENL_UNS_ADMIN_PERM')):
        want_flag = flag in op.get('flags', [])
        has_flag = re.search(cmd + r',[^}]*\b' + cflag + r'\b', genl, re.S) is not None
        if want_flag != has_flag:
            errors.append(f'{cmd}: {flag} in spec {want_flag}, in kernel {has_flag}')
for cmd in ops:
    if cmd not in {cname(P + '_CMD', o['name']) for o in spec['operations']['list']}:
        errors.append(f'{cmd}: implemented but not in the spec')

if errors:
    print('\n'.join(errors))
    sys.exit(1)
print(f'{family} spec: {len(asserts)} values match the uapi header, '
      f'{len(ops)} operations match their policies')
