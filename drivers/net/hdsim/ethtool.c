// SPDX-License-Identifier: GPL-2.0
/*
 * hdsim ethtool: channels, rings and tcp-data-split, ntuple rules, RSS
 * indirection and additional RSS contexts, per-queue statistics. The
 * datapath that reads the rules and the tables is in steer.c.
 *
 * An RSS context is an indirection table of its own that only ntuple
 * rules with FLOW_RSS reach: such a rule spreads the flows it matches
 * over the context's queues, plus the rule's queue as an offset. A
 * context lives in the port and goes away with it; one that a rule
 * names cannot be deleted (EBUSY).
 */
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/netdevice.h>

#include "hdsim.h"

void hdsim_ethtool_init(struct hdsim_port *port)
{
	unsigned int i;

	for (i = 0; i < HDSIM_INDIR_SIZE; i++)
		port->indir[i] = ethtool_rxfh_indir_default(i,
							    port->hdev->num_queues);
}

static void hdsim_get_drvinfo(struct net_device *dev,
			      struct ethtool_drvinfo *info)
{
	strscpy(info->driver, DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, dev_name(dev->dev.parent),
		sizeof(info->bus_info));
}

/* RSS context @id, or NULL if there is none; steer_lock held */
static struct hdsim_rss_ctx *hdsim_rss_ctx_get(struct hdsim_port *port,
					       u32 id)
{
	lockdep_assert_held(&port->steer_lock);

	if (!id || id > HDSIM_MAX_RSS_CTX || !port->rss_ctx[id - 1].used)
		return NULL;
	return &port->rss_ctx[id - 1];
}

/* the highest queue @ctx spreads flows over */
static u32 hdsim_rss_ctx_max(const struct hdsim_rss_ctx *ctx)
{
	u32 max = 0;
	unsigned int i;

	for (i = 0; i < HDSIM_INDIR_SIZE; i++)
		max = max_t(u32, max, ctx->indir[i]);
	return max;
}

/* the highest queue rule @r can steer to; steer_lock held */
static u32 hdsim_rule_max_queue(struct hdsim_port *port,
				const struct hdsim_rule *r)
{
	u32 q = ethtool_get_flow_spec_ring(r->fs.ring_cookie);

	if (r->fs.flow_type & FLOW_RSS)
		q += hdsim_rss_ctx_max(hdsim_rss_ctx_get(port, r->rss_context));
	return q;
}

/* Whether every rule and every RSS context stays within @n queues, as a
 * channel count must leave them: 0 or -EINVAL. steer_lock held.
 */
static int hdsim_steer_check_queues(struct hdsim_port *port, unsigned int n)
{
	unsigned int i;

	lockdep_assert_held(&port->steer_lock);

	for (i = 0; i < HDSIM_MAX_RULES; i++) {
		const struct hdsim_rule *r = &port->rules[i];

		if (r->used && r->fs.ring_cookie != RX_CLS_FLOW_DISC &&
		    hdsim_rule_max_queue(port, r) >= n)
			return -EINVAL;
	}
	for (i = 0; i < HDSIM_MAX_RSS_CTX; i++)
		if (port->rss_ctx[i].used &&
		    hdsim_rss_ctx_max(&port->rss_ctx[i]) >= n)
			return -EINVAL;
	return 0;
}

static void hdsim_get_channels(struct net_device *dev,
			       struct ethtool_channels *ch)
{
	struct hdsim_port *port = netdev_priv(dev);

	ch->max_combined = port->hdev->num_queues;
	ch->combined_count = dev->real_num_rx_queues;
}

static int hdsim_set_channels(struct net_device *dev,
			      struct ethtool_channels *ch)
{
	struct hdsim_port *port = netdev_priv(dev);
	unsigned int n = ch->combined_count, i;
	int err;

	/* the core checked the counts against max_combined */
	if (ch->rx_count || ch->tx_count || !n)
		return -EINVAL;

	spin_lock_bh(&port->steer_lock);
	err = hdsim_steer_check_queues(port, n);
	spin_unlock_bh(&port->steer_lock);
	if (err)
		return err;

