// SPDX-License-Identifier: GPL-2.0
/*
 * hdsim receive steering: which RX queue a frame lands in, as a NIC with
 * ntuple filters and RSS decides it. The frame's flow comes from the
 * kernel's flow dissector; the rules, the indirection table and the RSS
 * contexts are the ones ethtool.c manages.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/flow_dissector.h>

#include "hdsim.h"

struct hdsim_flow {
	u32 flow_type;
	__be32 src[4];
	__be32 dst[4];
	__be16 sport;
	__be16 dport;
};

/* The TCP flow of a frame, unfragmented, or false. */
static bool hdsim_flow_parse(const struct sk_buff *skb, struct hdsim_flow *fl)
{
	struct flow_keys keys;

	if (!skb_flow_dissect_flow_keys(skb, &keys, 0) ||
	    keys.basic.ip_proto != IPPROTO_TCP ||
	    keys.control.flags & FLOW_DIS_IS_FRAGMENT)
		return false;

	memset(fl, 0, sizeof(*fl));
	switch (keys.control.addr_type) {
	case FLOW_DISSECTOR_KEY_IPV4_ADDRS:
		fl->flow_type = TCP_V4_FLOW;
		fl->src[0] = keys.addrs.v4addrs.src;
		fl->dst[0] = keys.addrs.v4addrs.dst;
		break;
	case FLOW_DISSECTOR_KEY_IPV6_ADDRS:
		fl->flow_type = TCP_V6_FLOW;
		memcpy(fl->src, &keys.addrs.v6addrs.src, sizeof(fl->src));
		memcpy(fl->dst, &keys.addrs.v6addrs.dst, sizeof(fl->dst));
		break;
	default:
		return false;
	}
	fl->sport = keys.ports.src;
	fl->dport = keys.ports.dst;
	return true;
}

static bool hdsim_match32(const __be32 *v, const __be32 *want,
			  const __be32 *mask, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if ((v[i] ^ want[i]) & mask[i])
			return false;
	return true;
}

static bool hdsim_rule_match(const struct ethtool_rx_flow_spec *fs,
			     const struct hdsim_flow *fl)
{
	if ((fs->flow_type & ~(FLOW_EXT | FLOW_RSS)) != fl->flow_type)
		return false;

	if (fl->flow_type == TCP_V4_FLOW) {
		const struct ethtool_tcpip4_spec *v = &fs->h_u.tcp_ip4_spec;
		const struct ethtool_tcpip4_spec *m = &fs->m_u.tcp_ip4_spec;

		return hdsim_match32(&fl->src[0], &v->ip4src, &m->ip4src, 1) &&
		       hdsim_match32(&fl->dst[0], &v->ip4dst, &m->ip4dst, 1) &&
		       !((fl->sport ^ v->psrc) & m->psrc) &&
		       !((fl->dport ^ v->pdst) & m->pdst);
	} else {
		const struct ethtool_tcpip6_spec *v = &fs->h_u.tcp_ip6_spec;
		const struct ethtool_tcpip6_spec *m = &fs->m_u.tcp_ip6_spec;

		return hdsim_match32(fl->src, v->ip6src, m->ip6src, 4) &&
		       hdsim_match32(fl->dst, v->ip6dst, m->ip6dst, 4) &&
		       !((fl->sport ^ v->psrc) & m->psrc) &&
		       !((fl->dport ^ v->pdst) & m->pdst);
	}
}

/**
 * hdsim_steer() - pick the RX queue of @port for a frame, like a NIC
 * @port: receiving port
 * @skb: frame as sent on the wire
 *
 * ntuple rules first (lowest location wins); a rule with FLOW_RSS
 * spreads its flows over its RSS context's queues, offset by the rule's
 * queue. Frames no rule matches go by the default RSS table.
 *
 * Return: the queue, or -1 if a rule says drop.
 */
int hdsim_steer(struct hdsim_port *port, struct sk_buff *skb)
{
	struct net_device *dev = port->netdev;
	struct hdsim_flow fl;
	const u32 *indir;
	int q = -2;
	u32 hash;
	int i;

	spin_lock_bh(&port->steer_lock);
	if (port->rule_cnt && (dev->features & NETIF_F_NTUPLE) &&
	    hdsim_flow_parse(skb, &fl)) {
		for (i = 0; i < HDSIM_MAX_RULES; i++) {
			const struct hdsim_rule *r = &port->rules[i];

			if (!r->used || !hdsim_rule_match(&r->fs, &fl))
				continue;
			if (r->fs.ring_cookie == RX_CLS_FLOW_DISC) {
				q = -1;
				break;
			}
			q = ethtool_get_flow_spec_ring(r->fs.ring_cookie);
			/* ethtool.c keeps the context while a rule names it */
			if (r->fs.flow_type & FLOW_RSS) {
				indir = port->rss_ctx[r->rss_context - 1].indir;
				hash = skb_get_hash(skb);
				q += indir[reciprocal_scale(hash,
							    HDSIM_INDIR_SIZE)];
			}
			break;
		}
	}
	if (q == -2) {
		hash = skb_get_hash(skb);
		q = port->indir[reciprocal_scale(hash, HDSIM_INDIR_SIZE)];
	}
	spin_unlock_bh(&port->steer_lock);

	/* the channel count may have shrunk under a stale table entry */
	if (q >= (int)dev->real_num_rx_queues)
		q = 0;
	return q;
}
