// SPDX-License-Identifier: GPL-2.0
/*
 * The devmem selftests' one environment: see devmem_fixture.h.
 */
#define _GNU_SOURCE
/* struct dmabuf_cmsg and dmabuf_token come from the uapi header, whose
 * struct iovec must win over the C library's
 */
#include <linux/uio.h>
#define __iovec_defined 1

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_traffic.h"
#include "netcfg.h"

bool devmem_env_available(void)
{
	return !access(HDSIM_SYS, F_OK);
}

/* Delete every namespace named @prefix or "@prefix-*". */
static void netns_del_prefix(const char *prefix)
{
	size_t len = strlen(prefix);
	struct dirent *de;
	DIR *dir;

	dir = opendir(NETNS_RUN_DIR);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		if (!strncmp(de->d_name, prefix, len) &&
		    (!de->d_name[len] || de->d_name[len] == '-'))
			netns_del(de->d_name);
	}
	closedir(dir);
}

static void env_ns_name(char *buf, size_t len, const struct devmem_env_cfg *cfg)
{
	snprintf(buf, len, "%s-%u", cfg->name, cfg->dev_id);
}

/*
 * The hdsim bus belongs to the test that runs: any device on it at setup
 * was left by a test killed before its teardown, of this program or an
 * earlier one, and its addresses would capture our routes.
 */
void devmem_env_reset(const struct devmem_env_cfg *cfg)
{
	struct dirent *de;
	char ns[32];
	DIR *dir;

	dir = opendir(HDSIM_SYS "/devices");
	while (dir && (de = readdir(dir))) {
		unsigned int id;

		if (sscanf(de->d_name, "hdsim%u", &id) != 1)
			continue;
		fprintf(stderr, "# setup: removing %s left by a killed test\n",
			de->d_name);
		hdsim_del(id);
	}
	if (dir)
		closedir(dir);
	env_ns_name(ns, sizeof(ns), cfg);
	netns_del_prefix(ns);
}

int listen_on(const char *addr, int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	int fd, one = 1;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 4)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* A setup step's result: printed as "# setup: @what: error" if it failed. */
static int step(int err, const char *what)
{
	if (err >= 0)
		return 0;
	fprintf(stderr, "# setup: %s: %s\n", what, strerror(-err));
	return err;
}

/* The port pair: host end up with rx_addr, peer end in its namespace. */
static int env_pair(struct devmem_env *env, const struct devmem_env_cfg *cfg)
{
	int peer, err;

	err = step(hdsim_new(env->dev_id, 4), "hdsim new_device");
	if (err)
		return err;
	env->ifindex = hdsim_port(env->dev_id, 0, env->ifname);
	peer = hdsim_port(env->dev_id, 1, env->peer);
	/* the peer keeps its ifindex in a new namespace: nothing has it */
	return step(env->ifindex, "hdsim port 0") ?:
	       step(peer, "hdsim port 1") ?:
	       step(netns_add(env->ns), "netns add") ?:
	       step(link_set_netns(peer, env->ns), "peer to netns") ?:
	       step(addr_add(env->ns, peer, cfg->tx_addr, 24), "peer address") ?:
	       step(link_set_up(env->ns, peer), "peer up") ?:
	       step(link_set_up(env->ns, 1), "peer netns lo up") ?:
	       step(addr_add(NULL, env->ifindex, cfg->rx_addr, 24),
		    "host address") ?:
	       step(link_set_up(NULL, env->ifindex), "host up");
}

/* Steering: RSS on the first queues, the test port to its queue. */
static int env_steering(struct devmem_env *env,
			const struct devmem_env_cfg *cfg)
{
	int err = 0;

	if (cfg->rss_queues)
		err = step(ethtool_rss_equal(env->ifname, cfg->rss_queues),
			   "rss");
	if (!err)
		err = step(ethtool_ntuple(env->ifname, true), "ntuple on");
	if (!err && cfg->steer_port)
		err = step(devmem_env_steer(env, cfg->steer_port,
					    cfg->steer_queue), "flow rule");
	return err ?: step(ethtool_set_hds(&env->nl, env->ifindex, true),
			   "tcp-data-split");
}

