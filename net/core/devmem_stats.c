// SPDX-License-Identifier: GPL-2.0
/*
 * Payload that readers of device memory got in host memory.
 *
 * A flow steered to a queue without a binding, a queue whose driver fell
 * back to host pages, or payload the device left with the headers all
 * reach a recvmsg(MSG_SOCK_DEVMEM) reader as host memory (copied, or in
 * an SCM_DEVMEM_LINEAR cmsg), and an io_uring RECV_ZC reader as a copy
 * into its area. The reader gets its bytes and no error. Each such copy
 * is counted on the RX queue the skb came in on, and the "devmem-stats"
 * generic netlink family reads the counts per queue, so that an operator
 * sees which queue lets payload miss device memory.
 *
 * The counts only ever grow, from the device's registration on; they are
 * updated where the copy happens, in the reader's context, never on the
 * receive path of the device.
 *
 * The family also lists the TCP sockets that hold tokens, with how many:
 * a reader that keeps its fragments and never gives them back holds the
 * binding's buffers, and the NIC runs out of them.
 */
#include <linux/capability.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/netdev_rx_queue.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <net/sock_devmem.h>
#include <uapi/linux/devmem_stats.h>

#include "netdev-genl-gen.h"

static struct genl_family devmem_stats_nl_family;

/* Whether @sk reads as a device-memory reader: an io_uring RECV_ZC reader
 * (its ring registered an area on a queue, which takes CAP_NET_ADMIN), a
 * socket that held device memory before, or a reader with CAP_NET_ADMIN
 * in the socket's namespace, who may steer flows and bind queues there.
 * Anyone else may pass MSG_SOCK_DEVMEM on any TCP socket; their copies
 * say nothing about a queue.
 */
static bool netif_rxq_host_reader_counted(const struct sock *sk,
					  enum netif_rxq_host_reader reader)
{
	if (reader == NETIF_RXQ_HOST_ZCRX || READ_ONCE(sk->sk_devmem_tokens))
		return true;
	/* asked, not used: no audit record, and the task is not marked as
	 * having used a privilege (PF_SUPERPRIV) for a count
	 */
	return has_ns_capability_noaudit(current, sock_net(sk)->user_ns,
					 CAP_NET_ADMIN);
}

/* Whether payload that @dev received for a reader in @net counts: @dev is
 * registered, in @net, and device memory backs one of its RX queues.
 * The scan over the queues runs for device-memory readers only.
 *
 * A device whose state is no longer NETREG_REGISTERED may already have
 * its queues freed: free_netdev() frees them before it takes the NAPI
 * instances off the hash, so a NAPI id resolves to the device for several
 * grace periods after. unregister_netdevice_many() changes the state, then
 * waits for a grace period (synchronize_net()) before anything is freed;
 * a reader under rcu_read_lock() that still sees NETREG_REGISTERED holds
 * that grace period, and with it the queues.
 *
 * Readers elsewhere (a container behind a macvlan or VLAN of the NIC) and
 * devices without device memory do not count: those reads are nobody's
 * device memory missed.
 */
static bool netif_rxq_host_counted(struct net_device *dev,
				   const struct net *net)
{
	unsigned int i;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "the queues need RCU");

	if (READ_ONCE(dev->reg_state) != NETREG_REGISTERED ||
	    !net_eq(dev_net(dev), net))
		return false;
	for (i = 0; i < dev->num_rx_queues; i++)
		if (READ_ONCE(__netif_get_rx_queue(dev, i)->mp_params.mp_ops))
			return true;
	return false;
}

/**
 * netif_rxq_host_payload() - count payload a device-memory reader copied
 * @sk: the reading socket
 * @skb: the skb the payload came in (its queue and device are counted)
 * @reader: which reader copied it
 * @bytes: payload bytes copied
 * @copies: copies they took
 *
 * The device is the one whose NAPI instance received @skb, the NIC under
 * a VLAN or bond (whose skb_iif the skb carries); for an skb no NAPI
 * instance received (loopback, veth without NAPI) the skb's input device.
 * The queue is the one the driver recorded, queue 0 if it recorded none.
 * Only a device-memory reader counts (netif_rxq_host_reader_counted()),
 * and only on a device in its namespace with device memory on one of
 * its RX queues (netif_rxq_host_counted()); a device being unregistered
 * does not.
 *
 * Context: process, the reader's, which may sleep.
 */
