// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory TCP: bind a dmabuf to RX queues, or to a device for TX.
 *
 * A binding maps the dmabuf for the device, cuts the mapping into
 * net_iovs of its rx-page-size (PAGE_SIZE unless user space asked for a
 * larger power of two) and becomes the memory provider of the RX queues
 * it is bound to: their payload page pools hand out net_iovs instead of
 * host pages, so the NIC writes TCP payload straight into the dmabuf.
 * A TX binding (bind-tx) is mapped DMA_TO_DEVICE and bound to no queue;
 * its net_iovs, in dmabuf order, are what the device reads payload from.
 *
 * Lifetime: the netlink socket that created a binding owns one reference;
 * every page pool using it owns one more. Unbinding (socket close) takes
 * the queues back to host memory at once, but the mapping lives on until
 * the last pool is freed, i.e. until every net_iov came back from the
 * skbs and socket tokens holding it, or until the device unregisters,
 * whichever comes first: the device is closed by then and never reads or
 * writes the dmabuf again, while the tokens and skbs that still hold
 * net_iovs may outlive it by far (a PCI function removed under them).
 *
 * Locking, outermost first:
 *  - RTNL: a binding's device, queues and owner; the netdevice notifier
 *    runs under it.
 *  - net_devmem_mapped_lock (mutex): the list of mapped bindings, and
 *    each unmap of a listed binding; the exporter's own locks nest inside
 *    it.
 *  - net_devmem_user_maps_lock (mutex): the count of mapped bindings per
 *    user, taken by the map and, inside the above, by the unmap.
 *  - net_devmem_owners_lock (spinlock), the bindings xarray's lock and
 *    binding->free_lock (BH): innermost, nothing taken inside them.
 *
 * The free work unmaps with net_devmem_mapped_lock held: it holds no
 * reference to the device, so once the notifier has returned the driver
 * may finish its removal and the DMA device go; holding the mutex across
 * the unmap makes the notifier wait for an unmap that had begun. A
 * discarded binding is taken off the list under the mutex and unmapped
 * after it is dropped: its caller holds a reference to the device, and
 * the driver's unregister waits for that reference (netdev_wait_allrefs)
 * before the DMA device can go, so the notifier, under RTNL, never waits
 * on an exporter for it.
 */
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/hashtable.h>
#include <linux/kcov.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/stringify.h>
#include <linux/user_namespace.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>
#include <net/netlink.h>
#include <net/page_pool.h>
#include <net/page_pool/memory_provider.h>
#include <trace/events/devmem.h>
#include <uapi/linux/netdev.h>

#include "devmem.h"
#include "page_pool_priv.h"

/* All bindings, by id. Ids are global (not per netns), from 1. */
static DEFINE_XARRAY_FLAGS(net_devmem_dmabuf_bindings, XA_FLAGS_ALLOC1);
static u32 net_devmem_next_id;

static const struct memory_provider_ops dmabuf_devmem_ops;

/* Bindings whose dmabuf is still mapped, RX and TX, bound or not: the
 * netdevice notifier unmaps those of a device that unregisters. The
 * mutex orders that against the final free; both may sleep in the
 * exporter's unmap.
 */
static LIST_HEAD(net_devmem_mapped);
static DEFINE_MUTEX(net_devmem_mapped_lock);	/* the list, the unmap */

/* The exporter (or P2PDMA) refused: device memory the device cannot write */
#define NO_P2P_PATH_MSG	"No peer-to-peer DMA path between the device and the dmabuf's memory"

/* The most bindings one netlink socket may own: each pins a dmabuf and
 * keeps it mapped until the socket goes.
 */
#define NET_DEVMEM_SOCK_MAX_BINDINGS	256

/* The most bindings one user may have mapped at once, over all of their
 * sockets and namespaces, and the most a user namespace that root made
 * may have (net_devmem_charge_owner()). Each holds an attachment, the
 * exporter's sg_table and IOMMU mappings, none of them charged to a
 * memory cgroup, and bind-tx needs no privilege. CAP_SYS_RESOURCE lifts
 * the bound.
 */
#define NET_DEVMEM_USER_MAX_BINDINGS	512

/* Mapped bindings: a value entry per user, by kuid, and one per user
 * namespace that root made, by the namespace's inode number (each
 * binding charged to it holds the namespace, so no other has the number
 * while the entry exists). None at 0.
 */
static DEFINE_XARRAY(net_devmem_user_maps);
static DEFINE_XARRAY(net_devmem_userns_maps);
static DEFINE_MUTEX(net_devmem_user_maps_lock);

/* The bindings of one netlink socket, found by the socket: its release
 * unbinds them (net_devmem_unbind_owned()), and the release of a socket
 * that owns none takes no lock but this table's. @sk is only compared,
 * never dereferenced: the release removes the entry before the socket is
 * freed, so no other socket has its address while the entry exists.
 */
