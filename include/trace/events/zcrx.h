/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring zero-copy receive: every buffer handed to user space in a
 * RECV_ZC completion, as the completion is posted. The references it
 * carries then say whether user space may already give it back: one of
 * user space's, and the page pool's (one for user space, one more while
 * an skb still holds a buffer of the queue).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM zcrx

#if !defined(_TRACE_ZCRX_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ZCRX_H

#include <linux/tracepoint.h>

TRACE_EVENT(zcrx_cqe,
	    TP_PROTO(u32 zcrx_id, u32 area_id, u32 niov_idx, u32 off, u32 len,
		     bool copied, int user_refs, long pp_refs),
	    TP_ARGS(zcrx_id, area_id, niov_idx, off, len, copied, user_refs,
		    pp_refs),
	    TP_STRUCT__entry(__field(u32, zcrx_id)
			     __field(u32, area_id)
			     __field(u32, niov_idx)
			     __field(u32, off)
			     __field(u32, len)
			     __field(bool, copied)
			     __field(int, user_refs)
			     __field(long, pp_refs)),
	    TP_fast_assign(__entry->zcrx_id = zcrx_id;
			   __entry->area_id = area_id;
			   __entry->niov_idx = niov_idx;
			   __entry->off = off;
			   __entry->len = len;
			   __entry->copied = copied;
			   __entry->user_refs = user_refs;
			   __entry->pp_refs = pp_refs;),
	    TP_printk("zcrx=%u area=%u buf=%u off=%u len=%u copied=%d user_refs=%d pp_refs=%ld",
		      __entry->zcrx_id, __entry->area_id, __entry->niov_idx,
		      __entry->off, __entry->len, __entry->copied,
		      __entry->user_refs, __entry->pp_refs)
);

#endif /* _TRACE_ZCRX_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
