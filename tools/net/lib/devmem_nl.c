// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink helpers for the devmem and hdsim selftests and tools, on libmnl:
 * the netdev family (bind-rx, bind-tx, queue-get, page-pool-get, dev-get)
 * and the ethtool rings/channels messages devmem setup needs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* setresuid, unshare */
#endif
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/devmem_stats.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "devmem_nl.h"

#define BUF_SIZE	(MNL_SOCKET_BUFFER_SIZE * 4)

struct reply_ctx {
	struct devmem_nl *nl;
	mnl_cb_t data_cb;
	void *data;
};

static struct nlmsghdr *genl_start(struct devmem_nl *nl, char *buf,
				   uint16_t family, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = 1;
	return nlh;
}

static int parse_extack(const struct nlattr *attr, void *data)
{
	struct devmem_nl *nl = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    !mnl_attr_validate(attr, MNL_TYPE_NUL_STRING))
		snprintf(nl->extack, sizeof(nl->extack), "%s",
			 mnl_attr_get_str(attr));
	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MISS_TYPE &&
	    !mnl_attr_validate(attr, MNL_TYPE_U32))
		nl->miss_type = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct reply_ctx *ctx = data;
	unsigned int off;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err)))
		return MNL_CB_ERROR;

	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		off = sizeof(*err);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += err->msg.nlmsg_len - sizeof(err->msg);
		mnl_attr_parse(nlh, off, parse_extack, ctx->nl);
	}
	if (err->error) {
		errno = -err->error;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

/* A dump ends with its errno (0 or negative), and an extack if it failed */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct reply_ctx *ctx = data;
	int err = 0;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(err)))
		return MNL_CB_STOP;
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_parse(nlh, sizeof(err), parse_extack, ctx->nl);
	if (err < 0) {
		errno = -err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct reply_ctx *ctx = data;

	return ctx->data_cb ? ctx->data_cb(nlh, ctx->data) : MNL_CB_OK;
}

/* Send @nlh and process replies until the ACK or DONE. */
static int transact(struct devmem_nl *nl, struct nlmsghdr *nlh,
		    mnl_cb_t cb, void *data)
{
	mnl_cb_t ctl_cb[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb,
		[NLMSG_DONE] = done_cb,
	};
	struct reply_ctx ctx = { .nl = nl, .data_cb = cb, .data = data };
	unsigned int seq = nlh->nlmsg_seq;
	char *buf;
	int ret;

	nl->extack[0] = '\0';
	nl->miss_type = 0;
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;

	buf = malloc(BUF_SIZE);
	if (!buf)
		return -ENOMEM;

	do {
		ret = mnl_socket_recvfrom(nl->sock, buf, BUF_SIZE);
		if (ret < 0)
			break;
		ret = mnl_cb_run2(buf, ret, seq, nl->portid, data_cb, &ctx,
				  ctl_cb, NLMSG_MIN_TYPE);
	} while (ret > 0);

	free(buf);
	return ret < 0 ? -errno : 0;
}

struct family_ctx {
	uint16_t id;
	uint32_t version;
	char (*mcgrps)[32];
	int max_mcgrps;
	int n_mcgrps;
};

static int mcgrp_cb(const struct nlattr *attr, void *data)
{
	struct family_ctx *fc = data;
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, attr) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
		    fc->n_mcgrps < fc->max_mcgrps)
			snprintf(fc->mcgrps[fc->n_mcgrps++], 32, "%s",
				 mnl_attr_get_str(a));
	}
	return MNL_CB_OK;
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	struct family_ctx *fc = data;
	const struct nlattr *grp;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_FAMILY_ID:
		fc->id = mnl_attr_get_u16(attr);
		break;
	case CTRL_ATTR_VERSION:
		fc->version = mnl_attr_get_u32(attr);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		mnl_attr_for_each_nested(grp, attr)
			mcgrp_cb(grp, fc);
		break;
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb, data);
	return MNL_CB_OK;
}

