// SPDX-License-Identifier: GPL-2.0
/*
 * devmemstat: watch devmem TCP through its tracepoints (libbpf).
 *
 *   devmemstat [-i SECONDS] [-c COUNT] [-q]
 *
 * Every interval it prints, per binding, the net_iovs in use; per page
 * pool a binding feeds (one per RX queue and restart), the net_iovs in
 * flight and the allocations and releases per second; per socket that
 * received devmem, the fragments per second, the tokens outstanding
 * (handed out, minus given back with SO_DEVMEM_DONTNEED, minus dropped
 * at close) and the payload the CPU copied. On exit (SIGINT, SIGTERM or
 * after COUNT intervals) it prints "summary:" lines with the totals
 * since it started; "payload bytes copied by the CPU" counts the linear
 * parts of unreadable skbs and every readable skb a MSG_SOCK_DEVMEM
 * reader got, which is every payload byte a CPU copied to a devmem
 * reader. -q prints the summary only.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "devmemstat.h"
#include "devmemstat.skel.h"

static atomic_bool stop;

static void on_signal(int sig)
{
	atomic_store(&stop, true);
}

/* what the previous interval saw, to print rates */
struct seen_sock {
	__u64 key;
	struct devmemstat_sock s;
};

struct seen_pool {
	__u32 key;
	struct devmemstat_pool p;
};

static struct seen_sock seen_socks[DEVMEMSTAT_MAX_SOCKS];
static unsigned int nr_seen_socks;
static struct seen_pool seen_pools[DEVMEMSTAT_MAX_POOLS];
static unsigned int nr_seen_pools;

static struct devmemstat_sock *prev_sock(__u64 key)
{
	unsigned int i;

	for (i = 0; i < nr_seen_socks; i++)
		if (seen_socks[i].key == key)
			return &seen_socks[i].s;
	if (nr_seen_socks == DEVMEMSTAT_MAX_SOCKS)
		return NULL;
	seen_socks[nr_seen_socks].key = key;
	return &seen_socks[nr_seen_socks++].s;
}

static struct devmemstat_pool *prev_pool(__u32 key)
{
	unsigned int i;

	for (i = 0; i < nr_seen_pools; i++)
		if (seen_pools[i].key == key)
			return &seen_pools[i].p;
	if (nr_seen_pools == DEVMEMSTAT_MAX_POOLS)
		return NULL;
	seen_pools[nr_seen_pools].key = key;
	return &seen_pools[nr_seen_pools++].p;
}

static const char *ifname(int ifindex, char *buf)
{
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "ifindex %d", ifindex);
	return buf;
}

static __u64 tokens_out(const struct devmemstat_sock *s)
{
	__u64 back = s->freed + s->released;

	return s->frags > back ? s->frags - back : 0;
}

struct totals {
	__u64 frags, devmem, linear, host, out, dontneed;
	unsigned int socks;
};

/* Per socket; @print: the lines of an interval of @secs seconds. */
static void walk_socks(int fd, bool print, double secs, struct totals *t)
{
	__u64 key, next, *cur = NULL;
	struct devmemstat_sock s, *was;

	memset(t, 0, sizeof(*t));
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		key = next;
		cur = &key;
		if (bpf_map_lookup_elem(fd, &key, &s))
			continue;
		t->socks++;
		t->frags += s.frags;
		t->devmem += s.devmem_bytes;
		t->linear += s.linear_bytes;
		t->host += s.host_bytes;
		t->out += tokens_out(&s);
		t->dontneed += s.dontneed_calls;

		was = prev_sock(key);
		if (print && was && (memcmp(was, &s, sizeof(s)) || tokens_out(&s))) {
			printf("socket %#llx %.16s[%u]%s: ",
			       (unsigned long long)key, s.comm, s.pid,
			       s.closed ? " (closed)" : "");
			printf("%.0f frags/s, %llu tokens out, ",
			       (s.frags - was->frags) / secs,
			       (unsigned long long)tokens_out(&s));
			printf("%.1f MiB/s into device memory, ",
			       (s.devmem_bytes - was->devmem_bytes) / secs /
			       (1 << 20));
			printf("%llu bytes copied by the CPU\n",
			       (unsigned long long)(s.linear_bytes +
						    s.host_bytes));
		}
		if (was)
			*was = s;
	}
}

