// SPDX-License-Identifier: GPL-2.0
/*
 * hds IFNAME on|off|auto [THRESH]: set tcp-data-split, and hds-thresh if
 * given, over ethtool netlink, which Debian's ethtool 6.1 cannot do.
 * hds IFNAME show: print "tcp-data-split S hds-thresh T hds-thresh-max M"
 * as the kernel reports them. Exits 0, or 1 with the kernel's errno and
 * extack message on stderr.
 */
#include <errno.h>
#include <stdbool.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ethtool_netlink.h>

#include "devmem_nl.h"

static int mode_of(const char *arg)
{
	if (!strcmp(arg, "on"))
		return ETHTOOL_TCP_DATA_SPLIT_ENABLED;
	if (!strcmp(arg, "off"))
		return ETHTOOL_TCP_DATA_SPLIT_DISABLED;
	if (!strcmp(arg, "auto"))
		return ETHTOOL_TCP_DATA_SPLIT_UNKNOWN;
	return -1;
}

int main(int argc, char **argv)
{
	bool show = argc == 3 && !strcmp(argv[2], "show");
	struct ethtool_hds hds;
	struct devmem_nl nl;
	unsigned int ifindex;
	int64_t thresh = -1;
	int err, mode = -1;

	if (argc == 3 || argc == 4)
		mode = mode_of(argv[2]);
	if (!show && mode < 0) {
		fprintf(stderr, "usage: %s IFNAME on|off|auto [HDS_THRESH]\n"
			"       %s IFNAME show\n", argv[0], argv[0]);
		return 2;
	}
	if (argc == 4)
		thresh = (uint32_t)strtoul(argv[3], NULL, 0);
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		perror(argv[1]);
		return 1;
	}
	/* the kernel's extack message comes back in nl.extack */
	err = devmem_nl_open(&nl);
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	if (show)
		err = ethtool_get_hds_all(&nl, ifindex, &hds);
	else
		err = ethtool_set_hds_mode_thresh(&nl, ifindex, mode, thresh);
	if (err && nl.extack[0])
		fprintf(stderr, "%s\n", nl.extack);
	devmem_nl_close(&nl);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", argv[1], argv[2],
			strerror(-err));
		return 1;
	}
	if (show)
		printf("tcp-data-split %lld hds-thresh %lld hds-thresh-max %lld\n",
		       (long long)hds.split, (long long)hds.thresh,
		       (long long)hds.max);
	return 0;
}
