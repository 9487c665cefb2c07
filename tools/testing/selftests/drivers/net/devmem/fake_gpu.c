// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in GPU runtime for testing ncdevmem's CUDA and HIP paths on
 * machines without a GPU. Built as libcuda.so.1 and libamdhip64.so, it
 * implements the handful of entry points ncdevmem resolves with dlsym():
 * "device memory" is a sealed memfd, the dmabuf export is a udmabuf over
 * it, and copies between host and "device" are memcpy(). It tests the
 * dlopen() plumbing, the copy-based validation on receive and the
 * host-to-device copy on send, not a GPU driver.
 *
 * Built once more as librocm_smi64.so.1, it answers ROCm SMI's PCI
 * address query. FAKE_GPU_PCI_BUS_ID (domain:bus:device.function) is the
 * PCI address it reports for its device, so that ncdevmem --pair can be
 * tested against a real PCI function of the VM.
 *
 * FAKE_GPU_DEVICES=0 in the environment makes it report no device.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/udmabuf.h>

#define ERR_INVALID	1
#define ERR_NO_DEVICE	100

/* One allocation is enough for ncdevmem. */
static struct {
	int memfd;
	uint8_t *base;
	size_t size;
} mem = { .memfd = -1 };

static int devices(void)
{
	const char *env = getenv("FAKE_GPU_DEVICES");

	return env ? atoi(env) : 1;
}

/* FAKE_GPU_PCI_BUS_ID, parsed; 0000:00:00.0 without it */
static int pci_address(unsigned int *dom, unsigned int *bus, unsigned int *dev,
		       unsigned int *fn)
{
	const char *env = getenv("FAKE_GPU_PCI_BUS_ID");

	*dom = *bus = *dev = *fn = 0;
	if (env && sscanf(env, "%x:%x:%x.%x", dom, bus, dev, fn) != 4)
		return ERR_INVALID;
	return 0;
}

static int fake_alloc(uint64_t *addr, size_t size)
{
	if (mem.base)
		return ERR_INVALID;
	mem.memfd = memfd_create("fake-gpu", MFD_ALLOW_SEALING);
	if (mem.memfd < 0 || ftruncate(mem.memfd, size) ||
	    fcntl(mem.memfd, F_ADD_SEALS, F_SEAL_SHRINK))
		return ERR_INVALID;
	mem.base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			mem.memfd, 0);
	if (mem.base == MAP_FAILED) {
		mem.base = NULL;
		return ERR_INVALID;
	}
	mem.size = size;
	*addr = (uintptr_t)mem.base;
	return 0;
}

static int fake_export(int *fd, uint64_t addr, size_t size)
{
	struct udmabuf_create create = { .memfd = mem.memfd };
	int dev;

	if (!mem.base || addr < (uintptr_t)mem.base ||
	    addr + size > (uintptr_t)mem.base + mem.size)
		return ERR_INVALID;
	create.offset = addr - (uintptr_t)mem.base;
	create.size = size;
	dev = open("/dev/udmabuf", O_RDWR);
	if (dev < 0)
		return ERR_INVALID;
	*fd = ioctl(dev, UDMABUF_CREATE, &create);
	close(dev);
	return *fd < 0 ? ERR_INVALID : 0;
}

/* whether [@addr, @addr + @len) is inside the one allocation */
static bool fake_range(uint64_t addr, size_t len)
{
	return mem.base && addr >= (uintptr_t)mem.base &&
	       addr + len <= (uintptr_t)mem.base + mem.size;
}

static int fake_copy(void *dst, uint64_t src, size_t len)
{
	if (!fake_range(src, len))
		return ERR_INVALID;
	memcpy(dst, (void *)(uintptr_t)src, len);
	return 0;
}

static int fake_copy_in(uint64_t dst, const void *src, size_t len)
{
	if (!fake_range(dst, len))
		return ERR_INVALID;
	memcpy((void *)(uintptr_t)dst, src, len);
	return 0;
}

/*
 * The runtimes' symbol names are given as asm labels: the functions keep
 * kernel-style names here and export the names ncdevmem looks up.
 */
int fake_cu_init(unsigned int flags)
	__asm__("cuInit");
int fake_cu_device_get(int *dev, int ordinal)
	__asm__("cuDeviceGet");
int fake_cu_device_attribute(int *val, int attr, int dev)
	__asm__("cuDeviceGetAttribute");
int fake_cu_ctx_retain(void **ctx, int dev)
	__asm__("cuDevicePrimaryCtxRetain");
int fake_cu_ctx_set(void *ctx)
	__asm__("cuCtxSetCurrent");
int fake_cu_alloc(uint64_t *dptr, size_t size)
	__asm__("cuMemAlloc_v2");
int fake_cu_export(void *handle, uint64_t dptr, size_t size, int type, unsigned long long flags)
	__asm__("cuMemGetHandleForAddressRange");
