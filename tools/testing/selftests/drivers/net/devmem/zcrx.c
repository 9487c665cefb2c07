// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring zero-copy receive (IORING_REGISTER_ZCRX_IFQ, IORING_OP_RECV_ZC)
 * on queue 3 of an hdsim port: the stream lands in the registered area,
 * buffers come back through the refill ring, the ring's exit and the
 * device's removal leave nothing behind, and every bad registration or
 * request gets upstream's errno. An area added to the live instance
 * (ZCRX_CTRL_ADD_AREA) receives once the first runs dry. The sender runs in a namespace on the
 * peer port.
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/tls.h>

#include <linux/capability.h>
#include <linux/magic.h>

/* before <fcntl.h>: the iovec header that would define size_t is skipped */
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "devmem_traffic.h"
#include "netcfg.h"
#include "rtnl_watch.h"
#include "zcrx_lib.h"

#define ZC_QUEUE		3
#define ZC_PORT			5400
#define RX_ADDR			"192.0.5.1"
#define TX_ADDR			"192.0.5.2"
#define AREA_SIZE		(8 << 20)
/* a slot for each buffer of the area: the refill ring is never full */
#define RQ_ENTRIES		(AREA_SIZE / 4096)
#define CQ_ENTRIES		4096

#ifndef SOL_TLS
#define SOL_TLS			282
#endif

/* a trace instance and a kprobe event of this program's own */
#define ZC_TRACE	TRACEFS "/instances/devmem_zcrx"
#define ZC_KPROBE	"devmem_zcrx/sync_dev"

static void zc_trace_close(void)
{
	/* the instance first: an enabled event cannot be removed */
	rmdir(ZC_TRACE);
	write_file(TRACEFS "/kprobe_events", "-:" ZC_KPROBE "\n");
}

FIXTURE(zcrx)
{
	struct devmem_env env;
	struct zr_ring ring;
	struct zr_ifq z;
};

FIXTURE_SETUP(zcrx)
{
	DEVMEM_ONLY_SKIP();
	if (!devmem_env_available())
		SETUP_SKIP("no hdsim driver (CONFIG_HDSIM)");
	ASSERT_EQ(0, devmem_env_setup_queue(&self->env, "zcrx", 36, RX_ADDR,
					    TX_ADDR, ZC_QUEUE, ZC_PORT, 0));
	ASSERT_EQ(0, zr_ring_init(&self->ring, 64, CQ_ENTRIES, 0));
	ASSERT_EQ(0, zr_ifq_prepare(&self->z, self->env.ifindex, ZC_QUEUE,
				    AREA_SIZE, RQ_ENTRIES));
}

FIXTURE_TEARDOWN(zcrx)
{
	/* a test that failed half way leaves no trace instance or kprobe */
	zc_trace_close();
	zr_ring_exit(&self->ring);
	zr_ifq_free(&self->z);
	EXPECT_EQ(0, devmem_env_teardown(&self->env));
}

/* Field @key ("copy_count", "mapped"...) of instance @id in the ring's
 * fdinfo, or -1
 */
static long zcrx_fdinfo(int ring_fd, unsigned int id, const char *key)
{
	char path[64], line[256], want[32], field[32];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ring_fd);
	snprintf(want, sizeof(want), "Zcrx%u:", id);
	snprintf(field, sizeof(field), " %s ", key);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, field);

		if (!strncmp(line, want, strlen(want)) && p)
			n = strtol(p + strlen(field), NULL, 10);
	}
	fclose(f);
	return n;
}

/*
 * The ring's exit closes its instances in a work item: wait up to 5 s
 * for queue @q to lose its io-uring nest. 0 once it has.
 */
static int zc_wait_queue_free(struct devmem_env *env, int q)
{
	uint32_t buf_len = 1;
	int i;

	for (i = 0; i < 100; i++) {
		if (devmem_queue_io_uring(&env->nl, env->ifindex, q, &buf_len))
			return -1;
		if (!buf_len)
			return 0;
		usleep(50000);
	}
	return -1;
}

struct zc_result {
	size_t bytes;		/* received */
	size_t bad;		/* bytes not as sent */
	unsigned int cqes;	/* data CQEs */
	unsigned int rearms;	/* requests ended by a full CQ, re-armed */
	int last_res;		/* the CQE without F_MORE */
	bool ended;
};

/*
 * Take every CQE posted so far: check each buffer's bytes against the
 * pattern and give it back. True once a CQE without F_MORE ended the
 * request, its result in @res->last_res.
 */
static bool zc_reap(struct zr_ring *r, struct zr_ifq *z, struct zc_result *res)
{
	struct io_uring_cqe *cqe;
	bool ended = false;

	while ((cqe = zr_peek_cqe(r))) {
		if (!(cqe->flags & IORING_CQE_F_MORE)) {
			res->last_res = cqe->res;
			ended = true;
		} else if (cqe->res > 0) {
			uint64_t off = zr_cqe_off(cqe) & ~IORING_ZCRX_AREA_MASK;

			res->bad += check_pattern(z->area_mem + off, cqe->res,
						  res->bytes);
			res->bytes += cqe->res;
			res->cqes++;
			zr_return(z, cqe);
		}
		zr_cqe_seen(r);
	}
	return ended;
}

/*
 * Receive on @fd until the request ends: check every byte against the
 * pattern, give every buffer back. A request ended by a full CQ
 * (-ENOSPC) is re-armed once the CQ is drained, as an application does.
 */
static void zc_receive(struct zr_ring *r, struct zr_ifq *z, int fd,
		       unsigned int len, struct zc_result *res)
{
	memset(res, 0, sizeof(*res));
	zr_prep_recvzc(r, fd, z->reg.zcrx_id, len, 7);
	while (!res->ended) {
		if (zr_submit_wait(r, 1) < 0 && errno != EINTR)
			break;
		if (!zc_reap(r, z, res))
			continue;
		if (res->last_res == -ENOSPC && res->rearms < 1000) {
			res->rearms++;
			zr_prep_recvzc(r, fd, z->reg.zcrx_id, len, 7);
		} else {
			res->ended = true;
		}
	}
}

/*
 * Receive the rest of connection @fd, @bytes from the sender @pid: all of
 * it intact, to res 0, every buffer given back; reap the sender, close
 * @fd. The CQEs in @cqes.
 */
static void zc_expect_all(struct __test_metadata *_metadata,
			  struct zr_ring *r, struct zr_ifq *z, int fd,
			  pid_t pid, size_t bytes, unsigned int *cqes)
{
	struct zc_result res;

	zc_receive(r, z, fd, 0, &res);
	EXPECT_EQ(0, res.last_res);
	EXPECT_EQ(bytes, res.bytes);
	EXPECT_EQ(0, res.bad);
	/* every buffer went back: the ring never filled */
	EXPECT_EQ(0, z->rq_kept);
	EXPECT_EQ(0, reap(pid));
	close(fd);
	if (cqes)
		*cqes = res.cqes;
}

/* Stream @bytes from the peer and receive them all, in *@cqes CQEs. */
static void zc_stream_ok(struct __test_metadata *_metadata,
			 struct devmem_env *env, struct zr_ring *r,
			 struct zr_ifq *z, size_t bytes, unsigned int *cqes)
{
	pid_t pid;
	int fd;

	fd = devmem_env_stream(env, bytes, &pid);
	ASSERT_GE(fd, 0);
	zc_expect_all(_metadata, r, z, fd, pid, bytes, cqes);
}

TEST_F(zcrx, stream_lands_in_the_host_area)
{
	size_t bytes = 4 << 20;
	unsigned int cqes = 0;
	pid_t pid;
	int fd;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(0, self->z.reg.zcrx_id);
	EXPECT_EQ(4096, self->z.reg.rx_buf_len);
	EXPECT_EQ(RQ_ENTRIES, self->z.reg.rq_entries);
	EXPECT_EQ(0, self->z.area.rq_area_token);

	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	zc_expect_all(_metadata, &self->ring, &self->z, fd, pid, bytes, &cqes);
	EXPECT_GT(cqes, 0);
	/* everything came through the queue: nothing copied */
	EXPECT_EQ(0, zcrx_fdinfo(self->ring.fd, 0, "copy_count"));
	TH_LOG("%zu bytes in %u CQEs", bytes, cqes);
}

/* What the netlink family shows: the queue's io-uring nest, one pool. */
/*
 * The pool of a zcrx queue, found as upstream's test finds it: the
 * queue's napi-id from queue-get, then the one pool in page-pool-get with
 * that napi-id and an io-uring nest. Its rx-buf-len, or -1 if not exactly
 * one pool matches.
 */
static long zc_pool_buf_len(struct devmem_env *env, int q)
{
	struct devmem_pool_info pools[64];
	uint32_t napi_id = 0;
	long buf_len = -1;
	int i, n, found = 0;

	if (devmem_queue_napi_id(&env->nl, env->ifindex, q,
				 UP_NETDEV_QUEUE_TYPE_RX, &napi_id) || !napi_id)
		return -1;
	n = devmem_page_pools(&env->nl, pools, 64);
	for (i = 0; i < n; i++) {
		if (pools[i].napi_id != napi_id || !pools[i].io_uring_buf)
			continue;
		buf_len = pools[i].io_uring_buf;
		found++;
	}
	return found == 1 ? buf_len : -1;
}

TEST_F(zcrx, netlink_shows_the_instance_on_its_queue_and_pool)
{
	struct devmem_pool_info pools[64];
	uint32_t napi_id = 0, napi_id_prev = 0, buf_len = 0;
	int i, n, found = 0;

	ASSERT_EQ(0, devmem_queue_io_uring(&self->env.nl, self->env.ifindex,
					   ZC_QUEUE, &buf_len));
	EXPECT_EQ(0, buf_len);
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	ASSERT_EQ(0, devmem_queue_io_uring(&self->env.nl, self->env.ifindex,
					   ZC_QUEUE, &buf_len));
	EXPECT_EQ(4096, buf_len);
	ASSERT_EQ(0, devmem_queue_io_uring(&self->env.nl, self->env.ifindex,
					   ZC_QUEUE - 1, &buf_len));
	EXPECT_EQ(0, buf_len);

	n = devmem_page_pools(&self->env.nl, pools, 64);
	ASSERT_GT(n, 0);
	for (i = 0; i < n; i++) {
		if (pools[i].ifindex != (uint32_t)self->env.ifindex ||
		    !pools[i].io_uring_buf || pools[i].detach_time)
			continue;
		EXPECT_EQ(4096, pools[i].io_uring_buf);
		EXPECT_EQ(0, pools[i].dmabuf);
		found++;
	}
	EXPECT_EQ(1, found);

	/* each queue names its own NAPI; the pool is found by it */
	ASSERT_EQ(0, devmem_queue_napi_id(&self->env.nl, self->env.ifindex,
					  ZC_QUEUE, UP_NETDEV_QUEUE_TYPE_RX,
					  &napi_id));
	ASSERT_EQ(0, devmem_queue_napi_id(&self->env.nl, self->env.ifindex,
					  ZC_QUEUE - 1, UP_NETDEV_QUEUE_TYPE_RX,
					  &napi_id_prev));
	EXPECT_NE(0, napi_id);
	EXPECT_NE(0, napi_id_prev);
	EXPECT_NE(napi_id, napi_id_prev);
	EXPECT_EQ(4096, zc_pool_buf_len(&self->env, ZC_QUEUE));

	/* the ring's exit takes the instance off the queue */
	zr_ring_exit(&self->ring);
	EXPECT_EQ(0, zc_wait_queue_free(&self->env, ZC_QUEUE));
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 5000));
}

/* The refill ring in kernel memory, mapped through the ring fd. */
TEST_F(zcrx, kernel_refill_ring_mapped_at_its_offset)
{
	size_t bytes = 1 << 20;
	void *p;

	munmap(self->z.ring_mem, self->z.ring_len);
	self->z.ring_mem = NULL;
	self->z.rd.user_addr = 0;
	self->z.rd.flags = 0;
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(0x30000000ULL, self->z.rd.mmap_offset);
	EXPECT_TRUE(self->z.ring_mapped);

	/* larger than the region, or a region that does not exist */
	p = mmap(NULL, self->z.ring_len + 4096, PROT_READ, MAP_SHARED,
		 self->ring.fd, self->z.rd.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->ring.fd,
		 0x30000000ULL + (1 << 16));
	EXPECT_EQ(MAP_FAILED, p);

	zc_stream_ok(_metadata, &self->env, &self->ring, &self->z, bytes, NULL);
}

/* A user-memory refill ring cannot be mapped through the ring fd. */
TEST_F(zcrx, user_refill_ring_is_not_mappable)
{
	void *p;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(0, self->z.rd.mmap_offset);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->ring.fd,
		 0x30000000ULL);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

