// SPDX-License-Identifier: GPL-2.0
/*
 * devmem receive through io_uring (liburing): 6.1's IORING_OP_RECVMSG
 * hands msg_flags to the socket, so MSG_SOCK_DEVMEM reaches TCP as from
 * recvmsg(2). Single-shot and multishot (provided buffers, control data
 * in the io_uring_recvmsg_out layout) give the same cmsgs and tokens as
 * the syscall; tokens belong to the socket, not to the ring, and go back
 * with SO_DEVMEM_DONTNEED. The rules of the syscall hold: a control area
 * too small for a cmsg loses nothing, readers without the flag get
 * EFAULT, and tokens go when the socket does, whatever the ring does.
 * On an hdsim port whose queue 3 is bound to a udmabuf.
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1

#include <errno.h>
#include <liburing.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "devmem_traffic.h"

#define ETOOSMALL	525	/* kernel-internal errno, as upstream */

#define DMABUF_SIZE	(16 << 20)
#define BOUND_QUEUE	3
#define PORT_DEVMEM	5310
#define RX_ADDR		"192.0.7.1"
#define TX_ADDR		"192.0.7.2"

/* multishot: provided buffers of header, control area and payload */
#define BGID		7
#define NBUFS		64
#define CTRL_LEN	(64 * CMSG_SPACE(sizeof(struct dmabuf_cmsg)))
#define PAYLOAD_LEN	(64 << 10)
#define MS_BUF_LEN	(sizeof(struct io_uring_recvmsg_out) + CTRL_LEN + \
			 PAYLOAD_LEN)

FIXTURE(uring)
{
	struct devmem_env env;
	struct io_uring ring;
	bool ring_up;
};

FIXTURE_SETUP(uring)
{
	if (!devmem_env_available())
		SETUP_SKIP("no hdsim driver (CONFIG_HDSIM)");
	ASSERT_EQ(0, devmem_env_setup_queue(&self->env, "uring", 37, RX_ADDR,
					    TX_ADDR, BOUND_QUEUE, PORT_DEVMEM,
					    DMABUF_SIZE));
	ASSERT_EQ(0, io_uring_queue_init(16, &self->ring, 0));
	self->ring_up = true;
}

FIXTURE_TEARDOWN(uring)
{
	if (self->ring_up)
		io_uring_queue_exit(&self->ring);
	EXPECT_EQ(0, devmem_env_teardown(&self->env));
}

static char ctrl[80000];

