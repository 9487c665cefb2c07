#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sort the KCSAN kernel's data-race reports of one run.

usage: kcsan-report.py <tree> <explained file> <log>...

<tree> is build/src, a git repository whose tag "base" is Debian's 6.1:
a function is ours when a line of it (its signature included) differs
from the base, so every function of a new file, and the functions of
6.1 that a patch of the series changes. A report is
  ours        when one of the two racing accesses is in a function of ours
              (the two names of its "data-race in A / B" line),
  under ours  when neither is, but one of ours called it (the first
              UNDER_DEPTH frames of either access's stack),
  6.1's       otherwise.
Each distinct race (its pair of functions, either order) is listed once,
with how many times it was reported and the first report in full. The
file of explained races has one line per race, "A / B<TAB>why the race
is benign or where it was fixed"; a race of ours or under ours that it
does not explain fails the run. So does a run in which KCSAN did not
watch: no "enabled: 1" in its debugfs counters, or no watchpoint set up.
A log named kcsan-stats.log holds those counters (one per VM, summed).
"""
import re
import subprocess
import sys

UNDER_DEPTH = 4
DEF_RE = re.compile(r'^[A-Za-z_][\w \t\*]*?\b(\w+)\s*\(')
HUNK_RE = re.compile(r'^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@')
BUG_RE = re.compile(r'BUG: KCSAN: ([\w -]+?) in (\S+)(?: / (\S+))?\s*$')
FRAME_RE = re.compile(r'^\s*(?:\[[ \d.]+\]\s*)?\s([\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+')
ACCESS_RE = re.compile(r'(?:read|write|read-write|race at unknown origin).* (?:by|on) ')
TS_RE = re.compile(r'^\[ *\d+\.\d+\] ')


def git(tree, *args):
    return subprocess.run(['git', '-C', tree, *args], check=True,
                          capture_output=True, text=True).stdout


def functions_spans(text):
    """(name, first line, last line) of each function definition."""
    spans = []
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        m = DEF_RE.match(lines[i])
        if m and not lines[i].rstrip().endswith(';') and \
           m.group(1) not in ('if', 'for', 'while', 'switch', 'return', 'sizeof'):
            # the body opens with "{" alone on a line before any ";"
            j = i
            while j < len(lines) and j < i + 12 and lines[j] != '{':
                if lines[j].rstrip().endswith(';'):
                    break
                j += 1
            if j < len(lines) and lines[j] == '{':
                k = j + 1
                while k < len(lines) and lines[k] != '}':
                    k += 1
                spans.append((m.group(1), i + 1, k + 1))
                i = k + 1
                continue
        i += 1
    return spans


def our_functions(tree):
    ours = set()
    diff = git(tree, 'diff', '-U0', '--no-color', '--no-renames', 'base', '--',
               '*.c', '*.h', ':(exclude)tools', ':(exclude)samples')
    changed = {}
    path = None
    for line in diff.split('\n'):
        if line.startswith('+++ '):
            path = line[6:] if line != '+++ /dev/null' else None
            changed.setdefault(path, [])
        elif path and (m := HUNK_RE.match(line)):
            start, count = int(m.group(1)), int(m.group(2) or 1)
            # a pure deletion marks the line it sits after
            changed[path].append((start, start + max(count, 1) - 1))
    for path, ranges in changed.items():
        if not path:
            continue
        try:
            text = open(f'{tree}/{path}', encoding='utf-8', errors='replace').read()
        except OSError:
            continue
        for name, first, last in functions_spans(text):
            if any(a <= last and b >= first for a, b in ranges):
                ours.add(name)
    return ours


def reports(logs):
    """Each report: (kind, (A, B), [frames of each access], text).

    The logs are the consoles, one per VM: dmesg would repeat them.
    """
    found = []
    for log in logs:
        try:
            lines = open(log, encoding='utf-8', errors='replace').read().split('\n')
        except OSError:
            continue
        i = 0
        while i < len(lines):
            m = BUG_RE.search(lines[i])
            if not m:
                i += 1
                continue
            kind, a, b = m.group(1), m.group(2), m.group(3)
            a = re.sub(r'\+0x.*', '', a)
            body, stacks = [lines[i]], []
            i += 1
            while i < len(lines) and '=====' not in lines[i] and \
                    not BUG_RE.search(lines[i]):
                body.append(lines[i])
                text = TS_RE.sub('', lines[i])
                if ACCESS_RE.match(text):
                    stacks.append([])
                elif stacks and (f := FRAME_RE.match(' ' + text.strip())):
                    stacks[-1].append(f.group(1))
                i += 1
            found.append((kind, (a, b), stacks, '\n'.join(body)))
    return found


def main():
    tree, explained_file = sys.argv[1], sys.argv[2]
    stats_logs = [f for f in sys.argv[3:] if f.endswith('kcsan-stats.log')]
    logs = [f for f in sys.argv[3:] if f not in stats_logs]
    ours = our_functions(tree)
    explained = {}
    for line in open(explained_file):
        if line.startswith('#') or not line.strip():
            continue
        pair, _, why = line.rstrip('\n').partition('\t')
        explained[frozenset(x.strip() for x in pair.split(' / '))] = why.strip()

    races = {}
    for kind, (a, b), stacks, text in reports(logs):
        key = frozenset(x for x in (a, b) if x)
        if key in races:
            races[key]['count'] += 1
            continue
        top = {a, b} - {None}
        if top & ours:
            where = 'ours'
        elif any(set(s[:UNDER_DEPTH]) & ours for s in stacks):
            where = 'under ours'
        else:
            where = "6.1's"
        races[key] = {'kind': kind, 'pair': (a, b), 'where': where,
                      'count': 1, 'text': text}

    stats, vms = {}, 0
    for stats_log in stats_logs:
        try:
            lines = open(stats_log).read().split('\n')
        except OSError:
            continue
        vms += 1
        for line in lines:
            k, _, v = line.partition(':')
            if v.strip().lstrip('-').isdigit():
                stats[k.strip()] = stats.get(k.strip(), 0) + int(v)

    failed = []
    print(f'KCSAN: {len(ours)} functions of ours (changed from the base); '
          f'{len(races)} distinct races reported')
    if stats:
        print(f'KCSAN counters, {vms} VM(s) summed: ' +
              ', '.join(f'{k} {v}' for k, v in stats.items()))
    if not vms or stats.get('enabled') != vms:
        failed.append('KCSAN was not enabled in every VM (debugfs kcsan counters missing or "enabled: 0")')
    elif stats.get('setup_watchpoints', 0) == 0:
        failed.append('KCSAN set up no watchpoint: it watched nothing')
    for where in ('ours', 'under ours', "6.1's"):
        group = [r for r in races.values() if r['where'] == where]
        print(f'\n{where}: {len(group)}')
        for r in sorted(group, key=lambda r: r['pair'][0]):
            a, b = r['pair']
            name = f'{a} / {b}' if b else a
            why = explained.get(frozenset(x for x in (a, b) if x))
            state = f'explained: {why}' if why else \
                ('UNEXPLAINED' if where != "6.1's" else 'not ours')
            print(f'  {r["kind"]} in {name} (x{r["count"]}): {state}')
            if where != "6.1's" and not why:
                failed.append(f'{r["kind"]} in {name}')
                print('    ' + r['text'].replace('\n', '\n    '))
    if failed:
        print(f'\nFAIL: {len(failed)} problem(s):')
        for f in failed:
            print(f'  {f}')
        return 1
    print('\nno unexplained race in our code')
    return 0


if __name__ == '__main__':
    sys.exit(main())
