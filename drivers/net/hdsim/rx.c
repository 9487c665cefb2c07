// SPDX-License-Identifier: GPL-2.0
/*
 * hdsim, the device side of a port: its DMA engine (TX reads payload,
 * RX writes it, both by DMA address), the header/data split of a frame
 * off the wire into a header buffer and payload buffers, and the NAPI
 * poll that delivers them.
 */
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/highmem.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kcov.h>
#include <linux/tcp.h>
#include <net/flow_dissector.h>
#include <net/ip6_checksum.h>
#include <net/page_pool.h>

#include "hdsim.h"

/* The "DMA engine": write @len bytes of @src at @off to DMA address @dma.
 * The device was checked to use direct DMA, so the DMA address is a
 * physical address, contiguous over the whole buffer (a large net_iov
 * spans several pages); nothing here goes through the memory provider.
 */
void hdsim_dma_write(struct hdsim_dev *hdev, dma_addr_t dma,
		     const struct sk_buff *src, int off, int len)
{
	phys_addr_t phys = dma_to_phys(&hdev->dev, dma);

	while (len > 0) {
		int chunk = min_t(int, len, PAGE_SIZE - offset_in_page(phys));
		void *vaddr;

		vaddr = kmap_local_page(pfn_to_page(PHYS_PFN(phys)));
		skb_copy_bits(src, off, vaddr + offset_in_page(phys), chunk);
		kunmap_local(vaddr);
		phys += chunk;
		off += chunk;
		len -= chunk;
	}
}

/* The "DMA engine" reads @len bytes at DMA address @dma into @to. */
static void hdsim_dma_read(struct hdsim_dev *hdev, dma_addr_t dma, void *to,
			   int len)
{
	phys_addr_t phys = dma_to_phys(&hdev->dev, dma);

	while (len > 0) {
		int chunk = min_t(int, len, PAGE_SIZE - offset_in_page(phys));
		void *vaddr;

		vaddr = kmap_local_page(pfn_to_page(PHYS_PFN(phys)));
		memcpy(to, vaddr + offset_in_page(phys), chunk);
		kunmap_local(vaddr);
		phys += chunk;
		to += chunk;
		len -= chunk;
	}
}

/* Netmem TX: the device fetches a frame whose payload is in device memory
 * (net_iovs of a bind-tx binding, mapped for this device) by DMA, as it
 * would read it off the TX ring. The copy it gets is what goes on the
 * wire; the sender's skb is consumed.
 */
struct sk_buff *hdsim_tx_fetch(struct hdsim_dev *hdev, struct sk_buff *skb)
{
	const struct skb_shared_info *shinfo = skb_shinfo(skb);
	unsigned int headroom = skb_headroom(skb);
	struct sk_buff *wire;
	void *to;
	int i;

	if (skb_has_frag_list(skb))
		goto drop;

	wire = alloc_skb(headroom + skb->len, GFP_ATOMIC);
	if (!wire)
		goto drop;
	skb_reserve(wire, headroom);
	skb_put(wire, skb->len);
	/* headers: host memory, the linear part */
	memcpy(wire->head, skb->head, headroom + skb_headlen(skb));
	to = wire->data + skb_headlen(skb);
	for (i = 0; i < shinfo->nr_frags; i++) {
		const skb_frag_t *frag = &shinfo->frags[i];
		const struct net_iov *niov = skb_frag_net_iov(frag);

		hdsim_dma_read(hdev, niov->dma_addr + skb_frag_off(frag), to,
			       skb_frag_size(frag));
		to += skb_frag_size(frag);
	}
	skb_copy_header(wire, skb);
	wire->unreadable = false;
	consume_skb(skb);
	return wire;

drop:
	kfree_skb(skb);
	return NULL;
}

/* Where the device splits a frame: right after the TCP header of an
 * unfragmented TCP segment over IPv4 or IPv6, found by the kernel's flow
 * dissector (eth_get_headlen() includes TCP options). Returns false if
 * the frame is not split.
 */
static bool hdsim_split_hdrs(struct net_device *dev, const struct sk_buff *skb,
			     struct hdsim_hdrs *h)
{
	struct flow_keys_basic keys;

