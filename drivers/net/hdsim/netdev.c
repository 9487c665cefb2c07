// SPDX-License-Identifier: GPL-2.0
/*
 * hdsim ports: TX onto the "wire", the "device" side of RX (header/data
 * split through DMA addresses) and per-queue restart.
 */
#include <linux/debugfs.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/highmem.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/seq_file.h>
#include <linux/tcp.h>
#include <net/flow_dissector.h>
#include <net/ip6_checksum.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool.h>
#include <net/page_pool/memory_provider.h>
#include <net/rtnetlink.h>

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
static struct sk_buff *hdsim_tx_fetch(struct hdsim_dev *hdev,
				      struct sk_buff *skb)
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
		if (hdsim_hw_gro_add(rq, src, &h)) {
			rq->stats.packets++;
			rq->stats.bytes += src->len;
			goto out;
		}
	} else {
		/* in wire order after the frames of its flow packed so far */
		hdsim_hw_gro_flush_flow(rq, src);
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

static int hdsim_napi_poll(struct napi_struct *napi, int budget)
{
	struct hdsim_rq *rq = container_of(napi, struct hdsim_rq, napi);
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
		hdsim_hw_gro_flush(rq);

	hdsim_wake_sender(rq);

	if (done < budget && napi_complete_done(napi, done) &&
	    !skb_queue_empty_lockless(&rq->ring))
		napi_schedule(napi);

	return done;
}

/* A frame reaches the peer's wire side: pick the RX queue, enqueue. */
static void hdsim_wire_xmit(struct net_device *sender, struct hdsim_port *peer,
			    struct sk_buff *skb)
{
	bool queued = false, full = false;
	struct hdsim_rq *rq;
	u32 ring_size;
	int q;

	q = hdsim_steer(peer, skb);
	if (q < 0) {
		atomic64_inc(&peer->tx_dropped);
		kfree_skb(skb);
		return;
	}

	rq = &peer->rq[q];
	ring_size = READ_ONCE(peer->rx_ring_size);
	skb_dst_drop(skb);
	spin_lock(&rq->ring.lock);
	if (skb_queue_len(&rq->ring) < ring_size) {
		__skb_queue_tail(&rq->ring, skb);
		queued = true;
		full = skb_queue_len(&rq->ring) >= ring_size / 4 * 3;
	}
	spin_unlock(&rq->ring.lock);

	if (full)
		netif_tx_stop_all_queues(sender);

	if (!queued) {
		atomic64_inc(&rq->stats.ring_full);
		kfree_skb(skb);
		return;
	}
	napi_schedule(&rq->napi);
}

static netdev_tx_t hdsim_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct hdsim_port *port = netdev_priv(dev);
	struct sk_buff *segs, *seg, *next;
	struct hdsim_port *peer;

	rcu_read_lock();
	peer = rcu_dereference(port->peer);
	if (!peer || !netif_running(peer->netdev) ||
	    !netif_carrier_ok(dev))
		goto drop;

	atomic64_inc(&port->tx_packets);
	atomic64_add(skb->len, &port->tx_bytes);

	if (!skb_frags_readable(skb)) {
		unsigned int payload = skb->data_len;

		skb = hdsim_tx_fetch(port->hdev, skb);
		if (!skb) {
			atomic64_inc(&port->tx_dropped);
			goto out;
		}
		atomic64_add(payload, &port->tx_devmem_bytes);
	}

	if (!skb_is_gso(skb)) {
		hdsim_wire_xmit(dev, peer, skb);
		goto out;
	}

	/* TSO: the device cuts the frame into MSS-sized segments. */
	segs = skb_gso_segment(skb, dev->features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs))
		goto drop;
	consume_skb(skb);
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		hdsim_wire_xmit(dev, peer, seg);
	}
out:
	rcu_read_unlock();
	return NETDEV_TX_OK;

