// SPDX-License-Identifier: GPL-2.0
/*
 * Sends that never use device memory behave as on stock 6.1.
 *
 * Devmem TX parses the control messages of a send that names a dmabuf
 * (SCM_DEVMEM_DMABUF) before anything else, so that no copy path takes
 * the dmabuf offsets in its iovecs for addresses. Stock 6.1's
 * tcp_sendmsg_locked() parses them only after fast open has connected,
 * after the wait for the connection and after the repair queues. A
 * program that never names a dmabuf must see 6.1's order: a repair-mode
 * send into the receive queue never looks at its control messages, and
 * sendto(MSG_FASTOPEN) with a control message the kernel refuses still
 * connects first. Each case runs in a network namespace of its own, on
 * loopback.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/tcp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "../../../kselftest_harness.h"
#include "devmem_lib.h"

#ifndef SCM_DEVMEM_DMABUF
#define SCM_DEVMEM_DMABUF	79
#endif
#ifndef TCP_REPAIR_QUEUE
#define TCP_REPAIR_QUEUE	20
#endif
#ifndef TCP_RECV_QUEUE
#define TCP_RECV_QUEUE		1
#endif
/* a SOL_SOCKET type no kernel knows: sock_cmsg_send() refuses it */
#define SCM_UNKNOWN		0x7ff0

/* a control message of one u32 */
struct one_cmsg {
	union {
		char buf[CMSG_SPACE(sizeof(__u32))];
		struct cmsghdr align;
	};
};

static void fill_cmsg(struct msghdr *msg, struct one_cmsg *c, int type,
		      __u32 val)
{
	struct cmsghdr *cm;

	memset(c, 0, sizeof(*c));
	msg->msg_control = c->buf;
	msg->msg_controllen = sizeof(c->buf);
	cm = CMSG_FIRSTHDR(msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(sizeof(__u32));
	memcpy(CMSG_DATA(cm), &val, sizeof(val));
}

FIXTURE(compat)
{
	struct sockaddr_in addr;
	int listener;
};

FIXTURE_SETUP(compat)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	socklen_t len = sizeof(self->addr);
	int fd, one = 1;

	self->listener = -1;
	if (unshare(CLONE_NEWNET))
		SETUP_SKIP("unshare(CLONE_NEWNET): %s", strerror(errno));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, SIOCGIFFLAGS, &ifr));
	ifr.ifr_flags |= IFF_UP;
	ASSERT_EQ(0, ioctl(fd, SIOCSIFFLAGS, &ifr));
	close(fd);
	/* fast open, client and server, in this namespace only */
	ASSERT_EQ(0, write_file("/proc/sys/net/ipv4/tcp_fastopen", "3"));

	self->listener = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, self->listener);
	ASSERT_EQ(0, setsockopt(self->listener, SOL_SOCKET, SO_REUSEADDR,
				&one, sizeof(one)));
	self->addr.sin_family = AF_INET;
	self->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(0, bind(self->listener, (void *)&self->addr,
			  sizeof(self->addr)));
	ASSERT_EQ(0, getsockname(self->listener, (void *)&self->addr, &len));
	ASSERT_EQ(0, setsockopt(self->listener, IPPROTO_TCP, TCP_FASTOPEN,
				&(int){ 16 }, sizeof(int)));
	ASSERT_EQ(0, listen(self->listener, 16));
}

FIXTURE_TEARDOWN(compat)
{
	if (self->listener >= 0)
		close(self->listener);
}

/*
 * sendto(MSG_FASTOPEN) of a few bytes to @to from a new socket, with one
 * control message of @type: returns the socket, the send's errno in
 * *@err (0 if it succeeded).
 */
