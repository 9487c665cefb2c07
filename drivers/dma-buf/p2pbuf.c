// SPDX-License-Identifier: GPL-2.0
/*
 * p2pbuf: dmabufs of PCI peer-to-peer memory, to test device memory TCP
 * with payload that never lands in host DRAM, without a GPU.
 *
 * It drives a PCI function whose BAR 2 is plain memory (QEMU's
 * ivshmem-plain), registers that BAR with P2PDMA and lets user space
 * carve dmabufs out of it through /dev/p2pbufN (P2PBUF_CREATE). An
 * importer that cannot reach the BAR peer to peer (no PCI device, or a
 * path through a host bridge that P2PDMA does not trust) is refused at
 * attach with -EREMOTEIO; one that can gets the BAR's bus addresses
 * from dma_map_sgtable(). The CPU view (mmap) is the BAR itself, as for
 * a GPU's BAR: slow, and to be bracketed by DMA_BUF_IOCTL_SYNC.
 *
 * Lifetime: a dmabuf holds a reference on its p2pbuf_dev and on the P2P
 * pages it covers (pci_alloc_p2pmem()). Removing the PCI function
 * unregisters /dev/p2pbufN and fails new allocations and attachments at
 * once; the P2PDMA core then waits, in the remove path, until every
 * dmabuf is released (a bound NIC queue holds its dmabuf until unbind).
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/p2pbuf.h>

#define P2PBUF_BAR		2
/* scatterlist lengths are unsigned int: map a buffer in pieces of this */
#define P2PBUF_SG_MAX		SZ_1G

/**
 * struct p2pbuf_dev - one PCI function whose BAR is P2P memory
 * @pdev: the function
 * @misc: /dev/p2pbufN
 * @name: "p2pbufN"
 * @id: N
 * @lock: orders allocations and attachments against removal
 * @gone: set under @lock (write) when the function is being removed
 * @nr_bufs: dmabufs alive
 * @ref: one for the bound driver, one per open file and per dmabuf
 */
struct p2pbuf_dev {
	struct pci_dev *pdev;
	struct miscdevice misc;
	char name[16];
	int id;
	struct rw_semaphore lock;
	bool gone;
	atomic_t nr_bufs;
	struct kref ref;
};

/**
 * struct p2pbuf - one dmabuf of BAR memory
 * @pd: the device; holds a reference
 * @kaddr: kernel address of the memory, from pci_alloc_p2pmem()
 * @size: bytes
 */
struct p2pbuf {
	struct p2pbuf_dev *pd;
	void *kaddr;
	size_t size;
};

static DEFINE_IDA(p2pbuf_ida);

static void p2pbuf_dev_free(struct kref *ref)
{
	struct p2pbuf_dev *pd = container_of(ref, struct p2pbuf_dev, ref);

	pci_dev_put(pd->pdev);
	kfree(pd);
}

static void p2pbuf_dev_put(struct p2pbuf_dev *pd)
{
	kref_put(&pd->ref, p2pbuf_dev_free);
}

static int p2pbuf_attach(struct dma_buf *dmabuf,
			 struct dma_buf_attachment *attach)
{
	struct p2pbuf *buf = dmabuf->priv;
	int err = 0;

	down_read(&buf->pd->lock);
	if (buf->pd->gone)
		err = -ENODEV;
	else if (pci_p2pdma_distance(buf->pd->pdev, attach->dev, false) < 0)
		err = -EREMOTEIO;
	up_read(&buf->pd->lock);
	return err;
}

static struct sg_table *p2pbuf_map(struct dma_buf_attachment *attach,
				   enum dma_data_direction dir)
{
	struct p2pbuf *buf = attach->dmabuf->priv;
	unsigned int nents = DIV_ROUND_UP(buf->size, P2PBUF_SG_MAX);
	struct scatterlist *sg;
	struct sg_table *sgt;
	size_t off = 0;
	unsigned int i;
	int err;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	err = sg_alloc_table(sgt, nents, GFP_KERNEL);
	if (err)
		goto err_free_sgt;

