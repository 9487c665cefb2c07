// SPDX-License-Identifier: GPL-2.0
/*
 * The "netdev" generic netlink family on 6.1: the subset devmem TCP needs
 * (dev-get, page-pool-get, queue-get, bind-rx, bind-tx), with the upstream
 * names, command and attribute numbers. See
 * Documentation/netlink/specs/netdev.yaml.
 * Policies and operations are in netdev-genl-gen.c, page-pool-get beside
 * the page pool registry in page_pool_user.c.
 */
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

	if (nla_put_u32(rsp, NETDEV_A_DEV_IFINDEX, netdev->ifindex)) {
		genlmsg_cancel(rsp, hdr);
		return -EMSGSIZE;
	}

	genlmsg_end(rsp, hdr);
	return 0;
}

int netdev_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net_device *netdev;
	struct sk_buff *rsp;
	u32 ifindex;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, NETDEV_A_DEV_IFINDEX))
		return -EINVAL;

	ifindex = nla_get_u32(info->attrs[NETDEV_A_DEV_IFINDEX]);

	rsp = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;

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

	if (err)
		goto err_free_msg;

	return genlmsg_reply(rsp, info);

err_free_msg:
	nlmsg_free(rsp);
	return err;
}

int netdev_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct net_device *netdev;
	int idx = 0, err = 0;

	rtnl_lock();
	for_each_netdev(net, netdev) {
		if (idx++ < cb->args[0])
			continue;
		err = netdev_nl_dev_fill(skb, netdev, NULL,
					 NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err) {
			idx--;
			break;
		}
	}
	rtnl_unlock();

	cb->args[0] = idx;
	return netdev_nl_dump_ret(skb, err);
}

/* queue-get */

static int netdev_nl_queue_fill(struct sk_buff *rsp, struct net_device *netdev,
				u32 q_idx, u32 q_type, u32 portid, u32 seq,
				int flags)
{
	struct netdev_rx_queue *rxq;
	void *hdr;

	hdr = genlmsg_put(rsp, portid, seq, &netdev_nl_family, flags,
			  NETDEV_CMD_QUEUE_GET);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(rsp, NETDEV_A_QUEUE_ID, q_idx) ||
	    nla_put_u32(rsp, NETDEV_A_QUEUE_TYPE, q_type) ||
	    nla_put_u32(rsp, NETDEV_A_QUEUE_IFINDEX, netdev->ifindex))
		goto err_cancel;

	if (q_type == NETDEV_QUEUE_TYPE_RX) {
		rxq = __netif_get_rx_queue(netdev, q_idx);
		if (netdev_nl_put_napi_id(rsp, NETDEV_A_QUEUE_NAPI_ID,
					  rxq->napi))
			goto err_cancel;
		if (rxq->mp_params.mp_ops &&
		    rxq->mp_params.mp_ops->nl_fill(rxq->mp_params.mp_priv, rsp,
						   rxq))
			goto err_cancel;
	} else if (netdev_nl_put_napi_id(rsp, NETDEV_A_QUEUE_NAPI_ID,
					 netdev_get_tx_queue(netdev, q_idx)->napi)) {
		goto err_cancel;
	}

	genlmsg_end(rsp, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(rsp, hdr);
	return -EMSGSIZE;
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

int netdev_nl_queue_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 q_idx, q_type, ifindex;
	struct net_device *netdev;
	struct sk_buff *rsp;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, NETDEV_A_QUEUE_ID) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_QUEUE_TYPE) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_QUEUE_IFINDEX))
		return -EINVAL;

	q_idx = nla_get_u32(info->attrs[NETDEV_A_QUEUE_ID]);
	q_type = nla_get_u32(info->attrs[NETDEV_A_QUEUE_TYPE]);
	ifindex = nla_get_u32(info->attrs[NETDEV_A_QUEUE_IFINDEX]);

	rsp = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;

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

	if (err)
		goto err_free_msg;

	return genlmsg_reply(rsp, info);

err_free_msg:
	nlmsg_free(rsp);
	return err;
}

