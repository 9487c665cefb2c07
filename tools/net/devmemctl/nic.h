/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmemctl: the NIC as the kernel reports it (nic.c), and the queues a
 * flow reaches on it.
 */
#ifndef DEVMEMCTL_NIC_H
#define DEVMEMCTL_NIC_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "devmem_nl.h"
#include "netcfg.h"

struct nic_queue {
	uint32_t napi;		/* 0: none */
	uint32_t dmabuf;	/* bound dmabuf id, 0: none */
	uint32_t io_uring;	/* zcrx rx-buf-len, 0: no zcrx */
};

struct nic {
	char name[IF_NAMESIZE];
	int ifindex;
	int nrx;			/* RX queues */
	struct ethtool_hds hds;		/* -1: not reported */
	int ntuple;			/* 0, 1, or -errno: no such flag */
	uint32_t *indir;		/* default RSS table, NULL: none */
	int nindir;
	struct netcfg_rule *rules;
	int nrules;
	int xdp;			/* XDP_ATTACHED_*, or -errno */
	struct nic_queue *q;		/* per RX queue */
};

int nic_read(struct devmem_nl *nl, const char *name, struct nic *nic);
void nic_free(struct nic *nic);
static inline bool nic_queue_bound(const struct nic *nic, int q)
{
	return nic->q[q].dmabuf || nic->q[q].io_uring;
}

/*
 * The queues a flow reaches: @queues gets a flag per RX queue. Returns
 * the steering rule that takes it (NULL: RSS in the default context).
 */
const struct netcfg_rule *nic_flow_queues(const struct nic *nic,
					  const struct netcfg_flow *f,
					  bool *queues);

#endif /* DEVMEMCTL_NIC_H */
