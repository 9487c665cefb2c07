// SPDX-License-Identifier: GPL-2.0
/*
 * The "netdev" generic netlink family on 6.1: the subset devmem TCP needs
 * (dev-get, page-pool-get, queue-get, bind-rx, bind-tx), with the upstream
 * names, command and attribute numbers. See
 * Documentation/netlink/specs/netdev.yaml.
 * Policies and operations are in netdev-genl-gen.c, page-pool-get beside
 * the page pool registry in page_pool_user.c.
 */
#include <linux/bitmap.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <linux/notifier.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netdev_rx_queue.h>
#include <net/netlink.h>
#include <net/page_pool.h>
#include <net/page_pool/memory_provider.h>
#include <net/sock.h>
#include <uapi/linux/netdev.h>

#include "devmem.h"
#include "netdev-genl-gen.h"

/* dev-get */

static int netdev_nl_dev_fill(struct sk_buff *rsp, struct net_device *netdev,
			      const struct genl_info *info, u32 portid, u32 seq,
			      int flags)
{
	void *hdr;

	hdr = genlmsg_put(rsp, portid, seq, &netdev_nl_family, flags,
			  NETDEV_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;

	return netdev_nl_msg_end(rsp, hdr,
				 nla_put_u32(rsp, NETDEV_A_DEV_IFINDEX,
					     netdev->ifindex));
}

/* The device of dev-get's ifindex, into @rsp. */
static int netdev_nl_dev_get_one(struct sk_buff *rsp, struct genl_info *info)
{
	u32 ifindex = nla_get_u32(info->attrs[NETDEV_A_DEV_IFINDEX]);
	struct net_device *netdev;
	int err;

	rtnl_lock();
	netdev = __dev_get_by_index(genl_info_net(info), ifindex);
	if (netdev) {
		err = netdev_nl_dev_fill(rsp, netdev, info, info->snd_portid,
					 info->snd_seq, 0);
	} else {
		NL_SET_BAD_ATTR(info->extack, info->attrs[NETDEV_A_DEV_IFINDEX]);
		err = -ENODEV;
	}
	rtnl_unlock();

	return err;
}

int netdev_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, NETDEV_A_DEV_IFINDEX))
		return -EINVAL;

	return netdev_nl_get_reply(info, netdev_nl_dev_get_one);
}

/**
 * netdev_nl_dump_devices() - a dump over the devices of a namespace
 * @skb: the dump's skb
 * @cb: its callback; args[0] is the position among the devices
 * @ifindex: only this device, if not 0
 * @one: puts the objects of one device, resuming from cb->args[1] on
 *
 * @one runs under RTNL; cb->args[1] on are reset for each next device.
 * An @ifindex that names no device of the namespace fails the dump with
 * -ENODEV, as upstream's queue-get.
 *
 * Return: what the dump callback returns.
 */
int netdev_nl_dump_devices(struct sk_buff *skb, struct netlink_callback *cb,
			   u32 ifindex,
			   int (*one)(struct net_device *netdev,
				      struct sk_buff *rsp,
				      struct netlink_callback *cb))
{
	struct net *net = sock_net(skb->sk);
	struct net_device *netdev;
	int idx = 0, err = 0;

	rtnl_lock();
	if (ifindex && !__dev_get_by_index(net, ifindex)) {
		NL_SET_ERR_MSG(cb->extack, "no such device in this namespace");
		err = -ENODEV;
		goto out_unlock;
	}
	for_each_netdev(net, netdev) {
		if (ifindex && netdev->ifindex != ifindex)
			continue;
		if (idx++ < cb->args[0])
			continue;
		err = one(netdev, skb, cb);
		if (err) {
			idx--;
			break;
		}
		memset(&cb->args[1], 0, sizeof(cb->args) - sizeof(cb->args[0]));
	}
out_unlock:
	rtnl_unlock();

	cb->args[0] = idx;
	return netdev_nl_dump_ret(skb, err);
}

