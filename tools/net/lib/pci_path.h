/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A PCI function's place in the PCIe tree, and whether two functions reach
 * each other peer to peer as 6.1's P2PDMA decides it (drivers/pci/p2pdma.c):
 * below a common bridge (one PCIe switch, or one root port) they do;
 * otherwise the traffic crosses the host bridge, which 6.1 trusts only on
 * a short list of Intel host bridges and on AMD Zen CPUs. ncdevmem --pair
 * and devmemctl check --owner read it.
 */
#ifndef PCI_PATH_H
#define PCI_PATH_H

#include <stdbool.h>
#include <stdio.h>

#define PCI_PATH_MAX_DEPTH	16

/* The host bridge ("pci0000:00") and the functions from the root port
 * (or root complex endpoint) down to the function.
 */
struct pci_path {
	char root[16];
	char hop[PCI_PATH_MAX_DEPTH][16];
	int n;
};

/* "DDDD:BB:DD.F" */
bool pci_is_bdf(const char *s);
/* The path of the PCI function whose sysfs directory is @sysfs (or a link
 * to it, e.g. /sys/class/net/IFACE/device): 0, or -1 if it is not one.
 */
int pci_path_of(const char *sysfs, struct pci_path *p);
/* "pci0000:00 > 0000:00:1c.0 > ..." */
void pci_path_print(FILE *out, const struct pci_path *p);
/*
 * Hops from @a and @b up to their closest common bridge, that bridge in
 * *@bridge; -1 if they have none (the path crosses the host bridge).
 */
int pci_p2p_distance(const struct pci_path *a, const struct pci_path *b,
		     const char **bridge);

/*
 * ACS redirect (request or completion redirect, egress control) on
 * function @bdf: 1, 0, or -errno (-EACCES: its extended config space needs
 * root)
 */
int pci_acs_redirect(const char *bdf);

/* How 6.1's P2PDMA maps a provider's memory for a client */
enum pci_p2p_way {
	PCI_P2P_DIRECT,		/* below a common bridge, no ACS redirect */
	PCI_P2P_HOST_BRIDGE,	/* up through a host bridge it trusts */
	PCI_P2P_NONE,		/* refused: a bind gets EREMOTEIO */
};

struct pci_p2p {
	enum pci_p2p_way way;
	int dist;		/* hops to the common bridge, -1: none */
	const char *bridge;	/* that bridge, in the provider's path */
	char acs[160];		/* functions on the way with ACS redirect */
	int nacs;
	bool acs_unknown;	/* some config space was not readable */
	bool trusted;		/* AMD Zen, or host bridges on 6.1's list */
};

/* @r for @provider's memory written by @client: 0 */
int pci_p2p_check(const struct pci_path *provider,
		  const struct pci_path *client, struct pci_p2p *r);

#endif /* PCI_PATH_H */
