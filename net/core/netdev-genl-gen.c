// SPDX-License-Identifier: GPL-2.0
/*
 * The "netdev" generic netlink family: policies, operations and the family,
 * in the layout upstream generates from Documentation/netlink/specs/netdev.yaml
 * (6.1 has no generator: written by hand, checked against the spec by the
 * harness), so that later upstream changes apply file for file.
 */
#include <linux/module.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <uapi/linux/netdev.h>

#include "netdev-genl-gen.h"

/* Policies. Attribute types and limits are those of upstream's spec. */

static const struct nla_policy netdev_dev_get_nl_policy[NETDEV_A_DEV_IFINDEX + 1] = {
	[NETDEV_A_DEV_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy netdev_page_pool_get_nl_policy[NETDEV_A_PAGE_POOL_ID + 1] = {
	[NETDEV_A_PAGE_POOL_ID]	= NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy netdev_queue_get_nl_policy[NETDEV_A_QUEUE_TYPE + 1] = {
	[NETDEV_A_QUEUE_ID]	= { .type = NLA_U32, },
	[NETDEV_A_QUEUE_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETDEV_A_QUEUE_TYPE]	= NLA_POLICY_MAX(NLA_U32, NETDEV_QUEUE_TYPE_TX),
};

const struct nla_policy netdev_queue_id_nl_policy[NETDEV_A_QUEUE_TYPE + 1] = {
	[NETDEV_A_QUEUE_ID]	= { .type = NLA_U32, },
	[NETDEV_A_QUEUE_TYPE]	= NLA_POLICY_MAX(NLA_U32, NETDEV_QUEUE_TYPE_TX),
};

static const struct nla_policy netdev_bind_rx_nl_policy[NETDEV_A_DMABUF_RX_PAGE_SIZE + 1] = {
	[NETDEV_A_DMABUF_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETDEV_A_DMABUF_QUEUES] = NLA_POLICY_NESTED(netdev_queue_id_nl_policy),
	[NETDEV_A_DMABUF_FD]	= { .type = NLA_U32, },
	[NETDEV_A_DMABUF_RX_PAGE_SIZE] = NLA_POLICY_MIN(NLA_U32, PAGE_SIZE),
};

static const struct nla_policy netdev_bind_tx_nl_policy[NETDEV_A_DMABUF_FD + 1] = {
	[NETDEV_A_DMABUF_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETDEV_A_DMABUF_FD]	= { .type = NLA_U32, },
};

static const struct genl_ops netdev_nl_ops[] = {
	{
		.cmd		= NETDEV_CMD_DEV_GET,
		.doit		= netdev_nl_dev_get_doit,
		.dumpit		= netdev_nl_dev_get_dumpit,
		.policy		= netdev_dev_get_nl_policy,
		.maxattr	= NETDEV_A_DEV_IFINDEX,
	},
	{
		.cmd		= NETDEV_CMD_PAGE_POOL_GET,
		.doit		= netdev_nl_page_pool_get_doit,
		.dumpit		= netdev_nl_page_pool_get_dumpit,
		.policy		= netdev_page_pool_get_nl_policy,
		.maxattr	= NETDEV_A_PAGE_POOL_ID,
	},
	{
		.cmd		= NETDEV_CMD_QUEUE_GET,
		.doit		= netdev_nl_queue_get_doit,
		.dumpit		= netdev_nl_queue_get_dumpit,
		.policy		= netdev_queue_get_nl_policy,
		.maxattr	= NETDEV_A_QUEUE_TYPE,
	},
	{
		.cmd		= NETDEV_CMD_BIND_RX,
		.doit		= netdev_nl_bind_rx_doit,
		.policy		= netdev_bind_rx_nl_policy,
		.maxattr	= NETDEV_A_DMABUF_RX_PAGE_SIZE,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= NETDEV_CMD_BIND_TX,
		.doit		= netdev_nl_bind_tx_doit,
		.policy		= netdev_bind_tx_nl_policy,
		.maxattr	= NETDEV_A_DMABUF_FD,
	},
};

/* Upstream's "mgmt" and "page-pool" multicast groups carry notifications
 * this family does not send (device and page pool add/del/change): they
 * are not registered, so that subscribing fails instead of listening to
 * silence.
 */
struct genl_family netdev_nl_family __ro_after_init = {
	.name		= NETDEV_FAMILY_NAME,
	.version	= NETDEV_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= netdev_nl_ops,
	.n_ops		= ARRAY_SIZE(netdev_nl_ops),
	.pre_doit	= netdev_nl_pre_doit,
};