/* Submit @sqe's request and return its completion's result. */
static int uring_result(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/* devmem_recv() through IORING_OP_RECVMSG: r->err is the CQE's -res. */
static void uring_recvmsg(struct io_uring *ring, int fd, size_t len,
			  void *control, size_t control_len, int flags,
			  struct rx_result *r)
{
	struct iovec iov;
	struct msghdr msg = devmem_rx_msg(&iov, len, control, control_len);
	int ret;

	io_uring_prep_recvmsg(io_uring_get_sqe(ring), fd, &msg, flags);
	ret = uring_result(ring);
	rx_result_set(r, &msg, ret, ret < 0 ? -ret : 0);
}

/* Check @r's frags against the pattern from stream offset *@got on. */
static uint64_t frags_bad(const struct devmem_env *env,
			  const struct rx_result *r, size_t *got)
{
	uint64_t bad = 0;
	int i;

	for (i = 0; i < r->ndmabuf; i++) {
		const struct dmabuf_cmsg *f = &r->frags[i];

		bad += f->dmabuf_id != env->binding;
		bad += check_pattern(env->map + f->frag_offset, f->frag_size,
				     *got);
		*got += f->frag_size;
	}
	return bad;
}

TEST_F(uring, recvmsg_op_receives_the_stream_into_the_dmabuf)
{
	size_t bytes = 1 << 20, got = 0, before;
	unsigned long calls = 0;
	struct rx_result r;
	uint64_t bad = 0;
	pid_t pid;
	int fd;

	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	while (got < bytes) {
		uring_recvmsg(&self->ring, fd, bytes - got, ctrl, sizeof(ctrl),
			      MSG_SOCK_DEVMEM, &r);
		ASSERT_GT(r.ret, 0);
		EXPECT_EQ(0, r.nlinear);
		before = got;
		bad += frags_bad(&self->env, &r, &got);
		EXPECT_EQ(r.ret, (ssize_t)(got - before));
		EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
		calls++;
	}
	TH_LOG("%zu bytes in %lu IORING_OP_RECVMSG completions", got, calls);
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

/* A ring of NBUFS provided buffers in group BGID. */
struct bufs {
	struct io_uring_buf_ring *br;
	uint8_t *mem;
	size_t br_size;
};

static int bufs_add(struct bufs *b, int bid)
{
	io_uring_buf_ring_add(b->br, b->mem + (size_t)bid * MS_BUF_LEN,
			      MS_BUF_LEN, bid, io_uring_buf_ring_mask(NBUFS), 0);
	io_uring_buf_ring_advance(b->br, 1);
	return 0;
}

static int bufs_setup(struct io_uring *ring, struct bufs *b)
{
	struct io_uring_buf_reg reg = { .ring_entries = NBUFS, .bgid = BGID };
	int i, ret;

	b->br_size = NBUFS * sizeof(struct io_uring_buf);
	b->br = mmap(NULL, b->br_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b->mem = malloc((size_t)NBUFS * MS_BUF_LEN);
	if (b->br == MAP_FAILED || !b->mem)
		return -ENOMEM;
	reg.ring_addr = (unsigned long)b->br;
	ret = io_uring_register_buf_ring(ring, &reg, 0);
	if (ret)
		return ret;
	io_uring_buf_ring_init(b->br);
	for (i = 0; i < NBUFS; i++)
		bufs_add(b, i);
	return 0;
}

static void bufs_free(struct io_uring *ring, struct bufs *b)
{
	io_uring_unregister_buf_ring(ring, BGID);
	munmap(b->br, b->br_size);
	free(b->mem);
}

/* Arm a multishot recvmsg on @fd with @ctrl_len of control per CQE. */
static void arm_multishot(struct io_uring *ring, int fd, struct msghdr *msgh,
			  size_t ctrl_len, int flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	memset(msgh, 0, sizeof(*msgh));
	msgh->msg_controllen = ctrl_len;
	io_uring_prep_recvmsg_multishot(sqe, fd, msgh, flags);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	io_uring_sqe_set_data64(sqe, 1);
	io_uring_submit(ring);
}

/* A multishot completion's result, its cmsgs in @r, its buffer given back. */
static int multishot_cqe(struct bufs *b, struct msghdr *msgh,
			 const struct io_uring_cqe *cqe, struct rx_result *r)
{
	struct io_uring_recvmsg_out *o;
	int ret = cqe->res, bid;

	memset(r, 0, sizeof(*r));
	r->ret = ret;
	if (!(cqe->flags & IORING_CQE_F_BUFFER))
		return ret;
	bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
	o = io_uring_recvmsg_validate(b->mem + (size_t)bid * MS_BUF_LEN, ret,
				      msgh);
	if (o) {
		struct msghdr m = {
			.msg_control = (char *)(o + 1) + msgh->msg_namelen,
			.msg_controllen = o->controllen,
			.msg_flags = o->flags,
		};

		r->ret = o->payloadlen;
		rx_parse(&m, r);
	} else {
		ret = -EBADMSG;
	}
	bufs_add(b, bid);
	return ret;
}

/* The next multishot completion; *@more is false once the request ended. */
static int multishot_next(struct io_uring *ring, struct bufs *b,
			  struct msghdr *msgh, struct rx_result *r, bool *more)
{
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret < 0)
		return ret;
	*more = cqe->flags & IORING_CQE_F_MORE;
	ret = multishot_cqe(b, msgh, cqe, r);
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

TEST_F(uring, multishot_recvmsg_gives_cmsgs_in_recvmsg_out)
{
	unsigned long cqes = 0, arms = 0, enobufs = 0;
	size_t bytes = 1 << 20, got = 0, before;
	struct msghdr msgh;
	struct rx_result r;
	struct bufs b;
	uint64_t bad = 0;
	bool more = false;
	int fd, ret;
	pid_t pid;

	ASSERT_EQ(0, bufs_setup(&self->ring, &b));
	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	while (got < bytes) {
		if (!more) {
			arm_multishot(&self->ring, fd, &msgh, CTRL_LEN,
				      MSG_SOCK_DEVMEM);
			arms++;
		}
		ret = multishot_next(&self->ring, &b, &msgh, &r, &more);
		/* completions outran the buffers given back: the request
		 * ended, as multishot requests do; armed again above
		 */
		if (ret == -ENOBUFS) {
			enobufs++;
			continue;
		}
		ASSERT_LT(0, ret);
		ASSERT_GT(r.ret, 0);
		EXPECT_EQ(0, r.nlinear);
		before = got;
		bad += frags_bad(&self->env, &r, &got);
		/* every byte of the completion is in a cmsg */
		EXPECT_EQ(r.ret, (ssize_t)(got - before));
		EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
		cqes++;
	}
	TH_LOG("%zu bytes in %lu multishot completions, %lu submissions (%lu ENOBUFS)",
	       got, cqes, arms, enobufs);
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, reap(pid));
	close(fd);
	bufs_free(&self->ring, &b);
}

TEST_F(uring, control_area_too_small_loses_nothing)
{
	struct msghdr msgh;
	struct rx_result r;
	struct bufs b;
	bool more;
	pid_t pid;
	int fd;

	ASSERT_EQ(0, bufs_setup(&self->ring, &b));
	fd = devmem_env_stream(&self->env, 64 << 10, &pid);
	ASSERT_GE(fd, 0);
	wait_inq(fd, 1);

	/* single-shot: no control area, then one byte short of a cmsg */
	uring_recvmsg(&self->ring, fd, 4096, NULL, 0, MSG_SOCK_DEVMEM, &r);
	EXPECT_EQ(ETOOSMALL, r.err);
	uring_recvmsg(&self->ring, fd, 4096, ctrl,
		      CMSG_LEN(sizeof(struct dmabuf_cmsg)) - 1,
		      MSG_SOCK_DEVMEM, &r);
	EXPECT_EQ(ETOOSMALL, r.err);
	/* multishot with the same short control area ends at once */
	arm_multishot(&self->ring, fd, &msgh,
		      CMSG_LEN(sizeof(struct dmabuf_cmsg)) - 1,
		      MSG_SOCK_DEVMEM);
	EXPECT_EQ(-ETOOSMALL, multishot_next(&self->ring, &b, &msgh, &r,
					     &more));
	EXPECT_FALSE(more);

	/* the next read with room gets the stream from its first byte */
	uring_recvmsg(&self->ring, fd, 4096, ctrl, sizeof(ctrl),
		      MSG_SOCK_DEVMEM, &r);
	ASSERT_GT(r.ret, 0);
	ASSERT_GT(r.ndmabuf, 0);
	EXPECT_EQ(pattern_at(0), self->env.map[r.frags[0].frag_offset]);
	EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
	EXPECT_EQ(0, reap(pid));
	close(fd);
	bufs_free(&self->ring, &b);
}

TEST_F(uring, readers_without_the_flag_get_efault)
{
	static char buf[4096];
	struct rx_result r;
	pid_t pid;
	int fd;

	fd = devmem_env_stream(&self->env, 64 << 10, &pid);
	ASSERT_GE(fd, 0);
	wait_inq(fd, 1);

	uring_recvmsg(&self->ring, fd, 4096, ctrl, sizeof(ctrl), 0, &r);
	EXPECT_EQ(EFAULT, r.err);
	io_uring_prep_recv(io_uring_get_sqe(&self->ring), fd, buf,
			   sizeof(buf), 0);
	EXPECT_EQ(-EFAULT, uring_result(&self->ring));
	io_uring_prep_read(io_uring_get_sqe(&self->ring), fd, buf,
			   sizeof(buf), 0);
	EXPECT_EQ(-EFAULT, uring_result(&self->ring));
	/* recv with the flag but without a control area: as recv(2) */
	io_uring_prep_recv(io_uring_get_sqe(&self->ring), fd, buf,
			   sizeof(buf), MSG_SOCK_DEVMEM);
	EXPECT_EQ(-ETOOSMALL, uring_result(&self->ring));

	/* nothing was consumed */
	uring_recvmsg(&self->ring, fd, 4096, ctrl, sizeof(ctrl),
		      MSG_SOCK_DEVMEM, &r);
	ASSERT_GT(r.ndmabuf, 0);
	EXPECT_EQ(pattern_at(0), self->env.map[r.frags[0].frag_offset]);
	EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

TEST_F(uring, cancelled_multishot_loses_nothing)
{
	size_t bytes = 512 << 10, got = 0, before;
	bool more = true, cancelled = false;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct msghdr msgh;
	struct rx_result r;
	uint64_t bad = 0;
	struct bufs b;
	pid_t pid;
	int fd;

	ASSERT_EQ(0, bufs_setup(&self->ring, &b));
	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	arm_multishot(&self->ring, fd, &msgh, CTRL_LEN, MSG_SOCK_DEVMEM);
	ASSERT_LT(0, multishot_next(&self->ring, &b, &msgh, &r, &more));
	bad += frags_bad(&self->env, &r, &got);
	EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));

	/* cancel it: what completes before the cancel lands still counts */
	sqe = io_uring_get_sqe(&self->ring);
	io_uring_prep_cancel64(sqe, 1, 0);
	io_uring_sqe_set_data64(sqe, 2);
	io_uring_submit(&self->ring);
	while (more || !cancelled) {
		ASSERT_EQ(0, io_uring_wait_cqe(&self->ring, &cqe));
		if (cqe->user_data == 2) {
			/* 0, or -ENOENT if the request had ended */
			EXPECT_TRUE(!cqe->res || cqe->res == -ENOENT);
			cancelled = true;
		} else {
			more = cqe->flags & IORING_CQE_F_MORE;
			if (multishot_cqe(&b, &msgh, cqe, &r) > 0) {
				bad += frags_bad(&self->env, &r, &got);
				EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
			} else {
				/* cancelled, or ended by itself first */
				EXPECT_TRUE(r.ret == -ECANCELED ||
					    r.ret == -ENOBUFS);
			}
		}
		io_uring_cqe_seen(&self->ring, cqe);
	}

	/* recvmsg(2) goes on exactly where the ring stopped */
	while (got < bytes) {
		devmem_recv(fd, bytes - got, ctrl, sizeof(ctrl),
			    MSG_SOCK_DEVMEM, &r);
		ASSERT_GT(r.ret, 0);
		before = got;
		bad += frags_bad(&self->env, &r, &got);
		EXPECT_EQ(r.ret, (ssize_t)(got - before));
		EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
	}
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, reap(pid));
	close(fd);
	bufs_free(&self->ring, &b);
}

