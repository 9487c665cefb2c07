/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ncdevmem's receive core (ncdevmem_rx.c), which every receive path
 * shares: the statistics of a stream, the batch of tokens waiting to go
 * back, and what is done with one message's payload and cmsgs.
 */
#ifndef NCDEVMEM_RX_H
#define NCDEVMEM_RX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <openssl/evp.h>

#include "ncdevmem_zcrx.h"

#define IOV_LEN			1048576	/* the largest receive */
#define CTRL_LEN		80000	/* control buffer of one receive */
#define MAX_TOKENS		128	/* token ranges per DONTNEED */
#define MAX_TOKEN_FRAGS		1024	/* the largest batch of tokens */

struct devmem_mem;
struct dmabuf_cmsg;

/* What the command line tells the core; set before the first receive. */
struct rx_opts {
	struct devmem_mem *mem;	/* the dmabuf the fragments lie in */
	size_t read_size;	/* --read-size: bytes per receive */
	int validate;		/* -v N: the pattern's period; 0: none */
	int dontneed_batch;	/* -N: fragments per SO_DEVMEM_DONTNEED */
	bool fail_on_linear;	/* -L: an SCM_DEVMEM_LINEAR is an error */
	bool allow_host;	/* --allow-host: host memory is no error */
};

struct rx_stats {
	uint64_t bytes;
	uint64_t devmem_bytes;
	uint64_t linear_bytes;
	uint64_t host_bytes;
	uint64_t frags;
	uint64_t tokens_returned;
	uint64_t dontneed_calls;
	uint64_t dontneed_ns;	/* in SO_DEVMEM_DONTNEED */
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

extern struct rx_opts rx_opts;
extern atomic_bool stop;	/* a signal asked to stop */

/* CLOCK_MONOTONIC, in seconds */
double now(void);
/* Add the counts of @st to @sum. */
void rx_stats_add(struct rx_stats *sum, const struct rx_stats *st);
/* Give back the tokens of @b (SO_DEVMEM_DONTNEED): 0, -1 on error. */
int return_tokens(int fd, struct token_batch *b, struct rx_stats *st);
/*
 * The device-memory fragment @dc, the next bytes of the stream: checked
 * against the binding @dmabuf_id and the dmabuf's size, read back through
 * the memory provider (a mapping, or the GPU runtime's copy), validated
 * and hashed. Errors are counted in @st.
 */
void validate_frag(const struct dmabuf_cmsg *dc, uint32_t dmabuf_id,
		   struct rx_stats *st, EVP_MD_CTX *sha);
/*
 * Walk the cmsgs of one received message of @n bytes, bracketed by the
 * dmabuf sync a CPU reader of device memory needs: validate, hash, batch
 * the tokens. -EIO on a steering error (data in host memory without
 * --allow-host) or a failed token return.
 */
int handle_msg(int fd, struct msghdr *msg, ssize_t n, uint32_t dmabuf_id,
	       struct token_batch *batch, struct rx_stats *st, EVP_MD_CTX *sha);
/*
 * One recvmsg(MSG_SOCK_DEVMEM | @flags) of up to --read-size bytes into
 * @iov_buf and @ctrl (CTRL_LEN), its cmsgs handled. Returns the bytes, 0
 * at EOF, -EAGAIN if interrupted or nothing was there, or another -errno
 * (printed).
 */
ssize_t receive_one(int fd, uint32_t dmabuf_id, struct rx_stats *st,
		    struct token_batch *batch, EVP_MD_CTX *sha,
		    char *iov_buf, char *ctrl, int flags);
/* Receive connection @fd through the zero-copy receive @z: 0 or -errno. */
int receive_zcrx(struct ncdm_zcrx *z, int fd, struct rx_stats *st,
		 EVP_MD_CTX *sha);

#endif
