// SPDX-License-Identifier: GPL-2.0
/*
 * zcrx with no device (ZCRX_REG_NODEV): an instance on no queue and no
 * page pool, into which RECV_ZC copies every byte of any TCP socket. The
 * query says the kernel has it; registration refuses a device, a queue,
 * a dmabuf area and buffers larger than a page with upstream's errnos; a
 * loopback stream lands in the area byte for byte, each buffer at most a
 * page, none handed out twice; only IORING_REGISTER_ZCRX_CTRL's FLUSH_RQ
 * reads the refill ring, so without it the area runs dry and the receive
 * ends with ENOMEM; the ring's exit takes the buffers back. ZCRX_CTRL
 * checks its argument in upstream's order, and FLUSH_RQ gives back what
 * the ring names, once per buffer held, up to its first bad entry and at
 * most a ring's worth of entries. Events and statistics: each copy is
 * counted in the refill region as fdinfo counts it, a COPY event posts
 * one CQE until ZCRX_CTRL_ARM_EVENT, on the ring that registered the
 * instance whichever ring received. ZCRX_CTRL_ADD_AREA checks its area
 * in upstream's order and gives its token back first; copies fill the
 * areas in id order, the refill ring names a buffer of any of them, an
 * instance takes 1024 areas, and one an importing ring adds is charged
 * to the ring that registered the instance; fifty rings in a row give
 * back every page they pinned.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
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

/* user_data of the event CQEs: no request of these tests has it */
#define EV_UD		0xe7e7e7e7e7e7ULL

