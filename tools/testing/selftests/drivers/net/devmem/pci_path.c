// SPDX-License-Identifier: GPL-2.0
/* PCI functions in the PCIe tree, and their P2PDMA distance (pci_path.h). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pci_path.h"

bool pci_is_bdf(const char *s)
{
	unsigned int d, b, dev, fn;
	char end;

	return sscanf(s, "%x:%x:%x.%x%c", &d, &b, &dev, &fn, &end) == 4;
}

int pci_path_of(const char *sysfs, struct pci_path *p)
{
	char real[PATH_MAX], *tok, *save;

	if (!realpath(sysfs, real))
		return -1;
	memset(p, 0, sizeof(*p));
	for (tok = strtok_r(real, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save)) {
		if (!strncmp(tok, "pci", 3) && strchr(tok, ':'))
			snprintf(p->root, sizeof(p->root), "%s", tok);
		else if (p->root[0] && pci_is_bdf(tok) &&
			 p->n < PCI_PATH_MAX_DEPTH)
			snprintf(p->hop[p->n++], sizeof(p->hop[0]), "%s", tok);
	}
	return p->root[0] && p->n ? 0 : -1;
}

void pci_path_print(FILE *out, const struct pci_path *p)
{
	int i;

	fprintf(out, "%s", p->root);
	for (i = 0; i < p->n; i++)
		fprintf(out, " > %s", p->hop[i]);
}

int pci_p2p_distance(const struct pci_path *a, const struct pci_path *b,
		     const char **bridge)
{
	int k = 0;

	if (strcmp(a->root, b->root))
		return -1;
	while (k < a->n && k < b->n && !strcmp(a->hop[k], b->hop[k]))
		k++;
	if (!k)
		return -1;
	*bridge = a->hop[k - 1];
	return (a->n - k) + (b->n - k);
}
