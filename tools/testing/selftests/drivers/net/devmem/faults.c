// SPDX-License-Identifier: GPL-2.0
/*
 * Fault scenarios for devmem TCP: everything that can end a binding, a
 * socket, a queue or a device while device memory is in flight. Each test
 * streams the pattern from a peer namespace over an hdsim pair and ends
 * (fixture teardown) with the leak check: no binding left alive, no page
 * pool left detached with pages in flight, no pool still on a dmabuf.
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "../../../kselftest_harness.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "devmem_traffic.h"

#define DMABUF_SIZE		(64 << 20)
#define RX_ADDR			"192.0.4.1"
#define TX_ADDR			"192.0.4.2"
#define PORT			5400
#define IOV_LEN			1048576

static char ctrl[80000];

/* what a receive loop saw */
struct stream {
	size_t bytes;		/* validated, in stream order */
	size_t devmem;		/* of which from the dmabuf */
	size_t host;		/* of which copied to the iovec */
	size_t errors;		/* bytes that were not the pattern */
	size_t frags;
	uint32_t *held;		/* if set, tokens kept (recv_step @keep) */
	size_t nheld;
};

/*
 * Several dmabufs behind one mapping: binding id -> offset of its dmabuf
 * in the mapping, learnt from a pipe that binders write {id, offset} to.
 * Off (all frags in @map at their offset) while id_pipe < 0.
 */
static int id_pipe = -1;
static long id_base[4096];

static const uint8_t *frag_base(const uint8_t *map, uint32_t id)
{
	uint32_t msg[2];

	if (id_pipe < 0)
		return map;
	while (id >= 4096 || id_base[id] < 0) {
		if (read(id_pipe, msg, sizeof(msg)) != sizeof(msg))
			return NULL;
		if (msg[0] < 4096)
			id_base[msg[0]] = msg[1];
	}
	return map + id_base[id];
}

FIXTURE(faults)
{
	struct devmem_nl nl;
	unsigned int dev_id;
	char ifname[IFNAMSIZ];
	char peer[IFNAMSIZ];
	char ns[32];
	int ifindex;
	int dmabuf;
	uint8_t *map;
	int lfd;
	bool dev_gone;
};

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

	run("ip link set lo up");
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

/* Leak check: bindings and page pools back to where they started. */
static int pools_settled(struct devmem_nl *nl, int ms)
{
	struct devmem_pool_info pools[256];
	int i, n, bad = -1;

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

/* Listening socket on RX_ADDR:@port */
static int listen_on(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_port = htons(port);
	inet_pton(AF_INET, RX_ADDR, &sa.sin_addr);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 4)) {
		close(fd);
		return -1;
	}
	return fd;
}