FIXTURE(nodev)
{
	struct zr_ring ring;
	struct zr_ifq z;
	int srv, cli;	/* a connected pair over 127.0.0.1 */
	/* event CQEs seen, and the res and flags of the last one */
	unsigned int events;
	int ev_res;
	unsigned int ev_flags;
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

/*
 * Start a stream of @len bytes of pattern @mul from a child: the bytes
 * in *@sent, a zeroed buffer as long for what arrives in *@seen. Returns
 * the child, or -1.
 */
static pid_t nodev_stream(struct _test_data_nodev *self, size_t len,
			  unsigned int mul, unsigned char **sent,
			  unsigned char **seen)
{
	size_t i;

	*sent = malloc(len);
	*seen = calloc(1, len);
	if (!*sent || !*seen)
		return -1;
	for (i = 0; i < len; i++)
		(*sent)[i] = i * mul + (i >> 12);
	return nodev_send(self, *sent, len);
}

/*
 * End a stream: the receiving end closed, so that the child's sends
 * fail, the child reaped, the buffers freed. Returns waitpid()'s result.
 */
static pid_t nodev_stream_end(struct _test_data_nodev *self, pid_t pid,
			      unsigned char *sent, unsigned char *seen)
{
	int status;

	close(self->srv);
	self->srv = -1;
	free(sent);
	free(seen);
	return waitpid(pid, &status, 0);
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
	EXPECT_EQ(ZCRX_REG_NODEV, q.register_flags & ZCRX_REG_NODEV);
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
	/* an import takes nothing but the fd: not an area or a region */
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

/* An event CQE: counted in @self and consumed. False for any other. */
static bool nodev_event(struct _test_data_nodev *self,
			const struct io_uring_cqe *cqe)
{
	if (cqe->user_data != EV_UD)
		return false;
	self->events++;
	self->ev_res = cqe->res;
	self->ev_flags = cqe->flags;
	zr_cqe_seen(&self->ring);
	return true;
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

			if (nodev_event(self, cqe))
				continue;
			res = cqe->res;
			more = cqe->flags & IORING_CQE_F_MORE;
			/* a CQE_MIXED ring's data CQEs are its 32-byte ones */
			if (self->ring.flags & IORING_SETUP_CQE_MIXED)
				EXPECT_EQ(res > 0,
					  !!(cqe->flags & IORING_CQE_F_32));
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

/* fields of a ring's fdinfo line for one instance */
struct nodev_counts {
	long long zc_bytes, copy_count, copy_bytes, head_bytes;
};

/* The ring's fdinfo line of instance @id into @c: 0, or -1 if none. */
static int nodev_fdinfo(int ring_fd, unsigned int id, struct nodev_counts *c)
{
	char path[64], line[512];
	struct nodev_counts n;
	unsigned int lid;
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ring_fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, NODEV_FDINFO, &lid, &n.zc_bytes, &n.copy_count,
			   &n.copy_bytes, &n.head_bytes) == 5 && lid == id) {
			*c = n;
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* The ring's fdinfo line of instance @id: its byte counts' sum. */
static long long nodev_fdinfo_copied(int ring_fd, unsigned int id)
{
	struct nodev_counts c;

	if (nodev_fdinfo(ring_fd, id, &c))
		return -1;
	return c.zc_bytes + c.copy_bytes + c.head_bytes;
}

TEST_F(nodev, copies_a_loopback_stream_into_the_area)
{
	size_t len = AREA_PAGES * PAGE / 4, got = 0;
	unsigned char *sent, *seen;
	unsigned int cqes;
	int status;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	pid = nodev_stream(self, len, 7, &sent, &seen);
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
 * On a CQE_MIXED ring a data CQE takes 32 bytes, IORING_CQE_F_32 set, and
 * the end of the stream 16. With the ring's head and tail at its last
 * entry (15 NOPs posted and seen), the first data CQE leaves a filler
 * there and starts at the first entry; the stream arrives whole.
 */
TEST_F(nodev, a_mixed_ring_takes_32_byte_data_cqes_and_wraps_none)
{
	size_t len = AREA_PAGES * PAGE / 4, got = 0;
	unsigned char *sent, *seen;
	struct io_uring_sqe *sqe;
	unsigned int i, cqes;
	int status;
	pid_t pid;

	zr_ring_exit(&self->ring);
	ASSERT_EQ(0, zr_ring_init(&self->ring, 16, 16,
				  IORING_SETUP_CQE_MIXED));
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	for (i = 0; i < 15; i++) {
		sqe = zr_get_sqe(&self->ring);
		ASSERT_NE(NULL, sqe);
		sqe->opcode = IORING_OP_NOP;
	}
	ASSERT_EQ(15, zr_submit_wait(&self->ring, 15));
	for (i = 0; i < 15; i++) {
		ASSERT_NE(NULL, zr_peek_cqe(&self->ring));
		zr_cqe_seen(&self->ring);
	}
	pid = nodev_stream(self, len, 7, &sent, &seen);
	ASSERT_LE(0, pid);

	EXPECT_EQ(0, nodev_receive(_metadata, self, len, seen, &got, &cqes));
	EXPECT_EQ(len, got);
	EXPECT_EQ(0, memcmp(sent, seen, len));
	EXPECT_LE(1, cqes);
	EXPECT_EQ(1, self->ring.skips);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	free(sent);
	free(seen);
}

/*
 * Each piece of an skb takes a buffer of its own, so the area holds less
 * than its size of a loopback stream; what matters is that each of its
 * buffers is used once, and that nothing the refill ring says (garbage,
 * duplicates, a tail far ahead) brings one back without a page pool
 * unless user space flushes it.
 */
TEST_F(nodev, runs_dry_when_nothing_comes_back)
{
	size_t len = 2 * AREA_PAGES * PAGE, got = 0;
	unsigned int i;
	unsigned char *sent, *seen;
	unsigned int cqes;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	for (i = 0; i < 4; i++) {
		self->z.rqes[i].off = self->z.area.rq_area_token + (i % 2) * PAGE;
		self->z.rqes[i].len = PAGE;
	}
	*self->z.rq_tail = 1U << 30;
	pid = nodev_stream(self, len, 13, &sent, &seen);
	ASSERT_LE(0, pid);

	EXPECT_EQ(-ENOMEM, nodev_receive(_metadata, self, len, seen, &got,
					 &cqes));
	EXPECT_EQ(AREA_PAGES, cqes);
	EXPECT_GE(AREA_PAGES * PAGE, got);
	EXPECT_LT(0, got);
	EXPECT_EQ(0, memcmp(sent, seen, got));
	EXPECT_EQ(got, nodev_fdinfo_copied(self->ring.fd,
					   self->z.reg.zcrx_id));
	ASSERT_EQ(pid, nodev_stream_end(self, pid, sent, seen));
}

/* The ring's exit takes back what user space held: a new ring's instance
 * on the same memory receives into all of it again.
 */
TEST_F(nodev, the_ring_exit_takes_the_buffers_back)
{
	size_t len = 3 * AREA_PAGES * PAGE, got = 0;
	unsigned char *sent, *seen;
	unsigned int cqes, round;
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
	ASSERT_EQ(pid, nodev_stream_end(self, pid, sent, seen));
}

/* Write refill ring entry @i (absolute) of @self's instance. */
static void nodev_rqe(struct _test_data_nodev *self, unsigned int i,
		      __u64 off, __u32 pad)
{
	struct io_uring_zcrx_rqe *rqe = &self->z.rqes[i & self->z.rq_mask];

	rqe->off = off;
	rqe->len = PAGE;
	rqe->__pad = pad;
}

/* Publish the refill ring's tail, as an application does. */
static void nodev_rq_tail(struct _test_data_nodev *self, __u32 tail)
{
	__atomic_store_n(self->z.rq_tail, tail, __ATOMIC_RELEASE);
}

static __u32 nodev_rq_head(struct _test_data_nodev *self)
{
	return __atomic_load_n(self->z.rq_head, __ATOMIC_ACQUIRE);
}

static int nodev_ctrl(struct _test_data_nodev *self, struct zcrx_ctrl *c,
		      unsigned int nr_args)
{
	return zr_register(&self->ring, IORING_REGISTER_ZCRX_CTRL, c,
			   nr_args);
}

TEST_F(nodev, ctrl_checks_its_argument_in_upstreams_order)
{
	struct zcrx_ctrl c = { .op = ZCRX_CTRL_FLUSH_RQ };
	struct zr_ring bare;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(0, nodev_ctrl(self, &c, 0));
	/* nr_args first, then the copy */
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, &c, 1));
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, NULL, 1));
	EXPECT_EQ(-EFAULT, nodev_ctrl(self, NULL, 0));
	EXPECT_EQ(-EFAULT, nodev_ctrl(self, (void *)1, 0));
	/* reserved header words are a fault, and come before the id */
	c.__resv[1] = 1;
	c.zcrx_id = 5;
	EXPECT_EQ(-EFAULT, nodev_ctrl(self, &c, 0));
	c.__resv[1] = 0;
	EXPECT_EQ(-ENXIO, nodev_ctrl(self, &c, 0));
	/* the id before the operation */
	c.op = 1000;
	EXPECT_EQ(-ENXIO, nodev_ctrl(self, &c, 0));
	c.zcrx_id = self->z.reg.zcrx_id;
	EXPECT_EQ(-EOPNOTSUPP, nodev_ctrl(self, &c, 0));
	c.op = ~0U;
	EXPECT_EQ(-EOPNOTSUPP, nodev_ctrl(self, &c, 0));
	/* each operation reads its own argument: ADD_AREA its area first */
	c.op = ZCRX_CTRL_ARM_EVENT;
	c.zc_arm_event.event_type = 99;
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, &c, 0));
	c.op = ZCRX_CTRL_ADD_AREA;
	EXPECT_EQ(-EFAULT, nodev_ctrl(self, &c, 0));
	/* FLUSH_RQ's argument is all zero, to its last byte */
	c.op = ZCRX_CTRL_FLUSH_RQ;
	c.zc_arm_event.event_type = 0;
	c.zc_flush.__resv[5] = 1ULL << 63;
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, &c, 0));
	c.zc_flush.__resv[5] = 0;
	c.zc_flush.__resv[0] = 1;
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, &c, 0));
	c.zc_flush.__resv[0] = 0;
	EXPECT_EQ(0, nodev_ctrl(self, &c, 0));
	/* no ring: refused as every opcode but the query is */
	EXPECT_EQ(-1, syscall(__NR_io_uring_register, -1,
			      IORING_REGISTER_ZCRX_CTRL, &c, 0));
	EXPECT_EQ(EINVAL, errno);
	/* a ring with no instance has no id 0 */
	ASSERT_EQ(0, zr_ring_init(&bare, 8, 64, 0));
	EXPECT_EQ(-ENXIO, zr_flush(&bare, 0));
	zr_ring_exit(&bare);
	/* nothing was taken off the ring by any of it */
	EXPECT_EQ(0, nodev_rq_head(self));
}

/*
 * Receive until the area runs dry (-ENOMEM), holding every buffer: each
 * of its AREA_PAGES pages once. The bytes go on in @seen from *@got.
 */
static void nodev_drain(struct __test_metadata *_metadata,
			struct _test_data_nodev *self, size_t len,
			unsigned char *seen, size_t *got, unsigned int pages)
{
	unsigned int cqes;
	size_t more;

	EXPECT_EQ(-ENOMEM, nodev_receive(_metadata, self, len - *got,
					 seen + *got, &more, &cqes));
	EXPECT_EQ(pages, cqes);
	*got += more;
}

TEST_F(nodev, flush_brings_the_returned_buffers_back)
{
	size_t len = 4 * AREA_PAGES * PAGE, got = 0;
	unsigned char *sent, *seen;
	unsigned int i, round;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	pid = nodev_stream(self, len, 11, &sent, &seen);
	ASSERT_LE(0, pid);
	for (round = 0; round < 3; round++) {
		/* the area's every page, then every page again */
		nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
		for (i = 0; i < AREA_PAGES; i++)
			nodev_rqe(self, round * AREA_PAGES + i,
				  self->z.area.rq_area_token + i * PAGE, 0);
		nodev_rq_tail(self, (round + 1) * AREA_PAGES);
		/* the refill ring alone brings nothing back */
		if (!round)
			nodev_drain(_metadata, self, len, seen, &got, 0);
		ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
		EXPECT_EQ((round + 1) * AREA_PAGES, nodev_rq_head(self));
	}
	ASSERT_LT(0, got);
	EXPECT_EQ(0, memcmp(sent, seen, got));
	ASSERT_EQ(pid, nodev_stream_end(self, pid, sent, seen));
}

