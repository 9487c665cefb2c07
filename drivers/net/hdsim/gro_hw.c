// SPDX-License-Identifier: GPL-2.0
/*
 * hdsim packing (rx-gro-hw): the "device" writes consecutive in-order TCP
 * segments of one flow back to back into one payload buffer and hands
 * them to the stack as one skb, as NICs with hardware GRO do. With large
 * buffers (rx-page-size) this is what makes one net_iov, one frag and one
 * cmsg carry tens of segments.
 *
 * The model:
 * - An RX queue keeps up to gro_hw_sessions aggregation sessions (debugfs,
 *   1 to 128, default 64: hardware GRO engines keep tens to hundreds), one
 *   per flow, each in a payload buffer of its own. A buffer never holds
 *   two flows and never outlives its session: what is left of it when the
 *   session closes stays unused.
 * - A frame joins its flow's session if its headers are the first frame's
 *   but for lengths, IP id and checksum, sequence number, TCP checksum
 *   and PSH; it carries the next sequence number; its payload is no longer
 *   than the first frame's (the MSS); and it fits in the rest of the
 *   buffer. A frame of the flow that does not join closes the session.
 * - A frame of a flow without a session opens one; with every session in
 *   use, the oldest is closed first (evicted).
 * - A session closes (goes to the stack) after a frame with PSH or with
 *   less than the MSS joined, when its buffer cannot take another MSS,
 *   when its flow sends FIN, RST or anything that does not join, and
 *   when a NAPI poll drained the ring: that is the timer, no frame waits
 *   for frames not yet on the wire. A poll that spent its budget leaves
 *   the sessions open for the next one, which comes at once.
 * - Out-of-order frames, SYN, FIN, RST, URG, ECE and CWR, and frames the
 *   device does not split never join or open a session; the stack gets
 *   them after their flow's session, in wire order within the flow.
 * An aggregate of two or more frames looks like a hardware GRO skb:
 * gso_size is the MSS, the IP header carries the total length, and the
 * TCP checksum is left CHECKSUM_PARTIAL (the device checked every frame),
 * so a forwarding path could segment it again.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <net/gro.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/page_pool.h>
#include <net/tcp.h>

#include "hdsim.h"

/* A frame with any of these never joins or opens an aggregate. */
#define HDSIM_GRO_HW_NEVER	(TCP_FLAG_SYN | TCP_FLAG_FIN | TCP_FLAG_RST | \
				 TCP_FLAG_URG | TCP_FLAG_ECE | TCP_FLAG_CWR)

/* @src's headers with the fields that change per segment zeroed. */
static void hdsim_gro_hw_key(const struct sk_buff *src,
			     const struct hdsim_hdrs *h, u8 *key)
{
	struct tcphdr *th;

	skb_copy_bits(src, 0, key, h->len);
	if (h->ipv6) {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)(key + h->nhoff);

		ip6h->payload_len = 0;
	} else {
		struct iphdr *iph = (struct iphdr *)(key + h->nhoff);

		iph->tot_len = 0;
		iph->id = 0;
		iph->check = 0;
	}
	th = (struct tcphdr *)(key + h->thoff);
	th->seq = 0;
	th->check = 0;
	th->psh = 0;
}

/* Close session @g: hand its aggregate to the stack. */
static void hdsim_gro_hw_close(struct hdsim_rq *rq,
			       struct hdsim_gro_hw_session *g)
{
	struct sk_buff *skb = g->skb;
	struct tcphdr *th;
	int tcp_len;

	g->skb = NULL;
	rq->gro_hw.open--;

	skb_set_network_header(skb, g->hdrs.nhoff);
	skb_set_transport_header(skb, g->hdrs.thoff);
	th = tcp_hdr(skb);
	tcp_len = skb->len - g->hdrs.thoff;

	if (g->hdrs.ipv6) {
		struct ipv6hdr *ip6h = ipv6_hdr(skb);

		ip6h->payload_len = htons(skb->len - g->hdrs.nhoff -
					  sizeof(*ip6h));
		if (g->frames > 1)
			th->check = ~tcp_v6_check(tcp_len, &ip6h->saddr,
						  &ip6h->daddr, 0);
	} else {
		struct iphdr *iph = ip_hdr(skb);

		iph->tot_len = htons(skb->len - g->hdrs.nhoff);
		ip_send_check(iph);
		if (g->frames > 1)
			th->check = ~tcp_v4_check(tcp_len, iph->saddr,
						  iph->daddr, 0);
	}

