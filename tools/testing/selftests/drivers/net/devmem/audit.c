// SPDX-License-Identifier: GPL-2.0
/*
 * No path but the devmem receive reads device memory: frames whose payload
 * sits in a dmabuf are dropped when forwarded or mirrored out of another
 * device, and BPF socket filters, tc BPF classifiers (payload_probe.bpf.c)
 * and nftables cannot load their payload, while the same rules do read a
 * flow in host memory. Same environment and leak check as faults.c.
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <bpf/libbpf.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "devmem_traffic.h"
#include "netcfg.h"
#include "payload_probe.skel.h"

#define DMABUF_SIZE		(16 << 20)
#define RX_ADDR			"192.0.6.1"
#define TX_ADDR			"192.0.6.2"
#define PORT			5600
#define DEV_ID			34

FIXTURE(audit)
{
	struct devmem_env env;
};

FIXTURE_SETUP(audit)
{
	if (!devmem_env_available())
		SETUP_SKIP("no hdsim driver (CONFIG_HDSIM)");
	/* veths a killed test left (its namespaces go in setup) */
	link_del(NULL, "fwd34");
	link_del(NULL, "mir34");
	ASSERT_EQ(0, devmem_env_setup_open(&self->env, "audit", DEV_ID, RX_ADDR,
					   TX_ADDR, PORT, DMABUF_SIZE));
}

FIXTURE_TEARDOWN(audit)
{
	EXPECT_EQ(0, devmem_env_teardown(&self->env));
	EXPECT_EQ(0, devmem_env_pools_leaked());
}

/*
 * The receiver behind the router, in namespace @ns: listen on
 * 198.18.0.2:@port, say so on @ready, accept one connection (10 s at
 * most), count what arrives in 5 s, report {accepted, bytes} on @report.
 */
static pid_t fwd_receiver(const char *ns, int port, int ready, int report)
{
	long res[2] = { 0, 0 };
	struct pollfd pfd = { .events = POLLIN };
	char buf[65536];
	int lfd, i;
	ssize_t n;
	pid_t pid;

	pid = fork();
	if (pid)
		return pid;
	if (netns_enter(ns) < 0)
		_exit(1);
	lfd = listen_on("198.18.0.2", port);
	if (lfd < 0 || write(ready, "", 1) != 1)
		_exit(2);
	pfd.fd = lfd;
	if (poll(&pfd, 1, 10000) == 1) {
		pfd.fd = accept(lfd, NULL, NULL);
		res[0] = pfd.fd >= 0;
		for (i = 0; res[0] && i < 5; i++) {
			if (poll(&pfd, 1, 1000) != 1)
				continue;
			n = recv(pfd.fd, buf, sizeof(buf), 0);
			if (n <= 0)
				break;
			res[1] += n;
		}
	}
	if (write(report, res, sizeof(res)) != sizeof(res))
		_exit(3);
	_exit(0);
}

/*
 * Forwarding: data that landed in device memory and is routed out of
 * another device must be dropped (nothing could read it to transmit it),
 * never sent; the connection's data never arrives.
 */
TEST_F_TIMEOUT(audit, forwarded_unreadable_skbs_are_dropped, 90)
{
	int ready[2], report[2];
	char fwdns[40], c;
	long res[2];
	uint32_t id;
	pid_t tx, rx;

	snprintf(fwdns, sizeof(fwdns), "%s-fwd", self->env.ns);
	ASSERT_EQ(0, netns_add(fwdns));
	ASSERT_EQ(0, run("ip link add fwd%u type veth peer name fwdp%u",
			 self->env.dev_id, self->env.dev_id));
	ASSERT_EQ(0, run("ip link set fwdp%u netns %s", self->env.dev_id, fwdns));
	ASSERT_EQ(0, run("ip addr add 198.18.0.1/24 dev fwd%u && ip link set fwd%u up",
			 self->env.dev_id, self->env.dev_id));
	ASSERT_EQ(0, run("ip -n %s addr add 198.18.0.2/24 dev fwdp%u",
			 fwdns, self->env.dev_id));
	ASSERT_EQ(0, run("ip -n %s link set fwdp%u up", fwdns, self->env.dev_id));
	ASSERT_EQ(0, run("ip -n %s route add default via 198.18.0.1", fwdns));
	ASSERT_EQ(0, run("ip -n %s route add 198.18.0.0/24 via %s", self->env.ns,
			 RX_ADDR));
	ASSERT_EQ(0, run("sysctl -qw net.ipv4.ip_forward=1"));
	ASSERT_EQ(0, devmem_env_steer(&self->env, PORT + 3, 3));
	ASSERT_EQ(0, devmem_env_bind(&self->env, &self->env.nl, 3, 1, &id));

	/* the handshake is readable and gets through; no payload does */
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(report));
	rx = fwd_receiver(fwdns, PORT + 3, ready[1], report[1]);
	ASSERT_GE(rx, 0);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	tx = sender_to(self->env.ns, "198.18.0.2", PORT + 3, 4 << 20);
	ASSERT_EQ(sizeof(res), read(report[0], res, sizeof(res)));
	EXPECT_EQ(1, res[0]);
	EXPECT_EQ(0, res[1]);
	kill(tx, SIGKILL);
	reap(tx);
	EXPECT_EQ(0, reap(rx));
	run("sysctl -qw net.ipv4.ip_forward=0");
	link_del(NULL, "fwd34");
	netns_del(fwdns);
	devmem_nl_close(&self->env.nl);
	ASSERT_EQ(0, devmem_nl_open(&self->env.nl));
}

