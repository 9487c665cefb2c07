/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device memory TCP: where received payload went. recvmsg(MSG_SOCK_DEVMEM)
 * reports per skb how much of it user space got as dmabuf fragments and
 * how much the CPU copied from the linear part, and every readable skb
 * such a reader got by copy; SO_DEVMEM_DONTNEED and close() report the
 * tokens they freed. A binding reports every net_iov it hands to a page
 * pool and gets back.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM devmem

#if !defined(_TRACE_DEVMEM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_DEVMEM_H

#include <linux/tracepoint.h>
#include <net/netmem.h>
#include <net/page_pool.h>
#include <net/sock.h>

TRACE_EVENT(devmem_recvmsg,
	    TP_PROTO(const struct sock *sk, u32 frags, u32 devmem_bytes,
		     u32 linear_bytes),
	    TP_ARGS(sk, frags, devmem_bytes, linear_bytes),
	    TP_STRUCT__entry(__field(const void *, skaddr)
			     __field(u32, frags)
			     __field(u32, devmem_bytes)
			     __field(u32, linear_bytes)),
	    TP_fast_assign(__entry->skaddr = sk;
			   __entry->frags = frags;
			   __entry->devmem_bytes = devmem_bytes;
			   __entry->linear_bytes = linear_bytes;),
	    TP_printk("skaddr=%p frags=%u devmem_bytes=%u linear_bytes=%u",
		      __entry->skaddr, __entry->frags, __entry->devmem_bytes,
		      __entry->linear_bytes)
);

TRACE_EVENT(devmem_dontneed,
	    TP_PROTO(const struct sock *sk, u32 ranges, u32 freed),
	    TP_ARGS(sk, ranges, freed),
	    TP_STRUCT__entry(__field(const void *, skaddr)
			     __field(u32, ranges)
			     __field(u32, freed)),
	    TP_fast_assign(__entry->skaddr = sk;
			   __entry->ranges = ranges;
			   __entry->freed = freed;),
	    TP_printk("skaddr=%p ranges=%u freed=%u",
		      __entry->skaddr, __entry->ranges, __entry->freed)
);

TRACE_EVENT(devmem_host_copy,
	    TP_PROTO(const struct sock *sk, u32 bytes),
	    TP_ARGS(sk, bytes),
	    TP_STRUCT__entry(__field(const void *, skaddr)
			     __field(u32, bytes)),
	    TP_fast_assign(__entry->skaddr = sk;
			   __entry->bytes = bytes;),
	    TP_printk("skaddr=%p bytes=%u", __entry->skaddr, __entry->bytes)
);

TRACE_EVENT(devmem_tokens_release,
	    TP_PROTO(const struct sock *sk, u32 tokens),
	    TP_ARGS(sk, tokens),
	    TP_STRUCT__entry(__field(const void *, skaddr)
			     __field(u32, tokens)),
	    TP_fast_assign(__entry->skaddr = sk;
			   __entry->tokens = tokens;),
	    TP_printk("skaddr=%p tokens=%u", __entry->skaddr, __entry->tokens)
);

/* A net_iov of binding @binding_id went to @pool, or came back from it.
 * @in_use: net_iovs of the binding out of its free list (all queues);
 * @inflight: net_iovs @pool holds or handed out, after this event;
 * dma_addr: where the device writes the net_iov.
 */
DECLARE_EVENT_CLASS(devmem_niov,
		    TP_PROTO(const struct page_pool *pool, u32 binding_id,
			     const struct net_iov *niov, u32 in_use,
			     u32 inflight),
		    TP_ARGS(pool, binding_id, niov, in_use, inflight),
		    TP_STRUCT__entry(__field(u32, binding_id)
				     __field(u32, pool_id)
				     __field(int, ifindex)
				     __field(u32, queue)
				     __field(u32, niov_idx)
				     __field(u32, in_use)
				     __field(u32, inflight)
				     __field(u64, dma_addr)),
		    TP_fast_assign(__entry->binding_id = binding_id;
				   __entry->pool_id = pool->user.id;
				   __entry->ifindex = pool->user.ifindex;
				   __entry->queue = pool->p.queue_idx;
				   __entry->niov_idx = net_iov_idx(niov);
				   __entry->in_use = in_use;
				   __entry->inflight = inflight;
				   __entry->dma_addr = niov->dma_addr;),
		    TP_printk("binding=%u pool=%u dev=%d queue=%u in_use=%u inflight=%u dma=%#llx",
			      __entry->binding_id, __entry->pool_id,
			      __entry->ifindex, __entry->queue,
			      __entry->in_use, __entry->inflight,
			      (unsigned long long)__entry->dma_addr)
);

DEFINE_EVENT(devmem_niov, devmem_niov_alloc,
	     TP_PROTO(const struct page_pool *pool, u32 binding_id,
		      const struct net_iov *niov, u32 in_use, u32 inflight),
	     TP_ARGS(pool, binding_id, niov, in_use, inflight)
);

DEFINE_EVENT(devmem_niov, devmem_niov_release,
	     TP_PROTO(const struct page_pool *pool, u32 binding_id,
		      const struct net_iov *niov, u32 in_use, u32 inflight),
	     TP_ARGS(pool, binding_id, niov, in_use, inflight)
);

#endif /* _TRACE_DEVMEM_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
