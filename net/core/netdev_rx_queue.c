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
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>

#include "page_pool_priv.h"

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

	if (!qops || !qops->ndo_queue_mem_alloc || !qops->ndo_queue_mem_free ||
	    !qops->ndo_queue_start || !qops->ndo_queue_stop)
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
