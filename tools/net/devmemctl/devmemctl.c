// SPDX-License-Identifier: GPL-2.0
/*
 * devmemctl: prepare a NIC for device memory TCP and io_uring zero-copy
 * receive, check why a flow's payload would land in host memory, and show
 * the live state. See help() and Documentation/networking/devmem.rst.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/ethtool_netlink.h>

#include "check.h"
#include "flow.h"
#include "nic.h"
#include "pci_path.h"
#include "prepare.h"
#include "request.h"

static void help(FILE *out)
{
	fprintf(out,
		"usage: devmemctl prepare IFACE [--queues N] [--flow FLOW]...\n"
		"       devmemctl release IFACE\n"
		"       devmemctl apply IFACE [--config FILE]\n"
		"       devmemctl check IFACE [--queues N] [--flow FLOW]... [--size BYTES]\n"
		"                           [--owner PCI_ADDR] [--try-bind]\n"
		"                           [--zcrx-area BYTES [--pid PID]]\n"
		"       devmemctl show [IFACE]\n"
		"       devmemctl set IFACE [tcp-data-split on|off|auto] [hds-thresh N]\n"
		"\n"
		"prepare  header split on, hds-thresh 0, the last N RX queues (default 1)\n"
		"         out of the default RSS context, each FLOW steered to them;\n"
		"         what it changes is kept in /run/devmem-tcp/IFACE\n"
		"release  undo exactly what prepare did (refused while a queue is bound)\n"
		"apply    prepare as /etc/devmem-tcp/IFACE.conf says (\"queues N\", one\n"
		"         \"flow FLOW\" line per flow), after releasing an earlier\n"
		"         prepare: what devmem-tcp@IFACE.service runs at boot\n"
		"check    name every reason payload would land in host memory or a bind\n"
		"         fail, with its fix; exit 1 if there is one. --size: a udmabuf\n"
		"         of that size; --owner: the PCI function whose memory the dmabuf\n"
		"         is (a GPU), reached peer to peer or not; --try-bind: bind a\n"
		"         2 MiB udmabuf to each queue and unbind (restarts the queues);\n"
		"         --zcrx-area: an io_uring zcrx area of host memory of that size,\n"
		"         registered by process PID (default: devmemctl itself): its\n"
		"         RLIMIT_MEMLOCK\n"
		"show     bindings, queues, page pools and steering; the sockets of\n"
		"         this namespace that hold tokens, how many, and their process\n"
		"set      header split and its threshold (ethtool -G of Debian 12\n"
		"         knows neither)\n"
		"\n"
		"FLOW, in ethtool -N's words: 'tcp4|tcp6 [src-ip A] [dst-ip A]\n"
		"     [src-port P] dst-port P'\n"
		"exit: 0 done (check: no reason), 1 refused or reasons found, 2 usage\n");
}

static const char *split_name(int64_t split)
{
	switch (split) {
	case ETHTOOL_TCP_DATA_SPLIT_DISABLED:
		return "off";
	case ETHTOOL_TCP_DATA_SPLIT_ENABLED:
		return "on";
	case ETHTOOL_TCP_DATA_SPLIT_UNKNOWN:
		return "unknown";
	}
	return "not reported";
}

/* The queues of the default RSS context, per queue */
static bool in_default_rss(const struct nic *nic, int q)
{
	int i;

	for (i = 0; i < nic->nindir; i++)
		if (nic->indir[i] == (uint32_t)q)
			return true;
	return !nic->indir && q == 0;
}

