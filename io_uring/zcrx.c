// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring zero-copy receive (zcrx): an RX queue of a NIC that splits
 * headers off fills buffers of the areas the application registered (its
 * own memory, or dmabufs), as a page pool memory provider. IORING_OP_RECV_ZC
 * posts a 32-byte CQE per fragment that names the buffer (area id,
 * offset, length); the application reads the data in place and returns
 * the buffer with an entry in a refill ring it shares with the kernel,
 * which the page pool reads when it runs short (IORING_REGISTER_ZCRX_CTRL's
 * FLUSH_RQ, at once). Nothing is copied, except data that did not arrive
 * through the queue (copied into a free buffer of a host area, and
 * counted). An instance registered with ZCRX_REG_NODEV has no device,
 * queue or page pool: it copies everything, a page per buffer, and only
 * FLUSH_RQ reads its refill ring.
 *
 * Lifetimes: the ring holds its instances until it exits; each page pool
 * created on the instance's queue holds it until the pool is destroyed,
 * which waits for every buffer in flight. ZCRX_CTRL_EXPORT makes a file
 * that holds the instance until it is closed, and a ring that imports
 * that file (ZCRX_REG_IMPORT) holds it as the first ring does, under an
 * id of its own: all share one queue, set of areas and refill ring. Any
 * of them may add an area (ZCRX_CTRL_ADD_AREA); an area, once added,
 * stays until the instance is freed. When the last ring or file goes
 * (@holders), the queue goes back to host memory, the areas are unmapped
 * and what user space still holds is taken back.
 * A buffer user space holds carries a user reference (@user_refs) and one
 * page pool reference; the refill ring, or the last holder for whatever
 * user space still holds, drops both. The instance, its areas and the
 * refill ring go with the last reference. A buffer a copy filled has no
 * page pool: its one reference goes back to the area's free list.
 */
#include <linux/anon_inodes.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/io_uring.h>
#include <linux/kcov.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>
#include <net/netlink.h>
#include <net/page_pool.h>
#include <net/page_pool/memory_provider.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <uapi/linux/io_uring.h>
#include <uapi/linux/netdev.h>

#include "io_uring.h"
#include "poll.h"
#include "region.h"
#include "zcrx.h"

#define CREATE_TRACE_POINTS
#include <trace/events/zcrx.h>

#define IO_ZCRX_RQ_MAX_ENTRIES		32768
#define IO_ZCRX_AREA_MAX		BIT_ULL(40)
#define IO_ZCRX_MAX_IFQS		(1U << (27 - IORING_OFF_ZCRX_SHIFT))
/* skbs one RECV_ZC pass reads before it lets other work run */
#define IO_ZCRX_SKBS_PER_PASS		32

static const struct memory_provider_ops io_zcrx_mp_ops;

struct io_recvzc {
	struct file			*file;
	unsigned int			msg_flags;
	u16				flags;
	u32				len;
	struct io_zcrx_ifq		*ifq;
};

static struct io_zcrx_area *io_zcrx_niov_area(const struct net_iov *niov)
{
	return container_of(niov->owner, struct io_zcrx_area, nia);
}

static void io_zcrx_freelist_push(struct io_zcrx_area *area,
				  struct net_iov *niov)
{
	spin_lock_bh(&area->freelist_lock);
	/* a buffer is on the list once at most: never past its end */
	if (likely(area->free_count < area->nia.num_niovs))
		area->freelist[area->free_count++] = net_iov_idx(niov);
	spin_unlock_bh(&area->freelist_lock);
}

static struct net_iov *io_zcrx_freelist_pop(struct io_zcrx_area *area)
{
	struct net_iov *niov = NULL;

	spin_lock_bh(&area->freelist_lock);
	if (area->free_count)
		niov = &area->nia.niovs[area->freelist[--area->free_count]];
	spin_unlock_bh(&area->freelist_lock);
	return niov;
}

/*
 * The areas set up and counted: an area is set before it is counted, and
 * never goes before the instance.
 */
static u32 io_zcrx_nr_areas(struct io_zcrx_ifq *ifq)
{
	/* pairs with the store-release in io_zcrx_append_area() */
	return smp_load_acquire(&ifq->nr_areas);
}

/* A free buffer of the first area, in id order, that has one. */
static struct net_iov *io_zcrx_pop_free(struct io_zcrx_ifq *ifq)
{
	u32 i, nr = io_zcrx_nr_areas(ifq);
	struct net_iov *niov;

	for (i = 0; i < nr; i++) {
		niov = io_zcrx_freelist_pop(ifq->areas[i]);
		if (niov)
			return niov;
	}
	return NULL;
}

/* ---- the areas ---- */

static int io_zcrx_map_niovs(struct io_zcrx_area *area, struct sg_table *sgt,
			     u64 len)
{
	unsigned int buf_size = 1U << area->nia.shift;
	struct scatterlist *sg;
	u64 total = 0;
	size_t idx = 0;
	int i;

	for_each_sgtable_dma_sg(sgt, sg, i)
		total += sg_dma_len(sg);
	if (total != len)
		return -EINVAL;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);
		u64 seg = sg_dma_len(sg);

		if (seg & (buf_size - 1))
			return -ERANGE;
		for (; seg; seg -= buf_size, addr += buf_size)
			area->nia.niovs[idx++].dma_addr = addr;
	}
	return 0;
}

/*
 * Pin the user memory of a host area, its pages charged already, and charge
 * the rest of the huge folios the pin holds: the mappings must be anonymous
 * memory, shmem or hugetlbfs, as for the refill ring.
 */
