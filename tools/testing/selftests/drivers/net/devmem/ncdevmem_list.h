/* SPDX-License-Identifier: GPL-2.0 */
/* ncdevmem's listing modes (ncdevmem_list.c): 0, or 1 on error. */
#ifndef NCDEVMEM_LIST_H
#define NCDEVMEM_LIST_H

/* --show-queues: each RX queue of @ifname and its memory, its NAPI */
int ncdm_show_queues(const char *ifname);
/* --pools: every page pool, in flight and detached */
int ncdm_show_pools(void);

#endif
