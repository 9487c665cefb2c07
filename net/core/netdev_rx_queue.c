// SPDX-License-Identifier: GPL-2.0
/*
 * Restart a single RX queue on new memory, through the driver's
 * netdev_queue_mgmt_ops. Used to install and remove memory providers
 * without disturbing the other queues or the link.
 *
 * What drivers call is exported in the NETDEV_INTERNAL namespace, as
 * upstream exports its queue API: a driver module imports it with
 * MODULE_IMPORT_NS(NETDEV_INTERNAL).
 */
#include <linux/ethtool_netlink.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool/memory_provider.h>

#include "page_pool_priv.h"

/**
 * netif_rxq_restartable() - whether the driver can restart one RX queue
 * @dev: device
 *
 * Return: true if the driver has all four queue management ops.
 */
bool netif_rxq_restartable(const struct net_device *dev)
{
	const struct netdev_queue_mgmt_ops *qops = dev->queue_mgmt_ops;

	return qops && qops->ndo_queue_mem_alloc && qops->ndo_queue_mem_free &&
	       qops->ndo_queue_start && qops->ndo_queue_stop;
}

/**
 * netif_mp_check_buf_size() - whether a device's queues take a buffer size
 * @dev: device with queue management ops
 * @size: bytes per provider buffer, a power of two; 0 means PAGE_SIZE
 * @extack: netlink extended ack
 *
 * Buffers above PAGE_SIZE need the driver's opt-in (rx_buf_size_max in
 * its queue management ops).
 *
 * Return: 0, -EOPNOTSUPP if the driver takes only PAGE_SIZE, or -EINVAL
 * if @size is above the driver's maximum.
 */
int netif_mp_check_buf_size(const struct net_device *dev, u32 size,
			    struct netlink_ext_ack *extack)
{
	const struct netdev_queue_mgmt_ops *qops = dev->queue_mgmt_ops;

	if (size <= PAGE_SIZE)
		return 0;
	if (qops->rx_buf_size_max <= PAGE_SIZE) {
		NL_SET_ERR_MSG(extack, "Device does not support rx-page-size above PAGE_SIZE");
		return -EOPNOTSUPP;
	}
	if (size > qops->rx_buf_size_max) {
		NL_SET_ERR_MSG(extack, "rx-page-size above the device's maximum");
		return -EINVAL;
	}

	return 0;
}

/**
 * netdev_rx_queue_restart() - reallocate and restart one RX queue
 * @dev: device
 * @rxq_idx: queue to restart
 *
 * The new memory is allocated before the old queue is stopped, so a
 * failed allocation leaves the queue as it was. If the new queue fails to
 * start, the old one is started again. A device that is down only gets
 * the new params recorded: its queues pick them up on open.
 *
 * Context: RTNL held.
 * Return: 0, -EOPNOTSUPP if the driver cannot restart queues, -ENODEV if
 * the device is detached, -ENODATA if the queue has a memory provider but
 * the driver did not use it, or the driver's error.
 */
int netdev_rx_queue_restart(struct net_device *dev, unsigned int rxq_idx)
{
	const struct netdev_queue_mgmt_ops *qops = dev->queue_mgmt_ops;
	void *new_mem, *old_mem;
	int err;

	ASSERT_RTNL();

	if (!netif_rxq_restartable(dev))
		return -EOPNOTSUPP;

	if (rxq_idx >= dev->real_num_rx_queues)
		return -EINVAL;

	if (!netif_running(dev))
		return 0;

	/* Detached: PCI error recovery or system sleep has the device down
	 * with IFF_UP still set. Nothing may program it until it attaches
	 * again; a driver that detaches then gives its queues the memory
	 * their params ask for (e1000e_rx_pool_reconcile()). Drivers detach
	 * and attach under RTNL, so this holds for the whole restart.
	 */
	if (!netif_device_present(dev))
		return -ENODEV;

	new_mem = kvzalloc(qops->ndo_queue_mem_size, GFP_KERNEL);
	if (!new_mem)
		return -ENOMEM;

	old_mem = kvzalloc(qops->ndo_queue_mem_size, GFP_KERNEL);
	if (!old_mem) {
		err = -ENOMEM;
		goto err_free_new_mem;
	}

	err = qops->ndo_queue_mem_alloc(dev, new_mem, rxq_idx);
	if (err)
		goto err_free_old_mem;

	err = page_pool_check_memory_provider(dev, rxq_idx);
	if (err)
		goto err_free_new_queue_mem;

	err = qops->ndo_queue_stop(dev, old_mem, rxq_idx);
	if (err)
		goto err_free_new_queue_mem;

	err = qops->ndo_queue_start(dev, new_mem, rxq_idx);
	if (err)
		goto err_start_old_queue;

	qops->ndo_queue_mem_free(dev, old_mem);

	kvfree(old_mem);
	kvfree(new_mem);

	return 0;

err_start_old_queue:
	/* The old memory is intact: put the queue back on it. */
	if (qops->ndo_queue_start(dev, old_mem, rxq_idx))
		netdev_err(dev,
			   "failed to restart old queue in error path, RX queue %u may be unhealthy\n",
			   rxq_idx);
err_free_new_queue_mem:
	qops->ndo_queue_mem_free(dev, new_mem);
err_free_old_mem:
	kvfree(old_mem);
err_free_new_mem:
	kvfree(new_mem);

	return err;
}
EXPORT_SYMBOL_NS_GPL(netdev_rx_queue_restart, NETDEV_INTERNAL);

