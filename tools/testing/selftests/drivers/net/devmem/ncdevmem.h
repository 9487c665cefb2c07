/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ncdevmem's memory providers: where the dmabuf that receives the payload
 * comes from, and how the CPU reads a fragment back to validate it.
 */
#ifndef NCDEVMEM_H
#define NCDEVMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KSFT_SKIP		4	/* exit status: skipped (kselftest) */

struct devmem_mem;

struct mem_ops {
	const char *name;
	/* Export @m->size bytes as a dmabuf into @m->fd. 0, -ENODEV when
	 * there is no such device here (skip), or -errno.
	 */
	int (*alloc)(struct devmem_mem *m);
	/* Copy device memory to @dst; NULL: the dmabuf is mmap()ed. */
	int (*read)(const struct devmem_mem *m, void *dst, uint64_t off,
		    size_t len);
};

struct devmem_mem {
	const struct mem_ops *ops;
	size_t size;
	int fd;			/* the dmabuf */
	bool huge;		/* udmabuf: from a hugetlb memfd */
	uint8_t *map;		/* CPU mapping, host memory only */
	uint64_t dptr;		/* device address, GPU memory only */
	uint8_t *bounce;	/* fragments copied out of GPU memory */
	size_t bounce_len;
};

/* The dmabuf and its CPU view: 0, -ENODEV (skip) or -errno. With
 * @rx_page_size (0: none) the dmabuf's DMA segments must be aligned to it:
 * udmabuf then takes 2 MiB huge pages.
 */
int mem_open(struct devmem_mem *m, const char *provider, size_t size,
	     size_t max_frag, uint32_t rx_page_size);
void mem_close(struct devmem_mem *m);
/* Where the CPU reads [@off, @off + @len), or NULL if it cannot. */
const uint8_t *mem_frag(struct devmem_mem *m, uint64_t off, uint32_t len);
/* The p2pbuf device the "p2p" provider uses, or NULL if there is none. */
const char *p2pbuf_path(void);
/* --pair (ncdevmem_pair.c): print each PCI NIC's path to the memory's
 * owner and whether it reaches it peer to peer; with @pick, put the
 * closest such NIC in @ifname. 0, or -ENODEV.
 */
#define IFNAMSIZ_PAIR	16
int pair_nic(const char *memory, const char *owner, bool pick, char *ifname);
/* A runtime library's entry point, resolved by gpu_load(). */
struct gpu_sym {
	const char *name;
	void *slot;		/* where the function pointer goes */
	bool optional;
};

/* dlopen() @lib (kept loaded) and resolve @syms: 0, -ENODEV (no
 * library: skip) or -EOPNOTSUPP (an entry point is missing).
 */
int gpu_load(const char *kind, const char *lib, const struct gpu_sym *syms);
/* Client mode (ncdevmem_tx.c): bind the dmabuf for TX on @ifname and
 * send stdin from it over the connected socket @fd, in iovecs of at most
 * @chunk bytes (0: as large as possible). The exit status.
 */
int devmem_send(int fd, const char *ifname, const char *memory,
		size_t size, size_t chunk);
/* --tx-bench: send @total bytes, the same @size bytes over and over,
 * "devmem" (from a TX binding on @ifname), "zerocopy" (MSG_ZEROCOPY from
 * host memory) or "copy" (send()); prints the sender's figures once the
 * peer acknowledged everything. The exit status.
 */
int devmem_send_bench(int fd, const char *ifname, const char *memory,
		      size_t size, uint64_t total, const char *how);
/* Names of the providers, for the usage text. */
const char *mem_providers(void);

#endif /* NCDEVMEM_H */
