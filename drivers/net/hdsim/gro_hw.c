// SPDX-License-Identifier: GPL-2.0
/*
 * hdsim packing (rx-gro-hw): the "device" writes consecutive in-order TCP
 * segments of one flow back to back into one payload buffer and hands
 * them to the stack as one skb, as NICs with hardware GRO do. With large
 * buffers (rx-page-size) this is what makes one net_iov, one frag and one
 * cmsg carry tens of segments.
 *
 * The model:
 * - An RX queue has at most one open aggregate, in one payload buffer. A
 *   buffer never holds two flows and never outlives its aggregate: what
 *   is left of it when the aggregate closes stays unused.
 * - A frame joins if its headers are the first frame's but for lengths,
 *   IP id and checksum, sequence number, TCP checksum and PSH; it carries
 *   the next sequence number; its payload is no longer than the first
 *   frame's (the MSS); and it fits in the rest of the buffer.
 * - The aggregate closes (goes to the stack) when a frame does not join,
 *   after a frame with PSH or with less than the MSS joined, when the
 *   buffer cannot take another MSS, and when a NAPI poll drained the
 *   ring: that is the "timer", no frame waits for frames not yet on the
 *   wire. A poll that spent its budget leaves the aggregate open for the
 *   next one, which comes at once.
 * - Out-of-order frames, SYN, FIN, RST, URG, ECE and CWR, and frames the
 *   device does not split never join or open an aggregate; the stack gets
 *   them as before, in wire order.
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

/* Open an aggregate with @src in a new buffer. */
static bool hdsim_gro_hw_open(struct hdsim_rq *rq, struct sk_buff *src,
			      const struct hdsim_hdrs *h, const u8 *key,
			      u32 seq)
{
	struct page_pool *pp = rq->mem.payload_pool;
	unsigned int buf_size = hdsim_rx_buf_size(rq);
	struct hdsim_gro_hw *g = &rq->gro_hw;
	u32 payload = src->len - h->len;
	struct sk_buff *skb;
	netmem_ref buf;

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

	g->skb = skb;
	g->buf = buf;
	g->hdrs = *h;
	memcpy(g->key, key, h->len);
	g->next_seq = seq + payload;
	g->mss = payload;
	g->frames = 1;
	return true;
}

/**
 * hdsim_hw_gro_add() - let a split TCP frame join the queue's aggregate
 * @rq: RX queue, in its NAPI poll
 * @src: the frame on the wire
 * @h: where its headers are
 *
 * Return: true if the device took the frame into an aggregate (the open
 * one or a new one); false if the caller must deliver it alone, after
 * the aggregate that was open, which this closed.
 */
bool hdsim_hw_gro_add(struct hdsim_rq *rq, struct sk_buff *src,
		      const struct hdsim_hdrs *h)
{
	unsigned int buf_size = hdsim_rx_buf_size(rq);
	struct hdsim_gro_hw *g = &rq->gro_hw;
	u32 payload = src->len - h->len;
	u8 key[HDSIM_HDR_MAX];
	skb_frag_t *frag;
	struct tcphdr th;
	u32 used;

	if (skb_copy_bits(src, h->thoff, &th, sizeof(th)) ||
	    tcp_flag_word(&th) & HDSIM_GRO_HW_NEVER) {
		hdsim_hw_gro_flush(rq);
		return false;
	}
	hdsim_gro_hw_key(src, h, key);

	if (g->skb) {
		frag = &skb_shinfo(g->skb)->frags[0];
		used = skb_frag_size(frag);
		if (h->len == g->hdrs.len && ntohl(th.seq) == g->next_seq &&
		    payload <= g->mss && used + payload <= buf_size &&
		    !memcmp(key, g->key, h->len))
			goto join;
		hdsim_hw_gro_flush(rq);
	}

	/* alone if it carries PSH or no second frame fits after it */
	if (th.psh || payload > buf_size / 2)
		return false;
	return hdsim_gro_hw_open(rq, src, h, key, ntohl(th.seq));

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
	if (th.psh || payload < g->mss || used + payload + g->mss > buf_size)
		hdsim_hw_gro_flush(rq);
	return true;
}

/**
 * hdsim_hw_gro_flush() - close the queue's aggregate, if any, and hand it
 *	to the stack
 * @rq: RX queue, in its NAPI poll
 */
void hdsim_hw_gro_flush(struct hdsim_rq *rq)
{
	struct hdsim_gro_hw *g = &rq->gro_hw;
	struct sk_buff *skb = g->skb;
	struct tcphdr *th;
	int tcp_len;

	if (!skb)
		return;
	g->skb = NULL;

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

/**
 * hdsim_hw_gro_discard() - drop the open aggregate of a stopped queue
 * @rq: RX queue whose NAPI is disabled
 *
 * Its frames are lost, as those of a ring being torn down; TCP sends them
 * again. The payload buffer goes back to its pool with the skb.
 */
void hdsim_hw_gro_discard(struct hdsim_rq *rq)
{
	struct hdsim_gro_hw *g = &rq->gro_hw;

	if (!g->skb)
		return;
	rq->stats.gro_hw_discarded += g->frames;
	kfree_skb(g->skb);
	g->skb = NULL;
}
