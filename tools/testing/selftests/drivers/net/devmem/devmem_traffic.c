// SPDX-License-Identifier: GPL-2.0
/*
 * Traffic helpers shared by the receive and fault tests and ncdevmem
 * (see devmem_traffic.h).
 */
#define _GNU_SOURCE
/* struct dmabuf_cmsg and dmabuf_token come from the uapi header, whose
 * struct iovec must win over the C library's
 */
#include <linux/uio.h>
#define __iovec_defined 1

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "devmem_traffic.h"

uint8_t pattern_at_n(uint64_t off, unsigned int n)
{
	unsigned int v = off % n + 1;

	return v == n ? '\n' : v;
}

uint8_t pattern_at(uint64_t off)
{
	return pattern_at_n(off, PATTERN_LEN);
}

size_t check_pattern_n(const uint8_t *p, size_t len, uint64_t off,
		       unsigned int n)
{
	size_t i, bad = 0;

	for (i = 0; i < len; i++)
		bad += p[i] != pattern_at_n(off + i, n);
	return bad;
}

size_t check_pattern(const uint8_t *p, size_t len, size_t off)
{
	return check_pattern_n(p, len, off, PATTERN_LEN);
}

int sender_connect(const char *ns, const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char path[64];
	int fd, nsfd;

	/* Drop inherited descriptors: a copy of a netlink socket here would
	 * keep its bindings alive for as long as we send.
	 */
	close_range(3, ~0U, 0);

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	nsfd = open(path, O_RDONLY);
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNET))
		_exit(2);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_port = htons(port);
	inet_pton(AF_INET, addr, &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		_exit(3);
	return fd;
}

pid_t sender_to_chunks(const char *ns, const char *addr, int port, size_t bytes,
		       size_t chunk)
{
	static char buf[1 << 20];
	size_t off = 0, i;
	pid_t pid;
	int fd;

	if (chunk > sizeof(buf))
		chunk = sizeof(buf);

	pid = fork();
	if (pid)
		return pid;

	fd = sender_connect(ns, addr, port);
	while (off < bytes) {
		size_t n = bytes - off < chunk ? bytes - off : chunk;

		for (i = 0; i < n; i++)
			buf[i] = pattern_at(off + i);
		if (write(fd, buf, n) != (ssize_t)n)
			_exit(4);
		off += n;
	}
	close(fd);
	_exit(0);
}

pid_t sender_to(const char *ns, const char *addr, int port, size_t bytes)
{
	return sender_to_chunks(ns, addr, port, bytes, 4096);
}

int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int wait_inq_for(int fd, int bytes, int ms)
{
	int i, inq = 0;

	for (i = 0; i < ms / 10; i++) {
		if (ioctl(fd, FIONREAD, &inq))
			return -1;
		if (inq >= bytes)
			return 0;
		usleep(10000);
	}
	return -1;
}

void wait_inq(int fd, int bytes)
{
	wait_inq_for(fd, bytes, 5000);
}

void rx_parse(struct msghdr *msg, struct rx_result *r)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		struct dmabuf_cmsg *dc = (void *)CMSG_DATA(cm);

		if (cm->cmsg_type == SCM_DEVMEM_LINEAR)
			r->nlinear++;
		if (cm->cmsg_type == SCM_DEVMEM_DMABUF && r->ndmabuf < 512) {
			r->frags[r->ndmabuf] = *dc;
			r->tokens[r->ndmabuf++] = dc->frag_token;
		}
	}
}

struct msghdr devmem_rx_msg(struct iovec *iov, size_t len, void *ctrl,
			    size_t ctrl_len)
{
	static char iov_buf[1 << 20];
	struct msghdr msg = {
		.msg_iov = iov,
		.msg_iovlen = 1,
		.msg_control = ctrl,
		.msg_controllen = ctrl_len,
	};

	iov->iov_base = iov_buf;
	iov->iov_len = len;
	return msg;
}

void rx_result_set(struct rx_result *r, struct msghdr *msg, ssize_t ret,
		   int err)
{
	memset(r, 0, sizeof(*r));
	r->ret = ret;
	r->err = err;
	if (ret > 0 && msg->msg_control)
		rx_parse(msg, r);
}