/* len limits the request: it ends with res 0 once that much arrived. */
TEST_F(zcrx, length_limited_request_stops_at_its_length)
{
	size_t bytes = 256 << 10, limit = 64 << 10;
	struct zc_result res;
	pid_t pid;
	int fd;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	zc_receive(&self->ring, &self->z, fd, limit, &res);
	EXPECT_EQ(0, res.last_res);
	EXPECT_EQ(limit, res.bytes);
	EXPECT_EQ(0, res.bad);

	/* the rest is still there, from the next byte */
	zc_receive(&self->ring, &self->z, fd, 0, &res);
	EXPECT_EQ(0, res.last_res);
	EXPECT_EQ(bytes - limit, res.bytes);
	EXPECT_EQ(limit, res.bytes ? limit : 0);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

/*
 * A stream already queued when a multishot RECV_ZC starts. A pass reads
 * at most 32 skbs; a pass that read data runs again from task work,
 * behind the ring's other work, and io_uring_enter() stops running rounds
 * of task work once its CQEs are there. With GRO off an skb holds at most
 * 17 frags (MAX_SKB_FRAGS: TCP coalesces queued segments up to that), a
 * CQE each, so a pass posts at most 544 CQEs; the first enter runs at
 * most three passes (at submission, in the submission's round of task
 * work, in the wait's round), each later one pass. 4 MiB is some 2,900
 * segments. Before, the poll handler looped until the socket was empty:
 * all of it in the first enter, and under a steady stream the task
 * never went back to user space.
 */
TEST_F(zcrx, one_enter_runs_a_bounded_number_of_passes)
{
	const int bytes = 4 << 20, rcvbuf = 64 << 20;
	const unsigned int pass = 32 * 17;
	unsigned int first = 0, most = 0, enters = 0;
	struct zc_result res = {};
	pid_t pid;
	int fd;

	/* room for every segment in its own buffer */
	zr_ifq_free(&self->z);
	ASSERT_EQ(0, zr_ifq_prepare(&self->z, self->env.ifindex, ZC_QUEUE,
				    32 << 20, RQ_ENTRIES));
	ASSERT_EQ(0, ethtool_feature(self->env.ifname, "rx-gro", false));
	/* room for the whole stream before anything is read */
	ASSERT_EQ(0, setsockopt(self->env.lfd, SOL_SOCKET, SO_RCVBUFFORCE,
				&rcvbuf, sizeof(rcvbuf)));
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, wait_inq_for(fd, bytes, 20000));

	zr_prep_recvzc(&self->ring, fd, self->z.reg.zcrx_id, 0, 7);
	while (!res.ended && res.bytes < (size_t)bytes) {
		unsigned int before = res.cqes, n;

		ASSERT_LE(0, zr_submit_wait(&self->ring, 1));
		res.ended = zc_reap(&self->ring, &self->z, &res);
		n = res.cqes - before;
		if (!enters++)
			first = n;
		else if (n > most)
			most = n;
	}
	TH_LOG("%u CQEs in %u enters: the first posted %u, a later one at most %u",
	       res.cqes, enters, first, most);
	EXPECT_EQ(bytes, res.bytes);
	EXPECT_EQ(0, res.bad);
	EXPECT_EQ(0, res.last_res);
	EXPECT_GE(3 * pass, first);
	EXPECT_GE(pass, most);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

/* Data that never went through the queue (loopback) is copied. */
TEST_F(zcrx, loopback_data_is_copied_and_counted)
{
	size_t bytes = 256 << 10, off = 0;
	struct devmem_host_stats lo[2];
	char buf[4096];
	int lfd, fd;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	ASSERT_EQ(0, devmem_host_stats_get(&self->env.nl, 1, 0, &lo[0]));
	lfd = listen_on("127.0.0.1", ZC_PORT + 1);
	ASSERT_GE(lfd, 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct sockaddr_in a = {
			.sin_family = AF_INET,
			.sin_port = htons(ZC_PORT + 1),
			.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		};
		int s = socket(AF_INET, SOCK_STREAM, 0);

		if (connect(s, (void *)&a, sizeof(a)))
			_exit(2);
		while (off < bytes) {
			size_t i;

			for (i = 0; i < sizeof(buf); i++)
				buf[i] = pattern_at(off + i);
			if (write(s, buf, sizeof(buf)) != sizeof(buf))
				_exit(3);
			off += sizeof(buf);
		}
		_exit(0);
	}
	fd = accept(lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	zc_expect_all(_metadata, &self->ring, &self->z, fd, pid, bytes, NULL);
	EXPECT_GT(zcrx_fdinfo(self->ring.fd, 0, "copy_count"), 0);
	/* in the ring's copy count, not devmem-stats': lo has no device
	 * memory, so none was missed (it would count on lo's queue 0)
	 */
	ASSERT_EQ(0, devmem_host_stats_get(&self->env.nl, 1, 0, &lo[1]));
	EXPECT_EQ(0, lo[1].zcrx_bytes - lo[0].zcrx_bytes);
	close(lfd);
}

/*
 * devmem-stats counts RECV_ZC's copies on the queue the data came in on:
 * a flow steered to a queue without the instance is copied whole, one
 * through the instance's queue not at all.
 */
TEST_F(zcrx, copies_are_counted_on_the_queue_the_data_came_in_on)
{
	struct devmem_host_stats q1[2], zq[2];
	struct devmem_nl *nl = &self->env.nl;
	int ifindex = self->env.ifindex;
	size_t bytes = 1 << 20;
	int lfd, fd;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	ASSERT_EQ(0, devmem_env_steer(&self->env, ZC_PORT + 2, 1));
	lfd = listen_on(RX_ADDR, ZC_PORT + 2);
	ASSERT_GE(lfd, 0);
	ASSERT_EQ(0, devmem_host_stats_get(nl, ifindex, 1, &q1[0]));
	ASSERT_EQ(0, devmem_host_stats_get(nl, ifindex, ZC_QUEUE, &zq[0]));
	pid = sender_to(self->env.ns, RX_ADDR, ZC_PORT + 2, bytes);
	fd = accept(lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	zc_expect_all(_metadata, &self->ring, &self->z, fd, pid, bytes, NULL);
	close(lfd);
	ASSERT_EQ(0, devmem_host_stats_get(nl, ifindex, 1, &q1[1]));
	EXPECT_EQ(bytes, q1[1].zcrx_bytes - q1[0].zcrx_bytes);
	EXPECT_LE(1, q1[1].zcrx_copies - q1[0].zcrx_copies);
	EXPECT_EQ(0, q1[1].devmem_bytes - q1[0].devmem_bytes);

	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	zc_expect_all(_metadata, &self->ring, &self->z, fd, pid, bytes, NULL);
	ASSERT_EQ(0, devmem_host_stats_get(nl, ifindex, ZC_QUEUE, &zq[1]));
	EXPECT_EQ(0, zq[1].zcrx_bytes - zq[0].zcrx_bytes);
	EXPECT_EQ(0, zq[1].zcrx_copies - zq[0].zcrx_copies);
	TH_LOG("queue 1: %llu bytes copied in %llu copies",
	       (unsigned long long)(q1[1].zcrx_bytes - q1[0].zcrx_bytes),
	       (unsigned long long)(q1[1].zcrx_copies - q1[0].zcrx_copies));
}

/* The ring exits while user space holds every buffer: all come back. */
TEST_F(zcrx, ring_exit_with_buffers_held_leaks_nothing)
{
	size_t bytes = 512 << 10, got = 0;
	struct io_uring_cqe *cqe;
	pid_t pid;
	int fd;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	zr_prep_recvzc(&self->ring, fd, self->z.reg.zcrx_id, 0, 1);
	while (got < bytes) {
		if (zr_submit_wait(&self->ring, 1) < 0)
			break;
		while ((cqe = zr_peek_cqe(&self->ring))) {
			if (cqe->res > 0)
				got += cqe->res;	/* never returned */
			zr_cqe_seen(&self->ring);
		}
	}
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(0, reap(pid));
	zr_ring_exit(&self->ring);
	close(fd);
	EXPECT_EQ(0, zc_wait_queue_free(&self->env, ZC_QUEUE));
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 5000));
}

/* A process killed mid-stream with buffers out leaks nothing. */
TEST_F(zcrx, killed_receiver_leaks_nothing)
{
	uint32_t buf_len = 1;
	int status, pipefd[2];
	pid_t pid, rx;
	char c;

	ASSERT_EQ(0, pipe(pipefd));
	rx = fork();
	ASSERT_GE(rx, 0);
	if (!rx) {
		struct io_uring_cqe *cqe;
		struct zr_ring r;
		int fd;

		/* its own process group: the sender it forks below inherits
		 * the ring's fd, and goes with it
		 */
		setpgid(0, 0);
		/* the fixture's ring belongs to the parent (SINGLE_ISSUER) */
		if (zr_ring_init(&r, 64, 0, 0) || zr_ifq_register(&r, &self->z))
			_exit(2);
		fd = devmem_env_stream(&self->env, 64 << 20, &pid);
		if (fd < 0)
			_exit(3);
		zr_prep_recvzc(&r, fd, self->z.reg.zcrx_id, 0, 1);
		if (zr_submit_wait(&r, 1) < 0)
			_exit(4);
		cqe = zr_peek_cqe(&r);
		if (!cqe || cqe->res <= 0)
			_exit(5);
		/* hold it, and tell the parent */
		if (write(pipefd[1], "x", 1) != 1)
			_exit(6);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	ASSERT_EQ(0, devmem_queue_io_uring(&self->env.nl, self->env.ifindex,
					   ZC_QUEUE, &buf_len));
	EXPECT_EQ(4096, buf_len);
	kill(-rx, SIGKILL);
	ASSERT_EQ(rx, waitpid(rx, &status, 0));
	close(pipefd[0]);
	/* the ring goes with the process */
	EXPECT_EQ(0, zc_wait_queue_free(&self->env, ZC_QUEUE));
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 10000));
}

/* The device goes while the instance is on its queue. */
TEST_F(zcrx, device_removed_under_the_instance)
{
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	ASSERT_EQ(0, hdsim_del(self->env.dev_id));
	self->env.dev_gone = true;
	zr_ring_exit(&self->ring);
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 5000));
}

/*
 * The device goes while user space holds buffers (CQEs it has not given
 * back) and more of the stream waits unread in the socket. The area is
 * unmapped for the device when it unregisters, while its DMA device still
 * exists: fdinfo says "mapped 0", and a dmabuf area is no longer attached
 * to anything. The buffers and skbs come back later, with the ring's
 * exit, without any DMA. Before, the area stayed mapped until the last
 * page pool was gone.
 */
static void zc_device_gone_holding_buffers(struct __test_metadata *_metadata,
					   struct devmem_env *env,
					   struct zr_ring *ring,
					   struct zr_ifq *z, bool dmabuf_area)
{
	size_t bytes = 4 << 20, size = 8 << 20;
	struct io_uring_cqe *cqe;
	unsigned int held = 0;
	bool ended = false;
	int dmabuf = -1, fd;
	pid_t pid;

	if (dmabuf_area) {
		if (access("/dev/udmabuf", F_OK))
			SKIP(return, "no udmabuf");
		dmabuf = udmabuf_alloc(size, NULL);
		ASSERT_GE(dmabuf, 0);
		zr_ifq_use_dmabuf(z, dmabuf, size);
	}
	ASSERT_EQ(0, zr_ifq_register(ring, z));
	EXPECT_EQ(1, zcrx_fdinfo(ring->fd, 0, "mapped"));
	if (dmabuf_area)
		EXPECT_EQ(1, dmabuf_attachments(dmabuf));

	fd = devmem_env_stream(env, bytes, &pid);
	ASSERT_GE(fd, 0);
	/* 256 KiB of it, kept: no buffer goes back through the refill ring */
	zr_prep_recvzc(ring, fd, z->reg.zcrx_id, 256 << 10, 7);
	while (!ended) {
		ASSERT_LE(0, zr_submit_wait(ring, 1));
		while ((cqe = zr_peek_cqe(ring))) {
			if (!(cqe->flags & IORING_CQE_F_MORE))
				ended = true;
			else if (cqe->res > 0)
				held++;
			zr_cqe_seen(ring);
		}
	}
	ASSERT_LT(0, held);
	ASSERT_EQ(0, wait_inq_for(fd, 1, 5000));

	ASSERT_EQ(0, hdsim_del(env->dev_id));
	env->dev_gone = true;
	EXPECT_EQ(0, zcrx_fdinfo(ring->fd, 0, "mapped"));
	if (dmabuf_area)
		EXPECT_EQ(0, dmabuf_attachments(dmabuf));

	kill(pid, SIGKILL);
	reap(pid);
	close(fd);
	zr_ring_exit(ring);
	EXPECT_EQ(0, devmem_pools_settled(&env->nl, 5000));
	if (dmabuf >= 0)
		close(dmabuf);
}

TEST_F(zcrx, device_removed_with_buffers_held_unmaps_a_host_area)
{
	zc_device_gone_holding_buffers(_metadata, &self->env, &self->ring,
				       &self->z, false);
}

TEST_F(zcrx, device_removed_with_buffers_held_unmaps_a_dmabuf_area)
{
	zc_device_gone_holding_buffers(_metadata, &self->env, &self->ring,
				       &self->z, true);
}

/*
 * The ring exits while skbs with payload in its dmabuf area wait unread
 * in a socket: the queue goes back to host memory and, the ring being
 * the instance's last holder, the area is unmapped at once, as upstream
 * does; the old page pool lives on for those skbs without a mapping. The
 * device's deletion then finds nothing to unmap, and the pools settle
 * once the socket lets the skbs go. (Before holders, the mapping lived
 * with the old pool, until the device's deletion at the latest.)
 */
TEST_F(zcrx, ring_exit_unmaps_the_area_while_skbs_hold_buffers)
{
	size_t size = 8 << 20;
	int dmabuf, fd, i;
	pid_t pid;

	if (access("/dev/udmabuf", F_OK))
		SKIP(return, "no udmabuf");
	dmabuf = udmabuf_alloc(size, NULL);
	ASSERT_GE(dmabuf, 0);
	zr_ifq_use_dmabuf(&self->z, dmabuf, size);
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(1, dmabuf_attachments(dmabuf));
	fd = devmem_env_stream(&self->env, 2 << 20, &pid);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, wait_inq_for(fd, 4096, 5000));
	/* the sender, forked with the ring open, holds it too */
	kill(pid, SIGKILL);
	reap(pid);

	zr_ring_exit(&self->ring);
	EXPECT_EQ(0, zc_wait_queue_free(&self->env, ZC_QUEUE));
	/* the exit work unmaps right after it closed the queue */
	for (i = 0; i < 100 && dmabuf_attachments(dmabuf); i++)
		usleep(50000);
	EXPECT_EQ(0, dmabuf_attachments(dmabuf));
	/* the unread skbs still hold the old pool */
	EXPECT_LT(0, devmem_pools_settled(&self->env.nl, 200));
	ASSERT_EQ(0, hdsim_del(self->env.dev_id));
	self->env.dev_gone = true;
	EXPECT_EQ(0, dmabuf_attachments(dmabuf));

	close(fd);
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 5000));
	close(dmabuf);
}