static void show_pools(struct devmem_nl *nl, const struct nic *nic)
{
	struct devmem_pool_info pools[256];
	int i, q, n;

	n = devmem_page_pools(nl, pools, 256);
	for (i = 0; i < n; i++) {
		const struct devmem_pool_info *pp = &pools[i];

		if (pp->ifindex != (uint32_t)nic->ifindex ||
		    (!pp->dmabuf && !pp->io_uring_buf))
			continue;
		for (q = 0; q < nic->nrx; q++)
			if (pp->napi_id && nic->q[q].napi == pp->napi_id)
				break;
		printf("  page pool %u: ", pp->id);
		if (q < nic->nrx)
			printf("queue %d, ", q);
		if (pp->dmabuf)
			printf("dmabuf %u, ", pp->dmabuf);
		else
			printf("io_uring zcrx, ");
		printf("%llu buffers in flight (%llu bytes)%s\n",
		       (unsigned long long)pp->inflight,
		       (unsigned long long)pp->inflight_mem,
		       pp->detach_time ? ", detached" : "");
	}
}

/* What readers of device memory got in host memory, per queue */
static void show_host_copies(struct devmem_nl *nl, const struct nic *nic)
{
	struct devmem_host_stats *st;
	int i, n;

	st = calloc(nic->nrx ? nic->nrx : 1, sizeof(*st));
	if (!st)
		return;
	n = devmem_host_stats_dump(nl, nic->ifindex, st, nic->nrx);
	if (n < 0)
		printf("  host-memory copies: not counted by this kernel (%s)\n",
		       strerror(-n));
	for (i = 0; i < n && i < nic->nrx; i++) {
		if (!st[i].devmem_copies && !st[i].zcrx_copies)
			continue;
		printf("  rx queue %u: payload readers got in host memory: ",
		       st[i].queue);
		printf("devmem %llu bytes in %llu copies, zcrx %llu bytes in %llu copies\n",
		       (unsigned long long)st[i].devmem_bytes,
		       (unsigned long long)st[i].devmem_copies,
		       (unsigned long long)st[i].zcrx_bytes,
		       (unsigned long long)st[i].zcrx_copies);
	}
	free(st);
}

static int show_one(struct devmem_nl *nl, const char *ifname)
{
	struct nic nic;
	struct prep p;
	char text[160];
	int q, i;

	if (nic_read(nl, ifname, &nic)) {
		fprintf(stderr, "%s: no such interface\n", ifname);
		return 2;
	}
	printf("%s (ifindex %d): tcp-data-split %s", nic.name, nic.ifindex,
	       split_name(nic.hds.split));
	if (nic.hds.thresh >= 0)
		printf(", hds-thresh %lld", (long long)nic.hds.thresh);
	printf(", ntuple %s, %d RX queues%s\n",
	       nic.ntuple < 0 ? "n/a" : nic.ntuple ? "on" : "off", nic.nrx,
	       nic.xdp > 0 ? ", XDP attached" : "");
	for (q = 0; q < nic.nrx; q++) {
		printf("  rx queue %d:", q);
		if (nic.q[q].napi)
			printf(" napi %u,", nic.q[q].napi);
		if (nic.q[q].dmabuf)
			printf(" dmabuf %u,", nic.q[q].dmabuf);
		if (nic.q[q].io_uring)
			printf(" io_uring zcrx (buffers of %u bytes),",
			       nic.q[q].io_uring);
		if (!nic_queue_bound(&nic, q))
			printf(" host memory,");
		printf(" %s\n", in_default_rss(&nic, q) ? "default RSS" :
		       "out of the default RSS");
	}
	show_host_copies(nl, &nic);
	show_pools(nl, &nic);
	for (i = 0; i < nic.nrules; i++) {
		const struct netcfg_rule *r = &nic.rules[i];

		flow_format(&r->flow, text, sizeof(text));
		if (r->queue < 0)
			printf("  rule %d: %s -> drop\n", r->location, text);
		else if (r->to_ctx)
			printf("  rule %d: %s -> RSS context %u (+%lld)\n",
			       r->location, text, r->ctx, (long long)r->queue);
		else
			printf("  rule %d: %s -> queue %lld\n", r->location,
			       text, (long long)r->queue);
	}
	if (!prep_load(nic.name, &p)) {
		printf("  prepared by devmemctl: queues %d-%d", p.first,
		       p.first + p.count - 1);
		if (p.ctx)
			printf(", RSS context %u", p.ctx);
		printf(", %d rule(s)\n", p.nrules);
		prep_free(&p);
	}
	nic_free(&nic);
	return 0;
}