static int netdev_nl_dev_dump_one(struct net_device *netdev,
				  struct sk_buff *rsp,
				  struct netlink_callback *cb)
{
	return netdev_nl_dev_fill(rsp, netdev, NULL,
				  NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, NLM_F_MULTI);
}

int netdev_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return netdev_nl_dump_devices(skb, cb, 0, netdev_nl_dev_dump_one);
}

/* queue-get */

/* What a queue has by its kind: its NAPI instance, an RX queue's provider. */
static int netdev_nl_queue_put_kind(struct sk_buff *rsp,
				    struct net_device *netdev, u32 q_idx,
				    u32 q_type)
{
	struct netdev_rx_queue *rxq;

	if (q_type != NETDEV_QUEUE_TYPE_RX)
		return netdev_nl_put_napi_id(rsp, NETDEV_A_QUEUE_NAPI_ID,
					     netdev_get_tx_queue(netdev, q_idx)->napi);

	rxq = __netif_get_rx_queue(netdev, q_idx);
	if (netdev_nl_put_napi_id(rsp, NETDEV_A_QUEUE_NAPI_ID, rxq->napi))
		return -EMSGSIZE;
	if (!rxq->mp_params.mp_ops)
		return 0;
	return rxq->mp_params.mp_ops->nl_fill(rxq->mp_params.mp_priv, rsp, rxq);
}

static int netdev_nl_queue_fill(struct sk_buff *rsp, struct net_device *netdev,
				u32 q_idx, u32 q_type, u32 portid, u32 seq,
				int flags)
{
	void *hdr;
	bool full;

	hdr = genlmsg_put(rsp, portid, seq, &netdev_nl_family, flags,
			  NETDEV_CMD_QUEUE_GET);
	if (!hdr)
		return -EMSGSIZE;

	full = nla_put_u32(rsp, NETDEV_A_QUEUE_ID, q_idx) ||
	       nla_put_u32(rsp, NETDEV_A_QUEUE_TYPE, q_type) ||
	       nla_put_u32(rsp, NETDEV_A_QUEUE_IFINDEX, netdev->ifindex) ||
	       netdev_nl_queue_put_kind(rsp, netdev, q_idx, q_type);
	return netdev_nl_msg_end(rsp, hdr, full);
}

static int netdev_nl_queue_validate(struct net_device *netdev, u32 q_idx,
				    u32 q_type)
{
	switch (q_type) {
	case NETDEV_QUEUE_TYPE_RX:
		return q_idx < netdev->real_num_rx_queues ? 0 : -EINVAL;
	case NETDEV_QUEUE_TYPE_TX:
		return q_idx < netdev->real_num_tx_queues ? 0 : -EINVAL;
	}
	return -EINVAL;
}

/* The queue queue-get names, into @rsp. */
static int netdev_nl_queue_get_one(struct sk_buff *rsp, struct genl_info *info)
{
	u32 q_idx = nla_get_u32(info->attrs[NETDEV_A_QUEUE_ID]);
	u32 q_type = nla_get_u32(info->attrs[NETDEV_A_QUEUE_TYPE]);
	u32 ifindex = nla_get_u32(info->attrs[NETDEV_A_QUEUE_IFINDEX]);
	struct net_device *netdev;
	int err;

	rtnl_lock();
	netdev = __dev_get_by_index(genl_info_net(info), ifindex);
	if (!netdev || !netif_running(netdev)) {
		NL_SET_BAD_ATTR(info->extack,
				info->attrs[NETDEV_A_QUEUE_IFINDEX]);
		err = -ENOENT;
	} else if (netdev_nl_queue_validate(netdev, q_idx, q_type)) {
		NL_SET_BAD_ATTR(info->extack, info->attrs[NETDEV_A_QUEUE_ID]);
		err = -EINVAL;
	} else {
		err = netdev_nl_queue_fill(rsp, netdev, q_idx, q_type,
					   info->snd_portid, info->snd_seq, 0);
	}
	rtnl_unlock();

	return err;
}