static int io_zcrx_import_host(struct io_zcrx_area *area,
			       const struct io_uring_zcrx_area_reg *reg)
{
	unsigned long held;
	struct page **pages;
	int ret;

	/* up to 2 GiB for a 1 TiB area: a failure, never a warning */
	pages = kvmalloc_array(area->nr_pages, sizeof(*pages),
			       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!pages)
		return -ENOMEM;

	ret = io_pin_user_pages(reg->addr, area->nr_pages, pages, &held);
	if (ret)
		goto err_free_pages;
	ret = io_account_pinned_held(&area->acct_pages, held, area->acct_user,
				     area->acct_mm);
	if (ret)
		goto err_unpin;

	ret = sg_alloc_table_from_pages(&area->sgt, pages, area->nr_pages, 0,
					reg->len, GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_unpin;
	area->pages = pages;
	return 0;

err_unpin:
	unpin_user_pages(pages, area->nr_pages);
err_free_pages:
	kvfree(pages);
	return ret;
}

static int io_zcrx_map_host(struct io_zcrx_area *area, struct device *dev,
			    u64 len)
{
	int ret;

	ret = dma_map_sgtable(dev, &area->sgt, DMA_FROM_DEVICE,
			      DMA_ATTR_SKIP_CPU_SYNC);
	if (ret)
		return ret;
	area->mapped = true;
	return io_zcrx_map_niovs(area, &area->sgt, len);
}

static int io_zcrx_import_dmabuf(struct io_zcrx_area *area,
				 struct device *dev,
				 const struct io_uring_zcrx_area_reg *reg)
{
	struct dma_buf_attachment *attach;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;

	/* each step is kept in @area as it succeeds: io_zcrx_unmap_area()
	 * and io_zcrx_free_area() undo the ones that did
	 */
	dmabuf = dma_buf_get(reg->dmabuf_fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	area->dmabuf = dmabuf;

	attach = dma_buf_attach(dmabuf, dev);
	if (IS_ERR(attach))
		return PTR_ERR(attach);
	area->attach = attach;

	sgt = dma_buf_map_attachment_unlocked(attach, DMA_FROM_DEVICE);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	area->dmabuf_sgt = sgt;

	return io_zcrx_map_niovs(area, sgt, reg->len);
}

/*
 * Instances whose area is mapped for a device, from the bind on: the
 * device's unregister unmaps them, on their queue or not (a ring that
 * exited leaves its area mapped for the page pools whose buffers unread
 * skbs still hold). The mutex orders that against the final free; both
 * may sleep in a dmabuf exporter.
 */
static LIST_HEAD(io_zcrx_mapped);
static DEFINE_MUTEX(io_zcrx_mapped_lock);	/* the list, the unmap */

/*
 * Before a host area is unmapped: sync for the CPU, whole, every buffer a
 * page pool owns. Those in skbs not read yet, or read in part, would have
 * been synced at receive, which finds the area unmapped from now on.
 * Nothing to do where the device's DMA is coherent.
 */
static void io_zcrx_sync_unread(struct io_zcrx_area *area, struct device *dev)
{
	u32 i, len = 1U << area->nia.shift;

	if (!area->nia.num_niovs ||
	    !dma_need_sync(dev, area->nia.niovs[0].dma_addr))
		return;
	for (i = 0; i < area->nia.num_niovs; i++) {
		struct net_iov *niov = &area->nia.niovs[i];

		if (READ_ONCE(niov->pp))
			dma_sync_single_for_cpu(dev, niov->dma_addr, len,
						DMA_FROM_DEVICE);
		cond_resched();
	}
}

/*
 * Undo the area's mapping for @dev, once: when the device unregisters
 * (io_zcrx_netdev_event()), or else at the final free, under the lock of
 * the list of mapped instances either way. The memory stays pinned, or
 * the dmabuf held, until the free: user space may still hold buffers, and
 * skbs may still carry them.
 */
static void io_zcrx_unmap_area(struct io_zcrx_area *area, struct device *dev)
{
	bool mapped;

	lockdep_assert_held(&io_zcrx_mapped_lock);

	if (area->dmabuf_sgt) {
		dma_buf_unmap_attachment_unlocked(area->attach,
						  area->dmabuf_sgt,
						  DMA_FROM_DEVICE);
		WRITE_ONCE(area->dmabuf_sgt, NULL);
	}
	if (area->attach) {
		dma_buf_detach(area->dmabuf, area->attach);
		area->attach = NULL;
	}

	/* no sync runs or starts once the flag is down */
	spin_lock_bh(&area->dma_lock);
	mapped = area->mapped;
	WRITE_ONCE(area->mapped, false);
	spin_unlock_bh(&area->dma_lock);
	if (!mapped)
		return;
	io_zcrx_sync_unread(area, dev);
	dma_unmap_sgtable(dev, &area->sgt, DMA_FROM_DEVICE,
			  DMA_ATTR_SKIP_CPU_SYNC);
}

/*
 * Sync a buffer of a host area for the CPU (@for_cpu) or back for the
 * device, while the area is mapped: once its device unregistered, no
 * device writes it and there is no mapping left to sync.
 */
static void io_zcrx_sync(struct io_zcrx_ifq *ifq, const struct net_iov *niov,
			 u32 off, u32 len, bool for_cpu)
{
	struct io_zcrx_area *area = io_zcrx_niov_area(niov);

	if (area->is_dmabuf)
		return;
	spin_lock_bh(&area->dma_lock);
	if (area->mapped && for_cpu)
		dma_sync_single_range_for_cpu(ifq->dma_dev, niov->dma_addr,
					      off, len, DMA_FROM_DEVICE);
	else if (area->mapped)
		dma_sync_single_range_for_device(ifq->dma_dev, niov->dma_addr,
						 off, len, DMA_FROM_DEVICE);
	spin_unlock_bh(&area->dma_lock);
}

/* Free @area, unmapped before (io_zcrx_unmap_area()). */
static void io_zcrx_free_area(struct io_zcrx_area *area)
{
	if (area->dmabuf)
		dma_buf_put(area->dmabuf);

	if (area->pages) {
		sg_free_table(&area->sgt);
		unpin_user_pages(area->pages, area->nr_pages);
		kvfree(area->pages);
	}
	/* nothing when nothing was charged (dmabuf, or over the limit) */
	io_unaccount_pinned(area->acct_pages, area->acct_user, area->acct_mm);
	kvfree(area->freelist);
	kvfree(area->user_refs);
	kvfree(area->nia.niovs);
	kfree(area);
}

static int io_zcrx_check_area_reg(const struct io_uring_zcrx_area_reg *reg)
{
	u64 end;

	if (reg->flags & ~IORING_ZCRX_AREA_DMABUF || reg->rq_area_token ||
	    memchr_inv(reg->__resv2, 0, sizeof(reg->__resv2)))
		return -EINVAL;
	if (!reg->len)
		return -EFAULT;
	if (reg->len > IO_ZCRX_AREA_MAX)
		return -EINVAL;
	if (check_add_overflow(reg->addr, reg->len, &end))
		return -EOVERFLOW;
	if ((reg->addr | reg->len) & ~PAGE_MASK)
		return -EINVAL;
	return 0;
}

/* The area's memory: a dmabuf (IORING_ZCRX_AREA_DMABUF, no address) or
 * user memory at an address (no dmabuf fd).
 */
static int io_zcrx_check_area_source(const struct io_uring_zcrx_area_reg *reg)
{
	if (reg->flags & IORING_ZCRX_AREA_DMABUF)
		return reg->addr ? -EINVAL : 0;
	if (reg->dmabuf_fd)
		return -EINVAL;
	return reg->addr ? 0 : -EFAULT;
}

/* Unmap and free @area, which no instance counts; @dev is held. */
static void io_zcrx_drop_area(struct io_zcrx_area *area, struct device *dev)
{
	mutex_lock(&io_zcrx_mapped_lock);
	io_zcrx_unmap_area(area, dev);
	mutex_unlock(&io_zcrx_mapped_lock);
	io_zcrx_free_area(area);
}

/*
 * Create the area of @reg for @ifq, mapped for @dev, as area @id; it is
 * the instance's once io_zcrx_append_area() counts it. Host memory is
 * charged to the user and mm of the ring that registered the instance.
 */
static int io_zcrx_create_area(struct io_zcrx_ifq *ifq, struct device *dev,
			       const struct io_uring_zcrx_area_reg *reg, u32 id,
			       struct io_zcrx_area **areap)
{
	struct io_zcrx_area *area;
	size_t i, nr;
	int ret;

	ret = io_zcrx_check_area_reg(reg);
	if (ret)
		return ret;
	/* no device to attach a dmabuf to, and a dmabuf is never copied into */
	if ((reg->flags & IORING_ZCRX_AREA_DMABUF) && !dev)
		return -EINVAL;
	/*
	 * A length that is not a multiple of the buffer size leaves a DMA
	 * segment that is not either: io_zcrx_map_niovs() refuses it with
	 * -ERANGE once the area is mapped, after the checks of its source,
	 * as upstream does.
	 */
	ret = io_zcrx_check_area_source(reg);
	if (ret)
		return ret;

	area = kzalloc(sizeof(*area), GFP_KERNEL_ACCOUNT);
	if (!area)
		return -ENOMEM;
	area->ifq = ifq;
	area->is_dmabuf = reg->flags & IORING_ZCRX_AREA_DMABUF;
	area->nia.id = id;
	area->nia.shift = ifq->buf_shift;
	area->nia.type = NET_IOV_IOURING;
	nr = reg->len >> ifq->buf_shift;
	area->nia.num_niovs = nr;
	spin_lock_init(&area->freelist_lock);
	spin_lock_init(&area->dma_lock);

	/* host memory is charged first: over RLIMIT_MEMLOCK, nothing is
	 * allocated for it
	 */
	if (!area->is_dmabuf) {
		area->nr_pages = reg->len >> PAGE_SHIFT;
		ret = io_account_pinned(ifq->acct_user, ifq->acct_mm,
					area->nr_pages, &area->acct_user,
					&area->acct_mm);
		if (ret)
			goto err_free_area;
		area->acct_pages = area->nr_pages;
	}

	/* per-buffer arrays of a size the user chose (8 GiB of net_iovs for
	 * 1 TiB of 4 KiB buffers): a failure, never a warning
	 */
	ret = -ENOMEM;
	area->nia.niovs = kvcalloc(nr, sizeof(*area->nia.niovs),
				   GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!area->nia.niovs)
		goto err_free_area;
	area->user_refs = kvcalloc(nr, sizeof(*area->user_refs),
				   GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!area->user_refs)
		goto err_free_area;
	area->freelist = kvmalloc_array(nr, sizeof(*area->freelist),
					GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!area->freelist)
		goto err_free_area;

	for (i = 0; i < nr; i++) {
		area->nia.niovs[i].owner = &area->nia;
		area->freelist[i] = nr - 1 - i;
	}
	area->free_count = nr;

	if (area->is_dmabuf) {
		ret = io_zcrx_import_dmabuf(area, dev, reg);
	} else {
		ret = io_zcrx_import_host(area, reg);
		if (!ret && dev)
			ret = io_zcrx_map_host(area, dev, reg->len);
	}
	if (ret)
		goto err_free_area;

	*areap = area;
	return 0;

err_free_area:
	/* the caller holds the device */
	io_zcrx_drop_area(area, dev);
	return ret;
}

/*
 * Count @area, created as area number ifq->nr_areas, as @ifq's: the
 * areas are all host memory or all dmabufs, and at most
 * IO_ZCRX_MAX_AREAS. With @dev, the net_device @area was mapped for, the
 * instance must still be mapped for it: after its unregister, which
 * unmapped the instance's areas under the same lock, a new area would
 * stay mapped for a device that is gone (-EFAULT, as upstream).
 */
static int io_zcrx_append_area(struct io_zcrx_ifq *ifq,
			       struct io_zcrx_area *area,
			       struct net_device *dev)
{
	int ret = 0;
	u32 nr;

	mutex_lock(&io_zcrx_mapped_lock);
	nr = ifq->nr_areas;
	if (nr && ifq->areas[0]->is_dmabuf != area->is_dmabuf)
		ret = -EINVAL;
	else if (nr == IO_ZCRX_MAX_AREAS)
		ret = -EINVAL;
	else if (dev && ifq->map_dev != dev)
		ret = -EFAULT;
	if (!ret) {
		ifq->areas[nr] = area;
		/* set before counted: pairs with io_zcrx_nr_areas() */
		smp_store_release(&ifq->nr_areas, nr + 1);
	}
	mutex_unlock(&io_zcrx_mapped_lock);
	return ret;
}

/* ---- the instance ---- */

/* Unmap every area of @ifq: each once, whichever comes first. */
static void io_zcrx_unmap_areas(struct io_zcrx_ifq *ifq)
{
	u32 i;

	lockdep_assert_held(&io_zcrx_mapped_lock);

	for (i = 0; i < ifq->nr_areas; i++)
		io_zcrx_unmap_area(ifq->areas[i], ifq->dma_dev);
}

/*
 * Take @ifq off the list and unmap its areas, in one hold of the lock:
 * off the list, no unregister unmaps them any more, and the device might
 * go if they stayed mapped a moment longer.
 */
static void io_zcrx_forget_mapping(struct io_zcrx_ifq *ifq)
{
	mutex_lock(&io_zcrx_mapped_lock);
	list_del_init(&ifq->map_list);
	ifq->map_dev = NULL;
	io_zcrx_unmap_areas(ifq);
	mutex_unlock(&io_zcrx_mapped_lock);
}

/*
 * The device unregisters: it was closed, it writes to no area any more.
 * Unmap the areas mapped for it now, while its DMA device and IOMMU group
 * still exist; the buffers that user space and skbs hold come back later
 * without any DMA, and copy fallback keeps working. A move to another
 * netns leaves the device registered: nothing to do.
 */
static int io_zcrx_netdev_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct io_zcrx_ifq *ifq, *tmp;

	if (event != NETDEV_UNREGISTER || dev->reg_state == NETREG_REGISTERED)
		return NOTIFY_DONE;

	mutex_lock(&io_zcrx_mapped_lock);
	list_for_each_entry_safe(ifq, tmp, &io_zcrx_mapped, map_list) {
		if (ifq->map_dev != dev)
			continue;
		list_del_init(&ifq->map_list);
		ifq->map_dev = NULL;
		io_zcrx_unmap_areas(ifq);
	}
	mutex_unlock(&io_zcrx_mapped_lock);

	return NOTIFY_OK;
}

static struct notifier_block io_zcrx_netdev_notifier = {
	.notifier_call = io_zcrx_netdev_event,
};

static int __init io_zcrx_init(void)
{
	return register_netdevice_notifier(&io_zcrx_netdev_notifier);
}
subsys_initcall(io_zcrx_init);

static void io_zcrx_ifq_free_work(struct work_struct *work)
{
	struct io_zcrx_ifq *ifq = container_of(work, struct io_zcrx_ifq,
					       free_work);
	u32 i;

	kcov_remote_start_common(ifq->kcov_handle);
	/* nothing fires any more: no pool, no ring, no file holds it */
	cancel_work_sync(&ifq->event_work);
	mem_cgroup_put(ifq->event_memcg);
	io_zcrx_forget_mapping(ifq);
	for (i = 0; i < ifq->nr_areas; i++)
		io_zcrx_free_area(ifq->areas[i]);
	kvfree(ifq->areas);
	if (ifq->acct_user)
		free_uid(ifq->acct_user);
	if (ifq->acct_mm)
		mmdrop(ifq->acct_mm);
	io_free_region(&ifq->region);
	put_device(ifq->dma_dev);
	kfree(ifq);
	kcov_remote_stop();
}

/* Any context: page pools drop their references in softirq. */
static void io_zcrx_ifq_put(struct io_zcrx_ifq *ifq)
{
	if (refcount_dec_and_test(&ifq->refs))
		queue_work(system_unbound_wq, &ifq->free_work);
}

static struct pp_memory_provider_params
io_zcrx_mp_params(struct io_zcrx_ifq *ifq)
{
	return (struct pp_memory_provider_params) {
		.mp_priv	= ifq,
		.mp_ops		= &io_zcrx_mp_ops,
		.rx_page_size	= 1U << ifq->buf_shift,
	};
}

/*
 * Take the instance off its queue; the queue restarts on host memory.
 * False if the restart failed and the device may still write the area
 * through the old pools: then the area stays mapped until the device
 * unregisters or the instance is freed.
 */
static bool io_zcrx_ifq_close(struct io_zcrx_ifq *ifq)
{
	struct pp_memory_provider_params p = io_zcrx_mp_params(ifq);
	bool left = true;

	if (ifq->nodev)
		return true;
	rtnl_lock();
	if (ifq->netdev) {
		left = netif_mp_close_rxq(ifq->netdev, ifq->if_rxq, &p);
		dev_put(ifq->netdev);
		ifq->netdev = NULL;
	}
	rtnl_unlock();
	return left;
}

/* Drop one buffer reference user space held. */
static void io_zcrx_put_niov_ref(struct net_iov *niov)
{
	if (niov->pp) {
		page_pool_unref_net_iov(niov);
		return;
	}
	/* a copy buffer: no page pool ever had it */
	if (atomic_long_dec_and_test(&niov->pp_ref_count))
		io_zcrx_freelist_push(io_zcrx_niov_area(niov), niov);
}

/* Take back one user reference, if user space has not returned it yet. */
static void io_zcrx_drop_user_ref(struct net_iov *niov)
{
	struct io_zcrx_area *area = io_zcrx_niov_area(niov);

	if (atomic_dec_if_positive(&area->user_refs[net_iov_idx(niov)]) >= 0)
		io_zcrx_put_niov_ref(niov);
}

/* The ring is gone: take back every buffer user space still held. */
static void io_zcrx_scrub(struct io_zcrx_ifq *ifq)
{
	u32 a, nr = io_zcrx_nr_areas(ifq);
	struct io_zcrx_area *area;
	size_t i;
	int n;

	for (a = 0; a < nr; a++) {
		area = ifq->areas[a];
		for (i = 0; i < area->nia.num_niovs; i++) {
			n = atomic_xchg(&area->user_refs[i], 0);
			while (n--)
				io_zcrx_put_niov_ref(&area->nia.niovs[i]);
		}
	}
}

/* Another ring or an exported file holds @ifq, which one already holds. */
static void io_zcrx_hold(struct io_zcrx_ifq *ifq)
{
	refcount_inc(&ifq->holders);
	refcount_inc(&ifq->refs);
}

/*
 * A ring or an exported file lets @ifq go. With the last holder nothing
 * can receive into it any more: the queue goes back to host memory, the
 * area is unmapped while the device surely exists, and the buffers user
 * space still holds come back. Process context: RTNL is taken.
 */
static void io_zcrx_unhold(struct io_zcrx_ifq *ifq)
{
	if (refcount_dec_and_test(&ifq->holders)) {
		if (io_zcrx_ifq_close(ifq))
			io_zcrx_forget_mapping(ifq);
		io_zcrx_scrub(ifq);
	}
	io_zcrx_ifq_put(ifq);
}

/* An exported instance: closed from __fput(), in process context. */
static int io_zcrx_file_release(struct inode *inode, struct file *file)
{
	io_zcrx_unhold(file->private_data);
	return 0;
}

static const struct file_operations io_zcrx_fops = {
	.release	= io_zcrx_file_release,
};

/* ---- events and statistics ---- */

/*
 * The event descriptor at @uptr, if any (else all zero), checked. Not
 * upstream's: a ring with IOPOLL takes no events (EINVAL), as 6.1 fills
 * its CQ under the ring's uring_lock alone, which the worker that posts
 * events does not hold.
 */
static int io_zcrx_read_event_desc(struct io_ring_ctx *ctx, u64 uptr,
				   struct zcrx_event_desc *desc)
{
	memset(desc, 0, sizeof(*desc));
	if (uptr && copy_from_user(desc, u64_to_user_ptr(uptr), sizeof(*desc)))
		return -EFAULT;
	if (desc->type_mask && (ctx->flags & IORING_SETUP_IOPOLL))
		return -EINVAL;
	if (desc->type_mask & ~IO_ZCRX_EVENT_MASK ||
	    desc->flags & ~ZCRX_EVENT_DESC_FLAG_STATS)
		return -EINVAL;
	if (desc->stats_offset && !(desc->flags & ZCRX_EVENT_DESC_FLAG_STATS))
		return -EINVAL;
	if (memchr_inv(desc->__resv2, 0, sizeof(desc->__resv2)))
		return -EINVAL;
	return 0;
}

/*
 * Put the statistics user space asked for in the refill region, after
 * the entries @o places and wholly inside, aligned; zeroed.
 */
static int io_zcrx_place_stats(struct io_zcrx_ifq *ifq,
			       const struct zcrx_event_desc *desc,
			       const struct io_uring_zcrx_offsets *o)
{
	u64 rqes_end, off = desc->stats_offset, end;

	if (!(desc->flags & ZCRX_EVENT_DESC_FLAG_STATS))
		return 0;
	if (!IS_ALIGNED(off, IO_ZCRX_STATS_ALIGN))
		return -EINVAL;
	rqes_end = o->rqes + (u64)ifq->rq_entries *
			     sizeof(struct io_uring_zcrx_rqe);
	if (off < rqes_end ||
	    check_add_overflow(off, (u64)sizeof(struct zcrx_stats), &end) ||
	    end > io_region_size(&ifq->region))
		return -ERANGE;
	ifq->stats = ifq->region.ptr + off;
	memset(ifq->stats, 0, sizeof(*ifq->stats));
	return 0;
}

/*
 * Event @type happened: its CQE goes to the event ring, unless user space
 * did not ask for it, there is no event ring any more, or it fired and
 * was not armed again. Any context: the page pool asks for buffers in
 * softirq. The caller holds the instance; its free waits for the work.
 */
static void io_zcrx_event(struct io_zcrx_ifq *ifq, unsigned int type)
{
	if (!(ifq->event_mask & BIT(type)) || !READ_ONCE(ifq->event_ctx))
		return;
	if (test_and_set_bit(type, &ifq->events_fired))
		return;
	set_bit(type, &ifq->events_pending);
	queue_work(system_unbound_wq, &ifq->event_work);
}

/*
 * Post the CQEs of the events that fired: user_data as registered, res
 * the type, no flags, to the overflow list if the CQ is full. 6.1's
 * deferred task work carries only requests, so this posts from a
 * worker, as a message from another ring would: the CQE may be there
 * before the ring next enters the kernel. An event whose CQE cannot be
 * posted (no ring, no memory for the overflow) fires again next time.
 */
static void io_zcrx_event_work(struct work_struct *work)
{
	struct io_zcrx_ifq *ifq = container_of(work, struct io_zcrx_ifq,
					       event_work);
	unsigned long pending = xchg(&ifq->events_pending, 0);
	struct mem_cgroup *old_memcg;
	unsigned int type;

	spin_lock(&ifq->event_lock);
	/* an overflowing CQE is the ring's memory, not the worker's */
	old_memcg = set_active_memcg(ifq->event_memcg);
	for_each_set_bit(type, &pending, IO_ZCRX_EVENT_NR) {
		if (!ifq->event_ctx ||
		    !io_post_aux_cqe(ifq->event_ctx, ifq->event_user_data,
				     type, 0, true))
			clear_bit(type, &ifq->events_fired);
	}
	set_active_memcg(old_memcg);
	spin_unlock(&ifq->event_lock);
}

/**
 * io_zcrx_detach_events() - a ring starts to exit: no more event CQEs
 * @ctx: the ring, its uring_lock held
 *
 * After this no zcrx event reaches @ctx, so none is left behind in its
 * overflow list once it is flushed; the instances @ctx registered post
 * no events any more, whoever else holds them.
 */
void io_zcrx_detach_events(struct io_ring_ctx *ctx)
{
	struct io_zcrx_ifq *ifq;
	unsigned long id;

	lockdep_assert_held(&ctx->uring_lock);

	xa_for_each(&ctx->zcrx_ctxs, id, ifq) {
		spin_lock(&ifq->event_lock);
		if (ifq->event_ctx == ctx)
			WRITE_ONCE(ifq->event_ctx, NULL);
		spin_unlock(&ifq->event_lock);
	}
}

/*
 * ZCRX_CTRL_ARM_EVENT: the next event of the type posts a CQE again. Only
 * an event that fired can be armed: one user space did not ask for or
 * that has not fired since it was last armed is EINVAL, as upstream.
 */
static int io_zcrx_arm_event(struct io_zcrx_ifq *ifq,
			     const struct zcrx_ctrl_arm_event *arg)
{
	if (arg->event_type >= IO_ZCRX_EVENT_NR ||
	    memchr_inv(arg->__resv, 0, sizeof(arg->__resv)))
		return -EINVAL;
	if (!test_and_clear_bit(arg->event_type, &ifq->events_fired))
		return -EINVAL;
	return 0;
}

/*
 * A frag that was not in the area was copied into it, @bytes of it: the
 * one place copies are counted, as upstream's zcrx_stats count them. The
 * kernel's count (fdinfo) and the user's (the region, which user space
 * may reset; plain accesses, as upstream's, so concurrent receives may
 * lose an update there) move together, and a COPY event fires.
 */
static void io_zcrx_count_copy(struct io_zcrx_ifq *ifq, u32 bytes)
{
	struct zcrx_stats *st = ifq->stats;

	atomic64_inc(&ifq->copy_count);
	atomic64_add(bytes, &ifq->copy_bytes);
	if (st) {
		WRITE_ONCE(st->copy_count, READ_ONCE(st->copy_count) + 1);
		WRITE_ONCE(st->copy_bytes, READ_ONCE(st->copy_bytes) + bytes);
	}
	io_zcrx_event(ifq, ZCRX_EVENT_COPY);
}

static int io_zcrx_check_reg(const struct io_uring_zcrx_ifq_reg *reg)
{
	if (memchr_inv(reg->__resv, 0, sizeof(reg->__resv)) || reg->zcrx_id)
		return -EINVAL;
	if (reg->flags & ~(ZCRX_REG_NODEV | ZCRX_REG_IMPORT))
		return -EINVAL;
	return 0;
}

/* Where the refill ring's head, tail and entries are in its region. */
static void io_zcrx_rq_offsets(struct io_uring_zcrx_offsets *o)
{
	o->head = offsetof(struct io_zcrx_rq_hdr, head);
	o->tail = offsetof(struct io_zcrx_rq_hdr, tail);
	o->rqes = ALIGN(IO_ZCRX_RQ_HDR_SIZE, IO_ZCRX_RQ_HDR_ALIGN);
}

static int io_zcrx_check_rq(struct io_ring_ctx *ctx,
			    struct io_uring_zcrx_ifq_reg *reg)
{
	if (reg->if_rxq == U32_MAX || !reg->rq_entries)
		return -EINVAL;
	if ((reg->flags & ZCRX_REG_NODEV) && (reg->if_idx || reg->if_rxq))
		return -EINVAL;
	if (reg->rq_entries > IO_ZCRX_RQ_MAX_ENTRIES) {
		if (!(ctx->flags & IORING_SETUP_CLAMP))
			return -EINVAL;
		reg->rq_entries = IO_ZCRX_RQ_MAX_ENTRIES;
	}
	reg->rq_entries = roundup_pow_of_two(reg->rq_entries);
	return 0;
}

/* The buffer size asked for: where upstream checks it, with the area. */
static int io_zcrx_check_buf_len(const struct io_uring_zcrx_ifq_reg *reg,
				 unsigned int *shift)
{
	if (!reg->rx_buf_len) {
		*shift = PAGE_SHIFT;
		return 0;
	}
	if (!is_power_of_2(reg->rx_buf_len) || reg->rx_buf_len < PAGE_SIZE)
		return -EINVAL;
	*shift = ilog2(reg->rx_buf_len);
	return 0;
}

/* Set up the refill ring in the region user space described. */
static int io_zcrx_create_rq(struct io_ring_ctx *ctx,
			     struct io_zcrx_ifq *ifq,
			     struct io_uring_zcrx_ifq_reg *reg,
			     struct io_uring_region_desc *rd)
{
	u64 mmap_offset;
	size_t rqes_off;
	int ret;

	io_zcrx_rq_offsets(&reg->offsets);
	rqes_off = reg->offsets.rqes;
	if (rd->size < rqes_off + (u64)reg->rq_entries *
				  sizeof(struct io_uring_zcrx_rqe))
		return -EINVAL;

	mmap_offset = IORING_OFF_ZCRX_REGION +
		      ((u64)ifq->id << IORING_OFF_ZCRX_SHIFT);
	ret = io_create_region(ctx, &ifq->region, rd, mmap_offset);
	if (ret)
		return ret;

	ifq->rq_head = ifq->region.ptr + reg->offsets.head;
	ifq->rq_tail = ifq->region.ptr + reg->offsets.tail;
	ifq->rqes = ifq->region.ptr + rqes_off;
	ifq->rq_entries = reg->rq_entries;
	/* the whole header: what lies between head and tail is upstream's */
	memset(ifq->region.ptr, 0, IO_ZCRX_RQ_HDR_SIZE);
	return 0;
}

/*
 * Look the device up, map the area for it and install the instance.
 *
 * RTNL is not held while the area's memory is pinned and mapped, which
 * takes long for a large area: the device is held meanwhile, and must
 * still be registered, in the caller's netns, when the instance is
 * installed under RTNL again.
 */
static int io_zcrx_bind(struct io_ring_ctx *ctx, struct io_zcrx_ifq *ifq,
			struct io_uring_zcrx_ifq_reg *reg,
			const struct io_uring_zcrx_area_reg *area_reg)
{
	const struct netdev_queue_mgmt_ops *qops;
	struct pp_memory_provider_params p;
	struct io_zcrx_area *area;
	struct net_device *dev;
	int ret;

	rtnl_lock();
	dev = __dev_get_by_index(current->nsproxy->net_ns, reg->if_idx);
	if (!dev) {
		rtnl_unlock();
		return -ENODEV;
	}
	if (!dev->dev.parent || !dev->dev.parent->dma_mask) {
		rtnl_unlock();
		return -EOPNOTSUPP;
	}
	dev_hold(dev);
	ifq->dma_dev = get_device(dev->dev.parent);
	rtnl_unlock();

	ret = io_zcrx_check_buf_len(reg, &ifq->buf_shift);
	if (ret)
		goto err_put_dev;
	ret = io_zcrx_create_area(ifq, ifq->dma_dev, area_reg, 0, &area);
	if (ret)
		goto err_put_dev;
	/* the instance is not on the list of mapped ones yet */
	ret = io_zcrx_append_area(ifq, area, NULL);
	if (ret) {
		io_zcrx_drop_area(area, ifq->dma_dev);
		goto err_put_dev;
	}

	rtnl_lock();
	/* unregistered, or moved to another netns (and back), while unlocked */
	if (dev->reg_state != NETREG_REGISTERED ||
	    !net_eq(dev_net(dev), current->nsproxy->net_ns) ||
	    dev->ifindex != reg->if_idx) {
		ret = -ENODEV;
		goto err_unlock;
	}
	/* a buffer size asked for, even PAGE_SIZE, needs the driver's say */
	qops = dev->queue_mgmt_ops;
	if (reg->rx_buf_len && qops &&
	    qops->rx_buf_size_max < reg->rx_buf_len) {
		ret = -EOPNOTSUPP;
		goto err_unlock;
	}

	mutex_lock(&io_zcrx_mapped_lock);
	ifq->map_dev = dev;
	list_add(&ifq->map_list, &io_zcrx_mapped);
	mutex_unlock(&io_zcrx_mapped_lock);

	p = io_zcrx_mp_params(ifq);
	ret = netif_mp_open_rxq(dev, reg->if_rxq, &p, NULL);
	if (ret)
		goto err_unlock;
	ifq->netdev = dev;
	ifq->if_rxq = reg->if_rxq;
	rtnl_unlock();
	return 0;

err_unlock:
	rtnl_unlock();
	/* Unmapped while the device is held: once put, it may be removed
	 * with its IOMMU group. A page pool that took the area (a queue
	 * restart that failed late) keeps it until the pool is gone, or
	 * until the device unregisters.
	 */
	if (refcount_read(&ifq->refs) == 1) {
		io_zcrx_forget_mapping(ifq);
		io_zcrx_free_area(ifq->areas[0]);
		ifq->nr_areas = 0;
	}
err_put_dev:
	dev_put(dev);
	return ret;
}

/*
 * ZCRX_REG_NODEV: an instance on no device, no queue and no page pool.
 * Every byte a RECV_ZC takes is copied into a page of a host area, so
 * the buffers are pages. Only FLUSH_RQ reads the refill ring; what user
 * space holds besides comes back at the ring's exit. Upstream tests
 * its uAPI this way, without a NIC.
 */
static int io_zcrx_create_nodev(struct io_zcrx_ifq *ifq,
				const struct io_uring_zcrx_ifq_reg *reg,
				const struct io_uring_zcrx_area_reg *area_reg)
{
	struct io_zcrx_area *area;
	int ret;

	ret = io_zcrx_check_buf_len(reg, &ifq->buf_shift);
	if (ret)
		return ret;
	if (ifq->buf_shift != PAGE_SHIFT)
		return -EOPNOTSUPP;
	ret = io_zcrx_create_area(ifq, NULL, area_reg, 0, &area);
	if (ret)
		return ret;
	ret = io_zcrx_append_area(ifq, area, NULL);
	if (ret)
		io_zcrx_drop_area(area, NULL);
	return ret;
}

/*
 * ZCRX_REG_IMPORT: the instance of a file ZCRX_CTRL_EXPORT made, its fd in
 * if_idx, gets an id in this ring too. Nothing else is taken from @reg:
 * the queue, area and refill ring are the instance's, and its events go
 * to the ring that registered it. Upstream's rules: no other flag and no
 * queue, ring size, area, region or event descriptor (EINVAL), and an
 * fd that is not such a file EBADF. The memory stays charged to the user
 * that registered the instance. @reg goes back with the id and the refill
 * ring's offsets, the rest as it came.
 */
static int io_zcrx_import(struct io_ring_ctx *ctx,
			  struct io_uring_zcrx_ifq_reg __user *arg,
			  struct io_uring_zcrx_ifq_reg *reg)
{
	struct io_zcrx_ifq *ifq;
	struct file *file;
	u32 id;
	int ret;

	if (reg->flags != ZCRX_REG_IMPORT || reg->if_rxq || reg->rq_entries ||
	    reg->area_ptr || reg->region_ptr || reg->event_desc)
		return -EINVAL;
	file = fget(reg->if_idx);
	if (!file)
		return -EBADF;
	ret = -EBADF;
	if (file->f_op != &io_zcrx_fops)
		goto out_fput;
	ifq = file->private_data;

	ret = xa_alloc(&ctx->zcrx_ctxs, &id, NULL,
		       XA_LIMIT(0, IO_ZCRX_MAX_IFQS - 1), GFP_KERNEL);
	if (ret)
		goto out_fput;
	reg->zcrx_id = id;
	io_zcrx_rq_offsets(&reg->offsets);
	if (copy_to_user(arg, reg, sizeof(*reg))) {
		ret = -EFAULT;
		goto err_erase_id;
	}
	/* the file holds it: it cannot have gone */
	io_zcrx_hold(ifq);
	xa_store(&ctx->zcrx_ctxs, id, ifq, GFP_KERNEL);
	fput(file);
	return 0;

err_erase_id:
	xa_erase(&ctx->zcrx_ctxs, id);
out_fput:
	fput(file);
	return ret;
}

/**
 * io_register_zcrx_ifq() - IORING_REGISTER_ZCRX_IFQ
 * @ctx: the ring
 * @arg: struct io_uring_zcrx_ifq_reg, with the region and area it names
 *
 * Checked in upstream's order; see Documentation/networking/devmem.rst,
 * "io_uring zero-copy receive", for every errno. On success the
 * registration is written back: the refill ring's entries (rounded up to
 * a power of two) and offsets, the zcrx_id, the buffer size, the region
 * (with its mmap offset) and the area's token.
 *
 * Context: the ring's uring_lock held.
 * Return: 0 or a negative errno; nothing is left behind on error.
 */
int io_register_zcrx_ifq(struct io_ring_ctx *ctx,
			 struct io_uring_zcrx_ifq_reg __user *arg)
{
	struct io_uring_zcrx_area_reg area;
	struct io_uring_zcrx_ifq_reg reg;
	struct io_uring_region_desc rd;
	struct zcrx_event_desc ev;
	struct io_zcrx_ifq *ifq;
	u32 id;
	int ret;

	lockdep_assert_held(&ctx->uring_lock);

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (!(ctx->flags & IORING_SETUP_DEFER_TASKRUN) ||
	    !(ctx->flags & (IORING_SETUP_CQE32 | IORING_SETUP_CQE_MIXED)))
		return -EINVAL;
	if (copy_from_user(&reg, arg, sizeof(reg)))
		return -EFAULT;
	ret = io_zcrx_check_reg(&reg);
	if (ret)
		return ret;
	if (reg.flags & ZCRX_REG_IMPORT)
		return io_zcrx_import(ctx, arg, &reg);
	if (copy_from_user(&rd, u64_to_user_ptr(reg.region_ptr), sizeof(rd)))
		return -EFAULT;
	ret = io_zcrx_check_rq(ctx, &reg);
	if (ret)
		return ret;
	if (copy_from_user(&area, u64_to_user_ptr(reg.area_ptr), sizeof(area)))
		return -EFAULT;
	/* an output: before the device is looked up, as upstream checks it */
	if (area.rq_area_token)
		return -EINVAL;
	ret = io_zcrx_read_event_desc(ctx, reg.event_desc, &ev);
	if (ret)
		return ret;

	ifq = kzalloc(sizeof(*ifq), GFP_KERNEL_ACCOUNT);
	if (!ifq)
		return -ENOMEM;
	ifq->areas = kvcalloc(IO_ZCRX_MAX_AREAS, sizeof(*ifq->areas),
			      GFP_KERNEL_ACCOUNT);
	if (!ifq->areas) {
		kfree(ifq);
		return -ENOMEM;
	}
	mutex_init(&ifq->area_lock);
	/* this ring's creator pays for every area, whichever ring adds it */
	if (ctx->user)
		ifq->acct_user = get_uid(ctx->user);
	if (ctx->mm_account) {
		mmgrab(ctx->mm_account);
		ifq->acct_mm = ctx->mm_account;
	}
	refcount_set(&ifq->holders, 1);
	refcount_set(&ifq->refs, 1);
	INIT_WORK(&ifq->free_work, io_zcrx_ifq_free_work);
	ifq->kcov_handle = kcov_common_handle();
	INIT_LIST_HEAD(&ifq->map_list);
	spin_lock_init(&ifq->rq_lock);
	spin_lock_init(&ifq->event_lock);
	INIT_WORK(&ifq->event_work, io_zcrx_event_work);
	ifq->event_user_data = ev.user_data;
	ifq->event_mask = ev.type_mask;
	ifq->nodev = reg.flags & ZCRX_REG_NODEV;

	/* reserve the id: nothing finds the instance until it is stored */
	ret = xa_alloc(&ctx->zcrx_ctxs, &id, NULL,
		       XA_LIMIT(0, IO_ZCRX_MAX_IFQS - 1), GFP_KERNEL);
	if (ret)
		goto err_free_ifq;
	ifq->id = id;

	ret = io_zcrx_create_rq(ctx, ifq, &reg, &rd);
	if (ret)
		goto err_erase_id;
	ret = io_zcrx_place_stats(ifq, &ev, &reg.offsets);
	if (ret)
		goto err_erase_id;
	if (ifq->nodev)
		ret = io_zcrx_create_nodev(ifq, &reg, &area);
	else
		ret = io_zcrx_bind(ctx, ifq, &reg, &area);
	if (ret)
		goto err_erase_id;

	reg.zcrx_id = id;
	reg.rx_buf_len = 1U << ifq->buf_shift;
	area.rq_area_token = 0;
	if (copy_to_user(arg, &reg, sizeof(reg)) ||
	    copy_to_user(u64_to_user_ptr(reg.region_ptr), &rd, sizeof(rd)) ||
	    copy_to_user(u64_to_user_ptr(reg.area_ptr), &area, sizeof(area))) {
		ret = -EFAULT;
		goto err_close;
	}
	xa_store(&ctx->zcrx_ctxs, id, ifq, GFP_KERNEL);
	/* registered: events may go to this ring from now on */
	if (ifq->event_mask) {
		ifq->event_memcg = get_mem_cgroup_from_mm(current->mm);
		spin_lock(&ifq->event_lock);
		WRITE_ONCE(ifq->event_ctx, ctx);
		spin_unlock(&ifq->event_lock);
	}
	return 0;

err_close:
	io_zcrx_ifq_close(ifq);
err_erase_id:
	xa_erase(&ctx->zcrx_ctxs, id);
err_free_ifq:
	io_zcrx_ifq_put(ifq);
	return ret;
}

/**
 * io_unregister_zcrx_ifqs() - the ring exits: close every instance
 * @ctx: the ring, with no request left
 *
 * Each queue goes back to host memory and every buffer user space still
 * held is taken back; the instances live on until their page pools are
 * gone.
 */
void io_unregister_zcrx_ifqs(struct io_ring_ctx *ctx)
{
	struct io_zcrx_ifq *ifq;
	unsigned long id;

	xa_for_each(&ctx->zcrx_ctxs, id, ifq) {
		xa_erase(&ctx->zcrx_ctxs, id);
		/* in the ring's exit work: no task's coverage but this */
		kcov_remote_start_common(ifq->kcov_handle);
		io_zcrx_unhold(ifq);
		kcov_remote_stop();
	}
	xa_destroy(&ctx->zcrx_ctxs);
}

/**
 * io_zcrx_get_region() - the refill ring region of instance @id
 * @ctx: the ring
 * @id: zcrx_id
 *
 * Return: the region, or NULL if there is no such instance.
 */
struct io_mapped_region *io_zcrx_get_region(struct io_ring_ctx *ctx,
					    unsigned int id)
{
	struct io_zcrx_ifq *ifq = xa_load(&ctx->zcrx_ctxs, id);

	return ifq ? &ifq->region : NULL;
}

void io_zcrx_show_fdinfo(struct seq_file *m, struct io_ring_ctx *ctx)
{
	struct io_zcrx_ifq *ifq;
	unsigned long id;

	xa_for_each(&ctx->zcrx_ctxs, id, ifq)
		seq_printf(m, "Zcrx%lu:\tqueue %u buf_len %u zc_bytes %lld copy_count %lld copy_bytes %lld head_bytes %lld mapped %d areas %u\n",
			   id, ifq->if_rxq, 1U << ifq->buf_shift,
			   (long long)atomic64_read(&ifq->zc_bytes),
			   (long long)atomic64_read(&ifq->copy_count),
			   (long long)atomic64_read(&ifq->copy_bytes),
			   (long long)atomic64_read(&ifq->head_bytes),
			   /* all of them are unmapped together */
			   READ_ONCE(ifq->areas[0]->mapped) ||
			   READ_ONCE(ifq->areas[0]->dmabuf_sgt),
			   io_zcrx_nr_areas(ifq));
}

/* ---- the memory provider ---- */

/* The net_iov an rqe names, or NULL for a bad entry (skipped). */
static struct net_iov *io_zcrx_rqe_niov(struct io_zcrx_ifq *ifq,
					const struct io_uring_zcrx_rqe *rqe)
{
	u32 nr = io_zcrx_nr_areas(ifq);
	u64 off = READ_ONCE(rqe->off);
	struct io_zcrx_area *area;
	u64 idx;

	idx = off >> IORING_ZCRX_AREA_SHIFT;
	if (READ_ONCE(rqe->__pad) || idx >= nr)
		return NULL;
	area = ifq->areas[array_index_nospec(idx, nr)];
	idx = (off & ~IORING_ZCRX_AREA_MASK) >> ifq->buf_shift;
	if (idx >= area->nia.num_niovs)
		return NULL;
	idx = array_index_nospec(idx, area->nia.num_niovs);
	return &area->nia.niovs[idx];
}

/* The buffer the entry at the kernel's head names, or NULL if it is bad. */
static struct net_iov *io_zcrx_rq_peek(struct io_zcrx_ifq *ifq)
{
	u32 at = ifq->cached_rq_head & (ifq->rq_entries - 1);

	return io_zcrx_rqe_niov(ifq, &ifq->rqes[at]);
}

/*
 * Entries the pool's refill examines before it reads the tail again, as
 * upstream 7.3: 256 with 4 KiB pages, at most 1024.
 */
#define IO_ZCRX_REFILL_SCAN \
	min_t(u32, 64 * max_t(u32, PAGE_SIZE / 1024, 1), 1024)

/*
 * Take @k of the user references of @niov at once, or none if user space
 * holds fewer: a run of entries that names a buffer more often than it
 * was handed out is ignored whole, as upstream 7.3 does. Fully ordered
 * when it succeeds (see io_zcrx_recv_niov()).
 */
static bool io_zcrx_take_user_refs(struct net_iov *niov, int k)
{
	atomic_t *refs = &io_zcrx_niov_area(niov)->user_refs[net_iov_idx(niov)];
	int old = atomic_read(refs);

	do {
		if (old < k)
			return false;
	} while (!atomic_try_cmpxchg(refs, &old, old - k));
	return true;
}

/*
 * @k references of @niov came back through the refill ring. True if they
 * were the last and @niov is @pp's again, synced for the device; a buffer
 * of an older pool goes back to it, a copy buffer to the free list.
 */
static bool io_zcrx_refill_niov(struct page_pool *pp,
				struct io_zcrx_ifq *ifq,
				struct net_iov *niov, int k)
{
	if (niov->pp != pp) {
		while (k--)
			io_zcrx_put_niov_ref(niov);
		return false;
	}
	if (!atomic_long_sub_and_test(k, &niov->pp_ref_count))
		return false;
	/* the CPU may have written the buffer: the device's now */
	io_zcrx_sync(ifq, niov, 0, 1U << ifq->buf_shift, false);
	return true;
}

/*
 * Consume the refill ring as 7.3 does: up to IO_ZCRX_REFILL_SCAN entries
 * up to the tail last read, then, short of a refill's worth of buffers,
 * as many again up to the tail read once more; runs of entries naming
 * one buffer go back together; bad entries are skipped. Buffers whose
 * last reference goes refill @pp's alloc cache, the first is returned.
 */
static netmem_ref io_zcrx_refill(struct page_pool *pp,
				 struct io_zcrx_ifq *ifq)
{
	struct net_iov *niov, *next = NULL;
	netmem_ref netmem, first = 0;
	u32 got = 0, n, pass;
	bool ahead = false;

	spin_lock_bh(&ifq->rq_lock);
	for (pass = 0; pass < 2 && got < PP_ALLOC_CACHE_REFILL; pass++) {
		if (pass) {
			/* pairs with user space's store-release of the
			 * tail: the entries before it are written
			 */
			ifq->cached_rq_tail = smp_load_acquire(ifq->rq_tail);
		}
		n = min3(ifq->cached_rq_tail - ifq->cached_rq_head,
			 ifq->rq_entries, IO_ZCRX_REFILL_SCAN);
		while (n && got < PP_ALLOC_CACHE_REFILL) {
			int k = 1;

			/* each entry is read once: the one that ended the
			 * last run is the head now
			 */
			niov = ahead ? next : io_zcrx_rq_peek(ifq);
			ahead = false;
			ifq->cached_rq_head++;
			n--;
			if (!niov)
				continue;
			/* a run of entries for one buffer */
			while (n) {
				next = io_zcrx_rq_peek(ifq);
				if (next != niov) {
					ahead = true;
					break;
				}
				ifq->cached_rq_head++;
				n--;
				k++;
			}
			if (!io_zcrx_take_user_refs(niov, k) ||
			    !io_zcrx_refill_niov(pp, ifq, niov, k))
				continue;
			netmem = net_iov_to_netmem(niov);
			if (!first)
				first = netmem;
			else
				page_pool_mp_return_in_cache(pp, netmem);
			got++;
		}
	}
	/* the entries are read: user space may write over them */
	smp_store_release(ifq->rq_head, ifq->cached_rq_head);
	spin_unlock_bh(&ifq->rq_lock);
	return first;
}

/* ---- control operations (IORING_REGISTER_ZCRX_CTRL) ---- */

/* the refill ring entries FLUSH_RQ reads under the lock at a time */
#define IO_ZCRX_FLUSH_BATCH		32

/* A buffer user space returned through FLUSH_RQ. */
static void io_zcrx_flush_niov(struct io_zcrx_ifq *ifq, struct net_iov *niov)
{
	struct io_zcrx_area *area = io_zcrx_niov_area(niov);

	if (atomic_dec_if_positive(&area->user_refs[net_iov_idx(niov)]) < 0)
		return;
	/*
	 * The CPU may have written it, and with this reference gone the
	 * pool may hand it to the device at once: the device's first.
	 */
	if (niov->pp)
		io_zcrx_sync(ifq, niov, 0, 1U << ifq->buf_shift, false);
	io_zcrx_put_niov_ref(niov);
}

/*
 * Take up to IO_ZCRX_FLUSH_BATCH entries off the refill ring, up to and
 * including the first bad one, and give their buffers back. Returns how
 * many good entries it took: a bad one makes the count short of a full
 * batch, wherever it was.
 */
static u32 io_zcrx_flush_batch(struct io_zcrx_ifq *ifq)
{
	u32 n, good;

	spin_lock_bh(&ifq->rq_lock);
	/* pairs with user space's store-release of the tail; the pool's
	 * refill goes on from the tail read here
	 */
	ifq->cached_rq_tail = smp_load_acquire(ifq->rq_tail);
	n = min3(ifq->cached_rq_tail - ifq->cached_rq_head, ifq->rq_entries,
		 (u32)IO_ZCRX_FLUSH_BATCH);
	for (good = 0; good < n; good++) {
		struct net_iov *niov = io_zcrx_rq_peek(ifq);

		ifq->cached_rq_head++;
		if (!niov)
			break;
		io_zcrx_flush_niov(ifq, niov);
	}
	/* the entries are read: user space may write over them */
	smp_store_release(ifq->rq_head, ifq->cached_rq_head);
	spin_unlock_bh(&ifq->rq_lock);
	return good;
}

/*
 * ZCRX_CTRL_FLUSH_RQ: consume the refill ring now rather than when the
 * page pool next runs short; with no device (NODEV) nothing else does.
 * At most a ring's worth of entries per call, whatever head and tail
 * say, and a bad entry ends the call (it is consumed, as the pool's
 * refill would skip it). Always 0 once the argument is valid.
 */
static int io_zcrx_flush_rq(struct io_zcrx_ifq *ifq,
			    const struct zcrx_ctrl_flush_rq *arg)
{
	u32 done = 0, good;

	if (memchr_inv(arg, 0, sizeof(*arg)))
		return -EINVAL;
	do {
		good = io_zcrx_flush_batch(ifq);
		done += good;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	} while (good == IO_ZCRX_FLUSH_BATCH && done < ifq->rq_entries);
	return 0;
}

/*
 * ZCRX_CTRL_EXPORT: a file that holds the instance, for another ring to
 * import (ZCRX_REG_IMPORT), in this process or one the fd is passed to.
 * Its argument must be all zero; the fd comes back in it, and exists only
 * once the whole struct is written back (a fault leaves no fd behind).
 */
static int io_zcrx_export(struct io_zcrx_ifq *ifq, struct zcrx_ctrl *ctrl,
			  void __user *arg)
{
	struct file *file;
	int fd;

	if (memchr_inv(&ctrl->zc_export, 0, sizeof(ctrl->zc_export)))
		return -EINVAL;
	/* the file first, then the fd, as upstream: its errno comes first */
	io_zcrx_hold(ifq);
	file = anon_inode_getfile("[zcrx]", &io_zcrx_fops, ifq, O_RDONLY);
	if (IS_ERR(file)) {
		io_zcrx_unhold(ifq);
		return PTR_ERR(file);
	}
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		/* its release lets the instance go */
		fput(file);
		return fd;
	}
	ctrl->zc_export.zcrx_fd = fd;
	if (copy_to_user(arg, ctrl, sizeof(*ctrl))) {
		put_unused_fd(fd);
		/* its release lets the instance go */
		fput(file);
		return -EFAULT;
	}
	fd_install(fd, file);
	return 0;
}