/* "PID (COMM)" of the process whose comm file is @path */
static void comm_of(const char *path, const char *pid, char *buf, size_t len)
{
	char comm[32] = "?";
	FILE *f = fopen(path, "r");

	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	snprintf(buf, len, "pid %.12s (%.16s)", pid, comm);
}

/* The process that has socket inode @ino open: its pid and comm in @buf */
static void socket_owner(uint64_t ino, char *buf, size_t len)
{
	char want[40], link[64], path[PATH_MAX];
	struct dirent *p, *f;
	DIR *proc, *fds;
	ssize_t n;

	snprintf(buf, len, "no process");
	snprintf(want, sizeof(want), "socket:[%llu]", (unsigned long long)ino);
	proc = opendir("/proc");
	if (!proc)
		return;
	while ((p = readdir(proc))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s",
				 p->d_name, f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = 0;
			if (strcmp(link, want))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/comm",
				 p->d_name);
			comm_of(path, p->d_name, buf, len);
			closedir(fds);
			closedir(proc);
			return;
		}
		closedir(fds);
	}
	closedir(proc);
}

/* Every TCP socket of this namespace that holds tokens, and how many */
static void show_socks(struct devmem_nl *nl)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], owner[64];
	struct devmem_sock_tokens st[256];
	int i, n;

	n = devmem_sock_tokens_dump(nl, st, 256);
	if (n < 0) {
		printf("sockets holding tokens: not listed by this kernel (%s)\n",
		       strerror(-n));
		return;
	}
	if (!n)
		return;
	printf("sockets holding tokens (this namespace):\n");
	for (i = 0; i < n && i < 256; i++) {
		inet_ntop(st[i].family, st[i].saddr, src, sizeof(src));
		inet_ntop(st[i].family, st[i].daddr, dst, sizeof(dst));
		socket_owner(st[i].inode, owner, sizeof(owner));
		printf("  %s%s%s:%u <- %s%s%s:%u: %u tokens (socket %llu, %s, uid %u)\n",
		       st[i].family == AF_INET6 ? "[" : "", src,
		       st[i].family == AF_INET6 ? "]" : "", st[i].sport,
		       st[i].family == AF_INET6 ? "[" : "", dst,
		       st[i].family == AF_INET6 ? "]" : "", st[i].dport,
		       st[i].tokens, (unsigned long long)st[i].inode, owner,
		       st[i].uid);
	}
	if (n > 256)
		printf("  ... and %d more\n", n - 256);
}

static int show_all(struct devmem_nl *nl)
{
	struct if_nameindex *ifs, *i;
	int ret = 0;

	ifs = if_nameindex();
	if (!ifs)
		return 2;
	for (i = ifs; i->if_index; i++) {
		struct ethtool_hds hds;

		/* the devices that report header split */
		if (ethtool_get_hds_all(nl, i->if_index, &hds) ||
		    hds.split < 0)
			continue;
		ret |= show_one(nl, i->if_name);
	}
	if_freenameindex(ifs);
	show_socks(nl);
	return ret;
}

static int parse_size(const char *text, uint64_t *size)
{
	const char *units = "KMGT", *u;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	*size = strtoull(text, &end, 0);
	u = *end ? strchr(units, *end) : NULL;
	if (u) {
		shift = 10 * (u - units + 1);
		end++;
	}
	if (errno || *end || !*size || text[0] == '-' ||
	    *size > UINT64_MAX >> shift)
		return -EINVAL;
	*size <<= shift;
	return 0;
}

