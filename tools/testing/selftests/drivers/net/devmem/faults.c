// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetime faults for devmem TCP: everything that can end a binding, a
 * socket, a queue or a device while device memory is in flight. Each test
 * streams the pattern from a peer namespace over an hdsim pair and ends
 * (fixture teardown) with the leak check: no binding left alive, no page
 * pool left detached with pages in flight, no pool still on a dmabuf.
 * What other paths may do with device memory is in audit.c.
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "devmem_traffic.h"
#include "netcfg.h"

#define DMABUF_SIZE		(64 << 20)
#define RX_ADDR			"192.0.4.1"
#define TX_ADDR			"192.0.4.2"
#define PORT			5400

/*
 * Several dmabufs behind one mapping: binding id -> offset of its dmabuf
 * in the mapping, learnt from a pipe that binders write {id, offset} to.
 * Off (all frags in @map at their offset) while id_pipe < 0.
 */
static int id_pipe = -1;
static long id_base[4096];

static const uint8_t *frag_base_of(const uint8_t *map, uint32_t id)
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
	struct devmem_env env;
};

/* queues 0-1 for RSS, 2-3 for devmem; tests steer and bind themselves */
FIXTURE_SETUP(faults)
{
	if (!devmem_env_available())
		SETUP_SKIP("no hdsim driver (CONFIG_HDSIM)");
	ASSERT_EQ(0, devmem_env_setup_open(&self->env, "faults", 32, RX_ADDR,
					   TX_ADDR, PORT, DMABUF_SIZE));
	ASSERT_EQ(0, devmem_pools_settled(&self->env.nl, 10000));
}

FIXTURE_TEARDOWN(faults)
{
	EXPECT_EQ(0, devmem_env_teardown(&self->env));
	EXPECT_EQ(0, devmem_env_pools_leaked());
}