drop:
	rcu_read_unlock();
	atomic64_inc(&port->tx_dropped);
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

int hdsim_rq_mem_alloc(struct hdsim_port *port, unsigned int idx,
		       struct hdsim_rq_mem *mem)
{
	struct page_pool_params pp = {
		.flags		= PP_FLAG_DMA_MAP | PP_FLAG_PAGE_FRAG,
		.order		= 0,
		.pool_size	= port->rx_ring_size,
		.nid		= NUMA_NO_NODE,
		.dev		= &port->hdev->dev,
		.dma_dir	= DMA_FROM_DEVICE,
		.max_len	= PAGE_SIZE,
		.netdev		= port->netdev,
		.queue_idx	= idx,
		.napi		= &port->rq[idx].napi,
	};

	ASSERT_RTNL();

	mem->hdr_pool = page_pool_create(&pp);
	if (IS_ERR(mem->hdr_pool))
		return PTR_ERR(mem->hdr_pool);

	/* Only the payload pool may hold device memory, and only when the
	 * device splits headers off (they must stay readable).
	 */
	pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
	if (port->hds && !port->ignore_provider) {
		struct netdev_rx_queue *rxq = __netif_get_rx_queue(port->netdev,
								   idx);

		pp.flags |= PP_FLAG_ALLOW_UNREADABLE_NETMEM;
		/* buffers of the provider's size (rx-page-size) */
		if (!port->ignore_rx_page_size)
			pp.order = pp_mp_params_order(&rxq->mp_params);
		pp.max_len = PAGE_SIZE << pp.order;
	}
	mem->payload_pool = page_pool_create(&pp);
	if (IS_ERR(mem->payload_pool)) {
		int err = PTR_ERR(mem->payload_pool);

		page_pool_destroy(mem->hdr_pool);
		mem->hdr_pool = NULL;
		mem->payload_pool = NULL;
		return err;
	}

	return 0;
}

void hdsim_rq_mem_free(struct hdsim_rq_mem *mem)
{
	page_pool_destroy(mem->payload_pool);
	page_pool_destroy(mem->hdr_pool);
	mem->payload_pool = NULL;
	mem->hdr_pool = NULL;
}

static void hdsim_rq_start(struct hdsim_rq *rq, struct hdsim_rq_mem *mem)
{
	rq->mem = *mem;
	memset(mem, 0, sizeof(*mem));
	napi_enable(&rq->napi);
	/* frames may have arrived while the queue was stopped */
	napi_schedule(&rq->napi);
}

static void hdsim_rq_stop(struct hdsim_rq *rq, struct hdsim_rq_mem *mem)
{
	napi_disable(&rq->napi);
	/* the last poll may have spent its budget with an aggregate open */
	hdsim_hw_gro_discard(rq);
	*mem = rq->mem;
	memset(&rq->mem, 0, sizeof(rq->mem));
}

static void hdsim_update_carrier(struct hdsim_port *port)
{
	struct hdsim_port *peer = rtnl_dereference(port->peer);

	if (peer && netif_running(port->netdev) &&
	    netif_running(peer->netdev)) {
		netif_carrier_on(port->netdev);
		netif_carrier_on(peer->netdev);
		netif_tx_wake_all_queues(port->netdev);
		netif_tx_wake_all_queues(peer->netdev);
	} else {
		netif_carrier_off(port->netdev);
		if (peer)
			netif_carrier_off(peer->netdev);
	}
}

static int hdsim_open(struct net_device *dev)
{
	struct hdsim_port *port = netdev_priv(dev);
	struct hdsim_rq_mem mem;
	unsigned int i;
	int err;

	for (i = 0; i < port->hdev->num_queues; i++) {
		err = hdsim_rq_mem_alloc(port, i, &mem);
		if (err)
			goto err_stop_queues;
		hdsim_rq_start(&port->rq[i], &mem);
	}

	netif_tx_start_all_queues(dev);
	hdsim_update_carrier(port);
	return 0;

err_stop_queues:
	while (i--) {
		hdsim_rq_stop(&port->rq[i], &mem);
		hdsim_rq_mem_free(&mem);
	}
	return err;
}

