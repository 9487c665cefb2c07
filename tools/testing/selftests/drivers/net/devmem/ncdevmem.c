// SPDX-License-Identifier: GPL-2.0
/*
 * ncdevmem: receive TCP into device memory, netcat style.
 *
 * Command line compatible with upstream's ncdevmem:
 *   ncdevmem -l -f IF -s ADDR [-c CLIENT] -p PORT [-v N] [-q NUM] [-t FIRST]
 *	server: set the NIC up (tcp-data-split on, ntuple rule, RSS off
 *	the bound queues), bind a dmabuf, accept one connection, receive
 *	with MSG_SOCK_DEVMEM, validate, give tokens back; the NIC setup is
 *	restored on every exit path
 *   ncdevmem -f IF
 *	bind self-tests
 *   ncdevmem -f IF -s ADDR -p PORT [-c CLIENT] [-z CHUNK]
 *	client: send stdin from device memory (bind-tx, MSG_ZEROCOPY with
 *	SCM_DEVMEM_DMABUF; ncdevmem_tx.c); without -f over plain TCP
 *   -b RX_PAGE_SIZE: bind with net_iovs of that size (a power of two, at
 *	least the page size); the udmabuf comes from a hugetlb memfd (2 MiB
 *	pages) so that its DMA segments are aligned to it
 *   -L: fail if any payload arrives in an SCM_DEVMEM_LINEAR cmsg
 *   -n: leave the NIC as it is (no header split, RSS or flow rule set up,
 *	nothing restored): the caller configured it, as with an RSS context
 * Extras: --sha256 (hash of the received stream, read from the dmabuf),
 * --stats, --size BYTES (dmabuf size), --memory udmabuf|heap|p2p|cuda|rocm,
 * --allow-host (readable data is not an error), --connections N (accept N
 * connections one after the other on one binding), --unbind-after BYTES
 * (close the binding's netlink socket mid-stream: the rest arrives in host
 * memory), --parallel (the N connections at once, read as data comes;
 * both with --copy too, into a user buffer),
 * --uring (receive with one multishot IORING_OP_RECVMSG per connection,
 * cmsgs from provided buffers; tokens still go back with setsockopt;
 * with --parallel, one ring for all the connections; ncdevmem_uring.c),
 * --zcrx (receive with io_uring zero-copy receive instead of a dmabuf
 * binding: an instance per queue, the dmabuf its area, or with
 * --memory host an area of host memory per queue; buffers go back
 * through the refill ring; ncdevmem_zcrx.c), --zcrx-rings N (with
 * --zcrx and N --connections: N rings in N threads share the instances,
 * the rings past the first importing them, one connection each),
 * --pair show|auto [--owner BDF] (NICs that reach the device memory peer
 * to peer, from the PCIe topology; auto picks the closest for -f),
 * --show-queues and --pools (what backs each queue, every page pool;
 * ncdevmem_list.c).
 */
#define _GNU_SOURCE
/* struct dmabuf_cmsg and dmabuf_token come from the uapi header, whose
 * struct iovec must win over the C library's
 */
#include <linux/uio.h>
#define __iovec_defined 1

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/dma-buf.h>
#include <linux/ethtool_netlink.h>
#include <liburing.h>
#include <openssl/evp.h>

#include "../../../kselftest.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "devmem_traffic.h"
#include "ncdevmem_mem.h"
#include "ncdevmem_list.h"
#include "ncdevmem_pair.h"
#include "ncdevmem_rx.h"
#include "ncdevmem_tx.h"
#include "ncdevmem_uring.h"
#include "ncdevmem_zcrx.h"
#include "netcfg.h"

#ifndef MSG_SOCK_DEVMEM
#define MSG_SOCK_DEVMEM		0x2000000
#endif

static const char *ifname;
static const char *server_ip;
static const char *client_ip;
static const char *memory = "udmabuf";
static uint16_t port = 5201;
static int start_queue = -1;
static int num_queues = -1;
static size_t dmabuf_size = 64 << 20;
static uint32_t rx_page_size;	/* -b; 0: the kernel's default */
static size_t tx_chunk;		/* -z: bytes per iovec on TX; 0: whole */
static const char *tx_bench;	/* --tx-bench devmem|zerocopy|copy */
static uint64_t tx_bytes = 1ULL << 30;	/* --bytes: what --tx-bench sends */
static bool parallel;		/* --parallel: connections at once */
static bool use_uring;		/* --uring: multishot IORING_OP_RECVMSG */
static struct ncdm_zcrx *zcrx;	/* --zcrx: io_uring zero-copy receive */
static bool use_zcrx;
static int zcrx_rings = 1;	/* --zcrx-rings: rings sharing the instances */
static bool want_sha256, want_stats, show_queues;
static const char *set_hds;
static const char *pair;		/* --pair show|auto */
static const char *pair_owner;	/* --owner BDF */
static bool bind_only;
static bool copy_mode;
static int connections = 1;
/* --unbind-after: close the binding's netlink socket mid-stream */
static uint64_t unbind_after;
static struct devmem_nl *bound_nl;

static struct devmem_mem mem;
/* -n: the caller set the NIC up */
static bool skip_nic_config;

/* what the server changed on the NIC, to put back */
static struct {
	int ifindex;
	int hds_before;
	bool hds_set;
	uint32_t hds_thresh_before;
	bool hds_thresh_set;
	bool rss_set;
	bool ntuple_set;
	bool single_queue;	/* the NIC's only RX queue is bound */
	int rule_id;
} nic = { .rule_id = -1 };

/* The kernel's devmem receive counters (debugfs devmem/tcp_rx): where
 * payload went according to the stack itself, all sockets together.
 */
struct kernel_stats {
	bool ok;
	unsigned long long frags;
	unsigned long long devmem_bytes;
	unsigned long long linear_bytes;
	unsigned long long dontneed_calls;
	unsigned long long tokens_freed;
};

static void read_kernel_stats(struct kernel_stats *k)
{
	FILE *f = fopen("/sys/kernel/debug/devmem/tcp_rx", "r");
	unsigned long long v;
	char name[32];

	memset(k, 0, sizeof(*k));
	if (!f)
		return;
	while (fscanf(f, "%31s %llu", name, &v) == 2) {
		if (!strcmp(name, "frags"))
			k->frags = v;
		else if (!strcmp(name, "devmem_bytes"))
			k->devmem_bytes = v;
		else if (!strcmp(name, "linear_bytes"))
			k->linear_bytes = v;
		else if (!strcmp(name, "dontneed_calls"))
			k->dontneed_calls = v;
		else if (!strcmp(name, "tokens_freed"))
			k->tokens_freed = v;
	}
	k->ok = true;
	fclose(f);
}

static void on_signal(int sig)
{
	atomic_store(&stop, true);
}

/* NIC setup and restore */