/* Count what a packet socket on @ifindex sees of TCP to @port: frames,
 * and frames carrying payload (longer than Ethernet + IPv4 + TCP headers).
 */
struct capture {
	int fd;
	int frames[2];		/* [0]: to port a, [1]: to port b */
	int payload[2];
};

/* @probe: attach its socket filter, which drops what it cannot read. */
static int capture_open(struct capture *c, int ifindex,
			const struct payload_probe *probe)
{
	struct sockaddr_ll ll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
		.sll_ifindex = ifindex,
	};
	int prog;

	memset(c, 0, sizeof(*c));
	c->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP));
	if (c->fd < 0 || bind(c->fd, (struct sockaddr *)&ll, sizeof(ll)))
		return -1;
	if (!probe)
		return 0;
	prog = bpf_program__fd(probe->progs.probe_socket);
	return setsockopt(c->fd, SOL_SOCKET, SO_ATTACH_BPF, &prog,
			  sizeof(prog));
}

/* payload_probe.bpf.c for TCP to @port_a (slot 0) and @port_b (slot 1) */
static struct payload_probe *probe_load(int port_a, int port_b)
{
	struct payload_probe *p = payload_probe__open();

	if (!p)
		return NULL;
	p->bss->ports[0] = port_a;
	p->bss->ports[1] = port_b;
	if (payload_probe__load(p)) {
		payload_probe__destroy(p);
		return NULL;
	}
	return p;
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
 * Two flows from the peer: the listening port into device memory (queue
 * 3, bound) and @host_port into host memory (RSS), both accepted.
 */
struct two_flows {
	int lfd;		/* listening on @host_port */
	int dev, host;		/* the connections */
	pid_t dev_tx, host_tx;	/* their senders */
};

static int two_flows_start(struct devmem_env *env, int host_port,
			   size_t bytes, struct two_flows *f)
{
	uint32_t id;

	f->lfd = listen_on(env->rx_addr, host_port);
	if (f->lfd < 0)
		return f->lfd;
	f->dev = devmem_env_bound_stream(env, &env->nl, 3, bytes, &id,
					 &f->dev_tx);
	if (f->dev < 0)
		return f->dev;
	f->host_tx = sender_to(env->ns, env->rx_addr, host_port, bytes);
	f->host = accept(f->lfd, NULL, NULL);
	return f->host < 0 ? -errno : 0;
}

static void two_flows_close(struct two_flows *f)
{
	close(f->dev);
	close(f->host);
	close(f->lfd);
}

/*
 * A BPF socket filter that reads a payload byte can read it for a flow in
 * host memory, never for one in device memory: the load fails and the
 * filter drops, so the tap sees nothing of the devmem flow's data.
 */
TEST_F_TIMEOUT(audit, bpf_filter_cannot_read_devmem_payload, 120)
{
	size_t bytes = 2 << 20;
	struct stream sd = { .map_size = DMABUF_SIZE };
	struct stream sh = { .map_size = DMABUF_SIZE };
	struct payload_probe *probe;
	struct two_flows f;
	struct capture c;

	probe = probe_load(PORT, PORT + 6);
	ASSERT_NE(NULL, probe);
	ASSERT_EQ(0, capture_open(&c, self->env.ifindex, probe));
	ASSERT_EQ(0, two_flows_start(&self->env, PORT + 6, bytes, &f));
	EXPECT_EQ(0, recv_stream(f.dev, self->env.map, &sd, SIZE_MAX));
	EXPECT_EQ(0, recv_stream(f.host, self->env.map, &sh, SIZE_MAX));
	capture_drain(&c, PORT, PORT + 6);

	EXPECT_EQ(bytes, sd.devmem);
	EXPECT_EQ(bytes, sh.host);
	EXPECT_EQ(0, sd.errors + sh.errors);
	TH_LOG("filter passed %d/%d payload frames of the devmem/host flows",
	       c.payload[0], c.payload[1]);
	EXPECT_EQ(0, c.payload[0]);
	EXPECT_LT(0, c.payload[1]);
	/* bpf_skb_load_bytes() on a devmem payload byte: EFAULT, always */
	EXPECT_LT(0, probe->bss->load_err[0]);
	EXPECT_EQ(0, probe->bss->load_ok[0]);
	EXPECT_EQ(-EFAULT, probe->bss->load_errno[0]);
	EXPECT_LT(0, probe->bss->load_ok[1]);
	EXPECT_EQ(0, probe->bss->load_err[1]);
	EXPECT_EQ(0, reap(f.dev_tx));
	EXPECT_EQ(0, reap(f.host_tx));
	close(c.fd);
	payload_probe__destroy(probe);
	two_flows_close(&f);
	devmem_nl_close(&self->env.nl);
	ASSERT_EQ(0, devmem_nl_open(&self->env.nl));
}

/*
 * A tc classifier on the bound port's ingress reaches for the payload in
 * every way it has: bpf_skb_load_bytes() fails with EFAULT, the linear
 * part (data..data_end) ends before the payload, bpf_skb_pull_data()
 * fails; on the flow in host memory the same program reads it.
 */
TEST_F_TIMEOUT(audit, tc_bpf_cannot_read_devmem_payload, 120)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook,
			    .ifindex = self->env.ifindex,
			    .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);
	struct stream sd = { .map_size = DMABUF_SIZE };
	struct stream sh = { .map_size = DMABUF_SIZE };
	struct payload_probe *probe;
	size_t bytes = 2 << 20;
	struct two_flows f;
	int err;

	probe = probe_load(PORT, PORT + 8);
	ASSERT_NE(NULL, probe);
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		payload_probe__destroy(probe);
		SKIP(return, "no clsact qdisc: %s", strerror(-err));
	}
	opts.prog_fd = bpf_program__fd(probe->progs.probe_tc);
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		bpf_tc_hook_destroy(&hook);
		payload_probe__destroy(probe);
		SKIP(return, "no tc BPF classifier (CONFIG_NET_CLS_BPF): %s",
		     strerror(-err));
	}

	ASSERT_EQ(0, two_flows_start(&self->env, PORT + 8, bytes, &f));
	EXPECT_EQ(0, recv_stream(f.dev, self->env.map, &sd, SIZE_MAX));
	EXPECT_EQ(0, recv_stream(f.host, self->env.map, &sh, SIZE_MAX));
	EXPECT_EQ(bytes, sd.devmem);
	EXPECT_EQ(bytes, sh.host);
	EXPECT_EQ(0, sd.errors + sh.errors);

	TH_LOG("devmem flow: %llu frames, load_bytes %llu ok / %llu err (%lld)",
	       probe->bss->frames[0], probe->bss->load_ok[0],
	       probe->bss->load_err[0], probe->bss->load_errno[0]);
	TH_LOG("devmem flow: pull %llu ok / %llu err, payload in linear %llu",
	       probe->bss->pull_ok[0], probe->bss->pull_err[0],
	       probe->bss->linear_has_payload[0]);
	TH_LOG("host flow: %llu frames, load_bytes %llu ok / %llu err, pull %llu ok / %llu err",
	       probe->bss->frames[1], probe->bss->load_ok[1],
	       probe->bss->load_err[1], probe->bss->pull_ok[1],
	       probe->bss->pull_err[1]);
	EXPECT_LT(0, probe->bss->frames[0]);
	EXPECT_EQ(0, probe->bss->load_ok[0]);
	EXPECT_EQ(probe->bss->frames[0], probe->bss->load_err[0]);
	EXPECT_EQ(-EFAULT, probe->bss->load_errno[0]);
	EXPECT_EQ(0, probe->bss->linear_has_payload[0]);
	EXPECT_EQ(0, probe->bss->pull_ok[0]);
	EXPECT_EQ(probe->bss->frames[0], probe->bss->pull_err[0]);
	EXPECT_LT(0, probe->bss->load_ok[1]);
	EXPECT_EQ(0, probe->bss->load_err[1]);
	EXPECT_LT(0, probe->bss->pull_ok[1]);

	EXPECT_EQ(0, reap(f.dev_tx));
	EXPECT_EQ(0, reap(f.host_tx));
	opts.flags = 0;
	opts.prog_fd = 0;
	opts.prog_id = 0;
	EXPECT_EQ(0, bpf_tc_detach(&hook, &opts));
	bpf_tc_hook_destroy(&hook);
	payload_probe__destroy(probe);
	two_flows_close(&f);
	devmem_nl_close(&self->env.nl);
	ASSERT_EQ(0, devmem_nl_open(&self->env.nl));
}