int fake_cu_dtoh(void *dst, uint64_t src, size_t len)
	__asm__("cuMemcpyDtoH_v2");
int fake_cu_htod(uint64_t dst, const void *src, size_t len)
	__asm__("cuMemcpyHtoD_v2");
int fake_cu_error_string(int err, const char **str)
	__asm__("cuGetErrorString");
int fake_cu_pci_bus_id(char *id, int len, int dev)
	__asm__("cuDeviceGetPCIBusId");
int fake_rsmi_init(uint64_t flags)
	__asm__("rsmi_init");
int fake_rsmi_pci_id(uint32_t dev, uint64_t *bdfid)
	__asm__("rsmi_dev_pci_id_get");
int fake_hip_init(unsigned int flags)
	__asm__("hipInit");
int fake_hip_device_count(int *count)
	__asm__("hipGetDeviceCount");
int fake_hip_set_device(int dev)
	__asm__("hipSetDevice");
int fake_hip_malloc(void **ptr, size_t size)
	__asm__("hipMalloc");
int fake_hip_export(void *handle, void *dptr, size_t size, int type, unsigned long long flags)
	__asm__("hipMemGetHandleForAddressRange");
int fake_hip_memcpy(void *dst, const void *src, size_t len, int kind)
	__asm__("hipMemcpy");
const char *fake_hip_error_string(int err)
	__asm__("hipGetErrorString");

/* CUDA driver API */

/* CUDA's format: an eight-digit domain */
int fake_cu_pci_bus_id(char *id, int len, int dev)
{
	unsigned int dom, bus, slot, fn;

	if (dev >= devices() || pci_address(&dom, &bus, &slot, &fn))
		return ERR_INVALID;
	snprintf(id, len, "%08x:%02x:%02x.%x", dom, bus, slot, fn);
	return 0;
}

int fake_cu_init(unsigned int flags)
{
	return devices() ? 0 : ERR_NO_DEVICE;
}

int fake_cu_device_get(int *dev, int ordinal)
{
	*dev = ordinal;
	return ordinal < devices() ? 0 : ERR_INVALID;
}

int fake_cu_device_attribute(int *val, int attr, int dev)
{
	*val = 1;
	return 0;
}

int fake_cu_ctx_retain(void **ctx, int dev)
{
	*ctx = &mem;
	return 0;
}

int fake_cu_ctx_set(void *ctx)
{
	return 0;
}

int fake_cu_alloc(uint64_t *dptr, size_t size)
{
	return fake_alloc(dptr, size);
}

int fake_cu_export(void *handle, uint64_t dptr, size_t size,
		   int type, unsigned long long flags)
{
	return type == 1 ? fake_export(handle, dptr, size) : ERR_INVALID;
}

int fake_cu_dtoh(void *dst, uint64_t src, size_t len)
{
	return fake_copy(dst, src, len);
}

int fake_cu_htod(uint64_t dst, const void *src, size_t len)
{
	return fake_copy_in(dst, src, len);
}

int fake_cu_error_string(int err, const char **str)
{
	*str = err == ERR_NO_DEVICE ? "fake: no device" : "fake: invalid";
	return 0;
}

/* HIP runtime */

int fake_hip_init(unsigned int flags)
{
	return 0;
}

int fake_hip_device_count(int *count)
{
	*count = devices();
	return 0;
}

int fake_hip_set_device(int dev)
{
	return dev < devices() ? 0 : ERR_INVALID;
}

int fake_hip_malloc(void **ptr, size_t size)
{
	uint64_t addr;
	int err = fake_alloc(&addr, size);

	*ptr = (void *)(uintptr_t)addr;
	return err;
}

int fake_hip_export(void *handle, void *dptr, size_t size,
		    int type, unsigned long long flags)
{
	return type == 1 ? fake_export(handle, (uintptr_t)dptr, size) :
			   ERR_INVALID;
}

/* hipMemcpyHostToDevice 1, hipMemcpyDeviceToHost 2 */
int fake_hip_memcpy(void *dst, const void *src, size_t len, int kind)
{
	if (kind == 1)
		return fake_copy_in((uintptr_t)dst, src, len);
	return kind == 2 ? fake_copy(dst, (uintptr_t)src, len) : ERR_INVALID;
}

const char *fake_hip_error_string(int err)
{
	return "fake: invalid";
}

/* ROCm SMI */

int fake_rsmi_init(uint64_t flags)
{
	return 0;
}

/* (domain << 32) | (bus << 8) | (device << 3) | function */
int fake_rsmi_pci_id(uint32_t dev, uint64_t *bdfid)
{
	unsigned int dom, bus, slot, fn;

	if ((int)dev >= devices() || pci_address(&dom, &bus, &slot, &fn))
		return ERR_INVALID;
	*bdfid = ((uint64_t)dom << 32) | (bus << 8) | (slot << 3) | fn;
	return 0;
}