struct net_devmem_owner {
	struct hlist_node node;
	const struct sock *sk;
	struct list_head bindings;
	unsigned int count;
};

/* Changed under RTNL and the lock, read under the lock alone; the count
 * of entries is read without it first.
 */
static DEFINE_HASHTABLE(net_devmem_owners, 10);
static DEFINE_SPINLOCK(net_devmem_owners_lock);
static unsigned int net_devmem_nr_owners;

/* Whom the caller's bindings count against. In init_user_ns, its uid. In
 * a user namespace, the outermost ancestor below init_user_ns decides.
 * One that a user made counts against that user, whatever uids they map
 * into it and below it (their subordinate range, with newuidmap) and
 * setuid() to. One that root made, as a container runtime makes one per
 * container, counts on its own, @binding holding it: charged to root,
 * every container would share one bound, and one could use it up for
 * all the others.
 */
static void net_devmem_charge_owner(struct net_devmem_dmabuf_binding *binding)
{
	struct user_namespace *ns = current_user_ns();

	binding->map_uid = current_uid();
	binding->map_userns = NULL;
	if (ns == &init_user_ns)
		return;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	if (uid_eq(ns->owner, GLOBAL_ROOT_UID))
		binding->map_userns = get_user_ns(ns);
	else
		binding->map_uid = ns->owner;
}

/* The count @binding's mapping is charged to: its table and index. */
static struct xarray *
net_devmem_charge_slot(const struct net_devmem_dmabuf_binding *binding,
		       unsigned long *index)
{
	if (binding->map_userns) {
		*index = binding->map_userns->ns.inum;
		return &net_devmem_userns_maps;
	}
	*index = __kuid_val(binding->map_uid);
	return &net_devmem_user_maps;
}

/* Undo net_devmem_charge_owner(). */
static void net_devmem_charge_owner_put(struct net_devmem_dmabuf_binding *binding)
{
	if (binding->map_userns)
		put_user_ns(binding->map_userns);
}

/* Count one more mapping for the caller: -ENOSPC past the bound. */
static int net_devmem_user_charge(struct net_devmem_dmabuf_binding *binding,
				  struct netlink_ext_ack *extack)
{
	struct xarray *maps;
	unsigned long i, n;
	int err;

	net_devmem_charge_owner(binding);
	maps = net_devmem_charge_slot(binding, &i);

	mutex_lock(&net_devmem_user_maps_lock);
	n = xa_to_value(xa_load(maps, i) ?: xa_mk_value(0));
	if (n >= NET_DEVMEM_USER_MAX_BINDINGS && !capable(CAP_SYS_RESOURCE)) {
		if (binding->map_userns)
			NL_SET_ERR_MSG(extack,
				       "this user namespace has the most bindings one may have ("
				       __stringify(NET_DEVMEM_USER_MAX_BINDINGS) ")");
		else
			NL_SET_ERR_MSG(extack,
				       "this user has the most bindings a user may have ("
				       __stringify(NET_DEVMEM_USER_MAX_BINDINGS) ")");
		err = -ENOSPC;
	} else {
		err = xa_err(xa_store(maps, i, xa_mk_value(n + 1), GFP_KERNEL));
	}
	mutex_unlock(&net_devmem_user_maps_lock);

	if (err)
		net_devmem_charge_owner_put(binding);
	return err;
}

/* Undo net_devmem_user_charge(). */
static void net_devmem_user_uncharge(struct net_devmem_dmabuf_binding *binding)
{
	struct xarray *maps;
	unsigned long i, n;

	maps = net_devmem_charge_slot(binding, &i);
	mutex_lock(&net_devmem_user_maps_lock);
	n = xa_to_value(xa_load(maps, i) ?: xa_mk_value(0));
	if (n > 1)
		/* replacing a value entry allocates nothing */
		xa_store(maps, i, xa_mk_value(n - 1), GFP_KERNEL);
	else
		xa_erase(maps, i);
	mutex_unlock(&net_devmem_user_maps_lock);

	net_devmem_charge_owner_put(binding);
}

/* Undo net_devmem_dmabuf_map(). */
static void net_devmem_dmabuf_unmap(struct net_devmem_dmabuf_binding *binding)
{
	dma_buf_unmap_attachment_unlocked(binding->attachment, binding->sgt,
					  binding->direction);
	dma_buf_detach(binding->dmabuf, binding->attachment);
	net_devmem_user_uncharge(binding);
	put_device(binding->dma_dev);
}

/* Unmap @binding unless its device's unregister did already. */
static void net_devmem_forget_mapping(struct net_devmem_dmabuf_binding *binding)
{
	lockdep_assert_held(&net_devmem_mapped_lock);

	if (!binding->map_dev)
		return;
	list_del(&binding->map_list);
	binding->map_dev = NULL;
	net_devmem_dmabuf_unmap(binding);
}