/* A dmabuf area: the stream lands in the udmabuf; nothing to copy into. */
TEST_F(zcrx, stream_lands_in_a_dmabuf_area)
{
	size_t bytes = 2 << 20, size = 8 << 20;
	int dmabuf, fd;
	void *map;
	pid_t pid;

	if (access("/dev/udmabuf", F_OK))
		SKIP(return, "no udmabuf");
	dmabuf = udmabuf_alloc(size, NULL);
	ASSERT_GE(dmabuf, 0);
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, dmabuf, 0);
	ASSERT_NE(MAP_FAILED, map);
	zr_ifq_use_dmabuf(&self->z, dmabuf, size);
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));

	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	self->z.area_mem = map;
	self->z.area_len = size;
	zc_expect_all(_metadata, &self->ring, &self->z, fd, pid, bytes, NULL);
	close(dmabuf);
}

/* Large buffers from hugetlb memory: rx_buf_len 16 KiB. */
TEST_F(zcrx, large_buffers_from_huge_pages)
{
	size_t bytes = 2 << 20, size = 4 << 20;
	uint32_t buf_len;
	void *area;

	if (hugepages_ensure(2))
		SKIP(return, "no 2 MB huge pages");
	/* shared: fork() copies pinned pages of a private mapping */
	area = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (area == MAP_FAILED)
		SKIP(return, "no 2 MB huge pages");
	munmap(self->z.area_mem, self->z.area_len);
	self->z.area_mem = area;
	self->z.area_len = size;
	self->z.area.addr = (uintptr_t)area;
	self->z.area.len = size;
	self->z.reg.rx_buf_len = 16384;
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(16384, self->z.reg.rx_buf_len);
	ASSERT_EQ(0, devmem_queue_io_uring(&self->env.nl, self->env.ifindex,
					   ZC_QUEUE, &buf_len));
	EXPECT_EQ(16384, buf_len);
	EXPECT_EQ(16384, zc_pool_buf_len(&self->env, ZC_QUEUE));

	zc_stream_ok(_metadata, &self->env, &self->ring, &self->z, bytes, NULL);
}

/* Large buffers need memory whose DMA segments hold whole buffers. */
TEST_F(zcrx, large_buffers_in_scattered_pages_get_erange)
{
	self->z.reg.rx_buf_len = 16384;
	EXPECT_EQ(-ERANGE, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 5000));
}

/* A second instance on the same queue, and one on another queue. */
TEST_F(zcrx, one_instance_per_queue)
{
	struct zr_ifq z2;
	uint32_t buf_len;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	ASSERT_EQ(0, zr_ifq_prepare(&z2, self->env.ifindex, ZC_QUEUE,
				    1 << 20, 64));
	EXPECT_EQ(-EEXIST, zr_ifq_register(&self->ring, &z2));
	z2.reg.if_rxq = ZC_QUEUE - 1;
	EXPECT_EQ(0, zr_ifq_register(&self->ring, &z2));
	EXPECT_EQ(1, z2.reg.zcrx_id);
	ASSERT_EQ(0, devmem_queue_io_uring(&self->env.nl, self->env.ifindex,
					   ZC_QUEUE - 1, &buf_len));
	EXPECT_EQ(4096, buf_len);
	zr_ring_exit(&self->ring);
	zr_ifq_free(&z2);
}

/* devmem and zcrx do not share a queue, either way round. */
TEST_F(zcrx, devmem_and_zcrx_exclude_each_other)
{
	uint32_t id;
	int dmabuf;

	if (access("/dev/udmabuf", F_OK))
		SKIP(return, "no udmabuf");
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	dmabuf = udmabuf_alloc(1 << 20, NULL);
	ASSERT_GE(dmabuf, 0);
	EXPECT_EQ(-EEXIST, devmem_bind_rx_range(&self->env.nl,
						self->env.ifindex, dmabuf,
						ZC_QUEUE, 1, &id));
	EXPECT_STREQ("designated queue already memory provider bound",
		     self->env.nl.extack);
	zr_ring_exit(&self->ring);
	ASSERT_EQ(0, zc_wait_queue_free(&self->env, ZC_QUEUE));

	ASSERT_EQ(0, zr_ring_init(&self->ring, 64, 0, 0));
	ASSERT_EQ(0, devmem_bind_rx_range(&self->env.nl, self->env.ifindex,
					  dmabuf, ZC_QUEUE, 1, &id));
	EXPECT_EQ(-EEXIST, zr_ifq_register(&self->ring, &self->z));
	close(dmabuf);
}

/* A plain read of a socket holding zcrx buffers gets EFAULT. */
TEST_F(zcrx, plain_reader_gets_efault)
{
	char buf[4096];
	pid_t pid;
	int fd;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = devmem_env_stream(&self->env, 64 << 10, &pid);
	ASSERT_GE(fd, 0);
	wait_inq(fd, 1);
	EXPECT_EQ(-1, recv(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(EFAULT, errno);
	kill(pid, SIGKILL);
	reap(pid);
	close(fd);
}

/* recvmsg(MSG_SOCK_DEVMEM) never makes a devmem token of a zcrx buffer */
TEST_F(zcrx, devmem_reader_gets_no_token_for_a_zcrx_buffer)
{
	struct iovec iov;
	char ctrl[4096], buf[4096];
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctrl,
		.msg_controllen = sizeof(ctrl),
	};
	size_t bytes = 64 << 10;
	pid_t pid;
	int fd;

	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	wait_inq(fd, 1);
	EXPECT_EQ(-1, recvmsg(fd, &msg, MSG_SOCK_DEVMEM));
	EXPECT_EQ(ENODEV, errno);
	/* nothing was consumed: RECV_ZC gets the whole stream */
	zc_expect_all(_metadata, &self->ring, &self->z, fd, pid, bytes, NULL);
}

/* The probe: the placeholders are unsupported, RECV_ZC is there. */
TEST_F(zcrx, probe_reports_placeholders_unsupported)
{
	struct {
		struct io_uring_probe p;
		struct io_uring_probe_op ops[64];
	} pr = {};
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	int op;

	ASSERT_EQ(0, zr_register(&self->ring, IORING_REGISTER_PROBE, &pr, 64));
	EXPECT_EQ(IORING_OP_RECV_ZC, pr.p.last_op);
	EXPECT_EQ(58, IORING_OP_RECV_ZC);
	for (op = IORING_OP_READ_MULTISHOT; op <= IORING_OP_LISTEN; op++)
		EXPECT_EQ(0, pr.ops[op].flags & IO_URING_OP_SUPPORTED);
	EXPECT_NE(0, pr.ops[IORING_OP_RECV_ZC].flags & IO_URING_OP_SUPPORTED);
	EXPECT_NE(0, pr.ops[IORING_OP_SENDMSG_ZC].flags &
		  IO_URING_OP_SUPPORTED);

	/* and a placeholder fails with EOPNOTSUPP */
	sqe = zr_get_sqe(&self->ring);
	ASSERT_NE(NULL, sqe);
	sqe->opcode = IORING_OP_WAITID;
	ASSERT_EQ(1, zr_submit_wait(&self->ring, 1));
	cqe = zr_peek_cqe(&self->ring);
	ASSERT_NE(NULL, cqe);
	EXPECT_EQ(-EOPNOTSUPP, cqe->res);
	zr_cqe_seen(&self->ring);
}

/* What RECV_ZC refuses, each in its own CQE. */
TEST_F(zcrx, recv_zc_rejects_bad_requests)
{
	int pipefd[2], udp, tcp_fd;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	pid_t pid;
	const struct {
		const char *what;
		int field;	/* 0 addr, 1 off, 2 addr3, 3 msg_flags, 4 ioprio,
				 * 5 ifq idx, 6 buffer select, 7 pipe, 8 udp
				 */
		int err;
	} cases[] = {
		{ "addr", 0, -EINVAL },
		{ "off", 1, -EINVAL },
		{ "addr3", 2, -EINVAL },
		{ "msg_flags", 3, -EINVAL },
		{ "no multishot", 4, -EINVAL },
		{ "unknown ifq", 5, -EINVAL },
		{ "buffer select", 6, -EOPNOTSUPP },
		{ "a pipe", 7, -ENOTSOCK },
		{ "a UDP socket", 8, -EPROTONOSUPPORT },
	};
	unsigned int i;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	ASSERT_EQ(0, pipe(pipefd));
	udp = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_GE(udp, 0);
	tcp_fd = devmem_env_stream(&self->env, 4096, &pid);
	ASSERT_GE(tcp_fd, 0);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		zr_prep_recvzc(&self->ring, tcp_fd, 0, 0, 100 + i);
		sqe = &self->ring.sqes[(*self->ring.sq_tail - 1) &
				       *self->ring.sq_mask];
		switch (cases[i].field) {
		case 0:
			sqe->addr = 1;
			break;
		case 1:
			sqe->off = 1;
			break;
		case 2:
			sqe->addr3 = 1;
			break;
		case 3:
			sqe->msg_flags = MSG_WAITALL;
			break;
		case 4:
			sqe->ioprio = 0;
			break;
		case 5:
			sqe->zcrx_ifq_idx = 5;
			break;
		case 6:
			sqe->flags |= IOSQE_BUFFER_SELECT;
			break;
		case 7:
			sqe->fd = pipefd[0];
			break;
		case 8:
			sqe->fd = udp;
			break;
		}
		ASSERT_EQ(1, zr_submit_wait(&self->ring, 1));
		cqe = zr_peek_cqe(&self->ring);
		ASSERT_NE(NULL, cqe);
		EXPECT_EQ(100 + i, cqe->user_data);
		EXPECT_EQ(0, cqe->flags & IORING_CQE_F_MORE);
		if (cqe->res != cases[i].err)
			TH_LOG("%s: %d, want %d", cases[i].what, cqe->res,
			       cases[i].err);
		EXPECT_EQ(cases[i].err, cqe->res);
		zr_cqe_seen(&self->ring);
	}
	close(pipefd[0]);
	close(pipefd[1]);
	close(udp);
	EXPECT_EQ(0, reap(pid));
	close(tcp_fd);
}

/*
 * RECV_ZC on @fd, a socket that is not plain TCP, ends at once with
 * -EPROTONOSUPPORT; the kernel is still there to receive a stream after.
 */
static void zc_expect_refused(struct __test_metadata *_metadata,
			      struct devmem_env *env, struct zr_ring *r,
			      struct zr_ifq *z, int fd, const char *what)
{
	struct io_uring_cqe *cqe;

	zr_prep_recvzc(r, fd, z->reg.zcrx_id, 0, 300);
	ASSERT_EQ(1, zr_submit_wait(r, 1));
	cqe = zr_peek_cqe(r);
	ASSERT_NE(NULL, cqe);
	EXPECT_EQ(300, cqe->user_data);
	EXPECT_EQ(0, cqe->flags & IORING_CQE_F_MORE);
	if (cqe->res != -EPROTONOSUPPORT)
		TH_LOG("%s: %d, want %d", what, cqe->res, -EPROTONOSUPPORT);
	EXPECT_EQ(-EPROTONOSUPPORT, cqe->res);
	zr_cqe_seen(r);

	zc_stream_ok(_metadata, env, r, z, 256 << 10, NULL);
}

/* NETLINK_XFRM is protocol 6, IPPROTO_TCP, and any user may open it. */
TEST_F(zcrx, recv_zc_refuses_a_netlink_socket_of_protocol_6)
{
	int fd;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_XFRM);
	if (fd < 0)
		SKIP(return, "no NETLINK_XFRM (CONFIG_XFRM_USER): %s",
		     strerror(errno));
	zc_expect_refused(_metadata, &self->env, &self->ring, &self->z, fd,
			  "NETLINK_XFRM");
	close(fd);
}

/* A raw socket of IPPROTO_TCP, IPv4 and IPv6, is no TCP socket. */
TEST_F(zcrx, recv_zc_refuses_raw_sockets_of_ipproto_tcp)
{
	int fd4, fd6;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd4 = socket(AF_INET, SOCK_RAW, IPPROTO_TCP);
	ASSERT_GE(fd4, 0);
	zc_expect_refused(_metadata, &self->env, &self->ring, &self->z, fd4,
			  "raw IPv4");
	close(fd4);

	fd6 = socket(AF_INET6, SOCK_RAW, IPPROTO_TCP);
	if (fd6 < 0) {
		TH_LOG("no raw IPv6 socket: %s", strerror(errno));
		return;
	}
	zc_expect_refused(_metadata, &self->env, &self->ring, &self->z, fd6,
			  "raw IPv6");
	close(fd6);
}

/*
 * A TCP connection whose receive side is kTLS's: its records are not
 * for RECV_ZC to take from under the TLS parser.
 */