TEST_F(nodev, flush_stops_after_the_first_bad_entry)
{
	size_t len = 2 * AREA_PAGES * PAGE, got = 0;
	unsigned char *sent, *seen;
	__u64 tok;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	tok = self->z.area.rq_area_token;
	pid = nodev_stream(self, len, 5, &sent, &seen);
	ASSERT_LE(0, pid);
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
	nodev_rqe(self, 0, tok + 0 * PAGE, 0);
	nodev_rqe(self, 1, tok + 1 * PAGE, 0);
	nodev_rqe(self, 2, tok + 2 * PAGE, 1);		/* __pad */
	nodev_rqe(self, 3, tok + 3 * PAGE, 0);
	nodev_rqe(self, 4, tok + AREA_PAGES * PAGE, 0);	/* past the area */
	nodev_rqe(self, 5, tok + 5 * PAGE, 0);
	nodev_rqe(self, 6, tok + (1ULL << 48) + 6 * PAGE, 0); /* area 1 */
	nodev_rqe(self, 7, tok + 7 * PAGE, 0);
	nodev_rq_tail(self, 8);
	/* the bad entry is taken too; each flush stops after one */
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	EXPECT_EQ(3, nodev_rq_head(self));
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	EXPECT_EQ(5, nodev_rq_head(self));
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	EXPECT_EQ(7, nodev_rq_head(self));
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	EXPECT_EQ(8, nodev_rq_head(self));
	/* pages 0, 1, 3, 5 and 7 came back, and nothing else */
	nodev_drain(_metadata, self, len, seen, &got, 5);
	EXPECT_EQ(0, memcmp(sent, seen, got));
	ASSERT_EQ(pid, nodev_stream_end(self, pid, sent, seen));
}

/*
 * A flush takes 32 entries at a time and goes on while a batch was
 * full: a bad entry last in a batch still ends the call.
 */
TEST_F(nodev, a_bad_entry_at_the_end_of_a_batch_ends_the_flush)
{
	unsigned int i;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	/* good entries, for buffers no one holds: taken, and ignored */
	for (i = 0; i < 64; i++)
		nodev_rqe(self, i, self->z.area.rq_area_token +
				   (i % AREA_PAGES) * PAGE, i == 31);
	nodev_rq_tail(self, 64);
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	EXPECT_EQ(32, nodev_rq_head(self));
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	EXPECT_EQ(64, nodev_rq_head(self));
}

/* ZCRX_CTRL_EXPORT of instance @id of @r: the fd, or -errno. */
static int nodev_export(struct zr_ring *r, unsigned int id)
{
	struct zcrx_ctrl c = { .zcrx_id = id, .op = ZCRX_CTRL_EXPORT };
	int ret = zr_register(r, IORING_REGISTER_ZCRX_CTRL, &c, 0);

	return ret ? ret : (int)c.zc_export.zcrx_fd;
}

/* Import the instance of file @fd into @r: its id there, or -errno. */
static int nodev_import(struct zr_ring *r, int fd,
			struct io_uring_zcrx_ifq_reg *reg)
{
	int ret;

	memset(reg, 0, sizeof(*reg));
	reg->if_idx = fd;
	reg->flags = ZCRX_REG_IMPORT;
	ret = zr_register(r, IORING_REGISTER_ZCRX_IFQ, reg, 1);
	return ret ? ret : (int)reg->zcrx_id;
}

/* The number of open fds of this process. */
static int nodev_nr_fds(void)
{
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

TEST_F(nodev, export_makes_a_cloexec_zcrx_file_and_leaks_no_fd)
{
	struct zcrx_ctrl c = { .op = ZCRX_CTRL_EXPORT };
	char path[64], name[64];
	struct zcrx_ctrl *ro;
	int fd, fds;
	ssize_t n;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(-ENXIO, nodev_export(&self->ring, 1));
	/* zcrx_fd is an output: must come in 0 */
	c.zc_export.zcrx_fd = 3;
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, &c, 0));
	c.zc_export.zcrx_fd = 0;
	c.zc_export.__resv1[10] = 1;
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, &c, 0));
	/* a write-back that faults: EFAULT, and no fd left behind */
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	memset(ro, 0, sizeof(*ro));
	ro->op = ZCRX_CTRL_EXPORT;
	ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ));
	fds = nodev_nr_fds();
	EXPECT_EQ(-EFAULT, nodev_ctrl(self, ro, 0));
	EXPECT_EQ(fds, nodev_nr_fds());
	munmap(ro, PAGE);

	fd = nodev_export(&self->ring, self->z.reg.zcrx_id);
	ASSERT_LE(0, fd);
	EXPECT_EQ(fds + 1, nodev_nr_fds());
	EXPECT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, name, sizeof(name) - 1);
	ASSERT_LT(0, n);
	name[n] = 0;
	EXPECT_STREQ("anon_inode:[zcrx]", name);
	/* nothing to read or write: it only holds the instance */
	EXPECT_EQ(-1, read(fd, name, 1));
	close(fd);
}