void devmem_recv(int fd, size_t len, void *ctrl, size_t ctrl_len, int flags,
		 struct rx_result *r)
{
	struct iovec iov;
	struct msghdr msg = devmem_rx_msg(&iov, len, ctrl, ctrl_len);
	ssize_t ret = recvmsg(fd, &msg, flags);

	rx_result_set(r, &msg, ret, ret < 0 ? errno : 0);
}

int dontneed(int fd, const struct dmabuf_token *t, int n)
{
	int ret = setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, t,
			     n * sizeof(*t));

	return ret < 0 ? -errno : ret;
}

int dontneed_all(int fd, const struct rx_result *r)
{
	struct dmabuf_token t[128];
	int i, n = 0, freed = 0;

	for (i = 0; i < r->ndmabuf; i++) {
		t[n].token_start = r->tokens[i];
		t[n].token_count = 1;
		if (++n == 128) {
			freed += dontneed(fd, t, n);
			n = 0;
		}
	}
	return freed + (n ? dontneed(fd, t, n) : 0);
}

void stream_frag(struct stream *st, const struct cmsghdr *cm,
		 const uint8_t *map, const uint8_t *iov_buf)
{
	const struct dmabuf_cmsg *dc = (const void *)CMSG_DATA(cm);
	const uint8_t *base;

	if (cm->cmsg_type == SCM_DEVMEM_LINEAR) {
		st->errors += check_pattern(iov_buf, dc->frag_size, st->bytes);
		st->host += dc->frag_size;
		st->bytes += dc->frag_size;
		return;
	}
	base = st->frag_base ? st->frag_base(map, dc->dmabuf_id) : map;
	if (!base || (st->map_size &&
		      dc->frag_offset + dc->frag_size > st->map_size))
		st->errors += dc->frag_size;
	else
		st->errors += check_pattern(base + dc->frag_offset,
					    dc->frag_size, st->bytes);
	st->devmem += dc->frag_size;
	st->bytes += dc->frag_size;
	st->frags++;
	if (dc->frag_size > st->largest)
		st->largest = dc->frag_size;
}

ssize_t recv_step(int fd, const uint8_t *map, struct stream *st, bool keep,
		  size_t ctrl_len)
{
	static uint8_t iov_buf[1 << 20];
	static char ctrl[80000];
	struct iovec iov = { iov_buf, sizeof(iov_buf) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctrl,
		.msg_controllen = ctrl_len < sizeof(ctrl) ? ctrl_len : sizeof(ctrl),
	};
	struct dmabuf_token t[128];
	struct cmsghdr *cm;
	bool cmsgs = false;
	ssize_t ret;
	int n = 0;

	ret = recvmsg(fd, &msg, MSG_SOCK_DEVMEM);
	if (ret <= 0)
		return ret;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		const struct dmabuf_cmsg *dc = (const void *)CMSG_DATA(cm);

		if (cm->cmsg_level != SOL_SOCKET ||
		    (cm->cmsg_type != SCM_DEVMEM_LINEAR &&
		     cm->cmsg_type != SCM_DEVMEM_DMABUF))
			continue;
		cmsgs = true;
		stream_frag(st, cm, map, iov_buf);
		if (cm->cmsg_type != SCM_DEVMEM_DMABUF)
			continue;
		if (keep) {
			if (st->held)
				st->held[st->nheld++] = dc->frag_token;
			continue;
		}
		t[n].token_start = dc->frag_token;
		t[n].token_count = 1;
		if (++n == 128) {
			dontneed(fd, t, n);
			n = 0;
		}
	}
	if (n)
		dontneed(fd, t, n);
	if (!cmsgs) {
		/* a queue without the dmabuf: plain data in the iovec */
		st->errors += check_pattern(iov_buf, ret, st->bytes);
		st->host += ret;
		st->bytes += ret;
	}
	return ret;
}

ssize_t recv_stream(int fd, const uint8_t *map, struct stream *st, size_t until)
{
	ssize_t ret = 1;

	while (st->bytes < until &&
	       (ret = recv_step(fd, map, st, false, SIZE_MAX)) > 0)
		;
	return ret;
}
