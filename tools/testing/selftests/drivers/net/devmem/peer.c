// SPDX-License-Identifier: GPL-2.0
/*
 * What a remote peer can put on the wire of a devmem flow: urgent data,
 * segments the receiver answers with an ICMP error quoting them, and
 * payload that a local reader other than recvmsg() (sockmap, splice)
 * would have to touch. The
 * peer runs in the namespace of the other hdsim port and uses nothing but
 * the socket API a stock program has; queue 3 of the receiving port is
 * bound to a udmabuf, and every payload byte steered there is in device
 * memory.
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1
#include <linux/bpf.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/tls.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "devmem_traffic.h"
#include "netcfg.h"

#define DMABUF_SIZE		(16 << 20)
#define BOUND_QUEUE		3
#define PORT_DEVMEM		5400
#define PORT_HOST		5401	/* not steered: host memory */
#define PORT_MPTCP		5402
#define NFLOG_GROUP		7
#define NFQUEUE_NUM		9
#define BRIDGE			"devmem-peer-br"
#define OVS_DP			"devmem-peer-dp"
#define OVS_PORT		"devmem-peer-ovs"
#define RX_ADDR			"192.0.8.1"
#define TX_ADDR			"192.0.8.2"

#define URG_BEFORE		(256 << 10)	/* stream before the urgent byte */
#define URG_AFTER		(16 << 10)	/* and after it */

#define GATED_LEN		(256 << 10)	/* sockmap and splice streams */

#define CRAFTED_SEGS		8
#define CRAFTED_PAYLOAD		1000
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP		262
#endif
#ifndef SOL_TLS
#define SOL_TLS			282
#endif

#define ICMP_RATELIMIT		"/proc/sys/net/ipv4/icmp_ratelimit"

FIXTURE(peer)
{
	struct devmem_env env;
};

FIXTURE_SETUP(peer)
{
	const struct devmem_env_cfg cfg = {
		.name = "peer",
		.dev_id = 41,
		.rx_addr = RX_ADDR,
		.tx_addr = TX_ADDR,
		.rss_queues = BOUND_QUEUE,
		.steer_port = PORT_DEVMEM,
		.steer_queue = BOUND_QUEUE,
		.dmabuf_size = DMABUF_SIZE,
		.bind_queue = BOUND_QUEUE,
		.listen_port = PORT_DEVMEM,
	};

	DEVMEM_ONLY_SKIP();
	if (!devmem_env_available())
		SKIP(return, "no hdsim driver (CONFIG_HDSIM)");
	ASSERT_EQ(0, devmem_env_setup(&self->env, &cfg));
}

FIXTURE_TEARDOWN(peer)
{
	EXPECT_EQ(0, devmem_env_teardown(&self->env));
}

/* Fork the peer: the child (0 returned) runs in the peer's namespace,
 * with none of the parent's descriptors.
 */
static pid_t peer_fork(const struct devmem_env *env)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	close_range(3, ~0U, 0);
	if (netns_enter(env->ns) < 0)
		_exit(2);
	return 0;
}

/* In the peer: a socket connected to @addr:PORT_DEVMEM, or exit 3. */
static int peer_connect(const char *addr, int pmtudisc)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT_DEVMEM),
	};
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtudisc,
		   sizeof(pmtudisc));
	inet_pton(AF_INET, addr, &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		_exit(3);
	return fd;
}

static int send_pattern(int fd, size_t off, size_t len)
{
	static char buf[64 << 10];
	size_t n, i;

	while (len) {
		n = len < sizeof(buf) ? len : sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = pattern_at(off + i);
		if (write(fd, buf, n) != (ssize_t)n)
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

static char ctrl[80000];

/* Receive up to @want bytes of the pattern from @fd, every frag checked
 * in the dmabuf and its token returned. Returns the bytes received; adds
 * wrong bytes and unreturned tokens to @bad, host-memory frags to
 * @nlinear.
 */
static size_t drain_devmem(const struct devmem_env *env, int fd,
			   size_t want, uint64_t *bad, uint64_t *nlinear)
{
	struct rx_result r;
	size_t got = 0;
	int i;

	while (got < want) {
		devmem_recv(fd, want - got, ctrl, sizeof(ctrl),
			    MSG_SOCK_DEVMEM, &r);
		if (r.ret <= 0)
			break;
		*nlinear += r.nlinear;
		for (i = 0; i < r.ndmabuf; i++) {
			const struct dmabuf_cmsg *f = &r.frags[i];
			uint32_t k;

			for (k = 0; k < f->frag_size; k++)
				*bad += env->map[f->frag_offset + k] !=
					pattern_at(got + k);
			got += f->frag_size;
		}
		*bad += dontneed_all(fd, &r) != r.ndmabuf;
	}
	return got;
}

/*
 * A stream of @want bytes from the peer into the bound queue: every byte
 * must arrive in the dmabuf, right, with every token returned.
 */
static void devmem_flow_whole(struct __test_metadata *_metadata,
			      struct devmem_env *env, size_t want)
{
	struct timeval tv = { .tv_sec = 10 };
	uint64_t bad = 0, nlinear = 0;
	size_t got;
	pid_t pid;
	int fd;

	fd = devmem_env_stream(env, want, &pid);
	EXPECT_GE(fd, 0);
	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	got = drain_devmem(env, fd, want, &bad, &nlinear);
	EXPECT_EQ(want, got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, nlinear);
	/* a stalled flow: the sender would wait for TCP to give up */
	if (got != want)
		kill(pid, SIGKILL);
	else
		EXPECT_EQ(0, reap(pid));
	reap(pid);
	close(fd);
}

/*
 * The control of a filter on payload: a flow on PORT_HOST (host memory)
 * gets no byte through within 3 s.
 */
static void host_flow_dropped(struct __test_metadata *_metadata,
			      struct devmem_env *env)
{
	struct timeval tv = { .tv_sec = 3 };
	int lfd, hfd;
	pid_t hpid;
	char c;

	lfd = listen_on(RX_ADDR, PORT_HOST);
	EXPECT_GE(lfd, 0);
	if (lfd < 0)
		return;
	hpid = sender_to(env->ns, RX_ADDR, PORT_HOST, 4096);
	hfd = accept(lfd, NULL, NULL);
	setsockopt(hfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	EXPECT_EQ(-1, recv(hfd, &c, 1, 0));
	EXPECT_EQ(EAGAIN, errno);
	close(hfd);
	close(lfd);
	reap(hpid);
}

struct nfnl_attr {
	uint16_t type;
	uint16_t len;
	const void *data;
};

/* Start an nfnetlink message @msg_type (subsystem << 8 | message) for
 * instance @res_id in @buf.
 */
static struct nlmsghdr *nfnl_msg(char *buf, uint16_t msg_type,
				 uint16_t flags, uint16_t res_id)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = msg_type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_UNSPEC;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = htons(res_id);
	return nlh;
}

/* Send @msg_type for instance @res_id with @n attributes through @nl: 0
 * once the kernel acknowledged it.
 */
static int nfnl_config(struct mnl_socket *nl, uint16_t msg_type,
		       uint16_t res_id, const struct nfnl_attr *attrs, int n)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = nfnl_msg(buf, msg_type, NLM_F_ACK, res_id);
	int i;

	for (i = 0; i < n; i++)
		mnl_attr_put(nlh, attrs[i].type, attrs[i].len, attrs[i].data);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0 ||
	    mnl_socket_recvfrom(nl, buf, sizeof(buf)) < 0)
		return -1;
	return ((struct nlmsgerr *)mnl_nlmsg_get_payload((void *)buf))->error;
}

/* A netfilter netlink socket with a receive buffer for bursts, or NULL. */
static struct mnl_socket *nfnl_open(void)
{
	struct mnl_socket *nl;
	int rcvbuf = 4 << 20;

	nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!nl)
		return NULL;
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		   sizeof(rcvbuf));
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID)) {
		mnl_socket_close(nl);
		return NULL;
	}
	return nl;
}

