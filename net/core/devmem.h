/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device memory TCP: dmabuf bindings (net/core internals).
 */
#ifndef _NET_CORE_DEVMEM_H
#define _NET_CORE_DEVMEM_H

#include <linux/dma-direction.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/netmem.h>

struct cred;
struct device;
struct net_devmem_owner;
struct dma_buf;
struct dma_buf_attachment;
struct netlink_ext_ack;
struct net_device;
struct sg_table;
struct user_namespace;

/**
 * struct net_devmem_dmabuf_binding - a dmabuf bound to a device
 * @dmabuf: the dmabuf; the binding holds a reference
 * @attachment: attachment to the device's DMA device
 * @sgt: the mapping of @attachment in @direction
 * @direction: DMA_FROM_DEVICE for bind-rx (RX queues), DMA_TO_DEVICE for
 *	bind-tx; the mapping is undone in the same direction
 * @dev: the device; NULL once it was unregistered, or (RX) unbound.
 *	Written under RTNL, read locklessly on TX.
 * @dma_dev: the device the dmabuf is mapped for (@dev's parent), held
 *	until the mapping is gone
 * @area: one net_iov per rx-page-size bytes of the dmabuf, in dmabuf
 *	order
 * @free_lock: protects @free_stack and @free_count; taken with BH off
 * @free_stack: indexes (into @area) of free net_iovs (RX only)
 * @free_count: number of entries in @free_stack
 * @ref: one for the netlink owner, one per page pool using the binding
 * @bound_rxqs: the RX queues using the binding. RTNL.
 * @id: user-visible id, from 1; 0 until it is reserved. Lookups find the
 *	binding once it is published, complete.
 * @owner: the bindings of the netlink socket that created this one, set
 *	once the binding is complete; NULL before and after. RTNL.
 * @owner_list: entry in @owner's list of bindings. RTNL.
 * @tx_cred: (TX only) the credentials of the task that sent bind-tx,
 *	held until the binding is freed; with @tx_net_cookie, who may send
 *	from the binding (net_devmem_get_tx_binding())
 * @tx_net_cookie: (TX only) the cookie of the network namespace bind-tx
 *	was sent in, the device's when the binding got its id: compared,
 *	so no reference is held
 * @free_work: final teardown, in process context
 * @kcov_handle: KCOV's common handle of the task that asked for the
 *	binding (0 without KCOV): @free_work's coverage is that task's.
 *	Set once
 * @map_dev: the device the dmabuf is mapped for, until it is unmapped
 *	(NULL after): at the final free, or when that device unregisters.
 *	Only compared. Under the lock of the list of mapped bindings.
 * @map_list: entry in the list of mapped bindings while @map_dev is set
 * @map_uid: the user the mapping counts against, from the map to the
 *	unmap (NET_DEVMEM_USER_MAX_BINDINGS), unless @map_userns is set;
 *	set once, by the task that asked for the binding
 * @map_userns: the user namespace that root made the mapping counts
 *	against instead, held from the map to the unmap; NULL for a user.
 *	Set once, with @map_uid
 */
struct net_devmem_dmabuf_binding {
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attachment;
	struct sg_table *sgt;
	enum dma_data_direction direction;
	struct net_device *dev;
	struct device *dma_dev;
	struct net_iov_area area;

	spinlock_t free_lock;	/* protects free_stack, free_count */
	u32 *free_stack;
	u32 free_count;

	refcount_t ref;
	struct xarray bound_rxqs;
	u32 id;

	struct net_devmem_owner *owner;
	struct list_head owner_list;
	const struct cred *tx_cred;
	u64 tx_net_cookie;

	struct work_struct free_work;
	u64 kcov_handle;
	struct net_device *map_dev;
	struct list_head map_list;
	kuid_t map_uid;
	struct user_namespace *map_userns;
};

int net_devmem_check_device(struct net_device *dev, u32 rx_page_size,
			    struct netlink_ext_ack *extack);
struct net_devmem_dmabuf_binding *
net_devmem_bind_dmabuf(struct net_device *dev, unsigned int dmabuf_fd,
		       u32 rx_page_size, enum dma_data_direction direction,
		       struct netlink_ext_ack *extack);
int net_devmem_reserve_id(struct net_devmem_dmabuf_binding *binding);
void net_devmem_publish_binding(struct net_devmem_dmabuf_binding *binding);
void net_devmem_discard_binding(struct net_devmem_dmabuf_binding *binding);
int net_devmem_bind_dmabuf_to_queue(struct net_device *dev, u32 rxq_idx,
				    struct net_devmem_dmabuf_binding *binding,
				    struct netlink_ext_ack *extack);
void net_devmem_unbind_dmabuf(struct net_devmem_dmabuf_binding *binding);
int net_devmem_owner_check(const struct sock *sk,
			   struct netlink_ext_ack *extack);
int net_devmem_set_owner(struct net_devmem_dmabuf_binding *binding,
			 const struct sock *sk);
void net_devmem_unbind_owned(const struct sock *sk);
bool net_devmem_owns_bindings(const struct sock *sk);
void net_devmem_dmabuf_binding_get(struct net_devmem_dmabuf_binding *binding);
void net_devmem_dmabuf_binding_put(struct net_devmem_dmabuf_binding *binding);
struct net_devmem_dmabuf_binding *net_devmem_lookup_dmabuf(u32 id);

static inline struct net_devmem_dmabuf_binding *
net_iov_binding(const struct net_iov *niov)
{
	return container_of(niov->owner, struct net_devmem_dmabuf_binding,
			    area);
}

/* Size of every net_iov of @binding: its rx-page-size. */
static inline u32
net_devmem_rx_page_size(const struct net_devmem_dmabuf_binding *binding)
{
	return 1U << binding->area.shift;
}

#endif /* _NET_CORE_DEVMEM_H */
