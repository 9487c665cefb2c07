/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Netlink helpers for the devmem and hdsim selftests and tools, on libmnl.
 *
 * The netdev family constants below are written out from the upstream
 * uAPI (not taken from our header), so that every test that decodes a
 * reply also proves the family is byte-compatible with upstream.
 */
#ifndef DEVMEM_NL_H
#define DEVMEM_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* upstream "netdev" genl family, v1 */
#define UP_NETDEV_FAMILY_NAME		"netdev"
#define UP_NETDEV_FAMILY_VERSION	1
#define UP_NETDEV_CMD_DEV_GET		1
#define UP_NETDEV_CMD_PAGE_POOL_GET	5
#define UP_NETDEV_CMD_QUEUE_GET		10
#define UP_NETDEV_CMD_BIND_RX		13
#define UP_NETDEV_CMD_BIND_TX		15
#define UP_NETDEV_A_DEV_IFINDEX		1
#define UP_NETDEV_A_PAGE_POOL_ID	1
#define UP_NETDEV_A_PAGE_POOL_IFINDEX	2
#define UP_NETDEV_A_PAGE_POOL_NAPI_ID	3
#define UP_NETDEV_A_PAGE_POOL_INFLIGHT	4
#define UP_NETDEV_A_PAGE_POOL_INFLIGHT_MEM 5
#define UP_NETDEV_A_PAGE_POOL_DETACH_TIME 6
#define UP_NETDEV_A_PAGE_POOL_DMABUF	7
#define UP_NETDEV_A_PAGE_POOL_IO_URING	8
#define UP_NETDEV_A_QUEUE_ID		1
#define UP_NETDEV_A_QUEUE_IFINDEX	2
#define UP_NETDEV_A_QUEUE_TYPE		3
#define UP_NETDEV_A_QUEUE_NAPI_ID	4
#define UP_NETDEV_A_QUEUE_DMABUF	5
#define UP_NETDEV_A_QUEUE_IO_URING	6
#define UP_NETDEV_A_IO_URING_PROVIDER_INFO_RX_BUF_LEN 1
#define UP_NETDEV_A_DMABUF_IFINDEX	1
#define UP_NETDEV_A_DMABUF_QUEUES	2
#define UP_NETDEV_A_DMABUF_FD		3
#define UP_NETDEV_A_DMABUF_ID		4
#define UP_NETDEV_A_DMABUF_RX_PAGE_SIZE	5
#define UP_NETDEV_QUEUE_TYPE_RX		0
#define UP_NETDEV_QUEUE_TYPE_TX		1

struct devmem_nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
	uint16_t netdev_family;
	uint16_t ethtool_family;
	uint16_t stats_family;	/* devmem-stats, 0 until first used */
	uint32_t rx_page_size;	/* bind-rx sends it if not 0 */
	char extack[256];	/* message of the last error, if any */
	uint32_t miss_type;	/* missing attribute of the last error */
};

struct devmem_queue {
	uint32_t id;
	uint32_t type;
};

struct devmem_pool_info {
	uint32_t id;
	uint32_t ifindex;
	uint32_t napi_id;	/* 0: none */
	uint64_t inflight;
	uint64_t inflight_mem;
	uint64_t detach_time;
	uint32_t dmabuf;	/* 0: none */
	uint32_t io_uring_buf;	/* rx-buf-len of the io-uring nest, 0: none */
};

/* All return 0 or -errno; on error nl->extack holds the kernel's message. */
int devmem_nl_open(struct devmem_nl *nl);
/* bound to @portid (-EADDRINUSE while another socket has it) */
int devmem_nl_open_portid(struct devmem_nl *nl, unsigned int portid);
void devmem_nl_close(struct devmem_nl *nl);
int devmem_nl_family(struct devmem_nl *nl, const char *name, uint16_t *id,
		     uint32_t *version, char mcgrps[][32], int max_mcgrps);

int devmem_bind_rx(struct devmem_nl *nl, uint32_t ifindex, int dmabuf_fd,
		   const struct devmem_queue *queues, int n, uint32_t *id);
/* bind-rx of RX queues @first..@first + @n - 1 (at most 64) */
int devmem_bind_rx_range(struct devmem_nl *nl, uint32_t ifindex,
			 int dmabuf_fd, int first, int n, uint32_t *id);
/* Raw bind-rx (bind-tx with BIND_TX): @attrs selects what is sent. */
#define BIND_IFINDEX	1
#define BIND_FD		2
#define BIND_QUEUES	4
#define BIND_QUEUE_NO_ID	8
#define BIND_QUEUE_NO_TYPE	16
#define BIND_TX			32	/* send bind-tx instead */
int devmem_bind_rx_raw(struct devmem_nl *nl, unsigned int attrs,
		       uint32_t ifindex, int dmabuf_fd,
		       const struct devmem_queue *queues, int n, uint32_t *id);
/* bind-tx: the dmabuf mapped for the device to send from */
int devmem_bind_tx(struct devmem_nl *nl, uint32_t ifindex, int dmabuf_fd,
		   uint32_t *id);
int devmem_queue_get(struct devmem_nl *nl, uint32_t ifindex, uint32_t qid,
		     uint32_t type, uint32_t *dmabuf_id);
int devmem_page_pools(struct devmem_nl *nl, struct devmem_pool_info *pools,
		      int max);