	if (g->frames > 1) {
		skb_shinfo(skb)->gso_size = g->mss;
		skb_shinfo(skb)->gso_type = g->hdrs.ipv6 ? SKB_GSO_TCPV6 :
							   SKB_GSO_TCPV4;
		NAPI_GRO_CB(skb)->count = g->frames;
		tcp_gro_complete(skb);
		rq->stats.gro_hw_skbs++;
		rq->stats.gro_hw_frames += g->frames;
	}

	hdsim_rx_deliver(rq, skb, true);
}

/* Close every open session (@all), or only flow @flow's. */
static void hdsim_gro_hw_close_flows(struct hdsim_rq *rq, bool all, u32 flow)
{
	struct hdsim_gro_hw *gh = &rq->gro_hw;
	unsigned int i;

	for (i = 0; gh->open && i < HDSIM_GRO_HW_SESSIONS_MAX; i++) {
		if (gh->s[i].skb && (all || gh->s[i].flow == flow)) {
			hdsim_gro_hw_close(rq, &gh->s[i]);
			rq->stats.gro_hw_flushed++;
		}
	}
}

/* The session opened first of those open; there is one. */
static struct hdsim_gro_hw_session *hdsim_gro_hw_oldest(struct hdsim_gro_hw *gh)
{
	struct hdsim_gro_hw_session *oldest = NULL;
	unsigned int i;

	for (i = 0; i < HDSIM_GRO_HW_SESSIONS_MAX; i++)
		if (gh->s[i].skb &&
		    (!oldest || gh->s[i].opened < oldest->opened))
			oldest = &gh->s[i];
	return oldest;
}

/* A free session for a new flow. With the port's gro_hw_sessions in use
 * (more, if the knob shrank), the oldest are closed first: evicted.
 */
static struct hdsim_gro_hw_session *hdsim_gro_hw_slot(struct hdsim_rq *rq)
{
	unsigned int max = READ_ONCE(rq->port->gro_hw_sessions), i;
	struct hdsim_gro_hw *gh = &rq->gro_hw;

	max = clamp_t(unsigned int, max, 1, HDSIM_GRO_HW_SESSIONS_MAX);
	while (gh->open >= max) {
		hdsim_gro_hw_close(rq, hdsim_gro_hw_oldest(gh));
		rq->stats.gro_hw_evicted++;
	}
	for (i = 0; i < HDSIM_GRO_HW_SESSIONS_MAX; i++)
		if (!gh->s[i].skb)
			return &gh->s[i];
	return NULL;
}

/* Open a session for @src's flow in a new buffer. */
static bool hdsim_gro_hw_open(struct hdsim_rq *rq, struct sk_buff *src,
			      const struct hdsim_hdrs *h, const u8 *key,
			      u32 flow, u32 seq)
{
	struct page_pool *pp = rq->mem.payload_pool;
	unsigned int buf_size = hdsim_rx_buf_size(rq);
	u32 payload = src->len - h->len;
	struct hdsim_gro_hw_session *g;
	struct sk_buff *skb;
	netmem_ref buf;

	g = hdsim_gro_hw_slot(rq);
	if (!g)
		return false;

	buf = page_pool_dev_alloc_netmem(pp);
	if (!buf)
		return false;

	skb = hdsim_rx_hdr_skb(rq, src, h->len);
	if (!skb) {
		page_pool_put_full_netmem(pp, buf, true);
		return false;
	}

	hdsim_rx_payload(rq, buf, 0, src, h->len, payload);
	skb_add_rx_frag_netmem(skb, 0, buf, 0, payload, buf_size);
	rq->stats.hds_packets++;
	rq->stats.gro_hw_opened++;

	g->skb = skb;
	g->buf = buf;
	g->hdrs = *h;
	memcpy(g->key, key, h->len);
	g->flow = flow;
	g->next_seq = seq + payload;
	g->mss = payload;
	g->frames = 1;
	g->opened = rq->gro_hw.clock++;
	rq->gro_hw.open++;
	return true;
}