int netdev_nl_queue_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, NETDEV_A_QUEUE_ID) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_QUEUE_TYPE) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_QUEUE_IFINDEX))
		return -EINVAL;

	return netdev_nl_get_reply(info, netdev_nl_queue_get_one);
}

/* The queues of one type from *@pos on, *@pos left at one that did not fit. */
static int netdev_nl_queue_dump_type(struct sk_buff *rsp,
				     struct net_device *netdev,
				     struct netlink_callback *cb, u32 q_type,
				     long *pos, unsigned int count)
{
	int err;

	for (; *pos < count; (*pos)++) {
		err = netdev_nl_queue_fill(rsp, netdev, *pos, q_type,
					   NETLINK_CB(cb->skb).portid,
					   cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			return err;
	}
	return 0;
}

/* Dump position: args[0] device index, args[1] rx queue, args[2] tx queue */
static int netdev_nl_queue_dump_one(struct net_device *netdev,
				    struct sk_buff *rsp,
				    struct netlink_callback *cb)
{
	int err;

	if (!netif_running(netdev))
		return 0;

	err = netdev_nl_queue_dump_type(rsp, netdev, cb, NETDEV_QUEUE_TYPE_RX,
					&cb->args[1],
					netdev->real_num_rx_queues);
	if (err)
		return err;
	return netdev_nl_queue_dump_type(rsp, netdev, cb, NETDEV_QUEUE_TYPE_TX,
					 &cb->args[2],
					 netdev->real_num_tx_queues);
}

int netdev_nl_queue_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	u32 ifindex = 0;

	if (info->attrs[NETDEV_A_QUEUE_IFINDEX])
		ifindex = nla_get_u32(info->attrs[NETDEV_A_QUEUE_IFINDEX]);

	return netdev_nl_dump_devices(skb, cb, ifindex,
				      netdev_nl_queue_dump_one);
}

/* bind-rx and bind-tx */

/* The device a bind command names, if it is there. Context: RTNL. */
static struct net_device *netdev_nl_bind_dev(struct genl_info *info)
{
	struct net_device *netdev;
	u32 ifindex;

	ASSERT_RTNL();

	ifindex = nla_get_u32(info->attrs[NETDEV_A_DMABUF_IFINDEX]);
	netdev = __dev_get_by_index(genl_info_net(info), ifindex);
	if (!netdev) {
		NL_SET_BAD_ATTR(info->extack,
				info->attrs[NETDEV_A_DMABUF_IFINDEX]);
		return NULL;
	}
	if (!netif_device_present(netdev)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[NETDEV_A_DMABUF_IFINDEX],
				    "device is detached (error recovery or sleep)");
		return NULL;
	}

	return netdev;
}

/**
 * struct netdev_nl_bind_ops - what bind-rx and bind-tx do around the map
 * @check: is the request good for @netdev; sets the extack. Runs under
 *	RTNL before the dmabuf is attached, so that a bad request costs no
 *	mapping, and again once it is mapped: RTNL was released meanwhile.
 * @install: put the binding, which has its id, to use (RX: on its
 *	queues); sets the extack. RTNL, right after @check. NULL when there
 *	is nothing to install.
 * @direction: direction of the DMA mapping
 */
struct netdev_nl_bind_ops {
	int (*check)(struct net_device *netdev, struct genl_info *info);
	int (*install)(struct net_device *netdev,
		       struct net_devmem_dmabuf_binding *binding,
		       struct genl_info *info);
	enum dma_data_direction direction;
};

/* The device the request names, checked for @ops, or NULL with *@err
 * and the extack set. @held: the device found before the dmabuf was
 * mapped, or NULL the first time; it must still be the one the ifindex
 * names (not gone, not moved to another netns). Context: RTNL.
 */