	err = netif_set_real_num_rx_queues(dev, n);
	if (err)
		return err;
	err = netif_set_real_num_tx_queues(dev, n);
	if (err)
		return err;

	if (!netif_is_rxfh_configured(dev)) {
		spin_lock_bh(&port->steer_lock);
		for (i = 0; i < HDSIM_INDIR_SIZE; i++)
			port->indir[i] = ethtool_rxfh_indir_default(i, n);
		spin_unlock_bh(&port->steer_lock);
	}
	return 0;
}

static void hdsim_get_ringparam(struct net_device *dev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct hdsim_port *port = netdev_priv(dev);

	ring->rx_max_pending = HDSIM_RING_MAX;
	ring->tx_max_pending = HDSIM_RING_MAX;
	ring->rx_pending = port->rx_ring_size;
	ring->tx_pending = port->tx_ring_size;
	kring->tcp_data_split = port->hds ? ETHTOOL_TCP_DATA_SPLIT_ENABLED :
					    ETHTOOL_TCP_DATA_SPLIT_DISABLED;
	kring->hds_thresh = port->hds_thresh;
	kring->hds_thresh_max = HDSIM_HDS_THRESH_MAX;
}

static int hdsim_set_ringparam(struct net_device *dev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct hdsim_port *port = netdev_priv(dev);

	if (ring->rx_pending < HDSIM_RING_MIN ||
	    ring->tx_pending < HDSIM_RING_MIN) {
		NL_SET_ERR_MSG(extack, "ring size below the minimum of 64");
		return -EINVAL;
	}
	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG(extack, "no mini or jumbo rings");
		return -EINVAL;
	}

	WRITE_ONCE(port->rx_ring_size, ring->rx_pending);
	port->tx_ring_size = ring->tx_pending;

	/* The core hands over the user's setting: UNKNOWN ("auto") is
	 * hdsim's default, no split. New queues pick the mode up; the
	 * threshold applies from the next frame.
	 */
	WRITE_ONCE(port->hds,
		   kring->tcp_data_split == ETHTOOL_TCP_DATA_SPLIT_ENABLED);
	WRITE_ONCE(port->hds_thresh, kring->hds_thresh);
	return 0;
}

/* ntuple rules */

static int hdsim_check_spec(struct net_device *dev,
			    const struct ethtool_rx_flow_spec *fs)
{
	u32 type = fs->flow_type & ~(FLOW_EXT | FLOW_RSS);

	if (fs->flow_type & FLOW_MAC_EXT)
		return -EOPNOTSUPP;
	if (type == TCP_V4_FLOW) {
		if (fs->m_u.tcp_ip4_spec.tos)
			return -EOPNOTSUPP;
	} else if (type == TCP_V6_FLOW) {
		if (fs->m_u.tcp_ip6_spec.tclass)
			return -EOPNOTSUPP;
	} else {
		return -EOPNOTSUPP;
	}

	if (fs->flow_type & FLOW_EXT &&
	    (fs->m_ext.vlan_etype || fs->m_ext.vlan_tci || fs->m_ext.data[0] ||
	     fs->m_ext.data[1]))
		return -EOPNOTSUPP;

	/* with FLOW_RSS the queue is an offset, checked with the context */
	if (fs->ring_cookie == RX_CLS_FLOW_DISC)
		return fs->flow_type & FLOW_RSS ? -EINVAL : 0;
	if (ethtool_get_flow_spec_ring_vf(fs->ring_cookie) ||
	    ethtool_get_flow_spec_ring(fs->ring_cookie) >=
	    dev->real_num_rx_queues)
		return -EINVAL;

	return 0;
}

