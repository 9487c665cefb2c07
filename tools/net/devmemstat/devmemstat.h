/* SPDX-License-Identifier: GPL-2.0 */
/* devmemstat: the map values its BPF half fills and its user half reads. */
#ifndef DEVMEMSTAT_H
#define DEVMEMSTAT_H

#define DEVMEMSTAT_MAX_SOCKS	4096
#define DEVMEMSTAT_MAX_POOLS	1024

/* One socket that received devmem (key: its address, as the events give) */
struct devmemstat_sock {
	__u64 frags;		/* cmsgs (= tokens) recvmsg handed out */
	__u64 devmem_bytes;	/* payload left in device memory */
	__u64 linear_bytes;	/* payload the CPU copied from linear parts */
	__u64 host_bytes;	/* readable skbs the CPU copied */
	__u64 freed;		/* tokens SO_DEVMEM_DONTNEED gave back */
	__u64 dontneed_calls;
	__u64 released;		/* tokens dropped at close() or destroy */
	__u32 pid;		/* the last reader */
	__u32 closed;
	char comm[16];
};

/* One page pool fed by a binding (key: the pool's id, as in netlink) */
struct devmemstat_pool {
	__u64 allocs;		/* net_iovs the binding gave the pool */
	__u64 releases;		/* and got back */
	__u64 last_ns;		/* time of the last event */
	__u32 binding_id;
	__s32 ifindex;
	__u32 queue;
	__u32 inflight;		/* the pool's net_iovs out, at the last event */
	__u32 binding_in_use;	/* the binding's net_iovs out, likewise */
};

#endif /* DEVMEMSTAT_H */
