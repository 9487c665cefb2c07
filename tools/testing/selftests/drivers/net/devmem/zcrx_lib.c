// SPDX-License-Identifier: GPL-2.0
/* io_uring zero-copy receive from user space: see zcrx_lib.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "zcrx_lib.h"

static int sys_setup(unsigned int entries, struct io_uring_params *p)
{
	return syscall(__NR_io_uring_setup, entries, p);
}

static int sys_enter(int fd, unsigned int submit, unsigned int wait,
		     unsigned int flags)
{
	return syscall(__NR_io_uring_enter, fd, submit, wait, flags, NULL, 0);
}

int zr_register(struct zr_ring *r, unsigned int op, void *arg,
		unsigned int nr)
{
	int ret = syscall(__NR_io_uring_register, r->fd, op, arg, nr);

	return ret < 0 ? -errno : ret;
}

int zr_ring_init_raw(struct zr_ring *r, unsigned int entries,
		     unsigned int cq_entries, unsigned int flags)
{
	struct io_uring_params p = { .flags = flags };
	int fd;

	if (cq_entries) {
		p.flags |= IORING_SETUP_CQSIZE;
		p.cq_entries = cq_entries;
	}
	memset(r, 0, sizeof(*r));
	fd = sys_setup(entries, &p);
	if (fd < 0)
		return -errno;
	r->fd = fd;
	r->flags = p.flags;
	r->sq_entries = p.sq_entries;
	r->sq_ring_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_ring_sz = p.cq_off.cqes + p.cq_entries *
			(sizeof(struct io_uring_cqe) *
			 (p.flags & IORING_SETUP_CQE32 ? 2 : 1));
	r->sqes_sz = p.sq_entries * sizeof(struct io_uring_sqe);

	r->sq_ring = mmap(NULL, r->sq_ring_sz, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	r->cq_ring = mmap(NULL, r->cq_ring_sz, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, r->sqes_sz, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (r->sq_ring == MAP_FAILED || r->cq_ring == MAP_FAILED ||
	    r->sqes == MAP_FAILED) {
		int err = -errno;

		zr_ring_exit(r);
		return err;
	}
	r->sq_head = r->sq_ring + p.sq_off.head;
	r->sq_tail = r->sq_ring + p.sq_off.tail;
	r->sq_mask = r->sq_ring + p.sq_off.ring_mask;
	r->sq_array = r->sq_ring + p.sq_off.array;
	r->cq_head = r->cq_ring + p.cq_off.head;
	r->cq_tail = r->cq_ring + p.cq_off.tail;
	r->cq_mask = r->cq_ring + p.cq_off.ring_mask;
	r->cqes = r->cq_ring + p.cq_off.cqes;
	return 0;
}

int zr_ring_init(struct zr_ring *r, unsigned int entries,
		 unsigned int cq_entries, unsigned int flags)
{
	if (!(flags & IORING_SETUP_CQE_MIXED))
		flags |= IORING_SETUP_CQE32;
	return zr_ring_init_raw(r, entries, cq_entries,
				flags | IORING_SETUP_SINGLE_ISSUER |
				IORING_SETUP_DEFER_TASKRUN);
}

void zr_ring_exit(struct zr_ring *r)
{
	if (r->sq_ring && r->sq_ring != MAP_FAILED)
		munmap(r->sq_ring, r->sq_ring_sz);
	if (r->cq_ring && r->cq_ring != MAP_FAILED)
		munmap(r->cq_ring, r->cq_ring_sz);
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_sz);
	if (r->fd > 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
}

struct io_uring_sqe *zr_get_sqe(struct zr_ring *r)
{
	unsigned int tail = *r->sq_tail, head;
	struct io_uring_sqe *sqe;

	head = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
	if (tail - head >= r->sq_entries)
		return NULL;
	sqe = &r->sqes[tail & *r->sq_mask];
	memset(sqe, 0, sizeof(*sqe));
	r->sq_array[tail & *r->sq_mask] = tail & *r->sq_mask;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return sqe;
}

int zr_submit_wait(struct zr_ring *r, unsigned int wait)
{
	unsigned int pending = *r->sq_tail -
			       __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);
	int ret;

	ret = sys_enter(r->fd, pending, wait,
			wait ? IORING_ENTER_GETEVENTS : 0);
	return ret < 0 ? -errno : ret;
}

struct io_uring_cqe *zr_peek_cqe(struct zr_ring *r)
{
	/* a CQE32 ring's entries are two of the 16-byte struct each */
	unsigned int shift = !!(r->flags & IORING_SETUP_CQE32);
	struct io_uring_cqe *cqe;
	unsigned int head;

	for (;;) {
		head = *r->cq_head;
		if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
			return NULL;
		cqe = &r->cqes[(head & *r->cq_mask) << shift];
		if (!(r->flags & IORING_SETUP_CQE_MIXED) ||
		    !(cqe->flags & IORING_CQE_F_SKIP))
			return cqe;
		r->skips++;
		__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	}
}