/*
 * tc mirred mirrors every frame the bound port receives out of a veth:
 * frames of device memory cannot be transmitted and are dropped there,
 * header-only frames get through, and the stream itself is intact.
 */
TEST_F_TIMEOUT(audit, tc_mirror_of_devmem_frames_is_dropped, 120)
{
	size_t bytes = 2 << 20;
	struct stream st = { .map_size = DMABUF_SIZE };
	char mir[IFNAMSIZ];
	struct capture c;
	uint32_t id;
	pid_t pid;
	int fd;

	snprintf(mir, sizeof(mir), "mir%u", self->env.dev_id);
	if (run("tc qdisc add dev %s clsact 2>/dev/null", self->env.ifname))
		SKIP(return, "no clsact qdisc (CONFIG_NET_SCH_INGRESS)");
	ASSERT_EQ(0, run("ip link add %s type veth peer name %sp", mir, mir));
	ASSERT_EQ(0, run("ip link set %s up && ip link set %sp up", mir, mir));
	ASSERT_EQ(0, run("tc filter add dev %s ingress matchall action mirred egress mirror dev %s",
			 self->env.ifname, mir));
	snprintf(mir + strlen(mir), sizeof(mir) - strlen(mir), "p");
	ASSERT_EQ(0, capture_open(&c, if_nametoindex(mir), NULL));

	fd = devmem_env_bound_stream(&self->env, &self->env.nl, 3, bytes, &id,
				     &pid);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, recv_stream(fd, self->env.map, &st, SIZE_MAX));
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
	run("ip link del %s; tc qdisc del dev %s clsact", mir, self->env.ifname);
	devmem_nl_close(&self->env.nl);
	ASSERT_EQ(0, devmem_nl_open(&self->env.nl));
}

