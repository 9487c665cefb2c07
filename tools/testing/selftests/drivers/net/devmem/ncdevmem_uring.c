// SPDX-License-Identifier: GPL-2.0
/*
 * ncdevmem --uring (ncdevmem_uring.h): devmem receive through io_uring, a
 * multishot IORING_OP_RECVMSG per connection with its cmsgs in provided
 * buffers, handled as recvmsg()'s are (ncdevmem_rx.h); tokens still go
 * back with SO_DEVMEM_DONTNEED.
 */
#define _GNU_SOURCE
/* struct dmabuf_token comes from the uapi header, whose struct iovec
 * must win over the C library's
 */
#include <linux/uio.h>
#define __iovec_defined 1

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <liburing.h>

#include "ncdevmem_rx.h"
#include "ncdevmem_uring.h"

#ifndef MSG_SOCK_DEVMEM
#define MSG_SOCK_DEVMEM		0x2000000
#endif

static void uring_buf_put(struct uring_rx *u, int bid)
{
	io_uring_buf_ring_add(u->br, u->bufs + (size_t)bid * u->buf_len,
			      u->buf_len, bid, io_uring_buf_ring_mask(u->nbufs),
			      0);
	io_uring_buf_ring_advance(u->br, 1);
}

/* A ring for @nconn connections' requests and completions. */
int uring_rx_init(struct uring_rx *u, int nconn)
{
	struct io_uring_buf_reg reg = { .bgid = URING_BGID };
	unsigned int i;
	int ret;

	memset(u, 0, sizeof(*u));
	for (u->nbufs = URING_BUFS; u->nbufs < 2U * nconn; u->nbufs *= 2)
		;
	reg.ring_entries = u->nbufs;
	u->msgh.msg_controllen = CTRL_LEN;
	u->buf_len = sizeof(struct io_uring_recvmsg_out) + CTRL_LEN +
		     rx_opts.read_size;
	ret = io_uring_queue_init(nconn < 8 ? 8 : nconn, &u->ring, 0);
	if (ret) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-ret));
		return ret;
	}
	u->br = mmap(NULL, u->nbufs * sizeof(struct io_uring_buf),
		     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->br == MAP_FAILED) {
		ret = -ENOMEM;
		goto err_exit_ring;
	}
	/* payload areas stay untouched (device memory is not copied) */
	u->bufs = malloc(u->nbufs * u->buf_len);
	if (!u->bufs) {
		ret = -ENOMEM;
		goto err_unmap;
	}
	reg.ring_addr = (unsigned long)u->br;
	ret = io_uring_register_buf_ring(&u->ring, &reg, 0);
	if (ret) {
		fprintf(stderr, "io_uring buffer ring: %s\n", strerror(-ret));
		goto err_free;
	}
	io_uring_buf_ring_init(u->br);
	for (i = 0; i < u->nbufs; i++)
		uring_buf_put(u, i);
	return 0;

err_free:
	free(u->bufs);
err_unmap:
	munmap(u->br, u->nbufs * sizeof(struct io_uring_buf));
err_exit_ring:
	io_uring_queue_exit(&u->ring);
	return ret;
}

void uring_rx_exit(struct uring_rx *u)
{
	io_uring_queue_exit(&u->ring);
	munmap(u->br, u->nbufs * sizeof(struct io_uring_buf));
	free(u->bufs);
}

/* Arm @c's multishot recvmsg on @fd, its completions tagged @tag. */
void uring_arm(struct uring_rx *u, struct uring_conn *c, int fd, uint64_t tag)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	io_uring_prep_recvmsg_multishot(sqe, fd, &u->msgh, MSG_SOCK_DEVMEM);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = URING_BGID;
	io_uring_sqe_set_data64(sqe, tag);
	c->armed = true;
}

/* One completion of @c's multishot recvmsg: its cmsgs handled as
 * recvmsg's.
 */
int uring_cqe(struct uring_rx *u, struct uring_conn *c, int fd,
	      const struct io_uring_cqe *cqe, uint32_t dmabuf_id,
	      struct token_batch *batch, struct rx_stats *st, EVP_MD_CTX *sha)
{
	struct io_uring_recvmsg_out *o;
	int ret = 0, bid;

	if (!(cqe->flags & IORING_CQE_F_MORE))
		c->armed = false;
	if (cqe->res == -ENOBUFS || cqe->res == -EINTR || cqe->res == -EAGAIN)
		return 0;	/* re-armed by the caller */
	if (cqe->res < 0) {
		fprintf(stderr, "io_uring recvmsg: %s\n", strerror(-cqe->res));
		return cqe->res;
	}
	if (!(cqe->flags & IORING_CQE_F_BUFFER)) {
		c->eof = !cqe->res;
		return 0;
	}
	bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
	o = io_uring_recvmsg_validate(u->bufs + (size_t)bid * u->buf_len,
				      cqe->res, &u->msgh);
	if (!o) {
		ret = -EIO;
	} else if (!o->payloadlen) {
		c->eof = true;
	} else {
		struct iovec iov = {
			.iov_base = io_uring_recvmsg_payload(o, &u->msgh),
			.iov_len = o->payloadlen,
		};
		struct msghdr m = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = (char *)(o + 1) + u->msgh.msg_namelen,
			.msg_controllen = o->controllen,
		};

		st->ring_cqes++;
		if (handle_msg(fd, &m, o->payloadlen, dmabuf_id, batch, st,
			       sha))
			ret = -EIO;
	}
	uring_buf_put(u, bid);
	return ret;
}

/* Submit what is armed, wait for one completion: 0 or -errno. */
int uring_enter(struct uring_rx *u, struct rx_stats *st)
{
	int ret = io_uring_submit_and_wait(&u->ring, 1);

	st->ring_enters++;
	if (ret < 0 && ret != -EINTR) {
		fprintf(stderr, "io_uring_enter: %s\n", strerror(-ret));
		return ret;
	}
	return 0;
}

/* receive() through io_uring: one syscall waits for, and reaps, many. */
int receive_uring(int fd, uint32_t dmabuf_id, struct rx_stats *st,
		  EVP_MD_CTX *sha)
{
	struct token_batch batch = {};
	struct uring_conn c = {};
	struct io_uring_cqe *cqe;
	struct uring_rx u;
	int ret;

	ret = uring_rx_init(&u, 1);
	if (ret)
		return ret;
	while (!ret && !c.eof && !atomic_load(&stop)) {
		if (!c.armed)
			uring_arm(&u, &c, fd, 0);
		ret = uring_enter(&u, st);
		while (!ret && !io_uring_peek_cqe(&u.ring, &cqe)) {
			ret = uring_cqe(&u, &c, fd, cqe, dmabuf_id, &batch, st,
					sha);
			io_uring_cqe_seen(&u.ring, cqe);
		}
	}
	if (return_tokens(fd, &batch, st))
		ret = -EIO;
	uring_rx_exit(&u);
	return ret;
}