/* nflog: a listener on group @group, copying whole packets (0xffff) */
static struct mnl_socket *nflog_open(uint16_t group)
{
	const struct nfulnl_msg_config_mode mode = {
		.copy_range = htonl(0xffff),
		.copy_mode = NFULNL_COPY_PACKET,
	};
	const struct nfulnl_msg_config_cmd cmd = {
		.command = NFULNL_CFG_CMD_BIND,
	};
	const uint32_t qthresh = htonl(1);
	const struct nfnl_attr bind = { NFULA_CFG_CMD, sizeof(cmd), &cmd };
	const struct nfnl_attr setup[] = {
		{ NFULA_CFG_MODE, sizeof(mode), &mode },
		/* each packet at once, not batched for a second */
		{ NFULA_CFG_QTHRESH, sizeof(qthresh), &qthresh },
	};
	const uint16_t type = NFNL_SUBSYS_ULOG << 8 | NFULNL_MSG_CONFIG;
	struct mnl_socket *nl = nfnl_open();

	if (nl && (nfnl_config(nl, type, group, &bind, 1) ||
		   nfnl_config(nl, type, group, setup, 2))) {
		mnl_socket_close(nl);
		nl = NULL;
	}
	return nl;
}

struct nflog_report {
	int packets;		/* TCP packets logged */
	int data_segs;		/* of them, carrying payload */
	long payload_logged;	/* payload bytes copied into the log */
};

/* Count what the listener got so far (it does not wait). */
static void nflog_read(struct mnl_socket *nl, struct nflog_report *rep)
{
	static char buf[1 << 16];
	struct nlmsghdr *nlh;
	int n;

	while ((n = recv(mnl_socket_get_fd(nl), buf, sizeof(buf),
			 MSG_DONTWAIT)) > 0) {
		for (nlh = (void *)buf; mnl_nlmsg_ok(nlh, n);
		     nlh = mnl_nlmsg_next(nlh, &n)) {
			const struct iphdr *ip = NULL;
			struct nlattr *a;
			int len = 0, hl;

			if (nlh->nlmsg_type !=
			    (NFNL_SUBSYS_ULOG << 8 | NFULNL_MSG_PACKET))
				continue;
			mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
				if (mnl_attr_get_type(a) == NFULA_PAYLOAD) {
					ip = mnl_attr_get_payload(a);
					len = mnl_attr_get_payload_len(a);
				}
			if (!ip || len < 40 || ip->protocol != IPPROTO_TCP)
				continue;
			hl = ip->ihl * 4;
			hl += ((const struct tcphdr *)((char *)ip + hl))->doff * 4;
			rep->packets++;
			if (ntohs(ip->tot_len) > hl)
				rep->data_segs++;
			if (len > hl)
				rep->payload_logged += len - hl;
		}
	}
}

/*
 * "log group N" hands each packet to nfnetlink_log, which copies it to
 * the listener (ulogd, tcpdump -i nflog:N). The payload of a devmem
 * segment cannot be copied: the listener gets its headers, the reader
 * its whole stream. Before, nfnetlink_log called BUG() on the copy.
 */
TEST_F(peer, nflog_logs_headers_of_device_memory)
{
	struct nflog_report rep = {};
	struct mnl_socket *nl;

	ASSERT_EQ(0, run("nft add table inet devmem_peer"));
	ASSERT_EQ(0, run("nft add chain inet devmem_peer in %s",
			 "'{ type filter hook input priority 0; }'"));
	ASSERT_EQ(0, run("nft add rule inet devmem_peer in %s %d log group %d",
			 "tcp dport", PORT_DEVMEM, NFLOG_GROUP));
	nl = nflog_open(NFLOG_GROUP);
	EXPECT_NE(NULL, nl);
	if (nl) {
		devmem_flow_whole(_metadata, &self->env, 64 << 10);
		usleep(200000);
		nflog_read(nl, &rep);
		mnl_socket_close(nl);
	}
	EXPECT_EQ(0, run("nft delete table inet devmem_peer"));

	TH_LOG("logged %d TCP packets, %d with payload, %ld payload bytes copied",
	       rep.packets, rep.data_segs, rep.payload_logged);
	EXPECT_GT(rep.data_segs, 0);
	EXPECT_EQ(0, rep.payload_logged);
}

/* the pattern's first 4 bytes, as the first word of a segment's payload */
#define U32_RULE	"iptables %s INPUT -p tcp --dport %d -m u32 --u32 " \
			"'0>>22&0x3C@12>>26&0x3C@0=0x01020304' -j DROP"

/*
 * xt_u32 reads the words its expression points at. One in device memory
 * cannot be read, so the match fails: a rule dropping segments whose
 * payload starts with the pattern drops a host-memory flow's first data
 * segment (the flow stalls) and lets the devmem flow through whole.
 * Before, xt_u32 called BUG() on the failed copy.
 */
TEST_F(peer, u32_match_fails_on_device_memory)
{
	if (run("iptables -L INPUT -n >/dev/null 2>&1"))
		SKIP(return, "no iptables (Debian package iptables)");
	ASSERT_EQ(0, run(U32_RULE, "-I", PORT_DEVMEM));
	EXPECT_EQ(0, run(U32_RULE, "-I", PORT_HOST));

	devmem_flow_whole(_metadata, &self->env, 64 << 10);
	/* the control: the same rule on a flow in host memory matches */
	host_flow_dropped(_metadata, &self->env);

	EXPECT_EQ(0, run(U32_RULE, "-D", PORT_DEVMEM));
	EXPECT_EQ(0, run(U32_RULE, "-D", PORT_HOST));
}

/* A counter of the "Ip:" lines of /proc/net/snmp, or -1 */
static long snmp_ip(const char *name)
{
	char hdr[1024], val[1024], *h, *v, *hs, *vs;
	long ret = -1;
	FILE *f;

	f = fopen("/proc/net/snmp", "r");
	if (!f)
		return -1;
	while (fgets(hdr, sizeof(hdr), f) && fgets(val, sizeof(val), f)) {
		if (strncmp(hdr, "Ip:", 3))
			continue;
		h = strtok_r(hdr, "\n ", &hs);
		v = strtok_r(val, "\n ", &vs);
		while (h && v) {
			if (!strcmp(h, name))
				ret = atol(v);
			h = strtok_r(NULL, "\n ", &hs);
			v = strtok_r(NULL, "\n ", &vs);
		}
		break;
	}
	fclose(f);
	return ret;
}

#define FAR_NS		"devmem-peer-far"
#define FAR_ADDR	"10.88.0.2"

/* The peer connects through the receiver to FAR_ADDR with DF clear and
 * sends 64 KiB; it gives up after 3 s.
 */
static pid_t forwarded_sender(const struct devmem_env *env)
{
	struct timeval tv = { .tv_sec = 3 };
	pid_t pid;
	int fd;

	pid = peer_fork(env);
	if (pid)
		return pid;
	fd = peer_connect(FAR_ADDR, IP_PMTUDISC_DONT);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	send_pattern(fd, 0, 64 << 10);
	sleep(3);
	_exit(0);
}

/*
 * The receiver forwards the flow (its destination is behind a veth whose
 * near end has an MTU of 1000) instead of receiving it; the segments
 * still land in device memory on the bound queue. With DF clear they
 * would be fragmented,
 * which copies the payload: they are dropped and counted in FragFails,
 * and nothing reaches the far end (no device transmits device memory).
 * Before, ip_do_fragment() called BUG() on the failed copy.
 */