int devmem_nl_family(struct devmem_nl *nl, const char *name, uint16_t *id,
		     uint32_t *version, char mcgrps[][32], int max_mcgrps)
{
	struct family_ctx fc = { .mcgrps = mcgrps, .max_mcgrps = max_mcgrps };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret;

	nlh = genl_start(nl, buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	ret = transact(nl, nlh, family_cb, &fc);
	if (ret)
		return ret;
	if (id)
		*id = fc.id;
	if (version)
		*version = fc.version;
	return fc.n_mcgrps;
}

int devmem_nl_open(struct devmem_nl *nl)
{
	return devmem_nl_open_portid(nl, MNL_SOCKET_AUTOPID);
}

int devmem_nl_open_portid(struct devmem_nl *nl, unsigned int portid)
{
	int one = 1, ret;

	memset(nl, 0, sizeof(*nl));
	nl->seq = time(NULL);
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock)
		return -errno;
	if (mnl_socket_bind(nl->sock, 0, portid) < 0)
		goto err_close;
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	nl->portid = mnl_socket_get_portid(nl->sock);

	ret = devmem_nl_family(nl, UP_NETDEV_FAMILY_NAME, &nl->netdev_family,
			       NULL, NULL, 0);
	if (ret < 0)
		goto err_close_ret;
	ret = devmem_nl_family(nl, ETHTOOL_GENL_NAME, &nl->ethtool_family,
			       NULL, NULL, 0);
	if (ret < 0)
		goto err_close_ret;
	return 0;

err_close:
	ret = -errno;
err_close_ret:
	mnl_socket_close(nl->sock);
	nl->sock = NULL;
	return ret;
}

void devmem_nl_close(struct devmem_nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}

static int u32_attr_cb(const struct nlmsghdr *nlh, void *data)
{
	uint32_t *want = data;	/* [0] = attr type in, [1] = value out */
	const struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(attr) == want[0] &&
		    mnl_attr_get_payload_len(attr) == 4)
			want[1] = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

int devmem_bind_rx_raw(struct devmem_nl *nl, unsigned int attrs,
		       uint32_t ifindex, int dmabuf_fd,
		       const struct devmem_queue *queues, int n, uint32_t *id)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint32_t want[2] = { UP_NETDEV_A_DMABUF_ID, 0 };
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	int i, ret;

	nlh = genl_start(nl, buf, nl->netdev_family,
			 attrs & BIND_TX ? UP_NETDEV_CMD_BIND_TX :
					   UP_NETDEV_CMD_BIND_RX, 0);
	if (attrs & BIND_IFINDEX)
		mnl_attr_put_u32(nlh, UP_NETDEV_A_DMABUF_IFINDEX, ifindex);
	if (attrs & BIND_FD)
		mnl_attr_put_u32(nlh, UP_NETDEV_A_DMABUF_FD, dmabuf_fd);
	if (nl->rx_page_size)
		mnl_attr_put_u32(nlh, UP_NETDEV_A_DMABUF_RX_PAGE_SIZE,
				 nl->rx_page_size);
	for (i = 0; (attrs & BIND_QUEUES) && i < n; i++) {
		nest = mnl_attr_nest_start(nlh, UP_NETDEV_A_DMABUF_QUEUES);
		if (!(attrs & BIND_QUEUE_NO_ID))
			mnl_attr_put_u32(nlh, UP_NETDEV_A_QUEUE_ID, queues[i].id);
		if (!(attrs & BIND_QUEUE_NO_TYPE))
			mnl_attr_put_u32(nlh, UP_NETDEV_A_QUEUE_TYPE,
					 queues[i].type);
		mnl_attr_nest_end(nlh, nest);
	}

	ret = transact(nl, nlh, u32_attr_cb, want);
	if (!ret && id)
		*id = want[1];
	return ret;
}

int devmem_bind_rx(struct devmem_nl *nl, uint32_t ifindex, int dmabuf_fd,
		   const struct devmem_queue *queues, int n, uint32_t *id)
{
	return devmem_bind_rx_raw(nl, BIND_IFINDEX | BIND_FD | BIND_QUEUES,
				  ifindex, dmabuf_fd, queues, n, id);
}

int devmem_bind_tx(struct devmem_nl *nl, uint32_t ifindex, int dmabuf_fd,
		   uint32_t *id)
{
	return devmem_bind_rx_raw(nl, BIND_TX | BIND_IFINDEX | BIND_FD,
				  ifindex, dmabuf_fd, NULL, 0, id);
}

int devmem_bind_rx_range(struct devmem_nl *nl, uint32_t ifindex,
			 int dmabuf_fd, int first, int n, uint32_t *id)
{
	struct devmem_queue q[64];
	int i;

	if (n < 1 || n > 64)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		q[i].id = first + i;
		q[i].type = UP_NETDEV_QUEUE_TYPE_RX;
	}
	return devmem_bind_rx(nl, ifindex, dmabuf_fd, q, n, id);
}