	for_each_sgtable_sg(sgt, sg, i) {
		size_t len = min_t(size_t, buf->size - off, P2PBUF_SG_MAX);

		sg_set_page(sg, virt_to_page(buf->kaddr + off), len, 0);
		off += len;
	}

	/* P2P pages: dma-direct hands out bus addresses, or -EREMOTEIO */
	err = dma_map_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (err)
		goto err_free_table;
	return sgt;

err_free_table:
	sg_free_table(sgt);
err_free_sgt:
	kfree(sgt);
	return ERR_PTR(err);
}

static void p2pbuf_unmap(struct dma_buf_attachment *attach,
			 struct sg_table *sgt, enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(sgt);
	kfree(sgt);
}

static void p2pbuf_release(struct dma_buf *dmabuf)
{
	struct p2pbuf *buf = dmabuf->priv;
	struct p2pbuf_dev *pd = buf->pd;

	pci_free_p2pmem(pd->pdev, buf->kaddr, buf->size);
	atomic_dec(&pd->nr_bufs);
	kfree(buf);
	p2pbuf_dev_put(pd);
}

/* The BAR itself; the dma-buf core checked the range against the size. */
static int p2pbuf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct p2pbuf *buf = dmabuf->priv;
	unsigned long pfn = page_to_pfn(virt_to_page(buf->kaddr));

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	return remap_pfn_range(vma, vma->vm_start, pfn + vma->vm_pgoff,
			       vma->vm_end - vma->vm_start, vma->vm_page_prot);
}

/* x86 keeps the BAR coherent: the bracket costs nothing here, but
 * programs must use it as for any device memory.
 */
static int p2pbuf_begin_cpu_access(struct dma_buf *dmabuf,
				   enum dma_data_direction dir)
{
	return 0;
}

static int p2pbuf_end_cpu_access(struct dma_buf *dmabuf,
				 enum dma_data_direction dir)
{
	return 0;
}

static const struct dma_buf_ops p2pbuf_ops = {
	.attach			= p2pbuf_attach,
	.map_dma_buf		= p2pbuf_map,
	.unmap_dma_buf		= p2pbuf_unmap,
	.release		= p2pbuf_release,
	.mmap			= p2pbuf_mmap,
	.begin_cpu_access	= p2pbuf_begin_cpu_access,
	.end_cpu_access		= p2pbuf_end_cpu_access,
};

static long p2pbuf_create(struct p2pbuf_dev *pd,
			  const struct p2pbuf_create *req)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct dma_buf *dmabuf;
	struct p2pbuf *buf;
	int fd;

	if ((req->flags & ~P2PBUF_FLAGS_CLOEXEC) || req->pad)
		return -EINVAL;
	if (!req->size || !PAGE_ALIGNED(req->size))
		return -EINVAL;
	if (req->size > pci_resource_len(pd->pdev, P2PBUF_BAR))
		return -ENOMEM;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	buf->size = req->size;
	buf->kaddr = pci_alloc_p2pmem(pd->pdev, buf->size);
	if (!buf->kaddr) {
		fd = -ENOMEM;
		goto err_free_buf;
	}

	buf->pd = pd;
	kref_get(&pd->ref);
	atomic_inc(&pd->nr_bufs);

	exp_info.ops = &p2pbuf_ops;
	exp_info.size = buf->size;
	exp_info.flags = O_RDWR;
	exp_info.priv = buf;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		fd = PTR_ERR(dmabuf);
		goto err_free_mem;
	}

	fd = dma_buf_fd(dmabuf, (req->flags & P2PBUF_FLAGS_CLOEXEC) ?
				O_CLOEXEC : 0);
	if (fd < 0)
		dma_buf_put(dmabuf);	/* p2pbuf_release() frees the rest */
	return fd;

err_free_mem:
	pci_free_p2pmem(pd->pdev, buf->kaddr, buf->size);
	atomic_dec(&pd->nr_bufs);
	p2pbuf_dev_put(pd);	/* the caller's open file holds another */
err_free_buf:
	kfree(buf);
	return fd;
}

