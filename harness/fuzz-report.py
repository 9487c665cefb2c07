#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The report of a make fuzz run (harness/fuzz.sh).

Reads, in the fuzz directory (build/fuzz): filecover.csv (syz-manager's
/filecover: lines and PCs covered per source file), workdir/crashes/*
(one directory per crash title) and the manager's last heartbeat, given
as an argument. Writes coverage.csv and coverage.png there and prints the
report: executions, corpus, crashes, and the coverage of each of our
files, with the three groups the issue sets a goal for (zcrx, devmem,
netdev-genl: 60 %).

A run that executed no program (no heartbeat, or "exec total=0": no VM
came up, or none ran a program) has no coverage to report: the report
says so, lists the crashes (a VM that does not boot is saved as one) and
exits with status 1 instead of printing 0 % for every file.

The share is of coverage points: the KCOV call sites the compiler put in
a file (TotalPCs), about one per basic block, of which the run reached
CoveredPCs. syz-manager's TotalLines is the length of the file, comments
and blank lines included, not its executable lines, so the lines reached
are printed as a count beside it, not as a share.

usage: fuzz-report.py FUZZ_DIR MINUTES "HEARTBEAT"
"""

import csv
import os
import re
import sys

# Our files, in the order of the table; a group name where the goal holds.
OURS = [
    ("io_uring/zcrx.c", "zcrx"),
    ("io_uring/region.c", "zcrx"),
    ("net/core/devmem.c", "devmem"),
    ("net/core/devmem_tx.c", "devmem"),
    ("net/core/devmem_stats.c", "devmem"),
    ("net/core/devmem_debug.c", "devmem"),
    ("net/core/sock_devmem.c", "devmem"),
    ("net/ipv4/tcp_devmem.c", "devmem"),
    ("net/core/netdev-genl.c", "netdev-genl"),
    ("net/core/netdev-genl-gen.c", "netdev-genl"),
    ("net/core/netdev_rx_queue.c", ""),
    ("net/core/page_pool_user.c", ""),
    ("drivers/net/hdsim/", ""),
    ("drivers/dma-buf/p2pbuf.c", ""),
]
GOAL = 60.0


FIELDS = ("CoveredPCs", "TotalPCs", "CoveredLines", "TotalLines")


def read_cover(path):
    """{file: (covered PCs, total PCs, covered lines, file length)}."""
    cover = {}
    if not os.path.exists(path):
        return cover
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                cover[row["Filename"]] = tuple(int(row[k]) for k in FIELDS)
            except (KeyError, ValueError):
                continue
    return cover


def ours(cover):
    """[(name, group, pcs, total pcs, lines, file lines)], a directory
    summed over its files."""
    rows = []
    for name, group in OURS:
        hit = [v for k, v in cover.items()
               if k == name or (name.endswith("/") and k.startswith(name))]
        rows.append((name, group) +
                    tuple(sum(v[i] for v in hit) for i in range(4)))
    return rows


def crashes(workdir):
    """[(title, count of logs)] of the crashes syz-manager saved."""
    out = []
    root = os.path.join(workdir, "crashes")
    if not os.path.isdir(root):
        return out
    for d in sorted(os.listdir(root)):
        desc = os.path.join(root, d, "description")
        if not os.path.exists(desc):
            continue
        with open(desc) as f:
            title = f.read().strip()
        logs = [x for x in os.listdir(os.path.join(root, d))
                if x.startswith("log")]
        out.append((title, len(logs)))
    return out


def executions(stats):
    """The programs executed: "exec total=N (R/min)" of the heartbeat, 0
    where there is none (syz-manager writes none before a VM connects)."""
    m = re.match(r"\d+", stats.get("exec total", ""))
    return int(m.group()) if m else 0


def pct(c, t):
    return 100.0 * c / t if t else 0.0


def picture(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = [r[0] for r in rows if r[3]]
    vals = [pct(r[2], r[3]) for r in rows if r[3]]
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(names) + 1.2))
    ax.barh(names[::-1], vals[::-1], color="tab:blue")
    ax.axvline(GOAL, color="tab:red", linestyle="--", label="goal %d %%" % GOAL)
    ax.set_xlim(0, 100)
    ax.set_xlabel("coverage points (KCOV call sites) reached by syzkaller (%)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def main():
    fz, minutes, beat = sys.argv[1], sys.argv[2], sys.argv[3]
    stats = dict(re.findall(r"([a-z][a-z ]*?)=(\S+)", beat))
    found = crashes(os.path.join(fz, "workdir"))
    if executions(stats) == 0:
        print("fuzz report: %s min of syzkaller: NO PROGRAM EXECUTED" % minutes)
        print("  %s" % ("no VM came up (no heartbeat from syz-manager)"
                        if not beat.strip() else "heartbeat: " + beat.strip()))
        print("  see syz-manager's log, with the console output of a VM that"
              " did not boot: %s" % os.path.join(fz, "manager.log"))
        print("crashes: %d title(s)" % len(found))
        for title, n in found:
            print("  %s (%d log(s))" % (title, n))
        print("fuzz-report: no program executed, no coverage to report",
              file=sys.stderr)
        sys.exit(1)
    rows = ours(read_cover(os.path.join(fz, "filecover.csv")))
    with open(os.path.join(fz, "coverage.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "group", "covered_pcs", "total_pcs", "percent_pcs",
                    "covered_lines", "file_lines"])
        for name, group, c, t, lc, lt in rows:
            w.writerow([name, group, c, t, "%.1f" % pct(c, t), lc, lt])

    print("fuzz report: %s min of syzkaller" % minutes)
    for key in ("exec total", "corpus", "coverage", "signal", "crashes",
                "crash types"):
        if key in stats:
            print("  %-12s %s" % (key, stats[key]))
    print("crashes: %d title(s)" % len(found))
    for title, n in found:
        print("  %s (%d log(s))" % (title, n))

    print("coverage of our files: coverage points reached / in the file, and"
          " lines reached (of the file's length)")
    groups = {}
    for name, group, c, t, lc, lt in rows:
        mark = "" if t else "  (no code: no coverage points)"
        print("  %-30s %5d / %-5d %5.1f %%   lines %4d (of %d)%s"
              % (name, c, t, pct(c, t), lc, lt, mark))
        if group:
            g = groups.setdefault(group, [0, 0])
            g[0] += c
            g[1] += t
    for group, (c, t) in groups.items():
        verdict = "meets" if pct(c, t) >= GOAL else "below"
        print("  group %-12s %5.1f %% (%s the %d %% goal)"
              % (group, pct(c, t), verdict, GOAL))
    if picture(rows, os.path.join(fz, "coverage.png")):
        print("picture: %s" % os.path.join(fz, "coverage.png"))
    print("table: %s" % os.path.join(fz, "coverage.csv"))


if __name__ == "__main__":
    main()