static void nic_restore(struct devmem_nl *nl)
{
	if (nic.rule_id >= 0)
		ethtool_flow_del(ifname, nic.rule_id);
	if (nic.ntuple_set)
		ethtool_ntuple(ifname, false);
	if (nic.rss_set)
		ethtool_rss_equal(ifname, 0);
	if (nic.hds_thresh_set)
		ethtool_set_hds_thresh(nl, nic.ifindex, nic.hds_thresh_before);
	if (nic.hds_set && nic.hds_before != ETHTOOL_TCP_DATA_SPLIT_ENABLED)
		ethtool_set_hds(nl, nic.ifindex, false);
	nic.hds_thresh_set = false;
	nic.rule_id = -1;
	nic.ntuple_set = false;
	nic.rss_set = false;
	nic.hds_set = false;
}

/* tcp-data-split on, hds-thresh 0 where the device has one, RSS off the
 * bound queues, the flow to the first
 */
static int nic_setup(struct devmem_nl *nl)
{
	uint32_t max;
	int err;

	err = ethtool_get_hds(nl, nic.ifindex, &nic.hds_before);
	if (!err)
		err = ethtool_set_hds(nl, nic.ifindex, true);
	if (err) {
		fprintf(stderr, "%s: cannot enable tcp-data-split: %s %s\n",
			ifname, strerror(-err), nl->extack);
		return err;
	}
	nic.hds_set = true;
	if (!ethtool_get_hds_thresh(nl, nic.ifindex, &nic.hds_thresh_before,
				    &max) && nic.hds_thresh_before) {
		err = ethtool_set_hds_thresh(nl, nic.ifindex, 0);
		if (err) {
			fprintf(stderr, "%s: cannot set hds-thresh 0: %s %s\n",
				ifname, strerror(-err), nl->extack);
			return err;
		}
		nic.hds_thresh_set = true;
	}
	if (nic.single_queue)
		return 0;

	err = ethtool_rss_equal(ifname, start_queue);
	if (err) {
		fprintf(stderr, "%s: cannot move RSS off queues %d+: %s\n",
			ifname, start_queue, strerror(-err));
		return err;
	}
	nic.rss_set = true;

	err = ethtool_ntuple(ifname, true);
	if (err) {
		fprintf(stderr, "%s: no ntuple filtering: %s\n", ifname,
			strerror(-err));
		return err;
	}
	nic.ntuple_set = true;

	nic.rule_id = ethtool_flow_add(ifname, client_ip, server_ip, port,
				       start_queue);
	if (nic.rule_id < 0) {
		fprintf(stderr, "%s: cannot add the flow steering rule: %s\n",
			ifname, strerror(-nic.rule_id));
		return nic.rule_id;
	}
	return 0;
}

static int bind_queues(struct devmem_nl *nl, int dmabuf, uint32_t *id)
{
	int err;

	nl->rx_page_size = rx_page_size;
	err = devmem_bind_rx_range(nl, nic.ifindex, dmabuf, start_queue,
				   num_queues, id);
	if (err)
		fprintf(stderr, "bind-rx: %s%s%s\n", strerror(-err),
			nl->extack[0] ? ": " : "", nl->extack);
	return err;
}

/* The bound queues' counters from `ethtool -S`, as "stats WHEN: name: n" */
static void print_queue_stats(const char *when)
{
	char *names, prefix[16];
	uint64_t *vals;
	int i, q, n;

	if (!want_stats)
		return;
	n = ethtool_stats(ifname, &names, &vals);
	for (q = start_queue; q < start_queue + num_queues; q++) {
		snprintf(prefix, sizeof(prefix), "rx%d_", q);
		for (i = 0; i < n; i++)
			if (!strncmp(names + i * ETH_GSTRING_LEN, prefix,
				     strlen(prefix)))
				printf("stats %s: %.32s: %llu\n", when,
				       names + i * ETH_GSTRING_LEN,
				       (unsigned long long)vals[i]);
	}
	if (n >= 0) {
		free(names);
		free(vals);
	}
}

/* Receive one connection until EOF, a signal or an error. */
static int receive(int fd, uint32_t dmabuf_id, struct rx_stats *st,
		   EVP_MD_CTX *sha)
{
	struct token_batch batch = {};
	char *iov_buf, *ctrl;
	int ret = 0;

	if (use_zcrx)
		return receive_zcrx(zcrx, fd, st, sha);
	if (use_uring)
		return receive_uring(fd, dmabuf_id, st, sha);
	iov_buf = malloc(IOV_LEN);
	ctrl = malloc(CTRL_LEN);
	if (!iov_buf || !ctrl) {
		ret = -ENOMEM;
		goto out_free;
	}
	while (!atomic_load(&stop) && !ret) {
		ssize_t n;

		n = receive_one(fd, dmabuf_id, st, &batch, sha, iov_buf, ctrl, 0);
		if (n == 0)
			break;
		if (n == -EAGAIN)
			continue;
		if (n < 0) {
			ret = n;
			break;
		}
		if (bound_nl && unbind_after && st->bytes >= unbind_after) {
			/* the queue restarts on host memory; the rest of
			 * the stream arrives there, the tokens held stay
			 * valid until given back
			 */
			devmem_nl_close(bound_nl);
			bound_nl = NULL;
			fprintf(stderr, "unbound after %llu bytes\n",
				(unsigned long long)st->bytes);
		}
	}
	/* Tokens go back in batches of up to 1024 frags (add_token());
	 * the rest at the end of the stream.
	 */
	if (return_tokens(fd, &batch, st))
		ret = -EIO;
out_free:
	free(iov_buf);
	free(ctrl);
	return ret;
}

static int parse_addr(const char *ip, uint16_t p, struct sockaddr_in6 *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin6_family = AF_INET6;
	sa->sin6_port = htons(p);
	if (inet_pton(AF_INET6, ip, &sa->sin6_addr) == 1)
		return 0;
	/* IPv4 as v4-mapped, like upstream */
	sa->sin6_addr.s6_addr[10] = 0xff;
	sa->sin6_addr.s6_addr[11] = 0xff;
	return inet_pton(AF_INET, ip, &sa->sin6_addr.s6_addr[12]) == 1 ? 0 :
									 -EINVAL;
}

/* Listening socket on --server-ip/--port, or -1 (printed). */
static int listen_server(const char *what)
{
	struct sockaddr_in6 sa;
	int lfd, one = 1;

	if (parse_addr(server_ip, port, &sa)) {
		fprintf(stderr, "bad server address %s\n", server_ip);
		return -1;
	}
	lfd = socket(AF_INET6, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, connections > 1 ? connections : 1)) {
		fprintf(stderr, "listen on %s port %u: %s\n", server_ip, port,
			strerror(errno));
		close(lfd);
		return -1;
	}
	fprintf(stderr, "listening on %s port %u%s\n", server_ip, port, what);
	return lfd;
}

/* CPU time of the calling thread, in seconds. */
static double thread_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* accept() into @fd; non-zero (and said why) if it failed */
static int accept_conn(int lfd, int *fd)
{
	*fd = accept(lfd, NULL, NULL);
	if (*fd < 0)
		fprintf(stderr, "accept: %s\n", strerror(errno));
	return *fd < 0;
}

/* One connection of the copy path: its bytes, recv() calls and errors */
struct copy_conn {
	int fd;
	bool done;
	uint64_t bytes;
	uint64_t calls;
	uint64_t errors;
};

/* One recv() into @buf on @c: the bytes, 0 once the connection ended
 * (or failed: counted as an error), -EAGAIN when nothing was there
 */
