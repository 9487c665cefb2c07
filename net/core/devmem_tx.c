// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory TCP, TX: send from a bind-tx binding (include/net/devmem_tx.h).
 *
 * sendmsg(MSG_ZEROCOPY) with an SCM_DEVMEM_DMABUF control message names
 * a bind-tx binding; its iovec holds byte offsets into the dmabuf, not
 * addresses. The socket layer adds those ranges to its skbs as net_iov
 * frags (never reading them), and the device's driver maps each frag to
 * the DMA address the binding's mapping gives it (skb_frag_dma_map()).
 *
 * Lifetime: every frag holds a reference on its binding, so the mapping
 * lives until the last skb sending from it was freed, after unbind
 * (socket close) and after the device was unregistered. The device
 * pointer is read locklessly here: net/core/devmem.c clears it with
 * WRITE_ONCE() under RTNL when the device goes.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/skbuff.h>
#include <linux/uio.h>
#include <net/devmem_tx.h>
#include <net/dst.h>
#include <net/inet_connection_sock.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "devmem.h"

/* Bytes of the dmabuf that have net_iovs (all of it, in practice). */
static size_t net_devmem_mapped_bytes(const struct net_devmem_dmabuf_binding *binding)
{
	return (size_t)binding->area.num_niovs << binding->area.shift;
}

/**
 * net_devmem_get_net_iov() - an skb frag takes a TX net_iov
 * @niov: net_iov of a bind-tx binding
 *
 * The frag holds a reference on the binding: its mapping stays until
 * every skb sending from it was freed (completed), whatever happens to
 * the netlink socket that made it.
 */
void net_devmem_get_net_iov(struct net_iov *niov)
{
	net_devmem_dmabuf_binding_get(net_iov_binding(niov));
}
EXPORT_SYMBOL(net_devmem_get_net_iov);

/**
 * net_devmem_put_net_iov() - an skb frag lets go of a TX net_iov
 * @niov: net_iov of a bind-tx binding
 *
 * Context: any; the last reference frees the binding from a work item.
 */
void net_devmem_put_net_iov(struct net_iov *niov)
{
	net_devmem_dmabuf_binding_put(net_iov_binding(niov));
}
EXPORT_SYMBOL(net_devmem_put_net_iov);

/* May the task sending on @sk send from @binding? Its creator may: a task
 * with the effective uid and the user namespace of the one that sent
 * bind-tx, in the network namespace bind-tx was sent in, and sending on a
 * socket of that namespace. Anyone else needs CAP_NET_ADMIN over that
 * namespace, the device's. The ids are global and small: without this,
 * any local user could send another user's device memory.
 */
static bool net_devmem_tx_allowed(const struct net_devmem_dmabuf_binding *binding,
				  const struct sock *sk)
{
	const struct cred *creator = binding->tx_cred;
	struct nsproxy *nsproxy = current->nsproxy;
	const struct cred *cred = current_cred();
	struct net *net = sock_net(sk);

	if (net->net_cookie != binding->tx_net_cookie)
		return false;
	if (nsproxy && nsproxy->net_ns == net &&
	    uid_eq(cred->euid, creator->euid) &&
	    cred->user_ns == creator->user_ns)
		return true;
	return ns_capable(net->user_ns, CAP_NET_ADMIN);
}

/**
 * net_devmem_get_tx_binding() - the binding a devmem sendmsg() names
 * @sk: the sending socket, locked
 * @id: binding id from the SCM_DEVMEM_DMABUF control message
 * @from: the message's data: byte offsets and lengths in the dmabuf
 *
 * The route is checked once the connection is made:
 * net_devmem_tx_check_route().
 *
 * Return: the binding, with a reference for the duration of the call;
 * ERR_PTR(-EINVAL) if @id is no live bind-tx binding (an RX binding's id
 * included) or one the calling task may not send from (the same errno:
 * ids cannot be probed), -EFAULT if @from is not a plain iovec or
 * reaches past the end of the dmabuf.
 */
struct net_devmem_dmabuf_binding *
net_devmem_get_tx_binding(struct sock *sk, u32 id, const struct iov_iter *from)
{
	struct net_devmem_dmabuf_binding *binding;
	unsigned long i;
	size_t size;
	int err;

	sock_owned_by_me(sk);

	binding = net_devmem_lookup_dmabuf(id);
	if (!binding)
		return ERR_PTR(-EINVAL);
	/* before any other check: a foreign id looks like an unknown one */
	if (binding->direction != DMA_TO_DEVICE ||
	    !net_devmem_tx_allowed(binding, sk)) {
		err = -EINVAL;
		goto err_put;
	}

	if (!iter_is_iovec(from)) {
		err = -EFAULT;
		goto err_put;
	}
	size = net_devmem_mapped_bytes(binding);
	for (i = 0; i < from->nr_segs; i++) {
		unsigned long off = (unsigned long)from->iov[i].iov_base;

		if (off >= size || from->iov[i].iov_len > size - off) {
			err = -EFAULT;
			goto err_put;
		}
	}

	return binding;

err_put:
	net_devmem_dmabuf_binding_put(binding);
	return ERR_PTR(err);
}

/**
 * net_devmem_tx_check_route() - may the connection's route carry @binding?
 * @sk: the sending socket, locked, connected
 * @binding: from net_devmem_get_tx_binding()
 *
 * The cached route is checked first and looked up again if it was reset
 * (a new TOS, a device bound, negative advice) or went stale (any route
 * change), as the next transmit would: a stale route could name the
 * binding's device when the next transmit leaves through another. Called
 * once the connection is made, so that a send on a socket whose
 * connection is gone fails as any send does (EPIPE, ENOTCONN, the
 * socket's error), not with a routing error.
 *
 * Return: 0; -EHOSTUNREACH without a route, -ENODEV if the route leaves
 * through another device than the binding's, -EOPNOTSUPP if it passes an
 * IPsec transform.
 */