FIXTURE_SETUP(faults)
{
	self->dmabuf = -1;
	self->lfd = -1;
	self->dev_id = 6000 + getpid() % 50000;
	snprintf(self->ns, sizeof(self->ns), "faults-%u", self->dev_id);
	if (access(HDSIM_SYS, F_OK))
		SKIP(return, "no hdsim driver (CONFIG_HDSIM)");
	debugfs_mount();
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
	ASSERT_EQ(0, pools_settled(&self->nl, 10000));

	ASSERT_EQ(0, hdsim_new(self->dev_id, 4));
	self->ifindex = hdsim_port(self->dev_id, 0, self->ifname);
	ASSERT_GT(self->ifindex, 0);
	ASSERT_GT(hdsim_port(self->dev_id, 1, self->peer), 0);
	ASSERT_EQ(0, run("ip netns add %s", self->ns));
	ASSERT_EQ(0, run("ip link set %s netns %s", self->peer, self->ns));
	ASSERT_EQ(0, run("ip -n %s addr add %s/24 dev %s", self->ns, TX_ADDR,
			 self->peer));
	ASSERT_EQ(0, run("ip -n %s link set %s up", self->ns, self->peer));
	ASSERT_EQ(0, run("ip -n %s link set lo up", self->ns));
	ASSERT_EQ(0, run("ip addr add %s/24 dev %s", RX_ADDR, self->ifname));
	ASSERT_EQ(0, run("ip link set %s up", self->ifname));
	/* queues 0-1 for RSS, 2-3 for devmem */
	ASSERT_EQ(0, run("ethtool -X %s equal 2", self->ifname));
	ASSERT_EQ(0, run("ethtool -K %s ntuple on", self->ifname));
	ASSERT_EQ(0, ethtool_set_hds(&self->nl, self->ifindex, true));

	self->dmabuf = udmabuf_alloc(DMABUF_SIZE, NULL);
	ASSERT_GE(self->dmabuf, 0);
	self->map = mmap(NULL, DMABUF_SIZE, PROT_READ, MAP_SHARED,
			 self->dmabuf, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->lfd = listen_on(PORT);
	ASSERT_GE(self->lfd, 0);
}

FIXTURE_TEARDOWN(faults)
{
	if (self->lfd >= 0)
		close(self->lfd);
	if (self->dmabuf >= 0)
		close(self->dmabuf);
	run("ip netns del %s 2>/dev/null", self->ns);
	if (!self->dev_gone)
		hdsim_del(self->dev_id);
	if (devmem_wait_bindings(0, 10000))
		run("cat " DEVMEM_DEBUGFS " | sed 's/^/# /'");
	EXPECT_EQ(0, devmem_wait_bindings(0, 5000));
	if (pools_settled(&self->nl, 10000)) {
		/* who still holds memory: sockets, in every namespace */
		run("cat /proc/net/sockstat | sed 's/^/# /'; ss -tanempi | sed 's/^/# /'");
		run("ip -all netns exec ss -tanempi | sed 's/^/# /'");
		EXPECT_EQ(0, pools_settled(&self->nl, 100));
	}
	devmem_nl_close(&self->nl);
}

/* Steer TCP to @port onto @queue. */
static int steer(const char *ifname, int port, int queue)
{
	return run("ethtool -N %s flow-type tcp4 dst-port %d action %d >/dev/null",
		   ifname, port, queue);
}

static int bind_queues(struct devmem_nl *nl, int ifindex, int dmabuf,
		       int first, int n, uint32_t *id)
{
	struct devmem_queue q[4];
	int i;

	for (i = 0; i < n; i++) {
		q[i].id = first + i;
		q[i].type = UP_NETDEV_QUEUE_TYPE_RX;
	}
	return devmem_bind_rx(nl, ifindex, dmabuf, q, n, id);
}

static size_t check_pattern(const uint8_t *p, size_t len, size_t off)
{
	size_t i, bad = 0;

	for (i = 0; i < len; i++)
		bad += p[i] != pattern_at(off + i);
	return bad;
}

/*
 * One recvmsg(MSG_SOCK_DEVMEM): validate what it returned, device or host
 * memory, and give the tokens back unless @keep. Returns recvmsg's value.
 */
static ssize_t recv_step(int fd, const uint8_t *map, struct stream *st,
			 bool keep, size_t ctrl_len)
{
	static uint8_t iov_buf[IOV_LEN];
	struct iovec iov = { iov_buf, IOV_LEN };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctrl,
		.msg_controllen = ctrl_len,
	};
	struct dmabuf_token t[128];
	const uint8_t *base;
	struct cmsghdr *cm;
	bool cmsgs = false;
	ssize_t ret;
	int n = 0;

	ret = recvmsg(fd, &msg, MSG_SOCK_DEVMEM);
	if (ret <= 0)
		return ret;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		struct dmabuf_cmsg *dc = (void *)CMSG_DATA(cm);

		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		cmsgs = true;
		if (cm->cmsg_type == SCM_DEVMEM_LINEAR) {
			st->errors += check_pattern(iov_buf, dc->frag_size,
						    st->bytes);
			st->host += dc->frag_size;
			st->bytes += dc->frag_size;
			continue;
		}
		if (cm->cmsg_type != SCM_DEVMEM_DMABUF)
			continue;
		base = frag_base(map, dc->dmabuf_id);
		if (!base || dc->frag_offset + dc->frag_size > DMABUF_SIZE)
			st->errors += dc->frag_size;
		else
			st->errors += check_pattern(base + dc->frag_offset,
						    dc->frag_size, st->bytes);
		st->devmem += dc->frag_size;
		st->bytes += dc->frag_size;
		st->frags++;
		if (keep) {
			if (st->held)
				st->held[st->nheld++] = dc->frag_token;
			continue;
		}
		t[n].token_start = dc->frag_token;
		t[n].token_count = 1;
		if (++n == 128) {
			setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, t,
				   sizeof(t[0]) * n);
			n = 0;
		}
	}
	if (n)
		setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, t,
			   sizeof(t[0]) * n);
	if (!cmsgs) {
		/* a queue without the dmabuf: plain data in the iovec */
		st->errors += check_pattern(iov_buf, ret, st->bytes);
		st->host += ret;
		st->bytes += ret;
	}
	return ret;
}

/* Receive until EOF (or an error, or @until bytes); tokens returned. */
static ssize_t recv_stream(int fd, const uint8_t *map, struct stream *st,
			   size_t until)
{
	ssize_t ret = 1;

	while (st->bytes < until &&
	       (ret = recv_step(fd, map, st, false, sizeof(ctrl))) > 0)
		;
	return ret;
}

/* Column @col (0-based) of the debugfs line of binding @id, or -1. */
static long binding_column(uint32_t id, int col)
{
	char line[256];
	long v = -1;
	FILE *f;

	f = fopen(DEVMEM_DEBUGFS, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save;
		int i = 0;

		tok = strtok_r(line, " ", &save);
		if (!tok || strtoul(tok, NULL, 10) != id)
			continue;
		for (; tok && i < col; i++)
			tok = strtok_r(NULL, " ", &save);
		if (tok)
			v = strtol(tok, NULL, 10);
	}
	fclose(f);
	return v;
}