/*
 * The net_device the instance's areas are mapped for, held, or NULL once
 * it has unregistered (or the instance was closed).
 */
static struct net_device *io_zcrx_hold_map_dev(struct io_zcrx_ifq *ifq)
{
	struct net_device *dev;

	mutex_lock(&io_zcrx_mapped_lock);
	dev = ifq->map_dev;
	dev_hold(dev);
	mutex_unlock(&io_zcrx_mapped_lock);
	return dev;
}

/*
 * ZCRX_CTRL_ADD_AREA: one more area for a live instance, of its kind and
 * buffer size, as upstream 7.3 checks it: the area's registration is read
 * first (-EFAULT), then the reserved words and the token (-EINVAL), then
 * whether the instance's device is gone (-EFAULT). The token the area
 * will have goes back before the area is made, as an area counted cannot
 * be taken back: after a later error user space holds a token no area
 * has. The rest fails as registration does (io_zcrx_create_area()), or
 * with -EINVAL for an area of the other kind or the 1025th.
 *
 * Any ring that holds the instance may add one; the memory is charged to
 * the user of the ring that registered it. A dmabuf is attached, and
 * host memory mapped, with the device held: its unregister cannot end,
 * nor its parent go, before the area is counted (and unmapped by it) or
 * unmapped here. Host memory is pinned with no device held, as a pin
 * may fault for as long as user space makes it, and an unregister must
 * not wait for that.
 */