/**
 * hdsim_gro_hw_add() - let a split TCP frame join its flow's session
 * @rq: RX queue, in its NAPI poll
 * @src: the frame on the wire
 * @h: where its headers are
 *
 * Return: true if the device took the frame into an aggregate (its flow's
 * open one or a new one); false if the caller must deliver it alone,
 * after its flow's aggregate, which this closed.
 */
bool hdsim_gro_hw_add(struct hdsim_rq *rq, struct sk_buff *src,
		      const struct hdsim_hdrs *h)
{
	unsigned int buf_size = hdsim_rx_buf_size(rq);
	struct hdsim_gro_hw *gh = &rq->gro_hw;
	struct hdsim_gro_hw_session *g = NULL;
	u32 payload = src->len - h->len;
	u8 key[HDSIM_GRO_HW_KEY_MAX];
	u32 flow = skb_get_hash(src);
	skb_frag_t *frag;
	struct tcphdr th;
	unsigned int i;
	u32 used;

	if (h->len > HDSIM_GRO_HW_KEY_MAX ||
	    skb_copy_bits(src, h->thoff, &th, sizeof(th)) ||
	    tcp_flag_word(&th) & HDSIM_GRO_HW_NEVER) {
		hdsim_gro_hw_close_flows(rq, false, flow);
		return false;
	}
	hdsim_gro_hw_key(src, h, key);

	for (i = 0; gh->open && i < HDSIM_GRO_HW_SESSIONS_MAX; i++) {
		if (!gh->s[i].skb || gh->s[i].flow != flow)
			continue;
		g = &gh->s[i];
		frag = &skb_shinfo(g->skb)->frags[0];
		used = skb_frag_size(frag);
		if (h->len == g->hdrs.len && ntohl(th.seq) == g->next_seq &&
		    payload <= g->mss && used + payload <= buf_size &&
		    !memcmp(key, g->key, h->len))
			goto join;
		hdsim_gro_hw_close(rq, g);
		rq->stats.gro_hw_flushed++;
	}

	/* alone if it carries PSH or no second frame fits after it */
	if (th.psh || payload > buf_size / 2)
		return false;
	return hdsim_gro_hw_open(rq, src, h, key, flow, ntohl(th.seq));

join:
	hdsim_rx_payload(rq, g->buf, used, src, h->len, payload);
	skb_frag_size_add(frag, payload);
	g->skb->len += payload;
	g->skb->data_len += payload;
	g->next_seq += payload;
	g->frames++;
	rq->stats.hds_packets++;

	if (th.psh) {
		struct tcphdr *agg_th = (struct tcphdr *)(g->skb->data +
							  g->hdrs.thoff);

		agg_th->psh = 1;
	}
	if (th.psh || payload < g->mss || used + payload + g->mss > buf_size) {
		hdsim_gro_hw_close(rq, g);
		rq->stats.gro_hw_flushed++;
	}
	return true;
}

/**
 * hdsim_gro_hw_flush() - close every session of the queue and hand their
 *	aggregates to the stack
 * @rq: RX queue, in its NAPI poll
 */
void hdsim_gro_hw_flush(struct hdsim_rq *rq)
{
	hdsim_gro_hw_close_flows(rq, true, 0);
}

/**
 * hdsim_gro_hw_flush_flow() - close the session of @src's flow, if any,
 *	before @src goes to the stack unpacked
 * @rq: RX queue, in its NAPI poll
 * @src: a frame on the wire that does not take part in packing
 */
void hdsim_gro_hw_flush_flow(struct hdsim_rq *rq, struct sk_buff *src)
{
	if (rq->gro_hw.open)
		hdsim_gro_hw_close_flows(rq, false, skb_get_hash(src));
}

/**
 * hdsim_gro_hw_discard() - drop the open sessions of a stopped queue
 * @rq: RX queue whose NAPI is disabled
 *
 * Their frames are lost, as those of a ring being torn down; TCP sends
 * them again. The payload buffers go back to their pool with the skbs.
 */
void hdsim_gro_hw_discard(struct hdsim_rq *rq)
{
	struct hdsim_gro_hw *gh = &rq->gro_hw;
	unsigned int i;

	for (i = 0; i < HDSIM_GRO_HW_SESSIONS_MAX; i++) {
		struct hdsim_gro_hw_session *g = &gh->s[i];

		if (!g->skb)
			continue;
		rq->stats.gro_hw_discarded += g->frames;
		kfree_skb(g->skb);
		g->skb = NULL;
	}
	gh->open = 0;
}