/* A provider hands the NIC buffers for payload only: the device must be
 * told to split headers off, whatever it happens to do now ("auto" is
 * refused even where the driver splits), and to put every payload byte
 * in the provider's buffers (hds-thresh 0). ethtool refuses to take
 * either back while a queue has a provider.
 */
static int netif_mp_check_header_split(struct net_device *dev,
				       struct netlink_ext_ack *extack)
{
	if (dev->cfg->hds_config != ETHTOOL_TCP_DATA_SPLIT_ENABLED) {
		NL_SET_ERR_MSG(extack, "tcp-data-split is disabled");
		return -EINVAL;
	}
	if (dev->cfg->hds_thresh) {
		NL_SET_ERR_MSG(extack, "hds-thresh is not zero");
		return -EINVAL;
	}

	return 0;
}

/**
 * netif_mp_check_rxq() - may one RX queue take a memory provider now?
 * @dev: device
 * @rxq_idx: RX queue index
 * @rx_page_size: the provider's buffer size (0 for PAGE_SIZE)
 * @extack: netlink extended ack, set on every failure
 *
 * The one place that decides whether a queue may take a provider, for
 * every provider. Checked in this order: the queue exists (-ERANGE), the
 * driver restarts queues (-EOPNOTSUPP), headers are split off
 * (tcp-data-split enabled, hds-thresh 0; -EINVAL), no XDP program
 * (-EEXIST), the buffer size suits the driver (see
 * netif_mp_check_buf_size()), no provider on the queue yet (-EEXIST), no
 * AF_XDP pool on it (-EBUSY). A caller may ask before it prepares its
 * provider (bind-rx: before it maps a dmabuf for nothing); the answer
 * holds for as long as it keeps RTNL.
 *
 * Context: RTNL held.
 * Return: 0, or the negative errno netif_mp_open_rxq() would return.
 */
int netif_mp_check_rxq(struct net_device *dev, unsigned int rxq_idx,
		       u32 rx_page_size, struct netlink_ext_ack *extack)
{
	struct netdev_rx_queue *rxq;
	int err;

	ASSERT_RTNL();

	if (rxq_idx >= dev->real_num_rx_queues) {
		NL_SET_ERR_MSG(extack, "rx queue index out of range");
		return -ERANGE;
	}
	if (!netif_rxq_restartable(dev)) {
		NL_SET_ERR_MSG(extack, "Device cannot restart RX queues (no queue management ops)");
		return -EOPNOTSUPP;
	}
	err = netif_mp_check_header_split(dev, extack);
	if (err)
		return err;
	if (dev_xdp_prog_count(dev)) {
		NL_SET_ERR_MSG(extack,
			       "unable to custom memory provider to device with XDP program attached");
		return -EEXIST;
	}
	err = netif_mp_check_buf_size(dev, rx_page_size, extack);
	if (err)
		return err;

	rxq = __netif_get_rx_queue(dev, rxq_idx);
	if (rxq->mp_params.mp_ops) {
		NL_SET_ERR_MSG(extack, "designated queue already memory provider bound");
		return -EEXIST;
	}
#ifdef CONFIG_XDP_SOCKETS
	if (rxq->pool) {
		NL_SET_ERR_MSG(extack, "designated queue already in use by AF_XDP");
		return -EBUSY;
	}
#endif

	return 0;
}