static int fastopen_with_cmsg(const struct sockaddr_in *to, int type,
			      int *err)
{
	char data[] = "fast open";
	struct iovec iov = { data, sizeof(data) };
	struct msghdr msg = {
		.msg_name = (void *)to,
		.msg_namelen = sizeof(*to),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	struct one_cmsg c;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	fill_cmsg(&msg, &c, type, 1);
	*err = sendmsg(fd, &msg, MSG_FASTOPEN) < 0 ? errno : 0;
	return fd;
}

/*
 * sendto(MSG_FASTOPEN) with a control message the kernel refuses: 6.1
 * connects (the SYN goes out, the handshake completes), then fails the
 * send with EINVAL. The socket is connected afterwards.
 */
TEST_F(compat, fastopen_connects_before_a_bad_cmsg)
{
	struct pollfd pfd = { .fd = self->listener, .events = POLLIN };
	struct sockaddr_in peer;
	socklen_t len = sizeof(peer);
	int fd, conn, err;

	fd = fastopen_with_cmsg(&self->addr, SCM_UNKNOWN, &err);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, err);
	/* connected, as on 6.1: the error came after the handshake */
	EXPECT_EQ(0, getpeername(fd, (void *)&peer, &len)) {
		TH_LOG("not connected: the control message was parsed before fast open (%s)",
		       strerror(errno));
	}
	/* the handshake completed: a connection is waiting */
	ASSERT_EQ(1, poll(&pfd, 1, 2000));
	conn = accept(self->listener, NULL, NULL);
	EXPECT_LE(0, conn);
	if (conn >= 0)
		close(conn);
	close(fd);
}

/*
 * A send naming a dmabuf is parsed first: sendto(MSG_FASTOPEN) with
 * SCM_DEVMEM_DMABUF is refused (device memory is sent by reference on a
 * connected socket only) before any SYN leaves.
 */
TEST_F(compat, fastopen_with_dmabuf_refused_before_connecting)
{
	struct pollfd pfd = { .fd = self->listener, .events = POLLIN };
	struct sockaddr_in peer;
	socklen_t len = sizeof(peer);
	int fd, err;

	fd = fastopen_with_cmsg(&self->addr, SCM_DEVMEM_DMABUF, &err);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, err);
	EXPECT_EQ(-1, getpeername(fd, (void *)&peer, &len));
	EXPECT_EQ(ENOTCONN, errno);
	/* no connection came in */
	EXPECT_EQ(0, poll(&pfd, 1, 200));
	close(fd);
}

/*
 * TCP_REPAIR, receive queue: 6.1 queues the data as received and never
 * parses the control messages, whatever they are.
 */
TEST_F(compat, repair_recv_queue_ignores_cmsgs)
{
	char data[] = "restored receive queue";
	struct iovec iov = { data, sizeof(data) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fd, conn, on = 1, off = 0, q = TCP_RECV_QUEUE;
	struct one_cmsg c;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, connect(fd, (void *)&self->addr, sizeof(self->addr)));
	conn = accept(self->listener, NULL, NULL);
	ASSERT_LE(0, conn);

	if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)))
		SKIP(goto out, "TCP_REPAIR: %s", strerror(errno));
	ASSERT_EQ(0, setsockopt(fd, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q,
				sizeof(q)));
	fill_cmsg(&msg, &c, SCM_UNKNOWN, 1);
	EXPECT_EQ((ssize_t)sizeof(data), sendmsg(fd, &msg, 0)) {
		TH_LOG("repair send: %s (6.1 never parses its cmsgs)",
		       strerror(errno));
	}
	/* a malformed list too */
	((struct cmsghdr *)c.buf)->cmsg_len = 1;
	EXPECT_EQ((ssize_t)sizeof(data), sendmsg(fd, &msg, 0));
	EXPECT_EQ(0, setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &off,
				sizeof(off)));
out:
	close(conn);
	close(fd);
}

/* A connected socket: a refused control message is EINVAL, as on 6.1. */
TEST_F(compat, connected_bad_cmsg_einval)
{
	char data[] = "plain";
	struct iovec iov = { data, sizeof(data) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct one_cmsg c;
	int fd, conn;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, connect(fd, (void *)&self->addr, sizeof(self->addr)));
	conn = accept(self->listener, NULL, NULL);
	ASSERT_LE(0, conn);
	fill_cmsg(&msg, &c, SCM_UNKNOWN, 1);
	EXPECT_EQ(-1, sendmsg(fd, &msg, 0));
	EXPECT_EQ(EINVAL, errno);
	msg.msg_control = NULL;
	msg.msg_controllen = 0;
	EXPECT_EQ((ssize_t)sizeof(data), sendmsg(fd, &msg, 0));
	close(conn);
	close(fd);
}

TEST_HARNESS_MAIN