TEST_F(nodev, import_refuses_what_upstream_refuses)
{
	struct io_uring_zcrx_ifq_reg reg, *ro;
	struct zr_ring b;
	int fd;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = nodev_export(&self->ring, self->z.reg.zcrx_id);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, zr_ring_init(&b, 8, 64, 0));
	EXPECT_EQ(-EBADF, nodev_import(&b, -1, &reg));
	EXPECT_EQ(-EBADF, nodev_import(&b, 12345, &reg));
	/* a file that is not an exported instance: the ring, a socket */
	EXPECT_EQ(-EBADF, nodev_import(&b, self->ring.fd, &reg));
	EXPECT_EQ(-EBADF, nodev_import(&b, self->srv, &reg));
	/* nothing but the fd: no other flag, queue, ring, area or region */
	memset(&reg, 0, sizeof(reg));
	reg.if_idx = fd;
	reg.flags = ZCRX_REG_IMPORT | ZCRX_REG_NODEV;
	EXPECT_EQ(-EINVAL, zr_register(&b, IORING_REGISTER_ZCRX_IFQ, &reg,
				       1));
	reg.flags = ZCRX_REG_IMPORT;
	reg.if_rxq = 1;
	EXPECT_EQ(-EINVAL, zr_register(&b, IORING_REGISTER_ZCRX_IFQ, &reg,
				       1));
	reg.if_rxq = 0;
	reg.rq_entries = 64;
	EXPECT_EQ(-EINVAL, zr_register(&b, IORING_REGISTER_ZCRX_IFQ, &reg,
				       1));
	reg.rq_entries = 0;
	reg.area_ptr = (uintptr_t)&self->z.area;
	EXPECT_EQ(-EINVAL, zr_register(&b, IORING_REGISTER_ZCRX_IFQ, &reg,
				       1));
	reg.area_ptr = 0;
	reg.region_ptr = (uintptr_t)&self->z.rd;
	EXPECT_EQ(-EINVAL, zr_register(&b, IORING_REGISTER_ZCRX_IFQ, &reg,
				       1));
	reg.region_ptr = 0;
	reg.event_desc = (uintptr_t)&reg;	/* events are the creator's */
	EXPECT_EQ(-EINVAL, zr_register(&b, IORING_REGISTER_ZCRX_IFQ, &reg,
				       1));
	/* a write-back that faults: EFAULT, and the id is free again */
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	memset(ro, 0, sizeof(*ro));
	ro->if_idx = fd;
	ro->flags = ZCRX_REG_IMPORT;
	ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, zr_register(&b, IORING_REGISTER_ZCRX_IFQ, ro, 1));
	munmap(ro, PAGE);
	/* and a good one: id 0 of ring b, 7.3's offsets, the rest echoed */
	memset(&reg, 0, sizeof(reg));
	reg.if_idx = fd;
	reg.flags = ZCRX_REG_IMPORT;
	reg.rx_buf_len = 12345;
	ASSERT_EQ(0, zr_register(&b, IORING_REGISTER_ZCRX_IFQ, &reg, 1));
	EXPECT_EQ(0, reg.zcrx_id);
	EXPECT_EQ(0, reg.offsets.head);
	EXPECT_EQ(64, reg.offsets.tail);
	EXPECT_EQ(128, reg.offsets.rqes);
	EXPECT_EQ(0, reg.rq_entries);
	EXPECT_EQ(12345, reg.rx_buf_len);
	EXPECT_EQ(fd, reg.if_idx);
	/* a ring may import the same instance again: another id */
	EXPECT_EQ(1, nodev_import(&b, fd, &reg));
	EXPECT_EQ(1, nodev_import(&self->ring, fd, &reg));
	close(fd);
	zr_ring_exit(&b);
}

/*
 * Two rings on one instance: ring b imports it, returns buffers the
 * creator received through the shared refill ring with a flush by its
 * own id, and goes on receiving into the shared area under its own id
 * once the creator exited. What the creator's user still held when it
 * exited stays held, as b holds the instance, until the refill ring
 * brings it back.
 */
TEST_F(nodev, an_importing_ring_shares_the_area_and_outlives_the_creator)
{
	size_t len = 4 * AREA_PAGES * PAGE, got = 0;
	struct io_uring_zcrx_ifq_reg reg;
	unsigned char *sent, *seen;
	unsigned int i;
	struct zr_ring b;
	int fd, bid;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = nodev_export(&self->ring, self->z.reg.zcrx_id);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, zr_ring_init(&b, 8, 64, 0));
	bid = nodev_import(&b, fd, &reg);
	ASSERT_EQ(0, bid);
	/* the fd can go at once: ring b holds the instance */
	close(fd);
	pid = nodev_stream(self, len, 17, &sent, &seen);
	ASSERT_LE(0, pid);

	/* the creator takes every page and keeps them */
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
	/* b gives half of them back, by its own id */
	for (i = 0; i < AREA_PAGES / 2; i++)
		nodev_rqe(self, i, self->z.area.rq_area_token + i * PAGE, 0);
	nodev_rq_tail(self, AREA_PAGES / 2);
	ASSERT_EQ(0, zr_flush(&b, bid));
	EXPECT_EQ(AREA_PAGES / 2, nodev_rq_head(self));

	/* the creator exits; b receives into the half given back */
	ASSERT_EQ(0, zr_ring_exit_sync(&self->ring));
	self->ring = b;
	self->z.reg.zcrx_id = bid;
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES / 2);
	/* every page back through the refill ring, the creator's too */
	for (i = 0; i < AREA_PAGES; i++)
		nodev_rqe(self, AREA_PAGES / 2 + i,
			  self->z.area.rq_area_token + i * PAGE, 0);
	nodev_rq_tail(self, AREA_PAGES / 2 + AREA_PAGES);
	ASSERT_EQ(0, zr_flush(&b, bid));
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
	EXPECT_EQ(0, memcmp(sent, seen, got));
	ASSERT_EQ(pid, nodev_stream_end(self, pid, sent, seen));
}

/*
 * Only the last holder takes back what user space held: a creator that
 * exits holding every buffer while a file holds the instance leaves them
 * held for a ring that imports the file, and so does that ring when it
 * exits with a second file left. The last holder then goes (kmemleak
 * and the pinned-page counts see what it leaves).
 */
TEST_F(nodev, what_a_departed_ring_held_stays_held_until_the_last_holder)
{
	size_t len = 4 * AREA_PAGES * PAGE, got = 0;
	struct io_uring_zcrx_ifq_reg reg;
	unsigned char *sent, *seen;
	int fd, fd2, bid;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = nodev_export(&self->ring, self->z.reg.zcrx_id);
	ASSERT_LE(0, fd);
	pid = nodev_stream(self, len, 19, &sent, &seen);
	ASSERT_LE(0, pid);
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);

	/* the creator exits holding everything; the file holds on */
	ASSERT_EQ(0, zr_ring_exit_sync(&self->ring));
	ASSERT_EQ(0, zr_ring_init(&self->ring, 8, 64, 0));
	bid = nodev_import(&self->ring, fd, &reg);
	ASSERT_EQ(0, bid);
	fd2 = nodev_export(&self->ring, bid);
	ASSERT_LE(0, fd2);
	close(fd);
	/* nothing came back: the creator's holds are still held */
	nodev_drain(_metadata, self, len, seen, &got, 0);
	/* the importer exits: the second file is the last holder */
	ASSERT_EQ(0, zr_ring_exit_sync(&self->ring));
	ASSERT_EQ(0, zr_ring_init(&self->ring, 8, 64, 0));
	EXPECT_EQ(0, nodev_import(&self->ring, fd2, &reg));
	nodev_drain(_metadata, self, len, seen, &got, 0);
	/* the file goes, then the ring: the last holder, which scrubs */
	close(fd2);
	EXPECT_EQ(0, memcmp(sent, seen, got));
	ASSERT_EQ(pid, nodev_stream_end(self, pid, sent, seen));
}

/* Pass @fd over the unix socket @sock. */
static int nodev_send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/* The fd passed over @sock, or -1. */
static int nodev_recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {}, c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * The exported fd travels over SCM_RIGHTS to another process, whose own
 * ring imports it and flushes the shared refill ring by its own id; the
 * exporter's copy of the fd is closed before the other process imports.
 */
