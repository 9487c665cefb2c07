// SPDX-License-Identifier: GPL-2.0
/*
 * ncdevmem --pair: which NIC can write into the device memory peer to
 * peer. The memory belongs to a PCI function: the p2pbuf device of
 * --memory p2p; GPU 0 of --memory cuda (cuDeviceGetPCIBusId() of the CUDA
 * driver API) or of --memory rocm (rsmi_dev_pci_id_get() of ROCm SMI),
 * both runtimes loaded at run time; or the one --owner names. For every
 * network interface on PCI, the path from the root complex to it and to
 * the owner are compared as the kernel's P2PDMA compares them
 * (drivers/pci/p2pdma.c): below a common bridge (one PCIe switch, or one
 * root port) the NIC reaches the memory directly, at a distance of the
 * hops from both up to that bridge; otherwise the traffic crosses the
 * host bridge, which 6.1 trusts only on a short list of Intel host
 * bridges and on AMD Zen CPUs. ACS redirection on the path (set when an
 * IOMMU isolates devices) would also send it through the host bridge;
 * the bind has the last word, with EREMOTEIO and an extack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ncdevmem_mem.h"
#include "ncdevmem_pair.h"
#include "pci_path.h"

/* GPU 0's PCI address from the CUDA driver API */
static int cuda_owner(char *bdf, size_t len)
{
	static struct {
		int (*init)(unsigned int flags);
		int (*device_get)(int *dev, int ordinal);
		int (*bus_id)(char *id, int len, int dev);
	} cu;
	static const struct gpu_sym syms[] = {
		{ "cuInit", &cu.init },
		{ "cuDeviceGet", &cu.device_get },
		{ "cuDeviceGetPCIBusId", &cu.bus_id },
		{}
	};
	unsigned int dom, bus, dev, fn;
	char id[64];
	int gpu, err;

	err = gpu_load("cuda", "libcuda.so.1", syms);
	if (err)
		return err;
	if (cu.init(0) || cu.device_get(&gpu, 0) ||
	    cu.bus_id(id, sizeof(id), gpu) ||
	    sscanf(id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4) {
		fprintf(stderr, "pair: cuda: no GPU 0 or no PCI address for it\n");
		return -ENODEV;
	}
	snprintf(bdf, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

/* GPU 0's PCI address from ROCm SMI */
static int rocm_owner(char *bdf, size_t len)
{
	static struct {
		int (*init)(uint64_t flags);
		int (*pci_id)(uint32_t dev, uint64_t *bdfid);
	} rsmi;
	static const struct gpu_sym syms[] = {
		{ "rsmi_init", &rsmi.init },
		{ "rsmi_dev_pci_id_get", &rsmi.pci_id },
		{}
	};
	uint64_t id;
	int err;

	err = gpu_load("rocm", "librocm_smi64.so.1", syms);
	if (err)
		return err;
	if (rsmi.init(0) || rsmi.pci_id(0, &id)) {
		fprintf(stderr, "pair: rocm: no GPU 0 or no PCI address for it\n");
		return -ENODEV;
	}
	/* (domain << 32) | (bus << 8) | (device << 3) | function */
	snprintf(bdf, len, "%04x:%02x:%02x.%x", (unsigned int)(id >> 32),
		 (unsigned int)(id >> 8) & 0xff, (unsigned int)(id >> 3) & 0x1f,
		 (unsigned int)id & 0x7);
	return 0;
}

/* The owner of @memory's memory, or of --owner: a PCI address in @bdf.
 * 0, -ENODEV when a GPU runtime is missing (skip), or -errno.
 */
static int pair_owner(const char *memory, const char *owner, char *bdf,
		      size_t len)
{
	char sysfs[PATH_MAX], real[PATH_MAX];
	const char *dev;

	if (owner) {
		snprintf(bdf, len, "%s", owner);
		return 0;
	}
	if (!strcmp(memory, "cuda"))
		return cuda_owner(bdf, len);
	if (!strcmp(memory, "rocm"))
		return rocm_owner(bdf, len);
	if (strcmp(memory, "p2p")) {
		fprintf(stderr, "pair: %s is host memory, any NIC reaches it; ",
			memory);
		fprintf(stderr, "use --memory p2p|cuda|rocm or --owner BDF\n");
		return -EINVAL;
	}
	dev = p2pbuf_path();
	if (!dev) {
		fprintf(stderr, "pair: no /dev/p2pbuf*\n");
		return -ENODEV;
	}
	snprintf(sysfs, sizeof(sysfs), "/sys/class/misc/%s/device",
		 strrchr(dev, '/') + 1);
	if (!realpath(sysfs, real))
		return -errno;
	snprintf(bdf, len, "%s", strrchr(real, '/') + 1);
	return 0;
}

/**
 * pair_nic() - print where each PCI NIC stands to the memory's owner
 * @memory: the --memory provider
 * @owner: --owner, or NULL
 * @pick: when true, the closest NIC that reaches the memory directly
 *	goes to @ifname
 * @ifname: IFNAMSIZ bytes
 *
 * Return: 0; -ENODEV without the memory's device or GPU runtime (skip);
 * -ENXIO if the owner is not a PCI function here; -EHOSTUNREACH if @pick
 * and no NIC reaches the memory directly; -errno.
 */
int pair_nic(const char *memory, const char *owner, bool pick, char *ifname)
{
	struct pci_path own, nic;
	char bdf[32], sysfs[PATH_MAX];
	int best = INT_MAX, dist, err;
	struct pci_p2p r;
	size_t i;
	glob_t g;

	err = pair_owner(memory, owner, bdf, sizeof(bdf));
	if (err)
		return err;
	snprintf(sysfs, sizeof(sysfs), "/sys/bus/pci/devices/%s", bdf);
	if (pci_path_of(sysfs, &own)) {
		fprintf(stderr, "pair: %s is not a PCI function here\n", bdf);
		return -ENXIO;
	}
	printf("pair: memory of %s: ", bdf);
	pci_path_print(stdout, &own);
	printf("\n");

	if (glob("/sys/class/net/*/device", 0, NULL, &g))
		g.gl_pathc = 0;
	for (i = 0; i < g.gl_pathc; i++) {
		const char *name = g.gl_pathv[i] + strlen("/sys/class/net/");
		int len = strchr(name, '/') - name;

		if (pci_path_of(g.gl_pathv[i], &nic) ||
		    !strcmp(nic.hop[nic.n - 1], bdf))
			continue;
		printf("pair: %.*s (%s): ", len, name, nic.hop[nic.n - 1]);
		pci_path_print(stdout, &nic);
		pci_p2p_check(&own, &nic, &r);
		if (r.way != PCI_P2P_DIRECT) {
			if (r.nacs)
				printf(": ACS redirect on %s", r.acs);
			printf(": through the host bridge %s, ", own.root);
			if (r.trusted) {
				printf("which 6.1's P2PDMA trusts here\n");
			} else {
				printf("which 6.1's P2PDMA refuses unless it is on its list ");
				printf("(some Intel Xeon) or the CPU is AMD Zen\n");
			}
			continue;
		}
		dist = r.dist;
		printf(": peer to peer below %s, distance %d\n", r.bridge, dist);
		if (dist < best) {
			best = dist;
			snprintf(ifname, IFNAMSIZ_PAIR, "%.*s", len, name);
		}
	}
	globfree(&g);

	if (!pick)
		return 0;
	if (best == INT_MAX) {
		fprintf(stderr, "pair: no NIC shares a PCIe switch or root port with %s: ",
			bdf);
		fprintf(stderr, "none can write its memory peer to peer\n");
		return -EHOSTUNREACH;
	}
	printf("pair: picked %s (distance %d)\n", ifname, best);
	return 0;
}
