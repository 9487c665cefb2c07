/* SPDX-License-Identifier: GPL-2.0 */
/* ncdevmem --pair (ncdevmem_pair.c): NICs and device memory in the PCIe tree */
#ifndef NCDEVMEM_PAIR_H
#define NCDEVMEM_PAIR_H

#include <stdbool.h>

/* Print each PCI NIC's path to the memory's owner and whether it reaches
 * it peer to peer; with @pick, put the closest such NIC in @ifname. 0, or
 * -ENODEV.
 */
#define IFNAMSIZ_PAIR	16
int pair_nic(const char *memory, const char *owner, bool pick, char *ifname);

#endif /* NCDEVMEM_PAIR_H */
