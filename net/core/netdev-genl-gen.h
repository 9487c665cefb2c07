/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "netdev" generic netlink family: policies, operations and the family
 * (netdev-genl-gen.c), laid out as upstream generates them from
 * Documentation/netlink/specs/netdev.yaml, for the operations 6.1 has.
 */
#ifndef _NET_CORE_NETDEV_GENL_GEN_H
#define _NET_CORE_NETDEV_GENL_GEN_H

#include <linux/netdevice.h>
#include <net/busy_poll.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <uapi/linux/netdev.h>

extern const struct nla_policy
netdev_queue_id_nl_policy[NETDEV_A_QUEUE_TYPE + 1];

int netdev_nl_pre_doit(const struct genl_ops *ops, struct sk_buff *skb,
		       struct genl_info *info);

int netdev_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int netdev_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int netdev_nl_page_pool_get_doit(struct sk_buff *skb, struct genl_info *info);
int netdev_nl_page_pool_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb);
int netdev_nl_queue_get_doit(struct sk_buff *skb, struct genl_info *info);
int netdev_nl_queue_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int netdev_nl_bind_rx_doit(struct sk_buff *skb, struct genl_info *info);
int netdev_nl_bind_tx_doit(struct sk_buff *skb, struct genl_info *info);

extern struct genl_family netdev_nl_family;

int netdev_nl_dump_devices(struct sk_buff *skb, struct netlink_callback *cb,
			   u32 ifindex,
			   int (*one)(struct net_device *netdev,
				      struct sk_buff *rsp,
				      struct netlink_callback *cb));

/* Answers a get request: @fill finds the object (taking the lock it needs)
 * and puts it in the reply, or fails with the extack set.
 */
static inline int
netdev_nl_get_reply(struct genl_info *info,
		    int (*fill)(struct sk_buff *rsp, struct genl_info *info))
{
	struct sk_buff *rsp;
	int err;

	rsp = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;

	err = fill(rsp, info);
	if (err) {
		nlmsg_free(rsp);
		return err;
	}

	return genlmsg_reply(rsp, info);
}

/* Ends the message at @hdr, or takes it back out of @rsp when one of its
 * attributes did not fit (@full).
 */
static inline int netdev_nl_msg_end(struct sk_buff *rsp, void *hdr, bool full)
{
	if (full) {
		genlmsg_cancel(rsp, hdr);
		return -EMSGSIZE;
	}

	genlmsg_end(rsp, hdr);
	return 0;
}

/* A dump that filled its skb goes on in the next one (6.1's netlink core
 * ends a dump on -EMSGSIZE).
 */
static inline int netdev_nl_dump_ret(const struct sk_buff *skb, int err)
{
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}

/* The id of the NAPI instance serving a queue or a page pool, as queue-get
 * and page-pool-get report it: only an id NAPI hashing gave out, never
 * 0 or a sender CPU.
 */
static inline int netdev_nl_put_napi_id(struct sk_buff *rsp, int attrtype,
					const struct napi_struct *napi)
{
	unsigned int napi_id = napi ? READ_ONCE(napi->napi_id) : 0;

	if (napi_id < MIN_NAPI_ID)
		return 0;

	return nla_put_u32(rsp, attrtype, napi_id);
}

#endif /* _NET_CORE_NETDEV_GENL_GEN_H */
