// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring zero-copy receive (IORING_REGISTER_ZCRX_IFQ, IORING_OP_RECV_ZC)
 * on queue 3 of an hdsim port: the stream lands in the registered area,
 * buffers come back through the refill ring, the ring's exit and the
 * device's removal leave nothing behind, and every bad registration or
 * request gets upstream's errno. The sender runs in a namespace on the
 * peer port.
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "devmem_traffic.h"
#include "zcrx_lib.h"

#define ZC_QUEUE		3
#define ZC_PORT			5400
#define RX_ADDR			"192.0.5.1"
#define TX_ADDR			"192.0.5.2"
#define AREA_SIZE		(8 << 20)
#define RQ_ENTRIES		1024
#define CQ_ENTRIES		4096

FIXTURE(zcrx)
{
	struct devmem_env env;
	struct zr_ring ring;
	struct zr_ifq z;
};

FIXTURE_SETUP(zcrx)
{
	const struct devmem_env_cfg cfg = {
		.name = "zcrx",
		.dev_id = 36,
		.rx_addr = RX_ADDR,
		.tx_addr = TX_ADDR,
		.rss_queues = ZC_QUEUE,
		.steer_port = ZC_PORT,
		.steer_queue = ZC_QUEUE,
		.listen_port = ZC_PORT,
	};

	DEVMEM_ONLY_SKIP();
	if (!devmem_env_available())
		SKIP(return, "no hdsim driver (CONFIG_HDSIM)");
	ASSERT_EQ(0, devmem_env_setup(&self->env, &cfg));
	ASSERT_EQ(0, zr_ring_init(&self->ring, 64, CQ_ENTRIES, 0));
	ASSERT_EQ(0, zr_ifq_prepare(&self->z, self->env.ifindex, ZC_QUEUE,
				    AREA_SIZE, RQ_ENTRIES));
}

FIXTURE_TEARDOWN(zcrx)
{
	zr_ring_exit(&self->ring);
	zr_ifq_free(&self->z);
	EXPECT_EQ(0, devmem_env_teardown(&self->env));
}

/* copy_count of instance @id from the ring's fdinfo, or -1 */
static long zcrx_copy_count(int ring_fd, unsigned int id)
{
	char path[64], line[256], want[32];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ring_fd);
	snprintf(want, sizeof(want), "Zcrx%u:", id);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "copy_count ");

		if (!strncmp(line, want, strlen(want)) && p)
			n = strtol(p + 11, NULL, 10);
	}
	fclose(f);
	return n;
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
		struct io_uring_cqe *cqe;
		bool rearm = false;

		if (zr_submit_wait(r, 1) < 0 && errno != EINTR)
			break;
		while ((cqe = zr_peek_cqe(r))) {
			if (!(cqe->flags & IORING_CQE_F_MORE)) {
				res->last_res = cqe->res;
				if (cqe->res == -ENOSPC && res->rearms < 1000)
					rearm = true;
				else
					res->ended = true;
				zr_cqe_seen(r);
				continue;
			}
			if (cqe->res > 0) {
				uint64_t off = zr_cqe_off(cqe) &
					       ~IORING_ZCRX_AREA_MASK;

				res->bad += check_pattern(z->area_mem + off,
							  cqe->res,
							  res->bytes);
				res->bytes += cqe->res;
				res->cqes++;
				zr_return(z, cqe);
			}
			zr_cqe_seen(r);
		}
		if (rearm) {
			res->rearms++;
			zr_prep_recvzc(r, fd, z->reg.zcrx_id, len, 7);
		}
	}
}

TEST_F(zcrx, stream_lands_in_the_host_area)
{
	struct zc_result res;
	size_t bytes = 4 << 20;
	pid_t pid;
	int fd;

	ASSERT_EQ(0, zr_ifq_register(&self->ring, &self->z));
	EXPECT_EQ(0, self->z.reg.zcrx_id);
	EXPECT_EQ(4096, self->z.reg.rx_buf_len);
	EXPECT_EQ(RQ_ENTRIES, self->z.reg.rq_entries);
	EXPECT_EQ(0, self->z.area.rq_area_token);

	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	zc_receive(&self->ring, &self->z, fd, 0, &res);
	EXPECT_TRUE(res.ended);
	EXPECT_EQ(0, res.last_res);
	EXPECT_EQ(bytes, res.bytes);
	EXPECT_EQ(0, res.bad);
	EXPECT_GT(res.cqes, 0);
	/* everything came through the queue: nothing copied */
	EXPECT_EQ(0, zcrx_copy_count(self->ring.fd, 0));
	TH_LOG("%zu bytes in %u CQEs, %u re-arms after a full CQ", res.bytes,
	       res.cqes, res.rearms);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

TEST_HARNESS_MAIN