TEST_F(zcrx, recv_zc_refuses_a_tcp_socket_with_ktls_receive)
{
	struct tls12_crypto_info_aes_gcm_128 ci = {
		.info.version = TLS_1_2_VERSION,
		.info.cipher_type = TLS_CIPHER_AES_GCM_128,
	};
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(ZC_PORT + 2),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int lfd, cfd, fd;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	lfd = listen_on("127.0.0.1", ZC_PORT + 2);
	ASSERT_GE(lfd, 0);
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_GE(cfd, 0);
	ASSERT_EQ(0, connect(cfd, (void *)&a, sizeof(a)));
	fd = accept(lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	close(lfd);

	if (setsockopt(fd, IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls"))) {
		close(fd);
		close(cfd);
		SKIP(return, "no TLS ULP (CONFIG_TLS): %s", strerror(errno));
	}
	if (setsockopt(fd, SOL_TLS, TLS_RX, &ci, sizeof(ci))) {
		close(fd);
		close(cfd);
		SKIP(return, "no kTLS receive: %s", strerror(errno));
	}
	/* a request let through ends at the FIN instead of waiting */
	ASSERT_EQ(0, shutdown(cfd, SHUT_WR));
	zc_expect_refused(_metadata, &self->env, &self->ring, &self->z, fd,
			  "kTLS");
	close(fd);
	close(cfd);
}

/* The ring a registration needs. */
TEST_F(zcrx, registration_needs_defer_taskrun_and_cqe32)
{
	struct zr_ring r;

	ASSERT_EQ(0, zr_ring_init_raw(&r, 8, 0, IORING_SETUP_CQE32));
	EXPECT_EQ(-EINVAL, zr_ifq_register(&r, &self->z));
	zr_ring_exit(&r);
	ASSERT_EQ(0, zr_ring_init_raw(&r, 8, 0, IORING_SETUP_SINGLE_ISSUER |
				       IORING_SETUP_DEFER_TASKRUN));
	EXPECT_EQ(-EINVAL, zr_ifq_register(&r, &self->z));
	zr_ring_exit(&r);
	EXPECT_EQ(-EINVAL, zr_register(&self->ring, IORING_REGISTER_ZCRX_IFQ,
				       &self->z.reg, 0));
	EXPECT_EQ(-EINVAL, zr_register(&self->ring, IORING_REGISTER_ZCRX_IFQ,
				       NULL, 1));
	/* upstream's MEM_REGION, numbered after it, is not here */
	EXPECT_EQ(-EINVAL, zr_register(&self->ring, 33, NULL, 0));
}

/* Registration and import alike, even with an exported file at hand. */
TEST_F(zcrx, registration_needs_cap_net_admin)
{
	struct zcrx_ctrl c = { .op = ZCRX_CTRL_EXPORT };
	int status;
	pid_t pid;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	ASSERT_EQ(0, zr_register(&self->ring, IORING_REGISTER_ZCRX_CTRL, &c,
				 0));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct io_uring_zcrx_ifq_reg reg = {
			.if_idx = c.zc_export.zcrx_fd,
			.flags = ZCRX_REG_IMPORT,
		};
		struct zr_ring r;

		if (setresuid(65534, 65534, 65534))
			_exit(2);
		if (zr_ring_init(&r, 8, 0, 0))
			_exit(3);
		self->z.reg.zcrx_id = 0;
		self->z.area.rq_area_token = 0;
		if (zr_ifq_register(&r, &self->z) != -EPERM)
			_exit(4);
		_exit(zr_register(&r, IORING_REGISTER_ZCRX_IFQ, &reg, 1) ==
		      -EPERM ? 0 : 5);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(c.zc_export.zcrx_fd);
}

/* rq_entries: rounded up to a power of two; above 32768 only with CLAMP */
TEST_F(zcrx, refill_ring_size_rounding_and_clamp)
{
	struct zr_ring r;

	self->z.reg.rq_entries = 100;
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(128, self->z.reg.rq_entries);
	/* 7.3's header: head and tail on cache lines of their own */
	EXPECT_EQ(0, self->z.reg.offsets.head);
	EXPECT_EQ(64, self->z.reg.offsets.tail);
	EXPECT_EQ(128, self->z.reg.offsets.rqes);
	zr_ring_exit(&self->ring);
	zr_ifq_free(&self->z);
	ASSERT_EQ(0, zc_wait_queue_free(&self->env, ZC_QUEUE));

	ASSERT_EQ(0, zr_ifq_prepare(&self->z, self->env.ifindex, ZC_QUEUE,
				    AREA_SIZE, 65536));
	ASSERT_EQ(0, zr_ring_init(&self->ring, 64, 0, 0));
	EXPECT_EQ(-EINVAL, zr_ifq_register(&self->ring, &self->z));
	ASSERT_EQ(0, zr_ring_init(&r, 8, 0, IORING_SETUP_CLAMP));
	EXPECT_EQ(0, zr_ifq_register(&r, &self->z));
	EXPECT_EQ(32768, self->z.reg.rq_entries);
	zr_ring_exit(&r);
}

/* Every field of a registration upstream checks, in its order. */
TEST_F(zcrx, registration_rejects_bad_input)
{
	const struct {
		const char *what;
		int err;
	} cases[] = {
		{ "reserved word", -EINVAL },
		{ "zcrx_id set", -EINVAL },
		{ "IMPORT with an area and a region", -EINVAL },
		{ "NODEV with a device and a queue", -EINVAL },
		{ "region pointer", -EFAULT },
		{ "queue ~0", -EINVAL },
		{ "no refill entries", -EINVAL },
		{ "area pointer", -EFAULT },
		{ "rx_buf_len not a power of two", -EINVAL },
		{ "rx_buf_len below a page", -EINVAL },
		{ "region reserved word", -EINVAL },
		{ "region flag", -EINVAL },
		{ "TYPE_USER without an address", -EFAULT },
		{ "an address without TYPE_USER", -EFAULT },
		{ "region id", -EINVAL },
		{ "region mmap_offset", -EINVAL },
		{ "region too small", -EINVAL },
		{ "region not page aligned", -EINVAL },
		{ "no such device", -ENODEV },
		{ "no such queue", -ERANGE },
		{ "area flag", -EINVAL },
		{ "area token", -EINVAL },
		{ "area reserved word", -EINVAL },
		{ "area length 0", -EFAULT },
		{ "area length not page aligned", -EINVAL },
		{ "area address not page aligned", -EINVAL },
		{ "area above 1 TiB", -EINVAL },
		{ "area wraps around", -EOVERFLOW },
		{ "host area with a dmabuf fd", -EINVAL },
		{ "host area at address 0", -EFAULT },
		{ "dmabuf area with an address", -EINVAL },
		{ "dmabuf area, closed fd", -EBADF },
		{ "read-only area", -EFAULT },
		{ "header split off", -EINVAL },
		/* 7.3's order: the token before the device */
		{ "area token, and no such device", -EINVAL },
		/* and the buffer size with the area, after the device */
		{ "bad buffer size, and no such device", -ENODEV },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct zr_ifq z = self->z;
		uint32_t buf_len = 1;
		int ret;

		z.reg.area_ptr = (uintptr_t)&z.area;
		z.reg.region_ptr = (uintptr_t)&z.rd;
		switch (i) {
		case 0:
			z.reg.__resv[1] = 1;
			break;
		case 1:
			z.reg.zcrx_id = 1;
			break;
		case 2:
			z.reg.flags = 1;
			break;
		case 3:
			z.reg.flags = 2;
			break;
		case 4:
			z.reg.region_ptr = 8;
			break;
		case 5:
			z.reg.if_rxq = ~0U;
			break;
		case 6:
			z.reg.rq_entries = 0;
			break;
		case 7:
			z.reg.area_ptr = 8;
			break;
		case 8:
			z.reg.rx_buf_len = 4097;
			break;
		case 9:
			z.reg.rx_buf_len = 2048;
			break;
		case 10:
			z.rd.__resv[3] = 1;
			break;
		case 11:
			z.rd.flags = 2 | IORING_MEM_REGION_TYPE_USER;
			break;
		case 12:
			z.rd.user_addr = 0;
			break;
		case 13:
			z.rd.flags = 0;
			break;
		case 14:
			z.rd.id = 1;
			break;
		case 15:
			z.rd.mmap_offset = 4096;
			break;
		case 16:
			z.rd.size = 4096;
			break;
		case 17:
			z.rd.user_addr += 8;
			break;
		case 18:
			z.reg.if_idx = 0x7ffffff0;
			break;
		case 19:
			z.reg.if_rxq = 64;
			break;
		case 20:
			z.area.flags = 4;
			break;
		case 21:
			z.area.rq_area_token = 1;
			break;
		case 22:
			z.area.__resv2[1] = 1;
			break;
		case 23:
			z.area.len = 0;
			break;
		case 24:
			z.area.len = 3 * 4096 + 1;
			break;
		case 25:
			z.area.addr += 1;
			break;
		case 26:
			z.area.len = 1ULL << 41;
			break;
		case 27:
			z.area.addr = ~0ULL & ~4095ULL;
			z.area.len = 8192;
			break;
		case 28:
			z.area.dmabuf_fd = 3;
			break;
		case 29:
			z.area.addr = 0;
			break;
		case 30:
			z.area.flags = IORING_ZCRX_AREA_DMABUF;
			break;
		case 31:
			z.area.flags = IORING_ZCRX_AREA_DMABUF;
			z.area.addr = 0;
			z.area.dmabuf_fd = 100000;
			break;
		case 32:
			ASSERT_EQ(0, mprotect(z.area_mem, z.area_len,
					      PROT_READ));
			break;
		case 33:
			ASSERT_EQ(0, ethtool_set_hds(&self->env.nl,
						     self->env.ifindex,
						     false));
			break;
		case 34:
			z.area.rq_area_token = 1ULL << 48;
			z.reg.if_idx = 0x7ffffff0;
			break;
		case 35:
			z.reg.rx_buf_len = 3;
			z.reg.if_idx = 0x7ffffff0;
			break;
		}
		ret = zr_register(&self->ring, IORING_REGISTER_ZCRX_IFQ,
				  &z.reg, 1);
		if (ret != cases[i].err)
			TH_LOG("%s: %d, want %d", cases[i].what, ret,
			       cases[i].err);
		EXPECT_EQ(cases[i].err, ret);
		if (i == 32)
			mprotect(z.area_mem, z.area_len,
				 PROT_READ | PROT_WRITE);
		if (i == 33)
			ASSERT_EQ(0, ethtool_set_hds(&self->env.nl,
						     self->env.ifindex, true));
		ASSERT_EQ(0, devmem_queue_io_uring(&self->env.nl,
						   self->env.ifindex,
						   ZC_QUEUE, &buf_len));
		EXPECT_EQ(0, buf_len);
	}
	/* and the registration itself still works */
	EXPECT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(0, self->z.reg.zcrx_id);
}

/*
 * Kernel warnings while a test runs: a reader of /dev/kmsg placed at the
 * log's end, and the TAINT_WARN bit.
 */
struct zc_warn_watch {
	int kmsg;
	bool tainted;
};

static bool zc_taint_warn(void)
{
	unsigned long taint = 0;
	FILE *f;

	f = fopen("/proc/sys/kernel/tainted", "r");
	if (!f)
		return false;
	if (fscanf(f, "%lu", &taint) != 1)
		taint = 0;
	fclose(f);
	return taint & (1UL << 9);
}

static void zc_warn_watch_start(struct zc_warn_watch *w)
{
	w->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (w->kmsg >= 0)
		lseek(w->kmsg, 0, SEEK_END);
	w->tainted = zc_taint_warn();
}

/* "WARNING:" lines logged since the start, and a taint that came with them */
static int zc_warn_watch_end(struct zc_warn_watch *w)
{
	char rec[8192];
	int warnings = 0;
	ssize_t n;

	if (!w->tainted && zc_taint_warn())
		warnings++;
	if (w->kmsg < 0)
		return warnings;
	for (;;) {
		n = read(w->kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: read on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, "WARNING:"))
			warnings++;
	}
	close(w->kmsg);
	return warnings;
}

/* A registration of @z fails with @err and leaves the queue free. */
static void zc_reg_refused(struct __test_metadata *_metadata,
			   struct devmem_env *env, struct zr_ring *r,
			   struct zr_ifq *z, int err, const char *what)
{
	uint32_t buf_len = 1;
	int ret;

	ret = zr_register(r, IORING_REGISTER_ZCRX_IFQ, &z->reg, 1);
	if (ret != err)
		TH_LOG("%s: %d, want %d", what, ret, err);
	EXPECT_EQ(err, ret);
	ASSERT_EQ(0, devmem_queue_io_uring(&env->nl, env->ifindex, ZC_QUEUE,
					   &buf_len));
	EXPECT_EQ(0, buf_len);
}

/*
 * Sizes a user may ask for that no allocation can hold: a 1 TiB refill
 * region (2 GiB of page pointers) and areas of 256 GiB and 1 TiB (2 and
 * 8 GiB of net_iovs for 4 KiB buffers). Each fails with ENOMEM, as any
 * allocation that fails, and the kernel does not warn. The memory is
 * PROT_NONE: were anything ever pinned, it would fail at once instead of
 * faulting in what the VM does not have.
 */
TEST_F(zcrx, huge_region_and_area_fail_without_a_warning)
{
	size_t huge = 1ULL << 40;
	struct zc_warn_watch w;
	struct zr_ifq z;
	void *mem;

	mem = mmap(NULL, huge, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		SKIP(return, "no 1 TiB of address space: %s", strerror(errno));

	zc_warn_watch_start(&w);
	z = self->z;
	z.reg.area_ptr = (uintptr_t)&z.area;
	z.reg.region_ptr = (uintptr_t)&z.rd;
	z.rd.user_addr = 0;
	z.rd.flags = 0;
	z.rd.size = huge;
	zc_reg_refused(_metadata, &self->env, &self->ring, &z, -ENOMEM,
		       "1 TiB kernel region");

	z.rd = self->z.rd;
	z.rd.user_addr = (uintptr_t)mem;
	z.rd.size = huge;
	zc_reg_refused(_metadata, &self->env, &self->ring, &z, -ENOMEM,
		       "1 TiB user region");

	z.rd = self->z.rd;
	z.area.addr = (uintptr_t)mem;
	z.area.len = 256ULL << 30;
	zc_reg_refused(_metadata, &self->env, &self->ring, &z, -ENOMEM,
		       "256 GiB area");
	z.area.len = huge;
	zc_reg_refused(_metadata, &self->env, &self->ring, &z, -ENOMEM,
		       "1 TiB area");
	EXPECT_EQ(0, zc_warn_watch_end(&w));
	munmap(mem, huge);

	/* and the registration itself still works */
	EXPECT_EQ(0, zr_ifq_register(&self->ring, &self->z));
}

/* Drop CAP_IPC_LOCK from this process: its rings are charged memlock. */
static int zc_drop_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[0].effective &= ~(1U << CAP_IPC_LOCK);
	data[0].permitted &= ~(1U << CAP_IPC_LOCK);
	data[0].inheritable &= ~(1U << CAP_IPC_LOCK);
	return syscall(SYS_capset, &hdr, data);
}

/*
 * In a child: drop CAP_IPC_LOCK, take a RLIMIT_MEMLOCK of @cur (hard
 * limit @max), make a small ring in @r and a copy of @from in @z that
 * points at its own registration structures. Returns 0, or the child's
 * exit status for what failed.
 */
static int zc_charged_child(struct zr_ring *r, struct zr_ifq *z,
			    const struct zr_ifq *from, rlim_t cur, rlim_t max)
{
	struct rlimit rl = { cur, max };

	if (zc_drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl))
		return 2;
	if (zr_ring_init(r, 8, 0, 0))
		return 3;
	*z = *from;
	z->reg.area_ptr = (uintptr_t)&z->area;
	z->reg.region_ptr = (uintptr_t)&z->rd;
	return 0;
}

