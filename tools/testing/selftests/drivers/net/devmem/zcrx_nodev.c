// SPDX-License-Identifier: GPL-2.0
/*
 * zcrx with no device (ZCRX_REG_NODEV): an instance on no queue and no
 * page pool, into which RECV_ZC copies every byte of any TCP socket. The
 * query says the kernel has it; registration refuses a device, a queue,
 * a dmabuf area and buffers larger than a page with upstream's errnos; a
 * loopback stream lands in the area byte for byte, each buffer at most a
 * page, none handed out twice; the refill ring is never read, so with
 * nothing else coming back the area runs dry and the receive ends with
 * ENOMEM; the ring's exit takes the buffers back.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <linux/io_uring/query.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../../kselftest_harness.h"
#include "zcrx_lib.h"

#define AREA_PAGES	16
#define PAGE		4096

FIXTURE(nodev)
{
	struct zr_ring ring;
	struct zr_ifq z;
	int srv, cli;	/* a connected pair over 127.0.0.1 */
};

FIXTURE_SETUP(nodev)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int one = 1, lfd;

	self->srv = -1;
	self->cli = -1;
	ASSERT_EQ(0, zr_ring_init(&self->ring, 8, 64, 0));
	ASSERT_EQ(0, zr_ifq_prepare(&self->z, 0, 0, AREA_PAGES * PAGE, 64));
	self->z.reg.flags = ZCRX_REG_NODEV;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one,
				sizeof(one)));
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&a, sizeof(a)));
	ASSERT_EQ(0, listen(lfd, 1));
	ASSERT_EQ(0, getsockname(lfd, (struct sockaddr *)&a, &alen));
	self->cli = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, self->cli);
	ASSERT_EQ(0, connect(self->cli, (struct sockaddr *)&a, sizeof(a)));
	self->srv = accept(lfd, NULL, NULL);
	ASSERT_LE(0, self->srv);
	close(lfd);
}

/* Send @len bytes of @buf from a child, then end the stream. */
static pid_t nodev_send(struct _test_data_nodev *self, const void *buf,
			size_t len)
{
	pid_t pid = fork();
	size_t done = 0;
	ssize_t n;

	if (pid)
		return pid;
	/* the receiving end and the ring are the parent's alone */
	close(self->srv);
	close(self->ring.fd);
	while (done < len) {
		n = send(self->cli, (const char *)buf + done, len - done,
			 MSG_NOSIGNAL);
		if (n <= 0)
			_exit(1);
		done += n;
	}
	shutdown(self->cli, SHUT_WR);
	_exit(0);
}

FIXTURE_TEARDOWN(nodev)
{
	if (self->srv >= 0)
		close(self->srv);
	if (self->cli >= 0)
		close(self->cli);
	zr_ring_exit(&self->ring);
	zr_ifq_free(&self->z);
}

TEST(the_query_says_zcrx_takes_no_device)
{
	struct io_uring_query_hdr hdr = {
		.query_op = IO_URING_QUERY_ZCRX,
		.size = sizeof(struct io_uring_query_zcrx),
	};
	struct io_uring_query_zcrx q;

	hdr.query_data = (uintptr_t)&q;
	ASSERT_EQ(0, syscall(__NR_io_uring_register, -1,
			     IORING_REGISTER_QUERY, &hdr, 0));
	ASSERT_EQ(0, hdr.result);
	EXPECT_EQ(ZCRX_REG_NODEV, q.register_flags);
}

TEST_F(nodev, registers_with_no_device_in_pages)
{
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(PAGE, self->z.reg.rx_buf_len);
	EXPECT_EQ(0, self->z.reg.zcrx_id);
	EXPECT_EQ(0, self->z.area.rq_area_token);
	EXPECT_EQ(ZCRX_REG_NODEV, self->z.reg.flags);
	EXPECT_EQ(0, self->z.reg.if_idx);
	/* rx_buf_len of a page, asked for, is a page */
	self->z.reg.zcrx_id = 0;
	self->z.area.rq_area_token = 0;
	self->z.reg.rx_buf_len = PAGE;
	EXPECT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(1, self->z.reg.zcrx_id);
}

