/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page pool memory providers: memory that backs an RX queue's page pool
 * instead of host pages (devmem: dmabuf net_iovs).
 */
#ifndef _NET_PAGE_POOL_MEMORY_PROVIDER_H
#define _NET_PAGE_POOL_MEMORY_PROVIDER_H

#include <linux/log2.h>
#include <net/netmem.h>

struct netdev_rx_queue;
struct page_pool;
struct sk_buff;

/**
 * struct memory_provider_ops - what a page pool needs from a provider
 * @alloc_netmems: hand one netmem to @pool (softirq context), or 0 if the
 *	provider is exhausted; the provider accounts it in
 *	pool->pages_state_hold_cnt
 * @release_netmem: take back a netmem whose last reference is gone; any
 *	context. Returns true if page_pool must also put_page() it (never
 *	for a net_iov).
 * @init: called at pool creation (RTNL held); may refuse the pool
 * @destroy: called when the pool is freed (all netmems are back)
 * @nl_fill: add the provider's attribute to a queue-get (@rxq set) or
 *	page-pool-get (@rxq NULL) reply
 * @uninstall: the device is going away while @rxq is still bound; the
 *	provider must forget @rxq (RTNL held)
 */
struct memory_provider_ops {
	netmem_ref (*alloc_netmems)(struct page_pool *pool, gfp_t gfp);
	bool (*release_netmem)(struct page_pool *pool, netmem_ref netmem);
	int (*init)(struct page_pool *pool);
	void (*destroy)(struct page_pool *pool);
	int (*nl_fill)(void *mp_priv, struct sk_buff *rsp,
		       struct netdev_rx_queue *rxq);
	void (*uninstall)(void *mp_priv, struct netdev_rx_queue *rxq);
};

/**
 * struct pp_memory_provider_params - provider installed on an RX queue
 * @mp_priv: provider state (devmem: the dmabuf binding)
 * @mp_ops: provider operations, NULL when the queue uses host memory
 * @rx_page_size: bytes in each buffer the provider hands out, a power of
 *	two; 0 means PAGE_SIZE. The driver creates the queue's payload pool
 *	with the matching order (pp_mp_params_order()); the provider refuses
 *	any other. Never above the driver's rx_buf_size_max.
 *
 * Protected by RTNL. Read by page_pool_create() for pools created with
 * PP_FLAG_ALLOW_UNREADABLE_NETMEM.
 */
struct pp_memory_provider_params {
	void *mp_priv;
	const struct memory_provider_ops *mp_ops;
	u32 rx_page_size;
};

/* Page pool order for the payload pool of a queue with these params. */
static inline unsigned int
pp_mp_params_order(const struct pp_memory_provider_params *p)
{
	if (!p->mp_ops || p->rx_page_size <= PAGE_SIZE)
		return 0;
	return ilog2(p->rx_page_size) - PAGE_SHIFT;
}

#endif /* _NET_PAGE_POOL_MEMORY_PROVIDER_H */
