/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring zero-copy receive from user space, on the raw syscalls and the
 * kernel's own <linux/io_uring.h>: a ring of 32-byte CQEs with
 * DEFER_TASKRUN, a zcrx instance (area, refill ring) and RECV_ZC.
 */
#ifndef ZCRX_LIB_H
#define ZCRX_LIB_H

#include <linux/io_uring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zr_ring {
	int fd;
	unsigned int flags;
	/* SQ */
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	struct io_uring_sqe *sqes;
	unsigned int sq_entries;
	/* CQ: 32-byte CQEs, or 16 and 32 on a CQE_MIXED ring */
	unsigned int *cq_head, *cq_tail, *cq_mask;
	/* a CQE_MIXED ring's fillers zr_peek_cqe() passed over */
	unsigned int skips;
	struct io_uring_cqe *cqes;
	void *sq_ring, *cq_ring;
	size_t sq_ring_sz, cq_ring_sz, sqes_sz;
};

/*
 * 0 or -errno; @flags are added to SINGLE_ISSUER | DEFER_TASKRUN and
 * CQE32 (unless they have CQE_MIXED), @cq_entries (0: twice @entries)
 * sizes the CQ
 */
int zr_ring_init(struct zr_ring *r, unsigned int entries,
		 unsigned int cq_entries, unsigned int flags);
/* any flags, as given (for the tests of what registration refuses) */
int zr_ring_init_raw(struct zr_ring *r, unsigned int entries,
		     unsigned int cq_entries, unsigned int flags);
void zr_ring_exit(struct zr_ring *r);
/* this process's pinned memory (VmPin), in kB, or -1 */
long zr_vm_pin_kb(void);
/*
 * Exit @r and wait until its final free ran, where it lets its zcrx
 * instances go: 0, or -1 if that took more than 5 s.
 */
int zr_ring_exit_sync(struct zr_ring *r);
struct io_uring_sqe *zr_get_sqe(struct zr_ring *r);
/* submit what was queued, wait for @wait CQEs: io_uring_enter's result */
int zr_submit_wait(struct zr_ring *r, unsigned int wait);
/*
 * the next CQE, or NULL; zr_cqe_seen() consumes it. A CQE_MIXED ring's
 * fillers are consumed on the way, and counted in skips.
 */
struct io_uring_cqe *zr_peek_cqe(struct zr_ring *r);
void zr_cqe_seen(struct zr_ring *r);
int zr_register(struct zr_ring *r, unsigned int op, void *arg,
		unsigned int nr);

/* One zcrx instance and the memory it owns. */
struct zr_ifq {
	struct io_uring_zcrx_ifq_reg reg;
	struct io_uring_zcrx_area_reg area;
	struct io_uring_region_desc rd;
	void *area_mem;		/* host area, or the dmabuf's mapping */
	size_t area_len;
	void *ring_mem;		/* refill ring (user memory or mmapped) */
	size_t ring_len;
	bool ring_mapped;	/* ring_mem mmapped from the ring fd */
	uint32_t *rq_head;
	uint32_t *rq_tail;
	struct io_uring_zcrx_rqe *rqes;
	uint32_t rq_mask;
	uint32_t rq_tail_local;
	unsigned int rq_kept;	/* buffers zr_return() kept: the ring was full */
};

/* sizes of the refill ring region for @entries entries */
size_t zr_rq_region_size(unsigned int entries);
/*
 * Fill @z for a host area of @area_len bytes (mmapped here) and a
 * user-memory refill ring of @rq_entries: registration not done.
 */
int zr_ifq_prepare(struct zr_ifq *z, int ifindex, int rxq, size_t area_len,
		   unsigned int rq_entries);
/* the area becomes @dmabuf_fd, @size bytes: the host memory is unmapped */
void zr_ifq_use_dmabuf(struct zr_ifq *z, int dmabuf_fd, size_t size);
/* register @z with @r: 0 or -errno; maps the ring if the kernel made it */
int zr_ifq_register(struct zr_ring *r, struct zr_ifq *z);
void zr_ifq_free(struct zr_ifq *z);

/* queue RECV_ZC on @fd: multishot, at most @len bytes (0: no limit) */
void zr_prep_recvzc(struct zr_ring *r, int fd, unsigned int zcrx_id,
		    unsigned int len, uint64_t user_data);
/* a zcrx CQE's buffer: area id and byte offset (IORING_ZCRX_AREA_SHIFT) */
uint64_t zr_cqe_off(const struct io_uring_cqe *cqe);
/*
 * give a CQE's buffer back through the refill ring: 0, or -ENOSPC when
 * the ring is full (the buffer is kept, counted in rq_kept)
 */
int zr_return(struct zr_ifq *z, const struct io_uring_cqe *cqe);
/* ZCRX_CTRL_FLUSH_RQ: the kernel takes the refill ring now; 0 or -errno */
int zr_flush(struct zr_ring *r, unsigned int zcrx_id);
/*
 * ZCRX_CTRL_ADD_AREA of @area (addr, len, flags, dmabuf_fd set; the token
 * comes back in it): 0 or -errno
 */
int zr_add_area(struct zr_ring *r, unsigned int zcrx_id,
		struct io_uring_zcrx_area_reg *area);

#endif
