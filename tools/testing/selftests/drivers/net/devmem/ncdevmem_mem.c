// SPDX-License-Identifier: GPL-2.0
/*
 * ncdevmem's memory providers, one ops table each: udmabuf (host memory
 * from a memfd), the system dma-heap, PCI BAR memory from p2pbuf (device
 * memory that is not host DRAM), and GPU memory exported by the CUDA
 * or HIP runtime. The GPU runtimes are loaded at run time only if their
 * library is installed, so that ncdevmem builds without GPU headers: the
 * few entry points used are declared here with plain C types. A GPU
 * dmabuf cannot be mmap()ed, so fragments are read back with the runtime's
 * device-to-host copy, and what is sent is written with its host-to-device
 * copy (upstream's memcpy_to_device); the others are written through a
 * CPU mapping.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <glob.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/p2pbuf.h>

#include "devmem_lib.h"
#include "ncdevmem_mem.h"

/* udmabuf */

static int udmabuf_mem_alloc(struct devmem_mem *m)
{
	/* the memfd stays open: the pages it names are the dmabuf's (a
	 * benchmark's TCG plugin counts the CPU's accesses to them)
	 */
	m->fd = udmabuf_alloc_at(m->size, 0, m->huge, &m->memfd);
	if (m->fd < 0)
		fprintf(stderr, "udmabuf: %s (CONFIG_UDMABUF? above udmabuf.size_limit_mb?%s)\n",
			strerror(-m->fd),
			m->huge ? " huge pages: CONFIG_HUGETLBFS, vm.nr_hugepages?" : "");
	return m->fd < 0 ? m->fd : 0;
}

/* dma-heap */

static int heap_alloc(struct devmem_mem *m)
{
	struct dma_heap_allocation_data data = {
		.len = m->size,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	int heap, ret;

	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap < 0) {
		fprintf(stderr, "dma heap: /dev/dma_heap/system: %s\n",
			strerror(errno));
		return -errno;
	}
	ret = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data);
	ret = ret ? -errno : 0;
	close(heap);
	if (ret) {
		fprintf(stderr, "dma heap: alloc: %s\n", strerror(-ret));
		return ret;
	}
	m->fd = data.fd;
	return 0;
}

/* p2pbuf: a PCI BAR registered with P2PDMA (drivers/dma-buf/p2pbuf.c) */

/* The first /dev/p2pbufN, or NULL; P2PBUF_DEV in the environment names one */
const char *p2pbuf_path(void)
{
	static char path[64];
	const char *env = getenv("P2PBUF_DEV");
	glob_t g;

	if (env)
		return env;
	if (glob("/dev/p2pbuf[0-9]*", 0, NULL, &g))
		return NULL;
	snprintf(path, sizeof(path), "%s", g.gl_pathv[0]);
	globfree(&g);
	return path;
}

