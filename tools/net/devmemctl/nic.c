// SPDX-License-Identifier: GPL-2.0
/*
 * devmemctl: the NIC as the kernel reports it, over the netdev and ethtool
 * netlink families, the ethtool ioctl (RSS and flow rules: 6.1 has no
 * netlink for them) and rtnetlink.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flow.h"
#include "nic.h"

/* RX queues in sysfs: every driver has them, not every one has channels */
static int sysfs_rx_queues(const char *ifname)
{
	char path[128];
	int n;

	for (n = 0; ; n++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-%d",
			 ifname, n);
		if (access(path, F_OK))
			return n;
	}
}

int nic_read(struct devmem_nl *nl, const char *name, struct nic *nic)
{
	int q, err;

	memset(nic, 0, sizeof(*nic));
	if (strlen(name) >= sizeof(nic->name))
		return -ENODEV;
	strcpy(nic->name, name);
	nic->ifindex = if_nametoindex(name);
	if (!nic->ifindex)
		return -ENODEV;
	nic->nrx = sysfs_rx_queues(name);
	nic->q = calloc(nic->nrx ? nic->nrx : 1, sizeof(*nic->q));
	if (!nic->q)
		return -ENOMEM;
	for (q = 0; q < nic->nrx; q++) {
		devmem_queue_napi_id(nl, nic->ifindex, q,
				     UP_NETDEV_QUEUE_TYPE_RX, &nic->q[q].napi);
		devmem_queue_get(nl, nic->ifindex, q, UP_NETDEV_QUEUE_TYPE_RX,
				 &nic->q[q].dmabuf);
		devmem_queue_io_uring(nl, nic->ifindex, q,
				      &nic->q[q].io_uring);
	}
	if (ethtool_get_hds_all(nl, nic->ifindex, &nic->hds))
		memset(&nic->hds, 0xff, sizeof(nic->hds));	/* all -1 */
	nic->ntuple = ethtool_ntuple_get(name);
	err = ethtool_rss_ctx_table(name, 0, &nic->indir);
	nic->nindir = err > 0 ? err : 0;
	if (err <= 0)
		nic->indir = NULL;
	err = ethtool_flow_rules(name, &nic->rules);
	nic->nrules = err > 0 ? err : 0;
	nic->xdp = link_xdp_attached(NULL, nic->ifindex);
	return 0;
}

void nic_free(struct nic *nic)
{
	free(nic->q);
	free(nic->indir);
	free(nic->rules);
	memset(nic, 0, sizeof(*nic));
}

/* Every queue of @table, moved by @offset */
static void table_queues(const struct nic *nic, const uint32_t *table, int n,
			 int64_t offset, bool *queues)
{
	int i;

	for (i = 0; i < n; i++)
		if (table[i] + offset < (uint64_t)nic->nrx)
			queues[table[i] + offset] = true;
}

const struct netcfg_rule *nic_flow_queues(const struct nic *nic,
					  const struct netcfg_flow *f,
					  bool *queues)
{
	const struct netcfg_rule *r = NULL;
	uint32_t *table;
	int i, n;

	memset(queues, 0, nic->nrx * sizeof(*queues));
	/* rules apply in location order; without ntuple none applies */
	for (i = 0; nic->ntuple > 0 && i < nic->nrules; i++) {
		if (flow_covers(&nic->rules[i].flow, f)) {
			r = &nic->rules[i];
			break;
		}
	}
	if (!r) {
		if (nic->indir)
			table_queues(nic, nic->indir, nic->nindir, 0, queues);
		else if (nic->nrx)
			queues[0] = true;
		return NULL;
	}
	if (r->queue < 0)
		return r;
	if (!r->to_ctx) {
		if (r->queue < nic->nrx)
			queues[r->queue] = true;
		return r;
	}
	n = ethtool_rss_ctx_table(nic->name, r->ctx, &table);
	if (n > 0) {
		table_queues(nic, table, n, r->queue, queues);
		free(table);
	}
	return r;
}