static int hdsim_stop(struct net_device *dev)
{
	struct hdsim_port *port = netdev_priv(dev);
	struct hdsim_rq_mem mem;
	unsigned int i;

	netif_tx_stop_all_queues(dev);
	hdsim_update_carrier(port);

	for (i = 0; i < port->hdev->num_queues; i++) {
		hdsim_rq_stop(&port->rq[i], &mem);
		skb_queue_purge(&port->rq[i].ring);
		hdsim_rq_mem_free(&mem);
	}
	return 0;
}

static void hdsim_get_stats64(struct net_device *dev,
			      struct rtnl_link_stats64 *stats)
{
	struct hdsim_port *port = netdev_priv(dev);
	unsigned int i;

	stats->tx_packets = atomic64_read(&port->tx_packets);
	stats->tx_bytes = atomic64_read(&port->tx_bytes);
	stats->tx_dropped = atomic64_read(&port->tx_dropped);
	for (i = 0; i < port->hdev->num_queues; i++) {
		const struct hdsim_rq_stats *s = &port->rq[i].stats;

		stats->rx_packets += READ_ONCE(s->packets);
		stats->rx_bytes += READ_ONCE(s->bytes);
		stats->rx_dropped += READ_ONCE(s->alloc_fail) +
				     READ_ONCE(s->fault_drop) +
				     READ_ONCE(s->gro_hw_discarded) +
				     atomic64_read(&s->ring_full);
		stats->rx_crc_errors += READ_ONCE(s->csum_err);
	}
}

static int hdsim_change_mtu(struct net_device *dev, int new_mtu)
{
	dev->mtu = new_mtu;
	return 0;
}

static int hdsim_set_features(struct net_device *dev,
			      netdev_features_t features)
{
	struct hdsim_port *port = netdev_priv(dev);

	/* Turning ntuple filtering off drops the rules, as NICs do. */
	if ((dev->features & NETIF_F_NTUPLE) && !(features & NETIF_F_NTUPLE)) {
		spin_lock_bh(&port->steer_lock);
		memset(port->rules, 0, sizeof(port->rules));
		port->rule_cnt = 0;
		spin_unlock_bh(&port->steer_lock);
	}
	return 0;
}

static void hdsim_uninit(struct net_device *dev)
{
	struct hdsim_port *port = netdev_priv(dev);
	struct hdsim_port *peer = rtnl_dereference(port->peer);

	if (peer) {
		RCU_INIT_POINTER(peer->peer, NULL);
		netif_carrier_off(peer->netdev);
	}
	RCU_INIT_POINTER(port->peer, NULL);
	port->hdev->ports[port->port_idx] = NULL;
	debugfs_remove_recursive(port->ddir);
}