#define COL_FREE	4
#define COL_INFLIGHT	5

static int wait_binding_gone(uint32_t id, int ms)
{
	for (; ms > 0; ms -= 10) {
		if (binding_column(id, 0) < 0)
			return 0;
		usleep(10000);
	}
	return -1;
}

/*
 * Closing the netlink socket in the middle of a stream unbinds: the queue
 * restarts on host memory, and the stream goes on, every byte intact,
 * partly in device memory and partly in host memory.
 */
TEST_F_TIMEOUT(faults, unbind_under_traffic_loses_nothing, 120)
{
	size_t bytes = 48 << 20;
	struct stream st = {};
	struct devmem_nl nl2;
	int fd, queued = 0;
	uint32_t id;
	pid_t pid;

	ASSERT_EQ(0, steer(self->ifname, PORT, 3));
	ASSERT_EQ(0, devmem_nl_open(&nl2));
	ASSERT_EQ(0, bind_queues(&nl2, self->ifindex, self->dmabuf, 3, 1,
				 &id));
	pid = sender_to(self->ns, RX_ADDR, PORT, bytes);
	fd = accept(self->lfd, NULL, NULL);
	ASSERT_GE(fd, 0);

	ASSERT_GT(recv_stream(fd, self->map, &st, 4 << 20), 0);
	ioctl(fd, FIONREAD, &queued);
	devmem_nl_close(&nl2);
	TH_LOG("unbound after %zu bytes, %d queued", st.bytes, queued);
	EXPECT_EQ(0, recv_stream(fd, self->map, &st, SIZE_MAX));

	EXPECT_EQ(bytes, st.bytes);
	EXPECT_EQ(0, st.errors);
	EXPECT_GT(st.devmem, 0);
	EXPECT_GT(st.host, 0);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

/*
 * A receiver killed with SIGKILL while it holds over 10,000 tokens: its
 * socket and netlink socket close in the kernel's own exit path, every
 * net_iov goes back and the binding goes away.
 */
TEST_F_TIMEOUT(faults, sigkill_receiver_holding_10k_tokens, 180)
{
	int ready[2], report[2];
	size_t frags = 0;
	long inflight;
	uint32_t id;
	pid_t rx, tx;

	ASSERT_EQ(0, steer(self->ifname, PORT + 1, 3));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(report));
	rx = fork();
	ASSERT_GE(rx, 0);
	if (!rx) {
		struct stream st = {};
		struct devmem_nl nl;
		int lfd, fd;

		if (devmem_nl_open(&nl) ||
		    bind_queues(&nl, self->ifindex, self->dmabuf, 3, 1, &id))
			_exit(1);
		lfd = listen_on(PORT + 1);
		if (write(ready[1], &id, sizeof(id)) != sizeof(id) || lfd < 0)
			_exit(2);
		fd = accept(lfd, NULL, NULL);
		while (st.frags < 10000 &&
		       recv_step(fd, self->map, &st, true, sizeof(ctrl)) > 0)
			;
		if (write(report[1], &st.frags, sizeof(st.frags)) < 0)
			_exit(3);
		pause();
		_exit(0);
	}
	ASSERT_EQ(sizeof(id), read(ready[0], &id, sizeof(id)));
	tx = sender_to(self->ns, RX_ADDR, PORT + 1, 48 << 20);
	ASSERT_EQ(sizeof(frags), read(report[0], &frags, sizeof(frags)));
	EXPECT_GE(frags, 10000);
	inflight = binding_column(id, COL_INFLIGHT);
	EXPECT_GE(inflight, 10000);
	TH_LOG("killing the receiver with %zu frags held, %ld net_iovs in flight",
	       frags, inflight);

	kill(rx, SIGKILL);
	reap(rx);
	kill(tx, SIGKILL);
	reap(tx);
	EXPECT_EQ(0, devmem_wait_bindings(0, 10000));
}

/*
 * Upstream's panic case: the device goes away while a socket holds tokens
 * and the binding is still open; then tokens come back, the TCP socket
 * closes and last the netlink socket.
 */
TEST_F_TIMEOUT(faults, device_deleted_with_tokens_held_then_sockets_closed, 120)
{
	static uint32_t held[DMABUF_SIZE / 4096];
	struct stream st = { .held = held };
	struct dmabuf_token t[128];
	struct devmem_nl nl2;
	size_t i, n = 0;
	int fd, freed = 0;
	uint32_t id;
	pid_t pid;

	ASSERT_EQ(0, steer(self->ifname, PORT, 3));
	ASSERT_EQ(0, devmem_nl_open(&nl2));
	ASSERT_EQ(0, bind_queues(&nl2, self->ifindex, self->dmabuf, 3, 1,
				 &id));
	pid = sender_to(self->ns, RX_ADDR, PORT, 8 << 20);
	fd = accept(self->lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	/* hold the tokens of the first MiB */
	while (st.bytes < (1 << 20))
		ASSERT_GT(recv_step(fd, self->map, &st, true, sizeof(ctrl)), 0);
	ASSERT_EQ(st.frags, st.nheld);

	ASSERT_EQ(0, hdsim_del(self->dev_id));
	self->dev_gone = true;
	/* the binding is unbound but alive: its net_iovs are still out */
	EXPECT_GE(binding_column(id, COL_INFLIGHT), (long)st.nheld);

	/* every token comes back, exactly once, with the device gone */
	for (i = 0; i < st.nheld; i++) {
		t[n].token_start = held[i];
		t[n].token_count = 1;
		if (++n == 128 || i == st.nheld - 1) {
			freed += setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED,
					    t, n * sizeof(t[0]));
			n = 0;
		}
	}
	EXPECT_EQ(st.nheld, freed);
	close(fd);
	kill(pid, SIGKILL);
	reap(pid);
	devmem_nl_close(&nl2);
}

