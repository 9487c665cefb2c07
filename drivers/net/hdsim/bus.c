// SPDX-License-Identifier: GPL-2.0
/*
 * hdsim device lifecycle, netdevsim style:
 *
 *   echo "ID [QUEUES [RX_BUF_MAX]]" > /sys/bus/hdsim/new_device
 *	creates device hdsimID with two linked ports (dev_port 0 and 1),
 *	QUEUES RX/TX queue pairs each (default 4, at most 16), taking
 *	payload buffers of up to RX_BUF_MAX bytes from a memory provider
 *	(a power of two, PAGE_SIZE to 2 MiB, default 2 MiB; PAGE_SIZE
 *	makes a device that has not opted in to larger buffers)
 *   echo ID > /sys/bus/hdsim/del_device
 *	removes the device and whatever ports it still has
 *
 * A single port can also go with `ip link del`; its peer loses carrier.
 * Fault knobs live in debugfs under hdsim/hdsimID/portN/.
 *
 * A device can outlive its deletion: page pools that map its memory
 * (PP_FLAG_DMA_MAP) and devmem bindings hold a reference on it until
 * their last buffer comes back, which may be a token a process holds or
 * an skb queued on a socket. Its release runs this module's code, so
 * module unload deletes every device and then waits until each one is
 * released (rmmod blocks until the buffers come back).
 */
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <net/rtnetlink.h>

#include "hdsim.h"

static LIST_HEAD(hdsim_devs);
static DEFINE_MUTEX(hdsim_devs_lock);
static struct dentry *hdsim_ddir;
/* devices registered and not yet released; hdsim_exit() waits for 0 */
static atomic_t hdsim_devs_unreleased = ATOMIC_INIT(0);

static void hdsim_dev_release(struct device *dev)
{
	struct hdsim_dev *hdev = container_of(dev, struct hdsim_dev, dev);

	kfree(hdev);
	/* Last: at 0, hdsim_exit() goes on and the module may go; nothing
	 * of the device or of the module's data is touched after this.
	 */
	if (atomic_dec_and_test(&hdsim_devs_unreleased))
		wake_up_var(&hdsim_devs_unreleased);
}

static struct device_type hdsim_dev_type = {
	.name = DRV_NAME,
	.release = hdsim_dev_release,
};

static struct bus_type hdsim_bus = {
	.name		= DRV_NAME,
	.dev_name	= DRV_NAME,
};

static struct hdsim_dev *hdsim_dev_find(u32 id)
{
	struct hdsim_dev *hdev;

	lockdep_assert_held(&hdsim_devs_lock);

	list_for_each_entry(hdev, &hdsim_devs, list)
		if (hdev->id == id)
			return hdev;
	return NULL;
}

static void hdsim_dev_del(struct hdsim_dev *hdev)
{
	unsigned int i;

	rtnl_lock();
	for (i = 0; i < ARRAY_SIZE(hdev->ports); i++)
		if (hdev->ports[i])
			hdsim_port_destroy(hdev->ports[i]);
	rtnl_unlock();

	debugfs_remove_recursive(hdev->ddir);
	list_del(&hdev->list);
	device_unregister(&hdev->dev);
}