/* The tx_dropped statistic of @ifname (sysfs), or -1. */
static long stat_tx_dropped(const char *ifname)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_dropped",
		 ifname);
	return file_read_long(path);
}

/*
 * tc mirred redirects, for a second in the middle of the stream (the
 * receiver keeps reading), every frame the bound port receives to a
 * veth: the device-memory segments reach that veth's transmit path and
 * are dropped there (tx_dropped) before any driver sees them, nothing
 * with payload comes out of its peer. When the redirect goes, TCP
 * retransmits and the stream arrives whole, in device memory.
 */
TEST_F_TIMEOUT(audit, tc_redirect_of_devmem_frames_is_dropped, 180)
{
	size_t bytes = 16 << 20;	/* still streaming when the redirect lands */
	struct stream st = { .map_size = DMABUF_SIZE };
	char mir[IFNAMSIZ], mirp[IFNAMSIZ + 1];
	long dropped0, dropped1;
	int fd, sync[2];
	struct capture c;
	pid_t pid, tc;
	uint32_t id;
	char x;

	snprintf(mir, sizeof(mir), "red%u", self->env.dev_id);
	snprintf(mirp, sizeof(mirp), "%sp", mir);
	if (run("tc qdisc add dev %s clsact 2>/dev/null", self->env.ifname))
		SKIP(return, "no clsact qdisc (CONFIG_NET_SCH_INGRESS)");
	ASSERT_EQ(0, run("ip link add %s type veth peer name %s", mir, mirp));
	ASSERT_EQ(0, run("ip link set %s up && ip link set %s up", mir, mirp));
	ASSERT_EQ(0, capture_open(&c, if_nametoindex(mirp), NULL));
	dropped0 = stat_tx_dropped(mir);
	ASSERT_GE(dropped0, 0);

	fd = devmem_env_bound_stream(&self->env, &self->env.nl, 3, bytes, &id,
				     &pid);
	ASSERT_GE(fd, 0);
	ASSERT_GT(recv_stream(fd, self->env.map, &st, 1 << 20), 0);
	/* The redirect comes and goes while this process keeps reading. It
	 * reads on only once the rule is in: the sender, held back by the
	 * closed window until then, is sure to send into the redirect. The
	 * rule stays until the redirect dropped a frame (or a minute went
	 * by: a TCP sender backing off can be silent for seconds).
	 */
	ASSERT_EQ(0, pipe(sync));
	tc = fork();
	ASSERT_GE(tc, 0);
	if (!tc) {
		int ms;

		if (run("tc filter add dev %s ingress matchall action %s %s",
			self->env.ifname, "mirred egress redirect dev", mir) ||
		    write(sync[1], "x", 1) != 1)
			_exit(1);
		for (ms = 0; ms < 60000 && stat_tx_dropped(mir) <= dropped0;
		     ms += 10)
			usleep(10000);
		_exit(run("tc filter del dev %s ingress", self->env.ifname));
	}
	close(sync[1]);
	EXPECT_EQ(1, read(sync[0], &x, 1));
	close(sync[0]);
	EXPECT_EQ(0, recv_stream(fd, self->env.map, &st, SIZE_MAX));
	EXPECT_EQ(0, reap(tc));
	capture_drain(&c, PORT, 0);
	dropped1 = stat_tx_dropped(mir);

	EXPECT_EQ(bytes, st.bytes);
	EXPECT_EQ(bytes, st.devmem);
	EXPECT_EQ(0, st.errors);
	TH_LOG("redirect: %ld dropped on %s, %d frames out of %s, %d with payload",
	       dropped1 - dropped0, mir, c.frames[0], mirp, c.payload[0]);
	EXPECT_LT(0, dropped1 - dropped0);
	EXPECT_EQ(0, c.payload[0]);
	EXPECT_EQ(0, reap(pid));
	close(c.fd);
	close(fd);
	run("ip link del %s; tc qdisc del dev %s clsact", mir, self->env.ifname);
	devmem_nl_close(&self->env.nl);
	ASSERT_EQ(0, devmem_nl_open(&self->env.nl));
}