	if (!skb_flow_dissect_flow_keys_basic(dev_net(dev), skb, &keys, NULL,
					      0, 0, 0, 0) ||
	    keys.basic.ip_proto != IPPROTO_TCP ||
	    keys.control.flags & FLOW_DIS_IS_FRAGMENT)
		return false;

	h->len = eth_get_headlen(dev, skb->data, skb_headlen(skb));
	/* the dissector started at the network header the sender set */
	h->nhoff = skb_network_offset(skb);
	h->thoff = keys.control.thoff;
	h->ipv6 = keys.basic.n_proto == htons(ETH_P_IPV6);
	return h->len >= h->thoff + (int)sizeof(struct tcphdr) &&
	       h->len <= HDSIM_HDR_MAX && skb->len > h->len;
}

/* A receiving NIC checks the TCP checksum of every segment it parses. A
 * sender that left it to the device (CHECKSUM_PARTIAL) has not written it
 * yet: it is right on the wire by construction. Any other frame (a raw
 * socket, a packet generator, forwarded traffic) carries its own, checked
 * here over the bytes received.
 */
static bool hdsim_tcp_csum_ok(const struct sk_buff *src,
			      const struct hdsim_hdrs *h)
{
	int len;

	/* sent from device memory without offload: nothing reads it */
	if (!skb_frags_readable(src))
		return false;

	if (h->ipv6) {
		const struct ipv6hdr *ip6 = (void *)(src->data + h->nhoff);

		len = h->nhoff + sizeof(*ip6) + ntohs(ip6->payload_len) -
		      h->thoff;
		if (len <= 0 || h->thoff + len > src->len)
			return false;
		return !csum_ipv6_magic(&ip6->saddr, &ip6->daddr, len,
					IPPROTO_TCP,
					skb_checksum(src, h->thoff, len, 0));
	} else {
		const struct iphdr *ip = (void *)(src->data + h->nhoff);

		len = h->nhoff + ntohs(ip->tot_len) - h->thoff;
		if (len <= 0 || h->thoff + len > src->len)
			return false;
		return !csum_tcpudp_magic(ip->saddr, ip->daddr, len,
					  IPPROTO_TCP,
					  skb_checksum(src, h->thoff, len, 0));
	}
}

/* Fault knobs: every Nth frame received on the port is hit. */
static bool hdsim_fault(struct hdsim_port *port, u32 every)
{
	return every && !(atomic_inc_return(&port->fault_seq) % every);
}

/* Not split: the whole frame goes to host memory, readable. */
static struct sk_buff *hdsim_rx_copy(struct hdsim_rq *rq, struct sk_buff *src)
{
	struct sk_buff *skb;

	skb = napi_alloc_skb(&rq->napi, src->len);
	if (!skb) {
		rq->stats.alloc_fail++;
		return NULL;
	}

	skb_put(skb, src->len);
	skb_copy_bits(src, 0, skb->data, src->len);
	return skb;
}

/* The device writes the @hdr_len header bytes of @src into a header
 * buffer; returns an skb around them, or NULL.
 */
struct sk_buff *hdsim_rx_hdr_skb(struct hdsim_rq *rq, struct sk_buff *src,
				 int hdr_len)
{
	struct hdsim_dev *hdev = rq->port->hdev;
	unsigned int hdr_off;
	struct sk_buff *skb;
	struct page *hpage;
	dma_addr_t dma;

	hpage = page_pool_dev_alloc_frag(rq->mem.hdr_pool, &hdr_off,
					 HDSIM_HDR_BUF_SIZE);
	if (!hpage)
		return NULL;

	dma = page_pool_get_dma_addr(hpage) + hdr_off;
	hdsim_dma_write(hdev, dma + NET_SKB_PAD, src, 0, hdr_len);
	dma_sync_single_for_cpu(&hdev->dev, dma + NET_SKB_PAD, hdr_len,
				DMA_FROM_DEVICE);

	skb = napi_build_skb(page_address(hpage) + hdr_off, HDSIM_HDR_BUF_SIZE);
	if (!skb) {
		page_pool_put_full_page(rq->mem.hdr_pool, hpage, true);
		return NULL;
	}
	skb_mark_for_recycle(skb);
	skb_reserve(skb, NET_SKB_PAD);
	skb_put(skb, hdr_len);
	return skb;
}

