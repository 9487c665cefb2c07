// SPDX-License-Identifier: GPL-2.0
/*
 * A devmem flow from a remote peer on the wire: forwarded instead of
 * received (segments that would need fragmenting), answered with ICMP
 * errors quoting device memory, and protected by IPsec (ESP, which the
 * NIC cannot split). See peer_lib.h for the environment.
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
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_traffic.h"
#include "netcfg.h"
#include "peer_lib.h"
#include "peer_fixture.h"

#define CRAFTED_SEGS		8
#define CRAFTED_PAYLOAD		1000

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

/*
 * A flow protected by IPsec (ESP in transport mode, AES-GCM) to the
 * steered port: the NIC sees ESP, not TCP, and cannot split it, and ESP
 * decrypts in host memory. The devmem reader gets the whole stream
 * copied as from any socket (no dmabuf cmsg, every byte right), while
 * the SAs count the stream's bytes.
 */
TEST_F(peer, esp_flow_arrives_in_host_memory)
{
	struct peer_conn c = { .port = PORT_DEVMEM };
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
		peer_conn_read(&self->env, &c);
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

TEST_HARNESS_MAIN