static int io_zcrx_add_area(struct io_zcrx_ifq *ifq,
			    const struct zcrx_ctrl_area *arg)
{
	struct io_uring_zcrx_area_reg __user *uarea;
	struct io_uring_zcrx_area_reg reg;
	struct net_device *dev = NULL;
	struct io_zcrx_area *area;
	u64 token;
	int ret;

	uarea = u64_to_user_ptr(arg->area_ptr);
	if (copy_from_user(&reg, uarea, sizeof(reg)))
		return -EFAULT;
	if (memchr_inv(arg->__resv, 0, sizeof(arg->__resv)) ||
	    reg.rq_area_token)
		return -EINVAL;

	if (mutex_lock_killable(&ifq->area_lock))
		return -EINTR;
	if (!ifq->nodev) {
		dev = io_zcrx_hold_map_dev(ifq);
		ret = -EFAULT;
		if (!dev)
			goto out_unlock;
		if (!(reg.flags & IORING_ZCRX_AREA_DMABUF)) {
			dev_put(dev);
			dev = NULL;
		}
	}

	token = (u64)ifq->nr_areas << IORING_ZCRX_AREA_SHIFT;
	ret = -EFAULT;
	if (put_user(token, &uarea->rq_area_token))
		goto out_put_dev;
	ret = io_zcrx_create_area(ifq, dev ? ifq->dma_dev : NULL, &reg,
				  ifq->nr_areas, &area);
	if (ret)
		goto out_put_dev;
	/* host memory, pinned: mapped now, with the device held */
	if (!ifq->nodev && !dev) {
		dev = io_zcrx_hold_map_dev(ifq);
		ret = dev ? io_zcrx_map_host(area, ifq->dma_dev, reg.len) :
			    -EFAULT;
	}
	if (!ret)
		ret = io_zcrx_append_area(ifq, area, dev);
	if (ret)
		io_zcrx_drop_area(area, dev ? ifq->dma_dev : NULL);

out_put_dev:
	dev_put(dev);
out_unlock:
	mutex_unlock(&ifq->area_lock);
	return ret;
}

