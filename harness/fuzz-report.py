#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The report of a make fuzz run (harness/fuzz.sh).

Reads, in the fuzz directory (build/fuzz): filecover.csv (syz-manager's
/filecover: lines and PCs covered per source file), funccover.csv (its
/funccover: PCs covered per function), workdir/crashes/*
(one directory per crash title) and the manager's last heartbeat, given
as an argument. Writes coverage.csv and coverage.png there and prints the
report: executions, corpus, crashes, the coverage of each of our files,
with the three groups the goal is set for (zcrx, devmem, netdev-genl:
75 % of each group and of each of its files), and of the teardown paths:
each function that unbinds, uninstalls, releases or frees what a binding,
a zcrx instance or a token store holds, with the context it runs in.

A run that executed no program (no heartbeat, or "exec total=0": no VM
came up, or none ran a program) has no coverage to report: the report
says so, lists the crashes (a VM that does not boot is saved as one) and
exits with status 1 instead of printing 0 % for every file.

The share is of coverage points: the KCOV call sites the compiler put in
a file (TotalPCs), about one per basic block, of which the run reached
CoveredPCs. syz-manager's TotalLines is the length of the file, comments
and blank lines included, not its executable lines, so the lines reached
are printed as a count beside it, not as a share.

RUNS, where given, lists the runs the corpus grew over, this one last
(one a line: start, commit, minutes, programs executed, corpus): the
report gives their sum, the time the goal is measured over.

usage: fuzz-report.py FUZZ_DIR MINUTES "HEARTBEAT" [RUNS]
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
GOAL = 75.0

# The teardown paths: (file, function, where it runs). KCOV counts what a
# task runs; hdsim's NAPI poll ("softirq") counts for the task that
# started the queue, and the work items that free a binding and close and
# free a zcrx instance ("work") for the task that set it up (the series'
# KCOV patch); other work items would be nobody's. Inlined functions are
# not in the table.
TEARDOWN = [
    ("net/core/devmem.c", "net_devmem_unbind_dmabuf", "task: netlink close"),
    ("net/core/devmem.c", "net_devmem_unbind_owned", "task: netlink close"),
    ("net/core/devmem.c", "net_devmem_owner_drop", "task: netlink close"),
    ("net/core/devmem.c", "net_devmem_netdev_event", "task: device removal"),
    ("net/core/devmem.c", "mp_dmabuf_devmem_uninstall", "task: device removal"),
    ("net/core/devmem.c", "mp_dmabuf_devmem_destroy", "task/softirq: pool destroy"),
    ("net/core/devmem.c", "mp_dmabuf_devmem_release_netmem", "softirq: pool release"),
    ("net/core/devmem.c", "net_devmem_free_dmabuf", "any: net_iov back"),
    ("net/core/devmem.c", "net_devmem_dmabuf_binding_put", "any: last reference"),
    ("net/core/devmem.c", "net_devmem_dmabuf_binding_free", "work"),
    ("net/core/devmem.c", "net_devmem_dmabuf_unmap", "work"),
    ("net/core/devmem.c", "net_devmem_forget_mapping", "work"),
    ("net/core/devmem.c", "net_devmem_discard_binding", "task: bind failure"),
    ("net/core/devmem.c", "net_devmem_charge_owner_put", "task/work"),
    ("net/core/devmem_tx.c", "net_devmem_tx_binding_put", "any"),
    ("net/core/devmem_tx.c", "net_devmem_put_net_iov", "any: TX completion"),
    ("net/core/sock_devmem.c", "sk_devmem_tokens_release", "task: socket close"),
    ("net/core/netdev_rx_queue.c", "netif_mp_close_rxq", "task: unbind"),
    ("net/core/netdev_rx_queue.c", "dev_memory_provider_uninstall", "task: device removal"),
    ("io_uring/zcrx.c", "io_unregister_zcrx_ifqs", "work: ring exit"),
    ("io_uring/zcrx.c", "io_zcrx_ifq_close", "work: ring exit"),
    ("io_uring/zcrx.c", "io_zcrx_netdev_event", "task: device removal"),
    ("io_uring/zcrx.c", "io_zcrx_uninstall", "task/work"),
    ("io_uring/zcrx.c", "io_zcrx_scrub", "work: ring exit"),
    ("io_uring/zcrx.c", "io_zcrx_pp_destroy", "task/softirq: pool destroy"),
    ("io_uring/zcrx.c", "io_zcrx_release_netmem", "softirq: pool release"),
    ("io_uring/zcrx.c", "io_zcrx_ifq_put", "any: last reference"),
    ("io_uring/zcrx.c", "io_zcrx_ifq_free_work", "work"),
    ("io_uring/zcrx.c", "io_zcrx_forget_mapping", "work"),
    ("io_uring/zcrx.c", "io_zcrx_free_area", "work"),
    ("io_uring/zcrx.c", "io_zcrx_unmap_area", "work"),
    ("io_uring/region.c", "io_free_region", "task/work"),
    ("io_uring/region.c", "io_region_release_pages", "task/work"),
]


FIELDS = ("CoveredPCs", "TotalPCs", "CoveredLines", "TotalLines")


def csv_rows(path, key, fields):
    """[(key(row), (int of each field))] of a syz-manager CSV, rows with
    a field that is no number left out; none where there is no file."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                out.append((key(row), tuple(int(row[k]) for k in fields)))
            except (KeyError, ValueError):
                continue
    return out


def read_cover(path):
    """{file: (covered PCs, total PCs, covered lines, file length)}."""
    return dict(csv_rows(path, lambda r: r["Filename"], FIELDS))


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


def read_funccover(path):
    """{(file, function): (covered PCs, total PCs)}, the files named as
    in filecover.csv; a function's copies (a static one in a header)
    summed."""
    cover = {}
    for k, (c, t) in csv_rows(path, lambda r: (r["Filename"], r["Function"]),
                              ("Covered PCs", "Total PCs")):
        old = cover.get(k, (0, 0))
        cover[k] = (old[0] + c, old[1] + t)
    return cover


def teardown(funccover):
    """[(file, function, context, covered, total)]; total 0 where the
    function is not in the kernel (inlined everywhere, or gone)."""
    rows = []
    for name, func, ctx in TEARDOWN:
        c, t = funccover.get((name, func), (0, 0))
        rows.append((name, func, ctx, c, t))
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


def runs(path):
    """[(start, commit, minutes, programs, corpus)] of the runs file."""
    out = []
    if not path or not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 5 and all(x.isdigit() for x in w[2:]):
                out.append((w[0], w[1], int(w[2]), int(w[3]), int(w[4])))
    return out


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
    done = runs(sys.argv[4] if len(sys.argv) > 4 else None)
    if done:
        print("  the corpus grew over %d min in %d run(s), %d programs executed"
              % (sum(r[2] for r in done), len(done), sum(r[3] for r in done)))
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
        below = [r[0] for r in rows
                 if r[1] == group and r[3] and pct(r[2], r[3]) < GOAL]
        print("  group %-12s %5.1f %% (%s the %d %% goal; files below it: %s)"
              % (group, pct(c, t), verdict, GOAL,
                 ", ".join(below) if below else "none"))

    down = teardown(read_funccover(os.path.join(fz, "funccover.csv")))
    reached = [r for r in down if r[3]]
    print("teardown paths: %d of %d functions reached, %d / %d coverage points"
          % (len(reached), len([r for r in down if r[4]]),
             sum(r[3] for r in down), sum(r[4] for r in down)))
    for name, func, ctx, c, t in down:
        print("  %-24s %-34s %5s  %s"
              % (os.path.basename(name), func,
                 "%d/%d" % (c, t) if t else "-", ctx))
    with open(os.path.join(fz, "teardown.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "function", "context", "covered_pcs", "total_pcs"])
        w.writerows(down)
    if picture(rows, os.path.join(fz, "coverage.png")):
        print("picture: %s" % os.path.join(fz, "coverage.png"))
    print("tables: %s, %s" % (os.path.join(fz, "coverage.csv"),
                              os.path.join(fz, "teardown.csv")))


if __name__ == "__main__":
    main()
