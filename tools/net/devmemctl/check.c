// SPDX-License-Identifier: GPL-2.0
/*
 * devmemctl check: every reason, that the kernel shows, why a flow's
 * payload would land in host memory or a bind would fail, each with the
 * command that removes it. Reasons are named by a tag ("hds-off") that
 * stays the same across versions, for scripts.
 *
 * The device-memory queues are the ones asked for (--queues N: the last
 * N), else the ones devmemctl prepared, else the ones bound now.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <linux/capability.h>
#include <linux/ethtool_netlink.h>
#include <linux/udmabuf.h>

#include "check.h"
#include "flow.h"
#include "nic.h"
#include "pci_path.h"
#include "prepare.h"

struct checker {
	const struct nic *nic;
	bool *dm;		/* the device-memory queues */
	int reasons;
};

static void reason(struct checker *c, const char *tag, const char *fix,
		   const char *fmt, ...)
{
	va_list ap;

	if (!c->reasons++)
		printf("%s: payload would land in host memory, or a bind fail:\n",
		       c->nic->name);
	printf("  [%s] ", tag);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (fix)
		printf("      fix: %s\n", fix);
}

static void check_split(struct checker *c)
{
	const struct nic *nic = c->nic;
	char fix[128], fix0[128];

	snprintf(fix, sizeof(fix), "devmemctl set %s tcp-data-split on",
		 nic->name);
	snprintf(fix0, sizeof(fix0), "devmemctl set %s hds-thresh 0",
		 nic->name);
	if (nic->hds.split < 0 ||
	    nic->hds.split == ETHTOOL_TCP_DATA_SPLIT_UNKNOWN)
		reason(c, "hds-unsupported", NULL,
		       "the driver reports no header split (tcp-data-split): headers and payload share host buffers");
	else if (nic->hds.split != ETHTOOL_TCP_DATA_SPLIT_ENABLED)
		reason(c, "hds-off", fix,
		       "header split (tcp-data-split) is off: every payload byte lands in host memory, and bind-rx fails");
	if (nic->hds.thresh > 0)
		reason(c, "hds-thresh", fix0,
		       "hds-thresh is %lld: packets of up to %lld bytes are not split, their payload lands in host memory",
		       (long long)nic->hds.thresh, (long long)nic->hds.thresh);
}

/* queues of @set as "a-b,c" */
static void queue_list(const struct nic *nic, const bool *set, char *buf,
		       size_t len)
{
	size_t n = 0;
	int q, end;

	buf[0] = '\0';
	for (q = 0; q < nic->nrx && n < len; q++) {
		if (!set[q])
			continue;
		for (end = q; end + 1 < nic->nrx && set[end + 1]; end++)
			;
		if (end == q)
			n += snprintf(buf + n, len - n, "%s%d", n ? "," : "", q);
		else
			n += snprintf(buf + n, len - n, "%s%d-%d", n ? "," : "",
				      q, end);
		q = end;
	}
}

/* A device-memory queue that RSS in the default context spreads onto */
static void check_default_rss(struct checker *c)
{
	const struct nic *nic = c->nic;
	bool *hit;
	char list[128], fix[160];
	int i, first = nic->nrx;

	if (!nic->indir || nic->nrx < 2)
		return;
	hit = calloc(nic->nrx, sizeof(*hit));
	if (!hit)
		return;
	for (i = 0; i < nic->nindir; i++) {
		if (nic->indir[i] < (uint32_t)nic->nrx && c->dm[nic->indir[i]])
			hit[nic->indir[i]] = true;
	}
	for (i = 0; i < nic->nrx; i++) {
		if (c->dm[i] && i < first)
			first = i;
	}
	queue_list(nic, hit, list, sizeof(list));
	snprintf(fix, sizeof(fix), "ethtool -X %s equal %d", nic->name, first);
	if (list[0])
		reason(c, "rss-default", first ? fix : NULL,
		       "device-memory queue(s) %s are in the default RSS context: other connections hashed there land in device memory, and a plain recv() on them fails with EFAULT",
		       list);
	free(hit);
}