static ssize_t copy_one(struct copy_conn *c, char *buf, int flags)
{
	ssize_t n = recv(c->fd, buf, rx_opts.read_size, flags);

	c->calls++;
	if (n > 0) {
		if (rx_opts.validate)
			c->errors += check_pattern_n((uint8_t *)buf, n,
						     c->bytes, rx_opts.validate);
		c->bytes += n;
		return n;
	}
	if (n < 0 && errno == EAGAIN)
		return -EAGAIN;
	if (n < 0) {
		fprintf(stderr, "recv: %s\n", strerror(errno));
		c->errors++;
	}
	return 0;
}

/* Plain TCP receive into a user buffer: the copy path devmem is
 * measured against (--copy). No NIC setup, no binding. --connections N
 * accepts N, one after the other, or with --parallel all of them first,
 * then reads them as their data comes, as serve_parallel() does.
 */
static int do_copy_server(void)
{
	uint64_t bytes = 0, errors = 0, calls = 0;
	double elapsed = 0, cpu = 0;
	int lfd, i, left, ret = 0;
	struct copy_conn *c;
	struct pollfd *pfd;
	char *buf;

	buf = malloc(rx_opts.read_size);
	c = calloc(connections, sizeof(*c));
	pfd = calloc(connections, sizeof(*pfd));
	if (!buf || !c || !pfd) {
		ret = 1;
		goto out_free;
	}
	/* its pages in place before the stream: no fault while timed */
	memset(buf, 0, rx_opts.read_size);
	lfd = listen_server(" (copy)");
	if (lfd < 0) {
		ret = 1;
		goto out_free;
	}
	for (i = 0; i < connections; i++)
		c[i].fd = -1;
	for (i = 0; i < connections; i++) {
		if (accept_conn(lfd, &c[i].fd)) {
			ret = 1;
			goto out_close;
		}
		if (parallel && i < connections - 1)
			continue;
		cpu -= thread_cpu();
		elapsed -= now();
		if (!parallel) {
			while (copy_one(&c[i], buf, 0) > 0)
				;
			cpu += thread_cpu();
			elapsed += now();
			continue;
		}
		for (left = connections; left;) {
			int j;

			for (j = 0; j < connections; j++) {
				pfd[j].fd = c[j].done ? -1 : c[j].fd;
				pfd[j].events = POLLIN;
			}
			if (poll(pfd, connections, 1000) < 0 && errno != EINTR) {
				ret = 1;
				break;
			}
			for (j = 0; j < connections; j++) {
				if (c[j].done ||
				    !(pfd[j].revents & (POLLIN | POLLHUP | POLLERR)))
					continue;
				if (!copy_one(&c[j], buf, MSG_DONTWAIT)) {
					c[j].done = true;
					left--;
				}
			}
		}
		cpu += thread_cpu();
		elapsed += now();
	}
	for (i = 0; i < connections; i++) {
		bytes += c[i].bytes;
		calls += c[i].calls;
		errors += c[i].errors;
	}
	printf("received %llu bytes: 0 in device memory (0 frags), 0 linear, %llu host\n",
	       (unsigned long long)bytes, (unsigned long long)bytes);
	printf("stats: time %.3f s, %.1f MB/s, receiver cpu %.3f s\n",
	       elapsed, bytes / 1e6 / elapsed, cpu);
	printf("stats: recv calls %llu\n", (unsigned long long)calls);
	if (errors)
		ret = 1;
out_close:
	for (i = 0; i < connections; i++)
		if (c[i].fd >= 0)
			close(c[i].fd);
	close(lfd);
out_free:
	free(pfd);
	free(c);
	free(buf);
	return ret;
}