TEST_F(nodev, an_exported_fd_imports_in_another_process)
{
	int sv[2], fd, status;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = nodev_export(&self->ring, self->z.reg.zcrx_id);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct io_uring_zcrx_ifq_reg reg;
		struct zr_ring r;
		int got;

		close(fd);
		close(self->ring.fd);
		got = nodev_recv_fd(sv[1]);
		if (got < 0)
			_exit(2);
		if (zr_ring_init(&r, 8, 64, 0))
			_exit(3);
		if (nodev_import(&r, got, &reg))
			_exit(4);
		close(got);
		_exit(zr_flush(&r, reg.zcrx_id) ? 5 : 0);
	}
	ASSERT_EQ(0, nodev_send_fd(sv[0], fd));
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(sv[0]);
	close(sv[1]);
}

/*
 * Garbage: a tail 2^30 entries ahead of the head, every entry naming
 * page 0, held once. One flush takes one ring's worth (64 entries) and
 * gives page 0 back once.
 */
TEST_F(nodev, flush_takes_a_ring_of_entries_and_each_buffer_once)
{
	size_t len = 2 * AREA_PAGES * PAGE, got = 0;
	unsigned char *sent, *seen;
	unsigned int i;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(64, self->z.reg.rq_entries);
	pid = nodev_stream(self, len, 3, &sent, &seen);
	ASSERT_LE(0, pid);
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
	for (i = 0; i < 64; i++)
		nodev_rqe(self, i, self->z.area.rq_area_token, 0);
	nodev_rq_tail(self, 1U << 30);
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	EXPECT_EQ(64, nodev_rq_head(self));
	nodev_drain(_metadata, self, len, seen, &got, 1);
	/* a head the kernel keeps: user space writing it changes nothing */
	*self->z.rq_head = 0;
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	EXPECT_EQ(128, nodev_rq_head(self));
	EXPECT_EQ(0, memcmp(sent, seen, got));
	ASSERT_EQ(pid, nodev_stream_end(self, pid, sent, seen));
}

/* where the fixture's refill ring entries end: 64 of them after 128 */
#define RQES_END	(128 + 64 * sizeof(struct io_uring_zcrx_rqe))

/*
 * Register @z with @r asking for the events of @mask, and for statistics
 * at @stats_off unless it is ~0: 0 or -errno.
 */
static int nodev_register_events(struct zr_ring *r, struct zr_ifq *z,
				 __u32 mask, __u64 stats_off)
{
	struct zcrx_event_desc ev = {
		.user_data = EV_UD,
		.type_mask = mask,
	};

	if (stats_off != ~0ULL) {
		ev.flags = ZCRX_EVENT_DESC_FLAG_STATS;
		ev.stats_offset = stats_off;
	}
	z->reg.event_desc = (uintptr_t)&ev;
	return zr_ifq_register(r, z);
}

/* the same for the fixture's instance */
static int nodev_events(struct _test_data_nodev *self, __u32 mask,
			__u64 stats_off)
{
	return nodev_register_events(&self->ring, &self->z, mask, stats_off);
}

/* ZCRX_CTRL_ARM_EVENT of @type on ring @r's instance @id: 0 or -errno */
static int nodev_arm(struct zr_ring *r, unsigned int id, __u32 type)
{
	struct zcrx_ctrl c = {
		.zcrx_id = id,
		.op = ZCRX_CTRL_ARM_EVENT,
		.zc_arm_event.event_type = type,
	};

	return zr_register(r, IORING_REGISTER_ZCRX_CTRL, &c, 0);
}

/*
 * A worker posts the event CQEs: give them up to 2 s to come to ring @r,
 * until @self has seen @want, then 50 ms more for any that should not
 * come. Returns the number seen.
 */
static unsigned int nodev_wait_events(struct _test_data_nodev *self,
				      struct zr_ring *r, unsigned int want)
{
	struct zr_ring keep = self->ring;
	struct io_uring_cqe *cqe;
	int i;

	self->ring = *r;
	for (i = 0; i < 2050; i++) {
		if (i < 2000 && self->events >= want)
			i = 2000;
		while ((cqe = zr_peek_cqe(&self->ring)))
			if (!nodev_event(self, cqe))
				zr_cqe_seen(&self->ring);
		usleep(1000);
	}
	self->ring = keep;
	return self->events;
}

/* Give every page of the area back and flush: 0 or -errno. */
static int nodev_give_all_back(struct _test_data_nodev *self,
			       struct zr_ring *r, unsigned int id)
{
	__u32 tail = *self->z.rq_tail;
	unsigned int i;

	for (i = 0; i < AREA_PAGES; i++)
		nodev_rqe(self, tail + i, self->z.area.rq_area_token + i * PAGE,
			  0);
	nodev_rq_tail(self, tail + AREA_PAGES);
	return zr_flush(r, id);
}

TEST_F(nodev, the_event_descriptor_is_checked_before_anything_is_made)
{
	struct zcrx_event_desc ev;
	struct zr_ring iopoll;

	memset(&ev, 0, sizeof(ev));
	self->z.reg.event_desc = 8;
	EXPECT_EQ(-EFAULT, zr_ifq_register(&self->ring, &self->z));
	/* before the buffer size, which upstream checks with the area */
	self->z.reg.rx_buf_len = 3;
	EXPECT_EQ(-EFAULT, zr_ifq_register(&self->ring, &self->z));
	self->z.reg.rx_buf_len = 0;
	self->z.reg.event_desc = (uintptr_t)&ev;
	ev.type_mask = 1 << 2;
	EXPECT_EQ(-EINVAL, zr_ifq_register(&self->ring, &self->z));
	ev.type_mask = 3;
	ev.flags = 2;
	EXPECT_EQ(-EINVAL, zr_ifq_register(&self->ring, &self->z));
	ev.flags = 0;
	ev.stats_offset = PAGE - 16;
	EXPECT_EQ(-EINVAL, zr_ifq_register(&self->ring, &self->z));
	ev.stats_offset = 0;
	ev.__resv2[8] = 1;
	EXPECT_EQ(-EINVAL, zr_ifq_register(&self->ring, &self->z));
	ev.__resv2[8] = 0;
	/* ours: a ring with IOPOLL posts no events, but may keep statistics */
	ASSERT_EQ(0, zr_ring_init(&iopoll, 8, 64, IORING_SETUP_IOPOLL));
	ev.type_mask = 1 << ZCRX_EVENT_COPY;
	EXPECT_EQ(-EINVAL, zr_ifq_register(&iopoll, &self->z));
	ev.type_mask = 0;
	ev.flags = ZCRX_EVENT_DESC_FLAG_STATS;
	ev.stats_offset = PAGE - 16;
	EXPECT_EQ(0, zr_ifq_register(&iopoll, &self->z));
	zr_ring_exit(&iopoll);
	ev.type_mask = 3;
	/* none of it took an id */
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(0, self->z.reg.zcrx_id);
	EXPECT_EQ((uintptr_t)&ev, self->z.reg.event_desc);
}