static struct net_device *
netdev_nl_bind_prepare(struct genl_info *info, struct net_device *held,
		       const struct netdev_nl_bind_ops *ops, int *err)
{
	struct net_device *netdev;

	ASSERT_RTNL();

	netdev = netdev_nl_bind_dev(info);
	if (!netdev || (held && netdev != held)) {
		if (held && !info->extack->_msg)
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[NETDEV_A_DMABUF_IFINDEX],
					    "device went away or changed while the dmabuf was mapped");
		*err = -ENODEV;
		return NULL;
	}

	*err = net_devmem_owner_check(info->user_ptr[0], info->extack);
	if (!*err)
		*err = ops->check(netdev, info);

	return *err ? NULL : netdev;
}

/* Binds the dmabuf of the request, cut into net_iovs of @rx_page_size
 * bytes, to the device it names, as @ops says, and replies with the id
 * of the binding, which belongs to the requesting socket from then on
 * (released with it: netdev_nl_netlink_notify(); a socket owns at most
 * 256).
 *
 * RTNL is held to check the request, released while the dmabuf is
 * attached and mapped (the device is held), and taken again to check
 * the request once more and publish the binding.
 */
static int netdev_nl_bind(struct genl_info *info,
			  const struct netdev_nl_bind_ops *ops, u32 rx_page_size)
{
	u32 dmabuf_fd = nla_get_u32(info->attrs[NETDEV_A_DMABUF_FD]);
	struct net_devmem_dmabuf_binding *binding;
	netdevice_tracker dev_tracker;
	struct net_device *netdev;
	struct sk_buff *rsp;
	void *hdr;
	int err;

	rsp = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;
	hdr = genlmsg_put(rsp, info->snd_portid, info->snd_seq,
			  &netdev_nl_family, 0, info->genlhdr->cmd);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free_msg;
	}

	rtnl_lock();
	netdev = netdev_nl_bind_prepare(info, NULL, ops, &err);
	if (!netdev) {
		rtnl_unlock();
		goto err_free_msg;
	}
	netdev_hold(netdev, &dev_tracker, GFP_KERNEL);
	rtnl_unlock();

	binding = net_devmem_bind_dmabuf(netdev, dmabuf_fd, rx_page_size,
					 ops->direction, info->extack);
	if (IS_ERR(binding)) {
		err = PTR_ERR(binding);
		goto err_put_netdev;
	}

	rtnl_lock();
	if (!netdev_nl_bind_prepare(info, netdev, ops, &err))
		goto err_discard;
	err = net_devmem_reserve_id(binding);
	if (err)
		goto err_discard;
	if (ops->install) {
		err = ops->install(netdev, binding, info);
		if (err)
			goto err_unbind;
	}
	err = nla_put_u32(rsp, NETDEV_A_DMABUF_ID, binding->id);
	if (err < 0)
		goto err_unbind;
	err = net_devmem_set_owner(binding, info->user_ptr[0]);
	if (err)
		goto err_unbind;
	net_devmem_publish_binding(binding);
	genlmsg_end(rsp, hdr);
	rtnl_unlock();

	netdev_put(netdev, &dev_tracker);
	return genlmsg_reply(rsp, info);

err_unbind:
	net_devmem_unbind_dmabuf(binding);
	rtnl_unlock();
	goto err_put_netdev;
err_discard:
	rtnl_unlock();
	net_devmem_discard_binding(binding);
err_put_netdev:
	netdev_put(netdev, &dev_tracker);
err_free_msg:
	nlmsg_free(rsp);
	return err;
}

