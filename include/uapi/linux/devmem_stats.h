/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * The "devmem-stats" generic netlink family: per RX queue, the payload that
 * readers of device memory got in host memory instead, by copy; per TCP
 * socket, the tokens user space holds on device memory.
 *
 * Our own family, for devmem TCP on 6.1: upstream has no such counters, and
 * a family of its own keeps upstream's "netdev" family exactly upstream's.
 * Documentation/netlink/specs/devmem-stats.yaml describes it for ynl;
 * Documentation/networking/devmem.rst says what each counter counts.
 */
#ifndef _UAPI_LINUX_DEVMEM_STATS_H
#define _UAPI_LINUX_DEVMEM_STATS_H

#define DEVMEM_STATS_FAMILY_NAME	"devmem-stats"
#define DEVMEM_STATS_FAMILY_VERSION	1

enum {
	DEVMEM_STATS_A_QUEUE_IFINDEX = 1,	/* u32 */
	DEVMEM_STATS_A_QUEUE_ID,		/* u32, an RX queue */
	DEVMEM_STATS_A_QUEUE_PAD,
	/* u64: recvmsg(MSG_SOCK_DEVMEM) got in host memory */
	DEVMEM_STATS_A_QUEUE_DEVMEM_HOST_BYTES,
	DEVMEM_STATS_A_QUEUE_DEVMEM_HOST_COPIES,
	/* u64: io_uring RECV_ZC copied instead of handing out buffers */
	DEVMEM_STATS_A_QUEUE_ZCRX_COPY_BYTES,
	DEVMEM_STATS_A_QUEUE_ZCRX_COPIES,

	__DEVMEM_STATS_A_QUEUE_MAX,
	DEVMEM_STATS_A_QUEUE_MAX = (__DEVMEM_STATS_A_QUEUE_MAX - 1)
};

/* A TCP socket of the caller's namespace that holds tokens */
enum {
	DEVMEM_STATS_A_SOCK_INODE = 1,		/* u64, as in /proc/PID/fd */
	DEVMEM_STATS_A_SOCK_PAD,
	DEVMEM_STATS_A_SOCK_UID,		/* u32, its owner */
	DEVMEM_STATS_A_SOCK_FAMILY,		/* u32, AF_INET or AF_INET6 */
	/* binary, 4 or 16 bytes in network order; ports u16 in host order */
	DEVMEM_STATS_A_SOCK_SADDR,
	DEVMEM_STATS_A_SOCK_SPORT,
	DEVMEM_STATS_A_SOCK_DADDR,
	DEVMEM_STATS_A_SOCK_DPORT,
	/* u32: tokens user space holds, each on a fragment of device memory */
	DEVMEM_STATS_A_SOCK_TOKENS,

	__DEVMEM_STATS_A_SOCK_MAX,
	DEVMEM_STATS_A_SOCK_MAX = (__DEVMEM_STATS_A_SOCK_MAX - 1)
};

enum {
	DEVMEM_STATS_CMD_QUEUE_GET = 1,
	DEVMEM_STATS_CMD_SOCK_GET,

	__DEVMEM_STATS_CMD_MAX,
	DEVMEM_STATS_CMD_MAX = (__DEVMEM_STATS_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_DEVMEM_STATS_H */