TEST_F(nodev, the_statistics_lie_after_the_entries_and_inside_the_region)
{
	static const struct {
		__u64 off;
		int err;
	} bad[] = {
		{ RQES_END + 4, -EINVAL },
		{ 0, -ERANGE },
		{ RQES_END - 8, -ERANGE },
		{ PAGE - 8, -ERANGE },
		{ PAGE, -ERANGE },
		{ ~7ULL, -ERANGE },
	};
	struct zcrx_stats *st;
	struct zr_ifq second;
	unsigned int i;

	/* placed before the buffer size is checked, with the area */
	self->z.reg.rx_buf_len = 3;
	EXPECT_EQ(-ERANGE, nodev_events(self, 0, PAGE));
	self->z.reg.rx_buf_len = 0;
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(bad[i].err, nodev_events(self, 0, bad[i].off))
			TH_LOG("stats_offset %llu",
			       (unsigned long long)bad[i].off);
	/* the last 16 bytes of the region, zeroed */
	st = (void *)((char *)self->z.ring_mem + PAGE - 16);
	memset(st, 0xff, sizeof(*st));
	ASSERT_EQ(0, nodev_events(self, 0, PAGE - 16));
	EXPECT_EQ(0, st->copy_count);
	EXPECT_EQ(0, st->copy_bytes);
	/* and right after the entries */
	ASSERT_EQ(0, zr_ifq_prepare(&second, 0, 0, AREA_PAGES * PAGE, 64));
	second.reg.flags = ZCRX_REG_NODEV;
	st = (void *)((char *)second.ring_mem + RQES_END);
	memset(st, 0xff, sizeof(*st));
	EXPECT_EQ(0, nodev_register_events(&self->ring, &second, 0, RQES_END));
	EXPECT_EQ(0, st->copy_count);
	EXPECT_EQ(0, st->copy_bytes);
	zr_ifq_free(&second);
}

/*
 * Every page the area has, copied: the statistics count each fragment
 * copied and its bytes as fdinfo counts them, the linear parts aside;
 * user space may reset them; no event is posted that was not asked for.
 */
TEST_F(nodev, statistics_count_the_copies_fdinfo_counts)
{
	size_t len = 4 * AREA_PAGES * PAGE, got = 0;
	struct nodev_counts c[2];
	unsigned char *sent, *seen;
	struct zcrx_stats *st;
	pid_t pid;

	st = (void *)((char *)self->z.ring_mem + PAGE - 16);
	ASSERT_EQ(0, nodev_events(self, 0, PAGE - 16));
	pid = nodev_stream(self, len, 5, &sent, &seen);
	ASSERT_LE(0, pid);
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
	ASSERT_EQ(0, nodev_fdinfo(self->ring.fd, 0, &c[0]));
	EXPECT_LT(0, st->copy_count);
	EXPECT_EQ(c[0].copy_count, st->copy_count);
	EXPECT_EQ(c[0].copy_bytes, st->copy_bytes);
	EXPECT_EQ(got, st->copy_bytes + c[0].head_bytes);

	/* reset by user space: only what comes after is counted there */
	memset(st, 0, sizeof(*st));
	ASSERT_EQ(0, nodev_give_all_back(self, &self->ring, 0));
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
	ASSERT_EQ(0, nodev_fdinfo(self->ring.fd, 0, &c[1]));
	EXPECT_LT(0, st->copy_count);
	EXPECT_EQ(c[1].copy_count - c[0].copy_count, st->copy_count);
	EXPECT_EQ(c[1].copy_bytes - c[0].copy_bytes, st->copy_bytes);
	EXPECT_EQ(0, nodev_wait_events(self, &self->ring, 0));
	EXPECT_EQ(0, memcmp(sent, seen, got));
	ASSERT_EQ(pid, nodev_stream_end(self, pid, sent, seen));
}

TEST_F(nodev, arm_event_takes_only_an_event_that_fired)
{
	struct zcrx_ctrl c = { .op = ZCRX_CTRL_ARM_EVENT };

	ASSERT_EQ(0, nodev_events(self, 1 << ZCRX_EVENT_COPY, ~0ULL));
	EXPECT_EQ(-EINVAL, nodev_arm(&self->ring, 0, 2));
	EXPECT_EQ(-EINVAL, nodev_arm(&self->ring, 0, ~0U));
	/* not fired yet, or never asked for */
	EXPECT_EQ(-EINVAL, nodev_arm(&self->ring, 0, ZCRX_EVENT_COPY));
	EXPECT_EQ(-EINVAL, nodev_arm(&self->ring, 0, ZCRX_EVENT_ALLOC_FAIL));
	c.zc_arm_event.__resv[10] = 1;
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, &c, 0));
	EXPECT_EQ(-ENXIO, nodev_arm(&self->ring, 1, ZCRX_EVENT_COPY));
}

/*
 * A whole area of copies posts one COPY event, with the descriptor's
 * user_data, res the type and no flags, and nothing more until it is
 * armed again; no device, so never an ALLOC_FAIL, though the area runs
 * dry.
 */
TEST_F(nodev, a_copy_posts_one_event_until_it_is_armed_again)
{
	size_t len = 4 * AREA_PAGES * PAGE, got = 0;
	unsigned char *sent, *seen;
	pid_t pid;

	ASSERT_EQ(0, nodev_events(self, 3, ~0ULL));
	pid = nodev_stream(self, len, 13, &sent, &seen);
	ASSERT_LE(0, pid);
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
	EXPECT_EQ(1, nodev_wait_events(self, &self->ring, 1));
	EXPECT_EQ(ZCRX_EVENT_COPY, self->ev_res);
	EXPECT_EQ(0, self->ev_flags);

	/* a second area's worth: still one */
	ASSERT_EQ(0, nodev_give_all_back(self, &self->ring, 0));
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
	EXPECT_EQ(1, nodev_wait_events(self, &self->ring, 1));

	/* armed once, and only once, it posts again */
	EXPECT_EQ(0, nodev_arm(&self->ring, 0, ZCRX_EVENT_COPY));
	EXPECT_EQ(-EINVAL, nodev_arm(&self->ring, 0, ZCRX_EVENT_COPY));
	EXPECT_EQ(-EINVAL, nodev_arm(&self->ring, 0, ZCRX_EVENT_ALLOC_FAIL));
	ASSERT_EQ(0, nodev_give_all_back(self, &self->ring, 0));
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
	EXPECT_EQ(2, nodev_wait_events(self, &self->ring, 2));
	EXPECT_EQ(ZCRX_EVENT_COPY, self->ev_res);
	EXPECT_EQ(0, memcmp(sent, seen, got));
	ASSERT_EQ(pid, nodev_stream_end(self, pid, sent, seen));
}

/*
 * An importing ring's copies fire on the ring that registered the
 * instance, which the importer cannot arm for; once that ring has gone,
 * nothing fires, and the importer receives on.
 */