static void net_devmem_dmabuf_binding_free(struct work_struct *work)
{
	struct net_devmem_dmabuf_binding *binding =
		container_of(work, typeof(*binding), free_work);

	kcov_remote_start_common(binding->kcov_handle);
	/* Every pool using the binding is gone, so every net_iov is back. */
	WARN_ON_ONCE(binding->direction == DMA_FROM_DEVICE &&
		     binding->free_count != binding->area.num_niovs);

	mutex_lock(&net_devmem_mapped_lock);
	net_devmem_forget_mapping(binding);
	mutex_unlock(&net_devmem_mapped_lock);
	dma_buf_put(binding->dmabuf);
	xa_destroy(&binding->bound_rxqs);
	kvfree(binding->free_stack);
	kvfree(binding->area.niovs);
	put_cred(binding->tx_cred);
	kfree(binding);
	kcov_remote_stop();
}

void net_devmem_dmabuf_binding_get(struct net_devmem_dmabuf_binding *binding)
{
	refcount_inc(&binding->ref);
}

/* The last reference may go in softirq (page pool release): the DMA
 * unmap and dma_buf_put() happen in a work item.
 */
void net_devmem_dmabuf_binding_put(struct net_devmem_dmabuf_binding *binding)
{
	if (refcount_dec_and_test(&binding->ref))
		schedule_work(&binding->free_work);
}

/* Take a free net_iov; *@in_use: the binding's net_iovs out, after. */
static struct net_iov *
net_devmem_alloc_dmabuf(struct net_devmem_dmabuf_binding *binding,
			u32 *in_use)
{
	struct net_iov *niov = NULL;

	spin_lock_bh(&binding->free_lock);
	if (binding->free_count)
		niov = &binding->area.niovs[binding->free_stack[--binding->free_count]];
	*in_use = binding->area.num_niovs - binding->free_count;
	spin_unlock_bh(&binding->free_lock);

	return niov;
}

/* Put @niov back on the free list; returns the binding's net_iovs out. */
static u32 net_devmem_free_dmabuf(struct net_iov *niov)
{
	struct net_devmem_dmabuf_binding *binding = net_iov_binding(niov);
	u32 in_use;

	spin_lock_bh(&binding->free_lock);
	binding->free_stack[binding->free_count++] = net_iov_idx(niov);
	in_use = binding->area.num_niovs - binding->free_count;
	spin_unlock_bh(&binding->free_lock);

	return in_use;
}

/**
 * net_devmem_check_device() - can the device take a dmabuf binding at all
 * @dev: device
 * @rx_page_size: net_iov size asked for
 * @extack: netlink extended ack
 *
 * Checked before the dmabuf is attached, so that a device that cannot
 * use it never sees it. Net_iovs above PAGE_SIZE need the driver's
 * opt-in (rx_buf_size_max in its queue management ops).
 *
 * Context: RTNL held.
 * Return: 0, -EOPNOTSUPP, or -EINVAL (size above the driver's maximum).
 */
int net_devmem_check_device(struct net_device *dev, u32 rx_page_size,
			    struct netlink_ext_ack *extack)
{
	ASSERT_RTNL();

	if (!netif_rxq_restartable(dev)) {
		NL_SET_ERR_MSG(extack, "Device cannot restart RX queues (no queue management ops)");
		return -EOPNOTSUPP;
	}

	if (!dev->dev.parent || !dev->dev.parent->dma_mask) {
		NL_SET_ERR_MSG(extack, "Device doesn't support DMA");
		return -EOPNOTSUPP;
	}

	return netif_mp_check_buf_size(dev, rx_page_size, extack);
}

/* Bytes of the mapping @sgt if it can be cut into net_iovs of
 * @rx_page_size, else 0. net_iov i sits at byte offset i * rx_page_size
 * of the dmabuf, which holds as long as every DMA segment is made of
 * whole net_iovs; one that straddled two segments would not be
 * contiguous for the device.
 */
static size_t net_devmem_mapped_size(struct sg_table *sgt, u32 rx_page_size,
				     struct netlink_ext_ack *extack)
{
	struct scatterlist *sg;
	size_t size = 0;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (IS_ALIGNED(sg_dma_address(sg), rx_page_size) &&
		    IS_ALIGNED(sg_dma_len(sg), rx_page_size)) {
			size += sg_dma_len(sg);
			continue;
		}
		if (rx_page_size == PAGE_SIZE)
			NL_SET_ERR_MSG(extack, "dmabuf DMA segment is not page aligned");
		else
			NL_SET_ERR_MSG(extack, "dmabuf DMA segment is not aligned to rx-page-size");
		return 0;
	}
	if (!size || size / rx_page_size > U32_MAX) {
		NL_SET_ERR_MSG(extack, "dmabuf size not supported");
		return 0;
	}

	return size;
}

/* Attach the dmabuf to @dma_dev and map it. @dma_dev is held until
 * net_devmem_dmabuf_unmap(), which runs at the latest when the netdev
 * unregisters.
 */
