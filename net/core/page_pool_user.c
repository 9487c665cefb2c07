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
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/page_pool.h>
#include <net/page_pool/memory_provider.h>
#include <net/sock.h>

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

/* The driver destroyed the pool; it lives on until its memory is back,
 * after its device and NAPI instance may be gone. Only the netns the
 * device was in sees it from now on.
 */
void page_pool_detached(struct page_pool *pool)
{
	xa_lock_bh(&page_pools);
	pool->user.detach_time = ktime_get_boottime_seconds() ?: 1;
	if (pool->p.netdev)
		pool->user.net_cookie = dev_net(pool->p.netdev)->net_cookie;
	pool->p.netdev = NULL;
	pool->p.napi = NULL;
	xa_unlock_bh(&page_pools);
}

void page_pool_unlist(struct page_pool *pool)
{
	xa_erase_bh(&page_pools, pool->user.id);
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

#if IS_ENABLED(CONFIG_NET_DEVMEM)
/* netlink page-pool-get. On 6.1 the netdev family comes with devmem TCP. */
#include <uapi/linux/netdev.h>

#include "netdev-genl-gen.h"

/* An upstream "uint" attribute: 4 bytes when the value fits, else 8. */
static int netdev_nl_put_uint(struct sk_buff *rsp, int attrtype, u64 value)
{
	u32 value32 = value;

	if (value32 == value)
		return nla_put_u32(rsp, attrtype, value32);

	return nla_put(rsp, attrtype, sizeof(value), &value);
}

/* Only pools of a device in the caller's netns are visible; a detached
 * pool, to the netns its device was in when the driver destroyed it.
 */
static bool page_pool_visible(const struct page_pool *pool,
			      const struct net *net)
{
	if (pool->p.netdev)
		return net_eq(dev_net(pool->p.netdev), net);
	return pool->user.ifindex && pool->user.net_cookie &&
	       pool->user.net_cookie == net->net_cookie;
}

static int page_pool_nl_fill(struct sk_buff *rsp, const struct page_pool *pool,
			     u32 portid, u32 seq, int flags)
{
	s32 inflight = page_pool_inflight(pool, false);
	void *hdr;
	bool full;

	hdr = genlmsg_put(rsp, portid, seq, &netdev_nl_family, flags,
			  NETDEV_CMD_PAGE_POOL_GET);
	if (!hdr)
		return -EMSGSIZE;

	full = nla_put_u32(rsp, NETDEV_A_PAGE_POOL_ID, pool->user.id) ||
	       (pool->user.ifindex &&
		nla_put_u32(rsp, NETDEV_A_PAGE_POOL_IFINDEX,
			    pool->user.ifindex)) ||
	       netdev_nl_put_napi_id(rsp, NETDEV_A_PAGE_POOL_NAPI_ID,
				     pool->p.napi) ||
	       netdev_nl_put_uint(rsp, NETDEV_A_PAGE_POOL_INFLIGHT, inflight) ||
	       netdev_nl_put_uint(rsp, NETDEV_A_PAGE_POOL_INFLIGHT_MEM,
				  (u64)inflight * (PAGE_SIZE << pool->p.order)) ||
	       (pool->user.detach_time &&
		netdev_nl_put_uint(rsp, NETDEV_A_PAGE_POOL_DETACH_TIME,
				   pool->user.detach_time)) ||
	       (pool->mp_ops && pool->mp_ops->nl_fill(pool->mp_priv, rsp, NULL));
	return netdev_nl_msg_end(rsp, hdr, full);
}

/* The pool of page-pool-get's id, into @rsp. */
static int page_pool_nl_get_one(struct sk_buff *rsp, struct genl_info *info)
{
	u32 want = nla_get_u32(info->attrs[NETDEV_A_PAGE_POOL_ID]);
	unsigned long id = want;
	struct page_pool *pool;
	int err = -ENOENT;

	xa_lock_bh(&page_pools);
	pool = xa_find(&page_pools, &id, ULONG_MAX, XA_PRESENT);
	if (pool && id == want &&
	    page_pool_visible(pool, genl_info_net(info)))
		err = page_pool_nl_fill(rsp, pool, info->snd_portid,
					info->snd_seq, 0);
	xa_unlock_bh(&page_pools);

	if (err == -ENOENT)
		NL_SET_BAD_ATTR(info->extack,
				info->attrs[NETDEV_A_PAGE_POOL_ID]);
	return err;
}

int netdev_nl_page_pool_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, NETDEV_A_PAGE_POOL_ID))
		return -EINVAL;

	return netdev_nl_get_reply(info, page_pool_nl_get_one);
}

int netdev_nl_page_pool_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	unsigned long id = cb->args[0] ?: 1;
	struct page_pool *pool;
	int err = 0;

	xa_lock_bh(&page_pools);
	xa_for_each_start(&page_pools, id, pool, id) {
		if (!page_pool_visible(pool, net))
			continue;
		err = page_pool_nl_fill(skb, pool, NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
	}
	xa_unlock_bh(&page_pools);

	cb->args[0] = id;
	return netdev_nl_dump_ret(skb, err);
}
#endif /* CONFIG_NET_DEVMEM */
