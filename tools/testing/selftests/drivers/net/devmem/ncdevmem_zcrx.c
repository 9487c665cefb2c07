// SPDX-License-Identifier: GPL-2.0
/* ncdevmem --zcrx: io_uring zero-copy receive; see ncdevmem_zcrx.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ncdevmem_zcrx.h"
#include "zcrx_lib.h"

#define ZCRX_MAX_QUEUES		16
#define ZCRX_RQ_ENTRIES		4096
#define ZCRX_CQ_ENTRIES		8192

struct ncdm_zcrx {
	struct zr_ring ring;
	struct zr_ifq ifq[ZCRX_MAX_QUEUES];
	int n;
};

struct ncdm_zcrx *ncdm_zcrx_open(int ifindex, int q0, int nq, int dmabuf_fd,
				 size_t size, uint32_t buf_len)
{
	struct ncdm_zcrx *z;
	int i, ret;

	if (nq < 1 || nq > ZCRX_MAX_QUEUES || (dmabuf_fd >= 0 && nq > 1)) {
		fprintf(stderr, "zcrx: 1 to %d queues, one with a dmabuf\n",
			ZCRX_MAX_QUEUES);
		return NULL;
	}
	z = calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	ret = zr_ring_init(&z->ring, 64, ZCRX_CQ_ENTRIES, 0);
	if (ret) {
		fprintf(stderr, "zcrx: io_uring_setup: %s\n", strerror(-ret));
		free(z);
		return NULL;
	}
	for (i = 0; i < nq; i++) {
		struct zr_ifq *f = &z->ifq[i];

		ret = zr_ifq_prepare(f, ifindex, q0 + i,
				     dmabuf_fd < 0 ? size / nq : 4096,
				     ZCRX_RQ_ENTRIES);
		if (ret)
			goto err;
		if (dmabuf_fd >= 0)
			zr_ifq_use_dmabuf(f, dmabuf_fd, size);
		f->reg.rx_buf_len = buf_len;
		ret = zr_ifq_register(&z->ring, f);
		if (ret) {
			fprintf(stderr, "zcrx: IORING_REGISTER_ZCRX_IFQ queue %d: %s\n",
				q0 + i, strerror(-ret));
			goto err;
		}
		z->n++;
	}
	return z;
err:
	ncdm_zcrx_close(z);
	return NULL;
}

const uint8_t *ncdm_zcrx_host_area(const struct ncdm_zcrx *z,
				   unsigned int inst)
{
	return inst < (unsigned int)z->n ? z->ifq[inst].area_mem : NULL;
}

/*
 * A connection lands on one queue, the one its flow hashes or is steered
 * to. The first instance asked hands out nothing of another instance's
 * area: its request ends with EFAULT having consumed nothing, and the
 * next instance is tried.
 */
int ncdm_zcrx_receive(struct ncdm_zcrx *z, int fd, ncdm_zcrx_frag_fn fn,
		      void *arg, struct ncdm_zcrx_stats *st)
{
	unsigned int inst = 0, tried = 1;
	uint64_t got = 0;
	int ret;

	zr_prep_recvzc(&z->ring, fd, z->ifq[inst].reg.zcrx_id, 0, 1);
	for (;;) {
		struct io_uring_cqe *cqe;
		int end = 1;	/* 1: running, 0: done, <0: error */

		ret = zr_submit_wait(&z->ring, 1);
		st->enters++;
		if (ret < 0 && ret != -EINTR)
			return ret;
		while ((cqe = zr_peek_cqe(&z->ring))) {
			struct zr_ifq *f = &z->ifq[inst];

			if (cqe->flags & IORING_CQE_F_MORE) {
				fn(arg, inst, zr_cqe_off(cqe) &
				   ~IORING_ZCRX_AREA_MASK, cqe->res);
				got += cqe->res;
				st->cqes++;
				zr_return(f, cqe);
			} else if (cqe->res == -ENOSPC) {
				st->rearms++;
				end = 2;
			} else if (cqe->res == -EFAULT && !got &&
				   tried < (unsigned int)z->n) {
				inst = (inst + 1) % z->n;
				tried++;
				st->switches++;
				end = 2;
			} else {
				end = cqe->res;
			}
			zr_cqe_seen(&z->ring);
		}
		if (end == 2)
			zr_prep_recvzc(&z->ring, fd, z->ifq[inst].reg.zcrx_id,
				       0, 1);
		else if (end <= 0)
			return end;
	}
}

int ncdm_zcrx_kernel(const struct ncdm_zcrx *z, uint64_t *zc_bytes,
		     uint64_t *copied)
{
	unsigned long long zc, cb, hb;
	char path[64], line[512];
	int found = 0;
	FILE *f;

	*zc_bytes = 0;
	*copied = 0;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", z->ring.fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "zc_bytes ");

		if (strncmp(line, "Zcrx", 4) || !p ||
		    sscanf(p, "zc_bytes %llu copy_count %*u copy_bytes %llu head_bytes %llu",
			   &zc, &cb, &hb) != 3)
			continue;
		*zc_bytes += zc;
		*copied += cb + hb;
		found++;
	}
	fclose(f);
	return found == z->n ? 0 : -1;
}

void ncdm_zcrx_close(struct ncdm_zcrx *z)
{
	int i;

	zr_ring_exit(&z->ring);
	for (i = 0; i < ZCRX_MAX_QUEUES; i++)
		zr_ifq_free(&z->ifq[i]);
	free(z);
}