/**
 * io_zcrx_ctrl() - IORING_REGISTER_ZCRX_CTRL: an operation on an instance
 * @ctx: the ring, its uring_lock held
 * @arg: user pointer to a struct zcrx_ctrl
 * @nr_args: must be 0
 *
 * The checks run in upstream's order, and reserved header words are a
 * fault (-EFAULT), as upstream answers; the operation's own argument is
 * checked by the operation. No capability is checked: the ring holds the
 * instance.
 *
 * Return: 0, -EINVAL (@nr_args, or the operation's argument), -EFAULT
 * (copy, reserved words, the write-back of EXPORT), -ENXIO (no such
 * instance in this ring), -EOPNOTSUPP (an operation this kernel does not
 * run), EXPORT's -EMFILE or -ENOMEM, or ADD_AREA's errors (see
 * io_zcrx_add_area(); -EINTR if killed waiting for another ring's).
 */
int io_zcrx_ctrl(struct io_ring_ctx *ctx, void __user *arg,
		 unsigned int nr_args)
{
	struct io_zcrx_ifq *ifq;
	struct zcrx_ctrl ctrl;

	lockdep_assert_held(&ctx->uring_lock);

	if (nr_args)
		return -EINVAL;
	if (copy_from_user(&ctrl, arg, sizeof(ctrl)))
		return -EFAULT;
	if (memchr_inv(ctrl.__resv, 0, sizeof(ctrl.__resv)))
		return -EFAULT;
	ifq = xa_load(&ctx->zcrx_ctxs, ctrl.zcrx_id);
	if (!ifq)
		return -ENXIO;

	switch (ctrl.op) {
	case ZCRX_CTRL_FLUSH_RQ:
		return io_zcrx_flush_rq(ifq, &ctrl.zc_flush);
	case ZCRX_CTRL_EXPORT:
		return io_zcrx_export(ifq, &ctrl, arg);
	case ZCRX_CTRL_ARM_EVENT:
		return io_zcrx_arm_event(ifq, &ctrl.zc_arm_event);
	case ZCRX_CTRL_ADD_AREA:
		return io_zcrx_add_area(ifq, &ctrl.zc_area);
	}
	return -EOPNOTSUPP;
}