/* RX queues of @ifname in sysfs, for drivers without a channels op */
static int sysfs_rx_queues(void)
{
	char path[128];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-%d",
			 ifname, n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

/* The queues to bind: -q/-t, by default the last one; queue 0 stays.
 * A NIC with a single RX queue (e1000e) binds that queue: every flow of
 * the port lands in device memory, and no steering is needed.
 */
static int server_queues(struct devmem_nl *nl)
{
	uint32_t combined = 0, max = 0;

	if (ethtool_get_channels(nl, nic.ifindex, &combined, &max))
		combined = sysfs_rx_queues();
	if (combined == 1 && num_queues <= 1 && start_queue <= 0) {
		num_queues = 1;
		start_queue = 0;
		nic.single_queue = true;
		fprintf(stderr, "%s: one RX queue: binding it, no flow steering\n",
			ifname);
		return 0;
	}
	if (combined < 2) {
		fprintf(stderr, "%s: needs at least 2 RX queues\n", ifname);
		return -EINVAL;
	}
	if (num_queues < 0)
		num_queues = 1;
	if (start_queue < 0)
		start_queue = combined - num_queues;
	if (start_queue < 1 || start_queue + num_queues > (int)combined) {
		fprintf(stderr, "queues %d..%d do not fit %u channels (queue 0 stays unbound)\n",
			start_queue, start_queue + num_queues - 1, combined);
		return -EINVAL;
	}
	return 0;
}

struct server_run {
	struct rx_stats st;
	double elapsed;		/* receiving, all connections */
	double cpu;		/* receiver thread CPU, all connections */
	EVP_MD_CTX *sha;
	struct kernel_stats k0;
};

/* One of the --parallel connections. */
struct conn {
	int fd;
	bool done;
	struct rx_stats st;
	struct token_batch batch;
	struct uring_conn uc;	/* --uring */
};

/* Raise @held_max to the tokens the connections hold between them. */
static void note_tokens_held(const struct conn *c, uint64_t *held_max)
{
	uint64_t held = 0;
	int i;

	for (i = 0; i < connections; i++)
		held += c[i].batch.frags;
	if (held > *held_max)
		*held_max = held;
}

/* Read the connections as their data comes (poll, recvmsg). */
static int parallel_poll(struct conn *c, uint32_t id, uint64_t *held_max)
{
	struct pollfd *pfd;
	char *iov_buf, *ctrl;
	int i, left, ret = 0;

	pfd = calloc(connections, sizeof(*pfd));
	iov_buf = malloc(IOV_LEN);
	ctrl = malloc(CTRL_LEN);
	if (!pfd || !iov_buf || !ctrl) {
		ret = 1;
		goto out_free;
	}
	for (left = connections; left && !ret && !atomic_load(&stop);) {
		for (i = 0; i < connections; i++) {
			pfd[i].fd = c[i].done ? -1 : c[i].fd;
			pfd[i].events = POLLIN;
		}
		if (poll(pfd, connections, 1000) < 0 && errno != EINTR) {
			ret = 1;
			break;
		}
		for (i = 0; i < connections && !ret; i++) {
			ssize_t n;

			if (c[i].done || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = receive_one(c[i].fd, id, &c[i].st, &c[i].batch, NULL,
					iov_buf, ctrl, MSG_DONTWAIT);
			note_tokens_held(c, held_max);
			/* Give the frags of each read back right away: with
			 * many connections, per-connection batches could
			 * hold every net_iov of the binding between them.
			 */
			if (n > 0 && return_tokens(c[i].fd, &c[i].batch, &c[i].st))
				ret = 1;
			if (n == 0) {
				ret = return_tokens(c[i].fd, &c[i].batch, &c[i].st) ? 1 : 0;
				c[i].done = true;
				left--;
			} else if (n < 0 && n != -EAGAIN) {
				ret = 1;
			}
		}
	}
out_free:
	free(ctrl);
	free(iov_buf);
	free(pfd);
	return ret;
}

/*
 * The same through one io_uring: a multishot recvmsg per connection,
 * their completions reaped together, each completion's tokens given back
 * before the next.
 */
static int parallel_uring(struct conn *c, uint32_t id, uint64_t *held_max,
			  struct rx_stats *ring_st)
{
	struct io_uring_cqe *cqe;
	int i, left, ret = 0;
	struct uring_rx u;

	if (uring_rx_init(&u, connections))
		return 1;
	for (left = connections; left && !ret && !atomic_load(&stop);) {
		for (i = 0; i < connections; i++)
			if (!c[i].done && !c[i].uc.armed)
				uring_arm(&u, &c[i].uc, c[i].fd, i);
		ret = uring_enter(&u, ring_st) ? 1 : 0;
		while (!ret && !io_uring_peek_cqe(&u.ring, &cqe)) {
			struct conn *k = &c[io_uring_cqe_get_data64(cqe)];

			if (uring_cqe(&u, &k->uc, k->fd, cqe, id, &k->batch,
				      &k->st, NULL))
				ret = 1;
			io_uring_cqe_seen(&u.ring, cqe);
			note_tokens_held(c, held_max);
			if (return_tokens(k->fd, &k->batch, &k->st))
				ret = 1;
			if (k->uc.eof && !k->done) {
				k->done = true;
				left--;
			}
		}
	}
	uring_rx_exit(&u);
	return ret;
}

/*
 * --connections N --parallel: accept N connections, then read them as
 * their data comes (poll), all on this binding; each is validated on its
 * own, and gives back the tokens of each read before the next. Prints
 * the most tokens held at once (one read's), all connections together.
 */
static int serve_parallel(int lfd, uint32_t id, struct server_run *run)
{
	struct rx_stats ring_st = {};
	uint64_t held_max = 0;
	int i, ret = 0;
	struct conn *c;
	double t0, cpu0;

	c = calloc(connections, sizeof(*c));
	if (!c)
		return 1;
	for (i = 0; i < connections; i++)
		c[i].fd = -1;
	for (i = 0; i < connections; i++) {
		if (accept_conn(lfd, &c[i].fd)) {
			ret = 1;
			goto out_close;
		}
	}

	cpu0 = thread_cpu();
	t0 = now();
	if (use_uring)
		ret = parallel_uring(c, id, &held_max, &ring_st);
	else
		ret = parallel_poll(c, id, &held_max);
	run->elapsed += now() - t0;
	run->cpu += thread_cpu() - cpu0;

	rx_stats_add(&run->st, &ring_st);
	for (i = 0; i < connections; i++) {
		if (!c[i].done && return_tokens(c[i].fd, &c[i].batch, &c[i].st))
			ret = 1;
		rx_stats_add(&run->st, &c[i].st);
		if (!c[i].done || c[i].st.errors)
			ret = 1;
	}
	printf("parallel: %d connections, %llu tokens held at most (all connections)\n",
	       connections, (unsigned long long)held_max);
out_close:
	for (i = 0; i < connections; i++)
		if (c[i].fd >= 0)
			close(c[i].fd);
	free(c);
	return ret;
}

/* One ring of --zcrx-rings and the connection it reads. */
struct zcrx_reader {
	pthread_t thread;
	int fd;
	int ret;
	struct rx_stats st;
	double cpu;
};

/* An importing ring's thread: its own ring, the creator's instances. */
static void *zcrx_reader_run(void *arg)
{
	struct zcrx_reader *r = arg;
	struct ncdm_zcrx *z;
	double cpu0 = thread_cpu();

	r->ret = -ENOMEM;
	z = ncdm_zcrx_import(zcrx);
	if (z) {
		r->ret = receive_zcrx(z, r->fd, &r->st, NULL);
		ncdm_zcrx_close(z);
	}
	r->cpu = thread_cpu() - cpu0;
	return NULL;
}

/*
 * --zcrx-rings N: accept N connections, export the instances, and read
 * connection 0 through this thread's ring while N - 1 threads each
 * import them into a ring of their own and read one connection. The
 * CPU is every reader's, summed; the CQEs, every ring's.
 */
static int serve_zcrx_rings(int lfd, struct server_run *run)
{
	int i, started, ret = 0;
	struct zcrx_reader *r;
	double t0, cpu0;

	r = calloc(zcrx_rings, sizeof(*r));
	if (!r)
		return 1;
	for (i = 0; i < zcrx_rings; i++)
		r[i].fd = -1;
	for (i = 0; i < zcrx_rings; i++) {
		r[i].fd = accept(lfd, NULL, NULL);
		if (r[i].fd < 0) {
			fprintf(stderr, "accept: %s\n", strerror(errno));
			ret = 1;
			goto out_close;
		}
	}
	if (ncdm_zcrx_export(zcrx)) {
		ret = 1;
		goto out_close;
	}
	t0 = now();
	for (started = 1; started < zcrx_rings; started++) {
		if (pthread_create(&r[started].thread, NULL, zcrx_reader_run,
				   &r[started])) {
			fprintf(stderr, "pthread_create failed\n");
			break;
		}
	}
	cpu0 = thread_cpu();
	r[0].ret = receive_zcrx(zcrx, r[0].fd, &r[0].st, NULL);
	r[0].cpu = thread_cpu() - cpu0;
	for (i = 1; i < started; i++)
		pthread_join(r[i].thread, NULL);
	run->elapsed = now() - t0;
	/* a connection no thread read fails the run */
	ret = started < zcrx_rings;
	for (i = 0; i < zcrx_rings; i++) {
		printf("ring %d: %llu bytes, %llu RECV_ZC completions, %llu errors\n",
		       i, (unsigned long long)r[i].st.bytes,
		       (unsigned long long)r[i].st.zc.cqes,
		       (unsigned long long)r[i].st.errors);
		rx_stats_add(&run->st, &r[i].st);
		run->cpu += r[i].cpu;
		ret |= !!r[i].ret;
	}
out_close:
	for (i = 0; i < zcrx_rings; i++)
		if (r[i].fd >= 0)
			close(r[i].fd);
	free(r);
	return ret;
}

/* --connections: accept them one after the other, all on this binding. */
static int serve_connections(int lfd, uint32_t id, struct server_run *run)
{
	int conn, fd, ret = 0;
	double t0, cpu0;

	if (parallel)
		return serve_parallel(lfd, id, run);
	if (zcrx_rings > 1)
		return serve_zcrx_rings(lfd, run);

	for (conn = 0; conn < connections && !atomic_load(&stop); conn++) {
		struct rx_stats cs = {};

		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			fprintf(stderr, "accept: %s\n", strerror(errno));
			return 1;
		}
		cpu0 = thread_cpu();
		t0 = now();
		ret = receive(fd, id, &cs, run->sha) ? 1 : 0;
		run->elapsed += now() - t0;
		run->cpu += thread_cpu() - cpu0;
		close(fd);
		rx_stats_add(&run->st, &cs);
		if (connections > 1)
			printf("connection %d: %llu bytes, %llu errors\n",
			       conn + 1, (unsigned long long)cs.bytes,
			       (unsigned long long)cs.errors);
		if (ret)
			break;
	}
	return ret;
}

static void print_stats(const struct server_run *run)
{
	const struct rx_stats *st = &run->st;
	struct kernel_stats k1;

	printf("stats: time %.3f s, %.1f MB/s, receiver cpu %.3f s\n",
	       run->elapsed, st->bytes / 1e6 / run->elapsed, run->cpu);
	if (use_uring)
		printf("stats: io_uring_enter calls %llu, multishot recvmsg completions %llu\n",
		       (unsigned long long)st->ring_enters,
		       (unsigned long long)st->ring_cqes);
	if (use_zcrx) {
		uint64_t zc, copied;

		printf("stats: io_uring_enter calls %llu, RECV_ZC completions %llu, ",
		       (unsigned long long)st->zc.enters,
		       (unsigned long long)st->zc.cqes);
		printf("re-armed after a full CQ %llu, moved to another queue's instance %llu\n",
		       (unsigned long long)st->zc.rearms,
		       (unsigned long long)st->zc.switches);
		/* buffers go back through the refill ring: no syscall */
		if (!ncdm_zcrx_kernel(zcrx, &zc, &copied)) {
			printf("stats: kernel: %llu frags, %llu bytes left in device memory, ",
			       (unsigned long long)st->zc.cqes,
			       (unsigned long long)zc);
			printf("%llu payload bytes copied by the CPU, 0 DONTNEED calls\n",
			       (unsigned long long)copied);
		}
		print_queue_stats("after");
		return;
	}
	printf("stats: recvmsg calls %llu, tokens returned %llu, DONTNEED calls %llu\n",
	       (unsigned long long)st->recvmsg_calls,
	       (unsigned long long)st->tokens_returned,
	       (unsigned long long)st->dontneed_calls);
	printf("stats: DONTNEED %.0f ns per token (batches of %d)\n",
	       st->tokens_returned ?
	       (double)st->dontneed_ns / st->tokens_returned : 0.0,
	       rx_opts.dontneed_batch);
	read_kernel_stats(&k1);
	if (run->k0.ok && k1.ok) {
		printf("stats: kernel: %llu frags, %llu bytes left in device memory, ",
		       k1.frags - run->k0.frags,
		       k1.devmem_bytes - run->k0.devmem_bytes);
		printf("%llu payload bytes copied by the CPU, %llu DONTNEED calls\n",
		       k1.linear_bytes - run->k0.linear_bytes,
		       k1.dontneed_calls - run->k0.dontneed_calls);
	}
	print_queue_stats("after");
}

static void print_report(struct server_run *run)
{
	const struct rx_stats *st = &run->st;

	printf("received %llu bytes: %llu in device memory (%llu frags), %llu linear, %llu host\n",
	       (unsigned long long)st->bytes,
	       (unsigned long long)st->devmem_bytes,
	       (unsigned long long)st->frags,
	       (unsigned long long)st->linear_bytes,
	       (unsigned long long)st->host_bytes);
	if (rx_opts.validate)
		printf("validated every byte against the %d-byte pattern: %llu errors\n",
		       rx_opts.validate, (unsigned long long)st->errors);
	if (run->sha) {
		unsigned char md[32];
		unsigned int len, i;

		EVP_DigestFinal_ex(run->sha, md, &len);
		printf("sha256 ");
		for (i = 0; i < len; i++)
			printf("%02x", md[i]);
		printf("\n");
		EVP_MD_CTX_free(run->sha);
		run->sha = NULL;
	}
	if (want_stats)
		print_stats(run);
}

/* Bound and listening: receive, report. 0 if every byte was right. */
static int server_receive(int lfd, uint32_t id)
{
	struct server_run run = {};
	int ret;

	if (want_sha256) {
		run.sha = EVP_MD_CTX_new();
		EVP_DigestInit_ex(run.sha, EVP_sha256(), NULL);
	}
	read_kernel_stats(&run.k0);
	ret = serve_connections(lfd, id, &run);
	print_report(&run);
	return ret || run.st.errors;
}

/*
 * A batch of tokens held back for one SO_DEVMEM_DONTNEED must not pin
 * more than a quarter of the binding's net_iovs: with large net_iovs
 * and one segment each, a batch of 1024 could hold all of them, and the
 * NIC would have no buffer left for the frags that would fill it.
 */
static void limit_token_batch(void)
{
	size_t quarter = dmabuf_size / (rx_page_size ?: getpagesize()) / 4;

	if ((size_t)rx_opts.dontneed_batch > quarter)
		rx_opts.dontneed_batch = quarter ? quarter : 1;
}

/* --zcrx: wait up to 5 s for the queues to lose their instances. */
static void zcrx_wait_closed(struct devmem_nl *nl)
{
	uint32_t buf_len;
	int i, q, left;

	for (i = 0; i < 100; i++) {
		for (left = 0, q = start_queue; q < start_queue + num_queues; q++)
			if (!devmem_queue_io_uring(nl, nic.ifindex, q, &buf_len))
				left += !!buf_len;
		if (!left)
			return;
		usleep(50000);
	}
	fprintf(stderr, "zcrx: queues still held after 5 s\n");
}

static int do_server(void)
{
	int err, lfd, ret = 1;
	struct devmem_nl nl;
	uint32_t id = 0;

	if (geteuid()) {
		fprintf(stderr, "needs root (CAP_NET_ADMIN to bind a dmabuf)\n");
		return 1;
	}
	nic.ifindex = if_nametoindex(ifname);
	if (!nic.ifindex) {
		fprintf(stderr, "no interface %s\n", ifname);
		return 1;
	}
	if (devmem_nl_open(&nl)) {
		fprintf(stderr, "netlink: no netdev family (no devmem TCP in this kernel)\n");
		return 1;
	}
	if (server_queues(&nl))
		goto out_nl;
	/* --zcrx --memory host: the instances' own areas, no dmabuf */
	mem.fd = -1;
	if (!use_zcrx || strcmp(memory, "host")) {
		err = mem_open(&mem, memory, dmabuf_size, IOV_LEN,
			       rx_page_size);
		if (err) {
			if (err == -ENODEV)
				ret = KSFT_SKIP;	/* no GPU here */
			goto out_nl;
		}
	}
	limit_token_batch();
	if (!skip_nic_config && nic_setup(&nl))
		goto out_restore;
	print_queue_stats("before");
	if (use_zcrx) {
		zcrx = ncdm_zcrx_open(nic.ifindex, start_queue, num_queues,
				      mem.fd, dmabuf_size, rx_page_size);
		if (!zcrx)
			goto out_restore;
		fprintf(stderr, "io_uring zero-copy receive on %s queues %d..%d\n",
			ifname, start_queue, start_queue + num_queues - 1);
	} else if (bind_queues(&nl, mem.fd, &id)) {
		goto out_restore;
	} else {
		fprintf(stderr, "bound dmabuf id %u to %s queues %d..%d\n", id,
			ifname, start_queue, start_queue + num_queues - 1);
	}
	bound_nl = &nl;
	lfd = listen_server("");
	if (lfd < 0)
		goto out_unbind;
	ret = server_receive(lfd, id) ? 1 : 0;
	close(lfd);
out_unbind:
	bound_nl = NULL;
	if (zcrx) {
		/* the ring's exit closes the queues, in a work item */
		ncdm_zcrx_close(zcrx);
		zcrx = NULL;
		zcrx_wait_closed(&nl);
	}
	devmem_nl_close(&nl);	/* closing the socket unbinds */
	devmem_nl_open(&nl);
out_restore:
	nic_restore(&nl);
	if (mem.fd >= 0)
		mem_close(&mem);
out_nl:
	devmem_nl_close(&nl);
	return ret;
}

/* Bind self-tests, like upstream's run_devmem_tests(). */
static int do_selftests(void)
{
	struct devmem_queue q[2];
	uint32_t combined = 0, max = 0, id;
	int dmabuf, hds = 0, fails = 0;
	struct devmem_nl nl, nl2;

#define CHECK(cond, name) do {						\
	bool ok_ = (cond);						\
	printf("%s %s\n", ok_ ? "ok" : "FAIL", name);			\
	fails += !ok_;							\
} while (0)

	nic.ifindex = if_nametoindex(ifname);
	if (!nic.ifindex || devmem_nl_open(&nl) || devmem_nl_open(&nl2)) {
		fprintf(stderr, "no interface %s or no netdev family\n", ifname);
		return 1;
	}
	if (mem_open(&mem, memory, dmabuf_size, IOV_LEN, rx_page_size))
		return 1;
	dmabuf = mem.fd;
	ethtool_get_channels(&nl, nic.ifindex, &combined, &max);
	ethtool_get_hds(&nl, nic.ifindex, &hds);
	if (combined < 2) {
		fprintf(stderr, "%s: needs at least 2 queues\n", ifname);
		return 1;
	}
	q[0].id = combined / 2;
	q[1].id = combined - 1;
	q[0].type = UP_NETDEV_QUEUE_TYPE_RX;
	q[1].type = UP_NETDEV_QUEUE_TYPE_RX;

	CHECK(devmem_bind_rx_raw(&nl, BIND_IFINDEX | BIND_FD, nic.ifindex,
				 dmabuf, q, 0, NULL) == -EINVAL,
	      "bind with no queues fails");
	ethtool_set_hds(&nl, nic.ifindex, false);
	CHECK(devmem_bind_rx(&nl, nic.ifindex, dmabuf, q, 2, NULL) == -EINVAL,
	      "bind with tcp-data-split off fails");
	ethtool_set_hds(&nl, nic.ifindex, true);
	CHECK(!devmem_bind_rx(&nl2, nic.ifindex, dmabuf, q, 2, &id),
	      "bind with tcp-data-split on succeeds");
	CHECK(ethtool_set_channels(&nl, nic.ifindex, q[0].id) == -EINVAL,
	      "shrinking channels below the bound queues fails");
	devmem_nl_close(&nl2);
	id = ~0U;
	devmem_queue_get(&nl, nic.ifindex, q[0].id, UP_NETDEV_QUEUE_TYPE_RX,
			 &id);
	CHECK(id == 0, "closing the netlink socket unbinds");
	if (hds != ETHTOOL_TCP_DATA_SPLIT_ENABLED)
		ethtool_set_hds(&nl, nic.ifindex, false);
	mem_close(&mem);
	devmem_nl_close(&nl);
	printf("%d self-tests failed\n", fails);
	return !!fails;
}