static int wait_binding_gone(uint32_t id, int ms)
{
	for (; ms > 0; ms -= 10) {
		if (devmem_binding_inflight(id) < 0)
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
TEST_F_TIMEOUT(faults, unbind_under_traffic_loses_nothing, 300)
{
	size_t bytes = 16 << 20;
	struct stream st = { .map_size = DMABUF_SIZE };
	struct devmem_nl nl2;
	int fd, queued = 0;
	uint32_t id;
	pid_t pid;

	ASSERT_EQ(0, devmem_nl_open(&nl2));
	fd = devmem_env_bound_stream(&self->env, &nl2, 3, bytes, &id,
				     &pid);
	ASSERT_GE(fd, 0);

	ASSERT_GT(recv_stream(fd, self->env.map, &st, 4 << 20), 0);
	ioctl(fd, FIONREAD, &queued);
	devmem_nl_close(&nl2);
	TH_LOG("unbound after %zu bytes, %d queued", st.bytes, queued);
	EXPECT_EQ(0, recv_stream(fd, self->env.map, &st, SIZE_MAX));

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

	ASSERT_EQ(0, devmem_env_steer(&self->env, PORT + 1, 3));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(report));
	rx = fork();
	ASSERT_GE(rx, 0);
	if (!rx) {
		struct stream st = { .map_size = DMABUF_SIZE };
		struct devmem_nl nl;
		int lfd, fd;

		if (devmem_nl_open(&nl) ||
		    devmem_env_bind(&self->env, &nl, 3, 1, &id))
			_exit(1);
		lfd = listen_on(RX_ADDR, PORT + 1);
		if (write(ready[1], &id, sizeof(id)) != sizeof(id) || lfd < 0)
			_exit(2);
		fd = accept(lfd, NULL, NULL);
		while (st.frags < 10000 &&
		       recv_step(fd, self->env.map, &st, true, SIZE_MAX) > 0)
			;
		if (write(report[1], &st.frags, sizeof(st.frags)) < 0)
			_exit(3);
		pause();
		_exit(0);
	}
	ASSERT_EQ(sizeof(id), read(ready[0], &id, sizeof(id)));
	tx = sender_to(self->env.ns, RX_ADDR, PORT + 1, 48 << 20);
	ASSERT_EQ(sizeof(frags), read(report[0], &frags, sizeof(frags)));
	EXPECT_GE(frags, 10000);
	inflight = devmem_binding_inflight(id);
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
 * The device goes away under a stream: bind queue 3 through @nl (opened
 * here), stream 8 MiB, keep the tokens of the first MiB (in @st->held if
 * set), then delete the device with the rest unread. Returns the
 * connection, or -errno (-EUCLEAN: the dmabuf was not attached to the
 * device once bound).
 */
static int device_gone_holding_tokens(struct devmem_env *env,
				      struct devmem_nl *nl, struct stream *st,
				      uint32_t *id, pid_t *sender)
{
	int fd, err;

	err = devmem_nl_open(nl);
	if (err)
		return err;
	fd = devmem_env_bound_stream(env, nl, 3, 8 << 20, id, sender);
	if (fd < 0)
		return fd;
	while (st->bytes < (1 << 20))
		if (recv_step(fd, env->map, st, true, SIZE_MAX) <= 0)
			return -EIO;
	if (dmabuf_attachments(env->dmabuf) != 1)
		return -EUCLEAN;
	err = hdsim_del(env->dev_id);
	if (err)
		return err;
	env->dev_gone = true;
	return fd;
}

/*
 * Upstream's panic case: the device goes away while a socket holds tokens
 * and the binding is still open; then tokens come back, the TCP socket
 * closes and last the netlink socket.
 * The dmabuf is unmapped for the device when it unregisters, while its
 * DMA device still exists; the net_iovs come back later without any DMA.
 * Before, it stayed mapped until the last token and skb came back.
 */
TEST_F_TIMEOUT(faults, device_deleted_with_tokens_held_then_sockets_closed, 120)
{
	static uint32_t held[DMABUF_SIZE / 4096];
	struct stream st = { .map_size = DMABUF_SIZE, .held = held };
	struct dmabuf_token t[128];
	struct devmem_nl nl2;
	size_t i, n = 0;
	int fd, freed = 0;
	uint32_t id;
	pid_t pid;

	fd = device_gone_holding_tokens(&self->env, &nl2, &st, &id, &pid);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(st.frags, st.nheld);
	/* the binding is unbound but alive: its net_iovs are still out */
	EXPECT_GE(devmem_binding_inflight(id), (long)st.nheld);
	EXPECT_EQ(0, dmabuf_attachments(self->env.dmabuf));

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

/*
 * rmmod's call in a child, whose exit status is 0 or the errno. The child
 * closes what it inherited first: a copy of a socket holding tokens would
 * keep the device, and the unload would wait for itself.
 */
static pid_t module_delete_async(const char *mod)
{
	pid_t pid = fork();

	if (!pid) {
		close_range(3, ~0U, 0);
		_exit(-module_delete(mod));
	}
	return pid;
}

/*
 * As a module, hdsim's device release is the module's own code, and a
 * page pool and a binding keep the device until their last buffer comes
 * back. rmmod while a socket holds tokens: the ports go at once, then the
 * unload waits, through the binding's close, until the tokens come back;
 * the module goes after that (KASAN would see a release run from freed
 * module text) and loads again.
 */
TEST_F_TIMEOUT(faults, hdsim_unload_waits_for_held_tokens, 120)
{
	struct stream st = { .map_size = DMABUF_SIZE };
	char path[64 + IFNAMSIZ];
	struct devmem_nl nl2;
	pid_t pid, rmmod;
	int fd, status, i;
	uint32_t id;

	if (strcmp(module_state("hdsim"), "live"))
		SKIP(return, "hdsim is built in (a modular kernel runs this)");
	ASSERT_EQ(0, devmem_nl_open(&nl2));
	fd = devmem_env_bound_stream(&self->env, &nl2, 3, 8 << 20, &id, &pid);
	ASSERT_GE(fd, 0);
	while (st.bytes < (1 << 20))
		ASSERT_LT(0, recv_step(fd, self->env.map, &st, true, SIZE_MAX));
	ASSERT_LT(0, st.frags);

	rmmod = module_delete_async("hdsim");
	ASSERT_LT(0, rmmod);
	snprintf(path, sizeof(path), "/sys/class/net/%s", self->env.ifname);
	for (i = 0; i < 1000 && !access(path, F_OK); i++)
		usleep(10000);
	EXPECT_NE(0, access(path, F_OK));
	self->env.dev_gone = true;
	/* unbound with the device, alive while its net_iovs are out */
	EXPECT_GE(devmem_binding_inflight(id), (long)st.frags);
	usleep(500000);
	EXPECT_EQ(0, waitpid(rmmod, &status, WNOHANG));
	EXPECT_STREQ("going", module_state("hdsim"));

	/* the binding's socket closes: the held tokens still keep it */
	devmem_nl_close(&nl2);
	usleep(500000);
	EXPECT_EQ(0, waitpid(rmmod, &status, WNOHANG));

	/* the tokens come back with the socket: the module goes */
	close(fd);
	kill(pid, SIGKILL);
	reap(pid);
	ASSERT_EQ(rmmod, waitpid(rmmod, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_STREQ("", module_state("hdsim"));
	EXPECT_EQ(0, wait_binding_gone(id, 5000));

	ASSERT_EQ(0, system("modprobe hdsim"));
	EXPECT_TRUE(devmem_env_available());
}

/* Same, the other way round: netlink socket first, TCP socket last. */
TEST_F_TIMEOUT(faults, device_deleted_then_netlink_closed_then_tcp_closed, 120)
{
	struct stream st = { .map_size = DMABUF_SIZE };
	struct devmem_nl nl2;
	uint32_t id;
	pid_t pid;
	int fd;

	fd = device_gone_holding_tokens(&self->env, &nl2, &st, &id, &pid);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, dmabuf_attachments(self->env.dmabuf));
	devmem_nl_close(&nl2);
	/* tokens still held by the socket keep the binding alive */
	EXPECT_EQ(1, devmem_bindings_live());
	close(fd);
	kill(pid, SIGKILL);
	reap(pid);
}

/* Readers of host payload while their device goes: 8 of 2 connections */
#define BYTEWISE_CONNS		16
#define BYTEWISE_READERS	8
#define BYTEWISE_BYTES		(32 << 10)
/* the last bytes of each connection, read one per millisecond */
#define BYTEWISE_SLOW		(8 << 10)

/*
 * In a forked child, as nobody if @nobody: read @fds one byte per recvmsg() with
 * MSG_SOCK_DEVMEM, round robin, each byte checked against the pattern,
 * until @stop is readable; then the rest in one piece per read, each
 * connection to BYTEWISE_BYTES. The last BYTEWISE_SLOW bytes go one per
 * connection per millisecond, so that the reader still reads when the
 * device goes however fast the first ones went. Every one of these
 * reads is a copy of host payload, which the kernel counts on the skb's
 * queue for root (CAP_NET_ADMIN). Tells the parent on @started after
 * its first pass. 0; 7 if it read all before @stop; or the step that
 * failed.
 */
static int read_bytewise(const int *fds, int n, bool nobody, int started,
			 int stop)
{
	struct pollfd pfd = { .fd = stop, .events = POLLIN };
	size_t got[BYTEWISE_CONNS] = { 0 };
	char ctrl[CMSG_SPACE(64)];
	uint8_t buf[4096];
	bool bytewise = true, slow = false;
	int i, left = n;
	ssize_t ret;

	if (nobody && setresuid(65534, 65534, 65534))
		return 2;
	for (unsigned long pass = 0; left; pass++) {
		left = 0;
		for (i = 0; i < n; i++) {
			size_t want = BYTEWISE_BYTES - got[i];
			struct iovec iov = { buf, bytewise ? 1 : want };
			struct msghdr msg = {
				.msg_iov = &iov, .msg_iovlen = 1,
				.msg_control = ctrl,
				.msg_controllen = sizeof(ctrl),
			};

			if (!want)
				continue;
			if (want > sizeof(buf))
				iov.iov_len = bytewise ? 1 : sizeof(buf);
			ret = recvmsg(fds[i], &msg, MSG_SOCK_DEVMEM);
			if (ret <= 0)
				return 3;
			if (msg.msg_controllen)
				return 4;	/* host payload: no cmsg */
			if (check_pattern(buf, ret, got[i]))
				return 5;
			got[i] += ret;
			left += got[i] < BYTEWISE_BYTES;
			slow |= got[i] >= BYTEWISE_BYTES - BYTEWISE_SLOW;
		}
		if (!pass && write(started, "s", 1) != 1)
			return 6;
		if (bytewise && (slow || !(pass % 64)) &&
		    poll(&pfd, 1, 0) == 1)
			bytewise = false;
		else if (bytewise && slow)
			usleep(1000);
	}
	return bytewise ? 7 : 0;
}

/*
 * The device goes while readers, half of them nobody, copy its payload
 * one byte at a time with MSG_SOCK_DEVMEM, which needs no binding: each
 * read counts the copy on the queue the skb came in on, found from the
 * skb's NAPI id, and free_netdev() frees the queues before it takes the
 * NAPI instances off the hash. A count may go only to a registered
 * device, and only for root's reads. The readers get every byte, the
 * kernel reports nothing (KASAN reported a use-after-free write into
 * the queues here before, from nobody's reads as from root's).
 */
TEST_F_TIMEOUT(faults, device_deleted_while_readers_copy_host_payload_bytewise,
	       180)
{
	int fds[BYTEWISE_CONNS], started[2], stop[2], i, r;
	pid_t senders[BYTEWISE_CONNS], readers[BYTEWISE_READERS];
	const int per = BYTEWISE_CONNS / BYTEWISE_READERS;
	uint32_t id;
	char c;

	/* device memory on queue 2; the flows go to 0-1, in host memory */
	ASSERT_EQ(0, devmem_env_bind(&self->env, &self->env.nl, 2, 1, &id));
	for (i = 0; i < BYTEWISE_CONNS; i++) {
		fds[i] = devmem_env_stream(&self->env, BYTEWISE_BYTES,
					   &senders[i]);
		ASSERT_GE(fds[i], 0);
	}
	for (i = 0; i < BYTEWISE_CONNS; i++)
		ASSERT_EQ(0, wait_inq_for(fds[i], BYTEWISE_BYTES, 20000));
	ASSERT_EQ(0, pipe(started));
	ASSERT_EQ(0, pipe(stop));
	for (r = 0; r < BYTEWISE_READERS; r++) {
		readers[r] = fork();
		ASSERT_LE(0, readers[r]);
		if (!readers[r]) {
			/* a copy of the binding's socket would keep it */
			close(mnl_socket_get_fd(self->env.nl.sock));
			close(started[0]);
			close(stop[1]);
			_exit(read_bytewise(fds + r * per, per, r & 1,
					    started[1], stop[0]));
		}
	}
	close(started[1]);
	close(stop[0]);
	for (r = 0; r < BYTEWISE_READERS; r++)
		ASSERT_EQ(1, read(started[0], &c, 1));

	ASSERT_EQ(0, hdsim_del(self->env.dev_id));
	self->env.dev_gone = true;
	/* the NAPI instances go last, after the device's release */
	usleep(500000);
	close(stop[1]);
	/* 7: a reader had read all before the device went */
	for (r = 0; r < BYTEWISE_READERS; r++)
		EXPECT_EQ(0, reap(readers[r])) TH_LOG("reader %d", r);
	for (i = 0; i < BYTEWISE_CONNS; i++) {
		close(fds[i]);
		kill(senders[i], SIGKILL);
		reap(senders[i]);
	}
	close(started[0]);
}

/*
 * Stream @bytes to the listening socket and read it all with devmem, as
 * root or (@nobody) in a child as nobody: the bytes read, all in host
 * memory, or 0.
 */
static size_t devmem_read_stream(struct devmem_env *env, size_t bytes,
				 bool nobody)
{
	struct stream st = { .map_size = DMABUF_SIZE };
	pid_t pid, rx = 0;
	int fd;

	fd = devmem_env_stream(env, bytes, &pid);
	if (fd < 0)
		return 0;
	if (nobody)
		rx = fork();
	if (!rx && (!nobody || !setresuid(65534, 65534, 65534)))
		recv_stream(fd, env->map, &st, bytes);
	if (nobody && !rx)
		_exit(st.host == bytes && !st.errors ? 0 : 1);
	close(fd);
	if (reap(pid) || (nobody && (rx < 0 || reap(rx))))
		return 0;
	if (nobody)
		return bytes;
	return st.errors || st.devmem ? 0 : st.host;
}

/* devmem-stats' devmem-host-bytes of the port's four RX queues, summed */
static int64_t host_bytes_of(struct devmem_env *env)
{
	struct devmem_host_stats st;
	int64_t sum = 0;
	int q;

	for (q = 0; q < 4; q++) {
		if (devmem_host_stats_get(&env->nl, env->ifindex, q, &st))
			return -1;
		sum += st.devmem_bytes + st.zcrx_bytes;
	}
	return sum;
}

#define MV_NS_SUFFIX	"mv"
#define MV_ADDR		"192.0.4.3"

/*
 * In a forked child: in namespace @ns, as root (with CAP_NET_ADMIN there:
 * the namespace is init_user_ns's), take one connection on MV_ADDR and
 * read it with MSG_SOCK_DEVMEM. Exits 0 when all @bytes came, in host
 * memory; else the step that failed.
 */
static int read_in_netns(const char *ns, size_t bytes, int ready,
			 uint8_t *map)
{
	struct stream st = { .map_size = DMABUF_SIZE };
	int lfd, fd;

	if (netns_enter(ns) < 0)
		return 2;
	lfd = listen_on(MV_ADDR, PORT + 2);
	if (lfd < 0 || write(ready, "l", 1) != 1)
		return 3;
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		return 4;
	recv_stream(fd, map, &st, bytes);
	return st.bytes == bytes && st.host == bytes && !st.errors ? 0 : 5;
}

/*
 * devmem-stats counts what a devmem reader should have had in device
 * memory, so no user can make a queue look misconfigured: a devmem read
 * of payload from a device without device memory counts nowhere; once
 * the NIC has a binding, nor does a read by a user who never had device
 * memory (anyone may pass MSG_SOCK_DEVMEM), or one in another namespace
 * (a container behind a macvlan of the NIC, whose skbs carry the NIC's
 * NAPI id), even with CAP_NET_ADMIN there. A reader with CAP_NET_ADMIN
 * in the NIC's namespace counts, every byte.
 */
TEST_F_TIMEOUT(faults, host_copies_count_only_for_readers_that_device_memory_was_for,
	       120)
{
	const size_t bytes = 256 << 10;
	char ns[64], mv[IFNAMSIZ];
	int ready[2], mvidx;
	int64_t before;
	pid_t rx, tx;
	uint32_t id;
	char c;

	/* no device memory on the device: a devmem reader's copies */
	before = host_bytes_of(&self->env);
	ASSERT_LE(0, before);
	EXPECT_EQ(bytes, devmem_read_stream(&self->env, bytes, false));
	EXPECT_EQ(before, host_bytes_of(&self->env));

	/* device memory on queue 2: a user who never had any, reading */
	ASSERT_EQ(0, devmem_env_bind(&self->env, &self->env.nl, 2, 1, &id));
	EXPECT_EQ(bytes, devmem_read_stream(&self->env, bytes, true));
	EXPECT_EQ(before, host_bytes_of(&self->env));

	/* a macvlan of the port in its own namespace: that reader's copies */
	snprintf(ns, sizeof(ns), "%s-" MV_NS_SUFFIX, self->env.ns);
	snprintf(mv, sizeof(mv), "fmv%u", self->env.dev_id);
	ASSERT_EQ(0, netns_add(ns));
	ASSERT_EQ(0, run("ip link add link %s name %s type macvlan mode bridge",
			 self->env.ifname, mv));
	mvidx = if_nametoindex(mv);
	ASSERT_LT(0, mvidx);
	ASSERT_EQ(0, link_set_netns(mvidx, ns));
	ASSERT_EQ(0, addr_add(ns, mvidx, MV_ADDR, 24));
	ASSERT_EQ(0, link_set_up(ns, mvidx));
	ASSERT_EQ(0, pipe(ready));
	rx = fork();
	ASSERT_LE(0, rx);
	if (!rx)
		_exit(read_in_netns(ns, bytes, ready[1], self->env.map));
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	tx = sender_to(self->env.ns, MV_ADDR, PORT + 2, bytes);
	EXPECT_EQ(0, reap(rx));
	EXPECT_EQ(0, reap(tx));
	EXPECT_EQ(before, host_bytes_of(&self->env));
	EXPECT_EQ(0, netns_del(ns));

	/* the port's own namespace, with device memory on queue 2, and
	 * CAP_NET_ADMIN there: counted
	 */
	EXPECT_EQ(bytes, devmem_read_stream(&self->env, bytes, false));
	EXPECT_EQ(before + bytes, host_bytes_of(&self->env));
}

/*
 * The namespace holding the bound device is deleted while the binding's
 * netlink socket (opened in that namespace) is open; then its owner dies.
 * The socket keeps the namespace alive until then, so namespace teardown
 * and unbind race in the kernel's exit path.
 */
TEST_F_TIMEOUT(faults, netns_of_bound_device_deleted_then_owner_killed, 60)
{
	char rxns[40], path[64];
	int ready[2], nsfd, home;
	uint32_t id;
	pid_t child;

	snprintf(rxns, sizeof(rxns), "%s-rx", self->env.ns);
	ASSERT_EQ(0, netns_add(rxns));
	ASSERT_EQ(0, link_set_netns(self->env.ifindex, rxns));
	/* up, so that the bound queue gets its page pool */
	ASSERT_EQ(0, link_set_up(rxns, self->env.ifindex));
	ASSERT_EQ(0, pipe(ready));
	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		struct devmem_nl nl;

		home = open("/proc/self/ns/net", O_RDONLY);
		snprintf(path, sizeof(path), "/run/netns/%s", rxns);
		nsfd = open(path, O_RDONLY);
		if (home < 0 || nsfd < 0 || setns(nsfd, CLONE_NEWNET))
			_exit(1);
		close(nsfd);
		if (devmem_nl_open(&nl) ||
		    devmem_bind_rx_range(&nl,
					 if_nametoindex(self->env.ifname),
					 self->env.dmabuf, 3, 1, &id))
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
	/* page-pool-get shows a device's pools in the device's netns */
	snprintf(path, sizeof(path), "/run/netns/%s", rxns);
	nsfd = open(path, O_RDONLY);
	home = open("/proc/self/ns/net", O_RDONLY);
	ASSERT_GE(nsfd, 0);
	ASSERT_GE(home, 0);
	ASSERT_EQ(0, setns(nsfd, CLONE_NEWNET));
	EXPECT_EQ(1, devmem_bindings_live());
	ASSERT_EQ(0, setns(home, CLONE_NEWNET));
	ASSERT_EQ(0, netns_del(rxns));
	usleep(200000);
	/* still bound: the socket holds the namespace (and nsfd, until
	 * it is closed below)
	 */
	ASSERT_EQ(0, setns(nsfd, CLONE_NEWNET));
	EXPECT_EQ(1, devmem_bindings_live());
	ASSERT_EQ(0, setns(home, CLONE_NEWNET));
	close(nsfd);
	close(home);

	kill(child, SIGKILL);
	reap(child);
	EXPECT_EQ(0, devmem_wait_bindings(0, 10000));
}

/* Restarting the bound queue under traffic keeps the binding and the data. */
TEST_F_TIMEOUT(faults, bound_queue_restart_under_traffic_loses_nothing, 120)
{
	size_t bytes = 16 << 20, mark = 2 << 20;
	struct stream st = { .map_size = DMABUF_SIZE };
	char path[128];
	uint32_t id;
	pid_t pid;
	int fd, i;

	snprintf(path, sizeof(path), "/sys/kernel/debug/hdsim/hdsim%u/port0/queue_restart",
		 self->env.dev_id);
	fd = devmem_env_bound_stream(&self->env, &self->env.nl, 3, bytes, &id,
				     &pid);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 4; i++) {
		ASSERT_GT(recv_stream(fd, self->env.map, &st, mark * (i + 1)), 0);
		ASSERT_EQ(0, write_file(path, "3"));
	}
	EXPECT_EQ(0, recv_stream(fd, self->env.map, &st, SIZE_MAX));
	EXPECT_EQ(bytes, st.bytes);
	EXPECT_EQ(bytes, st.devmem);
	EXPECT_EQ(0, st.errors);
	EXPECT_EQ(0, reap(pid));
	close(fd);
	/* the queue is still on the dmabuf after the restarts */
	EXPECT_EQ(1, devmem_bindings_live());
	devmem_nl_close(&self->env.nl);
	ASSERT_EQ(0, devmem_nl_open(&self->env.nl));
}

/* Two queues of one binding, two connections, two receiving processes. */
TEST_F_TIMEOUT(faults, two_receivers_on_two_queues_of_one_binding, 120)
{
	size_t bytes = 8 << 20;
	struct stream st = { .map_size = DMABUF_SIZE };
	int lfd2, fa, fb, status;
	pid_t sa, sb, child;
	uint32_t id;

	ASSERT_EQ(0, devmem_env_steer(&self->env, PORT, 2));
	ASSERT_EQ(0, devmem_env_steer(&self->env, PORT + 2, 3));
	ASSERT_EQ(0, devmem_env_bind(&self->env, &self->env.nl, 2, 2, &id));
	lfd2 = listen_on(RX_ADDR, PORT + 2);
	ASSERT_GE(lfd2, 0);
	sa = sender_to(self->env.ns, RX_ADDR, PORT, bytes);
	sb = sender_to(self->env.ns, RX_ADDR, PORT + 2, bytes);
	fa = accept(self->env.lfd, NULL, NULL);
	fb = accept(lfd2, NULL, NULL);
	ASSERT_GE(fa, 0);
	ASSERT_GE(fb, 0);

	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		struct stream cs = { .map_size = DMABUF_SIZE };

		recv_stream(fb, self->env.map, &cs, SIZE_MAX);
		_exit(cs.bytes != bytes || cs.devmem != bytes || cs.errors);
	}
	close(fb);
	EXPECT_EQ(0, recv_stream(fa, self->env.map, &st, SIZE_MAX));
	EXPECT_EQ(bytes, st.bytes);
	EXPECT_EQ(bytes, st.devmem);
	EXPECT_EQ(0, st.errors);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_EQ(0, reap(sa));
	EXPECT_EQ(0, reap(sb));
	close(fa);
	close(lfd2);
	devmem_nl_close(&self->env.nl);
	ASSERT_EQ(0, devmem_nl_open(&self->env.nl));
}

/*
 * What upstream's benchmark client does: reserve the last two queues in
 * an RSS context of their own, bind both, and steer the listening port
 * into the context with a FLOW_RSS rule. Sixteen connections spread over
 * both queues (all on one would take odds of 1 in 32768), every byte of
 * each in device memory. A context a rule names cannot be deleted.
 */
TEST_F_TIMEOUT(faults, rss_context_spreads_flows_over_bound_queues, 240)
{
	int64_t q2 = ethtool_stat(self->env.ifname, "rx2_devmem_payload_bytes");
	int64_t q3 = ethtool_stat(self->env.ifname, "rx3_devmem_payload_bytes");
	const char *ifname = self->env.ifname;
	size_t bytes = 256 << 10;
	int ctx, rule, i, n, fd, fds[16];
	uint32_t *table, id;
	pid_t senders[16];

	ASSERT_GE(q2, 0);
	ASSERT_GE(q3, 0);
	ctx = ethtool_rss_ctx_add(ifname, 2, 2);
	ASSERT_GT(ctx, 0);
	n = ethtool_rss_ctx_table(ifname, ctx, &table);
	ASSERT_GT(n, 0);
	for (i = 0; i < n; i++)
		EXPECT_EQ(2 + i % 2, table[i]);
	free(table);
	ASSERT_EQ(0, devmem_env_bind(&self->env, &self->env.nl, 2, 2, &id));
	rule = ethtool_flow_add_rss(ifname, NULL, RX_ADDR, PORT, ctx);
	ASSERT_GE(rule, 0);
	EXPECT_EQ(-EBUSY, ethtool_rss_ctx_del(ifname, ctx));

	/* each accepted before the next connects: no SYN waits for room */
	for (i = 0; i < 16; i++) {
		senders[i] = sender_to(self->env.ns, RX_ADDR, PORT, bytes);
		ASSERT_GT(senders[i], 0);
		fds[i] = accept(self->env.lfd, NULL, NULL);
		ASSERT_GE(fds[i], 0);
	}
	for (i = 0; i < 16; i++) {
		struct stream st = { .map_size = DMABUF_SIZE };

		fd = fds[i];
		EXPECT_EQ(0, recv_stream(fd, self->env.map, &st, SIZE_MAX));
		EXPECT_EQ(bytes, st.bytes);
		EXPECT_EQ(bytes, st.devmem);
		EXPECT_EQ(0, st.errors);
		close(fd);
	}
	for (i = 0; i < 16; i++)
		EXPECT_EQ(0, reap(senders[i]));

	q2 = ethtool_stat(ifname, "rx2_devmem_payload_bytes") - q2;
	q3 = ethtool_stat(ifname, "rx3_devmem_payload_bytes") - q3;
	TH_LOG("16 connections through RSS context %d: %lld bytes on queue 2, %lld on queue 3",
	       ctx, (long long)q2, (long long)q3);
	EXPECT_GT(q2, 0);
	EXPECT_GT(q3, 0);
	EXPECT_GE(q2 + q3, 16 * bytes);

	EXPECT_EQ(0, ethtool_flow_del(ifname, rule));
	EXPECT_EQ(0, ethtool_rss_ctx_del(ifname, ctx));
	EXPECT_EQ(-ENOENT, ethtool_rss_ctx_table(ifname, ctx, &table));
}

/*
 * In a forked child: drop to nobody, make a user and a network namespace,
 * tell the parent on @ready and wait on @go while it moves the port in,
 * then bring the port up with RX_ADDR. The port's ifindex, or -2 (no
 * namespace) or -3 (no port) for the child's exit status.
 */
static int enter_container(const struct devmem_env *env, int ready, int go)
{
	int ifindex;
	char c;

	if (setresuid(65534, 65534, 65534) ||
	    unshare(CLONE_NEWUSER | CLONE_NEWNET) || write(ready, "u", 1) != 1 ||
	    read(go, &c, 1) != 1)
		return -2;
	ifindex = if_nametoindex(env->ifname);
	if (!ifindex || link_set_up(NULL, ifindex) ||
	    addr_add(NULL, ifindex, RX_ADDR, 24))
		return -3;
	return ifindex;
}

/* A child in a container, as the parent sees it */
struct container {
	pid_t pid;
	int ready;	/* bytes from the child; EOF once it exited */
	int go;
};

typedef int (*container_fn)(struct devmem_env *env, size_t bytes, int ready,
			    int go);

/*
 * Fork a child that runs @fn (which starts with enter_container()) and
 * move the port into the child's network namespace. 0, or -errno; on
 * error the child has been reaped.
 */
static int container_start(struct devmem_env *env, container_fn fn,
			   size_t bytes, struct container *ct)
{
	int ready[2], go[2], err = 0;
	char c;

	if (pipe(ready))
		return -errno;
	if (pipe(go)) {
		err = -errno;
		goto close_ready;
	}
	ct->pid = fork();
	if (ct->pid < 0) {
		err = -errno;
		goto close_go;
	}
	if (!ct->pid)
		_exit(fn(env, bytes, ready[1], go[0]));
	close(ready[1]);
	close(go[0]);
	ct->ready = ready[0];
	ct->go = go[1];
	if (read(ct->ready, &c, 1) != 1 ||
	    run("ip link set dev %s netns %d", env->ifname, ct->pid) ||
	    write(ct->go, "g", 1) != 1) {
		close(ct->go);
		close(ct->ready);
		waitpid(ct->pid, NULL, 0);
		return -EIO;
	}
	return 0;

close_go:
	close(go[0]);
	close(go[1]);
close_ready:
	close(ready[0]);
	close(ready[1]);
	return err;
}

/* Reap the child: its exit status (0, or the step that failed), or -1. */
static int container_wait(struct container *ct)
{
	int status;

	close(ct->go);
	close(ct->ready);
	if (waitpid(ct->pid, &status, 0) != ct->pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * A container receives: an unprivileged process makes its own user and
 * network namespace, the port is moved into it, and there it addresses
 * the port, binds the dmabuf (made before, inherited) to queue 2 with
 * that user namespace's CAP_NET_ADMIN alone, and takes a stream from the
 * peer, every byte checked in device memory. The child exits 0, or the
 * number of the step that failed.
 */
static int receive_in_container(struct devmem_env *env, size_t bytes,
				int ready, int go)
{
	struct devmem_queue q = { 2, UP_NETDEV_QUEUE_TYPE_RX };
	struct stream st = { .map_size = DMABUF_SIZE };
	int ifindex, lfd, fd;
	struct devmem_nl nl;
	uint32_t id;

	ifindex = enter_container(env, ready, go);
	if (ifindex < 0)
		return -ifindex;
	if (devmem_nl_open(&nl) ||
	    devmem_bind_rx(&nl, ifindex, env->dmabuf, &q, 1, &id))
		return 4;
	lfd = listen_on(RX_ADDR, PORT);
	if (lfd < 0 || write(ready, "l", 1) != 1)
		return 5;
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		return 6;
	recv_stream(fd, env->map, &st, SIZE_MAX);
	close(fd);
	devmem_nl_close(&nl);
	return st.bytes == bytes && st.devmem == bytes && !st.errors ? 0 : 7;
}

TEST_F_TIMEOUT(faults, container_receives_into_device_memory, 120)
{
	size_t bytes = 4 << 20;
	struct container ct;
	pid_t sender;
	char c;

	ASSERT_EQ(0, devmem_env_steer(&self->env, PORT, 2));
	ASSERT_EQ(0, container_start(&self->env, receive_in_container, bytes,
				     &ct));
	/* listening, or the child failed (EOF) */
	if (read(ct.ready, &c, 1) == 1) {
		sender = sender_to(self->env.ns, RX_ADDR, PORT, bytes);
		ASSERT_GT(sender, 0);
		EXPECT_EQ(0, reap(sender));
	}
	EXPECT_EQ(0, container_wait(&ct));
}

/*
 * A container sends: as above, the unprivileged process owns the user
 * namespace of the port's network namespace, and there binds the dmabuf
 * for TX (bind-tx asks no capability) and sends 1 MiB of it to a
 * listener in the peer's namespace, which checks every byte. The sends
 * complete without a copy. The child exits 0, or the step that failed.
 */
static int send_in_container(struct devmem_env *env, size_t bytes, int ready,
			     int go)
{
	struct iovec iov = { .iov_base = (void *)4096, .iov_len = bytes };
	uint64_t done = 0, copied = 0;
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT),
	};
	int ifindex, fd, one = 1;
	struct devmem_nl nl;
	uint32_t id;

	ifindex = enter_container(env, ready, go);
	if (ifindex < 0)
		return -ifindex;
	if (devmem_nl_open(&nl) ||
	    devmem_bind_tx(&nl, ifindex, env->dmabuf, &id))
		return 4;
	inet_pton(AF_INET, TX_ADDR, &sa.sin_addr);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one,
				 sizeof(one)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return 5;
	if (devmem_sendmsg(fd, id, 4, &iov, 1, MSG_ZEROCOPY) != (ssize_t)bytes)
		return 6;
	if (zerocopy_reap(fd, 1, &done, &copied, NULL) || copied)
		return 7;
	close(fd);
	devmem_nl_close(&nl);
	return 0;
}

TEST_F_TIMEOUT(faults, container_sends_from_device_memory, 120)
{
	struct pollfd pfd[2] = { { .events = POLLIN }, { .events = POLLIN } };
	size_t bytes = 1 << 20, got = 0, bad = 0, i;
	static uint8_t buf[1 << 20];
	struct container ct;
	int home, lfd, fd;
	uint8_t *wmap;
	ssize_t n;

	/* the fixture maps the dmabuf read-only: the "device" writes here */
	wmap = mmap(NULL, 4096 + bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		    self->env.dmabuf, 0);
	ASSERT_NE(MAP_FAILED, wmap);
	for (i = 0; i < bytes; i++)
		wmap[4096 + i] = pattern_at(i);
	munmap(wmap, 4096 + bytes);
	home = netns_enter(self->env.ns);
	ASSERT_GE(home, 0);
	lfd = listen_on(TX_ADDR, PORT);
	netns_leave(home);
	ASSERT_GE(lfd, 0);

	ASSERT_EQ(0, container_start(&self->env, send_in_container, bytes,
				     &ct));
	/* a connection, or the child failed before it (EOF on its pipe) */
	pfd[0].fd = lfd;
	pfd[1].fd = ct.ready;
	ASSERT_GT(poll(pfd, 2, 60000), 0);
	if (pfd[0].revents & POLLIN) {
		fd = accept(lfd, NULL, NULL);
		ASSERT_GE(fd, 0);
		while (got < bytes &&
		       (n = recv(fd, buf + got, bytes - got, 0)) > 0)
			got += n;
		close(fd);
	}
	EXPECT_EQ(0, container_wait(&ct));
	EXPECT_EQ(bytes, got);
	for (i = 0; i < got; i++)
		bad += buf[i] != pattern_at(i);
	EXPECT_EQ(0, bad);
	close(lfd);
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
	struct stream st = {
		.map_size = DMABUF_SIZE,
		.frag_base = frag_base_of,
	};
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

	ASSERT_EQ(0, devmem_env_steer(&self->env, PORT, 3));
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
				err = devmem_bind_rx_range(&nl,
							   self->env.ifindex,
							   dmabuf[i], 3, 1,
							   &msg[0]);
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
	fd = devmem_env_stream(&self->env, bytes, &tx);
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

		snprintf(path, sizeof(path), "/run/netns/%s", self->env.ns);
		nsfd = open(path, O_RDONLY);
		if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) ||
		    devmem_nl_open(&nl))
			_exit(1);
		/* our ifindex must not name a device there, or no test */
		if (if_indextoname(self->env.ifindex, name))
			_exit(2);
		peer_ifindex = if_nametoindex(self->env.peer);
		if (write(report[1], &peer_ifindex, sizeof(int)) != sizeof(int))
			_exit(3);
		err = devmem_bind_rx(&nl, self->env.ifindex, self->env.dmabuf, &q, 1,
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
	EXPECT_EQ(-ENODEV, devmem_bind_rx(&self->env.nl, peer_ifindex,
					  self->env.dmabuf, &q, 1, &id));
}

/* Whether pool @id is in @pools[0..@n), detached. */
static bool pool_listed_detached(const struct devmem_pool_info *pools, int n,
				 uint32_t id)
{
	int i;

	for (i = 0; i < n; i++)
		if (pools[i].id == id && pools[i].detach_time)
			return true;
	return false;
}

/*
 * A pool the driver destroyed with pages in flight is shown by
 * page-pool-get to the netns its device was in, and to no other: here
 * the pools of the peer port, in the peer's netns, while a socket there
 * holds what it has not read of 64 KiB (header split on: in the pools'
 * pages), when the device is deleted. init_net used to see them, and the
 * peer's netns not.
 */
TEST_F_TIMEOUT(faults, detached_pool_shown_only_in_its_own_netns, 60)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(PORT + 1) };
	struct devmem_pool_info pools[256];
	int home, lfd, cfd, afd = -1, n, i;
	int nids = 0, here = 0, there = 0;
	static char buf[64 << 10];
	int peer_ifindex, queued = 0;
	struct devmem_nl nl;
	uint32_t ids[64];

	home = netns_enter(self->env.ns);
	ASSERT_GE(home, 0);
	lfd = listen_on(TX_ADDR, PORT + 1);
	peer_ifindex = if_nametoindex(self->env.peer);
	n = devmem_nl_open(&nl);
	netns_leave(home);
	ASSERT_GE(lfd, 0);
	ASSERT_GT(peer_ifindex, 0);
	ASSERT_EQ(0, n);
	/* payload in page pool buffers, headers in page pool fragments */
	ASSERT_EQ(0, ethtool_set_hds(&nl, peer_ifindex, true));

	/* 64 KiB the peer's socket keeps, in the peer port's pages */
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_GE(cfd, 0);
	inet_pton(AF_INET, TX_ADDR, &to.sin_addr);
	ASSERT_EQ(0, connect(cfd, (void *)&to, sizeof(to)));
	afd = accept(lfd, NULL, NULL);
	ASSERT_GE(afd, 0);
	ASSERT_EQ(sizeof(buf), send(cfd, buf, sizeof(buf), 0));
	/* as much as the receive window lets in: some is enough */
	for (i = 0; i < 500 && queued < 16 << 10; i++) {
		usleep(10000);
		ASSERT_EQ(0, ioctl(afd, FIONREAD, &queued));
	}
	ASSERT_LE(16 << 10, queued);

	n = devmem_page_pools(&nl, pools, 256);
	ASSERT_GT(n, 0);
	for (i = 0; i < n && nids < 64; i++)
		if (pools[i].ifindex == (uint32_t)peer_ifindex)
			ids[nids++] = pools[i].id;
	ASSERT_GT(nids, 0);

	ASSERT_EQ(0, hdsim_del(self->env.dev_id));
	self->env.dev_gone = true;

	n = devmem_page_pools(&self->env.nl, pools, 256);
	ASSERT_GE(n, 0);
	for (i = 0; i < nids; i++)
		here += pool_listed_detached(pools, n, ids[i]);
	n = devmem_page_pools(&nl, pools, 256);
	ASSERT_GE(n, 0);
	for (i = 0; i < nids; i++)
		there += pool_listed_detached(pools, n, ids[i]);
	EXPECT_EQ(0, here);
	EXPECT_GT(there, 0);

	close(afd);
	close(cfd);
	close(lfd);
	devmem_nl_close(&nl);
}

TEST_HARNESS_MAIN