void zr_cqe_seen(struct zr_ring *r)
{
	unsigned int head = *r->cq_head, n = 1;

	/* a CQE_MIXED ring's 32-byte CQE takes two entries */
	if ((r->flags & IORING_SETUP_CQE_MIXED) &&
	    (r->cqes[head & *r->cq_mask].flags & IORING_CQE_F_32))
		n = 2;
	__atomic_store_n(r->cq_head, head + n, __ATOMIC_RELEASE);
}

uint64_t zr_cqe_off(const struct io_uring_cqe *cqe)
{
	const struct io_uring_zcrx_cqe *z = (const void *)(cqe + 1);

	return z->off;
}

size_t zr_rq_region_size(unsigned int entries)
{
	/* the header (head, tail, each on a cache line) and the entries */
	size_t sz = 128 + (size_t)entries * sizeof(struct io_uring_zcrx_rqe);

	return (sz + 4095) & ~(size_t)4095;
}

int zr_ifq_prepare(struct zr_ifq *z, int ifindex, int rxq, size_t area_len,
		   unsigned int rq_entries)
{
	memset(z, 0, sizeof(*z));
	z->area_len = area_len;
	/* shared: fork() would copy pinned pages of a private mapping */
	z->area_mem = mmap(NULL, area_len, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (z->area_mem == MAP_FAILED) {
		z->area_mem = NULL;
		return -errno;
	}
	z->ring_len = zr_rq_region_size(rq_entries);
	z->ring_mem = mmap(NULL, z->ring_len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (z->ring_mem == MAP_FAILED) {
		z->ring_mem = NULL;
		return -errno;
	}

	z->area.addr = (uintptr_t)z->area_mem;
	z->area.len = area_len;
	z->rd.user_addr = (uintptr_t)z->ring_mem;
	z->rd.size = z->ring_len;
	z->rd.flags = IORING_MEM_REGION_TYPE_USER;
	z->reg.if_idx = ifindex;
	z->reg.if_rxq = rxq;
	z->reg.rq_entries = rq_entries;
	z->reg.area_ptr = (uintptr_t)&z->area;
	z->reg.region_ptr = (uintptr_t)&z->rd;
	return 0;
}

int zr_ifq_register(struct zr_ring *r, struct zr_ifq *z)
{
	int ret;

	ret = zr_register(r, IORING_REGISTER_ZCRX_IFQ, &z->reg, 1);
	if (ret)
		return ret;
	if (!(z->rd.flags & IORING_MEM_REGION_TYPE_USER)) {
		z->ring_len = z->rd.size;
		z->ring_mem = mmap(NULL, z->ring_len, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_POPULATE, r->fd,
				   z->rd.mmap_offset);
		if (z->ring_mem == MAP_FAILED) {
			z->ring_mem = NULL;
			return -errno;
		}
		z->ring_mapped = true;
	}
	z->rq_head = z->ring_mem + z->reg.offsets.head;
	z->rq_tail = z->ring_mem + z->reg.offsets.tail;
	z->rqes = z->ring_mem + z->reg.offsets.rqes;
	z->rq_mask = z->reg.rq_entries - 1;
	z->rq_tail_local = 0;
	return 0;
}

void zr_ifq_use_dmabuf(struct zr_ifq *z, int dmabuf_fd, size_t size)
{
	munmap(z->area_mem, z->area_len);
	z->area_mem = NULL;
	z->area.addr = 0;
	z->area.len = size;
	z->area.flags = IORING_ZCRX_AREA_DMABUF;
	z->area.dmabuf_fd = dmabuf_fd;
}

void zr_ifq_free(struct zr_ifq *z)
{
	if (z->ring_mem)
		munmap(z->ring_mem, z->ring_len);
	if (z->area_mem)
		munmap(z->area_mem, z->area_len);
	memset(z, 0, sizeof(*z));
}

void zr_prep_recvzc(struct zr_ring *r, int fd, unsigned int zcrx_id,
		    unsigned int len, uint64_t user_data)
{
	struct io_uring_sqe *sqe = zr_get_sqe(r);

	if (!sqe)
		return;
	sqe->opcode = IORING_OP_RECV_ZC;
	sqe->fd = fd;
	sqe->len = len;
	sqe->ioprio = IORING_RECV_MULTISHOT;
	sqe->zcrx_ifq_idx = zcrx_id;
	sqe->user_data = user_data;
}

/*
 * The ring holds rq_mask + 1 entries the kernel has not read. One more
 * would overwrite the oldest of them, and the kernel, taking at most a
 * ring's worth, would read that slot twice: the second time after it
 * handed the buffer out again, which then goes back to the device while
 * user space still reads it. A full ring keeps the buffer instead.
 */
int zr_return(struct zr_ifq *z, const struct io_uring_cqe *cqe)
{
	struct io_uring_zcrx_rqe *rqe = &z->rqes[z->rq_tail_local & z->rq_mask];

	/* pairs with the kernel's store-release of the head */
	if (z->rq_tail_local - __atomic_load_n(z->rq_head, __ATOMIC_ACQUIRE) >
	    z->rq_mask) {
		z->rq_kept++;
		return -ENOSPC;
	}
	rqe->off = zr_cqe_off(cqe) | z->area.rq_area_token;
	rqe->len = cqe->res;
	rqe->__pad = 0;
	__atomic_store_n(z->rq_tail, ++z->rq_tail_local, __ATOMIC_RELEASE);
	return 0;
}

int zr_flush(struct zr_ring *r, unsigned int zcrx_id)
{
	struct zcrx_ctrl ctrl = {
		.zcrx_id = zcrx_id,
		.op = ZCRX_CTRL_FLUSH_RQ,
	};

	return zr_register(r, IORING_REGISTER_ZCRX_CTRL, &ctrl, 0);
}

int zr_add_area(struct zr_ring *r, unsigned int zcrx_id,
		struct io_uring_zcrx_area_reg *area)
{
	struct zcrx_ctrl ctrl = {
		.zcrx_id = zcrx_id,
		.op = ZCRX_CTRL_ADD_AREA,
		.zc_area.area_ptr = (uintptr_t)area,
	};

	return zr_register(r, IORING_REGISTER_ZCRX_CTRL, &ctrl, 0);
}

long zr_vm_pin_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * A page registered as a fixed buffer is pinned and counted in VmPin;
 * the ring's final free unpins it right after it let its zcrx instances
 * go.
 */
int zr_ring_exit_sync(struct zr_ring *r)
{
	struct iovec iov = { .iov_len = 4096 };
	int i, ret = -1;
	long pinned;

	iov.iov_base = mmap(NULL, iov.iov_len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (iov.iov_base == MAP_FAILED)
		return -1;
	if (zr_register(r, IORING_REGISTER_BUFFERS, &iov, 1))
		goto out_unmap;
	pinned = zr_vm_pin_kb();
	zr_ring_exit(r);
	for (i = 0; i < 500 && ret; i++) {
		if (zr_vm_pin_kb() <= pinned - 4)
			ret = 0;
		else
			usleep(10000);
	}
out_unmap:
	munmap(iov.iov_base, iov.iov_len);
	return ret;
}
