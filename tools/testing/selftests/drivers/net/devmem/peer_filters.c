// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel's packet filters do with a devmem flow from a remote
 * peer: netfilter (log, u32, string, conntrack, queue), tc classifiers,
 * a tc header rewrite, a bridge with br_netfilter and Open vSwitch's
 * datapath. Each filter that looks into the payload cannot read device
 * memory: it must neither crash nor copy it, and the flow arrives whole.
 * See peer_lib.h for the environment.
 *
 * Most need options that are modules in a distribution's kernel (make
 * check's: Debian 12's own config, harness/fleet-config.sh) and that a
 * small kernel lacks: there each skips, naming the option.
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <linux/netfilter/nfnetlink_queue.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_traffic.h"
#include "peer_lib.h"
#include "peer_fixture.h"

#define NFLOG_GROUP		7
#define NFQUEUE_NUM		9
#define BRIDGE			"devmem-peer-br"
#define OVS_DP			"devmem-peer-dp"
#define OVS_PORT		"devmem-peer-ovs"

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
		EXPECT_EQ(0, peer_flow_whole(&self->env, 64 << 10))
			TH_LOG("the devmem flow did not arrive whole under the log rule");
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

	EXPECT_EQ(0, peer_flow_whole(&self->env, 64 << 10))
		TH_LOG("the u32 match stopped the devmem flow");
	/* the control: the same rule on a flow in host memory matches */
	EXPECT_EQ(0, peer_host_flow_dropped(&self->env))
		TH_LOG("the control: the u32 rule let the flow in host memory through");

	EXPECT_EQ(0, run(U32_RULE, "-D", PORT_DEVMEM));
	EXPECT_EQ(0, run(U32_RULE, "-D", PORT_HOST));
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

	EXPECT_EQ(0, peer_flow_whole(&self->env, 256 << 10))
		TH_LOG("a tc payload classifier stopped the devmem flow");
	EXPECT_EQ(0, peer_host_flow_dropped(&self->env))
		TH_LOG("the control: the tc filters let the flow in host memory through");
	EXPECT_EQ(0, run("tc qdisc del dev %s clsact", self->env.ifname));
}

/*
 * tc pedit rewrites the headers of a devmem flow: they lie in the linear
 * head, which skb_ensure_writable() makes writable on an unreadable skb
 * as on any other (upstream's 6.12.35 "net: netmem: fix
 * skb_ensure_writable with unreadable skbs"). The TTL of every ingress
 * segment is set, act_csum fixes the IP checksum, and the flow arrives
 * whole in device memory, the action having counted the segments.
 */
#define TC_PEDIT	"tc filter add dev %s ingress prio 1 protocol ip matchall " \
			"action pedit ex munge ip ttl set 33 pipe action csum ip"
#define TC_PEDIT_OPTS	"CONFIG_NET_CLS_MATCHALL, CONFIG_NET_ACT_PEDIT, CONFIG_NET_ACT_CSUM"
/* the packets the filter's first action counted */
#define TC_SENT_PKTS	"sed -n 's/.*Sent [0-9]* bytes \\([0-9]*\\) pkt.*/\\1/p' | head -1"

TEST_F(peer, tc_pedit_rewrites_the_headers_of_a_devmem_flow)
{
	long pkts;

	ASSERT_EQ(0, run("tc qdisc add dev %s clsact", self->env.ifname));
	if (run(TC_PEDIT " 2>/dev/null", self->env.ifname)) {
		run("tc qdisc del dev %s clsact", self->env.ifname);
		SKIP(return, "no matchall, pedit or csum (" TC_PEDIT_OPTS ")");
	}

	EXPECT_EQ(0, peer_flow_whole(&self->env, 256 << 10))
		TH_LOG("the rewritten devmem flow did not arrive whole");
	pkts = cmd_long("tc -s filter show dev %s ingress | " TC_SENT_PKTS,
			self->env.ifname);
	TH_LOG("%ld segments rewritten", pkts);
	EXPECT_LT(0, pkts);
	EXPECT_EQ(0, run("tc qdisc del dev %s clsact", self->env.ifname));
}