TEST_F(nodev, an_importers_copies_fire_on_the_creators_ring)
{
	size_t len = 4 * AREA_PAGES * PAGE, got = 0;
	struct io_uring_zcrx_ifq_reg reg;
	unsigned char *sent, *seen;
	struct zr_ring a, b;
	int fd, bid;
	pid_t pid;

	ASSERT_EQ(0, nodev_events(self, 1 << ZCRX_EVENT_COPY, ~0ULL));
	fd = nodev_export(&self->ring, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, zr_ring_init(&b, 8, 64, 0));
	bid = nodev_import(&b, fd, &reg);
	ASSERT_EQ(0, bid);
	close(fd);
	pid = nodev_stream(self, len, 19, &sent, &seen);
	ASSERT_LE(0, pid);

	/* b receives; the event comes to a */
	a = self->ring;
	self->ring = b;
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
	EXPECT_EQ(0, self->events);
	EXPECT_EQ(1, nodev_wait_events(self, &a, 1));
	EXPECT_EQ(ZCRX_EVENT_COPY, self->ev_res);
	/* the instance is one: b arms it as well as a could */
	EXPECT_EQ(0, nodev_arm(&b, bid, ZCRX_EVENT_COPY));

	/* a exits: b's copies fire nowhere */
	self->ring = a;
	ASSERT_EQ(0, zr_ring_exit_sync(&self->ring));
	self->ring = b;
	ASSERT_EQ(0, nodev_give_all_back(self, &b, bid));
	nodev_drain(_metadata, self, len, seen, &got, AREA_PAGES);
	EXPECT_EQ(1, nodev_wait_events(self, &b, 1));
	EXPECT_EQ(-EINVAL, nodev_arm(&b, bid, ZCRX_EVENT_COPY));
	EXPECT_EQ(0, memcmp(sent, seen, got));
	ASSERT_EQ(pid, nodev_stream_end(self, pid, sent, seen));
}

/* An anonymous private mapping of @pages pages, read and write. */
static void *nodev_map(unsigned int pages)
{
	void *p = mmap(NULL, (size_t)pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

TEST_F(nodev, add_area_checks_its_argument_in_upstreams_order)
{
	struct zcrx_ctrl c = { .op = ZCRX_CTRL_ADD_AREA };
	struct io_uring_zcrx_area_reg a = {};
	char *mem, *ro;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	c.zcrx_id = self->z.reg.zcrx_id;
	mem = nodev_map(4);
	ro = nodev_map(1);
	ASSERT_NE(NULL, mem);
	ASSERT_NE(NULL, ro);
	ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ));

	/* the area is read first: a fault before the reserved words */
	c.zc_area.__resv[4] = 1;
	EXPECT_EQ(-EFAULT, nodev_ctrl(self, &c, 0));
	c.zc_area.area_ptr = (uintptr_t)&a;
	a.addr = (uintptr_t)mem;
	a.len = PAGE;
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, &c, 0));
	c.zc_area.__resv[4] = 0;
	/* the token is an output */
	a.rq_area_token = 1ULL << IORING_ZCRX_AREA_SHIFT;
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, &c, 0));

	/*
	 * Then the token goes back, before the area is made: a failure
	 * leaves it in the registration, and no area behind
	 */
	a.rq_area_token = 0;
	a.len = 0;
	EXPECT_EQ(-EFAULT, nodev_ctrl(self, &c, 0));
	EXPECT_EQ(1ULL << IORING_ZCRX_AREA_SHIFT, a.rq_area_token);
	a.rq_area_token = 0;
	a.addr = (uintptr_t)mem + 1;
	a.len = PAGE;
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, &c, 0));
	a.rq_area_token = 0;
	a.addr = (uintptr_t)ro;
	EXPECT_EQ(-EFAULT, nodev_ctrl(self, &c, 0));
	/* no device: no dmabuf to attach */
	a.rq_area_token = 0;
	a.addr = 0;
	a.flags = IORING_ZCRX_AREA_DMABUF;
	EXPECT_EQ(-EINVAL, nodev_ctrl(self, &c, 0));
	EXPECT_EQ(1ULL << IORING_ZCRX_AREA_SHIFT, a.rq_area_token);

	/* none of them was counted: ids go on from 1 */
	a.rq_area_token = 0;
	a.flags = 0;
	a.addr = (uintptr_t)mem;
	a.len = 2 * PAGE;
	EXPECT_EQ(0, nodev_ctrl(self, &c, 0));
	EXPECT_EQ(1ULL << IORING_ZCRX_AREA_SHIFT, a.rq_area_token);
	a.rq_area_token = 0;
	a.addr = (uintptr_t)mem + 2 * PAGE;
	EXPECT_EQ(0, zr_add_area(&self->ring, self->z.reg.zcrx_id, &a));
	EXPECT_EQ(2ULL << IORING_ZCRX_AREA_SHIFT, a.rq_area_token);
	munmap(ro, PAGE);
	munmap(mem, 4 * PAGE);
}

/*
 * Receive as nodev_receive() does, into any of @nr areas of @pages pages
 * each, area i at @mem[i]: the area id of each data CQE, in order, in
 * @ids (up to @max of them). Returns the final CQE's res.
 */
static int nodev_receive_areas(struct __test_metadata *_metadata,
			       struct _test_data_nodev *self,
			       char *const *mem, unsigned int nr,
			       unsigned int pages, unsigned char *seen,
			       size_t *got, unsigned int *ids,
			       unsigned int max, unsigned int *cqes)
{
	struct io_uring_cqe *cqe;
	int res = 0, more = 1;

	*cqes = 0;
	zr_prep_recvzc(&self->ring, self->srv, self->z.reg.zcrx_id, 0, 7);
	while (more) {
		if (zr_submit_wait(&self->ring, 1) < 0)
			return -errno;
		while ((cqe = zr_peek_cqe(&self->ring))) {
			__u64 off = zr_cqe_off(cqe);
			unsigned int id = off >> IORING_ZCRX_AREA_SHIFT;

			res = cqe->res;
			more = cqe->flags & IORING_CQE_F_MORE;
			if (res > 0) {
				off &= ~IORING_ZCRX_AREA_MASK;
				ASSERT_GT(nr, id);
				ASSERT_GE(pages * PAGE, off + res);
				memcpy(seen + *got, mem[id] + off, res);
				*got += res;
				if (*cqes < max)
					ids[*cqes] = id;
				++*cqes;
			}
			zr_cqe_seen(&self->ring);
		}
	}
	return res;
}

/*
 * With no device every byte is copied, into a free page of the first
 * area, in id order, that has one: area 1 only once area 0 is full. The
 * refill ring gives back a buffer of area 1 by its token, and an entry
 * naming an area the instance does not have is a bad one.
 */