/* A live process, by its number */
static int parse_pid(const char *text, pid_t *pid)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(text, &end, 10);
	if (errno || *end || end == text || n <= 0 || n > INT_MAX ||
	    (kill(n, 0) && errno == ESRCH))
		return -ESRCH;
	*pid = n;
	return 0;
}

/* A value of tcp-data-split, -1 for none */
static int split_mode(const char *text)
{
	if (!strcmp(text, "on"))
		return ETHTOOL_TCP_DATA_SPLIT_ENABLED;
	if (!strcmp(text, "off"))
		return ETHTOOL_TCP_DATA_SPLIT_DISABLED;
	if (!strcmp(text, "auto"))
		return ETHTOOL_TCP_DATA_SPLIT_UNKNOWN;
	return -1;
}

/* devmemctl set IFACE [tcp-data-split on|off|auto] [hds-thresh N] */
static int do_set(struct devmem_nl *nl, const char *ifname, int argc,
		  char **argv)
{
	int i, ifindex, err, mode = -1;
	int64_t thresh = -1;
	bool bad;
	char *end;

	for (i = 0; i < argc; i += 2) {
		if (i + 1 == argc) {
			fprintf(stderr, "devmemctl set: \"%s\" needs a value\n",
				argv[i]);
			return 2;
		}
		if (!strcmp(argv[i], "tcp-data-split")) {
			mode = split_mode(argv[i + 1]);
			bad = mode < 0;
		} else if (!strcmp(argv[i], "hds-thresh")) {
			thresh = strtoll(argv[i + 1], &end, 10);
			bad = *end || end == argv[i + 1] || thresh < 0 ||
			      thresh > UINT32_MAX;
		} else {
			fprintf(stderr,
				"devmemctl set: unknown setting \"%s\" (tcp-data-split, hds-thresh)\n",
				argv[i]);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "devmemctl set: %s %s: not a value of it\n",
				argv[i], argv[i + 1]);
			return 2;
		}
	}
	if (mode < 0 && thresh < 0) {
		fprintf(stderr, "devmemctl set: nothing to set\n");
		return 2;
	}
	ifindex = if_nametoindex(ifname);
	if (!ifindex) {
		fprintf(stderr, "%s: no such interface\n", ifname);
		return 2;
	}
	if (mode >= 0)
		err = ethtool_set_hds_mode_thresh(nl, ifindex, mode, thresh);
	else
		err = ethtool_set_hds_thresh(nl, ifindex, thresh);
	if (err) {
		fprintf(stderr, "%s: %s%s%s\n", ifname, strerror(-err),
			*nl->extack ? ": " : "", nl->extack);
		return 1;
	}
	return 0;
}

/* A count of queues, from --queues or a config file's "queues" line */
static int parse_queues(const char *text, int *queues)
{
	char *end;
	long n;

	n = strtol(text, &end, 10);
	if (*end || end == text || n < 1 || n > 1024)
		return -EINVAL;
	*queues = n;
	return 0;
}

static const char *config_dir(void)
{
	const char *dir = getenv("DEVMEMCTL_CONFIG_DIR");

	return dir && *dir ? dir : "/etc/devmem-tcp";
}

/* One line of a config file into @req: 0, or 2 with the reason printed */
static int config_line(const char *path, int n, char *line,
		       struct request *req)
{
	char why[160], *key, *rest;

