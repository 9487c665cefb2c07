/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * The "devmem-stats" generic netlink family: per RX queue, the payload that
 * readers of device memory got in host memory instead, by copy.
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

enum {
	DEVMEM_STATS_CMD_QUEUE_GET = 1,

	__DEVMEM_STATS_CMD_MAX,
	DEVMEM_STATS_CMD_MAX = (__DEVMEM_STATS_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_DEVMEM_STATS_H */