TEST_F_TIMEOUT(peer, forwarded_devmem_segments_are_not_fragmented, 120)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT_DEVMEM),
	};
	struct timeval tv = { .tv_sec = 1 };
	long fails0, fails1, far_bytes = 0;
	char fwd[8] = "0", buf[4096];
	int home, lfd, fd, rfd;
	pid_t pid;
	ssize_t n;

	rfd = open("/proc/sys/net/ipv4/ip_forward", O_RDONLY);
	ASSERT_GE(rfd, 0);
	ASSERT_GT(read(rfd, fwd, sizeof(fwd) - 1), 0);
	close(rfd);
	run("ip netns del " FAR_NS " 2>/dev/null");
	ASSERT_EQ(0, run("ip netns add " FAR_NS));
	/* only the way out is narrow: the far end advertises an MSS of a
	 * 1500-byte MTU, so the peer's segments need fragmenting
	 */
	EXPECT_EQ(0, run("ip link add dmpeer0 mtu 1000 type veth peer name %s",
			 "dmpeer1 netns " FAR_NS));
	EXPECT_EQ(0, run("ip addr add 10.88.0.1/24 dev dmpeer0"));
	EXPECT_EQ(0, run("ip link set dmpeer0 up"));
	EXPECT_EQ(0, run("ip -n %s addr add %s/24 dev dmpeer1", FAR_NS,
			 FAR_ADDR));
	EXPECT_EQ(0, run("ip -n %s link set dmpeer1 up", FAR_NS));
	EXPECT_EQ(0, run("ip -n %s route add default via 10.88.0.1", FAR_NS));
	EXPECT_EQ(0, run("ip -n %s route add 10.88.0.0/24 via %s", self->env.ns,
			 RX_ADDR));
	EXPECT_EQ(0, write_file("/proc/sys/net/ipv4/ip_forward", "1"));
	/* One skb per segment, each fragmented on its own: the peer sends
	 * MSS-sized frames, the receiver does not aggregate them. (A GSO
	 * skb of device memory fails to segment for the smaller MTU and is
	 * dropped too, but counted nowhere.)
	 */
	EXPECT_EQ(0, run("ip netns exec %s ethtool -K %s tso off gso off",
			 self->env.ns, self->env.peer));
	EXPECT_EQ(0, run("ethtool -K %s gro off", self->env.ifname));

	home = netns_enter(FAR_NS);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	netns_leave(home);
	inet_pton(AF_INET, FAR_ADDR, &sa.sin_addr);
	EXPECT_EQ(0, bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(0, listen(lfd, 1));

	fails0 = snmp_ip("FragFails");
	pid = forwarded_sender(&self->env);
	fd = accept(lfd, NULL, NULL);
	EXPECT_GE(fd, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
			far_bytes += n;
		close(fd);
	}
	EXPECT_EQ(0, reap(pid));
	fails1 = snmp_ip("FragFails");
	close(lfd);

	write_file("/proc/sys/net/ipv4/ip_forward", "%s", fwd);
	run("ip netns del " FAR_NS);

	TH_LOG("FragFails +%ld, %ld bytes reached the far end",
	       fails1 - fails0, far_bytes);
	EXPECT_GT(fails1 - fails0, 0);
	EXPECT_EQ(0, far_bytes);
}

/* RFC 1071 sum over @len bytes, continuing @sum */
/* Lift the receiver's ICMP rate limit, its value kept in @saved (the
 * caller writes it back). Returns 0 or -1.
 */