int net_devmem_tx_check_route(struct sock *sk,
			      const struct net_devmem_dmabuf_binding *binding)
{
	struct dst_entry *dst;

	sock_owned_by_me(sk);

	/* checks the cached route, cheap while it holds */
	if (inet_csk(sk)->icsk_af_ops->rebuild_header(sk))
		return -EHOSTUNREACH;
	dst = __sk_dst_get(sk);
	if (!dst || !dst->dev)
		return -EHOSTUNREACH;
	/* ESP or AH would have the CPU encrypt or hash the payload */
	if (dst_xfrm(dst))
		return -EOPNOTSUPP;
	if (dst->dev != READ_ONCE(binding->dev))
		return -ENODEV;
	return 0;
}

/**
 * net_devmem_tx_binding_put() - done sending from a binding
 * @binding: from net_devmem_get_tx_binding(), or NULL
 */
void net_devmem_tx_binding_put(struct net_devmem_dmabuf_binding *binding)
{
	if (binding)
		net_devmem_dmabuf_binding_put(binding);
}

/**
 * net_devmem_tx_can_append() - may a send add its data to this skb
 * @skb: the tail of the write queue
 * @binding: the send's binding, NULL for host memory
 *
 * An skb never mixes host and device memory, nor two bindings.
 */
bool net_devmem_tx_can_append(const struct sk_buff *skb,
			      const struct net_devmem_dmabuf_binding *binding)
{
	const struct net_iov *niov;

	if (!skb->len)
		return true;
	if (!binding)
		return skb_frags_readable(skb);
	if (skb_frags_readable(skb) || !skb_shinfo(skb)->nr_frags)
		return false;

	niov = skb_frag_net_iov(&skb_shinfo(skb)->frags[0]);
	return niov && net_iov_binding(niov) == binding;
}

/**
 * net_devmem_fill_skb() - add dmabuf ranges to an skb as net_iov frags
 * @sk: the sending socket, charged for the frags as for MSG_ZEROCOPY
 * @skb: skb to add to (no host memory frags)
 * @from: iovec of dmabuf offsets, checked by net_devmem_get_tx_binding()
 * @length: bytes to add at most
 * @binding: the bind-tx binding
 *
 * Each frag lies within one net_iov; a range continuing the last frag
 * in the same net_iov extends it. Nothing is read or mapped.
 *
 * Return: 0, -EMSGSIZE when the skb has no frag left, -EFAULT.
 */
int net_devmem_fill_skb(struct sock *sk, struct sk_buff *skb,
			struct iov_iter *from, size_t length,
			struct net_devmem_dmabuf_binding *binding)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	size_t mapped = net_devmem_mapped_bytes(binding);
	size_t added = 0;
	int i = shinfo->nr_frags;
	int err = 0;

	while (length && iov_iter_count(from)) {
		struct iovec v = iov_iter_iovec(from);
		unsigned long off = (unsigned long)v.iov_base;
		skb_frag_t *last = i ? &shinfo->frags[i - 1] : NULL;
		struct net_iov *niov;
		size_t size;

		if (off >= mapped) {
			err = -EFAULT;
			break;
		}
		niov = &binding->area.niovs[off >> PAGE_SHIFT];
		size = min_t(size_t, min(v.iov_len, length),
			     PAGE_SIZE - offset_in_page(off));

		if (last && skb_frag_net_iov(last) == niov &&
		    skb_frag_off(last) + skb_frag_size(last) == offset_in_page(off)) {
			skb_frag_size_add(last, size);
			skb->len += size;
			skb->data_len += size;
			skb->truesize += size;
		} else {
			if (i == MAX_SKB_FRAGS) {
				err = -EMSGSIZE;
				break;
			}
			net_devmem_get_net_iov(niov);
			skb_add_rx_frag_netmem(skb, i++, net_iov_to_netmem(niov),
					       offset_in_page(off), size, size);
		}
		iov_iter_advance(from, size);
		length -= size;
		added += size;
	}

	/* as __zerocopy_sg_from_iter() charges a stream socket */
	sk_wmem_queued_add(sk, added);
	if (!skb_zcopy_pure(skb))
		sk_mem_charge(sk, added);

	return err;
}

/**
 * net_devmem_skb_tx_ok() - may this device send this unreadable skb
 * @skb: skb whose frags are net_iovs
 * @dev: the device about to send it
 *
 * Only net_iovs of bind-tx bindings of @dev itself, on a device that
 * opted in to netmem TX. Device memory an RX queue wrote (forwarding,
 * redirects) and another device's TX binding are refused.
 */
bool net_devmem_skb_tx_ok(const struct sk_buff *skb,
			  const struct net_device *dev)
{
	const struct skb_shared_info *shinfo = skb_shinfo(skb);
	int i;

	if (!dev->netmem_tx || skb_has_frag_list(skb) || !shinfo->nr_frags)
		return false;

	for (i = 0; i < shinfo->nr_frags; i++) {
		const struct net_iov *niov = skb_frag_net_iov(&shinfo->frags[i]);
		const struct net_devmem_dmabuf_binding *binding;

		if (!niov || niov->pp)
			return false;
		binding = net_iov_binding(niov);
		if (binding->direction != DMA_TO_DEVICE ||
		    READ_ONCE(binding->dev) != dev)
			return false;
	}

	return true;
}