/* Same, the other way round: netlink socket first, TCP socket last. */
TEST_F_TIMEOUT(faults, device_deleted_then_netlink_closed_then_tcp_closed, 120)
{
	struct stream st = {};
	struct devmem_nl nl2;
	uint32_t id;
	pid_t pid;
	int fd;

	ASSERT_EQ(0, steer(self->ifname, PORT, 3));
	ASSERT_EQ(0, devmem_nl_open(&nl2));
	ASSERT_EQ(0, bind_queues(&nl2, self->ifindex, self->dmabuf, 3, 1,
				 &id));
	pid = sender_to(self->ns, RX_ADDR, PORT, 8 << 20);
	fd = accept(self->lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	while (st.bytes < (1 << 20))
		ASSERT_GT(recv_step(fd, self->map, &st, true, sizeof(ctrl)), 0);

	ASSERT_EQ(0, hdsim_del(self->dev_id));
	self->dev_gone = true;
	devmem_nl_close(&nl2);
	/* tokens still held by the socket keep the binding alive */
	EXPECT_EQ(1, devmem_bindings_live());
	close(fd);
	kill(pid, SIGKILL);
	reap(pid);
}

/*
 * The namespace holding the bound device is deleted while the binding's
 * netlink socket (opened in that namespace) is open; then its owner dies.
 * The socket keeps the namespace alive until then, so namespace teardown
 * and unbind race in the kernel's exit path.
 */
TEST_F_TIMEOUT(faults, netns_of_bound_device_deleted_then_owner_killed, 60)
{
	char rxns[40];
	int ready[2];
	uint32_t id;
	pid_t child;

	snprintf(rxns, sizeof(rxns), "%s-rx", self->ns);
	ASSERT_EQ(0, run("ip netns add %s", rxns));
	ASSERT_EQ(0, run("ip link set %s netns %s", self->ifname, rxns));
	ASSERT_EQ(0, pipe(ready));
	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		struct devmem_nl nl;
		char path[64];
		int nsfd, home;

		home = open("/proc/self/ns/net", O_RDONLY);
		snprintf(path, sizeof(path), "/run/netns/%s", rxns);
		nsfd = open(path, O_RDONLY);
		if (home < 0 || nsfd < 0 || setns(nsfd, CLONE_NEWNET))
			_exit(1);
		close(nsfd);
		if (devmem_nl_open(&nl) ||
		    bind_queues(&nl, if_nametoindex(self->ifname),
				self->dmabuf, 3, 1, &id))
			_exit(2);
		/* only the socket pins the namespace now */
		if (setns(home, CLONE_NEWNET))
			_exit(3);
		if (write(ready[1], &id, sizeof(id)) != sizeof(id))
			_exit(4);
		pause();
		_exit(0);
	}
	ASSERT_EQ(sizeof(id), read(ready[0], &id, sizeof(id)));
	EXPECT_EQ(1, devmem_bindings_live());
	ASSERT_EQ(0, run("ip netns del %s", rxns));
	usleep(200000);
	/* still bound: the socket holds the namespace */
	EXPECT_EQ(1, devmem_bindings_live());

	kill(child, SIGKILL);
	reap(child);
	EXPECT_EQ(0, devmem_wait_bindings(0, 10000));
}

