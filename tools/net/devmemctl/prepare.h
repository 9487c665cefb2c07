/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmemctl prepare and release (prepare.c): what prepare changed on a
 * device (struct prep, kept in a state file until release), and the two
 * commands.
 */
#ifndef DEVMEMCTL_PREPARE_H
#define DEVMEMCTL_PREPARE_H

#include <stdint.h>

#include "devmem_nl.h"
#include "request.h"

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

int do_prepare(struct devmem_nl *nl, const struct request *req);
int do_release(struct devmem_nl *nl, const struct request *req);

#endif /* DEVMEMCTL_PREPARE_H */
