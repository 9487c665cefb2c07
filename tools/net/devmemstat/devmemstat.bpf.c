// SPDX-License-Identifier: GPL-2.0
/*
 * devmemstat's BPF half: sums the devmem tracepoints per socket and per
 * page pool, and 6.1's page_pool state tracepoints for host pages, into
 * maps that devmemstat.c reads. Every number comes from a tracepoint's
 * fields; no payload is read.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#include "devmemstat.h"

/* struct trace_entry: what every tracepoint record starts with */
struct tp_head {
	__u16 type;
	__u8 flags;
	__u8 preempt_count;
	__s32 pid;
};

/* The records of include/trace/events/devmem.h (TP_STRUCT__entry) */
struct tp_recvmsg {
	struct tp_head h;
	const void *skaddr;
	__u32 frags;
	__u32 devmem_bytes;
	__u32 linear_bytes;
};

struct tp_dontneed {
	struct tp_head h;
	const void *skaddr;
	__u32 ranges;
	__u32 freed;
};

struct tp_sk_count {		/* devmem_host_copy, devmem_tokens_release */
	struct tp_head h;
	const void *skaddr;
	__u32 count;
};

struct tp_niov {
	struct tp_head h;
	__u32 binding_id;
	__u32 pool_id;
	__s32 ifindex;
	__u32 queue;
	__u32 niov_idx;
	__u32 in_use;
	__u32 inflight;
	__u64 dma_addr;
};

/* include/trace/events/page_pool.h: page_pool_state_hold/_release */
struct tp_pp_state {
	struct tp_head h;
	const void *pool;
	const void *page;
	__u32 cnt;
	unsigned long pfn;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DEVMEMSTAT_MAX_SOCKS);
	__type(key, __u64);
	__type(value, struct devmemstat_sock);
} socks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DEVMEMSTAT_MAX_POOLS);
	__type(key, __u32);
	__type(value, struct devmemstat_pool);
} pools SEC(".maps");

/* [0]: host pages page pools took from the page allocator, [1]: gave back */
__u64 host_pages[2];

static __always_inline struct devmemstat_sock *sock_get(const void *sk)
{
	struct devmemstat_sock zero = {}, *s;
	__u64 key = (unsigned long)sk;

	s = bpf_map_lookup_elem(&socks, &key);
	if (s)
		return s;
	bpf_map_update_elem(&socks, &key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&socks, &key);
}

SEC("tracepoint/devmem/devmem_recvmsg")
int on_recvmsg(struct tp_recvmsg *ctx)
{
	struct devmemstat_sock *s = sock_get(ctx->skaddr);

	if (!s)
		return 0;
	__sync_fetch_and_add(&s->frags, ctx->frags);
	__sync_fetch_and_add(&s->devmem_bytes, ctx->devmem_bytes);
	__sync_fetch_and_add(&s->linear_bytes, ctx->linear_bytes);
	s->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	return 0;
}

SEC("tracepoint/devmem/devmem_host_copy")
int on_host_copy(struct tp_sk_count *ctx)
{
	struct devmemstat_sock *s = sock_get(ctx->skaddr);

	if (!s)
		return 0;
	__sync_fetch_and_add(&s->host_bytes, ctx->count);
	s->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	return 0;
}

SEC("tracepoint/devmem/devmem_dontneed")
int on_dontneed(struct tp_dontneed *ctx)
{
	struct devmemstat_sock *s = sock_get(ctx->skaddr);

	if (!s)
		return 0;
	__sync_fetch_and_add(&s->freed, ctx->freed);
	__sync_fetch_and_add(&s->dontneed_calls, 1);
	return 0;
}

SEC("tracepoint/devmem/devmem_tokens_release")
int on_tokens_release(struct tp_sk_count *ctx)
{
	struct devmemstat_sock *s = sock_get(ctx->skaddr);

	if (!s)
		return 0;
	__sync_fetch_and_add(&s->released, ctx->count);
	s->closed = 1;
	return 0;
}

static __always_inline void on_niov(struct tp_niov *ctx, int alloc)
{
	struct devmemstat_pool zero = {}, *p;
	__u32 key = ctx->pool_id;

	p = bpf_map_lookup_elem(&pools, &key);
	if (!p) {
		bpf_map_update_elem(&pools, &key, &zero, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&pools, &key);
		if (!p)
			return;
	}
	if (alloc)
		__sync_fetch_and_add(&p->allocs, 1);
	else
		__sync_fetch_and_add(&p->releases, 1);
	p->binding_id = ctx->binding_id;
	p->ifindex = ctx->ifindex;
	p->queue = ctx->queue;
	p->inflight = ctx->inflight;
	p->binding_in_use = ctx->in_use;
	p->last_ns = bpf_ktime_get_ns();
}

SEC("tracepoint/devmem/devmem_niov_alloc")
int on_niov_alloc(struct tp_niov *ctx)
{
	on_niov(ctx, 1);
	return 0;
}

SEC("tracepoint/devmem/devmem_niov_release")
int on_niov_release(struct tp_niov *ctx)
{
	on_niov(ctx, 0);
	return 0;
}

SEC("tracepoint/page_pool/page_pool_state_hold")
int on_pp_hold(struct tp_pp_state *ctx)
{
	__sync_fetch_and_add(&host_pages[0], 1);
	return 0;
}

SEC("tracepoint/page_pool/page_pool_state_release")
int on_pp_release(struct tp_pp_state *ctx)
{
	__sync_fetch_and_add(&host_pages[1], 1);
	return 0;
}

char _license[] SEC("license") = "GPL";
