/* SPDX-License-Identifier: GPL-2.0 */
/* ncdevmem's sending side (ncdevmem_tx.c) */
#ifndef NCDEVMEM_TX_H
#define NCDEVMEM_TX_H

#include <stddef.h>
#include <stdint.h>

/* Client mode: bind the dmabuf for TX on @ifname and send stdin from it
 * over the connected socket @fd, in iovecs of at most @chunk bytes (0: as
 * large as possible). Every provider, GPU memory included, is written with
 * mem_write(). The exit status.
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

#endif /* NCDEVMEM_TX_H */