/* a queue-get request for queue @qid of @type on @ifindex, in @buf */
static struct nlmsghdr *queue_get_req(struct devmem_nl *nl, char *buf,
				      uint32_t ifindex, uint32_t qid,
				      uint32_t type)
{
	struct nlmsghdr *nlh;

	nlh = genl_start(nl, buf, nl->netdev_family, UP_NETDEV_CMD_QUEUE_GET, 0);
	mnl_attr_put_u32(nlh, UP_NETDEV_A_QUEUE_IFINDEX, ifindex);
	mnl_attr_put_u32(nlh, UP_NETDEV_A_QUEUE_ID, qid);
	mnl_attr_put_u32(nlh, UP_NETDEV_A_QUEUE_TYPE, type);
	return nlh;
}

/* one u32 attribute of a queue-get reply, 0 if absent */
static int queue_get_u32(struct devmem_nl *nl, uint32_t ifindex, uint32_t qid,
			 uint32_t type, uint32_t attr, uint32_t *val)
{
	uint32_t want[2] = { attr, 0 };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int ret;

	ret = transact(nl, queue_get_req(nl, buf, ifindex, qid, type),
		       u32_attr_cb, want);
	if (!ret && val)
		*val = want[1];
	return ret;
}

int devmem_queue_get(struct devmem_nl *nl, uint32_t ifindex, uint32_t qid,
		     uint32_t type, uint32_t *dmabuf_id)
{
	return queue_get_u32(nl, ifindex, qid, type, UP_NETDEV_A_QUEUE_DMABUF,
			     dmabuf_id);
}

int devmem_queue_napi_id(struct devmem_nl *nl, uint32_t ifindex, uint32_t qid,
			 uint32_t type, uint32_t *napi_id)
{
	return queue_get_u32(nl, ifindex, qid, type, UP_NETDEV_A_QUEUE_NAPI_ID,
			     napi_id);
}

/* rx-buf-len in an io-uring nest (0: none) */
static uint32_t io_uring_nest_buf_len(const struct nlattr *nest)
{
	const struct nlattr *attr;

	mnl_attr_for_each_nested(attr, nest)
		if (mnl_attr_get_type(attr) ==
		    UP_NETDEV_A_IO_URING_PROVIDER_INFO_RX_BUF_LEN)
			return mnl_attr_get_u32(attr);
	return 0;
}

static int io_uring_nest_cb(const struct nlmsghdr *nlh, void *data)
{
	uint32_t *want = data;	/* [0] = nest type in, [1] = rx-buf-len out */
	const struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(attr) == want[0])
			want[1] = io_uring_nest_buf_len(attr);
	return MNL_CB_OK;
}

int devmem_queue_io_uring(struct devmem_nl *nl, uint32_t ifindex,
			  uint32_t qid, uint32_t *buf_len)
{
	uint32_t want[2] = { UP_NETDEV_A_QUEUE_IO_URING, 0 };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int ret;

	ret = transact(nl, queue_get_req(nl, buf, ifindex, qid,
					 UP_NETDEV_QUEUE_TYPE_RX),
		       io_uring_nest_cb, want);
	if (!ret)
		*buf_len = want[1];
	return ret;
}

int devmem_dev_get(struct devmem_nl *nl, uint32_t ifindex)
{
	uint32_t want[2] = { UP_NETDEV_A_DEV_IFINDEX, 0 };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret;

	nlh = genl_start(nl, buf, nl->netdev_family, UP_NETDEV_CMD_DEV_GET, 0);
	mnl_attr_put_u32(nlh, UP_NETDEV_A_DEV_IFINDEX, ifindex);
	ret = transact(nl, nlh, u32_attr_cb, want);
	if (ret)
		return ret;
	return want[1] == ifindex ? 0 : -EPROTO;
}

struct pools_ctx {
	struct devmem_pool_info *pools;
	int max;
	int n;
};

static uint64_t get_uint(const struct nlattr *attr)
{
	if (mnl_attr_get_payload_len(attr) == 8)
		return mnl_attr_get_u64(attr);
	return mnl_attr_get_u32(attr);
}

