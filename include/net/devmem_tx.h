/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device memory TX: what the socket layer asks of a bind-tx binding
 * (net/core/devmem_tx.c).
 */
#ifndef _NET_DEVMEM_TX_H
#define _NET_DEVMEM_TX_H

#include <linux/err.h>
#include <linux/types.h>

struct iov_iter;
struct net_devmem_dmabuf_binding;
struct net_device;
struct sk_buff;
struct sock;

#if IS_ENABLED(CONFIG_NET_DEVMEM)
struct net_devmem_dmabuf_binding *
net_devmem_get_tx_binding(struct sock *sk, u32 id,
			  const struct iov_iter *from);
int net_devmem_tx_check_route(struct sock *sk,
			      const struct net_devmem_dmabuf_binding *binding);
void net_devmem_tx_binding_put(struct net_devmem_dmabuf_binding *binding);
bool net_devmem_tx_can_append(const struct sk_buff *skb,
			      const struct net_devmem_dmabuf_binding *binding);
int net_devmem_fill_skb(struct sock *sk, struct sk_buff *skb,
			struct iov_iter *from, size_t length,
			struct net_devmem_dmabuf_binding *binding);
bool net_devmem_skb_tx_ok(const struct sk_buff *skb,
			  const struct net_device *dev);
#else
static inline struct net_devmem_dmabuf_binding *
net_devmem_get_tx_binding(struct sock *sk, u32 id,
			  const struct iov_iter *from)
{
	return ERR_PTR(-EINVAL);
}

static inline int
net_devmem_tx_check_route(struct sock *sk,
			  const struct net_devmem_dmabuf_binding *binding)
{
	return -EINVAL;
}

static inline void
net_devmem_tx_binding_put(struct net_devmem_dmabuf_binding *binding)
{
}

static inline bool
net_devmem_tx_can_append(const struct sk_buff *skb,
			 const struct net_devmem_dmabuf_binding *binding)
{
	return true;
}

static inline int
net_devmem_fill_skb(struct sock *sk, struct sk_buff *skb,
		    struct iov_iter *from, size_t length,
		    struct net_devmem_dmabuf_binding *binding)
{
	return -EFAULT;
}

static inline bool net_devmem_skb_tx_ok(const struct sk_buff *skb,
					const struct net_device *dev)
{
	return false;
}
#endif

#endif /* _NET_DEVMEM_TX_H */
