/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hdsim: a header/data split NIC simulator for testing devmem TCP.
 *
 * A device is a pair of linked ports. A frame sent on one port is
 * received on the other by an RX queue chosen like hardware does (ntuple
 * rules, then RSS over an indirection table). In header-split mode the
 * "device" writes the protocol headers of TCP frames into a host buffer
 * and the payload into buffers of the queue's payload page pool, through
 * their DMA addresses, like a DMA engine; with a dmabuf bound to the
 * queue that pool hands out device memory (net_iovs) and the CPU never
 * touches the payload.
 */
#ifndef _HDSIM_H
#define _HDSIM_H

#include <linux/device.h>
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <net/netdev_queues.h>
#include <net/netmem.h>
#include <net/page_pool.h>

#define DRV_NAME		"hdsim"

#define HDSIM_MAX_QUEUES	16
#define HDSIM_DEF_QUEUES	4
#define HDSIM_RING_MIN		64
#define HDSIM_RING_DEF		1024
#define HDSIM_RING_MAX		4096
#define HDSIM_MAX_RULES		64
#define HDSIM_INDIR_SIZE	128
/* additional RSS contexts, ids 1..HDSIM_MAX_RSS_CTX (0 is the default) */
#define HDSIM_MAX_RSS_CTX	8
#define HDSIM_MAX_MTU		9000
/* header buffer: headroom + headers + skb_shared_info */
#define HDSIM_HDR_BUF_SIZE	1024
#define HDSIM_HDR_MAX		256
/* hds-thresh: payloads shorter than it stay with the headers */
#define HDSIM_HDS_THRESH_MAX	1024
/* largest payload buffer a memory provider may give a queue */
#define HDSIM_RX_BUF_MAX	SZ_2M

struct hdsim_dev;

struct hdsim_rq_stats {
	u64 packets;
	u64 bytes;
	u64 hds_packets;	/* split: headers and payload apart */
	u64 hds_payload_bytes;	/* payload written to payload buffers */
	u64 devmem_payload_bytes; /* ... of which to provider (device) memory */
	u64 payload_cpu_syncs;	/* payload buffers synced for the CPU */
	u64 alloc_fail;		/* no buffer: frame dropped */
	u64 csum_err;		/* bad checksum: frame dropped */
	u64 fault_drop;		/* dropped by the drop fault knob */
	atomic64_t ring_full;	/* dropped on the wire: RX ring full */
	u64 gro_hw_skbs;	/* aggregates of two or more frames */
	u64 gro_hw_frames;	/* frames in those aggregates */
	u64 gro_hw_discarded;	/* frames of aggregates a queue stop dropped */
	u64 gro_hw_opened;	/* aggregation sessions opened */
	u64 gro_hw_evicted;	/* closed early to make room for another flow */
	u64 gro_hw_flushed;	/* closed otherwise (end, PSH, FIN, poll end) */
};

/* Where the device found the headers of a TCP frame it splits. */
struct hdsim_hdrs {
	int len;		/* all headers, MAC to TCP options */
	int nhoff;		/* IP header */
	int thoff;		/* TCP header */
	bool ipv6;
};

/* packing: aggregation sessions per RX queue (debugfs gro_hw_sessions) */
#define HDSIM_GRO_HW_SESSIONS_MAX	128
#define HDSIM_GRO_HW_SESSIONS_DEF	64
/* longest headers a session keeps (Ethernet, IPv6, TCP with options) */
#define HDSIM_GRO_HW_KEY_MAX		128

/**
 * struct hdsim_gro_hw_session - one open aggregate of an RX queue
 * @skb: headers of the first frame, one frag: the payload so far; NULL
 *	while the session is free
 * @buf: the payload buffer the frames are packed into, owned by @skb
 * @hdrs: where the headers of @skb are
 * @key: the first frame's headers with the fields that change from
 *	segment to segment (lengths, IP id and checksum, sequence number,
 *	TCP checksum and PSH) zeroed; a frame joins only if its own match
 * @flow: the flow's hash (skb_get_hash()), to find its session
 * @next_seq: sequence number the next frame must carry
 * @mss: payload of the first frame; a shorter frame closes the aggregate
 * @frames: frames in the aggregate
 * @opened: the queue's session clock when it opened; the oldest goes first
 */
struct hdsim_gro_hw_session {
	struct sk_buff *skb;
	netmem_ref buf;
	struct hdsim_hdrs hdrs;
	u8 key[HDSIM_GRO_HW_KEY_MAX];
	u32 flow;
	u32 next_seq;
	u32 mss;
	u32 frames;
	u64 opened;
};

/**
 * struct hdsim_gro_hw - the aggregation sessions of an RX queue (packing)
 * @s: the sessions, at most the port's gro_hw_sessions of them in use
 * @open: sessions in use
 * @clock: counts sessions opened, to find the oldest
 *
 * Owned by the queue's NAPI poll. Sessions stay open between two polls
 * only while the first spent its budget; a queue stop discards them.
 */
struct hdsim_gro_hw {
	struct hdsim_gro_hw_session s[HDSIM_GRO_HW_SESSIONS_MAX];
	unsigned int open;
	u64 clock;
};

/* Memory of one RX queue, swapped as a whole by queue restarts. */
struct hdsim_rq_mem {
	struct page_pool *hdr_pool;
	struct page_pool *payload_pool;
};

struct hdsim_rq {
	struct hdsim_port *port;
	unsigned int idx;
	struct napi_struct napi;
	/* frames on the wire, waiting to be written by the "device" */
	struct sk_buff_head ring;
	/* owned by NAPI while it is enabled, by RTNL otherwise */
	struct hdsim_rq_mem mem;
	struct hdsim_rq_stats stats;
	struct hdsim_gro_hw gro_hw;
	/* KCOV: whose coverage this queue's polls are (hdsim_rq_start) */
	u64 kcov_handle;
};