static netmem_ref io_zcrx_alloc_netmems(struct page_pool *pp, gfp_t gfp)
{
	struct io_zcrx_ifq *ifq = pp->mp_priv;
	struct net_iov *niov;
	netmem_ref netmem;

	netmem = io_zcrx_refill(pp, ifq);
	if (netmem)
		return netmem;

	niov = io_zcrx_pop_free(ifq);
	if (!niov) {
		io_zcrx_event(ifq, ZCRX_EVENT_ALLOC_FAIL);
		return 0;
	}
	/*
	 * The CPU may have written it since the device last did: a copy, or
	 * user space before the area was registered (mapped with no sync).
	 * The device's before it writes, as a refilled buffer is.
	 */
	io_zcrx_sync(ifq, niov, 0, 1U << ifq->buf_shift, false);
	niov->pp = pp;
	pp->pages_state_hold_cnt++;
	return net_iov_to_netmem(niov);
}

static bool io_zcrx_release_netmem(struct page_pool *pp, netmem_ref netmem)
{
	struct net_iov *niov = netmem_to_net_iov(netmem);

	niov->pp = NULL;
	io_zcrx_freelist_push(io_zcrx_niov_area(niov), niov);
	/* never put_page() a net_iov */
	return false;
}

static int io_zcrx_pp_init(struct page_pool *pp)
{
	struct io_zcrx_ifq *ifq = pp->mp_priv;

	if (!ifq)
		return -EINVAL;
	if (pp->p.dev != ifq->dma_dev)
		return -EINVAL;
	if (!(pp->p.flags & PP_FLAG_DMA_MAP) ||
	    pp->p.dma_dir != DMA_FROM_DEVICE)
		return -EOPNOTSUPP;
	if (PAGE_SHIFT + pp->p.order != ifq->buf_shift)
		return -EINVAL;

	refcount_inc(&ifq->refs);
	return 0;
}