/* One queue nest of bind-rx: an RX queue of @netdev. */
static int netdev_nl_read_rxq(struct net_device *netdev,
			      const struct nlattr *attr, u32 *rxq_idx,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[ARRAY_SIZE(netdev_queue_id_nl_policy)];
	u32 idx;
	int err;

	err = nla_parse_nested(tb, ARRAY_SIZE(tb) - 1, attr,
			       netdev_queue_id_nl_policy, extack);
	if (err < 0)
		return err;

	if (NL_REQ_ATTR_CHECK(extack, attr, tb, NETDEV_A_QUEUE_ID) ||
	    NL_REQ_ATTR_CHECK(extack, attr, tb, NETDEV_A_QUEUE_TYPE))
		return -EINVAL;

	if (nla_get_u32(tb[NETDEV_A_QUEUE_TYPE]) != NETDEV_QUEUE_TYPE_RX) {
		NL_SET_ERR_MSG_ATTR(extack, tb[NETDEV_A_QUEUE_TYPE],
				    "only rx queues can be bound to a dmabuf");
		return -EINVAL;
	}

	idx = nla_get_u32(tb[NETDEV_A_QUEUE_ID]);
	if (idx >= netdev->real_num_rx_queues) {
		NL_SET_ERR_MSG_ATTR(extack, tb[NETDEV_A_QUEUE_ID],
				    "rx queue index out of range");
		return -EINVAL;
	}

	if (rxq_idx)
		*rxq_idx = idx;
	return 0;
}

/* Every queue nest of a bind-rx request: with @binding NULL, each queue
 * checked as netif_mp_open_rxq() would for net_iovs of @rx_page_size,
 * and listed once only; else @binding installed on each, which on error
 * the caller unbinds, restoring the queues done. Context: RTNL.
 */
static int netdev_nl_bind_rx_queues(struct net_device *netdev,
				    struct genl_info *info,
				    struct net_devmem_dmabuf_binding *binding,
				    u32 rx_page_size)
{
	unsigned long *listed = NULL;
	struct nlattr *attr;
	int rem, err = 0;

	ASSERT_RTNL();

	if (!binding) {
		listed = bitmap_zalloc(netdev->real_num_rx_queues, GFP_KERNEL);
		if (!listed)
			return -ENOMEM;
	}

	nla_for_each_attr(attr, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		u32 rxq_idx;

		if (nla_type(attr) != NETDEV_A_DMABUF_QUEUES)
			continue;
		err = netdev_nl_read_rxq(netdev, attr, &rxq_idx, info->extack);
		if (err)
			break;
		if (binding) {
			err = net_devmem_bind_dmabuf_to_queue(netdev, rxq_idx,
							      binding,
							      info->extack);
		} else if (test_and_set_bit(rxq_idx, listed)) {
			NL_SET_ERR_MSG(info->extack,
				       "rx queue listed twice in the request");
			err = -EEXIST;
		} else {
			err = netif_mp_check_rxq(netdev, rxq_idx, rx_page_size,
						 info->extack);
		}
		if (err) {
			NL_SET_BAD_ATTR(info->extack,
					nla_find_nested(attr, NETDEV_A_QUEUE_ID));
			break;
		}
	}

	bitmap_free(listed);
	return err;
}

/* bind-rx: can @netdev take the dmabuf on every queue the request lists?
 * Everything netif_mp_open_rxq() would refuse is refused here, before
 * the dmabuf is mapped for nothing. Context: RTNL.
 */
static int netdev_nl_bind_rx_check(struct net_device *netdev,
				   struct genl_info *info)
{
	struct nlattr *page_size = info->attrs[NETDEV_A_DMABUF_RX_PAGE_SIZE];
	u32 rx_page_size = page_size ? nla_get_u32(page_size) : PAGE_SIZE;
	int err;

	if (dev_xdp_prog_count(netdev)) {
		NL_SET_ERR_MSG(info->extack,
			       "unable to bind dmabuf to device with XDP program attached");
		return -EEXIST;
	}

	err = net_devmem_check_device(netdev, rx_page_size, info->extack);
	if (err)
		return err;

	return netdev_nl_bind_rx_queues(netdev, info, NULL, rx_page_size);
}

/* bind-rx: the binding as the memory provider of every queue the request
 * lists. Context: RTNL, right after netdev_nl_bind_rx_check(), so that
 * no queue can refuse it but for the restart itself.
 */
