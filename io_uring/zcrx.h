/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IOU_ZCRX_H
#define IOU_ZCRX_H

#include <linux/io_uring_types.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/workqueue.h>
#include <net/netmem.h>

#include "region.h"

struct dma_buf;
struct mem_cgroup;
struct dma_buf_attachment;
struct seq_file;

/**
 * struct io_zcrx_area - memory a zcrx instance receives into: the one
 *	registered with it (id 0) or one ZCRX_CTRL_ADD_AREA added
 * @nia: its net_iovs, one per buffer; its id, the area's index in the
 *	instance's @areas
 * @ifq: the instance
 * @user_refs: per net_iov, the buffers user space holds (CQEs posted and
 *	not yet returned through the refill ring)
 * @is_dmabuf: a dmabuf, not host memory
 * @pages: host memory: the user's pages, pinned
 * @nr_pages: number of @pages
 * @sgt: host memory: @pages as a table, DMA-mapped for the device
 * @mapped: @sgt is mapped; false from the device's unregister on
 * @dma_lock: protects @mapped against the syncs (bottom halves off)
 * @acct_pages: pages charged: @nr_pages, and the rest of any huge folio
 *	the pin holds whole
 * @acct_user: user charged for @pages, or NULL
 * @acct_mm: mm whose pinned_vm counts @pages, or NULL
 * @dmabuf: dmabuf memory
 * @attach: @dmabuf's attachment to the device, until unmapped
 * @dmabuf_sgt: @dmabuf's mapping, until unmapped (RTNL or the free)
 * @freelist_lock: protects @freelist and @free_count (bottom halves off)
 * @free_count: entries on @freelist
 * @freelist: indexes of the net_iovs no page pool and no user holds
 */
struct io_zcrx_area {
	struct net_iov_area		nia;
	struct io_zcrx_ifq		*ifq;
	atomic_t			*user_refs;
	bool				is_dmabuf;

	struct page			**pages;
	unsigned long			nr_pages;
	struct sg_table			sgt;
	bool				mapped;
	spinlock_t			dma_lock;	/* @mapped */
	unsigned long			acct_pages;
	struct user_struct		*acct_user;
	struct mm_struct		*acct_mm;

	struct dma_buf			*dmabuf;
	struct dma_buf_attachment	*attach;
	struct sg_table			*dmabuf_sgt;

	spinlock_t			freelist_lock;	/* free list */
	u32				free_count;
	u32				*freelist;
};

/**
 * struct io_zcrx_ifq - a zero-copy receive instance: one RX queue of one
 *	device, fed from its areas, its buffers returned through one refill
 *	ring
 * @areas: the memory: IO_ZCRX_MAX_AREAS slots, of which the first
 *	@nr_areas are set, in id order, all of one kind (host or dmabuf).
 *	An area is set before it is counted and stays until the free
 * @nr_areas: areas set: written with a store-release under
 *	io_zcrx_mapped_lock and @area_lock, read with a load-acquire
 *	anywhere; only grows
 * @area_lock: serialises ZCRX_CTRL_ADD_AREA, from any ring that holds
 *	the instance
 * @acct_user: the user the registering ring charges (RLIMIT_MEMLOCK),
 *	held, or NULL: every host area is charged to it, whichever ring
 *	adds it
 * @acct_mm: the mm whose pinned_vm counts those pages, held, or NULL
 * @holders: what may still receive into the instance: the ring that
 *	registered it and each ring that imported it (until they exit),
 *	and each file ZCRX_CTRL_EXPORT made (until it is closed). The last
 *	one takes the instance off its queue, unmaps the areas and takes
 *	back every buffer user space still holds
 * @refs: one per holder and one per page pool the instance provides
 *	for; the last one frees everything in @free_work
 * @free_work: frees the instance in process context
 * @kcov_handle: KCOV's common handle of the task that registered the
 *	instance (0 without KCOV): the coverage of its teardown in the
 *	ring's exit work and of @free_work is that task's. Set once
 * @region: the refill ring's memory
 * @rq_head: the kernel's consumer index, in @region
 * @rq_tail: user space's producer index, in @region
 * @rqes: the refill ring's entries, in @region
 * @rq_entries: number of @rqes, a power of two
 * @cached_rq_head: next entry the kernel reads (under @rq_lock)
 * @cached_rq_tail: the tail as the kernel last read it (under @rq_lock)
 * @rq_lock: serialises the refill ring's consumers (bottom halves off)
 * @id: zcrx_id, the instance's index in the ring that registered it
 * @if_rxq: the RX queue
 * @buf_shift: log2 of the buffer size
 * @nodev: registered with ZCRX_REG_NODEV: no device, queue, page pool or
 *	mapping, every byte copied; set at registration, then read-only
 * @netdev: the device, held, until the ring closes the queue or the
 *	device unregisters (RTNL)
 * @dma_dev: the device the areas are mapped for, held
 * @map_dev: the net_device the areas are mapped for, from the bind until
 *	it unregisters or the instance is freed; only compared. Under the
 *	lock of the list of mapped instances.
 * @map_list: entry in the list of mapped instances while @map_dev is set
 * @stats: the zcrx_stats user space asked for in @region, or NULL; set at
 *	registration
 * @event_user_data: user_data of the event CQEs; set at registration
 * @event_mask: 1 << each zcrx_event_type user space asked for; set at
 *	registration
 * @event_lock: protects @event_ctx against the posting
 * @event_ctx: the ring the event CQEs go to: the one that registered the
 *	instance, from a registration with a @event_mask until that ring
 *	starts to exit; or NULL
 * @events_fired: 1 << each type that fired and was not armed again
 *	(ZCRX_CTRL_ARM_EVENT); atomic bit operations
 * @events_pending: 1 << each type @event_work has yet to post
 * @event_work: posts the CQEs of @events_pending, in process context
 * @event_memcg: the registering task's memory cgroup, held, charged for
 *	an event CQE that goes to the overflow list; or NULL
 * @zc_bytes: bytes handed to user space where the NIC wrote them
 * @copy_count: frags copied into buffers because they were not in the
 *	areas; the same count as zcrx_stats.copy_count, which user space
 *	may reset
 * @copy_bytes: bytes of those frags, as zcrx_stats.copy_bytes
 * @head_bytes: bytes copied from skb heads (linear parts), which
 *	zcrx_stats does not count
 */