void netif_rxq_host_payload(const struct sock *sk, const struct sk_buff *skb,
			    enum netif_rxq_host_reader reader, u32 bytes,
			    u32 copies)
{
	struct netdev_rxq_host_stats *st;
	struct net_device *dev;
	u16 q = 0;

	if (!netif_rxq_host_reader_counted(sk, reader))
		return;

	rcu_read_lock();
	dev = dev_get_by_napi_id(skb_napi_id(skb));
	if (!dev)
		dev = dev_get_by_index_rcu(sock_net(sk), skb->skb_iif);
	if (!dev || !netif_rxq_host_counted(dev, sock_net(sk)))
		goto out_unlock;
	if (skb_rx_queue_recorded(skb))
		q = skb_get_rx_queue(skb);
	if (q >= dev->num_rx_queues)
		goto out_unlock;

	st = &__netif_get_rx_queue(dev, q)->host_stats;
	if (reader == NETIF_RXQ_HOST_ZCRX) {
		atomic64_add(bytes, &st->zcrx_bytes);
		atomic64_add(copies, &st->zcrx_copies);
	} else {
		atomic64_add(bytes, &st->devmem_bytes);
		atomic64_add(copies, &st->devmem_copies);
	}
out_unlock:
	rcu_read_unlock();
}

static bool devmem_stats_queue_used(const struct netdev_rx_queue *rxq)
{
	const struct netdev_rxq_host_stats *st = &rxq->host_stats;

	return rxq->mp_params.mp_ops || atomic64_read(&st->devmem_copies) ||
	       atomic64_read(&st->zcrx_copies);
}

static int devmem_stats_queue_fill(struct sk_buff *rsp,
				   struct net_device *netdev, u32 q_idx,
				   u32 portid, u32 seq, int flags)
{
	const struct netdev_rxq_host_stats *st;
	bool full;
	void *hdr;

	hdr = genlmsg_put(rsp, portid, seq, &devmem_stats_nl_family, flags,
			  DEVMEM_STATS_CMD_QUEUE_GET);
	if (!hdr)
		return -EMSGSIZE;

	st = &__netif_get_rx_queue(netdev, q_idx)->host_stats;
	full = nla_put_u32(rsp, DEVMEM_STATS_A_QUEUE_IFINDEX, netdev->ifindex) ||
	       nla_put_u32(rsp, DEVMEM_STATS_A_QUEUE_ID, q_idx) ||
	       nla_put_u64_64bit(rsp, DEVMEM_STATS_A_QUEUE_DEVMEM_HOST_BYTES,
				 atomic64_read(&st->devmem_bytes),
				 DEVMEM_STATS_A_QUEUE_PAD) ||
	       nla_put_u64_64bit(rsp, DEVMEM_STATS_A_QUEUE_DEVMEM_HOST_COPIES,
				 atomic64_read(&st->devmem_copies),
				 DEVMEM_STATS_A_QUEUE_PAD) ||
	       nla_put_u64_64bit(rsp, DEVMEM_STATS_A_QUEUE_ZCRX_COPY_BYTES,
				 atomic64_read(&st->zcrx_bytes),
				 DEVMEM_STATS_A_QUEUE_PAD) ||
	       nla_put_u64_64bit(rsp, DEVMEM_STATS_A_QUEUE_ZCRX_COPIES,
				 atomic64_read(&st->zcrx_copies),
				 DEVMEM_STATS_A_QUEUE_PAD);
	return netdev_nl_msg_end(rsp, hdr, full);
}

/* The queue a queue-get names, into @rsp. */
static int devmem_stats_queue_get_one(struct sk_buff *rsp,
				      struct genl_info *info)
{
	u32 ifindex = nla_get_u32(info->attrs[DEVMEM_STATS_A_QUEUE_IFINDEX]);
	u32 q_idx = nla_get_u32(info->attrs[DEVMEM_STATS_A_QUEUE_ID]);
	struct net_device *netdev;
	int err;

	rtnl_lock();
	netdev = __dev_get_by_index(genl_info_net(info), ifindex);
	if (!netdev) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[DEVMEM_STATS_A_QUEUE_IFINDEX],
				    "no such device in this namespace");
		err = -ENODEV;
	} else if (q_idx >= netdev->real_num_rx_queues) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[DEVMEM_STATS_A_QUEUE_ID],
				    "the device has no such RX queue");
		err = -EINVAL;
	} else {
		err = devmem_stats_queue_fill(rsp, netdev, q_idx,
					      info->snd_portid, info->snd_seq,
					      0);
	}
	rtnl_unlock();

	return err;
}

static int devmem_stats_queue_get_doit(struct sk_buff *skb,
				       struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, DEVMEM_STATS_A_QUEUE_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, DEVMEM_STATS_A_QUEUE_ID))
		return -EINVAL;

	return netdev_nl_get_reply(info, devmem_stats_queue_get_one);
}

/* The RX queues of one device from cb->args[1] on: all of them when the
 * dump names the device, else those with a memory provider or a count.
 */