/*
 * Without CAP_IPC_LOCK, host memory is charged to RLIMIT_MEMLOCK before
 * anything is allocated or pinned for it: over the limit, a 1 TiB region
 * or area fails with ENOMEM and no warning, and an area in memory that
 * cannot be pinned (PROT_NONE) gets ENOMEM, not the pin's EFAULT.
 */
TEST_F(zcrx, memlock_is_charged_before_allocating_or_pinning)
{
	size_t huge = 1ULL << 40;
	struct zc_warn_watch w;
	int status;
	void *mem;
	pid_t pid;

	mem = mmap(NULL, huge, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		SKIP(return, "no 1 TiB of address space: %s", strerror(errno));

	zc_warn_watch_start(&w);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct zr_ring r;
		struct zr_ifq z;
		int err;

		err = zc_charged_child(&r, &z, &self->z, 1 << 20, 1 << 20);
		if (err)
			_exit(err);
		z.rd.user_addr = 0;
		z.rd.flags = 0;
		z.rd.size = huge;
		if (zr_register(&r, IORING_REGISTER_ZCRX_IFQ, &z.reg, 1) !=
		    -ENOMEM)
			_exit(4);
		z.rd = self->z.rd;
		z.area.addr = (uintptr_t)mem;
		z.area.len = huge;
		if (zr_register(&r, IORING_REGISTER_ZCRX_IFQ, &z.reg, 1) !=
		    -ENOMEM)
			_exit(5);
		/* 16 MiB: arrays that fit, memory that cannot be pinned */
		z.area.len = 16 << 20;
		if (zr_register(&r, IORING_REGISTER_ZCRX_IFQ, &z.reg, 1) !=
		    -ENOMEM)
			_exit(6);
		/* within the limit it is the pin that fails */
		z.area.len = 256 << 10;
		if (zr_register(&r, IORING_REGISTER_ZCRX_IFQ, &z.reg, 1) !=
		    -EFAULT)
			_exit(7);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, zc_warn_watch_end(&w));
	munmap(mem, huge);
}

/*
 * Memory a filesystem owns is refused for the area and the refill ring,
 * as 6.1 refuses it for registered buffers: the NIC and the copy
 * fallback would write its page cache behind the filesystem's back.
 * Here the file is this program (on the VM's 9p root): a private
 * writable mapping of it, and a shared read-only one.
 */
TEST_F(zcrx, area_in_a_mapping_of_this_program_gets_eopnotsupp)
{
	size_t len = 4 * 4096;
	struct zr_ifq z = self->z;
	void *priv, *shared;
	struct stat st;
	int fd;

	fd = open("/proc/self/exe", O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, fstat(fd, &st));
	ASSERT_GE(st.st_size, (off_t)len);
	priv = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	shared = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, priv);
	ASSERT_NE(MAP_FAILED, shared);

	z.reg.area_ptr = (uintptr_t)&z.area;
	z.reg.region_ptr = (uintptr_t)&z.rd;
	z.area.addr = (uintptr_t)priv;
	z.area.len = len;
	zc_reg_refused(_metadata, &self->env, &self->ring, &z, -EOPNOTSUPP,
		       "area in a private file mapping");
	z.area.addr = (uintptr_t)shared;
	zc_reg_refused(_metadata, &self->env, &self->ring, &z, -EOPNOTSUPP,
		       "area in a read-only shared file mapping");
	munmap(priv, len);
	munmap(shared, len);
}

/*
 * A filesystem whose files are not shmem. Not tmpfs, and not overlayfs,
 * whose files may be tmpfs files underneath (virtme-ng's writable /etc,
 * /var, ...).
 */
static bool zc_fs_owns_its_pages(unsigned long type)
{
	switch (type) {
	case V9FS_MAGIC:
	case EXT4_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case XFS_SUPER_MAGIC:
	case FUSE_SUPER_MAGIC:
	case RAMFS_MAGIC:
		return true;
	}
	return false;
}

/*
 * A file of @len bytes in @dir, on such a filesystem, mapped shared and
 * writable; NULL if it cannot be. *@path names the file.
 */
static void *zc_map_file_in(const char *dir, size_t len, char *path,
			    size_t path_len)
{
	struct statfs sfs;
	void *mem;
	int fd;

	snprintf(path, path_len, "%s/zcrx-file-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	mem = MAP_FAILED;
	if (!fstatfs(fd, &sfs) && zc_fs_owns_its_pages(sfs.f_type) &&
	    !ftruncate(fd, len))
		mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			   0);
	close(fd);
	if (mem == MAP_FAILED) {
		unlink(path);
		return NULL;
	}
	return mem;
}

/* Such a file in the working directory, else under the first mount. */
static void *zc_map_fs_file(size_t len, char *path, size_t path_len)
{
	char dir[4096], line[4096];
	void *mem = NULL;
	FILE *mounts;

	mem = zc_map_file_in(".", len, path, path_len);
	mounts = fopen("/proc/self/mounts", "r");
	while (!mem && mounts && fgets(line, sizeof(line), mounts))
		if (sscanf(line, "%*s %4095s", dir) == 1)
			mem = zc_map_file_in(dir, len, path, path_len);
	if (mounts)
		fclose(mounts);
	return mem;
}

TEST_F(zcrx, area_and_ring_in_a_shared_file_mapping_get_eopnotsupp)
{
	size_t len = 4 * 4096, ring_off = 2 * 4096;
	char path[4200], ramfs[] = "/tmp/zcrx-ramfs-XXXXXX";
	struct zr_ifq z = self->z;
	bool mounted = false;
	void *mem;

	/*
	 * 9p without a cache (virtme-ng's) maps no file shared and
	 * writable: then a file of ramfs, which is not shmem either.
	 */
	mem = zc_map_fs_file(len, path, sizeof(path));
	if (!mem && mkdtemp(ramfs)) {
		mounted = !mount("ramfs", ramfs, "ramfs", 0, NULL);
		if (mounted)
			mem = zc_map_file_in(ramfs, len, path, sizeof(path));
	}
	if (!mem) {
		if (mounted)
			umount(ramfs);
		rmdir(ramfs);
		SKIP(return, "no shared mapping of a file that is not shmem");
	}
	TH_LOG("%s", path);

	z.reg.area_ptr = (uintptr_t)&z.area;
	z.reg.region_ptr = (uintptr_t)&z.rd;
	z.area.addr = (uintptr_t)mem;
	z.area.len = ring_off;
	zc_reg_refused(_metadata, &self->env, &self->ring, &z, -EOPNOTSUPP,
		       "area in a shared file mapping");

	z.area = self->z.area;
	z.rd.user_addr = (uintptr_t)mem + ring_off;
	z.rd.size = len - ring_off;
	z.reg.rq_entries = 64;
	zc_reg_refused(_metadata, &self->env, &self->ring, &z, -EOPNOTSUPP,
		       "refill ring in a shared file mapping");
	munmap(mem, len);
	unlink(path);
	if (mounted)
		umount(ramfs);
	rmdir(ramfs);

	/* and the registration itself still works */
	EXPECT_EQ(0, zr_ifq_register(&self->ring, &self->z));
}

/* shmem is not a filesystem's page cache: a memfd area and ring work. */
TEST_F(zcrx, area_and_ring_in_a_memfd_receive)
{
	size_t ring_len = self->z.ring_len;
	void *area, *ring;
	int fd;

	fd = memfd_create("zcrx-area", 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ftruncate(fd, AREA_SIZE + ring_len));
	area = mmap(NULL, AREA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    0);
	ring = mmap(NULL, ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    AREA_SIZE);
	close(fd);
	ASSERT_NE(MAP_FAILED, area);
	ASSERT_NE(MAP_FAILED, ring);
	munmap(self->z.area_mem, self->z.area_len);
	munmap(self->z.ring_mem, self->z.ring_len);
	self->z.area_mem = area;
	self->z.ring_mem = ring;
	self->z.area.addr = (uintptr_t)area;
	self->z.rd.user_addr = (uintptr_t)ring;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	zc_stream_ok(_metadata, &self->env, &self->ring, &self->z, 1 << 20, NULL);
}

/*
 * A pin holds the whole folio: 64 KiB of a 2 MiB hugetlb page keep the 2
 * MiB in memory, and are charged as 2 MiB. Under a 1 MiB RLIMIT_MEMLOCK
 * the area is refused; under 4 MiB it registers and VmPin grows by the
 * huge page and the refill ring, exactly.
 */
TEST_F(zcrx, a_huge_page_is_charged_whole)
{
	size_t huge = 2 << 20, len = 64 << 10;
	int status;
	void *mem;
	pid_t pid;

	if (hugepages_ensure(1))
		SKIP(return, "no 2 MB huge pages");
	mem = mmap(NULL, huge, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (mem == MAP_FAILED)
		SKIP(return, "no 2 MB huge pages");

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct rlimit rl = { 4 << 20, 4 << 20 };
		long base, before, ring_kb;
		struct zr_ring r;
		struct zr_ifq z;
		int err, i;

		err = zc_charged_child(&r, &z, &self->z, 1 << 20, 4 << 20);
		if (err)
			_exit(err);
		z.area.addr = (uintptr_t)mem;
		z.area.len = len;
		ring_kb = z.rd.size >> 10;
		base = zr_vm_pin_kb();
		/* 16 pages asked for, 512 held: over 1 MiB */
		if (zr_register(&r, IORING_REGISTER_ZCRX_IFQ, &z.reg, 1) !=
		    -ENOMEM)
			_exit(4);
		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(5);
		/* what the refused registration charged may come back late */
		for (i = 0; i < 100 && zr_vm_pin_kb() != base; i++)
			usleep(10000);
		before = zr_vm_pin_kb();
		if (before < 0)
			_exit(6);
		if (zr_register(&r, IORING_REGISTER_ZCRX_IFQ, &z.reg, 1))
			_exit(7);
		if (zr_vm_pin_kb() - before != (long)(huge >> 10) + ring_kb) {
			fprintf(stderr, "# VmPin grew by %ld kB, want %ld\n",
				zr_vm_pin_kb() - before,
				(long)(huge >> 10) + ring_kb);
			_exit(8);
		}
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 5000));
	munmap(mem, huge);
}

/* What the RTNL prober saw, in memory shared with it (atomic accesses). */
struct zc_rtnl_probe {
	int stop;
	int rounds;
	long long max_ns;
	int err;
};

#define ZC_GET(x)	__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define ZC_SET(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

static long long zc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* RTM_GETLINK of @ifindex (a request RTNL serves) until told to stop. */
static void zc_rtnl_prober(struct zc_rtnl_probe *p, int ifindex)
{
	struct {
		struct nlmsghdr nlh;
		struct ifinfomsg ifi;
	} req = {
		.nlh.nlmsg_len = sizeof(req),
		.nlh.nlmsg_type = RTM_GETLINK,
		.nlh.nlmsg_flags = NLM_F_REQUEST,
		.ifi.ifi_index = ifindex,
	};
	char buf[8192];
	long long t;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (fd < 0) {
		ZC_SET(p->err, errno);
		return;
	}
	while (!ZC_GET(p->stop)) {
		t = zc_now_ns();
		if (send(fd, &req, sizeof(req), 0) != sizeof(req) ||
		    recv(fd, buf, sizeof(buf), 0) <= 0) {
			ZC_SET(p->err, errno);
			break;
		}
		t = zc_now_ns() - t;
		if (t > ZC_GET(p->max_ns))
			ZC_SET(p->max_ns, t);
		ZC_SET(p->rounds, ZC_GET(p->rounds) + 1);
	}
	close(fd);
}

/*
 * The area's memory is pinned and mapped without RTNL: while 64 MiB of
 * fresh shared memory is faulted in and pinned for the area, RTNL
 * requests of another process are served. Not a speed goal: the
 * longest RTNL request must end well before the registration it ran
 * beside does (on the old kernel it waited the whole pin out, nearly all
 * of the registration). The bound is three quarters, not less: on two
 * vCPUs busy faulting pages in, the prober itself was once kept off its
 * CPU for a quarter of the registration (114 of 440 ms) with RTNL free.
 */
