/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmemctl: prepare, check and show a NIC for device memory TCP.
 *
 * The NIC as devmemctl reads it (struct nic), what prepare changed
 * (struct prep, kept in a state file until release), the flows it steers
 * (struct netcfg_flow, parsed from ethtool's words).
 */
#ifndef DEVMEMCTL_H
#define DEVMEMCTL_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "devmem_nl.h"
#include "netcfg.h"
#include "pci_path.h"

#define DEVMEMCTL_MAX_FLOWS	16

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

/* What prepare changed on one device; release takes it back. */
struct prep {
	int ifindex;
	int first, count;		/* the device-memory queues */
	int hds;			/* split before, -1: unchanged */
	int64_t hds_thresh;		/* before, -1: unchanged */
	int ntuple;			/* before, -1: unchanged */
	uint32_t *indir;		/* default table before, NULL: kept */
	int nindir;
	uint32_t ctx;			/* RSS context made, 0: none */
	int rules[DEVMEMCTL_MAX_FLOWS];	/* locations of the rules added */
	int nrules;
};

/* The state file of @ifname: 0, -ENOENT if there is none, or -errno. */
int prep_load(const char *ifname, struct prep *p);
int prep_save(const char *ifname, const struct prep *p);
int prep_remove(const char *ifname);
/* The state directory's lock, held to the process's end: fd or -errno */
int prep_lock(void);
void prep_free(struct prep *p);

/* Flows in ethtool's words: tcp4|tcp6 [src-ip A] [dst-ip A] [src-port P]
 * [dst-port P]; 0 or -EINVAL with the reason in @why.
 */
int flow_parse(char *words, struct netcfg_flow *f, char *why, size_t len);
/* The same words back */
void flow_format(const struct netcfg_flow *f, char *buf, size_t len);
/* true if rule @r takes every packet of flow @f */
bool flow_covers(const struct netcfg_flow *r, const struct netcfg_flow *f);

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

int do_prepare(struct devmem_nl *nl, const struct request *req);
int do_release(struct devmem_nl *nl, const struct request *req);
int do_check(struct devmem_nl *nl, const struct request *req);

#endif /* DEVMEMCTL_H */