static void check_flow(struct checker *c, const struct netcfg_flow *f)
{
	const struct nic *nic = c->nic;
	const struct netcfg_rule *r;
	char text[160], list[128], fix[400];
	bool *to, *off;
	int q, nto = 0, noff = 0, nunbound = 0;

	to = calloc(nic->nrx, sizeof(*to));
	off = calloc(nic->nrx, sizeof(*off));
	if (!to || !off)
		goto out;
	flow_format(f, text, sizeof(text));
	r = nic_flow_queues(nic, f, to);
	if (r && r->queue < 0) {
		reason(c, "flow-dropped", NULL,
		       "flow %s: rule %d drops it", text, r->location);
		goto out;
	}
	for (q = 0; q < nic->nrx; q++) {
		if (!to[q])
			continue;
		nto++;
		if (!c->dm[q]) {
			off[q] = true;
			noff++;
		} else if (!nic_queue_bound(nic, q)) {
			nunbound++;
		}
	}
	queue_list(nic, off, list, sizeof(list));
	snprintf(fix, sizeof(fix),
		 "devmemctl prepare %s --flow '%s' (or ethtool -N %s flow-type %s ... action Q)",
		 nic->name, text, nic->name,
		 f->family == AF_INET6 ? "tcp6" : "tcp4");
	if (noff && !r && nic->nrx > 1)
		reason(c, "flow-unsteered", fix,
		       "flow %s: no steering rule takes it%s; RSS spreads it over queues %s, which are not device-memory queues",
		       text, nic->ntuple > 0 ? "" : " (ntuple filtering is off)",
		       list);
	else if (noff)
		reason(c, "flow-host-queue", fix,
		       "flow %s: %s%d steers it to queue(s) %s, which are not device-memory queues",
		       text, r ? "rule " : "", r ? r->location : 0, list);
	if (nto && !noff && nunbound)
		printf("%s: flow %s: its queues have no binding yet (the application binds them)\n",
		       nic->name, text);
out:
	free(to);
	free(off);
}

static void check_xdp(struct checker *c)
{
	char fix[96];

	snprintf(fix, sizeof(fix), "ip link set dev %s xdp off", c->nic->name);
	if (c->nic->xdp > 0)
		reason(c, "xdp", fix,
		       "an XDP program is attached: bind-rx refuses the device");
}

/* udmabuf's own limit on one buffer, in MiB (module parameter) */
static void check_udmabuf(struct checker *c, uint64_t size)
{
	char fix[128];
	long mib = -1;
	FILE *f;

	f = fopen("/sys/module/udmabuf/parameters/size_limit_mb", "r");
	if (f) {
		if (fscanf(f, "%ld", &mib) != 1)
			mib = -1;
		fclose(f);
	}
	snprintf(fix, sizeof(fix),
		 "echo %llu > /sys/module/udmabuf/parameters/size_limit_mb",
		 (unsigned long long)((size + (1 << 20) - 1) >> 20));
	if (mib >= 0 && size > (uint64_t)mib << 20)
		reason(c, "udmabuf-limit", fix,
		       "a udmabuf of %llu bytes is over udmabuf's size_limit_mb (%ld MiB): its creation fails with EINVAL",
		       (unsigned long long)size, mib);
}

/* What the application may still pin, as io_uring will count it */
struct memlock {
	uid_t uid;		/* real uid: io_uring charges its user */
	bool ipc_lock;		/* CAP_IPC_LOCK: nothing is charged */
	struct rlimit lim;	/* RLIMIT_MEMLOCK */
	uint64_t pinned;	/* bytes the uid's processes pin now */
	char comm[32];
};

/* A "Key:" line of /proc/PID/status, its first word */
static int status_word(pid_t pid, const char *key, char *out, size_t len)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		if (sscanf(line + klen + 1, "%31s", out) == 1 && len > 31)
			ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* VmPin of every process of @uid: what their mms pin, in bytes */
