// SPDX-License-Identifier: GPL-2.0
/*
 * ncdevmem --show-queues and --pools (ncdevmem_list.h): what the netdev
 * family says backs each queue of a device, and every page pool.
 */
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "devmem_nl.h"
#include "ncdevmem_list.h"

/* RX queues of the device and what memory backs them (queue-get). */
int ncdm_show_queues(const char *ifname)
{
	uint32_t q, id, zc, napi;
	struct devmem_nl nl;
	char what[64];
	int ifindex;

	ifindex = if_nametoindex(ifname);
	if (!ifindex || devmem_nl_open(&nl))
		return 1;
	/* queue-get answers EINVAL past the last queue */
	for (q = 0; !devmem_queue_get(&nl, ifindex, q, UP_NETDEV_QUEUE_TYPE_RX,
				      &id); q++) {
		if (devmem_queue_io_uring(&nl, ifindex, q, &zc) ||
		    devmem_queue_napi_id(&nl, ifindex, q,
					 UP_NETDEV_QUEUE_TYPE_RX, &napi))
			continue;
		snprintf(what, sizeof(what), napi ? " (napi %u)" : "", napi);
		if (id)
			printf("%s rx queue %u%s: dmabuf %u (device memory)\n",
			       ifname, q, what, id);
		else if (zc)
			printf("%s rx queue %u%s: io_uring zero-copy receive, %u-byte buffers\n",
			       ifname, q, what, zc);
		else
			printf("%s rx queue %u%s: host memory\n", ifname, q, what);
	}
	for (q = 0; !devmem_queue_napi_id(&nl, ifindex, q,
					  UP_NETDEV_QUEUE_TYPE_TX, &napi); q++)
		if (napi)
			printf("%s tx queue %u (napi %u)\n", ifname, q, napi);
	devmem_nl_close(&nl);
	return 0;
}

/* Every page pool (netdev page-pool-get dump): what is in flight, what
 * is detached (its device is gone) but still waiting for pages.
 */
int ncdm_show_pools(void)
{
	struct devmem_pool_info pools[512];
	struct devmem_nl nl;
	int i, n;

	if (devmem_nl_open(&nl))
		return 1;
	n = devmem_page_pools(&nl, pools, 512);
	devmem_nl_close(&nl);
	if (n < 0) {
		fprintf(stderr, "page-pool-get: %s\n", strerror(-n));
		return 1;
	}
	for (i = 0; i < n; i++)
		printf("pool %u ifindex %u napi %u inflight %llu (%llu bytes)%s dmabuf %u\n",
		       pools[i].id, pools[i].ifindex, pools[i].napi_id,
		       (unsigned long long)pools[i].inflight,
		       (unsigned long long)pools[i].inflight_mem,
		       pools[i].detach_time ? " detached" : "", pools[i].dmabuf);
	return 0;
}