static int pools_cb(const struct nlmsghdr *nlh, void *data)
{
	struct pools_ctx *pc = data;
	struct devmem_pool_info *p;
	const struct nlattr *attr;

	if (pc->n >= pc->max)
		return MNL_CB_OK;
	p = &pc->pools[pc->n++];
	memset(p, 0, sizeof(*p));
	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(attr)) {
		case UP_NETDEV_A_PAGE_POOL_ID:
			p->id = get_uint(attr);
			break;
		case UP_NETDEV_A_PAGE_POOL_IFINDEX:
			p->ifindex = mnl_attr_get_u32(attr);
			break;
		case UP_NETDEV_A_PAGE_POOL_NAPI_ID:
			p->napi_id = get_uint(attr);
			break;
		case UP_NETDEV_A_PAGE_POOL_INFLIGHT:
			p->inflight = get_uint(attr);
			break;
		case UP_NETDEV_A_PAGE_POOL_INFLIGHT_MEM:
			p->inflight_mem = get_uint(attr);
			break;
		case UP_NETDEV_A_PAGE_POOL_DETACH_TIME:
			p->detach_time = get_uint(attr);
			break;
		case UP_NETDEV_A_PAGE_POOL_DMABUF:
			p->dmabuf = mnl_attr_get_u32(attr);
			break;
		case UP_NETDEV_A_PAGE_POOL_IO_URING:
			p->io_uring_buf = io_uring_nest_buf_len(attr);
			break;
		}
	}
	return MNL_CB_OK;
}

int devmem_page_pools(struct devmem_nl *nl, struct devmem_pool_info *pools,
		      int max)
{
	struct pools_ctx pc = { .pools = pools, .max = max };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret;

	nlh = genl_start(nl, buf, nl->netdev_family,
			 UP_NETDEV_CMD_PAGE_POOL_GET, NLM_F_DUMP);
	ret = transact(nl, nlh, pools_cb, &pc);
	return ret ? ret : pc.n;
}

/* Visible pools of the caller's netns, through a socket of its own. */
static int page_pools_now(struct devmem_pool_info *pools, int max)
{
	struct devmem_nl nl;
	int n;

	n = devmem_nl_open(&nl);
	if (n)
		return n;
	n = devmem_page_pools(&nl, pools, max);
	devmem_nl_close(&nl);
	return n;
}

#define MAX_POOLS	1024

int devmem_nl_as_nobody(int (*fn)(struct devmem_nl *nl, void *arg),
			void *arg, bool userns)
{
	int status, ret;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -ECHILD;
	if (!pid) {
		struct devmem_nl nl;

		if (devmem_nl_open(&nl) || setresuid(65534, 65534, 65534) ||
		    (userns && unshare(CLONE_NEWUSER)))
			_exit(255);
		ret = fn(&nl, arg);
		_exit(ret < 0 ? -ret & 0x7f : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -ECHILD;
	return -WEXITSTATUS(status);
}

int devmem_nl_unprivileged(int (*fn)(struct devmem_nl *nl, void *arg),
			   void *arg, bool userns)
{
	int ret = devmem_nl_as_nobody(fn, arg, userns);

	if (ret == -ECHILD)
		return 2;
	return ret == -EPERM ? 0 : 1;
}

int devmem_bindings_live(void)
{
	static struct devmem_pool_info pools[MAX_POOLS];
	uint32_t ids[MAX_POOLS];
	int i, j, n, live = 0;

	n = page_pools_now(pools, MAX_POOLS);
	for (i = 0; i < n; i++) {
		if (!pools[i].dmabuf)
			continue;
		for (j = 0; j < live && ids[j] != pools[i].dmabuf; j++)
			;
		if (j == live)
			ids[live++] = pools[i].dmabuf;
	}
	return n < 0 ? n : live;
}

int devmem_wait_bindings(int want, int ms)
{
	int n;

	while ((n = devmem_bindings_live()) != want && ms > 0) {
		usleep(20000);
		ms -= 20;
	}
	return n;
}

long devmem_binding_inflight(uint32_t id)
{
	static struct devmem_pool_info pools[MAX_POOLS];
	long inflight = -1;
	int i, n;

	n = page_pools_now(pools, MAX_POOLS);
	for (i = 0; i < n; i++)
		if (pools[i].dmabuf == id)
			inflight = (inflight < 0 ? 0 : inflight) +
				   pools[i].inflight;
	return inflight;
}

static void put_ethtool_header(struct nlmsghdr *nlh, uint16_t type,
			       uint32_t ifindex)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);

	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, ifindex);
	mnl_attr_nest_end(nlh, nest);
}