TEST_F(nodev, refuses_a_device_a_queue_a_dmabuf_and_large_buffers)
{
	struct zr_ifq z;

	z = self->z;
	z.reg.if_idx = 1;
	EXPECT_EQ(-EINVAL, zr_register(&self->ring, IORING_REGISTER_ZCRX_IFQ,
				       &z.reg, 1));
	z = self->z;
	z.reg.if_rxq = 1;
	EXPECT_EQ(-EINVAL, zr_register(&self->ring, IORING_REGISTER_ZCRX_IFQ,
				       &z.reg, 1));
	/* the import of another ring's instance is not in this kernel */
	z = self->z;
	z.reg.flags = ZCRX_REG_IMPORT;
	EXPECT_EQ(-EINVAL, zr_register(&self->ring, IORING_REGISTER_ZCRX_IFQ,
				       &z.reg, 1));
	z = self->z;
	z.reg.flags = ZCRX_REG_NODEV | 4;
	EXPECT_EQ(-EINVAL, zr_register(&self->ring, IORING_REGISTER_ZCRX_IFQ,
				       &z.reg, 1));
	/* nothing to attach a dmabuf to: refused before its fd is looked at */
	z = self->z;
	z.area.flags = IORING_ZCRX_AREA_DMABUF;
	z.area.addr = 0;
	z.area.dmabuf_fd = 12345;
	z.reg.area_ptr = (uintptr_t)&z.area;
	EXPECT_EQ(-EINVAL, zr_register(&self->ring, IORING_REGISTER_ZCRX_IFQ,
				       &z.reg, 1));
	/* and before anything is allocated for it: 1 TiB of buffers */
	z.area.len = 1ULL << 40;
	EXPECT_EQ(-EINVAL, zr_register(&self->ring, IORING_REGISTER_ZCRX_IFQ,
				       &z.reg, 1));
	/* copies are made a page at a time */
	z = self->z;
	z.reg.rx_buf_len = 2 * PAGE;
	EXPECT_EQ(-EOPNOTSUPP, zr_register(&self->ring,
					   IORING_REGISTER_ZCRX_IFQ, &z.reg,
					   1));
	/* and none of it left anything behind: the first id is still free */
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(0, self->z.reg.zcrx_id);
}

/*
 * Receive with one multishot RECV_ZC until its final CQE, keeping every
 * buffer: the bytes in @seen (up to @want), their count in *@got, the
 * data CQEs in *@cqes. Each buffer is in the area, names its area, holds
 * at most a page and is never handed out while held. Returns the final
 * CQE's res.
 */
static int nodev_receive(struct __test_metadata *_metadata,
			 struct _test_data_nodev *self, size_t want,
			 unsigned char *seen, size_t *got, unsigned int *cqes)
{
	unsigned char held[AREA_PAGES] = {};
	struct io_uring_cqe *cqe;
	int res = 0, more = 1;

	*got = 0;
	*cqes = 0;
	zr_prep_recvzc(&self->ring, self->srv, self->z.reg.zcrx_id, 0, 7);
	while (more) {
		if (zr_submit_wait(&self->ring, 1) < 0)
			return -errno;
		while ((cqe = zr_peek_cqe(&self->ring))) {
			__u64 off = zr_cqe_off(cqe);

			res = cqe->res;
			more = cqe->flags & IORING_CQE_F_MORE;
			if (res > 0) {
				EXPECT_EQ(self->z.area.rq_area_token,
					  off & IORING_ZCRX_AREA_MASK);
				off &= ~IORING_ZCRX_AREA_MASK;
				ASSERT_GE(self->z.area_len, off + res);
				EXPECT_GE(PAGE, off % PAGE + res);
				EXPECT_EQ(0, held[off / PAGE]);
				held[off / PAGE] = 1;
				if (*got + res <= want)
					memcpy(seen + *got,
					       (char *)self->z.area_mem + off,
					       res);
				*got += res;
				++*cqes;
			}
			zr_cqe_seen(&self->ring);
		}
	}
	return res;
}

#define NODEV_FDINFO	"Zcrx%u: queue %*u buf_len %*u zc_bytes %lld " \
			"copy_count %lld copy_bytes %lld head_bytes %lld"

