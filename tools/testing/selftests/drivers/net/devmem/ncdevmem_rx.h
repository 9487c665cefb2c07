/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The receive core of ncdevmem.c that its other receive paths share
 * (ncdevmem_uring.c): the statistics of a stream, the batch of tokens
 * waiting to go back, and the handling of one message's cmsgs.
 */
#ifndef NCDEVMEM_RX_H
#define NCDEVMEM_RX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <openssl/evp.h>

#include "ncdevmem_zcrx.h"

#define CTRL_LEN		80000	/* control buffer of one receive */
#define MAX_TOKENS		128	/* token ranges per DONTNEED */

struct rx_stats {
	uint64_t bytes;
	uint64_t devmem_bytes;
	uint64_t linear_bytes;
	uint64_t host_bytes;
	uint64_t frags;
	uint64_t tokens_returned;
	uint64_t dontneed_calls;
	uint64_t recvmsg_calls;
	uint64_t ring_enters;	/* --uring: io_uring_enter() calls */
	uint64_t ring_cqes;	/* --uring: completions with data */
	struct ncdm_zcrx_stats zc;	/* --zcrx */
	uint64_t errors;
};

struct token_batch {
	struct dmabuf_token t[MAX_TOKENS];
	int n;
	int frags;
};

extern size_t read_size;	/* --read-size: bytes per receive */
extern atomic_bool stop;	/* a signal asked to stop */

/* Give back the tokens of @b (SO_DEVMEM_DONTNEED): 0, -1 on error. */
int return_tokens(int fd, struct token_batch *b, struct rx_stats *st);
/*
 * Walk the cmsgs of one received message of @n bytes: validate, hash,
 * batch the tokens. -EIO on a steering error or a failed token return.
 */
int handle_msg(int fd, struct msghdr *msg, ssize_t n, uint32_t dmabuf_id,
	       struct token_batch *batch, struct rx_stats *st, EVP_MD_CTX *sha);

#endif