static int icmp_ratelimit_off(char *saved, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(ICMP_RATELIMIT, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, saved, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	saved[n] = '\0';
	return write_file(ICMP_RATELIMIT, "0");
}

static uint32_t sum16(const void *p, size_t len, uint32_t sum)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += b[i] << 8 | b[i + 1];
	if (len & 1)
		sum += b[len - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

struct quote_report {
	int sent;
	int icmp;	/* parameter problems that came back */
	int bad_csum;	/* of them, with a checksum that does not verify */
	int quoted;	/* payload bytes quoted in all of them */
	int zeros;	/* of those, zeros */
	int stale;	/* neither the byte sent nor zero */
};

/*
 * In the peer namespace: CRAFTED_SEGS TCP segments to the devmem port,
 * each with a malformed IP option (a record-route option of length 2) and
 * a right TCP checksum, from a raw socket as a packet generator would;
 * then every ICMP parameter problem that comes back, its quote checked
 * against what was sent.
 */
static void crafted_sender(const struct devmem_env *env, int out)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct quote_report rep = {};
	struct timeval tv = { .tv_sec = 2 };
	uint8_t pkt[24 + 20 + CRAFTED_PAYLOAD];
	struct iphdr *ip = (void *)pkt;
	struct tcphdr *th = (void *)(pkt + 24);
	uint8_t *payload = pkt + 44;
	int raw, icmp, i, one = 1;
	uint8_t buf[2048];
	uint32_t sum;

	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	if (netns_enter(env->ns) < 0)
		_exit(2);
	raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	icmp = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (raw < 0 || icmp < 0 ||
	    setsockopt(raw, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one)) ||
	    setsockopt(icmp, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		_exit(3);

	memset(pkt, 0, sizeof(pkt));
	ip->version = 4;
	ip->ihl = 6;
	ip->ttl = 64;
	ip->protocol = IPPROTO_TCP;
	ip->tot_len = htons(sizeof(pkt));
	inet_pton(AF_INET, TX_ADDR, &ip->saddr);
	inet_pton(AF_INET, env->rx_addr, &ip->daddr);
	dst.sin_addr.s_addr = ip->daddr;
	pkt[20] = 7;	/* IPOPT_RR */
	pkt[21] = 2;	/* too short for a pointer: parameter problem */
	th->source = htons(40000);
	th->dest = htons(PORT_DEVMEM);
	th->doff = 5;
	th->ack = 1;
	th->window = htons(1024);
	for (i = 0; i < CRAFTED_PAYLOAD; i++)
		payload[i] = pattern_at(i);

	for (i = 0; i < CRAFTED_SEGS; i++) {
		/* apart in sequence space, so that no NIC or stack
		 * aggregates two of them into one
		 */
		th->seq = htonl(1000 + i * 2 * CRAFTED_PAYLOAD);
		th->check = 0;
		sum = sum16(&ip->saddr, 8, IPPROTO_TCP + 20 + CRAFTED_PAYLOAD);
		th->check = htons(fold(sum16(th, 20 + CRAFTED_PAYLOAD, sum)));
		if (sendto(raw, pkt, sizeof(pkt), 0, (void *)&dst,
			   sizeof(dst)) == sizeof(pkt))
			rep.sent++;
	}

	for (;;) {
		const struct iphdr *oip = (void *)buf, *qip;
		const struct icmphdr *ih;
		const uint8_t *q;
		ssize_t n;
		int hl, qhl, k;

		n = recv(icmp, buf, sizeof(buf), 0);
		if (n < 0)
			break;
		hl = oip->ihl * 4;
		ih = (void *)(buf + hl);
		if (n < hl + 8 + 44 || ih->type != ICMP_PARAMETERPROB)
			continue;
		qip = (void *)(buf + hl + 8);
		if (qip->daddr != ip->daddr || qip->protocol != IPPROTO_TCP)
			continue;
		rep.icmp++;
		rep.bad_csum += fold(sum16(ih, n - hl, 0)) != 0;
		/* the quote: IP header with its option, TCP header, payload */
		qhl = hl + 8 + qip->ihl * 4 + 20;
		q = buf + qhl;
		for (k = 0; k < n - qhl && k < CRAFTED_PAYLOAD; k++) {
			rep.quoted++;
			if (!q[k])
				rep.zeros++;
			else if (q[k] != payload[k])
				rep.stale++;
		}
	}
	if (write(out, &rep, sizeof(rep)) != sizeof(rep))
		_exit(4);
	_exit(0);
}

/*
 * The receiver answers a segment with a malformed IP option with an ICMP
 * parameter problem that quotes it. The segments were split, so the
 * quoted payload lies in device memory: the quote must hold the bytes
 * sent or zeros, never what the reply's buffer held before, and its
 * checksum must verify. Before, skb_copy_and_csum_bits() left the rest
 * of the buffer unwritten and returned 0 for the headers it had copied.
 */
TEST_F(peer, icmp_error_quotes_no_stale_bytes)
{
	int64_t split0, split1;
	struct quote_report rep;
	char saved[32] = "";
	int pfd[2];
	pid_t pid;

	ASSERT_EQ(0, icmp_ratelimit_off(saved, sizeof(saved)));

	split0 = ethtool_stat(self->env.ifname, "rx3_devmem_payload_bytes");
	ASSERT_GE(split0, 0);
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		crafted_sender(&self->env, pfd[1]);
	close(pfd[1]);
	memset(&rep, 0, sizeof(rep));
	EXPECT_EQ(sizeof(rep), read(pfd[0], &rep, sizeof(rep)));
	close(pfd[0]);
	EXPECT_EQ(0, reap(pid));
	split1 = ethtool_stat(self->env.ifname, "rx3_devmem_payload_bytes");
	write_file(ICMP_RATELIMIT, "%s", saved);

	TH_LOG("sent %d; %d ICMP (%d bad csum) quote %d bytes: %d zero, %d stale; %lld split",
	       rep.sent, rep.icmp, rep.bad_csum, rep.quoted, rep.zeros,
	       rep.stale, (long long)(split1 - split0));
	EXPECT_EQ(CRAFTED_SEGS, rep.sent);
	/* the segments were really split into device memory */
	EXPECT_GE(split1 - split0, (int64_t)CRAFTED_SEGS * CRAFTED_PAYLOAD);
	EXPECT_EQ(CRAFTED_SEGS, rep.icmp);
	EXPECT_GT(rep.quoted, 0);
	EXPECT_EQ(0, rep.bad_csum);
	EXPECT_EQ(0, rep.stale);
}

/* The peer: URG_BEFORE bytes of the pattern, the next pattern byte with
 * MSG_OOB, URG_AFTER more, close. The stream is the pattern throughout,
 * so a receiver that keeps the urgent byte inline sees it unbroken.
 */
static pid_t urgent_sender(const struct devmem_env *env)
{
	char urg = pattern_at(URG_BEFORE);
	pid_t pid;
	int fd;

	pid = peer_fork(env);
	if (pid)
		return pid;
	fd = peer_connect(env->rx_addr, IP_PMTUDISC_WANT);
	if (send_pattern(fd, 0, URG_BEFORE) ||
	    send(fd, &urg, 1, MSG_OOB) != 1 ||
	    send_pattern(fd, URG_BEFORE + 1, URG_AFTER))
		_exit(4);
	close(fd);
	_exit(0);
}

/*
 * An urgent byte in device memory stays in the stream: the reader gets
 * every byte, the urgent one included, in order and in the dmabuf, and
 * recv(MSG_OOB) finds nothing to take out of band. Before, tcp_urg()
 * called BUG() on the failed copy of that byte: a remote panic.
 */
static void urgent_byte_stays_in_stream(struct __test_metadata *_metadata,
					struct devmem_env *env, int oobinline)
{
	size_t want = URG_BEFORE + 1 + URG_AFTER, got;
	uint64_t bad = 0, nlinear = 0;
	struct rx_result r;
	int fd, off = 0;
	socklen_t len;
	char c;
	pid_t pid;

	/* set on the listener, so the accepted socket has it from its
	 * first segment on
	 */
	ASSERT_EQ(0, setsockopt(env->lfd, SOL_SOCKET, SO_OOBINLINE,
				&oobinline, sizeof(oobinline)));
	pid = urgent_sender(env);
	ASSERT_GT(pid, 0);
	fd = accept(env->lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	len = sizeof(off);
	ASSERT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_OOBINLINE, &off, &len));
	EXPECT_EQ(!!oobinline, !!off);

	got = drain_devmem(env, fd, want, &bad, &nlinear);
	EXPECT_EQ(want, got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, nlinear);
	EXPECT_EQ(0, reap(pid));

	/* nothing out of band; the stream ended where the peer closed it */
	EXPECT_EQ(-1, recv(fd, &c, 1, MSG_OOB));
	EXPECT_EQ(EINVAL, errno);
	devmem_recv(fd, 4096, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
	EXPECT_EQ(0, r.ret);
	close(fd);

	off = 0;
	setsockopt(env->lfd, SOL_SOCKET, SO_OOBINLINE, &off, sizeof(off));
}

TEST_F(peer, urgent_byte_in_device_memory)
{
	urgent_byte_stays_in_stream(_metadata, &self->env, 0);
}

TEST_F(peer, urgent_byte_in_device_memory_oobinline)
{
	urgent_byte_stays_in_stream(_metadata, &self->env, 1);
}

/* The peer: waits for one byte from the receiver (its socket is set up),
 * sends GATED_LEN bytes of the pattern, then closes at once (@linger 0)
 * or when the receiver does, so no FIN hides an error on the socket.
 */
static pid_t gated_sender(const struct devmem_env *env, int linger)
{
	char c;
	pid_t pid;
	int fd;

	pid = peer_fork(env);
	if (pid)
		return pid;
	/* with @linger the receiver may fail and close the flow first */
	signal(SIGPIPE, SIG_IGN);
	fd = peer_connect(env->rx_addr, IP_PMTUDISC_WANT);
	if (read(fd, &c, 1) != 1 ||
	    (send_pattern(fd, 0, GATED_LEN) && !linger))
		_exit(4);
	while (linger && read(fd, &c, 1) > 0)
		;
	close(fd);
	_exit(0);
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* An sk_skb program: the verdict passes every skb to its socket, the
 * parser makes each skb one message.
 */
static int sk_skb_prog(int parser)
{
	struct bpf_insn pass[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = SK_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_insn whole[] = {
		{ .code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = BPF_REG_0,
		  .src_reg = BPF_REG_1,
		  .off = offsetof(struct __sk_buff, len) },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr = {
		.prog_type = BPF_PROG_TYPE_SK_SKB,
		.insn_cnt = 2,
		.insns = (uintptr_t)(parser ? whole : pass),
		.license = (uintptr_t)"GPL",
	};

	return sys_bpf(BPF_PROG_LOAD, &attr);
}

static int sockmap_attach(int map, int prog, enum bpf_attach_type type)
{
	union bpf_attr attr = {
		.target_fd = map,
		.attach_bpf_fd = prog,
		.attach_type = type,
	};
	int ret;

	ret = sys_bpf(BPF_PROG_ATTACH, &attr);
	close(prog);
	return ret;
}

/* A SOCKMAP holding @fd, with a verdict program, and a stream parser when
 * @parser. Returns the map (it holds the programs), or -1.
 */
static int sockmap_with(int fd, int parser)
{
	union bpf_attr attr = {
		.map_type = BPF_MAP_TYPE_SOCKMAP,
		.key_size = 4,
		.value_size = 4,
		.max_entries = 1,
	};
	uint32_t key = 0, val = fd;
	int map;

	map = sys_bpf(BPF_MAP_CREATE, &attr);
	if (map < 0)
		return -1;
	if (parser &&
	    sockmap_attach(map, sk_skb_prog(1), BPF_SK_SKB_STREAM_PARSER))
		goto close_map;
	if (sockmap_attach(map, sk_skb_prog(0), parser ?
			   BPF_SK_SKB_STREAM_VERDICT : BPF_SK_SKB_VERDICT))
		goto close_map;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)&val;
	if (sys_bpf(BPF_MAP_UPDATE_ELEM, &attr))
		goto close_map;
	return map;

close_map:
	close(map);
	return -1;
}

/* Accept the gated peer's connection, with a receive timeout so that a
 * reader that is never woken fails instead of hanging the suite.
 */
static int accept_gated(struct devmem_env *env)
{
	struct timeval tv = { .tv_sec = 10 };
	int fd;

	fd = accept(env->lfd, NULL, NULL);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/*
 * A devmem socket in a SOCKMAP with a verdict program: the verdict
 * reader (tcp_read_skb()) leaves device memory queued, and recvmsg()
 * delivers it as on any devmem socket, every byte in the dmabuf. Before,
 * the psock mapped the frags into a scatterlist of missing pages and the
 * copy to the reader oopsed.
 */
TEST_F(peer, sockmap_verdict_leaves_device_memory_to_recvmsg)
{
	uint64_t bad = 0, nlinear = 0;
	struct rx_result r;
	int fd, map;
	size_t got;
	pid_t pid;

	pid = gated_sender(&self->env, 0);
	ASSERT_GT(pid, 0);
	fd = accept_gated(&self->env);
	ASSERT_GE(fd, 0);
	map = sockmap_with(fd, 0);
	ASSERT_GE(map, 0) TH_LOG("sockmap: %s", strerror(errno));
	ASSERT_EQ(1, write(fd, "g", 1));

	got = drain_devmem(&self->env, fd, GATED_LEN, &bad, &nlinear);
	EXPECT_EQ(GATED_LEN, got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, nlinear);
	EXPECT_EQ(0, reap(pid));
	devmem_recv(fd, 4096, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
	EXPECT_EQ(0, r.ret);
	close(map);
	close(fd);
}

/*
 * With a stream parser, the socket's reader is the parser, which cannot
 * read device memory: the first devmem segment fails the socket with
 * EFAULT, and the reader gets that error, not a hang.
 */
TEST_F(peer, sockmap_parser_fails_efault)
{
	struct rx_result r;
	int fd, map;
	pid_t pid;

	pid = gated_sender(&self->env, 1);
	ASSERT_GT(pid, 0);
	fd = accept_gated(&self->env);
	ASSERT_GE(fd, 0);
	map = sockmap_with(fd, 1);
	ASSERT_GE(map, 0) TH_LOG("sockmap: %s", strerror(errno));
	ASSERT_EQ(1, write(fd, "g", 1));

	devmem_recv(fd, 4096, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EFAULT, r.err);
	close(map);
	close(fd);
	EXPECT_EQ(0, reap(pid));
}

/*
 * splice() out of a devmem flow fails with EFAULT. It used to return 0,
 * which a program takes for the end of the stream.
 */
TEST_F(peer, splice_from_device_memory_fails_efault)
{
	int fd, p[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = gated_sender(&self->env, 1);
	ASSERT_GT(pid, 0);
	fd = accept_gated(&self->env);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(1, write(fd, "g", 1));

	EXPECT_EQ(-1, splice(fd, NULL, p[1], NULL, 65536, 0));
	EXPECT_EQ(EFAULT, errno);
	close(fd);
	close(p[0]);
	close(p[1]);
	EXPECT_EQ(0, reap(pid));
}

/*
 * The tests below need options that are modules in a distribution's
 * kernel (make check's: Debian 12's own config, harness/fleet-config.sh)
 * and that a small kernel lacks: there each skips, naming the option.
 * Each runs its feature beside a live devmem flow.
 */

/*
 * kTLS receive on a devmem socket: the record parser cannot read device
 * memory. The first devmem segment fails the socket with EFAULT; the
 * reader gets that, not a record made of stale bytes.
 */
TEST_F(peer, ktls_receive_fails_efault)
{
	struct tls12_crypto_info_aes_gcm_128 ci = {
		.info.version = TLS_1_2_VERSION,
		.info.cipher_type = TLS_CIPHER_AES_GCM_128,
	};
	char buf[4096];
	int fd, err;
	pid_t pid;

	pid = gated_sender(&self->env, 1);
	ASSERT_GT(pid, 0);
	fd = accept_gated(&self->env);
	ASSERT_GE(fd, 0);
	if (setsockopt(fd, IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls"))) {
		err = errno;
		close(fd);
		reap(pid);
		SKIP(return, "no kTLS (CONFIG_TLS): %s", strerror(err));
	}
	ASSERT_EQ(0, setsockopt(fd, SOL_TLS, TLS_RX, &ci, sizeof(ci)));
	ASSERT_EQ(1, write(fd, "g", 1));

	EXPECT_EQ(-1, recv(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(EFAULT, errno);
	close(fd);
	EXPECT_EQ(0, reap(pid));
}

/*
 * An MPTCP connection whose subflow is steered to the bound queue: the
 * MPTCP socket has no devmem receive and cannot copy device memory, so
 * recv() fails with EFAULT.
 */
TEST_F(peer, mptcp_receive_fails_efault)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT_MPTCP),
	};
	struct timeval tv = { .tv_sec = 10 };
	int lfd, fd, s, one = 1;
	char buf[4096];
	pid_t pid;

	inet_pton(AF_INET, RX_ADDR, &sa.sin_addr);
	lfd = socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
	if (lfd < 0)
		SKIP(return, "no MPTCP (CONFIG_MPTCP): %s", strerror(errno));
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, listen(lfd, 1));
	ASSERT_EQ(0, devmem_env_steer(&self->env, PORT_MPTCP, BOUND_QUEUE));

	pid = peer_fork(&self->env);
	ASSERT_GE(pid, 0);
	if (!pid) {
		signal(SIGPIPE, SIG_IGN);
		s = socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
		if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)))
			_exit(3);
		send_pattern(s, 0, GATED_LEN);
		close(s);
		_exit(0);
	}
	fd = accept(lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	EXPECT_EQ(-1, recv(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(EFAULT, errno);
	close(fd);
	close(lfd);
	reap(pid);
}

/* ingress filters that drop a segment whose payload starts with the
 * pattern (TCP header of 32 bytes: the peer's timestamps)
 */
#define TC_NBYTE	"tc filter add dev %s ingress prio 1 protocol ip basic " \
			"match 'nbyte(\"\\x01\\x02\\x03\\x04\" at 32 " \
			"layer transport)' action drop"
#define TC_U32		"tc filter add dev %s ingress prio 2 protocol ip u32 " \
			"match u32 0x01020304 0xffffffff at 52 action drop"

/*
 * tc classifiers that look into the payload (u32 at an offset past the
 * headers, an nbyte ematch) cannot read device memory: they do not
 * match, and the devmem flow arrives whole. The control: the same
 * filters drop a flow in host memory.
 */
TEST_F(peer, tc_payload_classifiers_miss_device_memory)
{
	ASSERT_EQ(0, run("tc qdisc add dev %s clsact", self->env.ifname));
	if (run(TC_NBYTE " 2>/dev/null", self->env.ifname))
		SKIP(return, "no nbyte ematch (CONFIG_NET_CLS_BASIC, CONFIG_NET_EMATCH_NBYTE)");
	if (run(TC_U32 " 2>/dev/null", self->env.ifname))
		SKIP(return, "no u32 classifier (CONFIG_NET_CLS_U32)");

	devmem_flow_whole(_metadata, &self->env, 256 << 10);
	host_flow_dropped(_metadata, &self->env);
	EXPECT_EQ(0, run("tc qdisc del dev %s clsact", self->env.ifname));
}

/* a segment whose payload holds the pattern anywhere */
#define STRING_RULE	"iptables %s INPUT -p tcp --dport %d -m string --algo bm " \
			"--hex-string '|010203040506|' -j DROP"

/*
 * The string match searches the whole packet (skb_find_text(), which
 * reads frags through skb_seq_read()): device memory ends the search,
 * so the rule misses the devmem flow and drops the host one.
 */
TEST_F(peer, string_match_misses_device_memory)
{
	if (run(STRING_RULE " 2>/dev/null", "-I", PORT_DEVMEM))
		SKIP(return, "no string match (CONFIG_NETFILTER_XT_MATCH_STRING)");
	EXPECT_EQ(0, run(STRING_RULE, "-I", PORT_HOST));

	devmem_flow_whole(_metadata, &self->env, 256 << 10);
	host_flow_dropped(_metadata, &self->env);

	EXPECT_EQ(0, run(STRING_RULE, "-D", PORT_DEVMEM));
	EXPECT_EQ(0, run(STRING_RULE, "-D", PORT_HOST));
}

/*
 * Connection tracking beside the flow: conntrack reads headers only and
 * follows the devmem flow (a rule on its established state counts the
 * segments) while the flow arrives whole.
 */
TEST_F(peer, conntrack_follows_devmem_flow)
{
	ASSERT_EQ(0, run("nft add table inet devmem_ct"));
	ASSERT_EQ(0, run("nft add chain inet devmem_ct in %s",
			 "'{ type filter hook input priority 0; }'"));
	if (run("nft add rule inet devmem_ct in tcp dport %d %s 2>/dev/null",
		PORT_DEVMEM, "ct state established counter accept")) {
		run("nft delete table inet devmem_ct");
		SKIP(return, "no conntrack (CONFIG_NF_CONNTRACK, CONFIG_NFT_CT)");
	}

	devmem_flow_whole(_metadata, &self->env, 256 << 10);
	/* the established state saw at least the stream's bytes */
	EXPECT_EQ(0, run("nft list chain inet devmem_ct in | awk %s%s%d%s",
			 "'/counter packets/ { for (i = 1; i < NF; i++) ",
			 "if ($i == \"bytes\") b = $(i + 1) } END { exit !(b >= ",
			 256 << 10, ") }'"));
	run("nft list chain inet devmem_ct in | grep counter | sed 's/^/# /'");
	EXPECT_EQ(0, run("nft delete table inet devmem_ct"));
}

/* nfqueue: the queue @num's listener, copying whole packets (0xffff) */
static struct mnl_socket *nfq_open(uint16_t num)
{
	const struct nfqnl_msg_config_params params = {
		.copy_range = htonl(0xffff),
		.copy_mode = NFQNL_COPY_PACKET,
	};
	const struct nfqnl_msg_config_cmd cmd = {
		.command = NFQNL_CFG_CMD_BIND,
	};
	const struct nfnl_attr bind = { NFQA_CFG_CMD, sizeof(cmd), &cmd };
	const struct nfnl_attr setup = {
		NFQA_CFG_PARAMS, sizeof(params), &params
	};
	const uint16_t type = NFNL_SUBSYS_QUEUE << 8 | NFQNL_MSG_CONFIG;
	struct mnl_socket *nl = nfnl_open();

	if (nl && (nfnl_config(nl, type, num, &bind, 1) ||
		   nfnl_config(nl, type, num, &setup, 1))) {
		mnl_socket_close(nl);
		nl = NULL;
	}
	return nl;
}

struct nfq_report {
	int packets;		/* TCP packets queued to the listener */
	int data_segs;		/* of them, carrying payload */
	long payload_copied;	/* payload bytes in the messages */
	long payload_held;	/* payload bytes of the packets (NFQA_CAP_LEN) */
	long largest;		/* the longest packet queued */
	int verdicts_failed;	/* accept verdicts the kernel refused */
};

/* Give queued packet @id (network order) the verdict accept. */
static int nfq_accept(struct mnl_socket *nl, uint16_t num, uint32_t id)
{
	struct nfqnl_msg_verdict_hdr vh = {
		.verdict = htonl(NF_ACCEPT),
		.id = id,
	};
	char buf[256];
	struct nlmsghdr *nlh = nfnl_msg(buf, NFNL_SUBSYS_QUEUE << 8 |
					NFQNL_MSG_VERDICT, 0, num);

	mnl_attr_put(nlh, NFQA_VERDICT_HDR, sizeof(vh), &vh);
	return mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0 ? -1 : 0;
}

/*
 * The listener, as an IPS in inline mode is (Suricata's NFQ mode): every
 * packet queued to @num is read, counted and accepted, until nothing was
 * queued for 3 s or 60 s passed. Its report goes to @out.
 */
static void nfq_listen(struct mnl_socket *nl, uint16_t num, int out)
{
	struct timeval tv = { .tv_sec = 1 };
	int fd = mnl_socket_get_fd(nl);
	static char buf[1 << 17];
	struct nfq_report rep = {};
	int idle = 0, waited = 0, n;
	struct nlmsghdr *nlh;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (idle < 3 && waited < 60) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0) {
			idle += rep.packets > 0;
			waited++;
			continue;
		}
		idle = 0;
		for (nlh = (void *)buf; mnl_nlmsg_ok(nlh, n);
		     nlh = mnl_nlmsg_next(nlh, &n)) {
			const struct nfqnl_msg_packet_hdr *ph = NULL;
			const struct iphdr *ip = NULL;
			uint32_t cap = 0;
			struct nlattr *a;
			int len = 0, hl;

			if (nlh->nlmsg_type !=
			    (NFNL_SUBSYS_QUEUE << 8 | NFQNL_MSG_PACKET))
				continue;
			mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
				if (mnl_attr_get_type(a) == NFQA_PACKET_HDR)
					ph = mnl_attr_get_payload(a);
				if (mnl_attr_get_type(a) == NFQA_CAP_LEN)
					cap = ntohl(mnl_attr_get_u32(a));
				if (mnl_attr_get_type(a) == NFQA_PAYLOAD) {
					ip = mnl_attr_get_payload(a);
					len = mnl_attr_get_payload_len(a);
				}
			}
			if (!ph)
				continue;
			rep.verdicts_failed += nfq_accept(nl, num,
							  ph->packet_id) < 0;
			if (!ip || len < 40 || ip->protocol != IPPROTO_TCP)
				continue;
			hl = ip->ihl * 4;
			hl += ((const struct tcphdr *)((char *)ip + hl))->doff * 4;
			rep.packets++;
			if (!cap)
				cap = len;
			if (cap > rep.largest)
				rep.largest = cap;
			if ((int)cap > hl) {
				rep.data_segs++;
				rep.payload_held += cap - hl;
			}
			if (len > hl)
				rep.payload_copied += len - hl;
		}
	}
	if (write(out, &rep, sizeof(rep)) != sizeof(rep))
		_exit(1);
}

/*
 * A "queue" rule hands each packet to nfnetlink_queue, whose listener
 * (an IPS in inline mode, Suricata's NFQ mode) reads a copy and gives the
 * verdict. The payload of a devmem segment cannot be copied: the
 * listener gets its headers, with NFQA_CAP_LEN saying how long the
 * packet is, accepts it, and the reader gets its whole stream in device
 * memory. No "bypass": without the listener every packet would be
 * dropped, so a flow that arrives went through it. With @gro, hdsim's
 * hardware GRO hands the stack aggregates (GSO, CHECKSUM_PARTIAL) and
 * the listener, which did not ask for GSO packets, gets them whole.
 */
static void nfqueue_flow(struct __test_metadata *_metadata,
			 struct devmem_env *env, bool gro)
{
	struct nfq_report rep = {};
	struct mnl_socket *nl;
	int pipefd[2];
	pid_t pid;

	if (gro)
		ASSERT_EQ(0, run("ethtool -K %s rx-gro-hw on", env->ifname));
	ASSERT_EQ(0, run("nft add table inet devmem_nfq"));
	ASSERT_EQ(0, run("nft add chain inet devmem_nfq in %s",
			 "'{ type filter hook input priority 0; }'"));
	if (run("nft add rule inet devmem_nfq in tcp dport %d queue num %d 2>/dev/null",
		PORT_DEVMEM, NFQUEUE_NUM)) {
		run("nft delete table inet devmem_nfq");
		SKIP(return, "no nfqueue (CONFIG_NETFILTER_NETLINK_QUEUE, CONFIG_NFT_QUEUE)");
	}
	nl = nfq_open(NFQUEUE_NUM);
	EXPECT_NE(NULL, nl);
	ASSERT_EQ(0, pipe(pipefd));
	pid = nl ? fork() : -1;
	if (!pid) {
		int fd;

		/* only the queue and the pipe: a listener outliving a killed
		 * test must not hold its listening socket
		 */
		for (fd = 3; fd < 1024; fd++)
			if (fd != pipefd[1] && fd != mnl_socket_get_fd(nl))
				close(fd);
		nfq_listen(nl, NFQUEUE_NUM, pipefd[1]);
		_exit(0);
	}
	close(pipefd[1]);
	if (pid > 0) {
		devmem_flow_whole(_metadata, env, 1 << 20);
		EXPECT_EQ(sizeof(rep), read(pipefd[0], &rep, sizeof(rep)));
		EXPECT_EQ(0, reap(pid));
	}
	close(pipefd[0]);
	if (nl)
		mnl_socket_close(nl);
	EXPECT_EQ(0, run("nft delete table inet devmem_nfq"));

	TH_LOG("queued %d TCP packets, %d with payload (longest %ld): %ld bytes held, %ld copied",
	       rep.packets, rep.data_segs, rep.largest, rep.payload_held,
	       rep.payload_copied);
	EXPECT_GT(rep.data_segs, 0);
	EXPECT_GE(rep.payload_held, 1 << 20);
	EXPECT_EQ(0, rep.payload_copied);
	EXPECT_EQ(0, rep.verdicts_failed);
	/* hdsim aggregated (the stack's GRO may have, either way) */
	if (gro) {
		long opened = cmd_long("ethtool -S %s | %s", env->ifname,
				       "awk '/rx3_gro_hw_opened/ { print $2 }'");

		TH_LOG("hdsim opened %ld aggregates on queue 3", opened);
		EXPECT_GT(opened, 0);
		EXPECT_GT(rep.largest, 1500);
	}
}

/* Before, the copy failed, each data segment was dropped instead of
 * queued, and the flow stalled.
 */
TEST_F(peer, nfqueue_listener_gets_headers_of_device_memory)
{
	nfqueue_flow(_metadata, &self->env, false);
}

/* Before, the aggregates' checksums were finished in software, which
 * failed on device memory, and they were dropped.
 */
TEST_F(peer, nfqueue_listener_gets_aggregates_of_device_memory)
{
	nfqueue_flow(_metadata, &self->env, true);
}

/*
 * The receiving port is a bridge port (the address on the bridge), with
 * br_netfilter handing bridged IPv4 to iptables, as container and VM
 * hosts run: the flow still lands in device memory on the bound queue,
 * passes the bridge family's rules and iptables' physdev match (both
 * count it, so it really went that way), and arrives whole.
 */
TEST_F(peer, bridge_with_br_netfilter_passes_devmem_flow)
{
	const char *ifn = self->env.ifname;
	long br_bytes, ipt_bytes;

	if (run("ip link add " BRIDGE " type bridge 2>/dev/null"))
		SKIP(return, "no bridge (CONFIG_BRIDGE)");
	if (access("/proc/sys/net/bridge/bridge-nf-call-iptables", F_OK) ||
	    run("iptables -L INPUT -n >/dev/null 2>&1")) {
		run("ip link del " BRIDGE);
		SKIP(return, "no br_netfilter (CONFIG_BRIDGE_NETFILTER) or iptables");
	}
	EXPECT_EQ(0, run("ip link set " BRIDGE " up"));
	EXPECT_EQ(0, run("ip addr del %s/24 dev %s", RX_ADDR, ifn));
	EXPECT_EQ(0, run("ip link set %s master " BRIDGE, ifn));
	EXPECT_EQ(0, run("ip addr add %s/24 dev " BRIDGE, RX_ADDR));
	EXPECT_EQ(0, run("sysctl -qw net.bridge.bridge-nf-call-iptables=1"));
	EXPECT_EQ(0, run("nft add table bridge devmem_br"));
	EXPECT_EQ(0, run("nft add chain bridge devmem_br pre %s",
			 "'{ type filter hook prerouting priority 0; }'"));
	EXPECT_EQ(0, run("nft add rule bridge devmem_br pre tcp dport %d counter",
			 PORT_DEVMEM));
	EXPECT_EQ(0, run("iptables -I INPUT -m physdev --physdev-in %s -p tcp --dport %d -j ACCEPT",
			 ifn, PORT_DEVMEM));

	devmem_flow_whole(_metadata, &self->env, 1 << 20);

	br_bytes = cmd_long("nft list chain bridge devmem_br pre | %s",
			    "sed -n 's/.* bytes \\([0-9]*\\).*/\\1/p'");
	ipt_bytes = cmd_long("iptables -L INPUT -n -v -x | %s",
			     "awk '/physdev/ { print $2; exit }'");
	TH_LOG("bridge prerouting counted %ld bytes, iptables physdev %ld",
	       br_bytes, ipt_bytes);
	EXPECT_GE(br_bytes, 1 << 20);
	EXPECT_GE(ipt_bytes, 1 << 20);

	run("iptables -D INPUT -m physdev --physdev-in %s -p tcp --dport %d -j ACCEPT",
	    ifn, PORT_DEVMEM);
	run("nft delete table bridge devmem_br");
	run("sysctl -qw net.bridge.bridge-nf-call-iptables=0");
	run("ip link del " BRIDGE);
	EXPECT_EQ(0, run("ip addr add %s/24 dev %s", RX_ADDR, ifn));
	EXPECT_EQ(0, run("ip link set %s up", ifn));
}

/* ovs-dpctl's flows from datapath port @in to @out: IPv4 and ARP */
static int ovs_flows(int in, int out)
{
	return run("ovs-dpctl add-flow " OVS_DP " '%s%d%s' %d", "in_port(",
		   in, "),eth(),eth_type(0x0800),ipv4()", out) ||
	       run("ovs-dpctl add-flow " OVS_DP " '%s%d%s' %d", "in_port(",
		   in, "),eth(),eth_type(0x0806),arp()", out);
}

/*
 * The receiving port is a port of an Open vSwitch kernel datapath, the
 * address on an internal port as on an OVS host, with flows passing IPv4
 * and ARP between the two: the flow still lands in device memory on the
 * bound queue, crosses the datapath (its flow counts the stream) and
 * arrives whole.
 */
TEST_F(peer, openvswitch_datapath_passes_devmem_flow)
{
	const char *ifn = self->env.ifname;
	long bytes;

	if (run("ovs-dpctl add-dp " OVS_DP " 2>/dev/null"))
		SKIP(return, "no openvswitch (CONFIG_OPENVSWITCH) or ovs-dpctl (make deps)");
	/* ports 1 and 2 (0 is the datapath's own) */
	EXPECT_EQ(0, run("ovs-dpctl add-if " OVS_DP " %s", ifn));
	EXPECT_EQ(0, run("ovs-dpctl add-if " OVS_DP " " OVS_PORT ",type=internal"));
	EXPECT_EQ(0, run("ip link set " OVS_PORT " address %s%s%s", "$(cat /sys/class/net/",
			 ifn, "/address)"));
	EXPECT_EQ(0, run("ip addr del %s/24 dev %s", RX_ADDR, ifn));
	EXPECT_EQ(0, run("ip link set " OVS_PORT " up"));
	EXPECT_EQ(0, run("ip addr add %s/24 dev " OVS_PORT, RX_ADDR));
	EXPECT_EQ(0, ovs_flows(1, 2));
	EXPECT_EQ(0, ovs_flows(2, 1));

	devmem_flow_whole(_metadata, &self->env, 1 << 20);

	bytes = cmd_long("ovs-dpctl dump-flows " OVS_DP " | %s",
			 "sed -n 's/^in_port(1),.*(0x0800).*bytes:\\([0-9]*\\).*/\\1/p'");
	TH_LOG("the datapath's IPv4 flow from the port counted %ld bytes", bytes);
	EXPECT_GE(bytes, 1 << 20);
	run("ovs-dpctl show " OVS_DP " | grep lookups | sed 's/^ */# /'");

	run("ovs-dpctl del-dp " OVS_DP);
	EXPECT_EQ(0, run("ip addr add %s/24 dev %s", RX_ADDR, ifn));
	EXPECT_EQ(0, run("ip link set %s up", ifn));
}

/* connections, each through every case: PEER_FUZZ_ROUNDS, at most
 * FUZZ_CONNS (the debug kernel's run takes 2)
 */
#define FUZZ_ROUNDS_DEFAULT	4
#define FUZZ_CONNS		16

static int fuzz_rounds(void)
{
	unsigned int n = env_uint("PEER_FUZZ_ROUNDS", FUZZ_ROUNDS_DEFAULT);

	return n >= 1 && n <= FUZZ_CONNS ? n : FUZZ_ROUNDS_DEFAULT;
}

struct fuzz_conn {
	int fd;
	uint16_t port;
	int eof;
	uint64_t off;		/* stream bytes received */
	uint64_t devmem;	/* of which in the dmabuf */
	uint64_t bad;		/* wrong bytes, lost tokens */
};

/* The script's own directory: it is installed beside this test. */
static void fuzz_script(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 32);
	char *slash;

	path[n > 0 ? n : 0] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "peer_fuzz.py");
}

static pid_t fuzzer_fork(const struct devmem_env *env, int out)
{
	char script[512], port[16], rounds[16];
	pid_t pid;

	fuzz_script(script, sizeof(script));
	pid = fork();
	if (pid)
		return pid;
	dup2(out, 1);
	close_range(3, ~0U, 0);
	if (netns_enter(env->ns) < 0)
		_exit(2);
	snprintf(port, sizeof(port), "%d", PORT_DEVMEM);
	snprintf(rounds, sizeof(rounds), "%d", fuzz_rounds());
	/* Debian's interpreter, which python3-scapy is installed for: a
	 * python3 found first in PATH (pyenv, a venv) may lack scapy
	 */
	execl("/usr/bin/python3", "python3", script, env->rx_addr, port,
	      TX_ADDR, rounds, (char *)NULL);
	_exit(127);
}

static char fuzz_buf[1 << 16];

/* One non-blocking devmem read of @c: every byte checked against the
 * pattern at its stream offset, in the dmabuf or in the iovec, and every
 * token returned.
 */
static void fuzz_read(const struct devmem_env *env, struct fuzz_conn *c)
{
	struct iovec iov = { fuzz_buf, sizeof(fuzz_buf) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctrl,
		.msg_controllen = sizeof(ctrl),
	};
	uint64_t lin = 0, seen = 0, k;
	struct dmabuf_token t;
	struct cmsghdr *cm;
	ssize_t ret;

	ret = recvmsg(c->fd, &msg, MSG_SOCK_DEVMEM | MSG_DONTWAIT);
	if (ret < 0 && errno == EAGAIN)
		return;
	if (ret <= 0) {
		c->eof = 1;
		return;
	}
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		const struct dmabuf_cmsg *dc = (void *)CMSG_DATA(cm);

		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_DEVMEM_LINEAR) {
			for (k = 0; k < dc->frag_size; k++)
				c->bad += (uint8_t)fuzz_buf[lin + k] !=
					  pattern_at(c->off + seen + k);
			lin += dc->frag_size;
		} else if (cm->cmsg_type == SCM_DEVMEM_DMABUF) {
			for (k = 0; k < dc->frag_size; k++)
				c->bad += env->map[dc->frag_offset + k] !=
					  pattern_at(c->off + seen + k);
			c->devmem += dc->frag_size;
			t.token_start = dc->frag_token;
			t.token_count = 1;
			c->bad += dontneed(c->fd, &t, 1) != 1;
		} else {
			continue;
		}
		seen += dc->frag_size;
	}
	if (!seen) {
		/* a readable skb: copied as by any recvmsg() */
		for (k = 0; k < (uint64_t)ret; k++)
			c->bad += (uint8_t)fuzz_buf[k] != pattern_at(c->off + k);
		seen = ret;
	}
	c->bad += seen != (uint64_t)ret;
	c->off += ret;
}