/* Restarting the bound queue under traffic keeps the binding and the data. */
TEST_F_TIMEOUT(faults, bound_queue_restart_under_traffic_loses_nothing, 120)
{
	size_t bytes = 16 << 20, mark = 2 << 20;
	struct stream st = {};
	char path[128];
	uint32_t id;
	pid_t pid;
	int fd, i;

	snprintf(path, sizeof(path), "/sys/kernel/debug/hdsim/hdsim%u/port0/queue_restart",
		 self->dev_id);
	ASSERT_EQ(0, steer(self->ifname, PORT, 3));
	ASSERT_EQ(0, bind_queues(&self->nl, self->ifindex, self->dmabuf, 3, 1,
				 &id));
	pid = sender_to(self->ns, RX_ADDR, PORT, bytes);
	fd = accept(self->lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 4; i++) {
		ASSERT_GT(recv_stream(fd, self->map, &st, mark * (i + 1)), 0);
		ASSERT_EQ(0, write_file(path, "3"));
	}
	EXPECT_EQ(0, recv_stream(fd, self->map, &st, SIZE_MAX));
	EXPECT_EQ(bytes, st.bytes);
	EXPECT_EQ(bytes, st.devmem);
	EXPECT_EQ(0, st.errors);
	EXPECT_EQ(0, reap(pid));
	close(fd);
	/* the queue is still on the dmabuf after the restarts */
	EXPECT_EQ(1, devmem_bindings_live());
	devmem_nl_close(&self->nl);
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

/* Two queues of one binding, two connections, two receiving processes. */
TEST_F_TIMEOUT(faults, two_receivers_on_two_queues_of_one_binding, 120)
{
	size_t bytes = 8 << 20;
	struct stream st = {};
	int lfd2, fa, fb, status;
	pid_t sa, sb, child;
	uint32_t id;

	ASSERT_EQ(0, steer(self->ifname, PORT, 2));
	ASSERT_EQ(0, steer(self->ifname, PORT + 2, 3));
	ASSERT_EQ(0, bind_queues(&self->nl, self->ifindex, self->dmabuf, 2, 2,
				 &id));
	lfd2 = listen_on(PORT + 2);
	ASSERT_GE(lfd2, 0);
	sa = sender_to(self->ns, RX_ADDR, PORT, bytes);
	sb = sender_to(self->ns, RX_ADDR, PORT + 2, bytes);
	fa = accept(self->lfd, NULL, NULL);
	fb = accept(lfd2, NULL, NULL);
	ASSERT_GE(fa, 0);
	ASSERT_GE(fb, 0);

	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		struct stream cs = {};

		recv_stream(fb, self->map, &cs, SIZE_MAX);
		_exit(cs.bytes != bytes || cs.devmem != bytes || cs.errors);
	}
	close(fb);
	EXPECT_EQ(0, recv_stream(fa, self->map, &st, SIZE_MAX));
	EXPECT_EQ(bytes, st.bytes);
	EXPECT_EQ(bytes, st.devmem);
	EXPECT_EQ(0, st.errors);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_EQ(0, reap(sa));
	EXPECT_EQ(0, reap(sb));
	close(fa);
	close(lfd2);
	devmem_nl_close(&self->nl);
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

/* A udmabuf over [@offset, @offset + @size) of @memfd. */
static int udmabuf_part(int memfd, size_t offset, size_t size)
{
	struct udmabuf_create c = {
		.memfd = memfd,
		.flags = UDMABUF_FLAGS_CLOEXEC,
		.offset = offset,
		.size = size,
	};
	int dev, fd;

	dev = open("/dev/udmabuf", O_RDWR);
	if (dev < 0)
		return -1;
	fd = ioctl(dev, UDMABUF_CREATE, &c);
	close(dev);
	return fd;
}

/*
 * Two processes bind and unbind the same queue in a loop, while a third
 * streams through it: every bind either wins or gets EEXIST, and the
 * stream survives every switch between host and device memory. Each
 * process binds its own half of one memfd, and rebinds it only once the
 * previous binding is gone: an unbound binding lives on while its frags
 * wait in the socket, and a second binding of the same dmabuf would hand
 * the NIC that memory again.
 */
TEST_F_TIMEOUT(faults, concurrent_bind_unbind_loops_under_traffic, 300)
{
	size_t bytes = 16 << 20, half = DMABUF_SIZE / 2;
	int i, fd, memfd, status, ids[2], winners = 0;
	struct stream st = {};
	pid_t loop[2], tx;
	uint8_t *map;
	int dmabuf[2];

	memfd = memfd_create("faults", MFD_ALLOW_SEALING);
	ASSERT_GE(memfd, 0);
	ASSERT_EQ(0, ftruncate(memfd, DMABUF_SIZE));
	ASSERT_EQ(0, fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	for (i = 0; i < 2; i++) {
		dmabuf[i] = udmabuf_part(memfd, i * half, half);
		ASSERT_GE(dmabuf[i], 0);
	}
	map = mmap(NULL, DMABUF_SIZE, PROT_READ, MAP_SHARED, memfd, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, pipe(ids));
	memset(id_base, 0xff, sizeof(id_base));
	id_pipe = ids[0];

	ASSERT_EQ(0, steer(self->ifname, PORT, 3));
	for (i = 0; i < 2; i++) {
		loop[i] = fork();
		ASSERT_GE(loop[i], 0);
		if (!loop[i]) {
			int n, won = 0, err;
			struct devmem_nl nl;
			uint32_t msg[2];

			for (n = 0; n < 100; n++) {
				if (devmem_nl_open(&nl))
					_exit(10);
				err = bind_queues(&nl, self->ifindex,
						  dmabuf[i], 3, 1, &msg[0]);
				if (!err) {
					/* tell the receiver where it points */
					msg[1] = i * half;
					if (write(ids[1], msg, sizeof(msg)) !=
					    sizeof(msg))
						_exit(12);
					won++;
				} else if (err != -EEXIST) {
					_exit(11);
				}
				devmem_nl_close(&nl);
				/* frags of the old binding may still wait in
				 * the socket: rebinding the same dmabuf before
				 * they are back would hand the NIC that memory
				 */
				if (!err && wait_binding_gone(msg[0], 10000))
					_exit(13);
			}
			_exit(won ? 0 : 1);
		}
	}
	close(ids[1]);
	tx = sender_to(self->ns, RX_ADDR, PORT, bytes);
	fd = accept(self->lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, recv_stream(fd, map, &st, SIZE_MAX));
	EXPECT_EQ(bytes, st.bytes);
	EXPECT_EQ(0, st.errors);
	/* each bind won or got EEXIST (else exit >= 10); someone won */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(loop[i], waitpid(loop[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_GE(1, WEXITSTATUS(status));
		winners += WEXITSTATUS(status) == 0;
	}
	EXPECT_LT(0, winners);
	EXPECT_EQ(0, reap(tx));
	TH_LOG("stream: %zu bytes in device memory, %zu in host memory",
	       st.devmem, st.host);
	id_pipe = -1;
	close(ids[0]);
	close(fd);
	munmap(map, DMABUF_SIZE);
	for (i = 0; i < 2; i++)
		close(dmabuf[i]);
	close(memfd);
}

/*
 * bind-rx only reaches devices of the caller's network namespace: from the
 * peer namespace our port's ifindex is unknown, and from here the peer
 * port's ifindex is.
 */
TEST_F(faults, binding_only_in_callers_netns)
{
	struct devmem_queue q = { 1, UP_NETDEV_QUEUE_TYPE_RX };
	int report[2], status;
	int peer_ifindex = 0;
	char name[IFNAMSIZ];
	pid_t child;
	uint32_t id;

	ASSERT_EQ(0, pipe(report));
	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		struct devmem_nl nl;
		char path[64];
		int nsfd, err;

		snprintf(path, sizeof(path), "/run/netns/%s", self->ns);
		nsfd = open(path, O_RDONLY);
		if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) ||
		    devmem_nl_open(&nl))
			_exit(1);
		/* our ifindex must not name a device there, or no test */
		if (if_indextoname(self->ifindex, name))
			_exit(2);
		peer_ifindex = if_nametoindex(self->peer);
		if (write(report[1], &peer_ifindex, sizeof(int)) != sizeof(int))
			_exit(3);
		err = devmem_bind_rx(&nl, self->ifindex, self->dmabuf, &q, 1,
				     &id);
		_exit(err == -ENODEV ? 0 : 4);
	}
	ASSERT_EQ(sizeof(int), read(report[0], &peer_ifindex, sizeof(int)));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	ASSERT_GT(peer_ifindex, 0);
	if (if_indextoname(peer_ifindex, name))
		SKIP(return, "peer ifindex %d also names %s here", peer_ifindex,
		     name);
	EXPECT_EQ(-ENODEV, devmem_bind_rx(&self->nl, peer_ifindex,
					  self->dmabuf, &q, 1, &id));
}

/*
 * Forwarding: data that landed in device memory and is routed out of
 * another device must be dropped (nothing could read it to transmit it),
 * never sent; the connection's data never arrives.
 */
TEST_F_TIMEOUT(faults, forwarded_unreadable_skbs_are_dropped, 60)
{
	char fwdns[40];
	uint32_t id;
	pid_t tx, rx;
	int status;

	snprintf(fwdns, sizeof(fwdns), "%s-fwd", self->ns);
	ASSERT_EQ(0, run("ip netns add %s", fwdns));
	ASSERT_EQ(0, run("ip link add fwd%u type veth peer name fwdp%u",
			 self->dev_id, self->dev_id));
	ASSERT_EQ(0, run("ip link set fwdp%u netns %s", self->dev_id, fwdns));
	ASSERT_EQ(0, run("ip addr add 198.18.0.1/24 dev fwd%u && ip link set fwd%u up",
			 self->dev_id, self->dev_id));
	ASSERT_EQ(0, run("ip -n %s addr add 198.18.0.2/24 dev fwdp%u",
			 fwdns, self->dev_id));
	ASSERT_EQ(0, run("ip -n %s link set fwdp%u up", fwdns, self->dev_id));
	ASSERT_EQ(0, run("ip -n %s route add default via 198.18.0.1", fwdns));
	ASSERT_EQ(0, run("ip -n %s route add 198.18.0.0/24 via %s", self->ns,
			 RX_ADDR));
	ASSERT_EQ(0, run("sysctl -qw net.ipv4.ip_forward=1"));
	ASSERT_EQ(0, steer(self->ifname, PORT + 3, 3));
	ASSERT_EQ(0, bind_queues(&self->nl, self->ifindex, self->dmabuf, 3, 1,
				 &id));

	/* receiver behind the router: counts what arrives in 5 s */
	rx = fork();
	ASSERT_GE(rx, 0);
	if (!rx) {
		execlp("ip", "ip", "netns", "exec", fwdns, "timeout", "8",
		       "socat", "-u", "TCP4-LISTEN:5403,reuseaddr",
		       "OPEN:/tmp/devmem-fwd.out,creat,trunc", NULL);
		_exit(127);
	}
	usleep(500000);
	tx = fork();
	ASSERT_GE(tx, 0);
	if (!tx) {
		execlp("ip", "ip", "netns", "exec", self->ns, "timeout", "5",
		       "socat", "-u", "OPEN:/dev/zero", "TCP4:198.18.0.2:5403",
		       NULL);
		_exit(127);
	}
	waitpid(tx, &status, 0);
	waitpid(rx, &status, 0);
	/* the handshake is readable and gets through; no payload does */
	EXPECT_EQ(0, run("[ ! -s /tmp/devmem-fwd.out ]"));
	run("rm -f /tmp/devmem-fwd.out; sysctl -qw net.ipv4.ip_forward=0");
	run("ip link del fwd%u 2>/dev/null; ip netns del %s", self->dev_id,
	    fwdns);
	devmem_nl_close(&self->nl);
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

/* Count what a packet socket on @ifindex sees of TCP to @port: frames,
 * and frames carrying payload (longer than Ethernet + IPv4 + TCP headers).
 */
struct capture {
	int fd;
	int frames[2];		/* [0]: to port a, [1]: to port b */
	int payload[2];
};

static int capture_open(struct capture *c, int ifindex, bool payload_filter)
{
	/* ldb [payload byte]; ret #65535 -- a load that fails drops */
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + 20 + 32 + 64),
		BPF_STMT(BPF_RET | BPF_K, 65535),
	};
	struct sock_fprog prog = { .len = 2, .filter = code };
	struct sockaddr_ll ll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
		.sll_ifindex = ifindex,
	};

	memset(c, 0, sizeof(*c));
	c->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP));
	if (c->fd < 0 || bind(c->fd, (struct sockaddr *)&ll, sizeof(ll)))
		return -1;
	if (payload_filter &&
	    setsockopt(c->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)))
		return -1;
	return 0;
}