/*
 * nft's payload set writing past the headers would write device memory,
 * which the CPU must not: skb_ensure_writable() refuses it on an
 * unreadable skb, the statement breaks the rule (the counter after it
 * never counts), and the devmem flow arrives whole and unchanged. The
 * control: on a flow in host memory the same rule writes and counts.
 */
/* 4 bytes at 32 past the TCP header, the payload's first (the peer's
 * timestamps make the header 32 bytes); segments of over 100 bytes only,
 * so that no SYN has its options written
 */
#define PL_RULE		"nft add rule inet devmem_pl in tcp dport %d " \
			"meta length gt 100 @th,256,32 set 0x0 counter"
#define PL_COUNT	"nft list chain inet devmem_pl in | awk '/dport %d/ " \
			"{ for (i = 1; i < NF; i++) if ($i == \"packets\") print $(i + 1) }'"

TEST_F(peer, nft_payload_set_cannot_write_device_memory)
{
	ASSERT_EQ(0, run("nft add table inet devmem_pl"));
	ASSERT_EQ(0, run("nft add chain inet devmem_pl in %s",
			 "'{ type filter hook input priority 0; }'"));
	if (run(PL_RULE " 2>/dev/null", PORT_DEVMEM)) {
		run("nft delete table inet devmem_pl");
		SKIP(return, "no nft payload set (CONFIG_NF_TABLES)");
	}
	ASSERT_EQ(0, run(PL_RULE, PORT_HOST));

	EXPECT_EQ(0, peer_flow_whole(&self->env, 256 << 10))
		TH_LOG("the devmem flow did not arrive whole, or was written");
	/* every write into device memory refused, every segment uncounted */
	EXPECT_EQ(0, cmd_long(PL_COUNT, PORT_DEVMEM));
	/* the control: data arrives on the host flow, written, and counted */
	EXPECT_EQ(-EPROTO, peer_host_flow_dropped(&self->env));
	EXPECT_LT(0, cmd_long(PL_COUNT, PORT_HOST));
	run("nft list chain inet devmem_pl in | grep counter | sed 's/^/# /'");
	EXPECT_EQ(0, run("nft delete table inet devmem_pl"));
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

	EXPECT_EQ(0, peer_flow_whole(&self->env, 256 << 10))
		TH_LOG("the string match stopped the devmem flow");
	EXPECT_EQ(0, peer_host_flow_dropped(&self->env))
		TH_LOG("the control: the string match let the flow in host memory through");

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

	EXPECT_EQ(0, peer_flow_whole(&self->env, 256 << 10))
		TH_LOG("the devmem flow did not arrive whole under conntrack");
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
		EXPECT_EQ(0, peer_flow_whole(env, 1 << 20))
			TH_LOG("the devmem flow did not arrive whole through the queue");
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

	EXPECT_EQ(0, peer_flow_whole(&self->env, 1 << 20))
		TH_LOG("the devmem flow did not arrive whole across the bridge");

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

	EXPECT_EQ(0, peer_flow_whole(&self->env, 1 << 20))
		TH_LOG("the devmem flow did not arrive whole across the datapath");

	bytes = cmd_long("ovs-dpctl dump-flows " OVS_DP " | %s",
			 "sed -n 's/^in_port(1),.*(0x0800).*bytes:\\([0-9]*\\).*/\\1/p'");
	TH_LOG("the datapath's IPv4 flow from the port counted %ld bytes", bytes);
	EXPECT_GE(bytes, 1 << 20);
	run("ovs-dpctl show " OVS_DP " | grep lookups | sed 's/^ */# /'");

	run("ovs-dpctl del-dp " OVS_DP);
	EXPECT_EQ(0, run("ip addr add %s/24 dev %s", RX_ADDR, ifn));
	EXPECT_EQ(0, run("ip link set %s up", ifn));
}

TEST_HARNESS_MAIN