static int env_dmabuf(struct devmem_env *env, const struct devmem_env_cfg *cfg)
{
	int err;

	env->dmabuf = udmabuf_alloc(cfg->dmabuf_size, NULL);
	err = step(env->dmabuf, "udmabuf");
	if (err)
		return err;
	env->map = mmap(NULL, cfg->dmabuf_size, PROT_READ, MAP_SHARED,
			env->dmabuf, 0);
	if (env->map == MAP_FAILED) {
		env->map = NULL;
		return step(-errno, "mmap udmabuf");
	}
	env->map_size = cfg->dmabuf_size;
	if (!cfg->bind_queue)
		return 0;
	return step(devmem_env_bind(env, &env->nl, cfg->bind_queue, 1,
				    &env->binding), "bind-rx");
}

int devmem_env_setup(struct devmem_env *env, const struct devmem_env_cfg *cfg)
{
	int err;

	memset(env, 0, sizeof(*env));
	env->dmabuf = -1;
	env->lfd = -1;
	env->dev_id = cfg->dev_id;
	env->listen_port = cfg->listen_port;
	snprintf(env->rx_addr, sizeof(env->rx_addr), "%s", cfg->rx_addr);
	env_ns_name(env->ns, sizeof(env->ns), cfg);

	debugfs_mount();
	devmem_env_reset(cfg);
	err = step(devmem_nl_open(&env->nl), "netlink") ?:
	      env_pair(env, cfg) ?:
	      env_steering(env, cfg);
	if (!err && cfg->dmabuf_size)
		err = env_dmabuf(env, cfg);
	if (!err && cfg->listen_port) {
		env->lfd = listen_on(cfg->rx_addr, cfg->listen_port);
		err = step(env->lfd, "listen");
	}
	return err;
}

int devmem_env_setup_open(struct devmem_env *env, const char *name,
			  unsigned int dev_id, const char *rx_addr,
			  const char *tx_addr, int port, size_t dmabuf_size)
{
	const struct devmem_env_cfg cfg = {
		.name = name,
		.dev_id = dev_id,
		.rx_addr = rx_addr,
		.tx_addr = tx_addr,
		.rss_queues = 2,
		.dmabuf_size = dmabuf_size,
		.listen_port = port,
	};

	return devmem_env_setup(env, &cfg);
}

int devmem_env_setup_queue(struct devmem_env *env, const char *name,
			   unsigned int dev_id, const char *rx_addr,
			   const char *tx_addr, int queue, int port,
			   size_t dmabuf_size)
{
	const struct devmem_env_cfg cfg = {
		.name = name,
		.dev_id = dev_id,
		.rx_addr = rx_addr,
		.tx_addr = tx_addr,
		.rss_queues = queue,
		.steer_port = port,
		.steer_queue = queue,
		.dmabuf_size = dmabuf_size,
		.bind_queue = dmabuf_size ? queue : 0,
		.listen_port = port,
	};

	return devmem_env_setup(env, &cfg);
}

int devmem_env_steer(struct devmem_env *env, int port, int queue)
{
	int loc = ethtool_flow_add(env->ifname, NULL, NULL, port, queue);

	return loc < 0 ? loc : 0;
}

int devmem_env_bind(struct devmem_env *env, struct devmem_nl *nl, int first,
		    int n, uint32_t *id)
{
	return devmem_bind_rx_range(nl, env->ifindex, env->dmabuf, first, n,
				    id);
}

long devmem_env_rx_pool(const struct devmem_env *env, unsigned int q,
			const char *key)
{
	char path[128], line[256], *tok, *save;
	unsigned int lq;
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/hdsim/hdsim%u/port0/rx_pools",
		 env->dev_id);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "queue %u", &lq) != 1 || lq != q)
			continue;
		/* "queue Q key value key value ..." */
		strtok_r(line, "\n ", &save);
		strtok_r(NULL, "\n ", &save);
		while ((tok = strtok_r(NULL, "\n ", &save))) {
			char *val = strtok_r(NULL, "\n ", &save);

			if (val && !strcmp(tok, key))
				v = strtol(val, NULL, 0);
		}
	}
	fclose(f);
	return v;
}