static void capture_drain(struct capture *c, int port_a, int port_b)
{
	uint8_t buf[9100];
	int n;

	while ((n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		int ihl, dport, i;

		if (n < 14 + 20 + 20 || buf[14 + 9] != IPPROTO_TCP)
			continue;
		ihl = (buf[14] & 0xf) * 4;
		dport = buf[14 + ihl + 2] << 8 | buf[14 + ihl + 3];
		i = dport == port_a ? 0 : dport == port_b ? 1 : -1;
		if (i < 0)
			continue;
		c->frames[i]++;
		if (n > 14 + ihl + ((buf[14 + ihl + 12] >> 4) * 4))
			c->payload[i]++;
	}
}

/*
 * A BPF socket filter that reads a payload byte can read it for a flow in
 * host memory, never for one in device memory: the load fails and the
 * filter drops, so the tap sees nothing of the devmem flow's data.
 */
TEST_F_TIMEOUT(faults, bpf_filter_cannot_read_devmem_payload, 120)
{
	size_t bytes = 2 << 20;
	struct stream sd = {}, sh = {};
	struct capture c;
	int fd, fh, lfd2;
	pid_t pd, ph;
	uint32_t id;

	ASSERT_EQ(0, steer(self->ifname, PORT, 3));
	ASSERT_EQ(0, bind_queues(&self->nl, self->ifindex, self->dmabuf, 3, 1,
				 &id));
	ASSERT_EQ(0, capture_open(&c, self->ifindex, true));
	lfd2 = listen_on(PORT + 6);
	ASSERT_GE(lfd2, 0);

	pd = sender_to(self->ns, RX_ADDR, PORT, bytes);
	ph = sender_to(self->ns, RX_ADDR, PORT + 6, bytes);
	fd = accept(self->lfd, NULL, NULL);
	fh = accept(lfd2, NULL, NULL);
	ASSERT_GE(fd, 0);
	ASSERT_GE(fh, 0);
	EXPECT_EQ(0, recv_stream(fd, self->map, &sd, SIZE_MAX));
	EXPECT_EQ(0, recv_stream(fh, self->map, &sh, SIZE_MAX));
	capture_drain(&c, PORT, PORT + 6);

	EXPECT_EQ(bytes, sd.devmem);
	EXPECT_EQ(bytes, sh.host);
	EXPECT_EQ(0, sd.errors + sh.errors);
	TH_LOG("filter passed %d/%d payload frames of the devmem/host flows",
	       c.payload[0], c.payload[1]);
	EXPECT_EQ(0, c.payload[0]);
	EXPECT_LT(0, c.payload[1]);
	EXPECT_EQ(0, reap(pd));
	EXPECT_EQ(0, reap(ph));
	close(c.fd);
	close(fd);
	close(fh);
	close(lfd2);
	devmem_nl_close(&self->nl);
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

/*
 * tc mirred mirrors every frame the bound port receives out of a veth:
 * frames of device memory cannot be transmitted and are dropped there,
 * header-only frames get through, and the stream itself is intact.
 */
TEST_F_TIMEOUT(faults, tc_mirror_of_devmem_frames_is_dropped, 120)
{
	size_t bytes = 2 << 20;
	struct stream st = {};
	char mir[IFNAMSIZ];
	struct capture c;
	uint32_t id;
	pid_t pid;
	int fd;

	snprintf(mir, sizeof(mir), "mir%u", self->dev_id);
	if (run("tc qdisc add dev %s clsact 2>/dev/null", self->ifname))
		SKIP(return, "no clsact qdisc (CONFIG_NET_SCH_INGRESS)");
	ASSERT_EQ(0, run("ip link add %s type veth peer name %sp", mir, mir));
	ASSERT_EQ(0, run("ip link set %s up && ip link set %sp up", mir, mir));
	ASSERT_EQ(0, run("tc filter add dev %s ingress matchall action mirred egress mirror dev %s",
			 self->ifname, mir));
	snprintf(mir + strlen(mir), sizeof(mir) - strlen(mir), "p");
	ASSERT_EQ(0, capture_open(&c, if_nametoindex(mir), false));

	ASSERT_EQ(0, steer(self->ifname, PORT, 3));
	ASSERT_EQ(0, bind_queues(&self->nl, self->ifindex, self->dmabuf, 3, 1,
				 &id));
	pid = sender_to(self->ns, RX_ADDR, PORT, bytes);
	fd = accept(self->lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, recv_stream(fd, self->map, &st, SIZE_MAX));
	capture_drain(&c, PORT, 0);

	EXPECT_EQ(bytes, st.devmem);
	EXPECT_EQ(0, st.errors);
	TH_LOG("mirror: %d frames, %d with payload", c.frames[0],
	       c.payload[0]);
	EXPECT_LT(0, c.frames[0]);
	EXPECT_EQ(0, c.payload[0]);
	EXPECT_EQ(0, reap(pid));
	close(c.fd);
	close(fd);
	mir[strlen(mir) - 1] = 0;
	run("ip link del %s; tc qdisc del dev %s clsact", mir, self->ifname);
	devmem_nl_close(&self->nl);
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

/*
 * An nftables rule that drops TCP segments carrying a non-zero payload
 * byte stops a host-memory flow dead, and cannot read the payload of a
 * devmem flow: the expression fails, the rule does not match, the stream
 * arrives intact. Netfilter never copies device memory.
 */
TEST_F_TIMEOUT(faults, nftables_cannot_read_devmem_payload, 120)
{
	size_t bytes = 2 << 20;
	struct stream sd = {}, sh = {};
	struct pollfd pfd;
	int fd, fh, lfd2;
	pid_t pd, ph;
	uint32_t id;

	if (run("nft -v >/dev/null 2>&1"))
		SKIP(return, "no nft (Debian package nftables)");
	if (run("nft add table inet devmem 2>/dev/null"))
		SKIP(return, "no nf_tables (CONFIG_NF_TABLES_INET)");
	ASSERT_EQ(0, run("nft add chain inet devmem in '{ type filter hook input priority 0; }'"));
	/* a payload byte 100 bytes into the TCP header: never 0 here */
	ASSERT_EQ(0, run("nft add rule inet devmem in tcp dport '{ %d, %d }' %s",
			 PORT, PORT + 7, "@th,800,8 != 0 counter drop"));

	ASSERT_EQ(0, steer(self->ifname, PORT, 3));
	ASSERT_EQ(0, bind_queues(&self->nl, self->ifindex, self->dmabuf, 3, 1,
				 &id));
	lfd2 = listen_on(PORT + 7);
	ASSERT_GE(lfd2, 0);
	pd = sender_to(self->ns, RX_ADDR, PORT, bytes);
	ph = sender_to(self->ns, RX_ADDR, PORT + 7, bytes);
	fd = accept(self->lfd, NULL, NULL);
	fh = accept(lfd2, NULL, NULL);
	ASSERT_GE(fd, 0);
	ASSERT_GE(fh, 0);

	EXPECT_EQ(0, recv_stream(fd, self->map, &sd, SIZE_MAX));
	EXPECT_EQ(bytes, sd.devmem);
	EXPECT_EQ(0, sd.errors);
	/* the host flow's data is dropped by the rule: nothing in 2 s */
	pfd.fd = fh;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 2000));
	EXPECT_EQ(0, sh.bytes);

	run("nft list ruleset | grep counter | sed 's/^/# /'");
	run("nft delete table inet devmem");
	kill(ph, SIGKILL);
	reap(ph);
	EXPECT_EQ(0, reap(pd));
	close(fd);
	close(fh);
	close(lfd2);
	devmem_nl_close(&self->nl);
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

TEST_HARNESS_MAIN