static int u8_attr_cb(const struct nlmsghdr *nlh, void *data)
{
	int *want = data;	/* [0] = attr type in, [1] = value out */
	const struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(attr) == want[0])
			want[1] = mnl_attr_get_u8(attr);
	return MNL_CB_OK;
}

/* ETHTOOL_MSG_RINGS_GET, the reply to @cb */
static int rings_get(struct devmem_nl *nl, uint32_t ifindex, mnl_cb_t cb,
		     void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	nlh = genl_start(nl, buf, nl->ethtool_family, ETHTOOL_MSG_RINGS_GET, 0);
	put_ethtool_header(nlh, ETHTOOL_A_RINGS_HEADER, ifindex);
	return transact(nl, nlh, cb, data);
}

/* devmem-stats */

struct host_stats_ctx {
	struct devmem_host_stats *st;
	int max;
	int n;
};

static int host_stats_attr_cb(const struct nlattr *attr, void *data)
{
	struct devmem_host_stats *st = data;

	switch (mnl_attr_get_type(attr)) {
	case DEVMEM_STATS_A_QUEUE_IFINDEX:
		st->ifindex = mnl_attr_get_u32(attr);
		break;
	case DEVMEM_STATS_A_QUEUE_ID:
		st->queue = mnl_attr_get_u32(attr);
		break;
	case DEVMEM_STATS_A_QUEUE_DEVMEM_HOST_BYTES:
		st->devmem_bytes = mnl_attr_get_u64(attr);
		break;
	case DEVMEM_STATS_A_QUEUE_DEVMEM_HOST_COPIES:
		st->devmem_copies = mnl_attr_get_u64(attr);
		break;
	case DEVMEM_STATS_A_QUEUE_ZCRX_COPY_BYTES:
		st->zcrx_bytes = mnl_attr_get_u64(attr);
		break;
	case DEVMEM_STATS_A_QUEUE_ZCRX_COPIES:
		st->zcrx_copies = mnl_attr_get_u64(attr);
		break;
	}
	return MNL_CB_OK;
}

static int host_stats_cb(const struct nlmsghdr *nlh, void *data)
{
	struct host_stats_ctx *ctx = data;
	struct devmem_host_stats one = {};

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), host_stats_attr_cb,
		       &one);
	if (ctx->n < ctx->max)
		ctx->st[ctx->n] = one;
	ctx->n++;
	return MNL_CB_OK;
}

/* A queue-get in @buf, the family looked up the first time */
static int host_stats_req(struct devmem_nl *nl, char *buf, uint16_t flags,
			  struct nlmsghdr **nlh)
{
	if (!nl->stats_family &&
	    devmem_nl_family(nl, DEVMEM_STATS_FAMILY_NAME, &nl->stats_family,
			     NULL, NULL, 0) < 0)
		return -ENOENT;
	*nlh = genl_start(nl, buf, nl->stats_family,
			  DEVMEM_STATS_CMD_QUEUE_GET, flags);
	return 0;
}

int devmem_host_stats_get_raw(struct devmem_nl *nl, unsigned int attrs,
			      uint32_t ifindex, uint32_t qid,
			      struct devmem_host_stats *st)
{
	struct devmem_host_stats one = {};
	struct host_stats_ctx ctx = { .st = &one, .max = 1 };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret;

	ret = host_stats_req(nl, buf, 0, &nlh);
	if (ret)
		return ret;
	if (attrs & 1)
		mnl_attr_put_u32(nlh, DEVMEM_STATS_A_QUEUE_IFINDEX, ifindex);
	if (attrs & 2)
		mnl_attr_put_u32(nlh, DEVMEM_STATS_A_QUEUE_ID, qid);
	ret = transact(nl, nlh, host_stats_cb, &ctx);
	if (!ret && ctx.n != 1)
		ret = -EPROTO;
	if (!ret && st)
		*st = one;
	return ret;
}

int devmem_host_stats_get(struct devmem_nl *nl, uint32_t ifindex,
			  uint32_t qid, struct devmem_host_stats *st)
{
	return devmem_host_stats_get_raw(nl, 3, ifindex, qid, st);
}

int devmem_host_stats_dump(struct devmem_nl *nl, uint32_t ifindex,
			   struct devmem_host_stats *st, int max)
{
	struct host_stats_ctx ctx = { .st = st, .max = max };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret;

