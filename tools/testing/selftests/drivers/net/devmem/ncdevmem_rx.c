// SPDX-License-Identifier: GPL-2.0
/*
 * ncdevmem's receive core (ncdevmem_rx.h): what every receive path does
 * with the payload it is handed. A devmem fragment is checked against the
 * binding and read back where it lies, a linear or host-memory one is
 * read from the user buffer; both are validated and hashed, and the
 * fragments' tokens go back in batches. The recvmsg() loops of
 * ncdevmem.c and the io_uring ones of ncdevmem_uring.c call in here; of
 * ncdevmem's other files, this one calls only the zero-copy receive's
 * interface (ncdevmem_zcrx.h).
 */
#define _GNU_SOURCE
/* struct dmabuf_cmsg and dmabuf_token come from the uapi header, whose
 * struct iovec must win over the C library's
 */
#include <linux/uio.h>
#define __iovec_defined 1

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/dma-buf.h>
#include <openssl/evp.h>

#include "devmem_traffic.h"
#include "ncdevmem_mem.h"
#include "ncdevmem_rx.h"
#include "ncdevmem_zcrx.h"

#ifndef MSG_SOCK_DEVMEM
#define MSG_SOCK_DEVMEM		0x2000000
#endif

atomic_bool stop;
struct rx_opts rx_opts = {
	.read_size = IOV_LEN,
	.dontneed_batch = MAX_TOKEN_FRAGS,
};

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void rx_stats_add(struct rx_stats *sum, const struct rx_stats *st)
{
	sum->bytes += st->bytes;
	sum->devmem_bytes += st->devmem_bytes;
	sum->linear_bytes += st->linear_bytes;
	sum->host_bytes += st->host_bytes;
	sum->frags += st->frags;
	sum->tokens_returned += st->tokens_returned;
	sum->dontneed_calls += st->dontneed_calls;
	sum->dontneed_ns += st->dontneed_ns;
	sum->recvmsg_calls += st->recvmsg_calls;
	sum->ring_enters += st->ring_enters;
	sum->ring_cqes += st->ring_cqes;
	sum->zc.enters += st->zc.enters;
	sum->zc.cqes += st->zc.cqes;
	sum->zc.rearms += st->zc.rearms;
	sum->zc.switches += st->zc.switches;
	sum->errors += st->errors;
}

int return_tokens(int fd, struct token_batch *b, struct rx_stats *st)
{
	double t0;
	int ret;

	if (!b->n)
		return 0;
	t0 = now();
	ret = setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, b->t,
			 b->n * sizeof(b->t[0]));
	st->dontneed_ns += (now() - t0) * 1e9;
	st->dontneed_calls++;
	if (ret != b->frags) {
		fprintf(stderr, "SO_DEVMEM_DONTNEED returned %d for %d tokens: %s\n",
			ret, b->frags, ret < 0 ? strerror(errno) : "short");
		st->errors++;
		ret = -1;
	} else {
		st->tokens_returned += ret;
		ret = 0;
	}
	b->n = 0;
	b->frags = 0;
	return ret;
}

/* Batch @token, merged into the last range where it follows on. */
static int add_token(int fd, struct token_batch *b, uint32_t token,
		     struct rx_stats *st)
{
	if (b->n && b->t[b->n - 1].token_start + b->t[b->n - 1].token_count ==
		    token) {
		b->t[b->n - 1].token_count++;
	} else {
		if (b->n == MAX_TOKENS && return_tokens(fd, b, st))
			return -1;
		b->t[b->n].token_start = token;
		b->t[b->n].token_count = 1;
		b->n++;
	}
	if (++b->frags == rx_opts.dontneed_batch)
		return return_tokens(fd, b, st);
	return 0;
}

/* Validate and hash @len bytes at @p, the next bytes of the stream. */
static void consume(const uint8_t *p, size_t len, struct rx_stats *st,
		    EVP_MD_CTX *sha)
{
	if (rx_opts.validate)
		st->errors += check_pattern_n(p, len, st->bytes,
					      rx_opts.validate);
	if (sha)
		EVP_DigestUpdate(sha, p, len);
	st->bytes += len;
}

/* @len bytes at @p of device memory, or NULL where the CPU cannot read. */
static void consume_device(const uint8_t *p, uint32_t len, struct rx_stats *st,
			   EVP_MD_CTX *sha)
{
	if (rx_opts.validate || sha) {
		if (p) {
			consume(p, len, st, sha);
		} else {
			st->errors++;
			st->bytes += len;
		}
	} else {
		st->bytes += len;
	}
	st->devmem_bytes += len;
	st->frags++;
}

void validate_frag(const struct dmabuf_cmsg *dc, uint32_t dmabuf_id,
		   struct rx_stats *st, EVP_MD_CTX *sha)
{
	struct devmem_mem *mem = rx_opts.mem;