static ssize_t new_device_store(struct bus_type *bus, const char *buf,
				size_t count)
{
	unsigned int rx_buf_max = HDSIM_RX_BUF_MAX;
	unsigned int queues = HDSIM_DEF_QUEUES;
	struct hdsim_dev *hdev;
	char name[16];
	u32 id;
	int err;

	err = sscanf(buf, "%u %u %u", &id, &queues, &rx_buf_max);
	if (err < 1)
		return -EINVAL;
	if (!queues || queues > HDSIM_MAX_QUEUES)
		return -EINVAL;
	if (!is_power_of_2(rx_buf_max) || rx_buf_max < PAGE_SIZE ||
	    rx_buf_max > HDSIM_RX_BUF_MAX)
		return -EINVAL;

	mutex_lock(&hdsim_devs_lock);
	if (hdsim_dev_find(id)) {
		err = -EEXIST;
		goto err_unlock;
	}

	hdev = kzalloc(sizeof(*hdev), GFP_KERNEL);
	if (!hdev) {
		err = -ENOMEM;
		goto err_unlock;
	}
	hdev->id = id;
	hdev->num_queues = queues;
	hdev->queue_mgmt_ops = hdsim_queue_mgmt_ops;
	/* at PAGE_SIZE: no opt-in, as a driver without the field */
	hdev->queue_mgmt_ops.rx_buf_size_max =
		rx_buf_max > PAGE_SIZE ? rx_buf_max : 0;
	hdev->dev.id = id;
	hdev->dev.bus = &hdsim_bus;
	hdev->dev.type = &hdsim_dev_type;
	hdev->dev.dma_mask = &hdev->dev.coherent_dma_mask;

	/* from here the release callback runs, even if registration fails */
	atomic_inc(&hdsim_devs_unreleased);
	err = device_register(&hdev->dev);
	if (err) {
		put_device(&hdev->dev);
		goto err_unlock;
	}

	/* The device "DMAs" by writing to the physical address behind a DMA
	 * address: only right for direct mapping.
	 */
	err = dma_coerce_mask_and_coherent(&hdev->dev, DMA_BIT_MASK(64));
	if (!err && get_dma_ops(&hdev->dev))
		err = -EOPNOTSUPP;
	if (err)
		goto err_unregister;

	snprintf(name, sizeof(name), "hdsim%u", id);
	hdev->ddir = debugfs_create_dir(name, hdsim_ddir);
	list_add_tail(&hdev->list, &hdsim_devs);

	err = hdsim_port_create(hdev, 0);
	if (!err)
		err = hdsim_port_create(hdev, 1);
	if (err) {
		hdsim_dev_del(hdev);
		goto err_unlock;
	}
	hdsim_link_ports(hdev);
	mutex_unlock(&hdsim_devs_lock);
	return count;

err_unregister:
	device_unregister(&hdev->dev);
err_unlock:
	mutex_unlock(&hdsim_devs_lock);
	return err;
}
static BUS_ATTR_WO(new_device);

static ssize_t del_device_store(struct bus_type *bus, const char *buf,
				size_t count)
{
	struct hdsim_dev *hdev;
	u32 id;
	int err;

	err = kstrtou32(buf, 0, &id);
	if (err)
		return err;

	mutex_lock(&hdsim_devs_lock);
	hdev = hdsim_dev_find(id);
	if (hdev)
		hdsim_dev_del(hdev);
	mutex_unlock(&hdsim_devs_lock);

	return hdev ? count : -ENOENT;
}
static BUS_ATTR_WO(del_device);

static struct attribute *hdsim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL
};
ATTRIBUTE_GROUPS(hdsim_bus);

static int __init hdsim_init(void)
{
	int err;

	hdsim_bus.bus_groups = hdsim_bus_groups;
	err = bus_register(&hdsim_bus);
	if (err)
		return err;

	err = rtnl_link_register(&hdsim_link_ops);
	if (err)
		goto err_bus_unregister;

	hdsim_ddir = debugfs_create_dir(DRV_NAME, NULL);
	return 0;

err_bus_unregister:
	bus_unregister(&hdsim_bus);
	return err;
}

static void __exit hdsim_exit(void)
{
	struct hdsim_dev *hdev, *tmp;

	mutex_lock(&hdsim_devs_lock);
	list_for_each_entry_safe(hdev, tmp, &hdsim_devs, list)
		hdsim_dev_del(hdev);
	mutex_unlock(&hdsim_devs_lock);
	wait_var_event(&hdsim_devs_unreleased,
		       !atomic_read(&hdsim_devs_unreleased));

	debugfs_remove_recursive(hdsim_ddir);
	rtnl_link_unregister(&hdsim_link_ops);
	bus_unregister(&hdsim_bus);
}

module_init(hdsim_init);
module_exit(hdsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Header/data split NIC simulator for devmem TCP tests");
MODULE_ALIAS_RTNL_LINK(DRV_NAME);
MODULE_IMPORT_NS(NETDEV_INTERNAL);