static int hdsim_add_rule(struct hdsim_port *port, struct ethtool_rxnfc *cmd)
{
	struct ethtool_rx_flow_spec *fs = &cmd->fs;
	u32 loc = fs->location;
	int err;

	if (!(port->netdev->features & NETIF_F_NTUPLE))
		return -EOPNOTSUPP;

	err = hdsim_check_spec(port->netdev, fs);
	if (err)
		return err;

	spin_lock_bh(&port->steer_lock);
	if (loc == RX_CLS_LOC_ANY || loc == RX_CLS_LOC_FIRST) {
		for (loc = 0; loc < HDSIM_MAX_RULES; loc++)
			if (!port->rules[loc].used)
				break;
		err = loc < HDSIM_MAX_RULES ? 0 : -ENOSPC;
	} else if (loc == RX_CLS_LOC_LAST) {
		for (loc = HDSIM_MAX_RULES; loc > 0; loc--)
			if (!port->rules[loc - 1].used)
				break;
		err = loc ? 0 : -ENOSPC;
		loc--;
	} else if (loc >= HDSIM_MAX_RULES) {
		err = -EINVAL;
	} else if (port->rules[loc].used) {
		err = -EEXIST;
	}
	if (err)
		goto out_unlock;

	/* a context the rule names must exist and fit in the channels */
	fs->location = loc;
	port->rules[loc].fs = *fs;
	port->rules[loc].rss_context = cmd->rss_context;
	if (fs->flow_type & FLOW_RSS &&
	    (!hdsim_rss_ctx_get(port, cmd->rss_context) ||
	     hdsim_rule_max_queue(port, &port->rules[loc]) >=
	     port->netdev->real_num_rx_queues)) {
		err = -EINVAL;
		goto out_unlock;
	}

	port->rules[loc].used = true;
	port->rule_cnt++;
out_unlock:
	spin_unlock_bh(&port->steer_lock);
	return err;
}

static int hdsim_del_rule(struct hdsim_port *port, u32 loc)
{
	int err = 0;

	if (loc >= HDSIM_MAX_RULES)
		return -EINVAL;

	spin_lock_bh(&port->steer_lock);
	if (port->rules[loc].used) {
		port->rules[loc].used = false;
		port->rule_cnt--;
	} else {
		err = -ENOENT;
	}
	spin_unlock_bh(&port->steer_lock);
	return err;
}

static int hdsim_get_rxnfc(struct net_device *dev, struct ethtool_rxnfc *cmd,
			   u32 *rule_locs)
{
	struct hdsim_port *port = netdev_priv(dev);
	unsigned int i, n = 0;
	int err = 0;

	switch (cmd->cmd) {
	case ETHTOOL_GRXRINGS:
		cmd->data = dev->real_num_rx_queues;
		return 0;
	case ETHTOOL_GRXCLSRLCNT:
		cmd->rule_cnt = port->rule_cnt;
		cmd->data = HDSIM_MAX_RULES | RX_CLS_LOC_SPECIAL;
		return 0;
	case ETHTOOL_GRXCLSRULE:
		if (cmd->fs.location >= HDSIM_MAX_RULES)
			return -EINVAL;
		spin_lock_bh(&port->steer_lock);
		if (port->rules[cmd->fs.location].used) {
			const struct hdsim_rule *r =
				&port->rules[cmd->fs.location];

			cmd->fs = r->fs;
			cmd->rss_context = r->rss_context;
		} else {
			err = -ENOENT;
		}
		spin_unlock_bh(&port->steer_lock);
		return err;
	case ETHTOOL_GRXCLSRLALL:
		spin_lock_bh(&port->steer_lock);
		for (i = 0; i < HDSIM_MAX_RULES; i++) {
			if (!port->rules[i].used)
				continue;
			if (n == cmd->rule_cnt) {
				err = -EMSGSIZE;
				break;
			}
			rule_locs[n++] = i;
		}
		spin_unlock_bh(&port->steer_lock);
		cmd->rule_cnt = n;
		cmd->data = HDSIM_MAX_RULES;
		return err;
	}
	return -EOPNOTSUPP;
}

static int hdsim_set_rxnfc(struct net_device *dev, struct ethtool_rxnfc *cmd)
{
	struct hdsim_port *port = netdev_priv(dev);

	switch (cmd->cmd) {
	case ETHTOOL_SRXCLSRLINS:
		return hdsim_add_rule(port, cmd);
	case ETHTOOL_SRXCLSRLDEL:
		return hdsim_del_rule(port, cmd->fs.location);
	}
	return -EOPNOTSUPP;
}

/* RSS */

static u32 hdsim_get_rxfh_indir_size(struct net_device *dev)
{
	return HDSIM_INDIR_SIZE;
}