static uint64_t uid_pinned(uid_t uid)
{
	char word[32];
	uint64_t sum = 0;
	glob_t g;
	size_t i;

	if (glob("/proc/[0-9]*", GLOB_NOSORT, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc; i++) {
		pid_t pid = atoi(g.gl_pathv[i] + 6);

		if (status_word(pid, "Uid", word, sizeof(word)) ||
		    (uid_t)strtoul(word, NULL, 10) != uid ||
		    status_word(pid, "VmPin", word, sizeof(word)))
			continue;
		sum += strtoull(word, NULL, 10) << 10;
	}
	globfree(&g);
	return sum;
}

/* One limit's value in /proc/PID/limits: a number or "unlimited" */
static rlim_t limit_value(const char *word)
{
	return strcmp(word, "unlimited") ? strtoull(word, NULL, 10) :
					   RLIM_INFINITY;
}

/* RLIMIT_MEMLOCK of any process, as /proc/PID/limits shows it to all */
static int memlock_limits(pid_t pid, struct rlimit *lim)
{
	char path[64], line[256], cur[32], max[32];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Max locked memory ", 18) ||
		    sscanf(line + 18, "%31s %31s", cur, max) != 2)
			continue;
		lim->rlim_cur = limit_value(cur);
		lim->rlim_max = limit_value(max);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

static int memlock_read(pid_t pid, struct memlock *m)
{
	char word[32], path[64];
	FILE *f;

	if (status_word(pid, "Uid", word, sizeof(word)))
		return -ESRCH;
	m->uid = strtoul(word, NULL, 10);
	if (status_word(pid, "CapEff", word, sizeof(word)))
		return -ESRCH;
	m->ipc_lock = strtoull(word, NULL, 16) & (1ULL << CAP_IPC_LOCK);
	if (memlock_limits(pid, &m->lim))
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	m->comm[0] = 0;
	f = fopen(path, "r");
	if (f) {
		if (fgets(m->comm, sizeof(m->comm), f))
			m->comm[strcspn(m->comm, "\n")] = 0;
		fclose(f);
	}
	m->pinned = uid_pinned(m->uid);
	return 0;
}

/*
 * io_uring zcrx with an area of host memory: the area is pinned and
 * charged to the registering process's user against its RLIMIT_MEMLOCK
 * (unless the ring's creator has CAP_IPC_LOCK); over it, the
 * registration fails with ENOMEM. The user's charge is not shown by the
 * kernel: the VmPin of its processes stands for it. The refill ring is
 * charged too: the fix leaves room for the largest one.
 */
#define ZCRX_RING_MAX	(32768 * 16 + 4096)	/* entries of 16 bytes, head */
static void check_memlock(struct checker *c, uint64_t area, pid_t pid)
{
	char fix[160], who[64], hard[24];
	uint64_t need, soft;
	struct memlock m;
	int err;

	err = memlock_read(pid, &m);
	if (err) {
		printf("%s: --pid %d: cannot read its limits: %s\n",
		       c->nic->name, (int)pid, strerror(-err));
		c->reasons++;
		return;
	}
	if (m.ipc_lock || m.lim.rlim_cur == RLIM_INFINITY)
		return;
	need = (area + getpagesize() - 1) & ~((uint64_t)getpagesize() - 1);
	snprintf(who, sizeof(who), "pid %d (%s, uid %u)", (int)pid, m.comm,
		 (unsigned int)m.uid);
	soft = need + m.pinned + ZCRX_RING_MAX;
	if (m.lim.rlim_max == RLIM_INFINITY)
		snprintf(hard, sizeof(hard), "unlimited");
	else
		snprintf(hard, sizeof(hard), "%llu",
			 (unsigned long long)(m.lim.rlim_max > soft ?
					      m.lim.rlim_max : soft));
	snprintf(fix, sizeof(fix),
		 "prlimit --pid %d --memlock=%llu:%s, or LimitMEMLOCK= in its unit",
		 (int)pid, (unsigned long long)soft, hard);
	if (need > m.lim.rlim_cur)
		reason(c, "memlock", fix,
		       "a zcrx area of %llu bytes is over the RLIMIT_MEMLOCK of %s, %llu bytes: its registration fails with ENOMEM",
		       (unsigned long long)need, who,
		       (unsigned long long)m.lim.rlim_cur);
	else if (need + m.pinned > m.lim.rlim_cur)
		reason(c, "memlock", fix,
		       "a zcrx area of %llu bytes and the %llu bytes uid %u's processes pin now are over the RLIMIT_MEMLOCK of %s, %llu bytes: its registration fails with ENOMEM",
		       (unsigned long long)need,
		       (unsigned long long)m.pinned, (unsigned int)m.uid,
		       who, (unsigned long long)m.lim.rlim_cur);
}

/* The interfaces that reach the PCI function at @own peer to peer, into
 * @buf ("" if none)
 */
static void near_nics(const struct pci_path *own, char *buf, size_t len)
{
	struct pci_path p;
	size_t i, at = 0;
	struct pci_p2p r;
	glob_t g;

	buf[0] = '\0';
	if (glob("/sys/class/net/*/device", 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc && at < len; i++) {
		const char *name = g.gl_pathv[i] + strlen("/sys/class/net/");
		int n = strchr(name, '/') - name;

		if (pci_path_of(g.gl_pathv[i], &p) ||
		    pci_p2p_check(own, &p, &r) || r.way != PCI_P2P_DIRECT)
			continue;
		at += snprintf(buf + at, len - at, "%s%.*s", at ? ", " : "",
			       n, name);
	}
	globfree(&g);
}

/*
 * The device memory's PCI function (--owner, its path in @own) and the
 * NIC, as 6.1's P2PDMA judges them: below a common PCIe switch or root
 * port with no ACS redirect on the way, the NIC writes the memory peer to
 * peer; up through the host bridge P2PDMA refuses the bind (EREMOTEIO)
 * unless it trusts the bridge (AMD Zen, a short list of Intel ones). A
 * NIC that is no PCI function (hdsim, veth) reaches no BAR at all.
 */
static void check_p2p(struct checker *c, const char *owner,
		      const struct pci_path *own)
{
	const char *name = c->nic->name;
	char sysfs[PATH_MAX], fix[320], near[128];
	struct pci_path nic;
	struct pci_p2p r;

	snprintf(sysfs, sizeof(sysfs), "/sys/class/net/%s/device", name);
	if (pci_path_of(sysfs, &nic)) {
		reason(c, "p2p-not-pci", NULL,
		       "%s is no PCI function: it cannot write the memory of %s peer to peer (a bind of it gets EREMOTEIO)",
		       name, owner);
		return;
	}
	pci_p2p_check(own, &nic, &r);
	if (r.acs_unknown)
		printf("%s: ACS of the PCIe path not read (its config space needs root)\n",
		       name);
	if (r.way == PCI_P2P_DIRECT)
		return;
	if (r.nacs && r.way == PCI_P2P_HOST_BRIDGE) {
		printf("%s: ACS redirect on %s: up through the host bridge, ",
		       name, r.acs);
		printf("which P2PDMA trusts here; the direct path needs pci=disable_acs_redir=%s\n",
		       r.acs);
		return;
	}
	if (r.nacs) {
		snprintf(fix, sizeof(fix),
			 "boot with pci=disable_acs_redir=%s (or ACS off for that port in the firmware)",
			 r.acs);
		reason(c, "p2p-acs-redirect", fix,
		       "%s and %s are below %s, but ACS redirect on %s sends the payload up to the host bridge, which 6.1's P2PDMA does not trust here (a bind gets EREMOTEIO)",
		       name, owner, r.bridge, r.acs);
	} else if (r.way == PCI_P2P_NONE) {
		near_nics(own, near, sizeof(near));
		if (near[0])
			snprintf(fix, sizeof(fix),
				 "a NIC below a switch or root port with %s: %s",
				 owner, near);
		else
			snprintf(fix, sizeof(fix),
				 "a NIC below a switch or root port with %s (none here)",
				 owner);
		reason(c, "p2p-host-bridge", fix,
		       "%s and %s share no PCIe switch or root port: the payload would cross the host bridge, which 6.1's P2PDMA trusts only on some Intel Xeon host bridges (else a bind gets EREMOTEIO)",
		       name, owner);
	} else {
		return;
	}
	printf("      %s: ", name);
	pci_path_print(stdout, &nic);
	printf("\n      %s: ", owner);
	pci_path_print(stdout, own);
	printf("\n");
}

/* A 2 MiB udmabuf to try bind-rx with */
static int small_dmabuf(void)
{
	struct udmabuf_create create = { .size = 2 << 20 };
	int dev, memfd, fd = -1;

	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -errno;
	memfd = memfd_create("devmemctl", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (memfd >= 0 && !ftruncate(memfd, create.size) &&
	    !fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		create.memfd = memfd;
		fd = ioctl(dev, UDMABUF_CREATE, &create);
	}
	if (fd < 0)
		fd = -errno;
	if (memfd >= 0)
		close(memfd);
	close(dev);
	return fd;
}

/* bind-rx on each device-memory queue, unbound at once: the kernel's word */
static void check_bind(struct checker *c)
{
	const struct nic *nic = c->nic;
	struct devmem_queue one = { .type = UP_NETDEV_QUEUE_TYPE_RX };
	struct devmem_nl nl;
	uint32_t id;
	int q, fd, err;

	fd = small_dmabuf();
	if (fd < 0) {
		printf("%s: --try-bind: no udmabuf to try with (%s)\n",
		       nic->name, strerror(-fd));
		return;
	}
	for (q = 0; q < nic->nrx; q++) {
		if (!c->dm[q] || nic_queue_bound(nic, q))
			continue;
		err = devmem_nl_open(&nl);
		if (err)
			break;
		one.id = q;
		err = devmem_bind_rx(&nl, nic->ifindex, fd, &one, 1, &id);
		if (err)
			reason(c, "bind-refused", NULL,
			       "queue %d: bind-rx fails: %s%s%s", q,
			       strerror(-err), nl.extack[0] ? ": " : "",
			       nl.extack);
		/* closing the socket unbinds */
		devmem_nl_close(&nl);
	}
	close(fd);
}

int do_check(struct devmem_nl *nl, const struct request *req)
{
	struct checker c = {};
	struct pci_path own;
	char list[128];
	struct prep p;
	struct nic nic;
	int q, i, ndm = 0;

	if (nic_read(nl, req->ifname, &nic)) {
		fprintf(stderr, "%s: no such interface\n", req->ifname);
		return 2;
	}
	if (req->owner) {
		char sysfs[PATH_MAX];

		snprintf(sysfs, sizeof(sysfs), "/sys/bus/pci/devices/%s",
			 req->owner);
		if (pci_path_of(sysfs, &own)) {
			fprintf(stderr, "--owner %s: no such PCI function here\n",
				req->owner);
			nic_free(&nic);
			return 2;
		}
	}
	c.nic = &nic;
	c.dm = calloc(nic.nrx ? nic.nrx : 1, sizeof(*c.dm));
	if (!c.dm) {
		nic_free(&nic);
		return 2;
	}
	if (req->queues > nic.nrx) {
		fprintf(stderr, "%s: has %d RX queues, not %d\n", nic.name,
			nic.nrx, req->queues);
		free(c.dm);
		nic_free(&nic);
		return 2;
	}
	if (req->queues) {
		for (q = nic.nrx - req->queues; q < nic.nrx; q++)
			c.dm[q] = true;
	} else if (!prep_load(nic.name, &p)) {
		for (q = p.first; q < p.first + p.count && q < nic.nrx; q++)
			c.dm[q] = true;
		prep_free(&p);
	} else {
		for (q = 0; q < nic.nrx; q++)
			c.dm[q] = nic_queue_bound(&nic, q);
	}
	for (q = 0; q < nic.nrx; q++)
		ndm += c.dm[q];
	queue_list(&nic, c.dm, list, sizeof(list));

	check_split(&c);
	check_xdp(&c);
	if (!ndm)
		reason(&c, "no-queues", NULL,
		       "no device-memory queue: none asked (--queues), none prepared, none bound");
	else
		check_default_rss(&c);
	for (i = 0; ndm && i < req->nflows; i++)
		check_flow(&c, &req->flows[i]);
	if (req->size)
		check_udmabuf(&c, req->size);
	if (req->zcrx_area)
		check_memlock(&c, req->zcrx_area, req->pid ? req->pid : getpid());
	if (req->owner)
		check_p2p(&c, req->owner, &own);
	if (req->try_bind && ndm)
		check_bind(&c);

	if (!c.reasons)
		printf("%s: ok: device-memory queues %s%s\n", nic.name,
		       ndm ? list : "none",
		       req->nflows ? ", every flow given steered to them" : "");
	else
		printf("%s: %d reason(s)\n", nic.name, c.reasons);
	free(c.dm);
	nic_free(&nic);
	return c.reasons ? 1 : 0;
}
