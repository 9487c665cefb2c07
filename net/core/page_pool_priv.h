/* SPDX-License-Identifier: GPL-2.0 */
/* Page pool internals shared inside net/core. */
#ifndef __NET_CORE_PAGE_POOL_PRIV_H
#define __NET_CORE_PAGE_POOL_PRIV_H

#include <net/page_pool.h>

struct netdev_rx_queue;

s32 page_pool_inflight(const struct page_pool *pool, bool strict);

int page_pool_list(struct page_pool *pool);
void page_pool_detached(struct page_pool *pool);
void page_pool_unlist(struct page_pool *pool);

int page_pool_check_memory_provider(struct net_device *dev,
				    unsigned int rxq_idx);

#endif /* __NET_CORE_PAGE_POOL_PRIV_H */