/* Dump position: args[0] device index, args[1] rx queue, args[2] tx queue */
static int netdev_nl_queue_dump_one(struct net_device *netdev,
				    struct sk_buff *rsp,
				    struct netlink_callback *cb)
{
	int err = 0;

	if (!netif_running(netdev))
		return 0;

	for (; cb->args[1] < netdev->real_num_rx_queues; cb->args[1]++) {
		err = netdev_nl_queue_fill(rsp, netdev, cb->args[1],
					   NETDEV_QUEUE_TYPE_RX,
					   NETLINK_CB(cb->skb).portid,
					   cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			return err;
	}
	for (; cb->args[2] < netdev->real_num_tx_queues; cb->args[2]++) {
		err = netdev_nl_queue_fill(rsp, netdev, cb->args[2],
					   NETDEV_QUEUE_TYPE_TX,
					   NETLINK_CB(cb->skb).portid,
					   cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			return err;
	}
	return 0;
}

int netdev_nl_queue_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct net *net = sock_net(skb->sk);
	struct net_device *netdev;
	u32 ifindex = 0;
	int idx = 0, err = 0;

	if (info->attrs[NETDEV_A_QUEUE_IFINDEX])
		ifindex = nla_get_u32(info->attrs[NETDEV_A_QUEUE_IFINDEX]);

	rtnl_lock();
	for_each_netdev(net, netdev) {
		if (ifindex && netdev->ifindex != ifindex)
			continue;
		if (idx++ < cb->args[0])
			continue;
		err = netdev_nl_queue_dump_one(netdev, skb, cb);
		if (err) {
			idx--;
			break;
		}
		cb->args[1] = 0;
		cb->args[2] = 0;
	}
	rtnl_unlock();

	cb->args[0] = idx;
	return netdev_nl_dump_ret(skb, err);
}

/* bind-rx and bind-tx */

/* The reply to a bind command, with its header in *@hdr. */
static struct sk_buff *netdev_nl_bind_rsp_new(struct genl_info *info,
					      void **hdr)
{
	struct sk_buff *rsp;

	rsp = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!rsp)
		return NULL;

	*hdr = genlmsg_put(rsp, info->snd_portid, info->snd_seq,
			   &netdev_nl_family, 0, info->genlhdr->cmd);
	if (!*hdr) {
		nlmsg_free(rsp);
		return NULL;
	}

	return rsp;
}

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

