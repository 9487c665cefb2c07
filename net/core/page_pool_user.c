// SPDX-License-Identifier: GPL-2.0
/*
 * Page pools as user space sees them: every pool gets a global id (from 1)
 * when it is created and keeps it until it is freed, i.e. until its last
 * page or net_iov came back, which can be long after the driver destroyed
 * it. netlink page-pool-get reads this registry.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/timekeeping.h>
#include <linux/xarray.h>
#include <net/page_pool.h>

#include "page_pool_priv.h"

/* Pools can be freed from softirq (xdp mem disconnect), so the lock of the
 * registry is taken with BH disabled.
 */
static DEFINE_XARRAY_FLAGS(page_pools, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
static u32 page_pools_next_id;

int page_pool_list(struct page_pool *pool)
{
	int err;

	pool->user.ifindex = pool->p.netdev ? pool->p.netdev->ifindex : 0;
	err = xa_alloc_cyclic_bh(&page_pools, &pool->user.id, pool,
				 xa_limit_32b, &page_pools_next_id, GFP_KERNEL);
	return err < 0 ? err : 0;
}

/* The driver destroyed the pool; it lives on until its memory is back. */
void page_pool_detached(struct page_pool *pool)
{
	xa_lock_bh(&page_pools);
	pool->user.detach_time = ktime_get_boottime_seconds() ?: 1;
	pool->p.netdev = NULL;
	xa_unlock_bh(&page_pools);
}

void page_pool_unlist(struct page_pool *pool)
{
	xa_erase_bh(&page_pools, pool->user.id);
}

void page_pool_user_lock(void)
	__acquires(&page_pools.xa_lock)
{
	xa_lock_bh(&page_pools);
}

void page_pool_user_unlock(void)
	__releases(&page_pools.xa_lock)
{
	xa_unlock_bh(&page_pools);
}

/**
 * page_pool_user_find() - next listed pool with an id of at least *@id
 * @id: in: first id to look at; out: id of the pool found
 *
 * Caller holds page_pool_user_lock(); the pool cannot be freed until it
 * is released.
 *
 * Return: the pool, or NULL if there is none.
 */
struct page_pool *page_pool_user_find(unsigned long *id)
{
	lockdep_assert_held(&page_pools.xa_lock);

	return xa_find(&page_pools, id, ULONG_MAX, XA_PRESENT);
}

/**
 * page_pool_check_memory_provider() - did the driver use the provider?
 * @dev: device whose RX queue was just (re)configured
 * @rxq_idx: the queue
 *
 * After a queue restart with a provider installed, some live pool of
 * @dev for @rxq_idx must be backed by that provider; a driver that
 * ignored it (no PP_FLAG_ALLOW_UNREADABLE_NETMEM, header split off) is
 * caught here.
 *
 * Return: 0, or -ENODATA if no pool uses the provider.
 */
int page_pool_check_memory_provider(struct net_device *dev,
				    unsigned int rxq_idx)
{
	struct netdev_rx_queue *rxq = __netif_get_rx_queue(dev, rxq_idx);
	void *mp_priv = rxq->mp_params.mp_priv;
	struct page_pool *pool;
	unsigned long id;
	int err = -ENODATA;

	ASSERT_RTNL();

	if (!mp_priv)
		return 0;

	xa_lock_bh(&page_pools);
	xa_for_each(&page_pools, id, pool) {
		if (pool->mp_priv == mp_priv && pool->p.netdev == dev &&
		    pool->p.queue_idx == rxq_idx) {
			err = 0;
			break;
		}
	}
	xa_unlock_bh(&page_pools);

	return err;
}
