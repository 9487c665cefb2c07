/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device memory TCP: where received payload went. recvmsg(MSG_SOCK_DEVMEM)
 * reports per skb how much of it user space got as dmabuf fragments and
 * how much the CPU copied from the linear part; SO_DEVMEM_DONTNEED
 * reports the tokens it freed.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM devmem

#if !defined(_TRACE_DEVMEM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_DEVMEM_H

#include <linux/tracepoint.h>
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

#endif /* _TRACE_DEVMEM_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
