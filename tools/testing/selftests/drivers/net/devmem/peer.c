// SPDX-License-Identifier: GPL-2.0
/*
 * What a remote peer can put on the wire of a devmem flow: urgent data,
 * and segments the receiver answers with an ICMP error quoting them. The
 * peer runs in the namespace of the other hdsim port and uses nothing but
 * the socket API a stock program has; queue 3 of the receiving port is
 * bound to a udmabuf, and every payload byte steered there is in device
 * memory.
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>

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
#define NFLOG_GROUP		7
#define RX_ADDR			"192.0.8.1"
#define TX_ADDR			"192.0.8.2"

#define URG_BEFORE		(256 << 10)	/* stream before the urgent byte */
#define URG_AFTER		(16 << 10)	/* and after it */

#define CRAFTED_SEGS		8
#define CRAFTED_PAYLOAD		1000
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

/* nflog: a listener on group @group, copying whole packets (0xffff) */
static struct mnl_socket *nflog_open(uint16_t group)
{
	struct nfulnl_msg_config_mode mode = {
		.copy_range = htonl(0xffff),
		.copy_mode = NFULNL_COPY_PACKET,
	};
	struct nfulnl_msg_config_cmd cmd = { .command = NFULNL_CFG_CMD_BIND };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint32_t qthresh = htonl(1);
	struct mnl_socket *nl;
	int step, rcvbuf = 4 << 20;

	nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!nl)
		return NULL;
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		   sizeof(rcvbuf));
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID))
		goto err_close;
	for (step = 0; step < 2; step++) {
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
		struct nfgenmsg *nfg;

		nlh->nlmsg_type = NFNL_SUBSYS_ULOG << 8 | NFULNL_MSG_CONFIG;
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
		nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
		nfg->nfgen_family = AF_UNSPEC;
		nfg->version = NFNETLINK_V0;
		nfg->res_id = htons(group);
		if (!step)
			mnl_attr_put(nlh, NFULA_CFG_CMD, sizeof(cmd), &cmd);
		else
			mnl_attr_put(nlh, NFULA_CFG_MODE, sizeof(mode), &mode);
		/* each packet at once, not batched for a second */
		if (step)
			mnl_attr_put(nlh, NFULA_CFG_QTHRESH, sizeof(qthresh),
				     &qthresh);
		if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0 ||
		    mnl_socket_recvfrom(nl, buf, sizeof(buf)) < 0 ||
		    ((struct nlmsgerr *)mnl_nlmsg_get_payload((void *)buf))->error)
			goto err_close;
	}
	return nl;

err_close:
	mnl_socket_close(nl);
	return NULL;
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
	uint64_t bad = 0, nlinear = 0;
	struct nflog_report rep = {};
	size_t want = 64 << 10, got;
	struct mnl_socket *nl;
	pid_t pid;
	int fd;

	ASSERT_EQ(0, run("nft add table inet devmem_peer"));
	ASSERT_EQ(0, run("nft add chain inet devmem_peer in %s",
			 "'{ type filter hook input priority 0; }'"));
	ASSERT_EQ(0, run("nft add rule inet devmem_peer in %s %d log group %d",
			 "tcp dport", PORT_DEVMEM, NFLOG_GROUP));
	nl = nflog_open(NFLOG_GROUP);
	EXPECT_NE(NULL, nl);
	if (nl) {
		fd = devmem_env_stream(&self->env, want, &pid);
		EXPECT_GE(fd, 0);
		got = fd < 0 ? 0 : drain_devmem(&self->env, fd, want, &bad,
						&nlinear);
		EXPECT_EQ(want, got);
		EXPECT_EQ(0, bad);
		EXPECT_EQ(0, nlinear);
		EXPECT_EQ(0, reap(pid));
		if (fd >= 0)
			close(fd);
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
	struct timeval tv = { .tv_sec = 10 };
	uint64_t bad = 0, nlinear = 0;
	size_t want = 64 << 10, got;
	int fd, lfd, hfd;
	pid_t pid, hpid;
	char c;

	if (run("iptables -L INPUT -n >/dev/null 2>&1"))
		SKIP(return, "no iptables (Debian package iptables)");
	ASSERT_EQ(0, run(U32_RULE, "-I", PORT_DEVMEM));
	EXPECT_EQ(0, run(U32_RULE, "-I", PORT_HOST));

	fd = devmem_env_stream(&self->env, want, &pid);
	EXPECT_GE(fd, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		got = drain_devmem(&self->env, fd, want, &bad, &nlinear);
		EXPECT_EQ(want, got);
		EXPECT_EQ(0, bad);
		EXPECT_EQ(0, nlinear);
		EXPECT_EQ(0, reap(pid));
		close(fd);
	}

	/* the control: the same rule on a flow in host memory matches */
	lfd = listen_on(RX_ADDR, PORT_HOST);
	EXPECT_GE(lfd, 0);
	if (lfd >= 0) {
		hpid = sender_to(self->env.ns, RX_ADDR, PORT_HOST, 4096);
		hfd = accept(lfd, NULL, NULL);
		tv.tv_sec = 3;
		setsockopt(hfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		EXPECT_EQ(-1, recv(hfd, &c, 1, 0));
		EXPECT_EQ(EAGAIN, errno);
		close(hfd);
		close(lfd);
		reap(hpid);
	}

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
TEST_F(peer, forwarded_devmem_segments_are_not_fragmented)
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
	int pfd[2], fd;
	pid_t pid;

	fd = open(ICMP_RATELIMIT, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_GT(read(fd, saved, sizeof(saved) - 1), 0);
	close(fd);
	ASSERT_EQ(0, write_file(ICMP_RATELIMIT, "0"));

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

TEST_HARNESS_MAIN
