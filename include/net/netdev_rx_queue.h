/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NET_NETDEV_RX_QUEUE_H
#define _NET_NETDEV_RX_QUEUE_H

#include <linux/netdevice.h>

#if IS_ENABLED(CONFIG_NET_DEVMEM)
int netdev_rx_queue_restart(struct net_device *dev, unsigned int rxq_idx);

/* Lowest channel count that keeps every provider-bound RX queue. */
unsigned int dev_get_min_mp_channel_count(const struct net_device *dev);

/* The device is being unregistered: providers forget its queues. */
void dev_memory_provider_uninstall(struct net_device *dev);
#else
static inline int netdev_rx_queue_restart(struct net_device *dev,
					  unsigned int rxq_idx)
{
	return -EOPNOTSUPP;
}

static inline unsigned int
dev_get_min_mp_channel_count(const struct net_device *dev)
{
	return 0;
}

static inline void dev_memory_provider_uninstall(struct net_device *dev)
{
}
#endif

#endif /* _NET_NETDEV_RX_QUEUE_H */