/*
 * A flow protected by IPsec (ESP in transport mode, AES-GCM) to the
 * steered port: the NIC sees ESP, not TCP, and cannot split it, and ESP
 * decrypts in host memory. The devmem reader gets the whole stream
 * copied as from any socket (no dmabuf cmsg, every byte right), while
 * the SAs count the stream's bytes.
 */
TEST_F(peer, esp_flow_arrives_in_host_memory)
{
	struct fuzz_conn c = { .port = PORT_DEVMEM };
	char sport[32], dport[32];
	const size_t want = 1 << 20;
	struct pollfd pfd;
	long esp_bytes;
	pid_t pid;

	if (run("ip " ESP_SA " 2>/dev/null", TX_ADDR, RX_ADDR, "0x5401"))
		SKIP(return, "no ESP (CONFIG_XFRM_USER, CONFIG_INET_ESP, CONFIG_CRYPTO_GCM)");
	esp_flush("");
	snprintf(sport, sizeof(sport), "sport %d", PORT_DEVMEM);
	snprintf(dport, sizeof(dport), "dport %d", PORT_DEVMEM);
	EXPECT_EQ(0, esp_transport("", RX_ADDR, TX_ADDR, "0x5401", "0x5402",
				   sport, dport));
	EXPECT_EQ(0, esp_transport(self->env.ns, TX_ADDR, RX_ADDR, "0x5402",
				   "0x5401", dport, sport));

	c.fd = devmem_env_stream(&self->env, want, &pid);
	EXPECT_GE(c.fd, 0);
	pfd.fd = c.fd;
	pfd.events = POLLIN;
	while (c.fd >= 0 && !c.eof && c.off < want && poll(&pfd, 1, 10000) > 0)
		fuzz_read(&self->env, &c);
	EXPECT_EQ(want, c.off);
	EXPECT_EQ(0, c.devmem);
	EXPECT_EQ(0, c.bad);
	if (c.fd >= 0) {
		close(c.fd);
		EXPECT_EQ(0, reap(pid));
	}
	/* the inbound SA decrypted at least the stream */
	esp_bytes = cmd_long("ip -s xfrm state get src %s dst %s proto esp spi 0x5401 | %s",
			     TX_ADDR, RX_ADDR,
			     "grep -o '[0-9]\\+(bytes)' | head -n 1");
	TH_LOG("%llu bytes read, %llu in device memory; inbound SA: %ld bytes",
	       (unsigned long long)c.off, (unsigned long long)c.devmem,
	       esp_bytes);
	EXPECT_GE(esp_bytes, (long)want);

	esp_flush("");
	esp_flush(self->env.ns);
}