/* The device writes @len bytes of @src from @off into payload buffer
 * @buf at @buf_off: host or device memory, it does not know.
 */
void hdsim_rx_payload(struct hdsim_rq *rq, netmem_ref buf,
		      unsigned int buf_off, struct sk_buff *src, int off,
		      int len)
{
	dma_addr_t addr = page_pool_get_dma_addr_netmem(buf) + buf_off;

	hdsim_dma_write(rq->port->hdev, addr, src, off, len);
	/* As a real driver does: host payload is synced for the CPU; a
	 * dmabuf address is not this device's to sync.
	 */
	rq->stats.hds_payload_bytes += len;
	if (netmem_is_net_iov(buf)) {
		rq->stats.devmem_payload_bytes += len;
	} else {
		dma_sync_single_for_cpu(&rq->port->hdev->dev, addr, len,
					DMA_FROM_DEVICE);
		rq->stats.payload_cpu_syncs++;
	}
}

/* Split: headers to a header buffer, payload to payload buffers, one
 * frag per buffer of the payload pool's size.
 */
static struct sk_buff *hdsim_rx_split(struct hdsim_rq *rq, struct sk_buff *src,
				      int hdr_len)
{
	struct page_pool *pp = rq->mem.payload_pool;
	unsigned int buf_size = hdsim_rx_buf_size(rq);
	int payload = src->len - hdr_len;
	netmem_ref bufs[MAX_SKB_FRAGS];
	int i, nbufs, off, len;
	struct sk_buff *skb;

	nbufs = DIV_ROUND_UP(payload, buf_size);
	if (nbufs > MAX_SKB_FRAGS)
		return hdsim_rx_copy(rq, src);

	for (i = 0; i < nbufs; i++) {
		bufs[i] = page_pool_dev_alloc_netmem(pp);
		if (!bufs[i])
			goto err_put_bufs;
	}

	skb = hdsim_rx_hdr_skb(rq, src, hdr_len);
	if (!skb)
		goto err_put_bufs;

	for (i = 0, off = hdr_len; i < nbufs; i++, off += len) {
		len = min_t(int, buf_size, src->len - off);
		hdsim_rx_payload(rq, bufs[i], 0, src, off, len);
		skb_add_rx_frag_netmem(skb, i, bufs[i], 0, len, buf_size);
	}

	rq->stats.hds_packets++;
	return skb;

err_put_bufs:
	while (i--)
		page_pool_put_full_netmem(pp, bufs[i], true);
	rq->stats.alloc_fail++;
	return NULL;
}

/* Hand a received skb (MAC header at skb->data) to the stack. */
void hdsim_rx_deliver(struct hdsim_rq *rq, struct sk_buff *skb, bool csum_ok)
{
	skb->protocol = eth_type_trans(skb, rq->port->netdev);
	skb_record_rx_queue(skb, rq->idx);
	/* Only frames the device validated are marked; others are checked by
	 * the stack, which can since they are readable. Aggregates come
	 * with CHECKSUM_PARTIAL already.
	 */
	if (csum_ok && skb->ip_summed == CHECKSUM_NONE)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	napi_gro_receive(&rq->napi, skb);
}