TEST_F(zcrx, rtnl_is_free_while_the_area_is_pinned)
{
	size_t len = 64 << 20;
	struct zc_rtnl_probe *p;
	long long t, reg_ns;
	int status, ret;
	void *mem;
	pid_t pid;

	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0, sizeof(*p));

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		zc_rtnl_prober(p, self->env.ifindex);
		_exit(0);
	}
	for (t = zc_now_ns(); ZC_GET(p->rounds) < 3 && !ZC_GET(p->err);
	     usleep(1000))
		if (zc_now_ns() - t > 10000000000LL)
			break;
	ZC_SET(p->max_ns, 0);

	munmap(self->z.area_mem, self->z.area_len);
	self->z.area_mem = mem;
	self->z.area_len = len;
	self->z.area.addr = (uintptr_t)mem;
	self->z.area.len = len;
	t = zc_now_ns();
	ret = zr_ifq_register(&self->ring, &self->z);
	reg_ns = zc_now_ns() - t;
	ZC_SET(p->stop, 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, p->err);
	ASSERT_GE(p->rounds, 3);
	TH_LOG("registration %lld ms, longest RTNL request beside it %lld ms",
	       reg_ns / 1000000, p->max_ns / 1000000);
	if (reg_ns < 100000000LL)
		SKIP(return, "pinning took %lld ms: too short to tell",
		     reg_ns / 1000000);
	EXPECT_LT(p->max_ns, reg_ns * 3 / 4);
	munmap((void *)p, sizeof(*p));
}

struct zc_register_req {
	struct zr_ring *ring;
	struct zr_ifq *z;
};

static int zc_register_req(void *arg)
{
	struct zc_register_req *r = arg;

	return zr_ifq_register(r->ring, r->z);
}

/*
 * Registers the fixture's area while kprobe events watch which of the
 * pin (host area), attach and map (dmabuf area) and queue restart ran
 * with RTNL held by this task; no timing is involved. The restart must
 * (it shows that the watch sees RTNL at all), the rest must not.
 */
static void zc_register_watching_rtnl(struct __test_metadata *_metadata,
				      struct zr_ring *ring, struct zr_ifq *z,
				      const char *const *funcs, int n)
{
	struct zc_register_req req = { ring, z };
	struct rtnl_watch_count c[RTNL_WATCH_MAX];
	int err, ret;

	err = rtnl_watch_run(funcs, n, c, zc_register_req, &req, &ret);
	if (err == -ENOENT)
		SKIP(return, "no kprobe events (CONFIG_KPROBE_EVENTS)");
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, ret);
	EXPECT_TRUE(rtnl_watch_only_last_held(funcs, c, n));
}

TEST_F(zcrx, pins_and_maps_a_host_area_without_rtnl)
{
	static const char *const funcs[] = {
		"pin_user_pages", "dma_map_sgtable", "netif_mp_open_rxq",
	};

	zc_register_watching_rtnl(_metadata, &self->ring, &self->z, funcs, 3);
}

TEST_F(zcrx, attaches_and_maps_a_dmabuf_area_without_rtnl)
{
	static const char *const funcs[] = {
		"dma_buf_attach", "dma_buf_map_attachment_unlocked",
		"netif_mp_open_rxq",
	};
	size_t size = 8 << 20;
	int dmabuf;

	if (access("/dev/udmabuf", F_OK))
		SKIP(return, "no udmabuf");
	dmabuf = udmabuf_alloc(size, NULL);
	ASSERT_GE(dmabuf, 0);
	zr_ifq_use_dmabuf(&self->z, dmabuf, size);
	zc_register_watching_rtnl(_metadata, &self->ring, &self->z, funcs, 3);
	close(dmabuf);
}

/*
 * A trace instance of this program's own, @kb KiB per CPU, once tracefs
 * has @file: 0, -ENOENT without it, or -errno.
 */
static int zc_trace_open(const char *file, unsigned int kb)
{
	if (tracefs_mount(file))
		return -ENOENT;
	zc_trace_close();
	if (mkdir(ZC_TRACE, 0700))
		return -errno;
	return write_file(ZC_TRACE "/buffer_size_kb", "%u\n", kb);
}

/* The instance's trace, to read once tracing stopped; NULL if it lost
 * events (then every count read from it would be short).
 */
static FILE *zc_trace_read(struct __test_metadata *_metadata)
{
	unsigned long kept, written;
	char line[256];
	FILE *f;

	write_file(ZC_TRACE "/tracing_on", "0\n");
	f = fopen(ZC_TRACE "/trace", "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f) && line[0] == '#') {
		if (sscanf(line, "# entries-in-buffer/entries-written: %lu/%lu",
			   &kept, &written) == 2 && kept != written) {
			TH_LOG("trace kept %lu of %lu events", kept, written);
			fclose(f);
			return NULL;
		}
	}
	/* Opened anew, not rewound: a seek back to 0 of a trace file whose
	 * first read ended inside a line hands that line out twice (the
	 * seek does not clear what was left of it), one event too many.
	 */
	fclose(f);
	return fopen(ZC_TRACE "/trace", "r");
}

/*
 * Every buffer carries user space's reference and its page pool
 * reference before its completion can be seen (issue 57, item 2): user
 * space may give it back through the refill ring the moment it sees the
 * CQE, and a refill on another CPU must then find both. The zcrx:zcrx_cqe
 * tracepoint reads them as each completion is posted. A buffer of the
 * queue also has the pool reference of the skb it came in.
 */
#define ZC_CQE_FMT \
	" zcrx_cqe: zcrx=%*u area=%*u buf=%*u off=%*u len=%*u copied=%d user_refs=%d pp_refs=%ld"

/*
 * zcrx:zcrx_cqe on, into an instance of 4 MiB per CPU: 0, -EOPNOTSUPP
 * on a kernel without trace events, or -errno (the event gone is one).
 */
static int zc_trace_cqes(void)
{
	int err;

	if (tracefs_mount("events"))
		return -EOPNOTSUPP;
	err = zc_trace_open("events/zcrx/zcrx_cqe", 4096);
	if (err)
		return err;
	return write_file(ZC_TRACE "/events/zcrx/zcrx_cqe/enable", "1\n");
}

TEST_F(zcrx, buffers_carry_their_references_when_the_completion_is_posted)
{
	unsigned int cqes = 0, events = 0, early = 0, copies = 0;
	size_t bytes = 4 << 20;
	int copied, user, err, n;
	char line[512], *ev;
	long pool;
	FILE *f;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	/* only a kernel without tracing skips: the event gone fails */
	err = zc_trace_cqes();
	if (err == -EOPNOTSUPP)
		SKIP(return, "no trace events (CONFIG_TRACING)");
	ASSERT_EQ(0, err);

	zc_stream_ok(_metadata, &self->env, &self->ring, &self->z, bytes,
		     &cqes);
	f = zc_trace_read(_metadata);
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		ev = strstr(line, " zcrx_cqe: ");
		if (!ev)
			continue;
		n = sscanf(ev, ZC_CQE_FMT, &copied, &user, &pool);
		ASSERT_EQ(3, n) {
			TH_LOG("unexpected event: %s", line);
		}
		events++;
		copies += copied;
		if (user >= 1 && pool >= (copied ? 1 : 2))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (early++ < 3)
			TH_LOG("posted too early: %s", line);
	}
	fclose(f);
	zc_trace_close();
	TH_LOG("%u completions, %u traced (%u copies), %u without their references",
	       cqes, events, copies, early);
	/* one event per completion posted (the test below) */
	EXPECT_EQ(cqes, events);
	EXPECT_GT(cqes, 0);
	EXPECT_EQ(0, copies);
	EXPECT_EQ(0, early);
}

/*
 * A completion the full CQ refused was never seen by user space, and is
 * not traced: zcrx:zcrx_cqe fires once for each CQE posted. On a CQ of 8
 * entries a stream that waited in the socket fills the CQ in one receive,
 * whose request then ends with -ENOSPC and is re-armed (zc_receive). A
 * tracepoint hit before the post would count one event more than the
 * CQEs for each of those.
 */
TEST_F(zcrx, a_completion_the_full_cq_refused_is_not_traced)
{
	size_t bytes = 1 << 20;
	unsigned int events = 0;
	struct zc_result res;
	char line[512];
	pid_t pid;
	int fd, err;
	FILE *f;

	zr_ring_exit(&self->ring);
	ASSERT_EQ(0, zr_ring_init(&self->ring, 4, 8, 0));
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	err = zc_trace_cqes();
	if (err == -EOPNOTSUPP)
		SKIP(return, "no trace events (CONFIG_TRACING)");
	ASSERT_EQ(0, err);

	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	/* 16 buffers' worth waiting: more than the CQ holds */
	wait_inq(fd, 64 << 10);
	zc_receive(&self->ring, &self->z, fd, 0, &res);
	EXPECT_EQ(0, res.last_res);
	EXPECT_EQ(bytes, res.bytes);
	EXPECT_EQ(0, res.bad);
	EXPECT_EQ(0, reap(pid));
	close(fd);

	f = zc_trace_read(_metadata);
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		events += !!strstr(line, " zcrx_cqe: ");
	fclose(f);
	zc_trace_close();
	TH_LOG("%u completions, %u traced, %u requests ended by the full CQ",
	       res.cqes, events, res.rearms);
	ASSERT_GT(res.rearms, 0);
	EXPECT_EQ(res.cqes, events);
}

/*
 * A buffer user space gives back goes to the device again: the refill
 * syncs it for the device first (issue 57, item 6; the CPU may have
 * written it, and a device without coherent DMA would otherwise find
 * stale cache lines). A kprobe event on dma_sync_single_for_device() with
 * a stack trace each counts the syncs the refill made while twice the
 * area streams through: one for each buffer given back through the
 * refill ring.
 */
/*
 * A queue two rings share: ring b imports the instance (the file closed
 * at once) and receives from the queue under its own id. The creating
 * ring exits first, and the queue stays bound, zero-copy, while b holds
 * the instance; b's exit, the last holder's, unbinds it, and the pools
 * settle.
 */
TEST_F(zcrx, a_shared_queue_stays_bound_until_the_last_ring_goes)
{
	struct io_uring_zcrx_ifq_reg reg = { .flags = ZCRX_REG_IMPORT };
	struct zcrx_ctrl c = { .op = ZCRX_CTRL_EXPORT };
	uint32_t buf_len = 0;
	unsigned int cqes = 0;
	struct zr_ring b;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	ASSERT_EQ(0, zr_register(&self->ring, IORING_REGISTER_ZCRX_CTRL, &c,
				 0));
	ASSERT_EQ(0, zr_ring_init(&b, 64, CQ_ENTRIES, 0));
	reg.if_idx = c.zc_export.zcrx_fd;
	ASSERT_EQ(0, zr_register(&b, IORING_REGISTER_ZCRX_IFQ, &reg, 1));
	close(c.zc_export.zcrx_fd);

	zr_ring_exit(&self->ring);
	self->ring = b;
	self->z.reg.zcrx_id = reg.zcrx_id;
	zc_stream_ok(_metadata, &self->env, &self->ring, &self->z,
		     2 * AREA_SIZE, &cqes);
	/* seconds after the creator's exit: still bound, nothing copied */
	ASSERT_EQ(0, devmem_queue_io_uring(&self->env.nl, self->env.ifindex,
					   ZC_QUEUE, &buf_len));
	EXPECT_NE(0, buf_len);
	EXPECT_EQ(0, zcrx_fdinfo(self->ring.fd, reg.zcrx_id, "copy_count"));
	EXPECT_LT(AREA_SIZE / 4096, cqes);

	zr_ring_exit(&self->ring);
	EXPECT_EQ(0, zc_wait_queue_free(&self->env, ZC_QUEUE));
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 5000));
}

/* A ring reading one connection from an instance it shares. */
struct zc_sharer {
	struct zr_ifq *z;		/* the instance: area, refill ring */
	pthread_mutex_t *rq_lock;	/* the refill ring's writers take turns */
	int export_fd;			/* import from it (-1: the creator) */
	int fd;				/* the connection */
	int err;			/* a failed ring set-up or import */
	struct zc_result res;
};

/*
 * Receive @s->fd to its end through ring @r, where the instance is @id:
 * check each buffer and give it back, the refill ring under the lock.
 */
static void zc_share_receive(struct zc_sharer *s, struct zr_ring *r,
			     unsigned int id)
{
	struct io_uring_cqe *cqe;

	zr_prep_recvzc(r, s->fd, id, 0, 7);
	while (!s->res.ended) {
		if (zr_submit_wait(r, 1) < 0 && errno != EINTR)
			break;
		while ((cqe = zr_peek_cqe(r))) {
			uint64_t off = zr_cqe_off(cqe) & ~IORING_ZCRX_AREA_MASK;

			if (!(cqe->flags & IORING_CQE_F_MORE)) {
				s->res.last_res = cqe->res;
				s->res.ended = cqe->res != -ENOSPC;
				if (!s->res.ended)
					zr_prep_recvzc(r, s->fd, id, 0, 7);
			} else if (cqe->res > 0) {
				s->res.bad += check_pattern(s->z->area_mem + off,
							    cqe->res,
							    s->res.bytes);
				s->res.bytes += cqe->res;
				s->res.cqes++;
				pthread_mutex_lock(s->rq_lock);
				zr_return(s->z, cqe);
				pthread_mutex_unlock(s->rq_lock);
			}
			zr_cqe_seen(r);
		}
	}
}