/* Read the script's report lines from @f into the totals. */
static void fuzz_report(FILE *f, struct fuzz_conn *conns, int nconn,
			struct __test_metadata *_metadata)
{
	int port, icmp = -1, stale = -1, sent = -1, nrep = 0, i;
	char line[256];
	long acked;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "conn %d %ld", &port, &acked) == 2) {
			nrep++;
			for (i = 0; i < nconn && conns[i].port != port; i++)
				;
			EXPECT_LT(i, nconn) TH_LOG("port %d never accepted", port);
			if (i == nconn)
				continue;
			EXPECT_EQ(acked, (long)conns[i].off)
				TH_LOG("port %d: %ld acknowledged, %llu read",
				       port, acked,
				       (unsigned long long)conns[i].off);
			continue;
		}
		if (sscanf(line, "icmp %d %d", &icmp, &stale) != 2 &&
		    sscanf(line, "sent %d", &sent) != 1)
			TH_LOG("peer_fuzz.py: %s", line);
	}
	EXPECT_EQ(fuzz_rounds(), nrep);
	/* malformed IP options were answered, and nothing quoted is stale */
	EXPECT_GT(icmp, 0);
	EXPECT_EQ(0, stale);
	TH_LOG("%d frames sent, %d ICMP errors back, %d stale", sent, icmp,
	       stale);
}

