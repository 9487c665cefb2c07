#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fold what a later patch adds to a new file into an earlier patch.

move-delta.py [--plan | --append VAR WORD] <from-patch> <to-patch> <file>

<file> is a new file of the series (patches/files.map names the patch that
adds it; patches/deltas/<patch>/<file>.diff what each later patch adds).
<from-patch>'s delta of <file> goes into <to-patch>, which adds the file
or comes after the patch that does: every state of the file from
<to-patch> up to <from-patch> gains the moved lines, the deltas between
are rebuilt from those states, and <from-patch> no longer touches the
file (its delta and its files.map row go). The file's final content, in
the repository, does not change; the script checks that the state the
moved lines lead to is the one <from-patch> made.

Lines that differ from state to state are where a plain move fails:
  --plan             a "-PLAN=n/+PLAN=m" hunk (a ktap plan) becomes a
                     bump of every state's PLAN by m - n;
  --append VAR WORD  the hunk that appends WORD to a make variable
                     becomes an append to VAR in every state.
A hunk that still does not apply names the state; write those states by
hand (harness/README.md, "Changing a patch in the middle of the series").
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATCHES = os.path.join(REPO, "patches")


def run_patch(text, diff, reverse=False, fuzz=0):
    """@text with @diff applied (or reverted); None if a hunk fails."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "f")
        with open(path, "w") as f:
            f.write(text)
        dpath = os.path.join(tmp, "d")
        with open(dpath, "w") as f:
            f.write(diff)
        args = ["patch", "-s", f"-F{fuzz}", "--no-backup-if-mismatch",
                "-r", "-", path, dpath]
        if reverse:
            args.insert(1, "-R")
        if subprocess.run(args, capture_output=True).returncode:
            return None
        with open(path) as f:
            return f.read()


def udiff(name, a, b):
    with tempfile.TemporaryDirectory() as tmp:
        pa, pb = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        with open(pa, "w") as f:
            f.write(a)
        with open(pb, "w") as f:
            f.write(b)
        return subprocess.run(["diff", "-u", "--label", f"a/{name}",
                               "--label", f"b/{name}", pa, pb],
                              capture_output=True, text=True).stdout


def file_states(name, final, have, delta):
    """{i: @name after have[i]}, -1 as its first patch adds it, from @final
    and the deltas (exits if one does not come out)."""
    states, cur = {}, final
    for i in range(len(have) - 1, -1, -1):
        states[i] = cur
        cur = run_patch(cur, open(delta(have[i])).read(), reverse=True)
        if cur is None:
            sys.exit(f"{have[i]}'s delta of {name} does not come out")
    states[-1] = cur
    return states


def write_deltas(name, have, new, lo, hi, delta):
    """the deltas of have[lo..hi - 1], from the states @new"""
    for k in range(max(lo, 0), hi):
        os.makedirs(os.path.dirname(delta(have[k])), exist_ok=True)
        with open(delta(have[k]), "w") as f:
            f.write(udiff(name, new[k - 1], new[k]))


def save_map(mapfile, rows, patch, name):
    """patches/files.map as @rows, with "@patch.patch @name" added"""
    row = f"{patch}.patch {name}\n"
    with open(mapfile, "w") as f:
        f.writelines(rows + ([] if row in rows else [row]))


def hunks(diff):
    return re.split(r"(?m)^(?=@@ )", diff)


def changed(hunk, sign):
    return [l[1:] for l in hunk.splitlines()[1:] if l.startswith(sign)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plan", action="store_true")
    ap.add_argument("--append", nargs=2, metavar=("VAR", "WORD"))
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("file")
    a = ap.parse_args()
    src, dst, name = (p.removesuffix(".patch") for p in (a.src, a.dst, a.file))

    series = [l.strip().removesuffix(".patch") for l in open(f"{PATCHES}/series")
              if l.strip().endswith(".patch") and not l.startswith("#")]
    mapfile = f"{PATCHES}/files.map"
    rows = open(mapfile).read().splitlines(True)
    adders = [r.split()[0].removesuffix(".patch") for r in rows
              if not r.startswith("#") and r.split()[1:2] == [name]]
    if not adders:
        sys.exit(f"{name}: not a new file of the series (patches/files.map)")

    def delta(p):
        return f"{PATCHES}/deltas/{p}/{name}.diff"

    have = [p for p in series if os.path.exists(delta(p))]
    if src not in have:
        sys.exit(f"{src} has no delta of {name}")
    states = file_states(name, open(os.path.join(REPO, name)).read(), have,
                         delta)

    first = min(series.index(p) for p in adders)
    if series.index(dst) < first:
        sys.exit(f"{dst} comes before {name} exists")
    if dst not in have and series.index(dst) > first:
        # dst gets a delta of its own, from the state the patch before left
        pos = sum(1 for p in have if series.index(p) < series.index(dst))
        have.insert(pos, dst)
        states = {(k + 1 if k >= pos else k): v for k, v in states.items()}
        states[pos] = states[pos - 1]
    iy = have.index(dst) if dst in have else -1
    ix = have.index(src)
    if iy >= ix:
        sys.exit(f"{dst} does not come before {src}")

    moved = open(delta(src)).read()
    fixups = []
    if a.plan:
        plan = [h for h in hunks(moved) if re.search(r"(?m)^-PLAN=\d+$", h)]
        if len(plan) != 1:
            sys.exit("--plan: no single hunk that changes PLAN=")
        bump = (int(changed(plan[0], "+")[0].split("=")[1]) -
                int(changed(plan[0], "-")[0].split("=")[1]))
        moved = "".join(h for h in hunks(moved) if h != plan[0])
        fixups.append(lambda t: re.sub(r"(?m)^PLAN=(\d+)$",
                                       lambda m: f"PLAN={int(m[1]) + bump}",
                                       t, count=1))
    if a.append:
        var, word = a.append
        app = [h for h in hunks(moved) if h.startswith("@@") and
               changed(h, "+") and len(changed(h, "-")) == 1 and
               changed(h, "+") == [changed(h, "-")[0] + " " + word]]
        if len(app) != 1:
            sys.exit(f"--append: no single hunk that appends {word}")
        moved = "".join(h for h in hunks(moved) if h != app[0])

        def append(t):
            lines = t.split("\n")
            for i, l in enumerate(lines):
                if re.match(re.escape(var) + r"\s*[:+]?=", l):
                    while lines[i].endswith("\\"):
                        i += 1
                    lines[i] += " " + word
                    return "\n".join(lines)
            sys.exit(f"--append: no {var} in a state of {name}")
        fixups.append(append)

    new = dict(states)
    for k in range(iy, ix):
        t = run_patch(states[k], moved, fuzz=3)
        if t is None:
            after = have[k] if k >= 0 else "the patch that adds it"
            sys.exit(f"{src}'s lines do not apply to {name} after {after}")
        for fix in fixups:
            t = fix(t)
        new[k] = t
    if new[ix - 1] != states[ix]:
        sys.exit(f"moved, {name} differs from what {src} made of it")

    write_deltas(name, have, new, iy, ix, delta)
    os.unlink(delta(src))
    d = os.path.dirname(delta(src))
    while d != f"{PATCHES}/deltas" and not os.listdir(d):
        os.rmdir(d)
        d = os.path.dirname(d)

    rows = [r for r in rows if r.split()[:2] != [f"{src}.patch", name]]
    if iy >= 0:
        save_map(mapfile, rows, dst, name)
    else:
        with open(mapfile, "w") as f:
            f.writelines(rows)
    print(f"{name}: {src} -> {dst}, {ix - max(iy, 0)} deltas rebuilt")


if __name__ == "__main__":
    main()