TEST_F(nodev, copies_fill_the_areas_in_id_order)
{
	size_t len = 8 * AREA_PAGES * PAGE, got = 0;
	unsigned int ids[2 * AREA_PAGES], cqes, i;
	struct io_uring_zcrx_area_reg a = {};
	unsigned char *sent, *seen;
	char *mem[2];
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	mem[0] = self->z.area_mem;
	mem[1] = nodev_map(AREA_PAGES);
	ASSERT_NE(NULL, mem[1]);
	a.addr = (uintptr_t)mem[1];
	a.len = AREA_PAGES * PAGE;
	ASSERT_EQ(0, zr_add_area(&self->ring, self->z.reg.zcrx_id, &a));
	pid = nodev_stream(self, len, 23, &sent, &seen);
	ASSERT_LE(0, pid);

	EXPECT_EQ(-ENOMEM, nodev_receive_areas(_metadata, self, mem, 2,
					       AREA_PAGES, seen, &got, ids,
					       2 * AREA_PAGES, &cqes));
	ASSERT_EQ(2 * AREA_PAGES, cqes);
	for (i = 0; i < cqes; i++)
		EXPECT_EQ(i < AREA_PAGES ? 0 : 1, ids[i]);

	/* area 1's buffers back, then an entry for an area 2 */
	for (i = 0; i < AREA_PAGES; i++)
		nodev_rqe(self, i, a.rq_area_token + i * PAGE, 0);
	nodev_rqe(self, AREA_PAGES, 2ULL << IORING_ZCRX_AREA_SHIFT, 0);
	nodev_rqe(self, AREA_PAGES + 1, a.rq_area_token, 0);
	nodev_rq_tail(self, AREA_PAGES + 2);
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	/* the bad entry ended the flush: the one after it waits */
	EXPECT_EQ(AREA_PAGES + 1, nodev_rq_head(self));
	EXPECT_EQ(-ENOMEM, nodev_receive_areas(_metadata, self, mem, 2,
					       AREA_PAGES, seen, &got, ids,
					       2 * AREA_PAGES, &cqes));
	ASSERT_EQ(AREA_PAGES, cqes);
	for (i = 0; i < cqes; i++)
		EXPECT_EQ(1, ids[i]);
	ASSERT_GE(len, got);
	EXPECT_EQ(0, memcmp(sent, seen, got));
	ASSERT_EQ(pid, nodev_stream_end(self, pid, sent, seen));
	munmap(mem[1], AREA_PAGES * PAGE);
}

/* Upstream's bound: 1024 areas, ids 0 to 1023; the 1025th is refused. */
TEST_F(nodev, an_instance_takes_1024_areas_and_no_more)
{
	struct io_uring_zcrx_area_reg a = {};
	unsigned int i, bad = 0;
	char *mem;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	mem = nodev_map(1024);
	ASSERT_NE(NULL, mem);
	for (i = 1; i < 1024; i++) {
		memset(&a, 0, sizeof(a));
		a.addr = (uintptr_t)mem + i * PAGE;
		a.len = PAGE;
		bad += zr_add_area(&self->ring, self->z.reg.zcrx_id, &a) ||
		       a.rq_area_token != (__u64)i << IORING_ZCRX_AREA_SHIFT;
	}
	EXPECT_EQ(0, bad);
	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)mem;
	a.len = PAGE;
	EXPECT_EQ(-EINVAL, zr_add_area(&self->ring, self->z.reg.zcrx_id, &a));
	EXPECT_EQ(1024ULL << IORING_ZCRX_AREA_SHIFT, a.rq_area_token);
	/* the last area's buffer comes back by its token */
	nodev_rqe(self, 0, 1023ULL << IORING_ZCRX_AREA_SHIFT, 0);
	nodev_rqe(self, 1, 1024ULL << IORING_ZCRX_AREA_SHIFT, 0);
	nodev_rq_tail(self, 2);
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	EXPECT_EQ(2, nodev_rq_head(self));
	zr_ring_exit(&self->ring);
	munmap(mem, 1024 * PAGE);
}

/* VmPin back to @kb within 5 s: the instance is freed in a work item. */
static long nodev_pin_settles(long kb)
{
	int i;

	for (i = 0; i < 500 && zr_vm_pin_kb() != kb; i++)
		usleep(10000);
	return zr_vm_pin_kb();
}

/*
 * An area a ring that imported the instance adds, in a process of its
 * own, is charged to the ring that registered it: that process's pinned
 * memory grows, the importer's does not, and all of it goes with the
 * instance.
 */
TEST_F(nodev, an_area_an_importer_adds_is_charged_to_the_creator)
{
	long base, before, pin[2] = { -1, -1 };
	int fd, p[2], status;
	pid_t pid;

	base = zr_vm_pin_kb();
	ASSERT_LE(0, base);
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = nodev_export(&self->ring, self->z.reg.zcrx_id);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(p));
	before = zr_vm_pin_kb();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct io_uring_zcrx_area_reg a = {};
		struct io_uring_zcrx_ifq_reg reg;
		struct zr_ring b;
		int id;

		a.addr = (uintptr_t)nodev_map(8);
		a.len = 8 * PAGE;
		if (!a.addr || zr_ring_init(&b, 8, 64, 0))
			_exit(1);
		id = nodev_import(&b, fd, &reg);
		pin[0] = zr_vm_pin_kb();
		if (id < 0 || zr_add_area(&b, id, &a))
			_exit(2);
		pin[1] = zr_vm_pin_kb();
		_exit(write(p[1], pin, sizeof(pin)) == sizeof(pin) ? 0 : 3);
	}
	close(p[1]);
	EXPECT_EQ(sizeof(pin), read(p[0], pin, sizeof(pin)));
	close(p[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	EXPECT_LE(0, pin[0]);
	EXPECT_EQ(pin[0], pin[1]);
	EXPECT_EQ(before + 8 * PAGE / 1024, zr_vm_pin_kb());

	/* the file and the ring go: the instance, and its charge, with them */
	close(fd);
	zr_ring_exit(&self->ring);
	EXPECT_EQ(base, nodev_pin_settles(base));
}

/*
 * Fifty rings in a row, each registering an instance and adding an area
 * to it, then exiting: every page each one pinned and charged is given
 * back, so the fiftieth pins what the first did, and none is left.
 */
TEST_F(nodev, fifty_registrations_give_back_every_pinned_page)
{
	struct io_uring_zcrx_area_reg a = {};
	long base, first = -1, pinned;
	unsigned int i, differ = 0;
	char *mem;

	mem = nodev_map(8);
	ASSERT_NE(NULL, mem);
	zr_ring_exit(&self->ring);
	base = zr_vm_pin_kb();
	ASSERT_LE(0, base);
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(0, zr_ring_init(&self->ring, 8, 64, 0));
		self->z.reg.zcrx_id = 0;
		self->z.area.rq_area_token = 0;
		ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
		memset(&a, 0, sizeof(a));
		a.addr = (uintptr_t)mem;
		a.len = 8 * PAGE;
		ASSERT_EQ(0, zr_add_area(&self->ring, self->z.reg.zcrx_id, &a));
		pinned = zr_vm_pin_kb();
		if (first < 0)
			first = pinned;
		differ += pinned != first;
		zr_ring_exit(&self->ring);
		ASSERT_EQ(base, nodev_pin_settles(base));
	}
	EXPECT_EQ(0, differ);
	EXPECT_LT(base, first);
	munmap(mem, 8 * PAGE);
}

TEST_HARNESS_MAIN