static int net_devmem_dmabuf_map(struct net_devmem_dmabuf_binding *binding,
				 struct device *dma_dev,
				 struct netlink_ext_ack *extack)
{
	int err;

	err = net_devmem_user_charge(binding, extack);
	if (err)
		return err;

	binding->dma_dev = get_device(dma_dev);
	binding->attachment = dma_buf_attach(binding->dmabuf, dma_dev);
	if (IS_ERR(binding->attachment)) {
		err = PTR_ERR(binding->attachment);
		if (err == -EREMOTEIO)
			NL_SET_ERR_MSG(extack, NO_P2P_PATH_MSG);
		else
			NL_SET_ERR_MSG(extack, "Failed to bind dmabuf to device");
		goto err_put_device;
	}

	binding->sgt = dma_buf_map_attachment_unlocked(binding->attachment,
						       binding->direction);
	if (IS_ERR(binding->sgt)) {
		err = PTR_ERR(binding->sgt);
		if (err == -EREMOTEIO)
			NL_SET_ERR_MSG(extack, NO_P2P_PATH_MSG);
		else
			NL_SET_ERR_MSG(extack, "Failed to map dmabuf attachment");
		goto err_detach;
	}

	return 0;

err_detach:
	dma_buf_detach(binding->dmabuf, binding->attachment);
err_put_device:
	put_device(dma_dev);
	net_devmem_user_uncharge(binding);
	return err;
}

/* Cut the mapping (@size bytes) into net_iovs of @rx_page_size, in DMA
 * order; an RX binding also gets its stack of free net_iovs, full. On
 * error the caller frees both arrays.
 */