struct hdsim_rule {
	bool used;
	struct ethtool_rx_flow_spec fs;
	u32 rss_context;	/* with FLOW_RSS in fs.flow_type */
};

/* an RSS context a rule with FLOW_RSS spreads its flows over */
struct hdsim_rss_ctx {
	bool used;
	u32 indir[HDSIM_INDIR_SIZE];
};

struct hdsim_port {
	struct net_device *netdev;
	struct hdsim_dev *hdev;
	struct hdsim_port __rcu *peer;
	unsigned int port_idx;

	u32 rx_ring_size;	/* RTNL */
	u32 tx_ring_size;	/* RTNL */
	bool hds;		/* tcp-data-split; RTNL, read locklessly */
	u32 hds_thresh;		/* RTNL, read locklessly */

	/* steering, read on the sender's TX path */
	spinlock_t steer_lock;
	u32 indir[HDSIM_INDIR_SIZE];
	struct hdsim_rule rules[HDSIM_MAX_RULES];
	unsigned int rule_cnt;
	struct hdsim_rss_ctx rss_ctx[HDSIM_MAX_RSS_CTX];

	atomic64_t tx_packets;
	atomic64_t tx_bytes;
	atomic64_t tx_dropped;
	atomic64_t tx_devmem_bytes;	/* payload fetched from device memory */

	/* fault knobs (debugfs) */
	u32 fault_corrupt_csum_every;
	u32 fault_drop_every;
	atomic_t fault_seq;
	u32 gro_hw_sessions;	/* per RX queue, 1..HDSIM_GRO_HW_SESSIONS_MAX */
	bool ignore_provider;	/* build queues without the provider */
	bool ignore_rx_page_size; /* ... or with page-sized buffers */
	struct dentry *ddir;

	struct hdsim_rq rq[HDSIM_MAX_QUEUES];
};

struct hdsim_dev {
	struct device dev;
	struct list_head list;
	u32 id;
	unsigned int num_queues;
	struct hdsim_port *ports[2];	/* RTNL */
	struct dentry *ddir;
	/* hdsim_queue_mgmt_ops with this device's largest Rx buffer */
	struct netdev_queue_mgmt_ops queue_mgmt_ops;
};

/* Size of the payload buffers of @rq's payload pool. */
static inline unsigned int hdsim_rx_buf_size(const struct hdsim_rq *rq)
{
	return PAGE_SIZE << rq->mem.payload_pool->p.order;
}

/* netdev.c */
int hdsim_port_create(struct hdsim_dev *hdev, unsigned int port_idx);
void hdsim_port_destroy(struct hdsim_port *port);
void hdsim_link_ports(struct hdsim_dev *hdev);
extern struct rtnl_link_ops hdsim_link_ops;

/* rx.c: the DMA engine, header/data split, NAPI */
void hdsim_dma_write(struct hdsim_dev *hdev, dma_addr_t dma,
		     const struct sk_buff *src, int off, int len);
struct sk_buff *hdsim_tx_fetch(struct hdsim_dev *hdev, struct sk_buff *skb);
struct sk_buff *hdsim_rx_hdr_skb(struct hdsim_rq *rq, struct sk_buff *src,
				 int hdr_len);
void hdsim_rx_payload(struct hdsim_rq *rq, netmem_ref buf,
		      unsigned int buf_off, struct sk_buff *src, int off,
		      int len);
void hdsim_rx_deliver(struct hdsim_rq *rq, struct sk_buff *skb, bool csum_ok);
int hdsim_napi_poll(struct napi_struct *napi, int budget);

/* queue.c */
extern const struct netdev_queue_mgmt_ops hdsim_queue_mgmt_ops;
int hdsim_rq_mem_alloc(struct hdsim_port *port, unsigned int idx,
		       struct hdsim_rq_mem *mem);
void hdsim_rq_mem_free(struct hdsim_rq_mem *mem);
void hdsim_rq_start(struct hdsim_rq *rq, struct hdsim_rq_mem *mem);
void hdsim_rq_stop(struct hdsim_rq *rq, struct hdsim_rq_mem *mem);

/* debugfs.c */
void hdsim_debugfs_port(struct hdsim_port *port);

/* gro_hw.c: packing, needs the TCP stack */
#if IS_ENABLED(CONFIG_INET)
bool hdsim_gro_hw_add(struct hdsim_rq *rq, struct sk_buff *src,
		      const struct hdsim_hdrs *h);
void hdsim_gro_hw_flush(struct hdsim_rq *rq);
void hdsim_gro_hw_flush_flow(struct hdsim_rq *rq, struct sk_buff *src);
void hdsim_gro_hw_discard(struct hdsim_rq *rq);
#else
static inline bool hdsim_gro_hw_add(struct hdsim_rq *rq, struct sk_buff *src,
				    const struct hdsim_hdrs *h)
{
	return false;
}

static inline void hdsim_gro_hw_flush(struct hdsim_rq *rq)
{
}

static inline void hdsim_gro_hw_flush_flow(struct hdsim_rq *rq,
					   struct sk_buff *src)
{
}

static inline void hdsim_gro_hw_discard(struct hdsim_rq *rq)
{
}
#endif

/* ethtool.c */
void hdsim_ethtool_init(struct hdsim_port *port);
int hdsim_steer(struct hdsim_port *port, struct sk_buff *skb);
extern const struct ethtool_ops hdsim_ethtool_ops;

#endif /* _HDSIM_H */
