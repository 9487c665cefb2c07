#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""devmem's socket numbers are upstream's on every architecture.

check-socket-uapi.py <kernel tree>

Upstream's values (Documentation/networking/devmem-upstream.rst; parisc
as 6.18 numbers them, not 6.12's decimal): SO_DEVMEM_LINEAR, _DMABUF and
_DONTNEED in each asm/socket.h, SCM_DEVMEM_LINEAR and _DMABUF the same
numbers, MSG_SOCK_DEVMEM in include/linux/socket.h. Each value must also
be taken by no other SO_/SCM_ option (resp. MSG_ flag) of its header: a
program built for upstream would otherwise ask for something else.
Exit 1 with one line per difference.
"""
import os
import re
import sys

SOCKET_H = {
    "include/uapi/asm-generic/socket.h": (78, 79, 80),
    "arch/alpha/include/uapi/asm/socket.h": (78, 79, 80),
    "arch/mips/include/uapi/asm/socket.h": (78, 79, 80),
    "arch/parisc/include/uapi/asm/socket.h": (0x404E, 0x404F, 0x4050),
    "arch/sparc/include/uapi/asm/socket.h": (0x0057, 0x0058, 0x0059),
}
OPTS = ("SO_DEVMEM_LINEAR", "SO_DEVMEM_DMABUF", "SO_DEVMEM_DONTNEED")
SCMS = {"SCM_DEVMEM_LINEAR": "SO_DEVMEM_LINEAR",
        "SCM_DEVMEM_DMABUF": "SO_DEVMEM_DMABUF"}
MSG_SOCK_DEVMEM = 0x2000000
DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s+(\S+)", re.M)


def defines(path):
    """name -> token, of every #define in @path."""
    with open(path) as f:
        return dict(DEFINE.findall(f.read()))


def number(token):
    try:
        return int(token, 0)
    except ValueError:
        return None


def check_socket_h(tree, rel, want, problems):
    defs = defines(os.path.join(tree, rel))
    for name, value in zip(OPTS, want):
        got = number(defs.get(name, "missing"))
        if got != value:
            problems.append(f"{rel}: {name} is {defs.get(name, 'missing')}, upstream's is {value:#x}")
    for scm, so in SCMS.items():
        if defs.get(scm) != so and number(defs.get(scm, "")) != number(defs.get(so, "")):
            problems.append(f"{rel}: {scm} is {defs.get(scm, 'missing')}, not {so}")
    # no other option or control message takes a devmem number
    for name, token in defs.items():
        if not name.startswith(("SO_", "SCM_")) or name in OPTS or name in SCMS:
            continue
        if number(token) in want:
            problems.append(f"{rel}: {name} ({token}) takes a devmem number")


def check_msg(tree, problems):
    rel = "include/linux/socket.h"
    defs = defines(os.path.join(tree, rel))
    if number(defs.get("MSG_SOCK_DEVMEM", "")) != MSG_SOCK_DEVMEM:
        problems.append(f"{rel}: MSG_SOCK_DEVMEM is {defs.get('MSG_SOCK_DEVMEM', 'missing')}, upstream's is {MSG_SOCK_DEVMEM:#x}")
    for name, token in defs.items():
        if name.startswith("MSG_") and name != "MSG_SOCK_DEVMEM" and \
           number(token) == MSG_SOCK_DEVMEM:
            problems.append(f"{rel}: {name} ({token}) is MSG_SOCK_DEVMEM's bit")


def main():
    tree = sys.argv[1]
    problems = []
    for rel, want in SOCKET_H.items():
        check_socket_h(tree, rel, want, problems)
    check_msg(tree, problems)
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"socket uAPI: SO_DEVMEM_*, SCM_DEVMEM_* in {len(SOCKET_H)} asm/socket.h and "
          "MSG_SOCK_DEVMEM are upstream's, each taken by nothing else")
    return 0


if __name__ == "__main__":
    sys.exit(main())