static int do_show_queues(void)
{
	return ncdm_show_queues(ifname);
}

/* Bind a dmabuf of --size bytes to the last queue, report how long
 * bind-rx took and what the binding costs the kernel, unbind. For the benchmark; the
 * NIC is left as it is (tcp-data-split must be on: --hds on).
 */
static int do_bind_only(void)
{
	struct devmem_queue q = { .type = UP_NETDEV_QUEUE_TYPE_RX };
	unsigned long long fixed = 0, per_niov = 0, niovs, mem_bytes;
	uint32_t combined = 0, max = 0, id = 0;
	struct devmem_nl nl;
	char line[256];
	int dmabuf, err = 1;
	double t0, t1;
	FILE *f;

	nic.ifindex = if_nametoindex(ifname);
	if (!nic.ifindex || devmem_nl_open(&nl))
		return 1;
	/* the last queue; without a channels op, the only one */
	if (ethtool_get_channels(&nl, nic.ifindex, &combined, &max))
		combined = sysfs_rx_queues();
	q.id = combined ? combined - 1 : 0;
	if (mem_open(&mem, memory, dmabuf_size, IOV_LEN, rx_page_size))
		goto out;
	dmabuf = mem.fd;
	nl.rx_page_size = rx_page_size;
	t0 = now();
	err = devmem_bind_rx(&nl, nic.ifindex, dmabuf, &q, 1, &id);
	t1 = now();
	if (err) {
		fprintf(stderr, "bind-rx: %s %s\n", strerror(-err), nl.extack);
		goto out_close;
	}
	/* what the binding costs the kernel (debugfs, CONFIG_NET_DEVMEM_DEBUG) */
	f = fopen("/sys/kernel/debug/devmem/binding_mem", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "binding_bytes %llu", &fixed) != 1 &&
		    sscanf(line, "niov_bytes %llu", &per_niov) != 1)
			fprintf(stderr, "binding_mem: unknown line %s", line);
	if (f)
		fclose(f);
	niovs = dmabuf_size / (rx_page_size ?: getpagesize());
	mem_bytes = fixed + niovs * per_niov;
	printf("bind size_bytes=%zu rx_page_size=%u niovs=%llu netlink_bind_us=%.0f ",
	       dmabuf_size, rx_page_size ?: getpagesize(), niovs,
	       (t1 - t0) * 1e6);
	printf("mem_bytes=%llu bytes_per_niov=%.1f\n", mem_bytes,
	       niovs ? (double)mem_bytes / niovs : 0.0);