/* The binding belongs to the requesting socket; the reply carries its id. */
static int netdev_nl_bind_finish(struct net_devmem_dmabuf_binding *binding,
				 struct genl_info *info, struct sk_buff *rsp,
				 void *hdr)
{
	int err;

	binding->owner = info->user_ptr[0];

	err = nla_put_u32(rsp, NETDEV_A_DMABUF_ID, binding->id);
	if (err < 0)
		return err;

	genlmsg_end(rsp, hdr);
	return 0;
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

int netdev_nl_bind_rx_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net_devmem_dmabuf_binding *binding;
	u32 rx_page_size = PAGE_SIZE;
	struct net_device *netdev;
	struct nlattr *attr;
	struct sk_buff *rsp;
	int rem, err = 0;
	u32 dmabuf_fd;
	void *hdr;

	if (GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_FD) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_QUEUES))
		return -EINVAL;

	dmabuf_fd = nla_get_u32(info->attrs[NETDEV_A_DMABUF_FD]);

	if (info->attrs[NETDEV_A_DMABUF_RX_PAGE_SIZE]) {
		rx_page_size = nla_get_u32(info->attrs[NETDEV_A_DMABUF_RX_PAGE_SIZE]);
		if (!is_power_of_2(rx_page_size)) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[NETDEV_A_DMABUF_RX_PAGE_SIZE],
					    "rx-page-size must be a power of two");
			return -EINVAL;
		}
	}

	rsp = netdev_nl_bind_rsp_new(info, &hdr);
	if (!rsp)
		return -ENOMEM;

	rtnl_lock();

	netdev = netdev_nl_bind_dev(info);
	if (!netdev) {
		err = -ENODEV;
		goto err_unlock;
	}

	if (dev_xdp_prog_count(netdev)) {
		NL_SET_ERR_MSG(info->extack,
			       "unable to bind dmabuf to device with XDP program attached");
		err = -EEXIST;
		goto err_unlock;
	}

	err = net_devmem_check_device(netdev, rx_page_size, info->extack);
	if (err)
		goto err_unlock;

	/* a bad queue list must not cost a dmabuf attach and map */
	nla_for_each_attr(attr, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		if (nla_type(attr) != NETDEV_A_DMABUF_QUEUES)
			continue;
		err = netdev_nl_read_rxq(netdev, attr, NULL, info->extack);
		if (err)
			goto err_unlock;
	}

	binding = net_devmem_bind_dmabuf(netdev, dmabuf_fd, rx_page_size,
					 DMA_FROM_DEVICE, info->extack);
	if (IS_ERR(binding)) {
		err = PTR_ERR(binding);
		goto err_unlock;
	}

	nla_for_each_attr(attr, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		u32 rxq_idx;

		if (nla_type(attr) != NETDEV_A_DMABUF_QUEUES)
			continue;

		/* checked before the dmabuf was attached: cannot fail now */
		err = netdev_nl_read_rxq(netdev, attr, &rxq_idx, NULL);
		if (!err)
			err = net_devmem_bind_dmabuf_to_queue(netdev, rxq_idx,
							      binding,
							      info->extack);
		if (err) {
			NL_SET_BAD_ATTR(info->extack,
					nla_find_nested(attr, NETDEV_A_QUEUE_ID));
			goto err_unbind;
		}
	}

	err = netdev_nl_bind_finish(binding, info, rsp, hdr);
	if (err)
		goto err_unbind;
	rtnl_unlock();

	return genlmsg_reply(rsp, info);

err_unbind:
	net_devmem_unbind_dmabuf(binding);
err_unlock:
	rtnl_unlock();
	nlmsg_free(rsp);
	return err;
}

int netdev_nl_bind_tx_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net_devmem_dmabuf_binding *binding;
	struct net_device *netdev;
	struct sk_buff *rsp;
	u32 dmabuf_fd;
	int err;
	void *hdr;

	if (GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, NETDEV_A_DMABUF_FD))
		return -EINVAL;

	dmabuf_fd = nla_get_u32(info->attrs[NETDEV_A_DMABUF_FD]);

	rsp = netdev_nl_bind_rsp_new(info, &hdr);
	if (!rsp)
		return -ENOMEM;

	rtnl_lock();

	netdev = netdev_nl_bind_dev(info);
	if (!netdev) {
		err = -ENODEV;
		goto err_unlock;
	}

	if (!netdev->netmem_tx) {
		NL_SET_ERR_MSG(info->extack, "Driver does not support netmem TX");
		err = -EOPNOTSUPP;
		goto err_unlock;
	}

	/* TX reads payload by the page: net_iovs of PAGE_SIZE */
	binding = net_devmem_bind_dmabuf(netdev, dmabuf_fd, PAGE_SIZE,
					 DMA_TO_DEVICE, info->extack);
	if (IS_ERR(binding)) {
		err = PTR_ERR(binding);
		goto err_unlock;
	}

	err = netdev_nl_bind_finish(binding, info, rsp, hdr);
	if (err)
		goto err_unbind;
	rtnl_unlock();

	return genlmsg_reply(rsp, info);

err_unbind:
	net_devmem_unbind_dmabuf(binding);
err_unlock:
	rtnl_unlock();
	nlmsg_free(rsp);
	return err;
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
 * the socket.
 */
static int netdev_nl_netlink_notify(struct notifier_block *nb,
				    unsigned long state, void *_notify)
{
	struct netlink_notify *notify = _notify;

	if (state != NETLINK_URELEASE || notify->protocol != NETLINK_GENERIC ||
	    !net_devmem_has_bindings())
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
