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
#include <linux/skbuff.h>
#include <linux/spinlock.h>

#define DRV_NAME		"hdsim"

#define HDSIM_MAX_QUEUES	16
#define HDSIM_DEF_QUEUES	4
#define HDSIM_RING_MIN		64
#define HDSIM_RING_DEF		1024
#define HDSIM_RING_MAX		4096
#define HDSIM_MAX_RULES		64
#define HDSIM_INDIR_SIZE	128
#define HDSIM_MAX_MTU		9000
/* header buffer: headroom + headers + skb_shared_info */
#define HDSIM_HDR_BUF_SIZE	1024
#define HDSIM_HDR_MAX		256

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
};

struct hdsim_rule {
	bool used;
	struct ethtool_rx_flow_spec fs;
};

struct hdsim_port {
	struct net_device *netdev;
	struct hdsim_dev *hdev;
	struct hdsim_port __rcu *peer;
	unsigned int port_idx;

	u32 rx_ring_size;	/* RTNL */
	u32 tx_ring_size;	/* RTNL */
	bool hds;		/* tcp-data-split; RTNL, read locklessly */

	/* steering, read on the sender's TX path */
	spinlock_t steer_lock;
	u32 indir[HDSIM_INDIR_SIZE];
	struct hdsim_rule rules[HDSIM_MAX_RULES];
	unsigned int rule_cnt;

	atomic64_t tx_packets;
	atomic64_t tx_bytes;
	atomic64_t tx_dropped;

	/* fault knobs (debugfs) */
	u32 fault_corrupt_csum_every;
	u32 fault_drop_every;
	atomic_t fault_seq;
	bool ignore_provider;	/* build queues without the provider */
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
};

/* netdev.c */
int hdsim_port_create(struct hdsim_dev *hdev, unsigned int port_idx);
void hdsim_port_destroy(struct hdsim_port *port);
void hdsim_link_ports(struct hdsim_dev *hdev);
int hdsim_rq_mem_alloc(struct hdsim_port *port, unsigned int idx,
		       struct hdsim_rq_mem *mem);
void hdsim_rq_mem_free(struct hdsim_rq_mem *mem);
extern struct rtnl_link_ops hdsim_link_ops;

/* ethtool.c */
void hdsim_ethtool_init(struct hdsim_port *port);
int hdsim_steer(struct hdsim_port *port, struct sk_buff *skb);
extern const struct ethtool_ops hdsim_ethtool_ops;

#endif /* _HDSIM_H */