out_close:
	mem_close(&mem);
out:
	devmem_nl_close(&nl);
	return !!err;
}

/* tcp-data-split on, off or auto (the driver's default) over ethtool
 * netlink
 */
static int do_set_hds(void)
{
	struct devmem_nl nl;
	int ifindex, err;
	uint8_t mode;

	if (!strcmp(set_hds, "on"))
		mode = ETHTOOL_TCP_DATA_SPLIT_ENABLED;
	else if (!strcmp(set_hds, "off"))
		mode = ETHTOOL_TCP_DATA_SPLIT_DISABLED;
	else if (!strcmp(set_hds, "auto"))
		mode = ETHTOOL_TCP_DATA_SPLIT_UNKNOWN;
	else
		return 2;
	ifindex = if_nametoindex(ifname);
	if (!ifindex || devmem_nl_open(&nl))
		return 1;
	err = ethtool_set_hds_mode(&nl, ifindex, mode);
	if (err)
		fprintf(stderr, "%s: tcp-data-split %s: %s %s\n", ifname, set_hds,
			strerror(-err), nl.extack);
	devmem_nl_close(&nl);
	return !!err;
}

static int do_client(void)
{
	struct sockaddr_in6 sa, local;
	char buf[65536];
	ssize_t n;
	int fd;

	if (parse_addr(server_ip, port, &sa))
		return 1;
	fd = socket(AF_INET6, SOCK_STREAM, 0);
	if (client_ip && (parse_addr(client_ip, 0, &local) ||
			  bind(fd, (struct sockaddr *)&local, sizeof(local)))) {
		fprintf(stderr, "bind %s: %s\n", client_ip, strerror(errno));
		return 1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "connect %s port %u: %s\n", server_ip, port,
			strerror(errno));
		return 1;
	}
	if (tx_bench)
		return devmem_send_bench(fd, ifname, memory, dmabuf_size,
					 tx_bytes, tx_bench);
	/* from device memory: the route's device is bound for TX */
	if (ifname)
		return devmem_send(fd, ifname, memory, dmabuf_size, tx_chunk);
	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			return 1;
	close(fd);
	return 0;
}

