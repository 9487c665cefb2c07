/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network memory: a reference to either a host page or a net_iov, a
 * chunk of memory (PAGE_SIZE or a larger power of two) that has no struct
 * page (device memory exported through dmabuf).
 *
 * A net_iov is never mapped into the kernel: nothing may read or write
 * through it. Code that wants the struct page behind an skb frag gets
 * NULL for a net_iov and must treat the skb as unreadable.
 */
#ifndef _NET_NETMEM_H
#define _NET_NETMEM_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/mm_types.h>
#include <linux/types.h>

struct page_pool;

/* Who owns a net_iov_area: tells devmem's net_iovs from zcrx buffers. */
enum net_iov_type {
	NET_IOV_DMABUF,		/* a devmem dmabuf binding */
	NET_IOV_IOURING,	/* an io_uring zero-copy receive area */
};

/**
 * struct net_iov_area - a run of net_iovs owned by one memory provider
 * @niovs: the net_iovs, one per 1 << @shift bytes
 * @num_niovs: number of entries in @niovs
 * @id: user-visible id of the owner (devmem: the dmabuf binding id)
 * @shift: log2 of the size of every net_iov of the area, at least
 *	PAGE_SHIFT
 * @type: the owner's kind: only a devmem binding's net_iovs become
 *	socket tokens
 *
 * net_iov number i of the area sits at byte offset i << @shift from the
 * start of the provider's memory (for devmem: from the start of the
 * dmabuf).
 */
struct net_iov_area {
	struct net_iov *niovs;
	size_t num_niovs;
	u32 id;
	unsigned int shift;
	enum net_iov_type type;
};

/**
 * struct net_iov - a chunk of memory without a struct page, PAGE_SIZE or
 *	a larger power of two (its area's shift)
 * @pp: page_pool the net_iov is allocated to, NULL while it is free
 * @owner: area the net_iov belongs to
 * @dma_addr: DMA address of the chunk for the device it is mapped to
 * @pp_ref_count: references held by skbs and socket tokens while the
 *	net_iov is out of its pool; the pool gets it back at zero
 */
struct net_iov {
	struct page_pool *pp;
	struct net_iov_area *owner;
	dma_addr_t dma_addr;
	atomic_long_t pp_ref_count;
};

/*
 * netmem_ref: a struct page pointer, or a struct net_iov pointer with
 * bit 0 set. Both are at least word aligned, so the bit is free.
 */
typedef unsigned long __bitwise netmem_ref;

#define NET_IOV		0x01UL

static inline bool netmem_is_net_iov(const netmem_ref netmem)
{
	return (__force unsigned long)netmem & NET_IOV;
}

static inline struct net_iov *netmem_to_net_iov(netmem_ref netmem)
{
	if (WARN_ON_ONCE(!netmem_is_net_iov(netmem)))
		return NULL;

	return (struct net_iov *)((__force unsigned long)netmem & ~NET_IOV);
}

/* Returns NULL (and warns) for a net_iov: it has no struct page. */
static inline struct page *netmem_to_page(netmem_ref netmem)
{
	if (WARN_ON_ONCE(netmem_is_net_iov(netmem)))
		return NULL;

	return (__force struct page *)netmem;
}

static inline netmem_ref net_iov_to_netmem(struct net_iov *niov)
{
	return (__force netmem_ref)((unsigned long)niov | NET_IOV);
}

static inline netmem_ref page_to_netmem(struct page *page)
{
	return (__force netmem_ref)page;
}

static inline unsigned long net_iov_idx(const struct net_iov *niov)
{
	return niov - niov->owner->niovs;
}

static inline u32 net_iov_owner_id(const struct net_iov *niov)
{
	return niov->owner->id;
}

/* Byte offset of @niov from the start of its provider's memory. */
static inline unsigned long net_iov_virtual_addr(const struct net_iov *niov)
{
	return net_iov_idx(niov) << niov->owner->shift;
}

/* Size of @niov in bytes. */
static inline unsigned int net_iov_size(const struct net_iov *niov)
{
	return 1U << niov->owner->shift;
}

#endif /* _NET_NETMEM_H */