static void io_zcrx_pp_destroy(struct page_pool *pp)
{
	io_zcrx_ifq_put(pp->mp_priv);
}

static int io_zcrx_nl_fill(void *mp_priv, struct sk_buff *rsp,
			   struct netdev_rx_queue *rxq)
{
	int type = rxq ? NETDEV_A_QUEUE_IO_URING : NETDEV_A_PAGE_POOL_IO_URING;
	struct io_zcrx_ifq *ifq = mp_priv;
	struct nlattr *nest;

	nest = nla_nest_start(rsp, type);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(rsp, NETDEV_A_IO_URING_PROVIDER_INFO_RX_BUF_LEN,
			1U << ifq->buf_shift)) {
		nla_nest_cancel(rsp, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(rsp, nest);
	return 0;
}

/* The device unregisters: let go of it. Its NETDEV_UNREGISTER, next,
 * unmaps the area (io_zcrx_netdev_event()).
 */
static void io_zcrx_uninstall(void *mp_priv, struct netdev_rx_queue *rxq)
{
	struct io_zcrx_ifq *ifq = mp_priv;

	ASSERT_RTNL();

	if (ifq->netdev) {
		dev_put(ifq->netdev);
		ifq->netdev = NULL;
	}
}

static const struct memory_provider_ops io_zcrx_mp_ops = {
	.alloc_netmems		= io_zcrx_alloc_netmems,
	.release_netmem		= io_zcrx_release_netmem,
	.init			= io_zcrx_pp_init,
	.destroy		= io_zcrx_pp_destroy,
	.nl_fill		= io_zcrx_nl_fill,
	.uninstall		= io_zcrx_uninstall,
};

/* ---- IORING_OP_RECV_ZC ---- */

struct io_zcrx_args {
	struct io_kiocb		*req;
	struct io_zcrx_ifq	*ifq;
	struct sock		*sk;
	unsigned int		nr_skbs;
	/* copies of the skb being read, for its RX queue's counts */
	u32			copied;
	u32			copies;
};

static bool io_zcrx_post(struct io_kiocb *req, struct io_zcrx_ifq *ifq,
			 struct net_iov *niov, u32 off, u32 len)
{
	struct io_zcrx_area *area = io_zcrx_niov_area(niov);
	bool trace = trace_zcrx_cqe_enabled();
	u32 idx = net_iov_idx(niov);
	bool copied = false;
	int user_refs = 0;
	long pp_refs = 0;
	u64 token;

	token = ((u64)area->nia.id << IORING_ZCRX_AREA_SHIFT) |
		(net_iov_virtual_addr(niov) + off);
	/* The buffer as user space first sees it: read before the post, as
	 * user space may give it back the moment the CQE is there; traced
	 * only once the CQE is posted.
	 */
	if (trace) {
		copied = !niov->pp;
		user_refs = atomic_read(&area->user_refs[idx]);
		pp_refs = atomic_long_read(&niov->pp_ref_count);
	}
	if (!io_post_aux_cqe32(req->ctx, req->cqe.user_data, len,
			       IORING_CQE_F_MORE, token, 0))
		return false;
	if (trace)
		trace_zcrx_cqe(ifq->id, area->nia.id, idx, off, len, copied,
			       user_refs, pp_refs);
	return true;
}

/* A frag in the area: hand the buffer to user space. */
static int io_zcrx_recv_niov(struct io_zcrx_args *args, const skb_frag_t *frag,
			     u32 off, u32 len)
{
	struct net_iov *niov = skb_frag_net_iov(frag);
	struct io_zcrx_ifq *ifq = args->ifq;

	/* another provider's buffer (devmem, another instance) */
	if (!niov || niov->owner->type != NET_IOV_IOURING ||
	    io_zcrx_niov_area(niov)->ifq != ifq)
		return -EFAULT;

	off += skb_frag_off(frag);
	io_zcrx_sync(ifq, niov, off, len, true);
	/*
	 * The references before the completion, the pool's first: user
	 * space may return the buffer through the refill ring, from another
	 * CPU, as soon as it sees the CQE, or before it (an entry that
	 * guesses the buffer). The refill takes the user reference with a
	 * fully ordered atomic_try_cmpxchg() (FLUSH_RQ with
	 * atomic_dec_if_positive(), as fully ordered when it succeeds), then
	 * drops the pool's: it must never see the user reference without
	 * the pool reference, or it would drop the skb's. Non-returning
	 * atomics are unordered on arm64 and POWER; the barrier orders the
	 * pool reference before the user reference, and pairs with the
	 * one the refill's read-modify-write implies.
	 */
	atomic_long_inc(&niov->pp_ref_count);
	/* the pool reference first: pairs with io_zcrx_refill() */
	smp_mb__before_atomic();
	atomic_inc(&io_zcrx_niov_area(niov)->user_refs[net_iov_idx(niov)]);
	if (!io_zcrx_post(args->req, ifq, niov, off, len)) {
		io_zcrx_drop_user_ref(niov);
		return -ENOSPC;
	}
	atomic64_add(len, &ifq->zc_bytes);
	return len;
}

/*
 * Data that did not come through the queue: copy up to a page of it, from
 * the skb's head (@page NULL, @src its address) or from @page at @src
 * bytes, into a free buffer of a host area. Returns the bytes copied.
 */
static int io_zcrx_copy_chunk(struct io_zcrx_args *args, struct page *page,
			      const void *src, unsigned long src_off, u32 len)
{
	struct io_zcrx_ifq *ifq = args->ifq;
	struct io_zcrx_area *area;
	struct net_iov *niov;
	struct page *dst;
	u32 copied = 0;
	void *vaddr;

	/* all the areas are of one kind, and a dmabuf is never copied into */
	if (ifq->areas[0]->is_dmabuf)
		return -ENOMEM;
	niov = io_zcrx_pop_free(ifq);
	if (!niov)
		return -ENOMEM;
	area = io_zcrx_niov_area(niov);

	len = min_t(u32, len, PAGE_SIZE);
	dst = area->pages[net_iov_virtual_addr(niov) >> PAGE_SHIFT];
	vaddr = kmap_local_page(dst);
	while (copied < len) {
		unsigned long at = src_off + copied;
		u32 n = len - copied;

		if (!page) {
			memcpy(vaddr + copied, src + copied, n);
		} else {
			n = min_t(u32, n, PAGE_SIZE - offset_in_page(at));
			memcpy_from_page(vaddr + copied, page + (at >> PAGE_SHIFT),
					 offset_in_page(at), n);
		}
		copied += n;
	}
	kunmap_local(vaddr);

	niov->pp = NULL;
	atomic_long_set(&niov->pp_ref_count, 1);
	/* as in io_zcrx_recv_niov(): a refill that takes the user reference
	 * sees the buffer's owner and pool reference set
	 */
	smp_mb__before_atomic();
	atomic_inc(&area->user_refs[net_iov_idx(niov)]);
	if (!io_zcrx_post(args->req, args->ifq, niov, 0, len)) {
		io_zcrx_drop_user_ref(niov);
		return -ENOSPC;
	}
	return len;
}

/* Copy @len bytes, a page at a time; returns what was copied, or an
 * errno if nothing was.
 */
static int io_zcrx_copy(struct io_zcrx_args *args, struct page *page,
			const void *src, unsigned long src_off, u32 len)
{
	u32 done = 0;
	int ret = 0;

	while (done < len) {
		ret = io_zcrx_copy_chunk(args, page, src ? src + done : NULL,
					 src_off + done, len - done);
		if (ret <= 0)
			break;
		done += ret;
	}
	return done ? done : ret;
}

static int io_zcrx_copy_frag(struct io_zcrx_args *args,
			     const skb_frag_t *frag, u32 off, u32 len)
{
	int ret;

	ret = io_zcrx_copy(args, skb_frag_page(frag), NULL,
			   skb_frag_off(frag) + off, len);
	if (ret > 0) {
		io_zcrx_count_copy(args->ifq, ret);
		args->copied += ret;
		args->copies++;
	}
	return ret;
}

/* Counts the @ret bytes one piece of an skb gave out of the @n asked for
 * into *@done; false when the receive stops there (an error, or a piece cut
 * short by a full ring or area).
 */
static bool io_zcrx_piece_done(int ret, size_t n, size_t *done)
{
	if (ret <= 0)
		return false;
	*done += ret;
	return (size_t)ret == n;
}

/* Bytes [@offset, @offset + @len) of @skb and its frag_list. */
static int io_zcrx_recv_one(struct io_zcrx_args *args, struct sk_buff *skb,
			    unsigned int offset, size_t len)
{
	struct sk_buff *frag_iter;
	unsigned int start, end;
	size_t done = 0;
	int i, ret = 0;

	start = skb_headlen(skb);
	if (offset < start) {
		u32 n = min_t(size_t, len, start - offset);

		ret = io_zcrx_copy(args, NULL, skb->data + offset, 0, n);
		if (ret > 0) {
			atomic64_add(ret, &args->ifq->head_bytes);
			args->copied += ret;
			args->copies++;
		}
		if (!io_zcrx_piece_done(ret, n, &done))
			goto out;
	}

	for (i = 0; i < skb_shinfo(skb)->nr_frags && done < len; i++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		unsigned int at = offset + done;

		end = start + skb_frag_size(frag);
		if (at < end) {
			u32 n = min_t(size_t, len - done, end - at);

			if (skb_frag_is_net_iov(frag))
				ret = io_zcrx_recv_niov(args, frag, at - start, n);
			else
				ret = io_zcrx_copy_frag(args, frag, at - start, n);
			if (!io_zcrx_piece_done(ret, n, &done))
				goto out;
		}
		start = end;
	}

	skb_walk_frags(skb, frag_iter) {
		unsigned int at = offset + done;

		if (done >= len)
			break;
		end = start + frag_iter->len;
		if (at < end) {
			size_t n = min_t(size_t, len - done, end - at);

			ret = io_zcrx_recv_one(args, frag_iter, at - start, n);
			if (!io_zcrx_piece_done(ret, n, &done))
				goto out;
		}
		start = end;
	}
out:
	return done ? done : ret;
}

/* tcp_read_sock_netmem() actor */
static int io_zcrx_recv_skb(read_descriptor_t *desc, struct sk_buff *skb,
			    unsigned int offset, size_t len)
{
	struct io_zcrx_args *args = desc->arg.data;
	int ret;

	len = min_t(size_t, len, desc->count);
	ret = io_zcrx_recv_one(args, skb, offset, len);
	if (args->copies) {
		/* a queue's count of payload its device-memory readers
		 * missed: an instance on no queue has none to miss
		 */
		if (!args->ifq->nodev)
			netif_rxq_host_payload(args->sk, skb,
					       NETIF_RXQ_HOST_ZCRX,
					       args->copied, args->copies);
		args->copied = 0;
		args->copies = 0;
	}
	if (ret > 0)
		desc->count -= ret;
	if (++args->nr_skbs >= IO_ZCRX_SKBS_PER_PASS)
		desc->count = 0;
	return ret;
}

/*
 * RECV_ZC takes the stream with TCP's own reader, which works on the
 * tcp_sock: only a socket whose protocol receives with tcp_recvmsg() is
 * one. sk_protocol does not say so (a raw socket of IPPROTO_TCP, a
 * netlink socket of protocol 6), and a TCP socket that kTLS, espintcp
 * or a sockmap took over receives through them, not through us.
 */
static bool io_zcrx_sock_is_plain_tcp(struct sock *sk)
{
	const struct proto *prot = READ_ONCE(sk->sk_prot);

	return prot->recvmsg == tcp_recvmsg;
}

/*
 * One pass over the socket's queue. Returns the bytes received, 0 at the
 * end of the stream, -EAGAIN with nothing to read, or an errno.
 */
static int io_zcrx_tcp_recv(struct io_kiocb *req, struct io_zcrx_ifq *ifq,
			    struct sock *sk, u32 *limit)
{
	struct io_zcrx_args args = { .req = req, .ifq = ifq, .sk = sk };
	read_descriptor_t rd_desc = {
		.count	= *limit ? *limit : INT_MAX,
		.arg.data = &args,
	};
	int ret;

	lock_sock(sk);
	/*
	 * A ULP or a sockmap is attached with the socket locked: look
	 * again now that it cannot change under the read.
	 */
	if (unlikely(!io_zcrx_sock_is_plain_tcp(sk))) {
		release_sock(sk);
		return -EPROTONOSUPPORT;
	}
	ret = tcp_read_sock_netmem(sk, &rd_desc, io_zcrx_recv_skb);
	if (ret > 0) {
		if (*limit)
			*limit -= ret;
	} else if (!ret) {
		if (sk->sk_err)
			ret = sock_error(sk);
		else if (sk->sk_shutdown & RCV_SHUTDOWN)
			ret = 0;
		else if (sk->sk_state == TCP_CLOSE)
			ret = -ENOTCONN;
		else
			ret = -EAGAIN;
	}
	release_sock(sk);
	return ret;
}

int io_recvzc_prep(struct io_kiocb *req, const struct io_uring_sqe *sqe)
{
	struct io_recvzc *zc = io_kiocb_to_cmd(req, struct io_recvzc);

	if (unlikely(sqe->addr || sqe->off || sqe->addr3))
		return -EINVAL;
	if (READ_ONCE(sqe->msg_flags))
		return -EINVAL;
	zc->flags = READ_ONCE(sqe->ioprio);
	if (zc->flags & ~(IORING_RECVSEND_POLL_FIRST | IORING_RECV_MULTISHOT))
		return -EINVAL;
	if (!(zc->flags & IORING_RECV_MULTISHOT))
		return -EINVAL;
	zc->ifq = xa_load(&req->ctx->zcrx_ctxs, READ_ONCE(sqe->zcrx_ifq_idx));
	if (!zc->ifq)
		return -EINVAL;
	zc->len = READ_ONCE(sqe->len);
	zc->msg_flags = MSG_DONTWAIT;
	req->flags |= REQ_F_APOLL_MULTISHOT;
	return 0;
}

static int io_recvzc_done(struct io_kiocb *req, int ret,
			  unsigned int issue_flags)
{
	if (ret < 0)
		req_set_fail(req);
	io_req_set_res(req, ret, 0);
	return issue_flags & IO_URING_F_MULTISHOT ? IOU_STOP_MULTISHOT : IOU_OK;
}

int io_recvzc(struct io_kiocb *req, unsigned int issue_flags)
{
	struct io_recvzc *zc = io_kiocb_to_cmd(req, struct io_recvzc);
	bool limited = zc->len;
	struct socket *sock;
	int ret;

	if (!(req->flags & REQ_F_POLLED) &&
	    (zc->flags & IORING_RECVSEND_POLL_FIRST))
		return -EAGAIN;

	sock = sock_from_file(req->file);
	if (unlikely(!sock))
		return io_recvzc_done(req, -ENOTSOCK, issue_flags);
	if (!io_zcrx_sock_is_plain_tcp(sock->sk))
		return io_recvzc_done(req, -EPROTONOSUPPORT, issue_flags);

	ret = io_zcrx_tcp_recv(req, zc->ifq, sock->sk, &zc->len);
	if (limited && !zc->len)
		return io_recvzc_done(req, 0, issue_flags);
	if (ret == -ERESTARTSYS)
		ret = -EINTR;
	if (ret != -EAGAIN && ret <= 0)
		return io_recvzc_done(req, ret, issue_flags);

	/*
	 * Data was read: there may be more already queued, or the stream
	 * may have ended behind it, with no wake-up to come. Look again
	 * before waiting.
	 */
	if (issue_flags & IO_URING_F_MULTISHOT) {
		if (ret > 0)
			io_poll_multishot_retry(req);
		return IOU_ISSUE_SKIP_COMPLETE;
	}
	return -EAGAIN;
}