/*
 * Tokens are the socket's: a ring that goes away leaves them to the
 * socket (DONTNEED still frees them), and a process that exits holding
 * tokens through a ring gives every one of them back with its socket.
 */
TEST_F(uring, ring_teardown_and_exit_leave_no_token)
{
	size_t bytes = 128 << 10, got = 0;
	int fd, status, sync[2];
	struct rx_result r;
	pid_t pid, child;
	char c;

	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	uring_recvmsg(&self->ring, fd, bytes, ctrl, sizeof(ctrl),
		      MSG_SOCK_DEVMEM, &r);
	ASSERT_GT(r.ndmabuf, 0);
	io_uring_queue_exit(&self->ring);
	self->ring_up = false;
	EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
	while ((got += r.ret) < bytes) {
		devmem_recv(fd, bytes - got, ctrl, sizeof(ctrl),
			    MSG_SOCK_DEVMEM, &r);
		ASSERT_GT(r.ret, 0);
		EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
	}
	EXPECT_EQ(0, reap(pid));
	close(fd);

	/* a child receives through its ring, keeps the tokens, is killed */
	ASSERT_EQ(0, pipe(sync));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		struct io_uring ring;
		pid_t sender;
		int cfd;

		cfd = devmem_env_stream(&self->env, bytes, &sender);
		if (cfd < 0 || io_uring_queue_init(4, &ring, 0))
			_exit(1);
		uring_recvmsg(&ring, cfd, bytes, ctrl, sizeof(ctrl),
			      MSG_SOCK_DEVMEM, &r);
		if (r.ndmabuf <= 0)
			_exit(2);
		reap(sender);
		if (write(sync[1], "x", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	close(sync[1]);
	ASSERT_EQ(1, read(sync[0], &c, 1));
	close(sync[0]);
	/* unbind here; the child's tokens keep the binding alive ... */
	devmem_nl_close(&self->env.nl);
	usleep(300000);
	EXPECT_EQ(1, devmem_bindings_live());
	kill(child, SIGKILL);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	/* ... until its socket goes with it, and every token */
	EXPECT_EQ(0, devmem_wait_bindings(0, 5000));
}

TEST_HARNESS_MAIN
