// SPDX-License-Identifier: GPL-2.0
/*
 * hdsim ports: the net_device of each port, TX onto the "wire" (the
 * peer port's RX ring), and the ports' creation and removal. The device
 * side of RX is in rx.c, the queues in queue.c, debugfs in debugfs.c.
 */
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <net/dst.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool.h>
#include <net/rtnetlink.h>

#include "hdsim.h"

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
