/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * IORING_REGISTER_QUERY: ask what this kernel's io_uring supports, with no
 * ring (fd -1) or through one.
 *
 * The argument is the first header of a chain (next_entry links them, 0
 * ends it). Each header names a question (query_op) and a buffer of @size
 * bytes for the answer (query_data). The kernel writes the answer there,
 * truncated to @size or padded with zeroes up to it, sets @result (0, or a
 * negative errno for this entry alone) and sets @size to the bytes of the
 * answer it wrote. A program built against an older or newer copy of these
 * structs gets what both know of.
 */
#ifndef _UAPI_LINUX_IO_URING_QUERY_H
#define _UAPI_LINUX_IO_URING_QUERY_H

#include <linux/types.h>

struct io_uring_query_hdr {
	__u64 next_entry;	/* user address of the next header, or 0 */
	__u64 query_data;	/* user address of the answer buffer */
	__u32 query_op;		/* IO_URING_QUERY_* */
	__u32 size;		/* in: buffer size; out: answer bytes */
	__s32 result;		/* in: 0; out: 0 or -errno */
	__u32 __resv[3];	/* must be 0 */
};

enum {
	IO_URING_QUERY_OPCODES		= 0,
	IO_URING_QUERY_ZCRX		= 1,
	IO_URING_QUERY_SCQ		= 2,
	IO_URING_QUERY_ZCRX_EVENT	= 3,

	__IO_URING_QUERY_MAX,
};

/* IO_URING_QUERY_OPCODES: the ring's opcodes and flags */
struct io_uring_query_opcode {
	__u32 nr_request_opcodes;	/* one past the last IORING_OP_* */
	__u32 nr_register_opcodes;	/* one past the last IORING_REGISTER_* */
	__u64 feature_flags;		/* IORING_FEAT_* */
	__u64 ring_setup_flags;		/* IORING_SETUP_* */
	__u64 enter_flags;		/* IORING_ENTER_* */
	__u64 sqe_flags;		/* IOSQE_* */
	__u32 nr_query_opcodes;		/* one past the last IO_URING_QUERY_* */
	__u32 __pad;
};

/* IO_URING_QUERY_ZCRX: zero-copy receive */
struct io_uring_query_zcrx {
	__u64 register_flags;	/* ZCRX_REG_* */
	__u64 area_flags;	/* IORING_ZCRX_AREA_* */
	__u32 nr_ctrl_opcodes;	/* one past the last ZCRX_CTRL_* */
	__u32 features;		/* ZCRX_FEATURE_* */
	__u32 rq_hdr_size;	/* bytes before the refill ring's entries, */
	__u32 rq_hdr_alignment;	/* rounded up to this */
	__u64 __resv2;
};

/* IO_URING_QUERY_SCQ: the SQ/CQ ring header */
struct io_uring_query_scq {
	__u64 hdr_size;		/* bytes before the CQE array */
	__u64 hdr_alignment;
};

/* IO_URING_QUERY_ZCRX_EVENT: zero-copy receive events and statistics */
struct io_uring_query_zcrx_event {
	__u32 event_flags;		/* 1 << ZCRX_EVENT_* of each event */
	__u32 stats_size;		/* bytes of struct zcrx_stats, 0: none */
	__u32 stats_off_alignment;
	__u32 __resv1;
	__u64 __resv2[4];
};

#endif /* _UAPI_LINUX_IO_URING_QUERY_H */