/* Per binding (from its pools' latest events) and per pool. */
static void walk_pools(int fd, bool print, double secs, bool summary)
{
	struct devmemstat_pool p, *was, newest[DEVMEMSTAT_MAX_POOLS];
	unsigned int n = 0, i, j;
	__u32 key, next, *cur = NULL;
	char name[IF_NAMESIZE];

	while (!bpf_map_get_next_key(fd, cur, &next)) {
		key = next;
		cur = &key;
		if (bpf_map_lookup_elem(fd, &key, &p))
			continue;
		was = prev_pool(key);
		if (print && was && memcmp(was, &p, sizeof(p))) {
			printf("pool %u (binding %u, %s queue %u): ", key,
			       p.binding_id, ifname(p.ifindex, name), p.queue);
			printf("%u net_iovs in flight, %.0f allocs/s, %.0f releases/s\n",
			       p.inflight, (p.allocs - was->allocs) / secs,
			       (p.releases - was->releases) / secs);
		}
		if (was)
			*was = p;

		/* per binding: sum the counts, keep the newest snapshot */
		for (i = 0; i < n; i++)
			if (newest[i].binding_id == p.binding_id)
				break;
		if (i == n) {
			newest[n++] = p;
			continue;
		}
		newest[i].allocs += p.allocs;
		newest[i].releases += p.releases;
		if (p.last_ns > newest[i].last_ns) {
			newest[i].last_ns = p.last_ns;
			newest[i].binding_in_use = p.binding_in_use;
		}
	}
	for (j = 0; j < n; j++) {
		const struct devmemstat_pool *nb = &newest[j];

		if (summary) {
			printf("summary: binding %u: ", nb->binding_id);
			printf("%llu net_iov allocations, %llu releases, %u in use\n",
			       (unsigned long long)nb->allocs,
			       (unsigned long long)nb->releases,
			       nb->binding_in_use);
		} else if (print) {
			printf("binding %u: %u net_iovs in use\n",
			       nb->binding_id, nb->binding_in_use);
		}
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(const char *prog)
{
	fprintf(stderr, "%s [-i SECONDS] [-c COUNT] [-q]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct totals t, last = {};
	struct devmemstat *skel;
	int interval = 1, count = -1, opt, err;
	bool quiet = false;
	double start, t0, t1;

	while ((opt = getopt(argc, argv, "i:c:qh")) != -1) {
		switch (opt) {
		case 'i':
			interval = atoi(optarg);
			break;
		case 'c':
			count = atoi(optarg);
			break;
		case 'q':
			quiet = true;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (interval < 1 || optind != argc)
		usage(argv[0]);

	skel = devmemstat__open_and_load();
	if (!skel) {
		fprintf(stderr, "devmemstat: cannot load the BPF programs: %s\n",
			strerror(errno));
		return 1;
	}
	err = devmemstat__attach(skel);
	if (err) {
		fprintf(stderr, "devmemstat: no devmem tracepoints to attach to: %s\n",
			strerror(-err));
		devmemstat__destroy(skel);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("devmemstat: watching devmem TCP; %s\n",
	       quiet ? "the summary at exit" : "every interval, and a summary at exit");
	fflush(stdout);

	t0 = now();
	start = t0;
	while (!atomic_load(&stop) && count--) {
		sleep(interval);
		t1 = now();
		/*
		 * A signal right after a tick leaves an interval too short
		 * for rates: its events go to the summary only.
		 */
		if (atomic_load(&stop) && t1 - t0 < 0.5)
			break;
		if (!quiet)
			printf("--- %.1f s\n", t1 - start);
		walk_pools(bpf_map__fd(skel->maps.pools), !quiet, t1 - t0, false);
		walk_socks(bpf_map__fd(skel->maps.socks), !quiet, t1 - t0, &t);
		if (!quiet) {
			printf("payload bytes copied by the CPU: ");
			printf("%llu in this interval, %llu in all\n",
			       t.linear + t.host - last.linear - last.host,
			       t.linear + t.host);
		}
		fflush(stdout);
		last = t;
		t0 = t1;
	}

	walk_pools(bpf_map__fd(skel->maps.pools), false, 1, true);
	walk_socks(bpf_map__fd(skel->maps.socks), false, 1, &t);
	printf("summary: %u sockets, %llu frags, %llu bytes left in device memory, ",
	       t.socks, t.frags, t.devmem);
	printf("%llu payload bytes copied by the CPU (%llu linear, %llu host), ",
	       t.linear + t.host, t.linear, t.host);
	printf("%llu tokens outstanding, %llu DONTNEED calls\n", t.out,
	       t.dontneed);
	printf("summary: page pools took %llu host pages and gave back %llu\n",
	       skel->bss->host_pages[0], skel->bss->host_pages[1]);
	devmemstat__destroy(skel);
	return 0;
}