static int do_pair_show(void)
{
	char ifname_buf[IFNAMSIZ_PAIR];

	int err = pair_nic(memory, pair_owner, false, ifname_buf);

	return err == -ENODEV ? KSFT_SKIP : err ? 1 : 0;
}

/* The exporter's name of dmabuf @fd from /proc (dma-buf's fdinfo), or "" */
static void dmabuf_exporter(int fd, char *name, size_t len)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	name[0] = 0;
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "exp_name: %63s", name) == 1)
			break;
	if (f)
		fclose(f);
}

/*
 * --self-check: the memory provider alone, no NIC. The dmabuf must be one
 * of the size asked for; the -v pattern (7 by default) goes in through
 * the provider's write op (the TX path's), in pieces that start and end
 * off any alignment; it comes back through validate_frag(), the receive
 * path's check of a fragment, in fragments of 1 byte to beyond the read
 * bounce buffer's first size, the first and the last byte included.
 */
static int do_self_check(void)
{
	static const uint32_t lens[] = {
		1, 7, 4095, 4096, 4097, IOV_LEN - 1, IOV_LEN, IOV_LEN + 1,
		3 * IOV_LEN + 5,
	};
	struct dmabuf_cmsg dc = {};
	size_t chunk = 1000003, off, len, writes = 0;
	unsigned int i, longest = 0;
	struct rx_stats st = {};
	char exporter[64];
	uint8_t *buf;
	off_t end;
	int err;

	if (!rx_opts.validate)
		rx_opts.validate = PATTERN_LEN;
	err = mem_open(&mem, memory, dmabuf_size, IOV_LEN, 0);
	if (err)
		return err == -ENODEV ? KSFT_SKIP : 1;
	end = lseek(mem.fd, 0, SEEK_END);
	dmabuf_exporter(mem.fd, exporter, sizeof(exporter));
	printf("self-check: %s dmabuf fd %d, exporter %s, %lld bytes\n",
	       memory, mem.fd, exporter[0] ? exporter : "(none)",
	       (long long)end);
	if (end != (off_t)dmabuf_size || !exporter[0]) {
		fprintf(stderr, "not a dmabuf of %zu bytes\n", dmabuf_size);
		goto out_fail;
	}
	buf = malloc(chunk);
	if (!buf)
		goto out_fail;
	for (off = 0; off < dmabuf_size; off += len, writes++) {
		len = dmabuf_size - off < chunk ? dmabuf_size - off : chunk;
		for (i = 0; i < len; i++)
			buf[i] = pattern_at_n(off + i, rx_opts.validate);
		err = mem_write(&mem, off, buf, len);
		if (err) {
			fprintf(stderr, "write at %zu: %s\n", off, strerror(-err));
			free(buf);
			goto out_fail;
		}
	}
	free(buf);
	for (off = 0, i = 0; off < dmabuf_size; off += len, i++) {
		len = lens[i % ARRAY_SIZE(lens)];
		if (len > dmabuf_size - off)
			len = dmabuf_size - off;
		if (len > longest)
			longest = len;
		dc.frag_offset = off;
		dc.frag_size = len;
		validate_frag(&dc, 0, &st, NULL);
	}
	printf("self-check: wrote %zu bytes in %zu writes; ", dmabuf_size,
	       writes);
	printf("read back %llu bytes in %llu fragments of 1 to %u bytes: %llu errors\n",
	       (unsigned long long)st.bytes, (unsigned long long)st.frags,
	       longest, (unsigned long long)st.errors);
	mem_close(&mem);
	return st.errors || st.bytes != dmabuf_size;

out_fail:
	mem_close(&mem);
	return 1;
}

static void help(const char *prog)
{
	fprintf(stderr,
		"usage: %s -l -f IF -s ADDR [-c CLIENT] [-p PORT] [-v N] [-q NUM] [-t FIRST]\n"
		"          [-b RX_PAGE_SIZE] [-L] [-n]\n"
		"          [--sha256] [--stats] [--size BYTES]\n"
		"          [--memory udmabuf|heap|p2p|cuda|rocm]\n"
		"          [--allow-host] [--connections N [--parallel]] [--unbind-after BYTES]\n"
		"          [--uring | --zcrx [--memory host] [--zcrx-rings N]]\n"
		"       %s -f IF                  (bind self-tests)\n"
		"       %s -f IF --show-queues    (what backs each RX queue, NAPI ids)\n"
		"       %s --pools                (page pools, in flight, detached)\n"
		"       %s -f IF --hds on|off|auto (tcp-data-split over netlink)\n"
		"       %s -f IF --bind-only [--size BYTES] (bind cost, for make bench)\n"
		"       %s --self-check [--memory M] [--size BYTES] [-v N] (the memory\n"
		"                 provider alone: write, read back, validate)\n"
		"       %s --pair show|auto [--memory p2p | --owner BDF]  (NICs that\n"
		"                 reach the memory peer to peer; auto: -f is the closest)\n"
		"       %s -l --copy -s ADDR [-p PORT]  (plain recv, the baseline)\n"
		"       [--read-size BYTES] [--dontneed-batch FRAGS]\n"
		"       %s -f IF -s ADDR [-p PORT] [-c CLIENT] [-z CHUNK] [--size BYTES]\n"
		"          [--memory udmabuf|heap|p2p|cuda|rocm] < data (devmem TX client)\n"
		"       %s -s ADDR [-p PORT] --tx-bench devmem|zerocopy|copy [-f IF]\n"
		"          [--bytes N] [--size BYTES] (the sender of make bench)\n"
		"       %s -s ADDR [-p PORT] < data (plain TCP client)\n",
		prog, prog, prog, prog, prog, prog, prog, prog, prog, prog, prog,
		prog);
	exit(2);
}