	line[strcspn(line, "\n")] = '\0';
	key = line + strspn(line, " \t");
	if (!*key || *key == '#')
		return 0;
	rest = key + strcspn(key, " \t");
	if (*rest)
		*rest++ = '\0';
	rest += strspn(rest, " \t");
	if (!strcmp(key, "queues")) {
		if (parse_queues(rest, &req->queues)) {
			fprintf(stderr, "%s:%d: queues \"%s\": not a count of queues\n",
				path, n, rest);
			return 2;
		}
	} else if (!strcmp(key, "flow")) {
		if (req->nflows == DEVMEMCTL_MAX_FLOWS) {
			fprintf(stderr, "%s:%d: at most %d flows\n", path, n,
				DEVMEMCTL_MAX_FLOWS);
			return 2;
		}
		if (flow_parse(rest, &req->flows[req->nflows], why,
			       sizeof(why))) {
			fprintf(stderr, "%s:%d: %s\n", path, n, why);
			return 2;
		}
		req->nflows++;
	} else {
		fprintf(stderr, "%s:%d: unknown line \"%s\" (queues, flow)\n",
			path, n, key);
		return 2;
	}
	return 0;
}

/* devmemctl apply: the config file read whole before anything changes */
static int do_apply(struct devmem_nl *nl, struct request *req,
		    const char *config)
{
	char path[256], *line = NULL;
	struct prep old;
	size_t cap = 0;
	int n = 0, ret = 0;
	FILE *f;

	if (config)
		snprintf(path, sizeof(path), "%s", config);
	else
		snprintf(path, sizeof(path), "%s/%s.conf", config_dir(),
			 req->ifname);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 2;
	}
	while (!ret && getline(&line, &cap, f) > 0)
		ret = config_line(path, ++n, line, req);
	free(line);
	fclose(f);
	if (ret)
		return ret;
	if (!prep_load(req->ifname, &old)) {
		prep_free(&old);
		ret = do_release(nl, req);
		if (ret)
			return ret;
	}
	return do_prepare(nl, req);
}