	ret = host_stats_req(nl, buf, NLM_F_DUMP, &nlh);
	if (ret)
		return ret;
	if (ifindex)
		mnl_attr_put_u32(nlh, DEVMEM_STATS_A_QUEUE_IFINDEX, ifindex);
	ret = transact(nl, nlh, host_stats_cb, &ctx);
	return ret ? ret : ctx.n;
}

struct sock_tokens_ctx {
	struct devmem_sock_tokens *st;
	int max;
	int n;
};

static int sock_tokens_attr_cb(const struct nlattr *attr, void *data)
{
	struct devmem_sock_tokens *st = data;
	uint16_t len = mnl_attr_get_payload_len(attr);

	switch (mnl_attr_get_type(attr)) {
	case DEVMEM_STATS_A_SOCK_INODE:
		st->inode = mnl_attr_get_u64(attr);
		break;
	case DEVMEM_STATS_A_SOCK_UID:
		st->uid = mnl_attr_get_u32(attr);
		break;
	case DEVMEM_STATS_A_SOCK_FAMILY:
		st->family = mnl_attr_get_u32(attr);
		break;
	case DEVMEM_STATS_A_SOCK_SADDR:
		memcpy(st->saddr, mnl_attr_get_payload(attr),
		       len < 16 ? len : 16);
		break;
	case DEVMEM_STATS_A_SOCK_DADDR:
		memcpy(st->daddr, mnl_attr_get_payload(attr),
		       len < 16 ? len : 16);
		break;
	case DEVMEM_STATS_A_SOCK_SPORT:
		st->sport = mnl_attr_get_u16(attr);
		break;
	case DEVMEM_STATS_A_SOCK_DPORT:
		st->dport = mnl_attr_get_u16(attr);
		break;
	case DEVMEM_STATS_A_SOCK_TOKENS:
		st->tokens = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

static int sock_tokens_cb(const struct nlmsghdr *nlh, void *data)
{
	struct sock_tokens_ctx *ctx = data;
	struct devmem_sock_tokens one = {};

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), sock_tokens_attr_cb,
		       &one);
	if (ctx->n < ctx->max)
		ctx->st[ctx->n] = one;
	ctx->n++;
	return MNL_CB_OK;
}

int devmem_sock_tokens_dump(struct devmem_nl *nl,
			    struct devmem_sock_tokens *st, int max)
{
	return devmem_sock_tokens_dump_raw(nl, st, max, 0);
}

int devmem_sock_tokens_dump_raw(struct devmem_nl *nl,
				struct devmem_sock_tokens *st, int max,
				uint16_t attr)
{
	struct sock_tokens_ctx ctx = { .st = st, .max = max };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret;

	if (!nl->stats_family &&
	    devmem_nl_family(nl, DEVMEM_STATS_FAMILY_NAME, &nl->stats_family,
			     NULL, NULL, 0) < 0)
		return -ENOENT;
	nlh = genl_start(nl, buf, nl->stats_family, DEVMEM_STATS_CMD_SOCK_GET,
			 NLM_F_DUMP);
	if (attr)
		mnl_attr_put_u32(nlh, attr, 0);
	ret = transact(nl, nlh, sock_tokens_cb, &ctx);
	return ret ? ret : ctx.n;
}

int ethtool_get_hds(struct devmem_nl *nl, uint32_t ifindex, int *hds)
{
	int want[2] = { ETHTOOL_A_RINGS_TCP_DATA_SPLIT, 0 };
	int ret;

	ret = rings_get(nl, ifindex, u8_attr_cb, want);
	if (!ret)
		*hds = want[1];
	return ret;
}

int ethtool_set_hds_mode_thresh(struct devmem_nl *nl, uint32_t ifindex,
				uint8_t mode, int64_t thresh)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	nlh = genl_start(nl, buf, nl->ethtool_family, ETHTOOL_MSG_RINGS_SET, 0);
	put_ethtool_header(nlh, ETHTOOL_A_RINGS_HEADER, ifindex);
	mnl_attr_put_u8(nlh, ETHTOOL_A_RINGS_TCP_DATA_SPLIT, mode);
	if (thresh >= 0)
		mnl_attr_put_u32(nlh, ETHTOOL_A_RINGS_HDS_THRESH, thresh);
	return transact(nl, nlh, NULL, NULL);
}