static int p2pbuf_open(struct inode *inode, struct file *file)
{
	struct p2pbuf_dev *pd = container_of(file->private_data,
					     struct p2pbuf_dev, misc);

	/* misc_open() holds misc_mtx: remove cannot have freed @pd */
	kref_get(&pd->ref);
	return 0;
}

static int p2pbuf_release_file(struct inode *inode, struct file *file)
{
	p2pbuf_dev_put(container_of(file->private_data, struct p2pbuf_dev,
				    misc));
	return 0;
}

static long p2pbuf_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct p2pbuf_dev *pd = container_of(file->private_data,
					     struct p2pbuf_dev, misc);
	struct p2pbuf_create req;
	long ret;

	if (cmd != P2PBUF_CREATE)
		return -ENOTTY;
	if (copy_from_user(&req, (void __user *)arg, sizeof(req)))
		return -EFAULT;

	down_read(&pd->lock);
	ret = pd->gone ? -ENODEV : p2pbuf_create(pd, &req);
	up_read(&pd->lock);
	return ret;
}

static const struct file_operations p2pbuf_fops = {
	.owner		= THIS_MODULE,
	.open		= p2pbuf_open,
	.release	= p2pbuf_release_file,
	.unlocked_ioctl	= p2pbuf_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static int p2pbuf_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	resource_size_t len = pci_resource_len(pdev, P2PBUF_BAR);
	struct p2pbuf_dev *pd;
	int err;

	if (!(pci_resource_flags(pdev, P2PBUF_BAR) & IORESOURCE_MEM) || !len)
		return -ENODEV;

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	/* the whole BAR becomes ZONE_DEVICE pages, released with the driver */
	err = pci_p2pdma_add_resource(pdev, P2PBUF_BAR, 0, 0);
	if (err)
		return err;

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return -ENOMEM;
	pd->pdev = pci_dev_get(pdev);
	init_rwsem(&pd->lock);
	kref_init(&pd->ref);

	pd->id = ida_alloc(&p2pbuf_ida, GFP_KERNEL);
	if (pd->id < 0) {
		err = pd->id;
		goto err_put_dev;
	}
	snprintf(pd->name, sizeof(pd->name), "p2pbuf%d", pd->id);
	pd->misc.minor = MISC_DYNAMIC_MINOR;
	pd->misc.name = pd->name;
	pd->misc.fops = &p2pbuf_fops;
	pd->misc.parent = &pdev->dev;
	err = misc_register(&pd->misc);
	if (err)
		goto err_free_id;

	pci_set_drvdata(pdev, pd);
	pci_info(pdev, "%s: %pa bytes of P2P memory in BAR %d\n", pd->name,
		 &len, P2PBUF_BAR);
	return 0;

err_free_id:
	ida_free(&p2pbuf_ida, pd->id);
err_put_dev:
	p2pbuf_dev_put(pd);
	return err;
}

static void p2pbuf_remove(struct pci_dev *pdev)
{
	struct p2pbuf_dev *pd = pci_get_drvdata(pdev);
	int bufs;

	down_write(&pd->lock);
	pd->gone = true;
	up_write(&pd->lock);
	misc_deregister(&pd->misc);
	ida_free(&p2pbuf_ida, pd->id);

	bufs = atomic_read(&pd->nr_bufs);
	if (bufs)
		pci_info(pdev, "%s: waiting for %d dmabufs to be released\n",
			 pd->name, bufs);
	p2pbuf_dev_put(pd);
	/* the P2PDMA core's devres now waits for the pages of every dmabuf */
}

static const struct pci_device_id p2pbuf_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },	/* ivshmem */
	{ }
};
MODULE_DEVICE_TABLE(pci, p2pbuf_ids);

static struct pci_driver p2pbuf_driver = {
	.name		= "p2pbuf",
	.id_table	= p2pbuf_ids,
	.probe		= p2pbuf_probe,
	.remove		= p2pbuf_remove,
};
module_pci_driver(p2pbuf_driver);

MODULE_DESCRIPTION("dmabufs of PCI peer-to-peer memory, for tests");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