/* The importer's thread: a ring of its own (single-issuer), the import. */
static void *zc_sharer_run(void *arg)
{
	struct io_uring_zcrx_ifq_reg reg = { .flags = ZCRX_REG_IMPORT };
	struct zc_sharer *s = arg;
	struct zr_ring r;

	s->err = zr_ring_init(&r, 64, CQ_ENTRIES, 0);
	if (s->err)
		return NULL;
	reg.if_idx = s->export_fd;
	s->err = zr_register(&r, IORING_REGISTER_ZCRX_IFQ, &reg, 1);
	if (!s->err)
		zc_share_receive(s, &r, reg.zcrx_id);
	zr_ring_exit(&r);
	return NULL;
}

/*
 * Two rings read one queue at once: ring b, in a thread of its own,
 * imports the instance the fixture's ring made, and each ring reads one
 * of two connections steered to the queue, both streaming together. Each
 * stream arrives whole and intact into the one area, both rings give
 * buffers back through the one refill ring (taking turns: it has one
 * tail), and nothing is copied.
 */
TEST_F(zcrx, two_rings_share_one_queue_under_traffic)
{
	pthread_mutex_t rq_lock = PTHREAD_MUTEX_INITIALIZER;
	struct zcrx_ctrl c = { .op = ZCRX_CTRL_EXPORT };
	size_t bytes = 2 * AREA_SIZE;
	struct zc_sharer s[2] = {};
	pthread_t thread;
	pid_t pid[2];
	int i;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	ASSERT_EQ(0, zr_register(&self->ring, IORING_REGISTER_ZCRX_CTRL, &c,
				 0));
	for (i = 0; i < 2; i++) {
		s[i].z = &self->z;
		s[i].rq_lock = &rq_lock;
		s[i].export_fd = i ? (int)c.zc_export.zcrx_fd : -1;
		s[i].fd = devmem_env_stream(&self->env, bytes, &pid[i]);
		ASSERT_GE(s[i].fd, 0);
	}
	ASSERT_EQ(0, pthread_create(&thread, NULL, zc_sharer_run, &s[1]));
	zc_share_receive(&s[0], &self->ring, self->z.reg.zcrx_id);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	close(c.zc_export.zcrx_fd);

	ASSERT_EQ(0, s[1].err);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, s[i].res.last_res);
		EXPECT_EQ(bytes, s[i].res.bytes);
		EXPECT_EQ(0, s[i].res.bad);
		/* both rings took buffers from the queue */
		EXPECT_LT(0, s[i].res.cqes);
		EXPECT_EQ(0, reap(pid[i]));
		close(s[i].fd);
		TH_LOG("ring %d: %zu bytes in %u CQEs", i, s[i].res.bytes,
		       s[i].res.cqes);
	}
	EXPECT_EQ(0, self->z.rq_kept);
	EXPECT_EQ(0, zcrx_fdinfo(self->ring.fd, self->z.reg.zcrx_id,
				 "copy_count"));

	zr_ring_exit(&self->ring);
	EXPECT_EQ(0, zc_wait_queue_free(&self->env, ZC_QUEUE));
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 5000));
}

/*
 * Trace every dma_sync_single_for_device() of an RX buffer (DMA_FROM_DEVICE,
 * 2), with its stack: 0, -ENOENT with no kprobe events, or -errno.
 */
static int zc_sync_probe_start(void)
{
	int err = zc_trace_open("kprobe_events", 4096);

	if (err)
		return err;
	if (write_file(TRACEFS "/kprobe_events",
		       "p:%s dma_sync_single_for_device size=$arg3:u64 dir=$arg4:u32\n",
		       ZC_KPROBE) ||
	    write_file(ZC_TRACE "/events/" ZC_KPROBE "/filter", "dir == 2\n") ||
	    write_file(ZC_TRACE "/events/" ZC_KPROBE "/trigger",
		       "stacktrace if dir == 2\n") ||
	    write_file(ZC_TRACE "/events/" ZC_KPROBE "/enable", "1\n"))
		return -EIO;
	return 0;
}

struct zc_syncs {
	unsigned int syncs;	/* syncs traced */
	unsigned int stacks;	/* their stacks */
	unsigned int from[2];	/* stacks through list 0; through 1, not 0 */
};

/* Does @line, a " => caller" stack line, name a function of @fns? */
static bool zc_stack_names(const char *line, const char *const *fns)
{
	for (; fns && *fns; fns++)
		if (strstr(line, *fns))
			return true;
	return false;
}

/*
 * Stop the trace zc_sync_probe_start() began and count its syncs, the
 * stacks that pass through a function of @fns0, and those that pass
 * through one of @fns1 but none of @fns0 (a softirq run on the way out
 * of a call of @fns0 has both on its stack).
 */
static void zc_sync_probe_count(struct __test_metadata *_metadata,
				const char *const *fns0,
				const char *const *fns1, struct zc_syncs *c)
{
	bool in0 = false, in1 = false, open = false;
	char line[256];
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = zc_trace_read(_metadata);
	ASSERT_NE(NULL, f);
	/* "... sync_dev: (dma_sync_single_for_device+0x0/..) size=..",
	 * "... <stack trace>", then a " => caller" line per frame
	 */
	for (;;) {
		bool more = fgets(line, sizeof(line), f);

		if (open && (!more || strncmp(line, " => ", 4))) {
			c->from[0] += in0;
			c->from[1] += !in0 && in1;
			open = false;
		}
		if (!more)
			break;
		if (strstr(line, " sync_dev: ")) {
			c->syncs++;
		} else if (strstr(line, "<stack trace>")) {
			in0 = false;
			in1 = false;
			open = true;
			c->stacks++;
		} else if (open) {
			in0 |= zc_stack_names(line, fns0);
			in1 |= zc_stack_names(line, fns1);
		}
	}
	fclose(f);
	zc_trace_close();
}

static const char *const zc_in_refill[] = {
	"io_zcrx_refill", "io_zcrx_alloc_netmems", NULL
};

TEST_F_TIMEOUT(zcrx, refill_syncs_each_buffer_for_the_device, 120)
{
	size_t bytes = 2 * AREA_SIZE;
	unsigned int cqes = 0;
	struct zc_syncs c;
	int err;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	err = zc_sync_probe_start();
	if (err == -ENOENT)
		SKIP(return, "no kprobe events (CONFIG_KPROBE_EVENTS)");
	ASSERT_EQ(0, err);

	zc_stream_ok(_metadata, &self->env, &self->ring, &self->z, bytes,
		     &cqes);
	zc_sync_probe_count(_metadata, zc_in_refill, NULL, &c);
	TH_LOG("%u completions, %u syncs for the device (%u stack traces), %u in the refill",
	       cqes, c.syncs, c.stacks, c.from[0]);
	/*
	 * Every buffer a completion handed out came back through the refill
	 * ring, but those still in it at the end, and those whose last
	 * reference an skb held (they go back through the pool): at most the
	 * ring's entries and the area's buffers together.
	 */
	ASSERT_GT(cqes, RQ_ENTRIES + AREA_SIZE / 4096);
	EXPECT_GE(c.from[0], cqes - RQ_ENTRIES - AREA_SIZE / 4096);
}

/*
 * FLUSH_RQ on an instance with a device: the buffers user space returns
 * go back to the page pool at once, each synced for the device first.
 * The receive holds every buffer until the stream ended, then returns
 * them all and flushes: the flush takes the whole ring, and there is a
 * sync for each completion, from the flush, or from the pool's refill if
 * an allocation came first. Entries for buffers user space does not hold
 * change nothing.
 */
TEST_F(zcrx, flush_gives_buffers_back_synced_for_the_device)
{
	static const char *const in_ctrl[] = { "io_zcrx_ctrl", NULL };
	size_t bytes = 512 << 10, got = 0;
	struct io_uring_cqe *cqe;
	unsigned int cqes = 0;
	uint64_t *offs;
	struct zc_syncs c;
	bool ended = false;
	pid_t pid;
	int fd, err;

	offs = calloc(RQ_ENTRIES, sizeof(*offs));
	ASSERT_NE(NULL, offs);
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	zr_prep_recvzc(&self->ring, fd, self->z.reg.zcrx_id, 0, 1);
	while (!ended) {
		ASSERT_LE(0, zr_submit_wait(&self->ring, 1));
		while ((cqe = zr_peek_cqe(&self->ring))) {
			ended |= !(cqe->flags & IORING_CQE_F_MORE);
			if (cqe->res > 0) {
				ASSERT_GT(RQ_ENTRIES, cqes);
				offs[cqes++] = zr_cqe_off(cqe);
				got += cqe->res;
			}
			zr_cqe_seen(&self->ring);
		}
	}
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(0, reap(pid));

	err = zc_sync_probe_start();
	if (err == -ENOENT)
		SKIP(return, "no kprobe events (CONFIG_KPROBE_EVENTS)");
	ASSERT_EQ(0, err);
	for (unsigned int i = 0; i < cqes; i++) {
		self->z.rqes[i].off = offs[i] | self->z.area.rq_area_token;
		self->z.rqes[i].len = 4096;
		self->z.rqes[i].__pad = 0;
	}
	self->z.rq_tail_local = cqes;
	__atomic_store_n(self->z.rq_tail, cqes, __ATOMIC_RELEASE);
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	EXPECT_EQ(cqes, __atomic_load_n(self->z.rq_head, __ATOMIC_ACQUIRE));
	zc_sync_probe_count(_metadata, in_ctrl, zc_in_refill, &c);
	TH_LOG("%u completions, %u syncs for the device, %u in the flush, %u in the refill",
	       cqes, c.syncs, c.from[0], c.from[1]);
	/* one sync per completion given back, at most */
	EXPECT_LT(0, c.from[0]);
	EXPECT_GE(cqes, c.from[0]);
	EXPECT_EQ(cqes, c.from[0] + c.from[1]);
	close(fd);
	free(offs);

	/*
	 * A ring naming every buffer of the area, none held: those the
	 * NIC's ring and the pool hold stay theirs. A flush that dropped
	 * their references would hand them out twice: a stream after it
	 * would land corrupt, and the pools would not settle.
	 */
	for (unsigned int i = 0; i < RQ_ENTRIES; i++) {
		struct io_uring_zcrx_rqe *rqe;

		rqe = &self->z.rqes[(cqes + i) & self->z.rq_mask];
		rqe->off = self->z.area.rq_area_token + (uint64_t)i * 4096;
		rqe->len = 4096;
		rqe->__pad = 0;
	}
	self->z.rq_tail_local = cqes + RQ_ENTRIES;
	ASSERT_EQ(0, zc_sync_probe_start());
	__atomic_store_n(self->z.rq_tail, self->z.rq_tail_local,
			 __ATOMIC_RELEASE);
	ASSERT_EQ(0, zr_flush(&self->ring, self->z.reg.zcrx_id));
	EXPECT_EQ(self->z.rq_tail_local,
		  __atomic_load_n(self->z.rq_head, __ATOMIC_ACQUIRE));
	/* nothing was given back, so nothing was synced for the device */
	zc_sync_probe_count(_metadata, in_ctrl, NULL, &c);
	EXPECT_EQ(0, c.from[0]);
	zc_stream_ok(_metadata, &self->env, &self->ring, &self->z,
		     2 * AREA_SIZE, NULL);

	/* and the pool has them all: the queue frees, the pools settle */
	zr_ring_exit(&self->ring);
	EXPECT_EQ(0, zc_wait_queue_free(&self->env, ZC_QUEUE));
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 5000));
}

/*
 * An area the device runs through, none of it given back: the page pool
 * finds no buffer, and ALLOC_FAIL posts one CQE, with the descriptor's
 * user_data, res the type and no flags, on this ring; armed, it can fire
 * again, not before.
 */
TEST_F(zcrx, an_area_the_device_runs_dry_posts_alloc_fail)
{
	struct zcrx_event_desc ev = {
		.user_data = 0xa110cfa11ULL,
		.type_mask = 1 << ZCRX_EVENT_ALLOC_FAIL,
	};
	struct zcrx_ctrl c = {
		.op = ZCRX_CTRL_ARM_EVENT,
		.zc_arm_event.event_type = ZCRX_EVENT_ALLOC_FAIL,
	};
	struct __kernel_timespec ts = { .tv_nsec = 100 * 1000 * 1000 };
	struct io_uring_getevents_arg arg = { .ts = (uintptr_t)&ts };
	struct io_uring_cqe *cqe;
	unsigned int events = 0;
	size_t got = 0;
	int i, fd, res = -1;
	pid_t pid;

	zr_ifq_free(&self->z);
	ASSERT_EQ(0, zr_ifq_prepare(&self->z, self->env.ifindex, ZC_QUEUE,
				    64 * 4096, 64));
	self->z.reg.event_desc = (uintptr_t)&ev;
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = devmem_env_stream(&self->env, 4 << 20, &pid);
	ASSERT_GE(fd, 0);
	zr_prep_recvzc(&self->ring, fd, self->z.reg.zcrx_id, 0, 1);
	ASSERT_EQ(1, zr_submit_wait(&self->ring, 0));
	/* nothing goes back: the area is gone after 64 buffers */
	for (i = 0; i < 100 && !events; i++) {
		/* a CQE, or 100 ms */
		syscall(__NR_io_uring_enter, self->ring.fd, 0, 1,
			IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg,
			sizeof(arg));
		while ((cqe = zr_peek_cqe(&self->ring))) {
			if (cqe->user_data == ev.user_data) {
				events++;
				res = cqe->res;
				EXPECT_EQ(0, cqe->flags);
			} else if (cqe->res > 0) {
				got += cqe->res;
			}
			zr_cqe_seen(&self->ring);
		}
	}
	EXPECT_EQ(1, events);
	EXPECT_EQ(ZCRX_EVENT_ALLOC_FAIL, res);
	EXPECT_GE(64 * 4096, got);
	c.zcrx_id = self->z.reg.zcrx_id;
	EXPECT_EQ(0, zr_register(&self->ring, IORING_REGISTER_ZCRX_CTRL, &c,
				 0));
	EXPECT_EQ(-EINVAL, zr_register(&self->ring, IORING_REGISTER_ZCRX_CTRL,
				       &c, 0));
	kill(pid, SIGKILL);
	reap(pid);
	close(fd);
}