static int hdsim_get_rxfh(struct net_device *dev, u32 *indir, u8 *key,
			  u8 *hfunc)
{
	struct hdsim_port *port = netdev_priv(dev);

	if (hfunc)
		*hfunc = ETH_RSS_HASH_TOP;
	if (indir) {
		spin_lock_bh(&port->steer_lock);
		memcpy(indir, port->indir, sizeof(port->indir));
		spin_unlock_bh(&port->steer_lock);
	}
	return 0;
}

static int hdsim_set_rxfh(struct net_device *dev, const u32 *indir,
			  const u8 *key, const u8 hfunc)
{
	struct hdsim_port *port = netdev_priv(dev);

	if (key || (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP))
		return -EOPNOTSUPP;

	if (indir) {
		spin_lock_bh(&port->steer_lock);
		memcpy(port->indir, indir, sizeof(port->indir));
		spin_unlock_bh(&port->steer_lock);
	}
	return 0;
}

static int hdsim_get_rxfh_context(struct net_device *dev, u32 *indir, u8 *key,
				  u8 *hfunc, u32 rss_context)
{
	struct hdsim_port *port = netdev_priv(dev);
	const struct hdsim_rss_ctx *ctx;
	int err = 0;

	if (hfunc)
		*hfunc = ETH_RSS_HASH_TOP;

	spin_lock_bh(&port->steer_lock);
	ctx = hdsim_rss_ctx_get(port, rss_context);
	if (!ctx)
		err = -ENOENT;
	else if (indir)
		memcpy(indir, ctx->indir, sizeof(ctx->indir));
	spin_unlock_bh(&port->steer_lock);
	return err;
}

/* whether a rule steers into RSS context @id; steer_lock held */
static bool hdsim_rss_ctx_in_use(struct hdsim_port *port, u32 id)
{
	unsigned int i;

	for (i = 0; i < HDSIM_MAX_RULES; i++)
		if (port->rules[i].used &&
		    port->rules[i].fs.flow_type & FLOW_RSS &&
		    port->rules[i].rss_context == id)
			return true;
	return false;
}

/* Allocate (*@rss_context is ETH_RXFH_CONTEXT_ALLOC: a new id goes back
 * in it), change or delete an RSS context. A new context without a
 * table spreads over every queue, as the default one does.
 */
static int hdsim_set_rxfh_context(struct net_device *dev, const u32 *indir,
				  const u8 *key, const u8 hfunc,
				  u32 *rss_context, bool delete)
{
	struct hdsim_port *port = netdev_priv(dev);
	struct hdsim_rss_ctx *ctx;
	unsigned int i, n;
	int err = 0;

	if (key || (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP))
		return -EOPNOTSUPP;

	spin_lock_bh(&port->steer_lock);
	if (*rss_context != ETH_RXFH_CONTEXT_ALLOC) {
		ctx = hdsim_rss_ctx_get(port, *rss_context);
		if (!ctx)
			err = -ENOENT;
		else if (delete && hdsim_rss_ctx_in_use(port, *rss_context))
			err = -EBUSY;
		else if (delete)
			ctx->used = false;
		else if (indir)
			memcpy(ctx->indir, indir, sizeof(ctx->indir));
		goto out_unlock;
	}

	/* the core asks to delete a context it has no id for */
	if (delete) {
		err = -EINVAL;
		goto out_unlock;
	}
	for (i = 0; i < HDSIM_MAX_RSS_CTX; i++)
		if (!port->rss_ctx[i].used)
			break;
	if (i == HDSIM_MAX_RSS_CTX) {
		err = -ENOSPC;
		goto out_unlock;
	}
	ctx = &port->rss_ctx[i];
	ctx->used = true;
	n = dev->real_num_rx_queues;
	for (i = 0; i < HDSIM_INDIR_SIZE; i++)
		ctx->indir[i] = indir ? indir[i] :
				ethtool_rxfh_indir_default(i, n);
	*rss_context = ctx - port->rss_ctx + 1;
out_unlock:
	spin_unlock_bh(&port->steer_lock);
	return err;
}

/* Statistics: port TX, then every queue's RX counters. */

static const char hdsim_tx_stat_names[][ETH_GSTRING_LEN] = {
	"tx_packets", "tx_bytes", "tx_dropped", "tx_devmem_bytes",
};

