/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traffic helpers shared by the receive and fault tests: a pattern sender
 * in the peer namespace, recvmsg(MSG_SOCK_DEVMEM) with the cmsgs decoded,
 * token return.
 */
#ifndef DEVMEM_TRAFFIC_H
#define DEVMEM_TRAFFIC_H

#include <arpa/inet.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>

#ifndef MSG_SOCK_DEVMEM
#define MSG_SOCK_DEVMEM		0x2000000
#endif

/* upstream ncdevmem's -v 7 pattern: 1..6 then '\n' */
static inline uint8_t pattern_at(uint64_t off)
{
	unsigned int v = off % 7 + 1;

	return v == 7 ? '\n' : v;
}

/* Fork a sender in namespace @ns: connect to @addr:@port, send @bytes of
 * the pattern, close. Returns its pid.
 */
static inline pid_t sender_to(const char *ns, const char *addr, int port,
			      size_t bytes)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char path[64], buf[4096];
	size_t off = 0, i;
	pid_t pid;
	int fd, nsfd;

	pid = fork();
	if (pid)
		return pid;

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
	while (off < bytes) {
		size_t n = bytes - off < sizeof(buf) ? bytes - off : sizeof(buf);

		for (i = 0; i < n; i++)
			buf[i] = pattern_at(off + i);
		if (write(fd, buf, n) != (ssize_t)n)
			_exit(4);
		off += n;
	}
	close(fd);
	_exit(0);
}

static inline int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Wait until @fd has at least @bytes queued (or 5 s). */
static inline void wait_inq(int fd, int bytes)
{
	int i, inq = 0;

	for (i = 0; i < 500; i++) {
		ioctl(fd, FIONREAD, &inq);
		if (inq >= bytes)
			return;
		usleep(10000);
	}
}

struct rx_result {
	ssize_t ret;
	int err;
	int ndmabuf;
	int nlinear;
	uint32_t tokens[512];
	struct dmabuf_cmsg frags[512];
};

static inline void devmem_recv(int fd, size_t len, void *ctrl,
			       size_t ctrl_len, int flags, struct rx_result *r)
{
	static char iov_buf[1 << 20];
	struct iovec iov = { iov_buf, len };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctrl,
		.msg_controllen = ctrl_len,
	};
	struct cmsghdr *cm;

	memset(r, 0, sizeof(*r));
	r->ret = recvmsg(fd, &msg, flags);
	r->err = r->ret < 0 ? errno : 0;
	if (r->ret <= 0 || !ctrl)
		return;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		struct dmabuf_cmsg *dc = (void *)CMSG_DATA(cm);

		if (cm->cmsg_type == SCM_DEVMEM_LINEAR)
			r->nlinear++;
		if (cm->cmsg_type == SCM_DEVMEM_DMABUF && r->ndmabuf < 512) {
			r->frags[r->ndmabuf] = *dc;
			r->tokens[r->ndmabuf++] = dc->frag_token;
		}
	}
}

static inline int dontneed(int fd, const struct dmabuf_token *t, int n)
{
	int ret = setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, t,
			     n * sizeof(*t));

	return ret < 0 ? -errno : ret;
}

static inline int dontneed_all(int fd, const struct rx_result *r)
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

#endif /* DEVMEM_TRAFFIC_H */