static const struct net_device_ops hdsim_netdev_ops = {
	.ndo_uninit		= hdsim_uninit,
	.ndo_open		= hdsim_open,
	.ndo_stop		= hdsim_stop,
	.ndo_start_xmit		= hdsim_start_xmit,
	.ndo_get_stats64	= hdsim_get_stats64,
	.ndo_change_mtu		= hdsim_change_mtu,
	.ndo_set_features	= hdsim_set_features,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

/* Queue restart: a new pair of pools for one queue, the rest untouched. */

static int hdsim_queue_mem_alloc(struct net_device *dev, void *per_q_mem,
				 int idx)
{
	return hdsim_rq_mem_alloc(netdev_priv(dev), idx, per_q_mem);
}

static void hdsim_queue_mem_free(struct net_device *dev, void *per_q_mem)
{
	hdsim_rq_mem_free(per_q_mem);
}

static int hdsim_queue_start(struct net_device *dev, void *per_q_mem, int idx)
{
	struct hdsim_port *port = netdev_priv(dev);

	hdsim_rq_start(&port->rq[idx], per_q_mem);
	return 0;
}

static int hdsim_queue_stop(struct net_device *dev, void *per_q_mem, int idx)
{
	struct hdsim_port *port = netdev_priv(dev);

	hdsim_rq_stop(&port->rq[idx], per_q_mem);
	return 0;
}

/* A device's copy of these carries its own rx_buf_size_max (new_device). */
const struct netdev_queue_mgmt_ops hdsim_queue_mgmt_ops = {
	.ndo_queue_mem_size	= sizeof(struct hdsim_rq_mem),
	.ndo_queue_mem_alloc	= hdsim_queue_mem_alloc,
	.ndo_queue_mem_free	= hdsim_queue_mem_free,
	.ndo_queue_start	= hdsim_queue_start,
	.ndo_queue_stop		= hdsim_queue_stop,
	.rx_buf_size_max	= HDSIM_RX_BUF_MAX,
};

static void hdsim_dellink(struct net_device *dev, struct list_head *head)
{
	unregister_netdevice_queue(dev, head);
}

/* Lets `ip link del` remove one port; ports are created through sysfs. */
struct rtnl_link_ops hdsim_link_ops = {
	.kind		= DRV_NAME,
	.dellink	= hdsim_dellink,
};

static void hdsim_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &hdsim_netdev_ops;
	dev->ethtool_ops = &hdsim_ethtool_ops;
	dev->rtnl_link_ops = &hdsim_link_ops;
	dev->needs_free_netdev = true;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = HDSIM_MAX_MTU;
	dev->hw_features = NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_RXCSUM |
			   NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_GRO |
			   NETIF_F_NTUPLE;
	/* packing needs the TCP stack to complete its aggregates */
	if (IS_ENABLED(CONFIG_INET))
		dev->hw_features |= NETIF_F_GRO_HW;
	/* off by default: one frame, one skb, as before packing existed */
	dev->features = dev->hw_features & ~(NETIF_F_NTUPLE | NETIF_F_GRO_HW);
	dev->vlan_features = dev->features;
	/* netmem TX: the DMA engine fetches payload from bind-tx net_iovs
	 * by their DMA address (hdsim_tx_fetch())
	 */
	dev->netmem_tx = 1;
}

/* debugfs queue_restart: write a queue index to restart that queue
 * through the core (new pools, the other queues and the link untouched).
 */
static ssize_t hdsim_queue_restart_write(struct file *file,
					 const char __user *ubuf, size_t count,
					 loff_t *ppos)
{
	struct hdsim_port *port = file->private_data;
	unsigned int idx;
	int err;

	err = kstrtouint_from_user(ubuf, count, 0, &idx);
	if (err)
		return err;

	rtnl_lock();
	if (!netif_device_present(port->netdev) ||
	    idx >= port->netdev->real_num_rx_queues)
		err = -EINVAL;
	else
		err = netdev_rx_queue_restart(port->netdev, idx);
	rtnl_unlock();

	return err ?: count;
}

static const struct file_operations hdsim_queue_restart_fops = {
	.open	= simple_open,
	.write	= hdsim_queue_restart_write,
	.owner	= THIS_MODULE,
};

/* rx_pools: per queue, the flags its payload pool ended up with (the core
 * drops DMA_SYNC_DEV on a provider-backed pool) and whether it is.
 */
static int hdsim_rx_pools_show(struct seq_file *seq, void *v)
{
	struct hdsim_port *port = seq->private;
	unsigned int q;

	rtnl_lock();
	for (q = 0; q < port->hdev->num_queues; q++) {
		const struct page_pool *pp = port->rq[q].mem.payload_pool;

		if (!pp)
			continue;
		seq_printf(seq, "queue %u dma_sync_dev %d unreadable %d buf_size %lu\n",
			   q, !!(pp->p.flags & PP_FLAG_DMA_SYNC_DEV),
			   page_pool_is_unreadable(pp),
			   PAGE_SIZE << pp->p.order);
	}
	rtnl_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hdsim_rx_pools);