/*
 * An nftables rule that drops TCP segments carrying a non-zero payload
 * byte stops a host-memory flow dead, and cannot read the payload of a
 * devmem flow: the expression fails, the rule does not match, the stream
 * arrives intact. Netfilter never copies device memory.
 */
TEST_F_TIMEOUT(audit, nftables_cannot_read_devmem_payload, 120)
{
	size_t bytes = 2 << 20;
	struct stream sd = { .map_size = DMABUF_SIZE };
	struct two_flows f;
	struct pollfd pfd;

	if (run("nft -v >/dev/null 2>&1"))
		SKIP(return, "no nft (Debian package nftables)");
	/* a killed run of this test may have left its table */
	run("nft delete table inet devmem 2>/dev/null");
	if (run("nft add table inet devmem 2>/dev/null"))
		SKIP(return, "no nf_tables (CONFIG_NF_TABLES_INET)");
	ASSERT_EQ(0, run("nft add chain inet devmem in '{ type filter hook input priority 0; }'"));
	/* a payload byte 100 bytes into the TCP header: never 0 here */
	ASSERT_EQ(0, run("nft add rule inet devmem in tcp dport '{ %d, %d }' %s",
			 PORT, PORT + 7, "@th,800,8 != 0 counter drop"));

	ASSERT_EQ(0, two_flows_start(&self->env, PORT + 7, bytes, &f));
	EXPECT_EQ(0, recv_stream(f.dev, self->env.map, &sd, SIZE_MAX));
	EXPECT_EQ(bytes, sd.devmem);
	EXPECT_EQ(0, sd.errors);
	/* the host flow's data is dropped by the rule: nothing in 2 s */
	pfd.fd = f.host;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 2000));

	run("nft list ruleset | grep counter | sed 's/^/# /'");
	run("nft delete table inet devmem");
	kill(f.host_tx, SIGKILL);
	reap(f.host_tx);
	EXPECT_EQ(0, reap(f.dev_tx));
	two_flows_close(&f);
	devmem_nl_close(&self->env.nl);
	ASSERT_EQ(0, devmem_nl_open(&self->env.nl));
}

TEST_HARNESS_MAIN