/* Give buffer @off back @times times in a row, published at once. */
static void zc_return_run(struct zr_ifq *z, uint64_t off, unsigned int times)
{
	unsigned int i;

	for (i = 0; i < times; i++) {
		struct io_uring_zcrx_rqe *rqe;

		rqe = &z->rqes[(z->rq_tail_local + i) & z->rq_mask];
		rqe->off = off | z->area.rq_area_token;
		rqe->len = 0;
		rqe->__pad = 0;
	}
	z->rq_tail_local += times;
	__atomic_store_n(z->rq_tail, z->rq_tail_local, __ATOMIC_RELEASE);
}

/*
 * 7.3's refill takes a run of entries naming one buffer together: named
 * twice while user space holds it once, it is ignored whole, and the
 * buffer stays out of the pool (64 buffers, the rest given back at once,
 * cycle through half a stream without it) until one entry gives it back.
 *
 * The receive window is kept to about ten segments: with the default one,
 * TCP's out-of-order queue could hold every buffer of so small an area
 * after a drop, and the segment that fills the hole would find none (seen:
 * 181 segments in, every entry taken back, alloc_fail climbing, nothing
 * readable).
 */
TEST_F(zcrx, a_run_naming_a_buffer_more_often_than_held_is_ignored)
{
	unsigned int before = 0, after = 0, rearms = 0;
	size_t bytes = 1 << 20, got = 0;
	uint64_t b = ~0ULL, off;
	struct io_uring_cqe *cqe;
	bool back = false, ended = false;
	int fd, rcvbuf = 16 << 10, res = 0;
	pid_t pid;

	zr_ifq_free(&self->z);
	ASSERT_EQ(0, zr_ifq_prepare(&self->z, self->env.ifindex, ZC_QUEUE,
				    64 * 4096, 256));
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	ASSERT_EQ(0, setsockopt(self->env.lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				sizeof(rcvbuf)));
	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	zr_prep_recvzc(&self->ring, fd, self->z.reg.zcrx_id, 0, 1);
	while (!ended) {
		if (zr_submit_wait(&self->ring, 1) < 0 && errno != EINTR)
			break;
		while ((cqe = zr_peek_cqe(&self->ring))) {
			if (!(cqe->flags & IORING_CQE_F_MORE)) {
				res = cqe->res;
				ended = res != -ENOSPC || ++rearms > 1000;
				if (!ended)
					zr_prep_recvzc(&self->ring, fd,
						       self->z.reg.zcrx_id, 0,
						       1);
			} else if (cqe->res > 0) {
				off = zr_cqe_off(cqe) & ~IORING_ZCRX_AREA_MASK;
				off &= ~4095ULL;
				got += cqe->res;
				if (b == ~0ULL) {
					b = off;
					zc_return_run(&self->z, b, 2);
				} else {
					if (off == b && back)
						after++;
					else if (off == b)
						before++;
					zr_return(&self->z, cqe);
				}
			}
			zr_cqe_seen(&self->ring);
		}
		if (!back && got > bytes / 2) {
			zc_return_run(&self->z, b, 1);
			back = true;
		}
	}
	EXPECT_EQ(0, res);
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(0, before);
	EXPECT_LT(0, after);
	TH_LOG("buffer %llu: %u times before it went back, %u after",
	       (unsigned long long)b / 4096, before, after);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

/*
 * Take @r's CQEs, 100 ms at a time for up to 10 s, until the event CQE
 * of user_data @ud comes, holding every buffer: the data CQEs' bytes,
 * all in area 0, checked against the stream's pattern from *@got on,
 * counted in *@got, those not as sent in *@bad. Returns the event CQEs.
 */
static unsigned int zc_hold_until_event(struct zr_ring *r, struct zr_ifq *z,
					__u64 ud, size_t *got, size_t *bad)
{
	struct __kernel_timespec ts = { .tv_nsec = 100 * 1000 * 1000 };
	struct io_uring_getevents_arg arg = { .ts = (uintptr_t)&ts };
	struct io_uring_cqe *cqe;
	unsigned int events = 0;
	int i;

	for (i = 0; i < 100 && !events; i++) {
		syscall(__NR_io_uring_enter, r->fd, 0, 1,
			IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg,
			sizeof(arg));
		while ((cqe = zr_peek_cqe(r))) {
			uint64_t off = zr_cqe_off(cqe);

			if (cqe->user_data == ud) {
				events++;
			} else if (cqe->res > 0) {
				*bad += off >> IORING_ZCRX_AREA_SHIFT ?
					cqe->res :
					check_pattern(z->area_mem + off,
						      cqe->res, *got);
				*got += cqe->res;
			}
			zr_cqe_seen(r);
		}
	}
	return events;
}

/*
 * ZCRX_CTRL_ADD_AREA on a live instance: its first area runs dry (every
 * buffer held, ALLOC_FAIL), an area added then takes the rest of the
 * stream from the device, its buffers named by area id 1 in the CQEs
 * and given back by that token; nothing is copied.
 */
TEST_F(zcrx, an_area_added_to_a_live_instance_receives)
{
	struct zcrx_event_desc ev = {
		.user_data = 0xadda4eaULL,
		.type_mask = 1 << ZCRX_EVENT_ALLOC_FAIL,
	};
	size_t bytes = 4 << 20, got = 0, bad = 0, in1 = 0;
	struct io_uring_zcrx_area_reg a = {};
	struct io_uring_cqe *cqe;
	int fd, last = 1;
	uint8_t *mem[2];
	pid_t pid;

	zr_ifq_free(&self->z);
	ASSERT_EQ(0, zr_ifq_prepare(&self->z, self->env.ifindex, ZC_QUEUE,
				    64 * 4096, RQ_ENTRIES));
	self->z.reg.event_desc = (uintptr_t)&ev;
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	mem[0] = self->z.area_mem;
	mem[1] = mmap(NULL, AREA_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem[1]);
	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	zr_prep_recvzc(&self->ring, fd, self->z.reg.zcrx_id, 0, 1);
	ASSERT_EQ(1, zr_submit_wait(&self->ring, 0));

	/* nothing goes back: area 0 is gone after 64 buffers */
	ASSERT_EQ(1, zc_hold_until_event(&self->ring, &self->z, ev.user_data,
					 &got, &bad));

	a.addr = (uintptr_t)mem[1];
	a.len = AREA_SIZE;
	ASSERT_EQ(0, zr_add_area(&self->ring, self->z.reg.zcrx_id, &a));
	EXPECT_EQ(1ULL << IORING_ZCRX_AREA_SHIFT, a.rq_area_token);
	EXPECT_EQ(2, zcrx_fdinfo(self->ring.fd, 0, "areas"));

	/* the rest: area 1's buffers go back, area 0's stay held */
	while (last) {
		ASSERT_LE(0, zr_submit_wait(&self->ring, 1));
		while ((cqe = zr_peek_cqe(&self->ring))) {
			uint64_t off = zr_cqe_off(cqe);
			unsigned int id = off >> IORING_ZCRX_AREA_SHIFT;

			if (!(cqe->flags & IORING_CQE_F_MORE)) {
				last = cqe->res;
			} else if (cqe->res > 0) {
				ASSERT_GT(2, id);
				off &= ~IORING_ZCRX_AREA_MASK;
				bad += check_pattern(mem[id] + off, cqe->res,
						     got);
				got += cqe->res;
				if (id) {
					in1 += cqe->res;
					zr_return(&self->z, cqe);
				}
			}
			zr_cqe_seen(&self->ring);
		}
		/* a full CQ ends the request: on again, as upstream's */
		if (last == -ENOSPC) {
			zr_prep_recvzc(&self->ring, fd, self->z.reg.zcrx_id,
				       0, 1);
			last = 1;
		}
	}
	EXPECT_EQ(0, last);
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(0, bad);
	EXPECT_LT(bytes / 2, in1);
	EXPECT_EQ(0, self->z.rq_kept);
	EXPECT_EQ(0, zcrx_fdinfo(self->ring.fd, 0, "copy_count"));
	EXPECT_EQ(0, reap(pid));
	close(fd);
	zr_ring_exit(&self->ring);
	munmap(mem[1], AREA_SIZE);
}

/*
 * ADD_AREA on a device instance: an area of the other kind is refused
 * once made (its token given back, its attachment undone); once the
 * device is gone, nothing is made and no token given back.
 */
TEST_F(zcrx, add_area_refuses_the_other_kind_and_a_departed_device)
{
	struct io_uring_zcrx_area_reg a = {};
	size_t size = 1 << 20;
	int dmabuf;

	if (access("/dev/udmabuf", F_OK))
		SKIP(return, "no udmabuf");
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	dmabuf = udmabuf_alloc(size, NULL);
	ASSERT_LE(0, dmabuf);
	a.flags = IORING_ZCRX_AREA_DMABUF;
	a.dmabuf_fd = dmabuf;
	a.len = size;
	EXPECT_EQ(-EINVAL, zr_add_area(&self->ring, self->z.reg.zcrx_id, &a));
	EXPECT_EQ(1ULL << IORING_ZCRX_AREA_SHIFT, a.rq_area_token);
	EXPECT_EQ(0, dmabuf_attachments(dmabuf));
	close(dmabuf);

	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)self->z.area_mem;
	a.len = 4096;
	ASSERT_EQ(0, hdsim_del(self->env.dev_id));
	self->env.dev_gone = true;
	EXPECT_EQ(-EFAULT, zr_add_area(&self->ring, self->z.reg.zcrx_id, &a));
	EXPECT_EQ(0, a.rq_area_token);
	zr_ring_exit(&self->ring);
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 5000));
}

/*
 * A length that is no multiple of the buffer size is refused only once
 * the area is mapped, after its source is checked, as upstream does: an
 * area at address 0, a dmabuf area with an address, and one at an
 * address with nothing mapped get the errnos of those, not ERANGE.
 */
TEST_F(zcrx, a_misfit_length_is_checked_after_the_source)
{
	char *gone;

	self->z.reg.rx_buf_len = 16384;
	self->z.area.len = 20480;
	self->z.area.addr = 0;
	EXPECT_EQ(-EFAULT, zr_ifq_register(&self->ring, &self->z));
	self->z.area.flags = IORING_ZCRX_AREA_DMABUF;
	self->z.area.addr = (uintptr_t)self->z.area_mem;
	EXPECT_EQ(-EINVAL, zr_ifq_register(&self->ring, &self->z));
	self->z.area.flags = 0;
	gone = mmap(NULL, 20480, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(MAP_FAILED, gone);
	munmap(gone, 20480);
	self->z.area.addr = (uintptr_t)gone;
	EXPECT_EQ(-EFAULT, zr_ifq_register(&self->ring, &self->z));
	/* memory there: the misfit, after mapping */
	self->z.area.addr = (uintptr_t)self->z.area_mem;
	EXPECT_EQ(-ERANGE, zr_ifq_register(&self->ring, &self->z));
	self->z.area.addr = (uintptr_t)self->z.area_mem;
	self->z.area.len = self->z.area_len;
	EXPECT_EQ(0, devmem_pools_settled(&self->env.nl, 5000));
}

static const char *const zc_in_refill_only[] = { "io_zcrx_refill", NULL };
static const char *const zc_in_alloc[] = { "io_zcrx_alloc_netmems", NULL };

/*
 * Buffers the page pool takes from the area's free list reach the
 * device synced for it, as refilled ones do: the queue's first fill
 * and an area run dry with nothing given back take all 64 buffers of a
 * small area from the free list, each after a sync for the device.
 */
TEST_F(zcrx, a_free_buffer_is_synced_for_the_device_before_the_pool_has_it)
{
	struct zcrx_event_desc ev = {
		.user_data = 0xf4eeULL,
		.type_mask = 1 << ZCRX_EVENT_ALLOC_FAIL,
	};
	size_t got = 0, bad = 0;
	struct zc_syncs c;
	int fd, err;
	pid_t pid;

	zr_ifq_free(&self->z);
	ASSERT_EQ(0, zr_ifq_prepare(&self->z, self->env.ifindex, ZC_QUEUE,
				    64 * 4096, 64));
	self->z.reg.event_desc = (uintptr_t)&ev;
	err = zc_sync_probe_start();
	if (err == -ENOENT)
		SKIP(return, "no kprobe events (CONFIG_KPROBE_EVENTS)");
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	fd = devmem_env_stream(&self->env, 4 << 20, &pid);
	ASSERT_GE(fd, 0);
	zr_prep_recvzc(&self->ring, fd, self->z.reg.zcrx_id, 0, 1);
	ASSERT_EQ(1, zr_submit_wait(&self->ring, 0));
	ASSERT_EQ(1, zc_hold_until_event(&self->ring, &self->z, ev.user_data,
					 &got, &bad));
	EXPECT_EQ(0, bad);
	zc_sync_probe_count(_metadata, zc_in_refill_only, zc_in_alloc, &c);
	TH_LOG("%u syncs for the device, %u from the free list",
	       c.syncs, c.from[1]);
	EXPECT_LE(64, c.from[1]);
	kill(pid, SIGKILL);
	reap(pid);
	close(fd);
}

TEST_HARNESS_MAIN