static const struct option opts[] = {
	{ "queues", required_argument, NULL, 'q' },
	{ "flow", required_argument, NULL, 'f' },
	{ "size", required_argument, NULL, 's' },
	{ "try-bind", no_argument, NULL, 'b' },
	{ "config", required_argument, NULL, 'c' },
	{ "owner", required_argument, NULL, 'o' },
	{ "zcrx-area", required_argument, NULL, 'z' },
	{ "pid", required_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

/* The options after "devmemctl CMD IFACE": 0 or 2 (usage) */
static int parse(int argc, char **argv, struct request *req)
{
	char why[160];
	int opt;

	while ((opt = getopt_long(argc, argv, "q:f:s:c:o:z:p:bh", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			req->config = optarg;
			break;
		case 'q':
			if (parse_queues(optarg, &req->queues)) {
				fprintf(stderr, "devmemctl: --queues %s: not a count of queues\n",
					optarg);
				return 2;
			}
			break;
		case 'f':
			if (req->nflows == DEVMEMCTL_MAX_FLOWS) {
				fprintf(stderr, "devmemctl: at most %d flows\n",
					DEVMEMCTL_MAX_FLOWS);
				return 2;
			}
			if (flow_parse(optarg, &req->flows[req->nflows], why,
				       sizeof(why))) {
				fprintf(stderr, "devmemctl: --flow: %s\n", why);
				return 2;
			}
			req->nflows++;
			break;
		case 's':
			if (parse_size(optarg, &req->size)) {
				fprintf(stderr,
					"devmemctl: --size %s: not a size (BYTES, or with K, M, G, T)\n",
					optarg);
				return 2;
			}
			break;
		case 'z':
			if (parse_size(optarg, &req->zcrx_area)) {
				fprintf(stderr,
					"devmemctl: --zcrx-area %s: not a size (BYTES, or with K, M, G, T)\n",
					optarg);
				return 2;
			}
			break;
		case 'p':
			if (parse_pid(optarg, &req->pid)) {
				fprintf(stderr, "devmemctl: --pid %s: no such process\n",
					optarg);
				return 2;
			}
			break;
		case 'b':
			req->try_bind = true;
			break;
		case 'o':
			if (!pci_is_bdf(optarg)) {
				fprintf(stderr,
					"devmemctl: --owner %s: not a PCI address (DDDD:BB:DD.F)\n",
					optarg);
				return 2;
			}
			req->owner = optarg;
			break;
		case 'h':
			help(stdout);
			exit(0);
		default:
			help(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "devmemctl: unexpected \"%s\"\n", argv[optind]);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct request req = {};
	struct devmem_nl nl;
	const char *cmd;
	int ret;

	if (argc < 2) {
		help(stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "help")) {
		help(stdout);
		return 0;
	}
	if (strcmp(cmd, "show") && (argc < 3 || argv[2][0] == '-')) {
		fprintf(stderr, "devmemctl %s: which interface?\n", cmd);
		return 2;
	}
	if (argc >= 3 && argv[2][0] != '-') {
		req.ifname = argv[2];
		/* it names files under /run and /etc: a name, nothing else */
		if (strlen(req.ifname) >= IF_NAMESIZE ||
		    strchr(req.ifname, '/') || !strcmp(req.ifname, ".") ||
		    !strcmp(req.ifname, "..")) {
			fprintf(stderr, "devmemctl: \"%s\" is no interface name\n",
				req.ifname);
			return 2;
		}
	}
	if (!strcmp(cmd, "set")) {
		ret = devmem_nl_open(&nl);
		if (ret) {
			fprintf(stderr, "devmemctl: no ethtool netlink family: %s\n",
				strerror(-ret));
			return 1;
		}
		ret = do_set(&nl, req.ifname, argc - 3, argv + 3);
		devmem_nl_close(&nl);
		return ret;
	}
	ret = parse(argc - (req.ifname ? 2 : 1), argv + (req.ifname ? 2 : 1),
		    &req);
	if (ret)
		return ret;
	if (strcmp(cmd, "prepare") && strcmp(cmd, "check") &&
	    (req.queues || req.nflows)) {
		fprintf(stderr, "devmemctl %s: takes no --queues or --flow\n",
			cmd);
		return 2;
	}
	if (strcmp(cmd, "check") && (req.size || req.owner || req.try_bind ||
				     req.zcrx_area || req.pid)) {
		fprintf(stderr,
			"devmemctl %s: --size, --owner, --try-bind, --zcrx-area and --pid are check's\n",
			cmd);
		return 2;
	}
	if (req.pid && !req.zcrx_area) {
		fprintf(stderr, "devmemctl check: --pid goes with --zcrx-area\n");
		return 2;
	}
	if (strcmp(cmd, "apply") && req.config) {
		fprintf(stderr, "devmemctl %s: takes no --config\n", cmd);
		return 2;
	}
	ret = devmem_nl_open(&nl);
	if (ret) {
		fprintf(stderr, "devmemctl: no netdev or ethtool netlink family: %s\n",
			strerror(-ret));
		return 1;
	}
	if (!strcmp(cmd, "prepare") || !strcmp(cmd, "release") ||
	    !strcmp(cmd, "apply")) {
		ret = prep_lock();
		if (ret < 0) {
			fprintf(stderr, "devmemctl: cannot lock the state directory: %s\n",
				strerror(-ret));
			devmem_nl_close(&nl);
			return 1;
		}
	}
	if (!strcmp(cmd, "prepare")) {
		ret = do_prepare(&nl, &req);
	} else if (!strcmp(cmd, "release")) {
		ret = do_release(&nl, &req);
	} else if (!strcmp(cmd, "apply")) {
		ret = do_apply(&nl, &req, req.config);
	} else if (!strcmp(cmd, "check")) {
		ret = do_check(&nl, &req);
	} else if (!strcmp(cmd, "show")) {
		if (req.ifname) {
			ret = show_one(&nl, req.ifname);
			if (!ret)
				show_socks(&nl);
		} else {
			ret = show_all(&nl);
		}
	} else {
		fprintf(stderr, "devmemctl: unknown command \"%s\"\n", cmd);
		help(stderr);
		ret = 2;
	}
	devmem_nl_close(&nl);
	return ret;
}
