/* SPDX-License-Identifier: GPL-2.0 */
/* ncdevmem --uring (ncdevmem_uring.c): devmem receive through io_uring. */
#ifndef NCDEVMEM_URING_H
#define NCDEVMEM_URING_H

#include <stdbool.h>
#include <stdint.h>
#include <liburing.h>

#include "ncdevmem_rx.h"

/* --uring: provided buffers of [io_uring_recvmsg_out][control][payload],
 * at least URING_BUFS, two per connection with --parallel
 */
#define URING_BUFS		64
#define URING_BGID		1

struct uring_rx {
	struct io_uring ring;
	struct io_uring_buf_ring *br;
	unsigned int nbufs;	/* a power of two */
	uint8_t *bufs;
	size_t buf_len;
	struct msghdr msgh;	/* the layout of every buffer */
};

/* A connection's multishot recvmsg */
struct uring_conn {
	bool armed;		/* the request is live */
	bool eof;
};

/* A ring for @nconn connections' requests and completions: 0 or -errno. */
int uring_rx_init(struct uring_rx *u, int nconn);
void uring_rx_exit(struct uring_rx *u);
/* Arm @c's multishot recvmsg on @fd, its completions tagged @tag. */
void uring_arm(struct uring_rx *u, struct uring_conn *c, int fd,
	       uint64_t tag);
/* Submit what is armed, wait for one completion: 0 or -errno. */
int uring_enter(struct uring_rx *u, struct rx_stats *st);
/* One completion of @c's multishot recvmsg, its cmsgs handled. */
int uring_cqe(struct uring_rx *u, struct uring_conn *c, int fd,
	      const struct io_uring_cqe *cqe, uint32_t dmabuf_id,
	      struct token_batch *batch, struct rx_stats *st, EVP_MD_CTX *sha);
/* Receive connection @fd to its end through one ring: 0 or -errno. */
int receive_uring(int fd, uint32_t dmabuf_id, struct rx_stats *st,
		  EVP_MD_CTX *sha);

#endif