struct io_zcrx_ifq {
	struct io_zcrx_area		**areas;
	u32				nr_areas;
	struct mutex			area_lock;	/* ADD_AREA */
	struct user_struct		*acct_user;
	struct mm_struct		*acct_mm;
	refcount_t			holders;
	refcount_t			refs;
	struct work_struct		free_work;
	u64				kcov_handle;

	struct io_mapped_region		region;
	u32				*rq_head;
	u32				*rq_tail;
	struct io_uring_zcrx_rqe	*rqes;
	u32				rq_entries;
	u32				cached_rq_head;
	u32				cached_rq_tail;
	spinlock_t			rq_lock;	/* ring consumers */

	u32				id;
	u32				if_rxq;
	unsigned int			buf_shift;
	bool				nodev;
	struct net_device		*netdev;
	struct device			*dma_dev;
	struct net_device		*map_dev;
	struct list_head		map_list;

	struct zcrx_stats		*stats;
	u64				event_user_data;
	u32				event_mask;
	spinlock_t			event_lock;	/* @event_ctx */
	struct io_ring_ctx		*event_ctx;
	unsigned long			events_fired;
	unsigned long			events_pending;
	struct work_struct		event_work;
	struct mem_cgroup		*event_memcg;

	atomic64_t			zc_bytes;
	atomic64_t			copy_count;
	atomic64_t			copy_bytes;
	atomic64_t			head_bytes;
};

#if IS_ENABLED(CONFIG_IO_URING_ZCRX)
int io_register_zcrx_ifq(struct io_ring_ctx *ctx,
			 struct io_uring_zcrx_ifq_reg __user *arg);
void io_zcrx_detach_events(struct io_ring_ctx *ctx);
void io_unregister_zcrx_ifqs(struct io_ring_ctx *ctx);
struct io_mapped_region *io_zcrx_get_region(struct io_ring_ctx *ctx,
					    unsigned int id);
void io_zcrx_show_fdinfo(struct seq_file *m, struct io_ring_ctx *ctx);
int io_zcrx_ctrl(struct io_ring_ctx *ctx, void __user *arg,
		 unsigned int nr_args);
int io_recvzc_prep(struct io_kiocb *req, const struct io_uring_sqe *sqe);
int io_recvzc(struct io_kiocb *req, unsigned int issue_flags);
#else
static inline int io_register_zcrx_ifq(struct io_ring_ctx *ctx,
				       struct io_uring_zcrx_ifq_reg __user *arg)
{
	return -EOPNOTSUPP;
}

static inline void io_zcrx_detach_events(struct io_ring_ctx *ctx)
{
}

static inline void io_unregister_zcrx_ifqs(struct io_ring_ctx *ctx)
{
}

static inline struct io_mapped_region *
io_zcrx_get_region(struct io_ring_ctx *ctx, unsigned int id)
{
	return NULL;
}

static inline void io_zcrx_show_fdinfo(struct seq_file *m,
				       struct io_ring_ctx *ctx)
{
}

static inline int io_zcrx_ctrl(struct io_ring_ctx *ctx, void __user *arg,
			       unsigned int nr_args)
{
	return -EOPNOTSUPP;
}
#endif

/* the zcrx_ctrl operations this kernel runs: FLUSH_RQ to ADD_AREA */
#define IO_ZCRX_CTRL_NR			(ZCRX_CTRL_ADD_AREA + 1)
/* areas an instance may have, upstream's number */
#define IO_ZCRX_MAX_AREAS		1024
/* the zcrx_event_types this kernel posts */
#define IO_ZCRX_EVENT_NR		(ZCRX_EVENT_COPY + 1)
#define IO_ZCRX_EVENT_MASK		(BIT(IO_ZCRX_EVENT_NR) - 1)
/* zcrx_stats lie on an 8-byte boundary, upstream's, on 32-bit x86 too */
#define IO_ZCRX_STATS_ALIGN		8

/*
 * The refill ring's header at the start of its region: the head the
 * kernel writes and the tail user space writes, each on a cache line of
 * its own, as upstream lays them out since 7.3. The entries start at the
 * next IO_ZCRX_RQ_HDR_ALIGN boundary; IO_URING_QUERY_ZCRX reports both.
 */
struct io_zcrx_rq_hdr {
	u32	head ____cacheline_aligned_in_smp;
	u32	tail ____cacheline_aligned_in_smp;
};

#define IO_ZCRX_RQ_HDR_SIZE		sizeof(struct io_zcrx_rq_hdr)
#define IO_ZCRX_RQ_HDR_ALIGN		L1_CACHE_BYTES

/* the mmap offset of the refill ring of zcrx instance @id */
#define IORING_OFF_ZCRX_REGION		0x30000000ULL
#define IORING_OFF_ZCRX_SHIFT		16

#endif
