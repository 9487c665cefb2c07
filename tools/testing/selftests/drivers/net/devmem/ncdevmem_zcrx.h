/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ncdevmem --zcrx (ncdevmem_zcrx.c): receive through io_uring zero-copy
 * receive instead of recvmsg(MSG_SOCK_DEVMEM). Apart from ncdevmem.c,
 * which uses liburing: this file uses the kernel's <linux/io_uring.h>.
 */
#ifndef NCDEVMEM_ZCRX_H
#define NCDEVMEM_ZCRX_H

#include <stddef.h>
#include <stdint.h>

struct ncdm_zcrx;

/* a buffer handed out: @len bytes at @off of instance @inst's area */
typedef void (*ncdm_zcrx_frag_fn)(void *arg, unsigned int inst, uint64_t off,
				  uint32_t len);

struct ncdm_zcrx_stats {
	uint64_t enters;	/* io_uring_enter() calls */
	uint64_t cqes;		/* data completions */
	uint64_t rearms;	/* requests re-armed after a full CQ */
	uint64_t switches;	/* connections moved to another instance */
};

/*
 * One instance per RX queue @q0..@q0 + @nq - 1 of @ifindex: host areas of
 * @size / @nq bytes each when @dmabuf_fd < 0, else the dmabuf @dmabuf_fd
 * of @size bytes (one queue only). @buf_len: rx_buf_len (0: PAGE_SIZE).
 * NULL on error, said on stderr.
 */
struct ncdm_zcrx *ncdm_zcrx_open(int ifindex, int q0, int nq, int dmabuf_fd,
				 size_t size, uint32_t buf_len);
/*
 * Export every instance of @z (ZCRX_CTRL_EXPORT, from the thread that
 * made @z: its ring is single-issuer) so that other rings can import
 * them; from then on, the rings that share them take turns at the refill
 * rings. 0 or -errno.
 */
int ncdm_zcrx_export(struct ncdm_zcrx *z);
/*
 * A ring of its own, for the calling thread, that imports every instance
 * @src exported (ZCRX_REG_IMPORT): it receives from the same queues into
 * the same areas. Close it before @src. NULL on error, said on stderr.
 */
struct ncdm_zcrx *ncdm_zcrx_import(struct ncdm_zcrx *src);
/* the CPU view of instance @inst's host area, NULL for a dmabuf */
const uint8_t *ncdm_zcrx_host_area(const struct ncdm_zcrx *z,
				   unsigned int inst);
/* Receive connection @fd to its end, every buffer through @fn and back
 * through the refill ring: 0 or -errno.
 */
int ncdm_zcrx_receive(struct ncdm_zcrx *z, int fd, ncdm_zcrx_frag_fn fn,
		      void *arg, struct ncdm_zcrx_stats *st);
/* the kernel's counts over all instances (the ring's fdinfo): 0 or -1 */
int ncdm_zcrx_kernel(const struct ncdm_zcrx *z, uint64_t *zc_bytes,
		     uint64_t *copied);
void ncdm_zcrx_close(struct ncdm_zcrx *z);

#endif