/**
 * netif_mp_open_rxq() - install a memory provider on one RX queue
 * @dev: device
 * @rxq_idx: RX queue index
 * @p: the provider: @p->mp_ops and @p->mp_priv set, @p->rx_page_size its
 *	buffer size (0 for PAGE_SIZE)
 * @extack: netlink extended ack, set on every failure
 *
 * If netif_mp_check_rxq() allows it, the params are recorded on the
 * queue and the queue restarts on the provider's memory; a driver that
 * builds no pool from them fails with -ENODATA.
 *
 * Context: RTNL held.
 * Return: 0, or a negative errno with the queue as it was.
 */
int netif_mp_open_rxq(struct net_device *dev, unsigned int rxq_idx,
		      const struct pp_memory_provider_params *p,
		      struct netlink_ext_ack *extack)
{
	struct netdev_rx_queue *rxq;
	int err;

	err = netif_mp_check_rxq(dev, rxq_idx, p->rx_page_size, extack);
	if (err)
		return err;

	rxq = __netif_get_rx_queue(dev, rxq_idx);
	rxq->mp_params = *p;
	err = netdev_rx_queue_restart(dev, rxq_idx);
	if (err) {
		if (err == -ENODATA)
			NL_SET_ERR_MSG(extack, "Driver did not back the queue with the provider");
		else
			NL_SET_ERR_MSG(extack, "Failed to restart the RX queue");
		memset(&rxq->mp_params, 0, sizeof(rxq->mp_params));
	}

	return err;
}

/**
 * netif_mp_close_rxq() - take a memory provider off one RX queue
 * @dev: device
 * @rxq_idx: RX queue index
 * @old_p: the provider as netif_mp_open_rxq() installed it
 *
 * The queue restarts on host memory; its old pools live on until the
 * provider's buffers come back. Nothing happens if the queue no longer
 * holds @old_p's provider: device unregister uninstalls every provider
 * (dev_memory_provider_uninstall()) before the owner gets to close.
 *
 * Context: RTNL held.
 * Return: false if the restart failed and the queue still runs on the
 * provider's pools: the device may still write the provider's memory,
 * which must stay mapped until the queue's next restart or the device's
 * unregister. True otherwise, the queue detached included (it restarts
 * on host memory when it attaches).
 */
bool netif_mp_close_rxq(struct net_device *dev, unsigned int rxq_idx,
			const struct pp_memory_provider_params *old_p)
{
	struct netdev_rx_queue *rxq;
	int err;

	ASSERT_RTNL();

	if (rxq_idx >= dev->real_num_rx_queues)
		return true;
	rxq = __netif_get_rx_queue(dev, rxq_idx);
	if (rxq->mp_params.mp_ops != old_p->mp_ops ||
	    rxq->mp_params.mp_priv != old_p->mp_priv)
		return true;

	memset(&rxq->mp_params, 0, sizeof(rxq->mp_params));
	err = netdev_rx_queue_restart(dev, rxq_idx);
	if (err == -ENODEV) {
		/* the driver reconciles its queues on attach */
		netdev_info(dev, "RX queue %u unbound while detached, restarts on attach\n",
			    rxq_idx);
		return true;
	}
	if (err) {
		netdev_err(dev, "failed to restart RX queue %u after its memory provider left: %d\n",
			   rxq_idx, err);
		return false;
	}
	return true;
}

/**
 * dev_get_min_mp_channel_count() - fewest RX channels that keep the providers
 * @dev: device
 *
 * A driver that changes its channel count or restarts all its queues
 * (e1000e on an MTU change) asks whether a memory provider is installed
 * on a queue it would take away or rebuild.
 *
 * Context: RTNL held.
 * Return: one more than the highest RX queue index with a memory provider
 * installed, or 0 if no queue has one.
 */
unsigned int dev_get_min_mp_channel_count(const struct net_device *dev)
{
	unsigned int i;

	ASSERT_RTNL();

	for (i = dev->real_num_rx_queues; i > 0; i--)
		if (dev->_rx[i - 1].mp_params.mp_ops)
			return i;

	return 0;
}
EXPORT_SYMBOL_NS_GPL(dev_get_min_mp_channel_count, NETDEV_INTERNAL);

void dev_memory_provider_uninstall(struct net_device *dev)
{
	unsigned int i;

	ASSERT_RTNL();

	for (i = 0; i < dev->real_num_rx_queues; i++) {
		struct netdev_rx_queue *rxq = &dev->_rx[i];
		struct pp_memory_provider_params *p = &rxq->mp_params;

		if (p->mp_ops && p->mp_ops->uninstall)
			p->mp_ops->uninstall(p->mp_priv, rxq);
		memset(p, 0, sizeof(*p));
	}
}