static int devmem_stats_queue_dump_one(struct net_device *netdev,
				       struct sk_buff *rsp,
				       struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	bool all = info->attrs[DEVMEM_STATS_A_QUEUE_IFINDEX];
	int err;

	for (; cb->args[1] < netdev->real_num_rx_queues; cb->args[1]++) {
		if (!all &&
		    !devmem_stats_queue_used(__netif_get_rx_queue(netdev,
								  cb->args[1])))
			continue;
		err = devmem_stats_queue_fill(rsp, netdev, cb->args[1],
					      NETLINK_CB(cb->skb).portid,
					      cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			return err;
	}
	return 0;
}

static int devmem_stats_queue_get_dumpit(struct sk_buff *skb,
					 struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	u32 ifindex = 0;

	if (info->attrs[DEVMEM_STATS_A_QUEUE_IFINDEX])
		ifindex = nla_get_u32(info->attrs[DEVMEM_STATS_A_QUEUE_IFINDEX]);

	return netdev_nl_dump_devices(skb, cb, ifindex,
				      devmem_stats_queue_dump_one);
}

struct devmem_stats_sock_dump {
	struct sk_buff *rsp;
	struct netlink_callback *cb;
};

/* One socket into the dump; -EMSGSIZE when the message is full */
static int devmem_stats_sock_fill(struct sock *sk, u32 tokens, void *arg)
{
	struct devmem_stats_sock_dump *d = arg;
	struct user_namespace *ns = sk_user_ns(NETLINK_CB(d->cb->skb).sk);
	const struct inet_sock *inet = inet_sk(sk);
	struct sk_buff *rsp = d->rsp;
	const void *saddr, *daddr;
	int alen = 4;
	bool full;
	void *hdr;

	saddr = &inet->inet_rcv_saddr;
	daddr = &inet->inet_daddr;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		saddr = &sk->sk_v6_rcv_saddr;
		daddr = &sk->sk_v6_daddr;
		alen = 16;
	}
#endif
	hdr = genlmsg_put(rsp, NETLINK_CB(d->cb->skb).portid,
			  d->cb->nlh->nlmsg_seq, &devmem_stats_nl_family,
			  NLM_F_MULTI, DEVMEM_STATS_CMD_SOCK_GET);
	if (!hdr)
		return -EMSGSIZE;
	full = nla_put_u64_64bit(rsp, DEVMEM_STATS_A_SOCK_INODE, sock_i_ino(sk),
				 DEVMEM_STATS_A_SOCK_PAD) ||
	       nla_put_u32(rsp, DEVMEM_STATS_A_SOCK_UID,
			   from_kuid_munged(ns, sock_i_uid(sk))) ||
	       nla_put_u32(rsp, DEVMEM_STATS_A_SOCK_FAMILY, sk->sk_family) ||
	       nla_put(rsp, DEVMEM_STATS_A_SOCK_SADDR, alen, saddr) ||
	       nla_put_u16(rsp, DEVMEM_STATS_A_SOCK_SPORT,
			   ntohs(inet->inet_sport)) ||
	       nla_put(rsp, DEVMEM_STATS_A_SOCK_DADDR, alen, daddr) ||
	       nla_put_u16(rsp, DEVMEM_STATS_A_SOCK_DPORT,
			   ntohs(inet->inet_dport)) ||
	       nla_put_u32(rsp, DEVMEM_STATS_A_SOCK_TOKENS, tokens);
	return netdev_nl_msg_end(rsp, hdr, full);
}

/* Every TCP socket of the caller's namespace that holds tokens; any user
 * may list them, as /proc/net/tcp lists every socket. The family's
 * reject-all policy refuses a request with attributes (EINVAL).
 */
static int devmem_stats_sock_get_dumpit(struct sk_buff *skb,
					struct netlink_callback *cb)
{
	struct devmem_stats_sock_dump d = { .rsp = skb, .cb = cb };
	/* where the dump goes on from: the last socket's id */
	u32 pos = cb->args[0];
	int err;

	err = sk_devmem_sock_walk(sock_net(skb->sk), &pos,
				  devmem_stats_sock_fill, &d);
	cb->args[0] = pos;
	return err ? netdev_nl_dump_ret(skb, err) : skb->len;
}

static const struct nla_policy devmem_stats_queue_get_policy[DEVMEM_STATS_A_QUEUE_ID + 1] = {
	[DEVMEM_STATS_A_QUEUE_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[DEVMEM_STATS_A_QUEUE_ID]	= { .type = NLA_U32, },
};

static const struct genl_ops devmem_stats_nl_ops[] = {
	{
		.cmd		= DEVMEM_STATS_CMD_QUEUE_GET,
		.doit		= devmem_stats_queue_get_doit,
		.dumpit		= devmem_stats_queue_get_dumpit,
		.policy		= devmem_stats_queue_get_policy,
		.maxattr	= DEVMEM_STATS_A_QUEUE_ID,
	},
	{
		.cmd		= DEVMEM_STATS_CMD_SOCK_GET,
		.dumpit		= devmem_stats_sock_get_dumpit,
	},
};

static struct genl_family devmem_stats_nl_family __ro_after_init = {
	.name		= DEVMEM_STATS_FAMILY_NAME,
	.version	= DEVMEM_STATS_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= devmem_stats_nl_ops,
	.n_ops		= ARRAY_SIZE(devmem_stats_nl_ops),
};

static int __init devmem_stats_init(void)
{
	return genl_register_family(&devmem_stats_nl_family);
}

subsys_initcall(devmem_stats_init);
