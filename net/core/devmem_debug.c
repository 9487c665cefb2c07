// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory TCP: debugfs counters for tests and benchmarks
 * (CONFIG_NET_DEVMEM_DEBUG). Not an ABI; nothing else depends on it.
 *
 * devmem/tcp_rx sums, for all sockets since boot, what the devmem
 * tracepoints report: the fragments recvmsg(MSG_SOCK_DEVMEM) handed out,
 * the payload bytes left in device memory, the payload bytes the CPU
 * copied out of linear parts, and the SO_DEVMEM_DONTNEED calls and
 * tokens freed. A test proves "no payload byte copied" with it.
 *
 * devmem/binding_mem gives the kernel memory a binding costs: a fixed
 * part and a part per net_iov.
 */
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/u64_stats_sync.h>
#include <net/netmem.h>
#include <trace/events/devmem.h>

#include "devmem.h"

struct devmem_debug_stats {
	u64_stats_t frags;
	u64_stats_t devmem_bytes;
	u64_stats_t linear_bytes;
	u64_stats_t dontneed_calls;
	u64_stats_t tokens_freed;
	struct u64_stats_sync syncp;
};

static DEFINE_PER_CPU(struct devmem_debug_stats, devmem_debug_stats);

/* Both tracepoints fire in process context, with preemption enabled. */
static void devmem_debug_recvmsg(void *unused, const struct sock *sk,
				 u32 frags, u32 devmem_bytes, u32 linear_bytes)
{
	struct devmem_debug_stats *st = get_cpu_ptr(&devmem_debug_stats);

	u64_stats_update_begin(&st->syncp);
	u64_stats_add(&st->frags, frags);
	u64_stats_add(&st->devmem_bytes, devmem_bytes);
	u64_stats_add(&st->linear_bytes, linear_bytes);
	u64_stats_update_end(&st->syncp);
	put_cpu_ptr(&devmem_debug_stats);
}

static void devmem_debug_dontneed(void *unused, const struct sock *sk,
				  u32 ranges, u32 freed)
{
	struct devmem_debug_stats *st = get_cpu_ptr(&devmem_debug_stats);

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->dontneed_calls);
	u64_stats_add(&st->tokens_freed, freed);
	u64_stats_update_end(&st->syncp);
	put_cpu_ptr(&devmem_debug_stats);
}

static int devmem_debug_tcp_rx_show(struct seq_file *seq, void *v)
{
	u64 sum[5] = {};
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct devmem_debug_stats *st =
			per_cpu_ptr(&devmem_debug_stats, cpu);
		unsigned int start;
		u64 val[5];

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			val[0] = u64_stats_read(&st->frags);
			val[1] = u64_stats_read(&st->devmem_bytes);
			val[2] = u64_stats_read(&st->linear_bytes);
			val[3] = u64_stats_read(&st->dontneed_calls);
			val[4] = u64_stats_read(&st->tokens_freed);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		for (i = 0; i < 5; i++)
			sum[i] += val[i];
	}
	seq_printf(seq, "frags %llu\ndevmem_bytes %llu\nlinear_bytes %llu\n",
		   sum[0], sum[1], sum[2]);
	seq_printf(seq, "dontneed_calls %llu\ntokens_freed %llu\n", sum[3],
		   sum[4]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(devmem_debug_tcp_rx);

static int devmem_debug_binding_mem_show(struct seq_file *seq, void *v)
{
	seq_printf(seq, "binding_bytes %zu\nniov_bytes %zu\n",
		   sizeof(struct net_devmem_dmabuf_binding),
		   sizeof(struct net_iov) + sizeof(u32));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(devmem_debug_binding_mem);

static int __init devmem_debug_init(void)
{
	struct dentry *dir;
	int cpu, err;

	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(&devmem_debug_stats, cpu)->syncp);

	err = register_trace_devmem_recvmsg(devmem_debug_recvmsg, NULL);
	if (err)
		return err;
	err = register_trace_devmem_dontneed(devmem_debug_dontneed, NULL);
	if (err)
		goto err_unregister_recvmsg;

	dir = debugfs_create_dir("devmem", NULL);
	debugfs_create_file("tcp_rx", 0400, dir, NULL,
			    &devmem_debug_tcp_rx_fops);
	debugfs_create_file("binding_mem", 0400, dir, NULL,
			    &devmem_debug_binding_mem_fops);
	return 0;

err_unregister_recvmsg:
	unregister_trace_devmem_recvmsg(devmem_debug_recvmsg, NULL);
	return err;
}
late_initcall(devmem_debug_init);