static int net_devmem_init_area(struct net_devmem_dmabuf_binding *binding,
				size_t size, u32 rx_page_size)
{
	struct scatterlist *sg;
	unsigned int sgi;
	size_t i = 0;

	binding->area.shift = ilog2(rx_page_size);
	binding->area.num_niovs = size / rx_page_size;
	binding->area.niovs = kvcalloc(binding->area.num_niovs,
				       sizeof(struct net_iov),
				       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (binding->direction == DMA_FROM_DEVICE)
		binding->free_stack = kvmalloc_array(binding->area.num_niovs,
						     sizeof(u32),
						     GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!binding->area.niovs ||
	    (binding->direction == DMA_FROM_DEVICE && !binding->free_stack))
		return -ENOMEM;

	for_each_sgtable_dma_sg(binding->sgt, sg, sgi) {
		dma_addr_t dma = sg_dma_address(sg);
		size_t off;

		for (off = 0; off < sg_dma_len(sg); off += rx_page_size, i++) {
			struct net_iov *niov = &binding->area.niovs[i];

			niov->owner = &binding->area;
			niov->dma_addr = dma + off;
		}
	}

	/* Hand out low offsets first: pop from the end of the stack. */
	for (i = 0; binding->free_stack && i < binding->area.num_niovs; i++)
		binding->free_stack[i] = binding->area.num_niovs - 1 - i;
	binding->free_count = binding->free_stack ? binding->area.num_niovs : 0;

	return 0;
}

/**
 * net_devmem_bind_dmabuf() - map a dmabuf for a device and carve it up
 * @dev: device whose DMA device the dmabuf is attached to; the caller
 *	holds a reference to it
 * @dmabuf_fd: dmabuf file descriptor of the caller
 * @rx_page_size: size of each net_iov: PAGE_SIZE or a larger power of two
 * @direction: DMA_FROM_DEVICE (RX queues) or DMA_TO_DEVICE (TX)
 * @extack: netlink extended ack
 *
 * Attaching and mapping may take long (the exporter may have to move or
 * pin device memory), so it runs without RTNL: every other RTNL user of
 * the system would wait on it. The binding has no id, queue or owner
 * yet; it is only on the list of mapped bindings, so that @dev's
 * unregister unmaps it (and clears its device) as any other. Under RTNL,
 * after checking that @dev is still what the request named, the caller
 * gives it an id with net_devmem_reserve_id(), or drops it with
 * net_devmem_discard_binding() once RTNL is released.
 * Its memory is charged to the caller's memory cgroup. Every DMA segment
 * of the mapping must start and end on a multiple of @rx_page_size.
 * A TX binding records the caller's credentials: who may send from it.
 *
 * Context: process, in the task that asked for the binding; RTNL not
 * held.
 * Return: the binding with one reference, or an ERR_PTR().
 */
struct net_devmem_dmabuf_binding *
net_devmem_bind_dmabuf(struct net_device *dev, unsigned int dmabuf_fd,
		       u32 rx_page_size, enum dma_data_direction direction,
		       struct netlink_ext_ack *extack)
{
	struct net_devmem_dmabuf_binding *binding;
	struct dma_buf *dmabuf;
	size_t size;
	int err;

	if (!dev->dev.parent) {
		NL_SET_ERR_MSG(extack, "Device doesn't support DMA");
		return ERR_PTR(-EOPNOTSUPP);
	}

	dmabuf = dma_buf_get(dmabuf_fd);
	if (IS_ERR(dmabuf)) {
		NL_SET_ERR_MSG(extack, "fd is not a dmabuf");
		return ERR_CAST(dmabuf);
	}

	binding = kzalloc_node(sizeof(*binding), GFP_KERNEL_ACCOUNT,
			       dev_to_node(&dev->dev));
	if (!binding) {
		err = -ENOMEM;
		goto err_put_dmabuf;
	}

	binding->dev = dev;
	binding->dmabuf = dmabuf;
	binding->direction = direction;
	if (direction == DMA_TO_DEVICE)
		binding->tx_cred = get_cred(current_cred());
	refcount_set(&binding->ref, 1);
	spin_lock_init(&binding->free_lock);
	xa_init_flags(&binding->bound_rxqs, XA_FLAGS_ALLOC);
	INIT_WORK(&binding->free_work, net_devmem_dmabuf_binding_free);
	binding->kcov_handle = kcov_common_handle();
	INIT_LIST_HEAD(&binding->map_list);

	err = net_devmem_dmabuf_map(binding, dev->dev.parent, extack);
	if (err)
		goto err_free_binding;

	size = net_devmem_mapped_size(binding->sgt, rx_page_size, extack);
	if (!size) {
		err = -EINVAL;
		goto err_unmap;
	}

	err = net_devmem_init_area(binding, size, rx_page_size);
	if (err)
		goto err_free_area;

	/* From here on the device's unregister unmaps it, even before the
	 * binding has an id (a device that goes away while the dmabuf
	 * was being mapped).
	 */
	mutex_lock(&net_devmem_mapped_lock);
	binding->map_dev = dev;
	list_add(&binding->map_list, &net_devmem_mapped);
	mutex_unlock(&net_devmem_mapped_lock);

	return binding;

err_free_area:
	kvfree(binding->free_stack);
	kvfree(binding->area.niovs);
err_unmap:
	net_devmem_dmabuf_unmap(binding);
err_free_binding:
	put_cred(binding->tx_cred);
	kfree(binding);
err_put_dmabuf:
	dma_buf_put(dmabuf);
	return ERR_PTR(err);
}

/**
 * net_devmem_reserve_id() - give a new binding its id
 * @binding: a binding from net_devmem_bind_dmabuf()
 *
 * The id is reserved, not yet published: looking it up finds nothing
 * until net_devmem_publish_binding(). A TX binding takes the network
 * namespace its device is in now, the one the request found it in: only
 * sockets of that namespace may send from it. From here on the binding
 * is undone with net_devmem_unbind_dmabuf(), which frees the id.
 *
 * Context: RTNL held; the caller checked that @binding's device is
 * still registered and is the one the request named.
 * Return: 0, or a negative errno; the caller then discards @binding.
 */
int net_devmem_reserve_id(struct net_devmem_dmabuf_binding *binding)
{
	int err;

	ASSERT_RTNL();

	if (binding->direction == DMA_TO_DEVICE)
		binding->tx_net_cookie = dev_net(binding->dev)->net_cookie;

	err = xa_alloc_cyclic(&net_devmem_dmabuf_bindings, &binding->id, NULL,
			      xa_limit_32b, &net_devmem_next_id,
			      GFP_KERNEL_ACCOUNT);
	if (err < 0) {
		binding->id = 0;
		return err;
	}
	binding->area.id = binding->id;

	return 0;
}

/**
 * net_devmem_publish_binding() - make a complete binding findable by id
 * @binding: a binding with its id reserved, installed and owned
 *
 * sendmsg() looks TX bindings up by their id: a binding must be found
 * only once nothing can fail any more.
 *
 * Context: RTNL held.
 */
void net_devmem_publish_binding(struct net_devmem_dmabuf_binding *binding)
{
	ASSERT_RTNL();

	/* the slot exists since net_devmem_reserve_id(): nothing to allocate */
	xa_store(&net_devmem_dmabuf_bindings, binding->id, binding, GFP_KERNEL);
}

/**
 * net_devmem_discard_binding() - drop a binding that got no id
 * @binding: a binding from net_devmem_bind_dmabuf()
 *
 * Unmaps it before returning, so that the dmabuf is no longer attached
 * when the request that made it fails; the rest is freed by the last
 * reference's work. The binding leaves the list of mapped bindings
 * under its lock and is unmapped after: the netdevice notifier, which
 * takes the lock under RTNL, never waits for the exporter.
 *
 * Context: process, RTNL not held (the exporter's unmap may sleep long);
 * the caller holds a reference to the binding's device, which keeps the
 * DMA device for the unmap.
 */
void net_devmem_discard_binding(struct net_devmem_dmabuf_binding *binding)
{
	bool mapped;

	might_sleep();

	mutex_lock(&net_devmem_mapped_lock);
	mapped = binding->map_dev;
	if (mapped) {
		list_del(&binding->map_list);
		binding->map_dev = NULL;
	}
	mutex_unlock(&net_devmem_mapped_lock);

	if (mapped)
		net_devmem_dmabuf_unmap(binding);
	net_devmem_dmabuf_binding_put(binding);
}

/* The params that install @binding as a queue's provider. */
static struct pp_memory_provider_params
net_devmem_mp_params(struct net_devmem_dmabuf_binding *binding)
{
	return (struct pp_memory_provider_params) {
		.mp_priv	= binding,
		.mp_ops		= &dmabuf_devmem_ops,
		.rx_page_size	= net_devmem_rx_page_size(binding),
	};
}

/**
 * net_devmem_bind_dmabuf_to_queue() - install a binding on one RX queue
 * @dev: device
 * @rxq_idx: RX queue index
 * @binding: binding with its id (net_devmem_reserve_id())
 * @extack: netlink extended ack
 *
 * Installs the binding as the queue's memory provider through
 * netif_mp_open_rxq(), which checks the queue and restarts it so that
 * its payload page pool is backed by the dmabuf.
 *
 * Context: RTNL held.
 * Return: 0 or a negative errno; on error the queue is as it was.
 */
int net_devmem_bind_dmabuf_to_queue(struct net_device *dev, u32 rxq_idx,
				    struct net_devmem_dmabuf_binding *binding,
				    struct netlink_ext_ack *extack)
{
	struct pp_memory_provider_params p = net_devmem_mp_params(binding);
	u32 xa_idx;
	int err;

	ASSERT_RTNL();

	err = netif_mp_open_rxq(dev, rxq_idx, &p, extack);
	if (err)
		return err;

	err = xa_alloc(&binding->bound_rxqs, &xa_idx,
		       __netif_get_rx_queue(dev, rxq_idx), xa_limit_32b,
		       GFP_KERNEL_ACCOUNT);
	if (err)
		goto err_close_rxq;

	return 0;

err_close_rxq:
	netif_mp_close_rxq(dev, rxq_idx, &p);
	return err;
}

static struct net_devmem_owner *net_devmem_owner_find(const struct sock *sk)
{
	struct net_devmem_owner *owner;

	lockdep_assert_held(&net_devmem_owners_lock);

	hash_for_each_possible(net_devmem_owners, owner, node,
			       (unsigned long)sk)
		if (owner->sk == sk)
			return owner;
	return NULL;
}

/**
 * net_devmem_owner_check() - may a socket own one more binding?
 * @sk: the netlink socket asking for a binding
 * @extack: netlink extended ack
 *
 * Context: RTNL held, which keeps the answer until the binding is owned.
 * Return: 0, or -ENOSPC if @sk owns NET_DEVMEM_SOCK_MAX_BINDINGS already.
 */
int net_devmem_owner_check(const struct sock *sk,
			   struct netlink_ext_ack *extack)
{
	struct net_devmem_owner *owner;
	unsigned int count;

	ASSERT_RTNL();

	spin_lock(&net_devmem_owners_lock);
	owner = net_devmem_owner_find(sk);
	count = owner ? owner->count : 0;
	spin_unlock(&net_devmem_owners_lock);

	if (count >= NET_DEVMEM_SOCK_MAX_BINDINGS) {
		NL_SET_ERR_MSG(extack,
			       "this socket owns the most bindings a socket may ("
			       __stringify(NET_DEVMEM_SOCK_MAX_BINDINGS) ")");
		return -ENOSPC;
	}
	return 0;
}

/**
 * net_devmem_set_owner() - give a new binding to the socket that asked
 * @binding: a binding with its id (net_devmem_reserve_id()), not yet
 *	owned
 * @sk: the netlink socket that asked for it
 *
 * The binding is unbound when @sk is released: net_devmem_unbind_owned().
 *
 * Context: RTNL held.
 * Return: 0, or -ENOMEM; the caller then unbinds @binding.
 */
int net_devmem_set_owner(struct net_devmem_dmabuf_binding *binding,
			 const struct sock *sk)
{
	struct net_devmem_owner *owner, *new = NULL;

	ASSERT_RTNL();

	spin_lock(&net_devmem_owners_lock);
	owner = net_devmem_owner_find(sk);
	spin_unlock(&net_devmem_owners_lock);
	/* RTNL orders every change: no entry for @sk can appear meanwhile */
	if (!owner) {
		new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
		if (!new)
			return -ENOMEM;
		new->sk = sk;
		INIT_LIST_HEAD(&new->bindings);
		owner = new;
	}

	spin_lock(&net_devmem_owners_lock);
	if (new) {
		hash_add(net_devmem_owners, &new->node, (unsigned long)sk);
		WRITE_ONCE(net_devmem_nr_owners, net_devmem_nr_owners + 1);
	}
	list_add_tail(&binding->owner_list, &owner->bindings);
	owner->count++;
	binding->owner = owner;
	spin_unlock(&net_devmem_owners_lock);

	return 0;
}

/* Take @binding from its owner; the owner's last binding frees it. */
static void net_devmem_owner_drop(struct net_devmem_dmabuf_binding *binding)
{
	struct net_devmem_owner *owner = binding->owner;

	if (!owner)
		return;

	spin_lock(&net_devmem_owners_lock);
	list_del(&binding->owner_list);
	if (--owner->count) {
		owner = NULL;
	} else {
		hash_del(&owner->node);
		WRITE_ONCE(net_devmem_nr_owners, net_devmem_nr_owners - 1);
	}
	spin_unlock(&net_devmem_owners_lock);

	binding->owner = NULL;
	kfree(owner);
}

/**
 * net_devmem_unbind_dmabuf() - take a binding off its queues and drop it
 * @binding: binding to unbind
 *
 * The queues go back to host memory right away; the binding itself is
 * freed when the last page pool using it is.
 *
 * Context: RTNL held.
 */
void net_devmem_unbind_dmabuf(struct net_devmem_dmabuf_binding *binding)
{
	struct pp_memory_provider_params p = net_devmem_mp_params(binding);
	struct netdev_rx_queue *rxq;
	unsigned long xa_idx;

	ASSERT_RTNL();

	net_devmem_owner_drop(binding);
	xa_erase(&net_devmem_dmabuf_bindings, binding->id);

	xa_for_each(&binding->bound_rxqs, xa_idx, rxq) {
		xa_erase(&binding->bound_rxqs, xa_idx);
		/* get_netdev_rx_queue_index() needs CONFIG_SYSFS on 6.1 */
		netif_mp_close_rxq(binding->dev, rxq - binding->dev->_rx, &p);
	}

	/* The device may go away while RX net_iovs are still out. A TX
	 * binding keeps it for the skbs in flight (retransmits): the
	 * netdevice notifier forgets it.
	 */
	if (binding->direction == DMA_FROM_DEVICE)
		WRITE_ONCE(binding->dev, NULL);
	net_devmem_dmabuf_binding_put(binding);
}

/**
 * net_devmem_unbind_owned() - unbind what a netlink socket created
 * @sk: the socket, being released
 *
 * Context: RTNL held.
 */
void net_devmem_unbind_owned(const struct sock *sk)
{
	struct net_devmem_dmabuf_binding *binding;
	struct net_devmem_owner *owner;

	ASSERT_RTNL();

	/* Each unbind takes one binding off the list, the last one frees
	 * the entry: look it up again every time.
	 */
	for (;;) {
		spin_lock(&net_devmem_owners_lock);
		owner = net_devmem_owner_find(sk);
		binding = owner ? list_first_entry(&owner->bindings,
						   typeof(*binding),
						   owner_list) : NULL;
		spin_unlock(&net_devmem_owners_lock);
		if (!binding)
			break;
		net_devmem_unbind_dmabuf(binding);
	}
}

/* The device unregisters: it was closed and its queues uninstalled, so
 * it reads and writes no dmabuf any more. Unmap every binding made for
 * it now, RX or TX, bound or already unbound, while its DMA device and
 * IOMMU group still exist; the net_iovs that tokens and skbs hold come
 * back later without any DMA. A TX binding is on no queue, so this is
 * also where it forgets the device, and every later send from it fails
 * the route check.
 *
 * A move to another netns sends NETDEV_UNREGISTER too, but leaves the
 * device registered: the binding keeps it, mapped. While the device is
 * in the other netns, the binding's netns check and the route check
 * refuse every send; when it comes back, the binding works again.
 */
static int net_devmem_netdev_event(struct notifier_block *nb,
				   unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct net_devmem_dmabuf_binding *binding, *tmp;

	if (event != NETDEV_UNREGISTER || dev->reg_state == NETREG_REGISTERED)
		return NOTIFY_DONE;

	/* binding->dev is written under RTNL */
	ASSERT_RTNL();
	mutex_lock(&net_devmem_mapped_lock);
	list_for_each_entry_safe(binding, tmp, &net_devmem_mapped, map_list) {
		if (binding->map_dev != dev)
			continue;
		WRITE_ONCE(binding->dev, NULL);
		net_devmem_forget_mapping(binding);
	}
	mutex_unlock(&net_devmem_mapped_lock);

	return NOTIFY_OK;
}

static struct notifier_block net_devmem_netdev_notifier = {
	.notifier_call = net_devmem_netdev_event,
};

static int __init net_devmem_init(void)
{
	return register_netdevice_notifier(&net_devmem_netdev_notifier);
}
subsys_initcall(net_devmem_init);

/**
 * net_devmem_lookup_dmabuf() - a binding by id, with a reference
 * @id: binding id
 *
 * Return: the binding, with a reference the caller drops with
 * net_devmem_dmabuf_binding_put(); NULL if no binding has @id.
 */
struct net_devmem_dmabuf_binding *net_devmem_lookup_dmabuf(u32 id)
{
	struct net_devmem_dmabuf_binding *binding;

	/* In the xarray a binding still has its owner's reference. */
	xa_lock(&net_devmem_dmabuf_bindings);
	binding = xa_load(&net_devmem_dmabuf_bindings, id);
	if (binding)
		net_devmem_dmabuf_binding_get(binding);
	xa_unlock(&net_devmem_dmabuf_bindings);

	return binding;
}

/**
 * net_devmem_owns_bindings() - does a netlink socket own bindings?
 * @sk: the socket, being released
 *
 * Asked on the release of every generic netlink socket: RTNL is taken
 * only for a socket that owns something. The socket's own binds were
 * done before its last reference went, so a count of 0 read without the
 * lock is the truth for it.
 *
 * Return: true if @sk created a binding it still owns.
 */
bool net_devmem_owns_bindings(const struct sock *sk)
{
	bool owns;

	if (!READ_ONCE(net_devmem_nr_owners))
		return false;

	spin_lock(&net_devmem_owners_lock);
	owns = net_devmem_owner_find(sk);
	spin_unlock(&net_devmem_owners_lock);

	return owns;
}

/* Memory provider ops: the binding feeds page pools with net_iovs. */

static int mp_dmabuf_devmem_init(struct page_pool *pool)
{
	struct net_devmem_dmabuf_binding *binding = pool->mp_priv;

	if (!binding)
		return -EINVAL;

	/* the driver must size its buffers as the binding's net_iovs */
	if (PAGE_SIZE << pool->p.order != net_devmem_rx_page_size(binding))
		return -E2BIG;

	net_devmem_dmabuf_binding_get(binding);
	return 0;
}

static netmem_ref mp_dmabuf_devmem_alloc_netmems(struct page_pool *pool,
						 gfp_t gfp)
{
	struct net_devmem_dmabuf_binding *binding = pool->mp_priv;
	struct net_iov *niov;
	u32 in_use;

	niov = net_devmem_alloc_dmabuf(binding, &in_use);
	if (!niov)
		return 0;

	niov->pp = pool;
	pool->pages_state_hold_cnt++;
	trace_devmem_niov_alloc(pool, binding->id, niov, in_use,
				page_pool_inflight(pool, false));
	return net_iov_to_netmem(niov);
}

static bool mp_dmabuf_devmem_release_netmem(struct page_pool *pool,
					    netmem_ref netmem)
{
	struct net_devmem_dmabuf_binding *binding = pool->mp_priv;
	struct net_iov *niov = netmem_to_net_iov(netmem);
	u32 in_use;

	WARN_ON_ONCE(atomic_long_read(&niov->pp_ref_count));
	niov->pp = NULL;
	in_use = net_devmem_free_dmabuf(niov);
	/* the pool counts this release once we return */
	trace_devmem_niov_release(pool, binding->id, niov, in_use,
				  max(page_pool_inflight(pool, false), 1) - 1);

	/* never put_page() a net_iov */
	return false;
}

static void mp_dmabuf_devmem_destroy(struct page_pool *pool)
{
	net_devmem_dmabuf_binding_put(pool->mp_priv);
}

static int mp_dmabuf_devmem_nl_fill(void *mp_priv, struct sk_buff *rsp,
				    struct netdev_rx_queue *rxq)
{
	const struct net_devmem_dmabuf_binding *binding = mp_priv;
	int type = rxq ? NETDEV_A_QUEUE_DMABUF : NETDEV_A_PAGE_POOL_DMABUF;

	return nla_put_u32(rsp, type, binding->id);
}

static void mp_dmabuf_devmem_uninstall(void *mp_priv,
				       struct netdev_rx_queue *rxq)
{
	struct net_devmem_dmabuf_binding *binding = mp_priv;
	struct netdev_rx_queue *bound_rxq;
	unsigned long xa_idx;

	ASSERT_RTNL();

	xa_for_each(&binding->bound_rxqs, xa_idx, bound_rxq) {
		if (bound_rxq == rxq) {
			xa_erase(&binding->bound_rxqs, xa_idx);
			break;
		}
	}

	/* The device is going away: unbind must not touch it any more. */
	if (xa_empty(&binding->bound_rxqs))
		WRITE_ONCE(binding->dev, NULL);
}

static const struct memory_provider_ops dmabuf_devmem_ops = {
	.init			= mp_dmabuf_devmem_init,
	.destroy		= mp_dmabuf_devmem_destroy,
	.alloc_netmems		= mp_dmabuf_devmem_alloc_netmems,
	.release_netmem		= mp_dmabuf_devmem_release_netmem,
	.nl_fill		= mp_dmabuf_devmem_nl_fill,
	.uninstall		= mp_dmabuf_devmem_uninstall,
};
