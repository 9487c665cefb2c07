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

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "devmem_traffic.h"
#include "netcfg.h"

#define DMABUF_SIZE		(16 << 20)
#define BOUND_QUEUE		3
#define PORT_DEVMEM		5400
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

static int enter_ns(const char *ns)
{
	char path[64];
	int fd, err;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	err = setns(fd, CLONE_NEWNET);
	close(fd);
	return err;
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
	if (enter_ns(env->ns))
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
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT_DEVMEM),
	};
	char urg = pattern_at(URG_BEFORE);
	pid_t pid;
	int fd;

	pid = fork();
	if (pid)
		return pid;
	close_range(3, ~0U, 0);
	if (enter_ns(env->ns))
		_exit(2);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	inet_pton(AF_INET, env->rx_addr, &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		_exit(3);
	if (send_pattern(fd, 0, URG_BEFORE) ||
	    send(fd, &urg, 1, MSG_OOB) != 1 ||
	    send_pattern(fd, URG_BEFORE + 1, URG_AFTER))
		_exit(4);
	close(fd);
	_exit(0);
}

static char ctrl[80000];

/*
 * An urgent byte in device memory stays in the stream: the reader gets
 * every byte, the urgent one included, in order and in the dmabuf, and
 * recv(MSG_OOB) finds nothing to take out of band. Before, tcp_urg()
 * called BUG() on the failed copy of that byte: a remote panic.
 */
static void urgent_byte_stays_in_stream(struct __test_metadata *_metadata,
					struct devmem_env *env, int oobinline)
{
	size_t want = URG_BEFORE + 1 + URG_AFTER, got = 0;
	uint64_t bad = 0, nlinear = 0;
	struct rx_result r;
	int fd, i, off = 0;
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

	while (got < want) {
		devmem_recv(fd, want - got, ctrl, sizeof(ctrl),
			    MSG_SOCK_DEVMEM, &r);
		if (r.ret <= 0)
			break;
		nlinear += r.nlinear;
		for (i = 0; i < r.ndmabuf; i++) {
			const struct dmabuf_cmsg *f = &r.frags[i];
			uint32_t k;

			for (k = 0; k < f->frag_size; k++)
				bad += env->map[f->frag_offset + k] !=
				       pattern_at(got + k);
			got += f->frag_size;
		}
		EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
	}
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
