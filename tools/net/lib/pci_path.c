// SPDX-License-Identifier: GPL-2.0
/* PCI functions in the PCIe tree, and their P2PDMA distance (pci_path.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pci_path.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

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
		/* a host bridge below a function (VMD) starts a new tree:
		 * P2PDMA's walk up stops at its root bus
		 */
		if (!strncmp(tok, "pci", 3) && strchr(tok, ':')) {
			snprintf(p->root, sizeof(p->root), "%s", tok);
			p->n = 0;
		} else if (p->root[0] && pci_is_bdf(tok) &&
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

/* A function's config space as sysfs gives it: bytes read, or -errno */
static int config_read(const char *bdf, uint8_t *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf);
	f = fopen(path, "rb");
	if (!f)
		return -errno;
	n = fread(buf, 1, len, f);
	fclose(f);
	return n;
}

static unsigned int le16(const uint8_t *b)
{
	return b[0] | b[1] << 8;
}

static uint32_t le32(const uint8_t *b)
{
	return le16(b) | (uint32_t)le16(b + 2) << 16;
}

#define EXT_CAP_ACS		0x000d
#define ACS_CTRL		6
/* what 6.1's P2PDMA counts as redirect: request and completion
 * redirect, egress control
 */
#define ACS_REDIRECT		(0x0004 | 0x0008 | 0x0020)

int pci_acs_redirect(const char *bdf)
{
	uint8_t cfg[4096];
	unsigned int pos = 0x100, seen = 0;
	int n;

	n = config_read(bdf, cfg, sizeof(cfg));
	if (n < 0)
		return n;
	/* extended capabilities: 4 KiB of config space, read as root */
	if (n < (int)sizeof(cfg))
		return n > 64 ? 0 : -EACCES;
	while (pos >= 0x100 && pos + 8 <= sizeof(cfg) && seen++ < 512) {
		uint32_t hdr = le32(cfg + pos);

		if (!hdr || hdr == 0xffffffff)
			break;
		if ((hdr & 0xffff) == EXT_CAP_ACS)
			return !!(le16(cfg + pos + ACS_CTRL) & ACS_REDIRECT);
		pos = (hdr >> 20) & 0xffc;
	}
	return 0;
}

/* A PCI Express Root Port (capability 0x10, port type 4) */
static bool is_root_port(const char *bdf)
{
	unsigned int pos, seen = 0;
	uint8_t cfg[256];

	if (config_read(bdf, cfg, sizeof(cfg)) != sizeof(cfg) ||
	    !(le16(cfg + 0x06) & 0x10))
		return false;
	for (pos = cfg[0x34] & 0xfc; pos >= 0x40 && seen++ < 48;
	     pos = cfg[pos + 1] & 0xfc)
		if (cfg[pos] == 0x10)
			return ((cfg[pos + 2] >> 4) & 0xf) == 4;
	return false;
}

static unsigned int sysfs_hex(const char *bdf, const char *file)
{
	char path[PATH_MAX];
	unsigned int v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, file);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%x", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * 6.1's P2PDMA host bridge list: the first function of the host bridge's
 * root bus, if it is 00.0 or a Root Port, by vendor and device; some
 * entries hold only when both functions are below that same host bridge.
 */
static const struct {
	unsigned int device;
	bool same_host_bridge;
} listed_bridges[] = {
	{ 0x3c00, true }, { 0x3c01, true },	/* Xeon E5, Core i7 */
	{ 0x2f00, true }, { 0x2f01, true },	/* Xeon E5/E7 v3 */
	{ 0x2030, false }, { 0x2031, false },	/* Skylake-E */
	{ 0x2032, false }, { 0x2033, false },
	{ 0x2020, false }, { 0x09a2, false },
};

static bool host_bridge_listed(const struct pci_path *p, bool same)
{
	char path[PATH_MAX], real[PATH_MAX], *first = NULL;
	unsigned int device;
	struct dirent *de;
	bool ret = false;
	size_t i;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", p->hop[0]);
	if (!realpath(path, real))
		return false;
	dir = opendir(dirname(real));
	if (!dir)
		return false;
	while ((de = readdir(dir)))
		if (pci_is_bdf(de->d_name) &&
		    (!first || strcmp(de->d_name, first) < 0)) {
			free(first);
			first = strdup(de->d_name);
		}
	closedir(dir);
	if (!first)
		return false;
	if (strstr(first, ":00.0") || is_root_port(first)) {
		device = sysfs_hex(first, "device");
		for (i = 0; sysfs_hex(first, "vendor") == 0x8086 &&
		     i < ARRAY_SIZE(listed_bridges); i++)
			if (listed_bridges[i].device == device)
				ret = same || !listed_bridges[i].same_host_bridge;
	}
	free(first);
	return ret;
}

/* AMD Zen (family 17h and later): 6.1's P2PDMA trusts any host bridge */
static bool cpu_trusts_host_bridge(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	bool amd = false, zen = false;
	char line[256];
	int family;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "vendor_id", 9) && strstr(line, "AuthenticAMD"))
			amd = true;
		if (sscanf(line, "cpu family : %d", &family) == 1) {
			zen = family >= 0x17;
			break;
		}
	}
	fclose(f);
	return amd && zen;
}

/* @bdf to the ACS list, "a;b" as pci=disable_acs_redir= takes it */
static void acs_add(struct pci_p2p *r, const char *bdf)
{
	size_t at = strlen(r->acs);

	r->nacs++;
	snprintf(r->acs + at, sizeof(r->acs) - at, "%s%s", at ? ";" : "", bdf);
}

int pci_p2p_check(const struct pci_path *provider,
		  const struct pci_path *client, struct pci_p2p *r)
{
	int k = 0, i, acs;

	memset(r, 0, sizeof(*r));
	r->dist = pci_p2p_distance(provider, client, &r->bridge);
	if (r->dist >= 0) {
		/* as P2PDMA walks: the provider's side up to the common
		 * bridge, that bridge included, then the client's side
		 */
		while (strcmp(provider->hop[k], r->bridge))
			k++;
		for (i = k; i < provider->n; i++) {
			acs = pci_acs_redirect(provider->hop[i]);
			if (acs > 0)
				acs_add(r, provider->hop[i]);
			else if (acs < 0)
				r->acs_unknown = true;
		}
		for (i = k + 1; i < client->n; i++) {
			acs = pci_acs_redirect(client->hop[i]);
			if (acs > 0)
				acs_add(r, client->hop[i]);
			else if (acs < 0)
				r->acs_unknown = true;
		}
		if (!r->nacs) {
			r->way = PCI_P2P_DIRECT;
			return 0;
		}
	}
	if (cpu_trusts_host_bridge())
		r->trusted = true;
	else if (!strcmp(provider->root, client->root))
		r->trusted = host_bridge_listed(provider, true);
	else
		r->trusted = host_bridge_listed(provider, false) &&
			     host_bridge_listed(client, false);
	r->way = r->trusted ? PCI_P2P_HOST_BRIDGE : PCI_P2P_NONE;
	return 0;
}
