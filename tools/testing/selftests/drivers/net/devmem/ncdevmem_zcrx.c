// SPDX-License-Identifier: GPL-2.0
/* ncdevmem --zcrx: io_uring zero-copy receive; see ncdevmem_zcrx.h. */
#include <errno.h>
#include <pthread.h>
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

/*
 * A ring and its instances. A ring that imported them (src set) gives
 * buffers back through the refill rings of src's instances, which every
 * ring of the share writes: src's rq_lock serialises them.
 */
struct ncdm_zcrx {
	struct zr_ring ring;
	struct zr_ifq ifq[ZCRX_MAX_QUEUES];
	int n;
	struct ncdm_zcrx *src;		/* the creator, for an importer */
	bool shared;			/* exported: take rq_lock */
	pthread_mutex_t rq_lock;
	int export_fd[ZCRX_MAX_QUEUES];	/* the creator's exported files */
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
	pthread_mutex_init(&z->rq_lock, NULL);
	for (i = 0; i < ZCRX_MAX_QUEUES; i++)
		z->export_fd[i] = -1;
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

int ncdm_zcrx_export(struct ncdm_zcrx *z)
{
	int i, ret;

	for (i = 0; i < z->n; i++) {
		struct zcrx_ctrl c = {
			.zcrx_id = z->ifq[i].reg.zcrx_id,
			.op = ZCRX_CTRL_EXPORT,
		};

		ret = zr_register(&z->ring, IORING_REGISTER_ZCRX_CTRL, &c, 0);
		if (ret) {
			fprintf(stderr, "zcrx: ZCRX_CTRL_EXPORT: %s\n",
				strerror(-ret));
			return ret;
		}
		z->export_fd[i] = c.zc_export.zcrx_fd;
	}
	z->shared = true;
	return 0;
}

struct ncdm_zcrx *ncdm_zcrx_import(struct ncdm_zcrx *src)
{
	struct ncdm_zcrx *z;
	int i, ret;

	z = calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	for (i = 0; i < ZCRX_MAX_QUEUES; i++)
		z->export_fd[i] = -1;
	z->src = src;
	ret = zr_ring_init(&z->ring, 64, ZCRX_CQ_ENTRIES, 0);
	if (ret) {
		fprintf(stderr, "zcrx: io_uring_setup: %s\n", strerror(-ret));
		free(z);
		return NULL;
	}
	for (; z->n < src->n; z->n++) {
		struct io_uring_zcrx_ifq_reg reg = {
			.if_idx = src->export_fd[z->n],
			.flags = ZCRX_REG_IMPORT,
		};

		ret = zr_register(&z->ring, IORING_REGISTER_ZCRX_IFQ, &reg, 1);
		if (ret) {
			fprintf(stderr, "zcrx: ZCRX_REG_IMPORT: %s\n",
				strerror(-ret));
			ncdm_zcrx_close(z);
			return NULL;
		}
		/* what this ring calls the instance; the rest is src's */
		z->ifq[z->n].reg.zcrx_id = reg.zcrx_id;
	}
	return z;
}

/* the instance whose area and refill ring buffers of @inst are in */
static struct zr_ifq *zcrx_owner(struct ncdm_zcrx *z, unsigned int inst)
{
	return z->src ? &z->src->ifq[inst] : &z->ifq[inst];
}

const uint8_t *ncdm_zcrx_host_area(const struct ncdm_zcrx *z,
				   unsigned int inst)
{
	if (z->src)
		z = z->src;
	return inst < (unsigned int)z->n ? z->ifq[inst].area_mem : NULL;
}

/* give @cqe's buffer back; rings that share the instance take turns */
static void zcrx_give_back(struct ncdm_zcrx *z, unsigned int inst,
			   const struct io_uring_cqe *cqe)
{
	struct ncdm_zcrx *owner = z->src ? z->src : z;

	if (owner->shared)
		pthread_mutex_lock(&owner->rq_lock);
	zr_return(zcrx_owner(z, inst), cqe);
	if (owner->shared)
		pthread_mutex_unlock(&owner->rq_lock);
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
			if (cqe->flags & IORING_CQE_F_MORE) {
				fn(arg, inst, zr_cqe_off(cqe) &
				   ~IORING_ZCRX_AREA_MASK, cqe->res);
				got += cqe->res;
				st->cqes++;
				zcrx_give_back(z, inst, cqe);
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
	for (i = 0; i < ZCRX_MAX_QUEUES; i++) {
		if (z->export_fd[i] >= 0)
			close(z->export_fd[i]);
		/* an importer's instances are its creator's to free */
		if (!z->src)
			zr_ifq_free(&z->ifq[i]);
	}
	if (!z->src)
		pthread_mutex_destroy(&z->rq_lock);
	free(z);
}
