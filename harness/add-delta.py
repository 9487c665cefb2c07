#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Put what a new file gained in the work tree into a patch of the series.

add-delta.py <patch> <file>

<file> is a new file of the series whose final content in the work tree
differs from the committed one (git's HEAD). The difference goes into
<patch> (the patch that adds the file, or any patch after it) and every
later state of the file: the states are taken from the committed file
and the deltas of patches/deltas/, the difference applied to each from
<patch> on, and the deltas from <patch> on rebuilt. <patch> gets a delta
and a patches/files.map row if it had none. The script checks that the
last state is the file in the work tree.

A hunk that needs fuzz to apply to a state is named: read where it went
(harness/README.md, "Changing a patch in the middle of the series").
"""
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("move_delta",
                                              f"{HERE}/move-delta.py")
md = importlib.util.module_from_spec(spec)
spec.loader.exec_module(md)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    dst, name = sys.argv[1].removesuffix(".patch"), sys.argv[2]
    series = [l.strip().removesuffix(".patch")
              for l in open(f"{md.PATCHES}/series")
              if l.strip().endswith(".patch") and not l.startswith("#")]
    mapfile = f"{md.PATCHES}/files.map"
    rows = open(mapfile).read().splitlines(True)
    adders = [r.split()[0].removesuffix(".patch") for r in rows
              if not r.startswith("#") and r.split()[1:2] == [name]]
    if not adders or dst not in series:
        sys.exit(f"{name}: not a new file of the series, or no patch {dst}")
    first = min(series.index(p) for p in adders)
    if series.index(dst) < first:
        sys.exit(f"{dst} comes before {name} exists")

    def delta(p):
        return f"{md.PATCHES}/deltas/{p}/{name}.diff"

    old = subprocess.run(["git", "-C", md.REPO, "show", f"HEAD:{name}"],
                         capture_output=True, text=True, check=True).stdout
    new_final = open(os.path.join(md.REPO, name)).read()
    gained = md.udiff(name, old, new_final)
    if not gained:
        sys.exit(f"{name}: no change since HEAD")

    # the states after each patch with a delta, from the committed file
    have = [p for p in series if os.path.exists(delta(p))]
    states = md.file_states(name, old, have, delta)
    if series.index(dst) > first and dst not in have:
        pos = sum(1 for p in have if series.index(p) < series.index(dst))
        have.insert(pos, dst)
        states = {(k + 1 if k >= pos else k): v for k, v in states.items()}
        states[pos] = states[pos - 1]
    start = have.index(dst) if dst in have else -1

    new = dict(states)
    for k in range(start, len(have)):
        t = md.run_patch(states[k], gained)
        if t is None:
            t = md.run_patch(states[k], gained, fuzz=3)
            after = have[k] if k >= 0 else "the patch that adds it"
            if t is None:
                sys.exit(f"the change does not apply to {name} after {after}")
            print(f"{name}: applied with fuzz after {after}: check it")
        new[k] = t
    if new[len(have) - 1] != new_final:
        sys.exit(f"{name}: the last state is not the work tree's file")

    md.write_deltas(name, have, new, start, len(have), delta)
    if start >= 0:
        md.save_map(mapfile, rows, dst, name)
    print(f"{name}: into {dst}, {len(have) - max(start, 0)} deltas rebuilt")


if __name__ == "__main__":
    main()