static void hdsim_debugfs_port(struct hdsim_port *port)
{
	char name[16];

	snprintf(name, sizeof(name), "port%u", port->port_idx);
	port->ddir = debugfs_create_dir(name, port->hdev->ddir);
	debugfs_create_u32("fault_corrupt_csum_every", 0600, port->ddir,
			   &port->fault_corrupt_csum_every);
	debugfs_create_u32("fault_drop_every", 0600, port->ddir,
			   &port->fault_drop_every);
	debugfs_create_u32("gro_hw_sessions", 0600, port->ddir,
			   &port->gro_hw_sessions);
	debugfs_create_bool("ignore_provider", 0600, port->ddir,
			    &port->ignore_provider);
	debugfs_create_bool("ignore_rx_page_size", 0600, port->ddir,
			    &port->ignore_rx_page_size);
	debugfs_create_file("queue_restart", 0200, port->ddir, port,
			    &hdsim_queue_restart_fops);
	debugfs_create_file("rx_pools", 0400, port->ddir, port,
			    &hdsim_rx_pools_fops);
}

int hdsim_port_create(struct hdsim_dev *hdev, unsigned int port_idx)
{
	struct net_device *dev;
	struct hdsim_port *port;
	unsigned int i;
	int err;

	dev = alloc_netdev_mqs(sizeof(*port), "eth%d", NET_NAME_ENUM,
			       hdsim_setup, hdev->num_queues, hdev->num_queues);
	if (!dev)
		return -ENOMEM;

	port = netdev_priv(dev);
	port->netdev = dev;
	port->hdev = hdev;
	port->port_idx = port_idx;
	port->rx_ring_size = HDSIM_RING_DEF;
	port->tx_ring_size = HDSIM_RING_DEF;
	spin_lock_init(&port->steer_lock);
	port->gro_hw_sessions = HDSIM_GRO_HW_SESSIONS_DEF;
	for (i = 0; i < hdev->num_queues; i++) {
		struct hdsim_rq *rq = &port->rq[i];

		rq->port = port;
		rq->idx = i;
		skb_queue_head_init(&rq->ring);
		netif_napi_add(dev, &rq->napi, hdsim_napi_poll);
		netif_queue_set_napi(dev, i, NETDEV_QUEUE_TYPE_RX, &rq->napi);
	}
	hdsim_ethtool_init(port);

	SET_NETDEV_DEV(dev, &hdev->dev);
	dev->queue_mgmt_ops = &hdev->queue_mgmt_ops;
	dev->dev_port = port_idx;
	eth_hw_addr_random(dev);
	netif_carrier_off(dev);

	rtnl_lock();
	err = register_netdevice(dev);
	if (!err) {
		hdev->ports[port_idx] = port;
		hdsim_debugfs_port(port);
	}
	rtnl_unlock();
	if (err)
		goto err_free_netdev;

	return 0;

err_free_netdev:
	free_netdev(dev);
	return err;
}

/* Both ports exist: wire them to each other. */
void hdsim_link_ports(struct hdsim_dev *hdev)
{
	rtnl_lock();
	if (hdev->ports[0] && hdev->ports[1]) {
		rcu_assign_pointer(hdev->ports[0]->peer, hdev->ports[1]);
		rcu_assign_pointer(hdev->ports[1]->peer, hdev->ports[0]);
		hdsim_update_carrier(hdev->ports[0]);
	}
	rtnl_unlock();
}

/* Context: RTNL held. */
void hdsim_port_destroy(struct hdsim_port *port)
{
	ASSERT_RTNL();
	unregister_netdevice(port->netdev);
}
