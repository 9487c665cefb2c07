// SPDX-License-Identifier: GPL-2.0
/*
 * hdsim RX queues: their pair of page pools (headers in host memory,
 * payload from the queue's memory provider when one is bound), start and
 * stop, and the queue management ops the core restarts a queue with.
 */
#include <linux/kcov.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool.h>
#include <net/page_pool/memory_provider.h>

#include "hdsim.h"

int hdsim_rq_mem_alloc(struct hdsim_port *port, unsigned int idx,
		       struct hdsim_rq_mem *mem)
{
	struct page_pool_params pp = {
		.flags		= PP_FLAG_DMA_MAP | PP_FLAG_PAGE_FRAG,
		.order		= 0,
		.pool_size	= port->rx_ring_size,
		.nid		= NUMA_NO_NODE,
		.dev		= &port->hdev->dev,
		.dma_dir	= DMA_FROM_DEVICE,
		.max_len	= PAGE_SIZE,
		.netdev		= port->netdev,
		.queue_idx	= idx,
		.napi		= &port->rq[idx].napi,
	};

	ASSERT_RTNL();

	mem->hdr_pool = page_pool_create(&pp);
	if (IS_ERR(mem->hdr_pool))
		return PTR_ERR(mem->hdr_pool);

	/* Only the payload pool may hold device memory, and only when the
	 * device splits headers off (they must stay readable).
	 */
	pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
	if (port->hds && !port->ignore_provider) {
		struct netdev_rx_queue *rxq = __netif_get_rx_queue(port->netdev,
								   idx);

		pp.flags |= PP_FLAG_ALLOW_UNREADABLE_NETMEM;
		/* buffers of the provider's size (rx-page-size) */
		if (!port->ignore_rx_page_size)
			pp.order = pp_mp_params_order(&rxq->mp_params);
		pp.max_len = PAGE_SIZE << pp.order;
	}
	mem->payload_pool = page_pool_create(&pp);
	if (IS_ERR(mem->payload_pool)) {
		int err = PTR_ERR(mem->payload_pool);

		page_pool_destroy(mem->hdr_pool);
		mem->hdr_pool = NULL;
		mem->payload_pool = NULL;
		return err;
	}

	return 0;
}

void hdsim_rq_mem_free(struct hdsim_rq_mem *mem)
{
	page_pool_destroy(mem->payload_pool);
	page_pool_destroy(mem->hdr_pool);
	mem->payload_pool = NULL;
	mem->hdr_pool = NULL;
}

void hdsim_rq_start(struct hdsim_rq *rq, struct hdsim_rq_mem *mem)
{
	rq->mem = *mem;
	memset(mem, 0, sizeof(*mem));
	/* The polls that follow are this task's doing (an open, a queue
	 * restart under a new binding): a fuzzer that collects remote KCOV
	 * coverage sees them as its own. 0 for a task that collects none.
	 */
	WRITE_ONCE(rq->kcov_handle, kcov_common_handle());
	napi_enable(&rq->napi);
	/* frames may have arrived while the queue was stopped */
	napi_schedule(&rq->napi);
}

void hdsim_rq_stop(struct hdsim_rq *rq, struct hdsim_rq_mem *mem)
{
	napi_disable(&rq->napi);
	/* the last poll may have spent its budget with an aggregate open */
	hdsim_gro_hw_discard(rq);
	*mem = rq->mem;
	memset(&rq->mem, 0, sizeof(rq->mem));
}

/* Queue restart: a new pair of pools for one queue, the rest untouched. */

static int hdsim_queue_mem_alloc(struct net_device *dev, void *per_q_mem,
				 int idx)
{
	return hdsim_rq_mem_alloc(netdev_priv(dev), idx, per_q_mem);
}

static void hdsim_queue_mem_free(struct net_device *dev, void *per_q_mem)
{
	hdsim_rq_mem_free(per_q_mem);
}

static int hdsim_queue_start(struct net_device *dev, void *per_q_mem, int idx)
{
	struct hdsim_port *port = netdev_priv(dev);

	hdsim_rq_start(&port->rq[idx], per_q_mem);
	return 0;
}

static int hdsim_queue_stop(struct net_device *dev, void *per_q_mem, int idx)
{
	struct hdsim_port *port = netdev_priv(dev);

	hdsim_rq_stop(&port->rq[idx], per_q_mem);
	return 0;
}

/* A device's copy of these carries its own rx_buf_size_max (new_device). */
const struct netdev_queue_mgmt_ops hdsim_queue_mgmt_ops = {
	.ndo_queue_mem_size	= sizeof(struct hdsim_rq_mem),
	.ndo_queue_mem_alloc	= hdsim_queue_mem_alloc,
	.ndo_queue_mem_free	= hdsim_queue_mem_free,
	.ndo_queue_start	= hdsim_queue_start,
	.ndo_queue_stop		= hdsim_queue_stop,
	.rx_buf_size_max	= HDSIM_RX_BUF_MAX,
};
