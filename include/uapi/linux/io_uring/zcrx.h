/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * io_uring zero-copy receive (zcrx): the refill ring's entries, the CQE's
 * second half, the registration of an instance and its areas
 * (IORING_REGISTER_ZCRX_IFQ), its control operations
 * (IORING_REGISTER_ZCRX_CTRL), events and statistics. <linux/io_uring.h>
 * includes it, so a program that includes that one has all of it.
 */
#ifndef _UAPI_LINUX_IO_URING_ZCRX_H
#define _UAPI_LINUX_IO_URING_ZCRX_H

#include <linux/types.h>

/* zero-copy receive refill ring entry: one buffer back to the kernel */
struct io_uring_zcrx_rqe {
	__u64	off;
	__u32	len;
	__u32	__pad;
};

/* bytes 16-31 of the 32-byte CQE of an IORING_OP_RECV_ZC completion */
struct io_uring_zcrx_cqe {
	__u64	off;
	__u64	__pad;
};

/* the area id of a zcrx CQE's or rqe's off, above the byte offset */
#define IORING_ZCRX_AREA_SHIFT	48
#define IORING_ZCRX_AREA_MASK	(~(((__u64)1 << IORING_ZCRX_AREA_SHIFT) - 1))

struct io_uring_zcrx_offsets {
	__u32	head;
	__u32	tail;
	__u32	rqes;
	__u32	__resv2;
	__u64	__resv[2];
};

enum io_uring_zcrx_area_flags {
	IORING_ZCRX_AREA_DMABUF		= 1,
};

/* io_uring_zcrx_ifq_reg.flags */
enum zcrx_reg_flags {
	/* share the instance of a ZCRX_CTRL_EXPORT file, its fd in if_idx */
	ZCRX_REG_IMPORT			= 1 << 0,
	/* no device: every byte is copied into the area (for testing) */
	ZCRX_REG_NODEV			= 1 << 1,
};

/* what IO_URING_QUERY_ZCRX says zero-copy receive has */
enum zcrx_features {
	/* rx_buf_len: buffers larger than a page, if the device takes them */
	ZCRX_FEATURE_RX_PAGE_SIZE	= 1 << 0,
	/* event_desc: zcrx events, ZCRX_CTRL_ARM_EVENT and zcrx_stats */
	ZCRX_FEATURE_EVENT		= 1 << 1,
};

/*
 * What a zcrx event CQE's res says happened; bit 1 << type of
 * zcrx_event_desc.type_mask asks for it. IO_URING_QUERY_ZCRX_EVENT's
 * event_flags has the bits this kernel posts.
 */
enum zcrx_event_type {
	/* the page pool asked for a buffer and the area had none free */
	ZCRX_EVENT_ALLOC_FAIL,
	/* data that was not in the area was copied into it */
	ZCRX_EVENT_COPY,
};

/* zcrx_event_desc.flags */
enum zcrx_event_desc_flags {
	/* keep a struct zcrx_stats at stats_offset in the refill region */
	ZCRX_EVENT_DESC_FLAG_STATS	= 1 << 0,
};

/* io_uring_zcrx_ifq_reg.event_desc points at one, or is 0 */
struct zcrx_event_desc {
	__u64	user_data; /* of every event CQE */
	__u32	type_mask; /* 1 << enum zcrx_event_type */
	__u32	flags; /* enum zcrx_event_desc_flags */
	__u64	stats_offset; /* in the refill region, with FLAG_STATS */
	__u64	__resv2[9];
};

/*
 * Copies into the area, counted by the kernel in the refill region;
 * user space may read and reset them there.
 */
struct zcrx_stats {
	__u64	copy_count; /* fragments copied */
	__u64	copy_bytes; /* their bytes */
};

struct io_uring_zcrx_area_reg {
	__u64	addr;
	__u64	len;
	__u64	rq_area_token;
	__u32	flags;
	__u32	dmabuf_fd;
	__u64	__resv2[2];
};

/* Argument for IORING_REGISTER_ZCRX_IFQ */
struct io_uring_zcrx_ifq_reg {
	__u32	if_idx;
	__u32	if_rxq;
	__u32	rq_entries;
	__u32	flags;

	__u64	area_ptr; /* pointer to struct io_uring_zcrx_area_reg */
	__u64	region_ptr; /* struct io_uring_region_desc * */

	struct io_uring_zcrx_offsets offsets;
	__u32	zcrx_id;
	__u32	rx_buf_len;
	__u64	event_desc; /* pointer to struct zcrx_event_desc, or 0 */
	__u64	__resv[2];
};

/*
 * zcrx_ctrl.op. IO_URING_QUERY_ZCRX's nr_ctrl_opcodes says how many of
 * them, from 0, this kernel runs; the others fail with -EOPNOTSUPP.
 */
enum zcrx_ctrl_op {
	/* consume the refill ring now (the only consumer with NODEV) */
	ZCRX_CTRL_FLUSH_RQ,
	/* a file that shares the instance, for ZCRX_REG_IMPORT */
	ZCRX_CTRL_EXPORT,
	/* let an event that fired post its CQE again */
	ZCRX_CTRL_ARM_EVENT,
	/* upstream's, not in this kernel: one more area */
	ZCRX_CTRL_ADD_AREA,
};

/* ZCRX_CTRL_FLUSH_RQ's argument: nothing, all zero */
struct zcrx_ctrl_flush_rq {
	__u64	__resv[6];
};

/* ZCRX_CTRL_EXPORT's argument */
struct zcrx_ctrl_export {
	__u32	zcrx_fd;
	__u32	__resv1[11];
};

/* ZCRX_CTRL_ARM_EVENT's argument */
struct zcrx_ctrl_arm_event {
	__u32	event_type;
	__u32	__resv[11];
};

/* ZCRX_CTRL_ADD_AREA's argument */
struct zcrx_ctrl_area {
	__u64	area_ptr; /* pointer to struct io_uring_zcrx_area_reg */
	__u64	__resv[5];
};

/* Argument for IORING_REGISTER_ZCRX_CTRL, nr_args 0 */
struct zcrx_ctrl {
	__u32	zcrx_id;
	__u32	op; /* enum zcrx_ctrl_op */
	__u64	__resv[2];

	union {
		struct zcrx_ctrl_export		zc_export;
		struct zcrx_ctrl_flush_rq	zc_flush;
		struct zcrx_ctrl_arm_event	zc_arm_event;
		struct zcrx_ctrl_area		zc_area;
	};
};

#endif