/* The ring's fdinfo line of instance @id: its copy counters' sum. */
static long long nodev_fdinfo_copied(int ring_fd, unsigned int id)
{
	long long cc, cb, hb, zc, sum = -1;
	char path[64], line[512];
	unsigned int lid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ring_fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, NODEV_FDINFO, &lid, &zc, &cc, &cb, &hb) == 5 &&
		    lid == id)
			sum = zc + cb + hb;
	}
	fclose(f);
	return sum;
}

TEST_F(nodev, copies_a_loopback_stream_into_the_area)
{
	size_t len = AREA_PAGES * PAGE / 4, got = 0, i;
	unsigned char *sent, *seen;
	unsigned int cqes;
	int status;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	sent = malloc(len);
	seen = calloc(1, len);
	ASSERT_NE(NULL, sent);
	ASSERT_NE(NULL, seen);
	for (i = 0; i < len; i++)
		sent[i] = i * 7 + (i >> 12);
	pid = nodev_send(self, sent, len);
	ASSERT_LE(0, pid);

	/* the end of the stream ends the multishot with res 0 */
	EXPECT_EQ(0, nodev_receive(_metadata, self, len, seen, &got, &cqes));
	EXPECT_EQ(len, got);
	EXPECT_EQ(0, memcmp(sent, seen, len));
	EXPECT_LE(len / PAGE, cqes);
	/* every byte counted as a copy, none as zero-copy */
	EXPECT_EQ(len, nodev_fdinfo_copied(self->ring.fd,
					   self->z.reg.zcrx_id));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	free(sent);
	free(seen);
}

/*
 * Each piece of an skb takes a buffer of its own, so the area holds less
 * than its size of a loopback stream; what matters is that each of its
 * buffers is used once, and that nothing the refill ring says (garbage,
 * duplicates, a tail far ahead) brings one back without a page pool.
 */
TEST_F(nodev, runs_dry_when_nothing_comes_back)
{
	size_t len = 2 * AREA_PAGES * PAGE, got = 0, i;
	unsigned char *sent, *seen;
	unsigned int cqes;
	int status;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	for (i = 0; i < 4; i++) {
		self->z.rqes[i].off = self->z.area.rq_area_token + (i % 2) * PAGE;
		self->z.rqes[i].len = PAGE;
	}
	*self->z.rq_tail = 1U << 30;
	sent = malloc(len);
	seen = calloc(1, len);
	ASSERT_NE(NULL, sent);
	ASSERT_NE(NULL, seen);
	for (i = 0; i < len; i++)
		sent[i] = i * 13 + (i >> 12);
	pid = nodev_send(self, sent, len);
	ASSERT_LE(0, pid);

	EXPECT_EQ(-ENOMEM, nodev_receive(_metadata, self, len, seen, &got,
					 &cqes));
	EXPECT_EQ(AREA_PAGES, cqes);
	EXPECT_GE(AREA_PAGES * PAGE, got);
	EXPECT_LT(0, got);
	EXPECT_EQ(0, memcmp(sent, seen, got));
	EXPECT_EQ(got, nodev_fdinfo_copied(self->ring.fd,
					   self->z.reg.zcrx_id));
	close(self->srv);
	self->srv = -1;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	free(sent);
	free(seen);
}

/* The ring's exit takes back what user space held: a new ring's instance
 * on the same memory receives into all of it again.
 */
TEST_F(nodev, the_ring_exit_takes_the_buffers_back)
{
	size_t len = 3 * AREA_PAGES * PAGE, got = 0;
	unsigned char *sent, *seen;
	unsigned int cqes, round;
	int status;
	pid_t pid;

	sent = calloc(1, len);
	seen = calloc(1, len);
	ASSERT_NE(NULL, sent);
	ASSERT_NE(NULL, seen);
	pid = nodev_send(self, sent, len);
	ASSERT_LE(0, pid);
	for (round = 0; round < 2; round++) {
		if (round) {
			zr_ring_exit(&self->ring);
			ASSERT_EQ(0, zr_ring_init(&self->ring, 8, 64, 0));
			self->z.reg.zcrx_id = 0;
			self->z.area.rq_area_token = 0;
		}
		ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
		EXPECT_EQ(-ENOMEM, nodev_receive(_metadata, self, len, seen,
						 &got, &cqes));
		EXPECT_EQ(AREA_PAGES, cqes);
	}
	close(self->srv);
	self->srv = -1;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	free(sent);
	free(seen);
}

TEST_HARNESS_MAIN
