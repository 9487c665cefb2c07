// SPDX-License-Identifier: GPL-2.0
/*
 * IORING_REGISTER_QUERY: what this kernel's io_uring supports, for a
 * program to ask before it builds a ring, and without one (fd -1).
 *
 * The argument is a chain of headers in user memory. Each is read once,
 * answered into the buffer it names and written back with its result;
 * the next one is the next_entry read with it, so a program that edits a
 * header while the kernel walks the chain changes nothing but that
 * header. An entry the kernel does not understand fails alone, in its
 * result; the call fails only when user memory cannot be read or
 * written, an entry asks for more than a page, the chain runs past
 * IO_QUERY_MAX_ENTRIES (a cycle ends there) or the task is killed.
 *
 * Nothing here takes a lock or keeps state: every answer is a constant of
 * this kernel.
 */
#include <linux/cache.h>
#include <linux/io_uring_types.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <uapi/linux/io_uring.h>
#include <uapi/linux/io_uring/query.h>

#include "io_uring.h"
#include "query.h"
#include "zcrx.h"

/* headers answered before the chain is taken for a cycle: ERANGE */
#define IO_QUERY_MAX_ENTRIES	1000

union io_query_answer {
	struct io_uring_query_opcode opcode;
	struct io_uring_query_zcrx zcrx;
	struct io_uring_query_scq scq;
	struct io_uring_query_zcrx_event zcrx_event;
};

static size_t io_query_opcodes(union io_query_answer *a)
{
	struct io_uring_query_opcode *o = &a->opcode;

	o->nr_request_opcodes = IORING_OP_LAST;
	o->nr_register_opcodes = IORING_REGISTER_LAST;
	o->feature_flags = IORING_FEAT_FLAGS;
	o->ring_setup_flags = IORING_SETUP_FLAGS;
	o->enter_flags = IORING_ENTER_FLAGS;
	o->sqe_flags = SQE_VALID_FLAGS;
	o->nr_query_opcodes = __IO_URING_QUERY_MAX;
	return sizeof(*o);
}

/*
 * What zero-copy receive takes, whether or not this kernel is built with
 * it (as upstream answers): registration flags (no device, import), area
 * kinds, control operations (FLUSH_RQ to ARM_EVENT yet), events, and
 * where the refill ring's entries start.
 */
static size_t io_query_zcrx(union io_query_answer *a)
{
	struct io_uring_query_zcrx *z = &a->zcrx;

	z->register_flags = ZCRX_REG_NODEV | ZCRX_REG_IMPORT;
	z->area_flags = IORING_ZCRX_AREA_DMABUF;
	z->nr_ctrl_opcodes = IO_ZCRX_CTRL_NR;
	z->features = ZCRX_FEATURE_RX_PAGE_SIZE | ZCRX_FEATURE_EVENT;
	z->rq_hdr_size = IO_ZCRX_RQ_HDR_SIZE;
	z->rq_hdr_alignment = IO_ZCRX_RQ_HDR_ALIGN;
	return sizeof(*z);
}

/* the SQ and CQ heads, tails and flags that come before the CQEs */
static size_t io_query_scq(union io_query_answer *a)
{
	a->scq.hdr_size = offsetof(struct io_rings, cqes);
	a->scq.hdr_alignment = SMP_CACHE_BYTES;
	return sizeof(a->scq);
}

/* the zcrx events this kernel posts, and how its zcrx_stats lie */
static size_t io_query_zcrx_event(union io_query_answer *a)
{
	struct io_uring_query_zcrx_event *e = &a->zcrx_event;

	e->event_flags = IO_ZCRX_EVENT_MASK;
	e->stats_size = sizeof(struct zcrx_stats);
	e->stats_off_alignment = IO_ZCRX_STATS_ALIGN;
	return sizeof(*e);
}

/*
 * Answer one header: its result, and into *@a the answer, whose length
 * is returned (0 with an error result).
 */
static size_t io_query_answer(struct io_uring_query_hdr *hdr,
			      union io_query_answer *a)
{
	memset(a, 0, sizeof(*a));
	switch (hdr->query_op) {
	case IO_URING_QUERY_OPCODES:
		return io_query_opcodes(a);
	case IO_URING_QUERY_ZCRX:
		return io_query_zcrx(a);
	case IO_URING_QUERY_SCQ:
		return io_query_scq(a);
	case IO_URING_QUERY_ZCRX_EVENT:
		return io_query_zcrx_event(a);
	}
	return 0;
}

static int io_query_one(struct io_uring_query_hdr __user *uhdr, u64 *next)
{
	struct io_uring_query_hdr hdr;
	union io_query_answer a;
	void __user *udata;
	size_t len = 0;
	u32 written;

	/* upstream reads at most 48 bytes of a buffer: its largest answer */
	BUILD_BUG_ON(sizeof(a) != 48);

	if (copy_from_user(&hdr, uhdr, sizeof(hdr)))
		return -EFAULT;
	*next = hdr.next_entry;
	if (hdr.size > PAGE_SIZE)
		return -E2BIG;
	udata = u64_to_user_ptr(hdr.query_data);

	if (hdr.query_op >= __IO_URING_QUERY_MAX) {
		hdr.result = -EOPNOTSUPP;
	} else if (memchr_inv(hdr.__resv, 0, sizeof(hdr.__resv)) ||
		   hdr.result || !hdr.size) {
		hdr.result = -EINVAL;
	} else {
		/* the buffer must be readable, as upstream's: read and unused */
		if (copy_from_user(&a, udata, min_t(size_t, hdr.size,
						    sizeof(a))))
			return -EFAULT;
		len = io_query_answer(&hdr, &a);
		hdr.result = 0;
	}

	written = min_t(size_t, hdr.size, len);
	if (copy_to_user(udata, &a, written) ||
	    clear_user(udata + written, hdr.size - written))
		return -EFAULT;
	hdr.size = written;
	if (copy_to_user(uhdr, &hdr, sizeof(hdr)))
		return -EFAULT;
	return 0;
}

/**
 * io_query() - answer an IORING_REGISTER_QUERY chain
 * @arg: the first struct io_uring_query_hdr, or NULL (nothing asked)
 * @nr_args: must be 0
 *
 * Runs with or without a ring, and takes no lock.
 *
 * Return: 0 with every entry answered (each its own result), -EINVAL
 * (@nr_args), -EFAULT (a header or buffer that cannot be read or
 * written), -E2BIG (a buffer over a page), -ERANGE (the chain reached
 * IO_QUERY_MAX_ENTRIES entries) or -EINTR (a fatal signal).
 */
int io_query(void __user *arg, unsigned int nr_args)
{
	void __user *uhdr = arg;
	unsigned int nr = 0;
	u64 next;
	int ret;

	if (nr_args)
		return -EINVAL;

	while (uhdr) {
		ret = io_query_one(uhdr, &next);
		if (ret)
			return ret;
		if (++nr >= IO_QUERY_MAX_ENTRIES)
			return -ERANGE;
		uhdr = u64_to_user_ptr(next);
		if (!uhdr)
			break;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}