int devmem_dev_get(struct devmem_nl *nl, uint32_t ifindex);
/* the napi-id queue-get reports for a queue in @napi_id, 0 if none */
int devmem_queue_napi_id(struct devmem_nl *nl, uint32_t ifindex, uint32_t qid,
			 uint32_t type, uint32_t *napi_id);
/* an RX queue's io-uring nest: its rx-buf-len in @buf_len, 0 if none */
int devmem_queue_io_uring(struct devmem_nl *nl, uint32_t ifindex,
			  uint32_t qid, uint32_t *buf_len);

/*
 * Bindings as page-pool-get shows them: a binding lives as long as some
 * page pool uses it, bound to a queue or, after unbind, detached and
 * waiting for its net_iovs. These open their own socket.
 */
/*
 * @fn on a socket opened as root, called after the process dropped root
 * (and, with @userns, got every capability back in a new user namespace
 * only), in a child: what @fn returned (0 or -errno), -ECHILD if the child
 * could not be set up.
 */
int devmem_nl_as_nobody(int (*fn)(struct devmem_nl *nl, void *arg),
			void *arg, bool userns);
/* The same: 0 if @fn returned -EPERM, else 1 (2: setup failed). */
int devmem_nl_unprivileged(int (*fn)(struct devmem_nl *nl, void *arg),
			   void *arg, bool userns);
int devmem_bindings_live(void);
int devmem_wait_bindings(int want, int ms);
long devmem_binding_inflight(uint32_t id);

/*
 * Our own "devmem-stats" family (linux/devmem_stats.h): per RX queue, the
 * payload readers of device memory got in host memory.
 */
struct devmem_host_stats {
	uint32_t ifindex;
	uint32_t queue;
	uint64_t devmem_bytes;
	uint64_t devmem_copies;
	uint64_t zcrx_bytes;
	uint64_t zcrx_copies;
};

/* queue-get of @ifindex's RX queue @qid */
int devmem_host_stats_get(struct devmem_nl *nl, uint32_t ifindex,
			  uint32_t qid, struct devmem_host_stats *st);
/* The same sending only the attributes in @attrs (1: ifindex, 2: queue) */
int devmem_host_stats_get_raw(struct devmem_nl *nl, unsigned int attrs,
			      uint32_t ifindex, uint32_t qid,
			      struct devmem_host_stats *st);
/* A dump (@ifindex 0: of every device) into @st: how many, or -errno */
int devmem_host_stats_dump(struct devmem_nl *nl, uint32_t ifindex,
			   struct devmem_host_stats *st, int max);

/* sock-get: a TCP socket of this namespace that holds tokens */
struct devmem_sock_tokens {
	uint64_t inode;
	uint32_t uid;
	uint32_t family;		/* AF_INET, AF_INET6 */
	uint8_t saddr[16], daddr[16];	/* 4 or 16 bytes, network order */
	uint16_t sport, dport;		/* host order */
	uint32_t tokens;
};

/* A dump of them into @st: how many (maybe more than @max), or -errno */
int devmem_sock_tokens_dump(struct devmem_nl *nl,
			    struct devmem_sock_tokens *st, int max);
/* The same with a u32 attribute @attr (0: none) in the request */
int devmem_sock_tokens_dump_raw(struct devmem_nl *nl,
				struct devmem_sock_tokens *st, int max,
				uint16_t attr);

int ethtool_get_hds(struct devmem_nl *nl, uint32_t ifindex, int *hds);
int ethtool_set_hds(struct devmem_nl *nl, uint32_t ifindex, bool on);
/* ETHTOOL_TCP_DATA_SPLIT_*: UNKNOWN asks for the driver's default rule */
int ethtool_set_hds_mode(struct devmem_nl *nl, uint32_t ifindex, uint8_t mode);
/* The same and hds-thresh @thresh, in one message (@thresh < 0: not sent) */
int ethtool_set_hds_mode_thresh(struct devmem_nl *nl, uint32_t ifindex,
				uint8_t mode, int64_t thresh);
/* What RINGS_GET reports of header split, -1 for what it does not */
struct ethtool_hds {
	int64_t split;		/* ETHTOOL_TCP_DATA_SPLIT_* */
	int64_t thresh;		/* hds-thresh */
	int64_t max;		/* hds-thresh-max */
};

int ethtool_get_hds_all(struct devmem_nl *nl, uint32_t ifindex,
			struct ethtool_hds *hds);
/* hds-thresh and its maximum (-EOPNOTSUPP: the device reports none) */
int ethtool_get_hds_thresh(struct devmem_nl *nl, uint32_t ifindex,
			   uint32_t *thresh, uint32_t *max);
int ethtool_set_hds_thresh(struct devmem_nl *nl, uint32_t ifindex,
			   uint32_t thresh);
/* RINGS_SET with one attribute, @len 1 (u8) or 4 (u32) bytes */
int ethtool_set_rings_attr(struct devmem_nl *nl, uint32_t ifindex,
			   uint16_t attr, size_t len, uint32_t val);
int ethtool_set_channels(struct devmem_nl *nl, uint32_t ifindex,
			 uint32_t combined);
int ethtool_get_channels(struct devmem_nl *nl, uint32_t ifindex,
			 uint32_t *combined, uint32_t *max_combined);

#endif /* DEVMEM_NL_H */