int ethtool_set_hds_mode(struct devmem_nl *nl, uint32_t ifindex, uint8_t mode)
{
	return ethtool_set_hds_mode_thresh(nl, ifindex, mode, -1);
}

int ethtool_set_hds(struct devmem_nl *nl, uint32_t ifindex, bool on)
{
	return ethtool_set_hds_mode(nl, ifindex,
				    on ? ETHTOOL_TCP_DATA_SPLIT_ENABLED :
					 ETHTOOL_TCP_DATA_SPLIT_DISABLED);
}

static int hds_all_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ethtool_hds *hds = data;
	const struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(attr)) {
		case ETHTOOL_A_RINGS_TCP_DATA_SPLIT:
			hds->split = mnl_attr_get_u8(attr);
			break;
		case ETHTOOL_A_RINGS_HDS_THRESH:
			hds->thresh = mnl_attr_get_u32(attr);
			break;
		case ETHTOOL_A_RINGS_HDS_THRESH_MAX:
			hds->max = mnl_attr_get_u32(attr);
			break;
		}
	}
	return MNL_CB_OK;
}

int ethtool_get_hds_all(struct devmem_nl *nl, uint32_t ifindex,
			struct ethtool_hds *hds)
{
	hds->split = -1;
	hds->thresh = -1;
	hds->max = -1;
	return rings_get(nl, ifindex, hds_all_cb, hds);
}

int ethtool_get_hds_thresh(struct devmem_nl *nl, uint32_t ifindex,
			   uint32_t *thresh, uint32_t *max)
{
	struct ethtool_hds hds;
	int ret;

	ret = ethtool_get_hds_all(nl, ifindex, &hds);
	if (ret)
		return ret;
	if (hds.thresh < 0 || hds.max < 0)
		return -EOPNOTSUPP;
	*thresh = hds.thresh;
	*max = hds.max;
	return 0;
}

int ethtool_set_rings_attr(struct devmem_nl *nl, uint32_t ifindex,
			   uint16_t attr, size_t len, uint32_t val)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	nlh = genl_start(nl, buf, nl->ethtool_family, ETHTOOL_MSG_RINGS_SET, 0);
	put_ethtool_header(nlh, ETHTOOL_A_RINGS_HEADER, ifindex);
	if (len == 1)
		mnl_attr_put_u8(nlh, attr, val);
	else
		mnl_attr_put_u32(nlh, attr, val);
	return transact(nl, nlh, NULL, NULL);
}

int ethtool_set_hds_thresh(struct devmem_nl *nl, uint32_t ifindex,
			   uint32_t thresh)
{
	return ethtool_set_rings_attr(nl, ifindex, ETHTOOL_A_RINGS_HDS_THRESH,
				      sizeof(thresh), thresh);
}

int ethtool_set_channels(struct devmem_nl *nl, uint32_t ifindex,
			 uint32_t combined)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	nlh = genl_start(nl, buf, nl->ethtool_family,
			 ETHTOOL_MSG_CHANNELS_SET, 0);
	put_ethtool_header(nlh, ETHTOOL_A_CHANNELS_HEADER, ifindex);
	mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_COMBINED_COUNT, combined);
	return transact(nl, nlh, NULL, NULL);
}

struct channels_ctx {
	uint32_t combined;
	uint32_t max_combined;
};

static int channels_cb(const struct nlmsghdr *nlh, void *data)
{
	struct channels_ctx *cc = data;
	const struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) == ETHTOOL_A_CHANNELS_COMBINED_COUNT)
			cc->combined = mnl_attr_get_u32(attr);
		else if (mnl_attr_get_type(attr) == ETHTOOL_A_CHANNELS_COMBINED_MAX)
			cc->max_combined = mnl_attr_get_u32(attr);
	}
	return MNL_CB_OK;
}

int ethtool_get_channels(struct devmem_nl *nl, uint32_t ifindex,
			 uint32_t *combined, uint32_t *max_combined)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct channels_ctx cc = {};
	struct nlmsghdr *nlh;
	int ret;

	nlh = genl_start(nl, buf, nl->ethtool_family,
			 ETHTOOL_MSG_CHANNELS_GET, 0);
	put_ethtool_header(nlh, ETHTOOL_A_CHANNELS_HEADER, ifindex);
	ret = transact(nl, nlh, channels_cb, &cc);
	if (!ret) {
		*combined = cc.combined;
		*max_combined = cc.max_combined;
	}
	return ret;
}
