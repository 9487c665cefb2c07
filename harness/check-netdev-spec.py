# SPDX-License-Identifier: GPL-2.0
"""Check Documentation/netlink/specs/netdev.yaml against the uapi header
(compiled with gcc, so the C enum arithmetic is what is checked) and the
attribute policies of net/core/netdev-genl-gen.c."""
import os
import re
import subprocess
import sys
import tempfile

import yaml

repo = sys.argv[1]
spec = yaml.safe_load(open(os.path.join(repo, 'Documentation/netlink/specs/netdev.yaml')))
genl = open(os.path.join(repo, 'net/core/netdev-genl-gen.c')).read()


def cname(*parts):
    return '_'.join(p.upper().replace('-', '_') for p in parts)


asserts = []
sets = {}
for aset in spec['attribute-sets']:
    attrs = {}
    for a in aset['attributes']:
        if 'value' in a:
            attrs[a['name']] = a
            asserts.append((cname('NETDEV_A', aset['name'], a['name']), a['value']))
    sets[aset['name']] = attrs
for op in spec['operations']['list']:
    asserts.append((cname('NETDEV_CMD', op['name']), op['value']))
for i, e in enumerate(spec['definitions'][0]['entries']):
    asserts.append((cname('NETDEV_QUEUE_TYPE', e), i))

src = '#include <linux/netdev.h>\n' + ''.join(
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
for m in re.finditer(r'\.cmd\s*=\s*(NETDEV_CMD_\w+),(.*?)\}', genl, re.S):
    pol = re.search(r'\.policy\s*=\s*(\w+)', m.group(2))
    ops[m.group(1)] = pol.group(1) if pol else None


def policy_attrs(name):
    m = re.search(r'nla_policy ' + name + r'\[[^\]]*\]\s*=\s*\{(.*?)\n\};', genl, re.S)
    if not m:
        return None
    return set(re.findall(r'\[(NETDEV_A_\w+)\]', m.group(1)))


for op in spec['operations']['list']:
    cmd = cname('NETDEV_CMD', op['name'])
    if cmd not in ops:
        errors.append(f'{cmd}: in the spec but not in netdev_nl_ops')
        continue
    want = set()
    for mode in ('do', 'dump'):
        req = op.get(mode, {}).get('request', {})
        want |= {cname('NETDEV_A', op['attribute-set'], a) for a in req.get('attributes', [])}
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
    if cmd not in {cname('NETDEV_CMD', o['name']) for o in spec['operations']['list']}:
        errors.append(f'{cmd}: implemented but not in the spec')

if errors:
    print('\n'.join(errors))
    sys.exit(1)
print(f'netdev spec: {len(asserts)} values match the uapi header, '
      f'{len(ops)} operations match their policies')
