// SPDX-License-Identifier: GPL-2.0
/*
 * hdsim's debugfs, per port: fault injection, packing sessions, the
 * provider and rx-page-size overrides, a queue restart trigger and the
 * flags of each queue's payload pool.
 */
#include <linux/debugfs.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool.h>

#include "hdsim.h"

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

void hdsim_debugfs_port(struct hdsim_port *port)
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