static const char hdsim_rq_stat_names[][ETH_GSTRING_LEN] = {
	"packets", "bytes", "hds_packets", "hds_payload_bytes",
	"devmem_payload_bytes", "payload_cpu_syncs", "alloc_fail", "csum_err",
	"fault_drop", "ring_full", "gro_hw_skbs", "gro_hw_frames",
	"gro_hw_discarded", "gro_hw_opened", "gro_hw_evicted", "gro_hw_flushed",
};

#define HDSIM_RQ_NSTATS	ARRAY_SIZE(hdsim_rq_stat_names)

static int hdsim_get_sset_count(struct net_device *dev, int sset)
{
	struct hdsim_port *port = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;

	return ARRAY_SIZE(hdsim_tx_stat_names) +
	       port->hdev->num_queues * HDSIM_RQ_NSTATS;
}

static void hdsim_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct hdsim_port *port = netdev_priv(dev);
	unsigned int q, i;

	if (sset != ETH_SS_STATS)
		return;

	for (i = 0; i < ARRAY_SIZE(hdsim_tx_stat_names); i++)
		ethtool_sprintf(&data, "%s", hdsim_tx_stat_names[i]);
	for (q = 0; q < port->hdev->num_queues; q++)
		for (i = 0; i < HDSIM_RQ_NSTATS; i++)
			ethtool_sprintf(&data, "rx%u_%s", q,
					hdsim_rq_stat_names[i]);
}

static void hdsim_get_ethtool_stats(struct net_device *dev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct hdsim_port *port = netdev_priv(dev);
	unsigned int q;

	*data++ = atomic64_read(&port->tx_packets);
	*data++ = atomic64_read(&port->tx_bytes);
	*data++ = atomic64_read(&port->tx_dropped);
	*data++ = atomic64_read(&port->tx_devmem_bytes);
	for (q = 0; q < port->hdev->num_queues; q++) {
		const struct hdsim_rq_stats *s = &port->rq[q].stats;

		*data++ = READ_ONCE(s->packets);
		*data++ = READ_ONCE(s->bytes);
		*data++ = READ_ONCE(s->hds_packets);
		*data++ = READ_ONCE(s->hds_payload_bytes);
		*data++ = READ_ONCE(s->devmem_payload_bytes);
		*data++ = READ_ONCE(s->payload_cpu_syncs);
		*data++ = READ_ONCE(s->alloc_fail);
		*data++ = READ_ONCE(s->csum_err);
		*data++ = READ_ONCE(s->fault_drop);
		*data++ = atomic64_read(&s->ring_full);
		*data++ = READ_ONCE(s->gro_hw_skbs);
		*data++ = READ_ONCE(s->gro_hw_frames);
		*data++ = READ_ONCE(s->gro_hw_discarded);
		*data++ = READ_ONCE(s->gro_hw_opened);
		*data++ = READ_ONCE(s->gro_hw_evicted);
		*data++ = READ_ONCE(s->gro_hw_flushed);
	}
}

const struct ethtool_ops hdsim_ethtool_ops = {
	.supported_ring_params	= ETHTOOL_RING_USE_TCP_DATA_SPLIT |
				  ETHTOOL_RING_USE_HDS_THRS,
	.get_drvinfo		= hdsim_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_channels		= hdsim_get_channels,
	.set_channels		= hdsim_set_channels,
	.get_ringparam		= hdsim_get_ringparam,
	.set_ringparam		= hdsim_set_ringparam,
	.get_rxnfc		= hdsim_get_rxnfc,
	.set_rxnfc		= hdsim_set_rxnfc,
	.get_rxfh_indir_size	= hdsim_get_rxfh_indir_size,
	.get_rxfh		= hdsim_get_rxfh,
	.set_rxfh		= hdsim_set_rxfh,
	.get_rxfh_context	= hdsim_get_rxfh_context,
	.set_rxfh_context	= hdsim_set_rxfh_context,
	.get_sset_count		= hdsim_get_sset_count,
	.get_strings		= hdsim_get_strings,
	.get_ethtool_stats	= hdsim_get_ethtool_stats,
};
