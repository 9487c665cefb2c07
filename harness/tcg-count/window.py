#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The guest-physical pages a receiver's payload lands in, for the TCG
plugin's window (harness/tcg-count/tcg_count.c): run in the guest, as
root, it prints "window <pfn> <pages>" lines for the plugin's control
file.

window.py udmabuf <pid> [hold]
                         the pages of every memfd <pid> holds open: a
                         udmabuf's, which ncdevmem keeps open, so these
                         are the pages the NIC writes the payload to.
                         Each is taken with pidfd_getfd(), mapped and
                         touched here, and its frames read from this
                         process's pagemap (which shows nothing of a
                         udmabuf's own mapping: 6.1's is VM_PFNMAP).
                         With "hold", it then prints "held" and keeps the
                         memfds open until
                         it is killed: the pages stay the window's after
                         <pid> exits, rather than going back to the page
                         allocator and being counted in their next use
window.py anon <pid>     the present pages of <pid>'s private writable
                         memory (heap, anonymous mappings): where recv()
                         copies the payload; the receiver touches its
                         buffer before it listens

The frames are printed as QEMU 7.2's plugin API numbers them:
qemu_plugin_hwaddr_phys_addr() returns the offset in the RAM block, not
the guest-physical address, and on a PC machine the RAM above the 4 GiB
hole continues the block where the RAM below it ended. So a frame above
4 GiB is moved down by the hole: 4 GiB less the RAM below it (the run of
RAM and firmware-reserved ranges from 1 MiB in /proc/iomem).

The number of pages is on stderr; exit 1 if no page was found.
"""
import ctypes
import mmap
import os
import signal
import struct
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")
SYS_PIDFD_GETFD = 438		# x86-64 and the generic table alike
PFN_MASK = (1 << 55) - 1
PRESENT = 1 << 63


def frames(pagemap, start, pages):
    """{pfn} of the present pages among @pages from address @start"""
    out = set()
    with open(pagemap, "rb") as f:
        f.seek(start // PAGE * 8)
        data = f.read(pages * 8)
    for (e,) in struct.iter_unpack("<Q", data):
        if e & PRESENT and e & PFN_MASK:
            out.add(e & PFN_MASK)
    return out


def memfd_frames(pid, held):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long)
    pidfd = os.pidfd_open(pid)
    found = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if not link.startswith("/memfd:"):
            continue
        mine = libc.syscall(SYS_PIDFD_GETFD, pidfd, int(fd), 0)
        if mine < 0:
            print(f"window.py: {link}: pidfd_getfd: "
                  f"{os.strerror(ctypes.get_errno())}", file=sys.stderr)
            continue
        size = os.lseek(mine, 0, os.SEEK_END)
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, mine,
                         0)
        if addr not in (None, ctypes.c_void_p(-1).value):
            # fault every page in, then read where each lies
            for off in range(0, size, PAGE):
                ctypes.string_at(addr + off, 1)
            found |= frames("/proc/self/pagemap", addr, size // PAGE)
            libc.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(size))
        else:
            print(f"window.py: {link}: mmap: "
                  f"{os.strerror(ctypes.get_errno())}", file=sys.stderr)
        held.append(mine)
    os.close(pidfd)
    return found


def anon_frames(pid):
    found = set()
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        name = f[5] if len(f) > 5 else ""
        if f[1][:2] != "rw" or f[1][3] != "p" or name not in ("", "[heap]"):
            continue
        found |= frames(f"/proc/{pid}/pagemap", lo, (hi - lo) // PAGE)
    return found


def low_ram_end():
    """the end of the RAM below the 4 GiB hole: the run of "System RAM"
    and "Reserved" ranges from 1 MiB (past the legacy holes) in
    /proc/iomem"""
    end = 1 << 20
    for line in open("/proc/iomem"):
        if line.startswith(" "):
            continue
        span, name = (x.strip() for x in line.split(" : ", 1))
        lo, hi = (int(x, 16) for x in span.split("-"))
        if name in ("System RAM", "Reserved") and lo <= end:
            end = max(end, hi + 1)
    return min(end, 1 << 32)


def main():
    if (len(sys.argv) not in (3, 4) or sys.argv[1] not in ("udmabuf", "anon")
            or sys.argv[3:] not in ([], ["hold"])):
        sys.exit(__doc__.split("\n\n")[1])
    pid, held = int(sys.argv[2]), []
    pfns = sorted(memfd_frames(pid, held) if sys.argv[1] == "udmabuf"
                  else anon_frames(pid))
    if not pfns:
        sys.exit(f"window.py: no present page of {sys.argv[1]} in {pid}")
    hole = ((1 << 32) - low_ram_end()) // PAGE
    pfns = [p - hole if p >= (1 << 32) // PAGE else p for p in pfns]
    start = prev = pfns[0]
    for p in pfns[1:] + [None]:
        if p is not None and p == prev + 1:
            prev = p
            continue
        print(f"window {start} {prev - start + 1}")
        if p is not None:
            start = prev = p
    print(f"window.py: {len(pfns)} pages", file=sys.stderr)
    if sys.argv[3:] == ["hold"]:
        print("held", flush=True)
        signal.pause()
    for fd in held:
        os.close(fd)


if __name__ == "__main__":
    main()