	if (dc->dmabuf_id != dmabuf_id ||
	    dc->frag_offset + dc->frag_size > mem->size) {
		fprintf(stderr, "bad fragment: id %u offset %llu size %u\n",
			dc->dmabuf_id, (unsigned long long)dc->frag_offset,
			dc->frag_size);
		st->errors++;
		st->bytes += dc->frag_size;
		st->devmem_bytes += dc->frag_size;
		st->frags++;
		return;
	}
	consume_device(rx_opts.validate || sha ?
		       mem_frag(mem, dc->frag_offset, dc->frag_size) : NULL,
		       dc->frag_size, st, sha);
}

/* One SCM_DEVMEM_* cmsg; the linear bytes are at the start of @iov_buf. */
static int handle_frag(int fd, const struct dmabuf_cmsg *dc, int type,
		       const uint8_t *iov_buf, uint32_t dmabuf_id,
		       struct token_batch *batch, struct rx_stats *st,
		       EVP_MD_CTX *sha)
{
	if (type == SCM_DEVMEM_LINEAR) {
		if (rx_opts.fail_on_linear) {
			fprintf(stderr, "linear payload (%u bytes) and -L given\n",
				dc->frag_size);
			st->errors++;
			return -EIO;
		}
		consume(iov_buf, dc->frag_size, st, sha);
		st->linear_bytes += dc->frag_size;
		return 0;
	}
	validate_frag(dc, dmabuf_id, st, sha);
	return add_token(fd, batch, dc->frag_token, st);
}

int handle_msg(int fd, struct msghdr *msg, ssize_t n, uint32_t dmabuf_id,
	       struct token_batch *batch, struct rx_stats *st, EVP_MD_CTX *sha)
{
	struct dma_buf_sync sync = { DMA_BUF_SYNC_READ | DMA_BUF_SYNC_START };
	const uint8_t *iov_buf = msg->msg_iov->iov_base;
	int dmabuf_fd = rx_opts.mem->fd;
	bool devmem = false;
	struct cmsghdr *cm;
	int ret = 0;

	ioctl(dmabuf_fd, DMA_BUF_IOCTL_SYNC, &sync);
	for (cm = CMSG_FIRSTHDR(msg); cm && !ret; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET ||
		    (cm->cmsg_type != SCM_DEVMEM_DMABUF &&
		     cm->cmsg_type != SCM_DEVMEM_LINEAR))
			continue;
		devmem = true;
		if (handle_frag(fd, (void *)CMSG_DATA(cm), cm->cmsg_type,
				iov_buf, dmabuf_id, batch, st, sha))
			ret = -EIO;
	}
	sync.flags = DMA_BUF_SYNC_READ | DMA_BUF_SYNC_END;
	ioctl(dmabuf_fd, DMA_BUF_IOCTL_SYNC, &sync);

	if (!devmem) {
		/* data from a queue without the dmabuf: steering, or the
		 * stream after --unbind-after; validated and hashed too
		 */
		st->host_bytes += n;
		consume(iov_buf, n, st, sha);
		if (!rx_opts.allow_host) {
			fprintf(stderr, "flow steering error: %zd bytes in host memory\n",
				n);
			st->errors++;
			ret = -EIO;
		}
	}
	return ret;
}

ssize_t receive_one(int fd, uint32_t dmabuf_id, struct rx_stats *st,
		    struct token_batch *batch, EVP_MD_CTX *sha,
		    char *iov_buf, char *ctrl, int flags)
{
	struct iovec iov = { .iov_base = iov_buf, .iov_len = rx_opts.read_size };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctrl,
		.msg_controllen = CTRL_LEN,
	};
	ssize_t n;

	n = recvmsg(fd, &msg, MSG_SOCK_DEVMEM | flags);
	st->recvmsg_calls++;
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return -EAGAIN;
	if (n < 0) {
		fprintf(stderr, "recvmsg: %s\n", strerror(errno));
		return -errno;
	}
	if (n && handle_msg(fd, &msg, n, dmabuf_id, batch, st, sha))
		return -EIO;
	return n;
}

struct zcrx_rx {
	struct ncdm_zcrx *z;
	struct rx_stats *st;
	EVP_MD_CTX *sha;
};

/* A buffer in instance @inst's area, validated where it is. */
static void zcrx_frag(void *arg, unsigned int inst, uint64_t off, uint32_t len)
{
	struct zcrx_rx *r = arg;
	const uint8_t *host;

	if (!rx_opts.validate && !r->sha) {
		consume_device(NULL, len, r->st, NULL);
		return;
	}
	host = ncdm_zcrx_host_area(r->z, inst);
	consume_device(host ? host + off : mem_frag(rx_opts.mem, off, len),
		       len, r->st, r->sha);
}

int receive_zcrx(struct ncdm_zcrx *z, int fd, struct rx_stats *st,
		 EVP_MD_CTX *sha)
{
	struct zcrx_rx r = { .z = z, .st = st, .sha = sha };
	int ret;

	ret = ncdm_zcrx_receive(z, fd, zcrx_frag, &r, &st->zc);
	if (ret)
		fprintf(stderr, "RECV_ZC: %s\n", strerror(-ret));
	return ret;
}