static const struct option longopts[] = {
	{ "sha256", no_argument, NULL, 'H' },
	{ "stats", no_argument, NULL, 'S' },
	{ "size", required_argument, NULL, 'Z' },
	{ "memory", required_argument, NULL, 'M' },
	{ "allow-host", no_argument, NULL, 'A' },
	{ "show-queues", no_argument, NULL, 'Q' },
	{ "hds", required_argument, NULL, 'D' },
	{ "bind-only", no_argument, NULL, 'B' },
	{ "copy", no_argument, NULL, 'C' },
	{ "read-size", required_argument, NULL, 'R' },
	{ "dontneed-batch", required_argument, NULL, 'N' },
	{ "connections", required_argument, NULL, 'K' },
	{ "pools", no_argument, NULL, 'P' },
	{ "unbind-after", required_argument, NULL, 'U' },
	{ "parallel", no_argument, NULL, 'W' },
	{ "uring", no_argument, NULL, 'I' },
	{ "zcrx", no_argument, NULL, 'G' },
	{ "zcrx-rings", required_argument, NULL, 'J' },
	{ "pair", required_argument, NULL, 'X' },
	{ "owner", required_argument, NULL, 'O' },
	{ "tx-bench", required_argument, NULL, 'T' },
	{ "bytes", required_argument, NULL, 'Y' },
	{ "self-check", no_argument, NULL, 'E' },
	{}
};

/* What the flags select. */
enum mode { SERVER, COPY_SERVER, CLIENT, SELFTESTS, SHOW_QUEUES, SHOW_POOLS,
	    SET_HDS, BIND_ONLY, PAIR_SHOW, SELF_CHECK };

/* One option with an argument; false if the value is out of range. */
static bool parse_value(int opt, const char *arg)
{
	switch (opt) {
	case 's':
		server_ip = arg;
		break;
	case 'c':
		client_ip = arg;
		break;
	case 'p':
		port = atoi(arg);
		break;
	case 'v':
		rx_opts.validate = atoi(arg);
		return rx_opts.validate != 1 && rx_opts.validate >= 0;
	case 'q':
		num_queues = atoi(arg);
		break;
	case 't':
		start_queue = atoi(arg);
		break;
	case 'f':
		ifname = arg;
		break;
	case 'b':
		rx_page_size = strtoul(arg, NULL, 0);
		return rx_page_size >= 4096 &&
		       !(rx_page_size & (rx_page_size - 1));
	case 'z':
		tx_chunk = strtoull(arg, NULL, 0);
		return tx_chunk > 0;
	case 'Z':
		dmabuf_size = strtoull(arg, NULL, 0);
		break;
	case 'T':
		tx_bench = arg;
		return !strcmp(arg, "devmem") || !strcmp(arg, "zerocopy") ||
		       !strcmp(arg, "copy");
	case 'Y':
		tx_bytes = strtoull(arg, NULL, 0);
		return tx_bytes > 0;
	case 'M':
		memory = arg;
		break;
	case 'D':
		set_hds = arg;
		break;
	case 'R':
		rx_opts.read_size = strtoull(arg, NULL, 0);
		return rx_opts.read_size && rx_opts.read_size <= IOV_LEN;
	case 'K':
		connections = atoi(arg);
		return connections >= 1;
	case 'J':
		zcrx_rings = atoi(arg);
		return zcrx_rings >= 1 && zcrx_rings <= 64;
	case 'N':
		rx_opts.dontneed_batch = atoi(arg);
		return rx_opts.dontneed_batch >= 1 &&
		       rx_opts.dontneed_batch <= MAX_TOKEN_FRAGS;
	case 'X':
		pair = arg;
		return !strcmp(arg, "show") || !strcmp(arg, "auto");
	case 'O':
		pair_owner = arg;
		break;
	case 'U':
		/* what arrives after the unbind is in host memory */
		unbind_after = strtoull(arg, NULL, 0);
		rx_opts.allow_host = true;
		return unbind_after > 0;
	default:
		return false;
	}
	return true;
}

static enum mode parse_args(int argc, char **argv)
{
	bool listen_mode = false, pools = false, self_check = false;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "ls:c:p:v:q:t:f:b:z:Ln", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'l':
			listen_mode = true;
			break;
		case 'n':
			skip_nic_config = true;
			break;
		case 'L':
			rx_opts.fail_on_linear = true;
			break;
		case 'H':
			want_sha256 = true;
			break;
		case 'S':
			want_stats = true;
			break;
		case 'A':
			rx_opts.allow_host = true;
			break;
		case 'Q':
			show_queues = true;
			break;
		case 'B':
			bind_only = true;
			break;
		case 'C':
			copy_mode = true;
			break;
		case 'P':
			pools = true;
			break;
		case 'W':
			parallel = true;
			break;
		case 'I':
			use_uring = true;
			break;
		case 'G':
			use_zcrx = true;
			break;
		case 'E':
			self_check = true;
			break;
		default:
			if (!parse_value(opt, optarg))
				help(argv[0]);
		}
	}
	if (pools)
		return SHOW_POOLS;
	if (self_check)
		return SELF_CHECK;
	if (pair && !strcmp(pair, "show"))
		return PAIR_SHOW;
	if (pair) {
		/* --pair auto: the closest NIC that reaches the memory */
		static char paired[IFNAMSIZ_PAIR];

		if (ifname)
			help(argv[0]);
		err = pair_nic(memory, pair_owner, true, paired);
		if (err)
			exit(err == -ENODEV ? KSFT_SKIP : 1);
		ifname = paired;
	}
	/* one hash over interleaved streams would mean nothing */
	if (parallel && want_sha256)
		help(argv[0]);
	/* --unbind-after is recvmsg's */
	if (use_uring && unbind_after)
		help(argv[0]);
	/* --zcrx: one connection at a time, no binding to close */
	if (use_zcrx && (use_uring || unbind_after || parallel || copy_mode))
		help(argv[0]);
	/* --zcrx-rings: a ring per connection, the connections at once */
	if (zcrx_rings > 1 && (!use_zcrx || connections != zcrx_rings ||
			       want_sha256))
		help(argv[0]);
	if (listen_mode && (!server_ip || (!copy_mode && !ifname)))
		help(argv[0]);
	if (listen_mode)
		return copy_mode ? COPY_SERVER : SERVER;
	/* the devmem sender binds the route's device */
	if (tx_bench && !strcmp(tx_bench, "devmem") && !ifname)
		help(argv[0]);
	if (server_ip)
		return CLIENT;
	if (!ifname || client_ip || tx_chunk)
		help(argv[0]);
	if (set_hds)
		return SET_HDS;
	if (bind_only)
		return BIND_ONLY;
	return show_queues ? SHOW_QUEUES : SELFTESTS;
}

int main(int argc, char **argv)
{
	static int (*const run_mode[])(void) = {
		[SERVER] = do_server,
		[COPY_SERVER] = do_copy_server,
		[CLIENT] = do_client,
		[SELFTESTS] = do_selftests,
		[SHOW_QUEUES] = do_show_queues,
		[SHOW_POOLS] = ncdm_show_pools,
		[SET_HDS] = do_set_hds,
		[BIND_ONLY] = do_bind_only,
		[PAIR_SHOW] = do_pair_show,
		[SELF_CHECK] = do_self_check,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	enum mode mode;

	rx_opts.mem = &mem;
	mode = parse_args(argc, argv);
	/* no SA_RESTART: a signal ends recvmsg and the NIC is restored */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return run_mode[mode]();
}