int devmem_env_teardown(struct devmem_env *env)
{
	if (env->lfd >= 0)
		close(env->lfd);
	if (env->nl.sock)
		devmem_nl_close(&env->nl);
	if (env->map)
		munmap(env->map, env->map_size);
	if (env->dmabuf >= 0)
		close(env->dmabuf);
	netns_del_prefix(env->ns);
	if (!env->dev_gone)
		hdsim_del(env->dev_id);
	if (!devmem_wait_bindings(0, 10000))
		return 0;
	run("ss -tanoem | grep -v LISTEN | sed 's/^/# /'");
	return devmem_wait_bindings(0, 5000);
}

int devmem_env_stream(struct devmem_env *env, size_t bytes, pid_t *sender)
{
	int fd;

	*sender = sender_to_chunks(env->ns, env->rx_addr, env->listen_port,
				   bytes, env->send_chunk ?: 4096);
	if (*sender < 0)
		return -errno;
	fd = accept(env->lfd, NULL, NULL);
	return fd < 0 ? -errno : fd;
}

int devmem_env_bound_stream(struct devmem_env *env, struct devmem_nl *nl,
			    int queue, size_t bytes, uint32_t *id,
			    pid_t *sender)
{
	int err;

	err = devmem_env_steer(env, env->listen_port, queue) ?:
	      devmem_env_bind(env, nl, queue, 1, id);
	return err ?: devmem_env_stream(env, bytes, sender);
}

int devmem_env_pools_leaked(void)
{
	struct devmem_nl nl;
	int bad;

	if (devmem_nl_open(&nl))
		return -1;
	bad = devmem_pools_settled(&nl, 10000);
	if (bad) {
		/* who still holds memory: sockets, in every namespace */
		run("sed 's/^/# /' /proc/net/sockstat; ss -tanempi | sed 's/^/# /'");
		run("ip -all netns exec ss -tanempi | sed 's/^/# /'");
	}
	devmem_nl_close(&nl);
	return bad;
}

/*
 * 6.1 frees a readable skb that another CPU allocated on that CPU's defer
 * list, flushed at its next NET_RX softirq (and kicked only at 32 skbs):
 * until then its pages count as in flight. Raise NET_RX on every CPU with
 * a datagram over loopback sent from there.
 */
static void kick_cpus(void)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(9),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int cpu, ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	link_set_up(NULL, 1);
	for (cpu = 0; cpu < ncpus; cpu++) {
		pid_t pid = fork();

		if (!pid) {
			cpu_set_t set;
			int fd;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(1);
			fd = socket(AF_INET, SOCK_DGRAM, 0);
			sendto(fd, "", 1, 0, (struct sockaddr *)&sa, sizeof(sa));
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

int devmem_pools_settled(struct devmem_nl *nl, int ms)
{
	struct devmem_pool_info pools[256];
	int i, n = 0, bad = -1;

	for (; ms > 0; ms -= 100) {
		if (!(ms % 1000))
			kick_cpus();
		n = devmem_page_pools(nl, pools, 256);
		if (n < 0)
			return n;
		bad = 0;
		for (i = 0; i < n; i++)
			bad += pools[i].detach_time || pools[i].dmabuf;
		if (!bad)
			return 0;
		usleep(100000);
	}
	for (i = 0; i < n; i++)
		if (pools[i].detach_time || pools[i].dmabuf)
			fprintf(stderr, "# pool %u if %u inflight %llu detached %llu dmabuf %u\n",
				pools[i].id, pools[i].ifindex,
				(unsigned long long)pools[i].inflight,
				(unsigned long long)pools[i].detach_time,
				pools[i].dmabuf);
	return bad;
}