static void hdsim_rx_one(struct hdsim_rq *rq, struct sk_buff *src)
{
	struct hdsim_port *port = rq->port;
	bool csum_ok, parsed, split;
	struct hdsim_hdrs h = {};
	struct sk_buff *skb;

	if (hdsim_fault(port, READ_ONCE(port->fault_drop_every))) {
		rq->stats.fault_drop++;
		goto out;
	}

	/* The sender left the TCP/UDP checksum to the device (CHECKSUM_PARTIAL):
	 * it is right on the wire unless the fault knob corrupts it. The
	 * receiving device validates it and drops bad frames.
	 */
	csum_ok = src->ip_summed == CHECKSUM_PARTIAL;
	if (csum_ok && hdsim_fault(port, READ_ONCE(port->fault_corrupt_csum_every))) {
		rq->stats.csum_err++;
		goto out;
	}

	/* A TCP segment with a checksum of its own is checked, then split
	 * like any other; a bad one is dropped.
	 */
	parsed = hdsim_split_hdrs(port->netdev, src, &h);
	if (parsed && !csum_ok) {
		if (!hdsim_tcp_csum_ok(src, &h)) {
			rq->stats.csum_err++;
			goto out;
		}
		csum_ok = true;
	}

	/* payloads shorter than hds-thresh stay with the headers */
	split = parsed && READ_ONCE(port->hds) &&
		src->len - h.len >= READ_ONCE(port->hds_thresh);

	/* Packing (rx-gro-hw): the frame may join the open aggregate. */
	if (split && port->netdev->features & NETIF_F_GRO_HW) {
		if (hdsim_gro_hw_add(rq, src, &h)) {
			rq->stats.packets++;
			rq->stats.bytes += src->len;
			goto out;
		}
	} else {
		/* in wire order after the frames of its flow packed so far */
		hdsim_gro_hw_flush_flow(rq, src);
	}

	skb = split ? hdsim_rx_split(rq, src, h.len) : hdsim_rx_copy(rq, src);
	if (!skb)
		goto out;

	rq->stats.packets++;
	rq->stats.bytes += src->len;
	hdsim_rx_deliver(rq, skb, csum_ok);
out:
	consume_skb(src);
}

/* Backpressure: the sender stops when a ring of ours is 3/4 full and
 * restarts when it drained to 1/4, so its qdisc holds frames instead of
 * the wire dropping them.
 */
static void hdsim_wake_sender(struct hdsim_rq *rq)
{
	struct hdsim_port *sender;

	if (skb_queue_len_lockless(&rq->ring) >
	    READ_ONCE(rq->port->rx_ring_size) / 4)
		return;

	rcu_read_lock();
	sender = rcu_dereference(rq->port->peer);
	if (sender && netif_tx_queue_stopped(netdev_get_tx_queue(sender->netdev, 0)))
		netif_tx_wake_all_queues(sender->netdev);
	rcu_read_unlock();
}

/* A poll in softirq context is covered as the work of the task that
 * started the queue (KCOV's remote coverage, as vhost does for its
 * workers). Left alone: a queue no such task started (handle 0), a busy
 * poll (it runs in a task, with its own coverage) and netpoll (budget
 * 0), which may poll this queue from inside another port's poll, where
 * KCOV refuses a second remote section.
 */
static bool hdsim_kcov_start(struct hdsim_rq *rq, int budget)
{
	u64 handle = READ_ONCE(rq->kcov_handle);

	if (!IS_ENABLED(CONFIG_KCOV) || !handle || !budget ||
	    !in_serving_softirq())
		return false;
	kcov_remote_start_common(handle);
	return true;
}

static void hdsim_kcov_stop(bool started)
{
	if (started)
		kcov_remote_stop();
}

int hdsim_napi_poll(struct napi_struct *napi, int budget)
{
	struct hdsim_rq *rq = container_of(napi, struct hdsim_rq, napi);
	bool kcov = hdsim_kcov_start(rq, budget);
	struct sk_buff *src;
	int done = 0;

	while (done < budget && (src = skb_dequeue(&rq->ring))) {
		hdsim_rx_one(rq, src);
		done++;
	}
	/* The ring is drained: an aggregate waits for no frame that is not
	 * on the wire yet. With the budget spent the poll comes back at
	 * once, and the aggregate stays open for the frames still queued.
	 */
	if (done < budget)
		hdsim_gro_hw_flush(rq);

	hdsim_wake_sender(rq);

	if (done < budget && napi_complete_done(napi, done) &&
	    !skb_queue_empty_lockless(&rq->ring))
		napi_schedule(napi);

	hdsim_kcov_stop(kcov);
	return done;
}
