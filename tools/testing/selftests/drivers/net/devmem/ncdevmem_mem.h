/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ncdevmem's memory providers (ncdevmem_mem.c): where the dmabuf comes
 * from, how the CPU reads a received fragment back to validate it, and
 * how what is sent gets into it.
 */
#ifndef NCDEVMEM_MEM_H
#define NCDEVMEM_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* exit status when the memory asked for is not here (kselftest's skip) */
#define KSFT_SKIP		4

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
	/* Copy @src into device memory; NULL: through a CPU mapping. */
	int (*write)(const struct devmem_mem *m, uint64_t off,
		     const void *src, size_t len);
};

struct devmem_mem {
	const struct mem_ops *ops;
	size_t size;
	int fd;			/* the dmabuf */
	int memfd;		/* udmabuf: its memfd, open while it is (-1) */
	bool huge;		/* udmabuf: from a hugetlb memfd */
	uint8_t *map;		/* CPU mapping, host memory only */
	uint8_t *wmap;		/* its writable twin, made by mem_write() */
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
/* Where the CPU reads [@off, @off + @len), or NULL if it cannot. GPU
 * memory is copied into a bounce buffer (valid until the next call),
 * which grows to the longest fragment asked for.
 */
const uint8_t *mem_frag(struct devmem_mem *m, uint64_t off, uint32_t len);
/* Put @len bytes of @src at @off of the dmabuf: 0 or -errno. */
int mem_write(struct devmem_mem *m, uint64_t off, const void *src,
	      size_t len);
/* The p2pbuf device the "p2p" provider uses, or NULL if there is none. */
const char *p2pbuf_path(void);
/* Names of the providers, for the usage text. */
const char *mem_providers(void);

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

#endif /* NCDEVMEM_MEM_H */
