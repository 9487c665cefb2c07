// SPDX-License-Identifier: GPL-2.0
/*
 * The remote-peer tests' environment and shared helpers: see peer_lib.h.
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
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_traffic.h"
#include "netcfg.h"
#include "peer_lib.h"

#define DMABUF_SIZE		(16 << 20)

static char ctrl[80000];

int peer_env_setup(struct devmem_env *env)
{
	return devmem_env_setup_queue(env, "peer", 41, RX_ADDR, TX_ADDR,
				      BOUND_QUEUE, PORT_DEVMEM, DMABUF_SIZE);
}

pid_t peer_fork(const struct devmem_env *env)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	close_range(3, ~0U, 0);
	if (netns_enter(env->ns) < 0)
		_exit(2);
	return 0;
}

int peer_connect(const char *addr, int pmtudisc)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT_DEVMEM),
	};
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtudisc,
		   sizeof(pmtudisc));
	inet_pton(AF_INET, addr, &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		_exit(3);
	return fd;
}

int send_pattern(int fd, size_t off, size_t len)
{
	static char buf[64 << 10];
	size_t n, i;

	while (len) {
		n = len < sizeof(buf) ? len : sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = pattern_at(off + i);
		if (write(fd, buf, n) != (ssize_t)n)
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

size_t drain_devmem(const struct devmem_env *env, int fd, size_t want,
		    uint64_t *bad, uint64_t *nlinear)
{
	struct rx_result r;
	size_t got = 0;
	int i;

	while (got < want) {
		devmem_recv(fd, want - got, ctrl, sizeof(ctrl),
			    MSG_SOCK_DEVMEM, &r);
		if (r.ret <= 0)
			break;
		*nlinear += r.nlinear;
		for (i = 0; i < r.ndmabuf; i++) {
			const struct dmabuf_cmsg *f = &r.frags[i];
			uint32_t k;

			for (k = 0; k < f->frag_size; k++)
				*bad += env->map[f->frag_offset + k] !=
					pattern_at(got + k);
			got += f->frag_size;
		}
		*bad += dontneed_all(fd, &r) != r.ndmabuf;
	}
	return got;
}

int peer_flow_whole(struct devmem_env *env, size_t want)
{
	struct timeval tv = { .tv_sec = 10 };
	uint64_t bad = 0, nlinear = 0;
	int fd, sender;
	size_t got;
	pid_t pid;

	fd = devmem_env_stream(env, want, &pid);
	if (fd < 0) {
		fprintf(stderr, "# devmem flow: no stream: %s\n",
			strerror(-fd));
		return fd;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	got = drain_devmem(env, fd, want, &bad, &nlinear);
	/* a stalled flow: the sender would wait for TCP to give up */
	if (got != want)
		kill(pid, SIGKILL);
	sender = reap(pid);
	close(fd);
	if (got == want && !bad && !nlinear && !sender)
		return 0;
	fprintf(stderr, "# devmem flow: %zu/%zu bytes, %llu bad, %llu host frags, sender %d\n",
		got, want, (unsigned long long)bad,
		(unsigned long long)nlinear, sender);
	return -EIO;
}

int peer_host_flow_dropped(struct devmem_env *env)
{
	struct timeval tv = { .tv_sec = 3 };
	int lfd, hfd, ret;
	ssize_t n;
	pid_t hpid;
	char c;

	lfd = listen_on(RX_ADDR, PORT_HOST);
	if (lfd < 0)
		return lfd;
	hpid = sender_to(env->ns, RX_ADDR, PORT_HOST, 4096);
	hfd = accept(lfd, NULL, NULL);
	if (hfd < 0) {
		ret = -errno;
	} else {
		setsockopt(hfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(hfd, &c, 1, 0);
		ret = n >= 0 ? -EPROTO : errno == EAGAIN ? 0 : -errno;
		close(hfd);
	}
	close(lfd);
	reap(hpid);
	return ret;
}

int icmp_ratelimit_off(char *saved, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(ICMP_RATELIMIT, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, saved, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	saved[n] = '\0';
	return write_file(ICMP_RATELIMIT, "0");
}

void peer_conn_read(const struct devmem_env *env, struct peer_conn *c)
{
	static char buf[1 << 16];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctrl,
		.msg_controllen = sizeof(ctrl),
	};
	uint64_t lin = 0, seen = 0, k;
	struct dmabuf_token t;
	struct cmsghdr *cm;
	ssize_t ret;

	ret = recvmsg(c->fd, &msg, MSG_SOCK_DEVMEM | MSG_DONTWAIT);
	if (ret < 0 && errno == EAGAIN)
		return;
	if (ret <= 0) {
		c->eof = 1;
		return;
	}
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		const struct dmabuf_cmsg *dc = (void *)CMSG_DATA(cm);

		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_DEVMEM_LINEAR) {
			for (k = 0; k < dc->frag_size; k++)
				c->bad += (uint8_t)buf[lin + k] !=
					  pattern_at(c->off + seen + k);
			lin += dc->frag_size;
		} else if (cm->cmsg_type == SCM_DEVMEM_DMABUF) {
			for (k = 0; k < dc->frag_size; k++)
				c->bad += env->map[dc->frag_offset + k] !=
					  pattern_at(c->off + seen + k);
			c->devmem += dc->frag_size;
			t.token_start = dc->frag_token;
			t.token_count = 1;
			c->bad += dontneed(c->fd, &t, 1) != 1;
		} else {
			continue;
		}
		seen += dc->frag_size;
	}
	if (!seen) {
		/* a readable skb: copied as by any recvmsg() */
		for (k = 0; k < (uint64_t)ret; k++)
			c->bad += (uint8_t)buf[k] != pattern_at(c->off + k);
		seen = ret;
	}
	c->bad += seen != (uint64_t)ret;
	c->off += ret;
}