/*
 * The remote-peer fuzzer (peer_fuzz.py) plays the TCP peer of several
 * connections into the bound queue and sends what networks carry and
 * attackers craft (see the script). The receiver reads every connection
 * with MSG_SOCK_DEVMEM: each accepted byte is the pattern at its offset,
 * each connection ends with the bytes the script saw acknowledged, every
 * token goes back, the ICMP errors quote no stale bytes, and the frames
 * were split into device memory (or this tested only the copy path).
 */
TEST_F_TIMEOUT(peer, remote_fuzzer, 600)
{
	struct fuzz_conn conns[FUZZ_CONNS] = {};
	uint64_t bytes = 0, devmem = 0, bad = 0;
	struct pollfd pfd[FUZZ_CONNS + 1];
	int out[2], nconn = 0, running = 1, status = -1, idle = 0, i, n;
	char saved[32] = "";
	int64_t split0, split1;
	FILE *rep;
	pid_t pid;

	ASSERT_EQ(0, icmp_ratelimit_off(saved, sizeof(saved)));
	split0 = ethtool_stat(self->env.ifname, "rx3_devmem_payload_bytes");
	ASSERT_GE(split0, 0);

	ASSERT_EQ(0, pipe(out));
	pid = fuzzer_fork(&self->env, out[1]);
	ASSERT_GT(pid, 0);
	close(out[1]);
	rep = fdopen(out[0], "r");
	ASSERT_NE(NULL, rep);

	/* accept and drain until the script is done and every connection
	 * ended (or 2 s more went by); its report waits in the pipe
	 */
	while (running || idle < 10) {
		pfd[0].fd = self->env.lfd;
		pfd[0].events = POLLIN;
		for (i = 0; i < nconn; i++) {
			pfd[i + 1].fd = conns[i].eof ? -1 : conns[i].fd;
			pfd[i + 1].events = POLLIN;
		}
		n = poll(pfd, nconn + 1, 200);
		if (running && n == 0 && waitpid(pid, &status, WNOHANG) == pid)
			running = 0;
		if (!running) {
			for (i = 0; i < nconn && conns[i].eof; i++)
				;
			idle = i == nconn ? 10 : idle + !n;
		}
		if (n > 0 && pfd[0].revents & POLLIN && nconn < FUZZ_CONNS) {
			struct sockaddr_in sa;
			socklen_t len = sizeof(sa);

			conns[nconn].fd = accept(self->env.lfd,
						 (struct sockaddr *)&sa, &len);
			if (conns[nconn].fd >= 0)
				conns[nconn++].port = ntohs(sa.sin_port);
		}
		for (i = 0; n > 0 && i < nconn; i++)
			if (pfd[i + 1].revents)
				fuzz_read(&self->env, &conns[i]);
	}
	split1 = ethtool_stat(self->env.ifname, "rx3_devmem_payload_bytes");
	write_file(ICMP_RATELIMIT, "%s", saved);

	for (i = 0; i < nconn; i++) {
		bytes += conns[i].off;
		devmem += conns[i].devmem;
		bad += conns[i].bad;
		close(conns[i].fd);
	}
	fuzz_report(rep, conns, nconn, _metadata);
	fclose(rep);
	TH_LOG("%d connections, %llu bytes read (%llu in the dmabuf), %llu bad; %lld bytes split",
	       nconn, (unsigned long long)bytes, (unsigned long long)devmem,
	       (unsigned long long)bad, (long long)(split1 - split0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("peer_fuzz.py: status %#x", status);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(fuzz_rounds(), nconn);
	for (i = 0; i < nconn; i++)
		EXPECT_TRUE(conns[i].eof) TH_LOG("port %d: no end of stream",
						 conns[i].port);
	/* it reached device memory, not only the copy path */
	EXPECT_GT(devmem, 0);
	EXPECT_GT(split1 - split0, 0);
}

TEST_HARNESS_MAIN