static int p2p_alloc(struct devmem_mem *m)
{
	struct p2pbuf_create req = {
		.size = m->size,
		.flags = P2PBUF_FLAGS_CLOEXEC,
	};
	const char *path = p2pbuf_path();
	int dev, ret;

	if (!path) {
		fprintf(stderr, "p2p: no /dev/p2pbuf* (CONFIG_DMABUF_P2PBUF, ivshmem-plain)\n");
		return -ENODEV;
	}
	dev = open(path, O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		fprintf(stderr, "p2p: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	ret = ioctl(dev, P2PBUF_CREATE, &req);
	ret = ret < 0 ? -errno : ret;
	close(dev);
	if (ret < 0) {
		fprintf(stderr, "p2p: %s: P2PBUF_CREATE of %zu bytes: %s\n",
			path, m->size, strerror(-ret));
		return ret;
	}
	m->fd = ret;
	return 0;
}

/* GPU runtimes */

/*
 * dlopen() @lib and resolve @syms. -ENODEV (skip) without the library,
 * -EOPNOTSUPP if it lacks an entry point (too old for dmabuf export).
 * The library stays loaded: runtimes do not like dlclose().
 */
int gpu_load(const char *kind, const char *lib, const struct gpu_sym *syms)
{
	void *handle, *fn;

	handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		fprintf(stderr, "%s: no GPU runtime (%s not found): skipping\n",
			kind, lib);
		return -ENODEV;
	}
	for (; syms->name; syms++) {
		fn = dlsym(handle, syms->name);
		memcpy(syms->slot, &fn, sizeof(fn));
		if (!fn && !syms->optional) {
			fprintf(stderr, "%s: runtime has no %s (too old for dmabuf export)\n",
				kind, syms->name);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

#define CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED	124
#define CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD	1

static struct {
	int (*init)(unsigned int flags);
	int (*device_get)(int *dev, int ordinal);
	int (*attribute)(int *val, int attr, int dev);
	int (*ctx_retain)(void **ctx, int dev);
	int (*ctx_set)(void *ctx);
	int (*alloc)(uint64_t *dptr, size_t size);
	int (*export)(void *fd, uint64_t dptr, size_t size, int type,
		      unsigned long long flags);
	int (*dtoh)(void *dst, uint64_t src, size_t len);
	int (*htod)(uint64_t dst, const void *src, size_t len);
	int (*error_string)(int err, const char **str);
} cu;

static const struct gpu_sym cu_syms[] = {
	{ "cuInit", &cu.init },
	{ "cuDeviceGet", &cu.device_get },
	{ "cuDeviceGetAttribute", &cu.attribute },
	{ "cuDevicePrimaryCtxRetain", &cu.ctx_retain },
	{ "cuCtxSetCurrent", &cu.ctx_set },
	{ "cuMemAlloc_v2", &cu.alloc },
	{ "cuMemGetHandleForAddressRange", &cu.export },
	{ "cuMemcpyDtoH_v2", &cu.dtoh },
	{ "cuMemcpyHtoD_v2", &cu.htod },
	{ "cuGetErrorString", &cu.error_string, true },
	{}
};

static const char *cu_strerror(int err)
{
	const char *str = NULL;

	if (cu.error_string)
		cu.error_string(err, &str);
	return str ? str : "unknown CUDA error";
}

static int cuda_alloc(struct devmem_mem *m)
{
	int err, dev, supported = 0, fd = -1;
	void *ctx;

	err = gpu_load("cuda", "libcuda.so.1", cu_syms);
	if (err)
		return err;
	err = cu.init(0);
	if (!err)
		err = cu.device_get(&dev, 0);
	if (err) {
		fprintf(stderr, "cuda: no usable GPU (%s): skipping\n",
			cu_strerror(err));
		return -ENODEV;
	}
	err = cu.attribute(&supported, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED,
			   dev);
	if (err || !supported) {
		fprintf(stderr, "cuda: GPU 0 cannot export dmabufs (driver or kernel too old?)\n");
		return -EOPNOTSUPP;
	}
	err = cu.ctx_retain(&ctx, dev);
	if (!err)
		err = cu.ctx_set(ctx);
	if (!err)
		err = cu.alloc(&m->dptr, m->size);
	if (!err)
		err = cu.export(&fd, m->dptr, m->size,
				CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (err) {
		fprintf(stderr, "cuda: %s\n", cu_strerror(err));
		return -EIO;
	}
	m->fd = fd;
	return 0;
}

static int cuda_read(const struct devmem_mem *m, void *dst, uint64_t off,
		     size_t len)
{
	int err = cu.dtoh(dst, m->dptr + off, len);

	if (err)
		fprintf(stderr, "cuda: copy from the GPU: %s\n",
			cu_strerror(err));
	return err ? -EIO : 0;
}

static int cuda_write(const struct devmem_mem *m, uint64_t off,
		      const void *src, size_t len)
{
	int err = cu.htod(m->dptr + off, src, len);

	if (err)
		fprintf(stderr, "cuda: copy to the GPU: %s\n", cu_strerror(err));
	return err ? -EIO : 0;
}

#define HIP_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD	1
#define HIP_MEMCPY_HOST_TO_DEVICE		1
#define HIP_MEMCPY_DEVICE_TO_HOST		2

static struct {
	int (*init)(unsigned int flags);
	int (*device_count)(int *count);
	int (*set_device)(int dev);
	int (*alloc)(void **ptr, size_t size);
	int (*export)(void *fd, void *dptr, size_t size, int type,
		      unsigned long long flags);
	int (*memcpy)(void *dst, const void *src, size_t len, int kind);
	const char *(*error_string)(int err);
} hip;

static const struct gpu_sym hip_syms[] = {
	{ "hipInit", &hip.init },
	{ "hipGetDeviceCount", &hip.device_count },
	{ "hipSetDevice", &hip.set_device },
	{ "hipMalloc", &hip.alloc },
	{ "hipMemGetHandleForAddressRange", &hip.export },
	{ "hipMemcpy", &hip.memcpy },
	{ "hipGetErrorString", &hip.error_string, true },
	{}
};

static const char *hip_strerror(int err)
{
	return hip.error_string ? hip.error_string(err) : "unknown HIP error";
}

static int rocm_alloc(struct devmem_mem *m)
{
	int err, count = 0, fd = -1;
	void *ptr = NULL;

	err = gpu_load("rocm", "libamdhip64.so", hip_syms);
	if (err)
		return err;
	err = hip.init(0);
	if (!err)
		err = hip.device_count(&count);
	if (err || !count) {
		fprintf(stderr, "rocm: no usable GPU (%s): skipping\n",
			err ? hip_strerror(err) : "no device");
		return -ENODEV;
	}
	err = hip.set_device(0);
	if (!err)
		err = hip.alloc(&ptr, m->size);
	if (!err)
		err = hip.export(&fd, ptr, m->size,
				 HIP_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (err) {
		fprintf(stderr, "rocm: %s\n", hip_strerror(err));
		return -EIO;
	}
	m->dptr = (uintptr_t)ptr;
	m->fd = fd;
	return 0;
}

static int rocm_read(const struct devmem_mem *m, void *dst, uint64_t off,
		     size_t len)
{
	int err = hip.memcpy(dst, (void *)(uintptr_t)(m->dptr + off), len,
			     HIP_MEMCPY_DEVICE_TO_HOST);

	if (err)
		fprintf(stderr, "rocm: copy from the GPU: %s\n",
			hip_strerror(err));
	return err ? -EIO : 0;
}

static int rocm_write(const struct devmem_mem *m, uint64_t off,
		      const void *src, size_t len)
{
	int err = hip.memcpy((void *)(uintptr_t)(m->dptr + off), src, len,
			     HIP_MEMCPY_HOST_TO_DEVICE);

	if (err)
		fprintf(stderr, "rocm: copy to the GPU: %s\n",
			hip_strerror(err));
	return err ? -EIO : 0;
}

static const struct mem_ops providers[] = {
	{ .name = "udmabuf", .alloc = udmabuf_mem_alloc },
	{ .name = "heap", .alloc = heap_alloc },
	{ .name = "p2p", .alloc = p2p_alloc },
	{ .name = "cuda", .alloc = cuda_alloc, .read = cuda_read,
	  .write = cuda_write },
	{ .name = "rocm", .alloc = rocm_alloc, .read = rocm_read,
	  .write = rocm_write },
	{}
};

const char *mem_providers(void)
{
	return "udmabuf|heap|p2p|cuda|rocm";
}

int mem_open(struct devmem_mem *m, const char *provider, size_t size,
	     size_t max_frag, uint32_t rx_page_size)
{
	const struct mem_ops *ops;
	int err;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->memfd = -1;
	m->size = size;
	m->huge = rx_page_size != 0;
	/* a cmsg covers at most one net_iov */
	if (max_frag < rx_page_size)
		max_frag = rx_page_size;
	for (ops = providers; ops->name; ops++)
		if (!strcmp(ops->name, provider))
			m->ops = ops;
	if (!m->ops) {
		fprintf(stderr, "unknown memory source %s (%s)\n", provider,
			mem_providers());
		return -EINVAL;
	}
	err = m->ops->alloc(m);
	if (err)
		return err;
	if (m->ops->read) {
		/* GPU memory is not mapped: fragments are copied out */
		m->bounce = malloc(max_frag);
		m->bounce_len = max_frag;
		err = m->bounce ? 0 : -ENOMEM;
	} else {
		m->map = mmap(NULL, size, PROT_READ, MAP_SHARED, m->fd, 0);
		if (m->map == MAP_FAILED) {
			err = -errno;
			m->map = NULL;
			fprintf(stderr, "mmap dmabuf: %s\n", strerror(-err));
		}
	}
	if (err)
		mem_close(m);
	return err;
}

/* CPU writes to a mapped dmabuf, bracketed as dma-buf asks */
static int mapped_write(struct devmem_mem *m, uint64_t off, const void *src,
			size_t len)
{
	struct dma_buf_sync sync = {
		.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE,
	};
	int err = 0;

	if (!m->wmap) {
		m->wmap = mmap(NULL, m->size, PROT_READ | PROT_WRITE,
			       MAP_SHARED, m->fd, 0);
		if (m->wmap == MAP_FAILED) {
			m->wmap = NULL;
			return -errno;
		}
	}
	if (ioctl(m->fd, DMA_BUF_IOCTL_SYNC, &sync))
		return -errno;
	memcpy(m->wmap + off, src, len);
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
	if (ioctl(m->fd, DMA_BUF_IOCTL_SYNC, &sync))
		err = -errno;
	return err;
}

int mem_write(struct devmem_mem *m, uint64_t off, const void *src, size_t len)
{
	if (off > m->size || len > m->size - off)
		return -EINVAL;
	if (m->ops->write)
		return m->ops->write(m, off, src, len);
	return mapped_write(m, off, src, len);
}

void mem_close(struct devmem_mem *m)
{
	if (m->wmap)
		munmap(m->wmap, m->size);
	m->wmap = NULL;
	if (m->map)
		munmap(m->map, m->size);
	free(m->bounce);
	if (m->fd >= 0)
		close(m->fd);
	if (m->memfd >= 0)
		close(m->memfd);
	m->map = NULL;
	m->bounce = NULL;
	m->fd = -1;
	m->memfd = -1;
}

const uint8_t *mem_frag(struct devmem_mem *m, uint64_t off, uint32_t len)
{
	uint8_t *bigger;

	if (m->map)
		return m->map + off;
	if (!m->bounce)
		return NULL;
	/* a fragment longer than any so far: the bounce buffer grows */
	if (len > m->bounce_len) {
		bigger = realloc(m->bounce, len);
		if (!bigger)
			return NULL;
		m->bounce = bigger;
		m->bounce_len = len;
	}
	if (m->ops->read(m, m->bounce, off, len))
		return NULL;
	return m->bounce;
}
