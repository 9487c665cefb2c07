/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NET_NETDEV_RX_QUEUE_H
#define _NET_NETDEV_RX_QUEUE_H

#include <linux/netdevice.h>

struct pp_memory_provider_params;
struct sock;

/* Readers of device memory that copy what missed it (devmem_stats.c) */
enum netif_rxq_host_reader {
	NETIF_RXQ_HOST_DEVMEM,	/* recvmsg(MSG_SOCK_DEVMEM) */
	NETIF_RXQ_HOST_ZCRX,	/* io_uring RECV_ZC */
};

#if IS_ENABLED(CONFIG_NET_DEVMEM)
int netdev_rx_queue_restart(struct net_device *dev, unsigned int rxq_idx);

bool netif_rxq_restartable(const struct net_device *dev);
int netif_mp_check_buf_size(const struct net_device *dev, u32 size,
			    struct netlink_ext_ack *extack);

/* Check, install and remove a memory provider on one RX queue. */
int netif_mp_check_rxq(struct net_device *dev, unsigned int rxq_idx,
		       u32 rx_page_size, struct netlink_ext_ack *extack);
int netif_mp_open_rxq(struct net_device *dev, unsigned int rxq_idx,
		      const struct pp_memory_provider_params *p,
		      struct netlink_ext_ack *extack);
bool netif_mp_close_rxq(struct net_device *dev, unsigned int rxq_idx,
			const struct pp_memory_provider_params *old_p);

/* Lowest channel count that keeps every provider-bound RX queue. */
unsigned int dev_get_min_mp_channel_count(const struct net_device *dev);

/* The device is being unregistered: providers forget its queues. */
void dev_memory_provider_uninstall(struct net_device *dev);

void netif_rxq_host_payload(const struct sock *sk, const struct sk_buff *skb,
			    enum netif_rxq_host_reader reader, u32 bytes,
			    u32 copies);
#else
static inline int netdev_rx_queue_restart(struct net_device *dev,
					  unsigned int rxq_idx)
{
	return -EOPNOTSUPP;
}

static inline bool netif_rxq_restartable(const struct net_device *dev)
{
	return false;
}

static inline int
netif_mp_open_rxq(struct net_device *dev, unsigned int rxq_idx,
		  const struct pp_memory_provider_params *p,
		  struct netlink_ext_ack *extack)
{
	return -EOPNOTSUPP;
}

static inline bool
netif_mp_close_rxq(struct net_device *dev, unsigned int rxq_idx,
		   const struct pp_memory_provider_params *old_p)
{
	return true;
}

static inline unsigned int
dev_get_min_mp_channel_count(const struct net_device *dev)
{
	return 0;
}

static inline void dev_memory_provider_uninstall(struct net_device *dev)
{
}

static inline void
netif_rxq_host_payload(const struct sock *sk, const struct sk_buff *skb,
		       enum netif_rxq_host_reader reader, u32 bytes,
		       u32 copies)
{
}
#endif

#endif /* _NET_NETDEV_RX_QUEUE_H */