static int netdev_nl_bind_rx_install(struct net_device *netdev,
				     struct net_devmem_dmabuf_binding *binding,
				     struct genl_info *info)
{
	return netdev_nl_bind_rx_queues(netdev, info, binding, 0);
}

/* bind-rx: the dmabuf mapped for the device to write into, as the memory
 * provider of every queue the request lists.
 */
static const struct netdev_nl_bind_ops netdev_nl_bind_rx_ops = {
	.check		= netdev_nl_bind_rx_check,
	.install	= netdev_nl_bind_rx_install,
	.direction	= DMA_FROM_DEVICE,
};

int netdev_nl_bind_rx_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *page_size = info->attrs[NETDEV_A_DMABUF_RX_PAGE_SIZE];

	if (GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_FD) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_QUEUES))
		return -EINVAL;

	if (page_size && !is_power_of_2(nla_get_u32(page_size))) {
		NL_SET_ERR_MSG_ATTR(info->extack, page_size,
				    "rx-page-size must be a power of two");
		return -EINVAL;
	}

	return netdev_nl_bind(info, &netdev_nl_bind_rx_ops,
			      page_size ? nla_get_u32(page_size) : PAGE_SIZE);
}

/* bind-tx: can @netdev send from device memory? Context: RTNL. */
static int netdev_nl_bind_tx_check(struct net_device *netdev,
				   struct genl_info *info)
{
	if (!netdev->netmem_tx) {
		NL_SET_ERR_MSG(info->extack, "Driver does not support netmem TX");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* bind-tx: the dmabuf mapped for the device to read from; sendmsg() names
 * it by its id in an SCM_DEVMEM_DMABUF message. Nothing to install.
 */
static const struct netdev_nl_bind_ops netdev_nl_bind_tx_ops = {
	.check		= netdev_nl_bind_tx_check,
	.direction	= DMA_TO_DEVICE,
};

int netdev_nl_bind_tx_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_FD))
		return -EINVAL;

	/* TX reads payload by the page: net_iovs of PAGE_SIZE */
	return netdev_nl_bind(info, &netdev_nl_bind_tx_ops, PAGE_SIZE);
}

/**
 * netdev_nl_pre_doit() - keep the requesting socket for the operation
 * @ops: the operation
 * @skb: the request
 * @info: its info; user_ptr[0] gets the socket that sent it
 *
 * 6.1's genl_info does not carry the request skb, and bindings belong to
 * the socket that created them, not to its port id.
 *
 * Return: 0.
 */
int netdev_nl_pre_doit(const struct genl_ops *ops, struct sk_buff *skb,
		       struct genl_info *info)
{
	info->user_ptr[0] = NETLINK_CB(skb).sk;
	return 0;
}

/* Bindings belong to the netlink socket that created them: unbind when
 * it is released (close, process exit). The port id is already free
 * then, and may belong to a new socket with bindings of its own: match
 * the socket. Only the release of a socket that owns bindings takes RTNL.
 */
static int netdev_nl_netlink_notify(struct notifier_block *nb,
				    unsigned long state, void *_notify)
{
	struct netlink_notify *notify = _notify;

	if (state != NETLINK_URELEASE || notify->protocol != NETLINK_GENERIC ||
	    !net_devmem_owns_bindings(notify->sk))
		return NOTIFY_DONE;

	rtnl_lock();
	net_devmem_unbind_owned(notify->sk);
	rtnl_unlock();

	return NOTIFY_OK;
}

static struct notifier_block netdev_nl_netlink_notifier = {
	.notifier_call = netdev_nl_netlink_notify,
};

static int __init netdev_nl_init(void)
{
	int err;

	err = genl_register_family(&netdev_nl_family);
	if (err)
		return err;

	err = netlink_register_notifier(&netdev_nl_netlink_notifier);
	if (err)
		goto err_unregister_family;

	return 0;

err_unregister_family:
	genl_unregister_family(&netdev_nl_family);
	return err;
}

subsys_initcall(netdev_nl_init);
