/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmemctl: what the command line asks of prepare, release and check
 * (devmemctl.c fills it in); a type of its own, so that neither of them
 * depends on the command line.
 */
#ifndef DEVMEMCTL_REQUEST_H
#define DEVMEMCTL_REQUEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "netcfg.h"

#define DEVMEMCTL_MAX_FLOWS	16

struct request {
	const char *ifname;
	int queues;			/* how many (the last), 0: not given */
	struct netcfg_flow flows[DEVMEMCTL_MAX_FLOWS];
	int nflows;
	bool try_bind;
	uint64_t size;			/* dmabuf size to check, 0: none */
	uint64_t zcrx_area;		/* zcrx host area to check, 0: none */
	pid_t pid;			/* whose memlock limit, 0: ours */
	const char *owner;		/* check: device memory's PCI function */
	const char *config;		/* apply: the config file */
};

#endif /* DEVMEMCTL_REQUEST_H */
