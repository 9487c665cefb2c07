// SPDX-License-Identifier: GPL-2.0
/*
 * bind-rx through the netdev family: lifecycle, exclusivity and every
 * bad input, on an hdsim port. Replies are decoded with the upstream
 * attribute numbers (devmem_nl.h), which proves byte compatibility.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <net/if.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <linux/rtnetlink.h>

#include "../../../kselftest_harness.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "netcfg.h"
#include "rtnl_watch.h"
#include "xdp_pass.skel.h"

#define DMABUF_SIZE	(8 << 20)
#define NQUEUES		4

FIXTURE(bind)
{
	struct devmem_nl nl;
	unsigned int dev_id;
	char ifname[IFNAMSIZ];
	int ifindex;
	int dmabuf;
};

FIXTURE_SETUP(bind)
{
	self->dmabuf = -1;
	self->dev_id = 1000 + getpid() % 50000;
	if (access(HDSIM_SYS, F_OK))
		SETUP_SKIP("no hdsim driver (CONFIG_HDSIM)");
	debugfs_mount();

	ASSERT_EQ(0, hdsim_new(self->dev_id, NQUEUES));
	self->ifindex = hdsim_port(self->dev_id, 0, self->ifname);
	ASSERT_GT(self->ifindex, 0);
	ASSERT_EQ(0, link_set_up(NULL, self->ifindex));
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
	ASSERT_EQ(0, ethtool_set_hds(&self->nl, self->ifindex, true));
	self->dmabuf = udmabuf_alloc(DMABUF_SIZE, NULL);
	ASSERT_GE(self->dmabuf, 0);
}

FIXTURE_TEARDOWN(bind)
{
	devmem_nl_close(&self->nl);
	if (self->dmabuf >= 0)
		close(self->dmabuf);
	hdsim_del(self->dev_id);
	/* every test must leave no binding behind */
	EXPECT_EQ(0, devmem_wait_bindings(0, 5000));
}

static const struct devmem_queue rxq1[] = { { 1, UP_NETDEV_QUEUE_TYPE_RX } };
static const struct devmem_queue rxq2_twice[] = {
	{ 2, UP_NETDEV_QUEUE_TYPE_RX }, { 2, UP_NETDEV_QUEUE_TYPE_RX },
};

static int bind_q(struct devmem_nl *nl, int ifindex, int fd, uint32_t q,
		  uint32_t *id)
{
	struct devmem_queue queue = { q, UP_NETDEV_QUEUE_TYPE_RX };

	return devmem_bind_rx(nl, ifindex, fd, &queue, 1, id);
}

static uint32_t queue_dmabuf(struct devmem_nl *nl, int ifindex, uint32_t q)
{
	uint32_t id = ~0U;

	if (devmem_queue_get(nl, ifindex, q, UP_NETDEV_QUEUE_TYPE_RX, &id))
		return ~0U;
	return id;
}

/* Page pools of @ifindex backed by dmabuf @id. */
static int pools_with_dmabuf(struct devmem_nl *nl, int ifindex, uint32_t id)
{
	struct devmem_pool_info pools[256];
	int i, n, hits = 0;

	n = devmem_page_pools(nl, pools, 256);
	for (i = 0; i < n; i++)
		hits += pools[i].ifindex == (uint32_t)ifindex &&
			pools[i].dmabuf == id;
	return n < 0 ? n : hits;
}

TEST_F(bind, family_is_upstream_netdev_v1)
{
	char grps[4][32] = {};
	uint32_t version = 0;
	uint16_t id = 0;

	/* no multicast groups: nothing would ever be sent on them */
	ASSERT_EQ(0, devmem_nl_family(&self->nl, "netdev", &id, &version,
				      grps, 4));
	EXPECT_EQ(self->nl.netdev_family, id);
	EXPECT_EQ(UP_NETDEV_FAMILY_VERSION, version);
	EXPECT_EQ(0, devmem_dev_get(&self->nl, self->ifindex));
}

/* What a queue-get dump listed of two devices' 128 + 128 queues each. */
struct queue_seen {
	int ifindex[2];
	unsigned char seen[2][2][128];	/* [device][type][id] */
	unsigned int others, twice;
};

static int queue_seen_cb(const struct nlmsghdr *nlh, void *data)
{
	long ifindex = -1, type = -1, id = -1;
	struct queue_seen *qs = data;
	struct nlattr *attr;
	int d;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(attr)) {
		case UP_NETDEV_A_QUEUE_ID:
			id = mnl_attr_get_u32(attr);
			break;
		case UP_NETDEV_A_QUEUE_TYPE:
			type = mnl_attr_get_u32(attr);
			break;
		case UP_NETDEV_A_QUEUE_IFINDEX:
			ifindex = mnl_attr_get_u32(attr);
			break;
		}
	}
	for (d = 0; d < 2 && ifindex != qs->ifindex[d]; d++)
		;
	if (d == 2 || type < 0 || type > 1 || id < 0 || id >= 128)
		qs->others++;
	else if (qs->seen[d][type][id]++)
		qs->twice++;
	return MNL_CB_OK;
}

/*
 * A queue-get dump of the caller's namespace, read through a 4 KiB buffer
 * on a socket of its own: the kernel sizes dump replies to the largest
 * read the socket has seen, at least a page less its overhead. Returns
 * the replies, or -errno.
 */
static int queue_dump(uint16_t family, struct queue_seen *qs)
{
	unsigned int portid, replies = 0;
	struct genlmsghdr *genl;
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	char buf[4096];
	int ret;

	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = 1;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = UP_NETDEV_CMD_QUEUE_GET;
	genl->version = UP_NETDEV_FAMILY_VERSION;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	do {
		ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret <= 0) {
			ret = ret ? -errno : -EPIPE;
			goto out;
		}
		replies++;
		ret = mnl_cb_run(buf, ret, 1, portid, queue_seen_cb, qs);
		if (ret < 0) {
			ret = -errno;
			goto out;
		}
	} while (ret > 0);
	ret = replies;
out:
	mnl_socket_close(nl);
	return ret;
}

/*
 * A queue-get dump that takes several replies lists every queue once: the
 * RX and TX positions within a device restart at 0 for the next device,
 * and a device that did not fit resumes where it stopped (upstream's
 * 6.12.7 "netdev: fix repeated netlink messages in queue dump"). A veth
 * pair of 128 RX and 128 TX queues each, about 25 KiB of replies read
 * 4 KiB at a time; a pair that is down adds nothing.
 * With every device down the dump is its end alone, no empty message
 * (6.12.7's "netdev-genl: avoid empty messages in queue dump").
 */
#define QUEUES_128	"numtxqueues 128 numrxqueues 128"

TEST(queue_dump_lists_each_queue_once_across_replies)
{
	struct queue_seen qs = {}, none = {};
	struct devmem_nl nl;
	int d, t, i, replies;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, run("ip link add dq0 " QUEUES_128 " type veth peer name dq1 "
			 QUEUES_128));
	ASSERT_EQ(0, run("ip link add dd0 " QUEUES_128 " type veth peer name dd1 "
			 QUEUES_128));
	ASSERT_EQ(0, run("ip link set dq0 up && ip link set dq1 up"));
	qs.ifindex[0] = if_nametoindex("dq0");
	qs.ifindex[1] = if_nametoindex("dq1");
	ASSERT_EQ(0, devmem_nl_open(&nl));

	replies = queue_dump(nl.netdev_family, &qs);
	TH_LOG("%d replies", replies);
	/* the dump took several replies, or it tested nothing */
	EXPECT_LT(4, replies);
	EXPECT_EQ(0, qs.twice);
	/* lo and the pair that is down: nothing */
	EXPECT_EQ(0, qs.others);
	for (d = 0; d < 2; d++)
		for (t = 0; t < 2; t++)
			for (i = 0; i < 128; i++)
				EXPECT_EQ(1, qs.seen[d][t][i]) {
					TH_LOG("device %d type %d queue %d", d, t, i);
				}

	ASSERT_EQ(0, run("ip link set dq0 down && ip link set dq1 down"));
	EXPECT_EQ(1, queue_dump(nl.netdev_family, &none));
	EXPECT_EQ(0, none.others);
	devmem_nl_close(&nl);
}

/* A device that is down has no queues to show: ENOENT, not an empty reply. */
TEST_F(bind, queue_get_of_a_device_that_is_down_fails_with_enoent)
{
	uint32_t id;

	ASSERT_EQ(0, run("ip link set %s down", self->ifname));
	EXPECT_EQ(-ENOENT, devmem_queue_get(&self->nl, self->ifindex, 0,
					    UP_NETDEV_QUEUE_TYPE_RX, &id));
	ASSERT_EQ(0, link_set_up(NULL, self->ifindex));
	EXPECT_EQ(0, devmem_queue_get(&self->nl, self->ifindex, 0,
				      UP_NETDEV_QUEUE_TYPE_RX, &id));
}

/*
 * Unbinding (the binding's socket closed) while the port is down
 * restarts no queue and WARNs nothing: the binding goes, and once the
 * port is up the queue is on host memory and binds again.
 */
TEST_F(bind, unbind_while_the_port_is_down_warns_nothing)
{
	long taint = file_read_long("/proc/sys/kernel/tainted");
	struct devmem_nl other;
	uint32_t id = 0;

	ASSERT_GE(taint, 0);
	ASSERT_EQ(0, devmem_nl_open(&other));
	ASSERT_EQ(0, bind_q(&other, self->ifindex, self->dmabuf, 1, &id));
	ASSERT_EQ(0, run("ip link set %s down", self->ifname));
	devmem_nl_close(&other);
	EXPECT_EQ(0, devmem_wait_bindings(0, 5000));
	/* TAINT_WARN (bit 9), if it was not set before */
	EXPECT_EQ(0, file_read_long("/proc/sys/kernel/tainted") & ~taint &
		     (1L << 9));
	ASSERT_EQ(0, link_set_up(NULL, self->ifindex));
	EXPECT_EQ(0, queue_dmabuf(&self->nl, self->ifindex, 1));
	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 1, &id));
	EXPECT_EQ(id, queue_dmabuf(&self->nl, self->ifindex, 1));
}

TEST_F(bind, bind_one_queue_shows_id_in_queue_and_page_pool)
{
	uint32_t id = 0;

	ASSERT_EQ(0, devmem_bind_rx(&self->nl, self->ifindex, self->dmabuf,
				    rxq1, 1, &id));
	ASSERT_GT(id, 0);
	EXPECT_EQ(id, queue_dmabuf(&self->nl, self->ifindex, 1));
	EXPECT_EQ(0, queue_dmabuf(&self->nl, self->ifindex, 0));
	EXPECT_EQ(1, pools_with_dmabuf(&self->nl, self->ifindex, id));
	EXPECT_EQ(1, devmem_bindings_live());
}

/* Upstream's tools find a bound queue's pool by the napi-id of both. */
TEST_F(bind, queues_and_pools_report_their_napi_id)
{
	struct devmem_pool_info pools[256];
	uint32_t napi[NQUEUES], tx_napi = ~0U, id = 0;
	int i, j, n, hits = 0;

	for (i = 0; i < NQUEUES; i++) {
		napi[i] = 0;
		ASSERT_EQ(0, devmem_queue_napi_id(&self->nl, self->ifindex, i,
						  UP_NETDEV_QUEUE_TYPE_RX,
						  &napi[i]));
		EXPECT_NE(0, napi[i]);
		for (j = 0; j < i; j++)
			EXPECT_NE(napi[j], napi[i]);
	}
	/* hdsim completes transmits without NAPI: no id to report */
	ASSERT_EQ(0, devmem_queue_napi_id(&self->nl, self->ifindex, 0,
					  UP_NETDEV_QUEUE_TYPE_TX, &tx_napi));
	EXPECT_EQ(0, tx_napi);

	ASSERT_EQ(0, devmem_bind_rx(&self->nl, self->ifindex, self->dmabuf,
				    rxq1, 1, &id));
	n = devmem_page_pools(&self->nl, pools, 256);
	ASSERT_GT(n, 0);
	for (i = 0; i < n; i++) {
		if (pools[i].napi_id != napi[1] || pools[i].detach_time)
			continue;
		EXPECT_EQ((uint32_t)self->ifindex, pools[i].ifindex);
		hits += pools[i].dmabuf == id;
	}
	EXPECT_EQ(1, hits);
}

TEST_F(bind, dmabuf_fd_may_close_right_after_bind)
{
	uint32_t id = 0;

	ASSERT_EQ(0, devmem_bind_rx(&self->nl, self->ifindex, self->dmabuf,
				    rxq1, 1, &id));
	close(self->dmabuf);
	self->dmabuf = -1;
	EXPECT_EQ(id, queue_dmabuf(&self->nl, self->ifindex, 1));
	EXPECT_EQ(1, devmem_bindings_live());
}

TEST_F(bind, closing_netlink_socket_unbinds)
{
	struct devmem_nl other;
	uint32_t id = 0;

	ASSERT_EQ(0, devmem_nl_open(&other));
	ASSERT_EQ(0, bind_q(&other, self->ifindex, self->dmabuf, 2, &id));
	EXPECT_EQ(id, queue_dmabuf(&self->nl, self->ifindex, 2));
	devmem_nl_close(&other);

	/* the queue is back on host memory at once ... */
	EXPECT_EQ(0, queue_dmabuf(&self->nl, self->ifindex, 2));
	/* ... the binding goes when its pools drained */
	EXPECT_EQ(0, devmem_wait_bindings(0, 5000));
	EXPECT_EQ(0, pools_with_dmabuf(&self->nl, self->ifindex, id));
}

#define REUSE_ROUNDS	50

/* The child of a round: binds queue 1 from @portid, says so on @out,
 * waits for a byte on @in, closes its netlink socket, exits.
 */
static void reuse_child(int ifindex, int dmabuf, unsigned int portid,
			int in, int out)
{
	struct devmem_nl nl;
	uint32_t id;
	char c = 0;

	if (devmem_nl_open_portid(&nl, portid) ||
	    bind_q(&nl, ifindex, dmabuf, 1, &id))
		_exit(2);
	if (write(out, &c, 1) != 1 || read(in, &c, 1) != 1)
		_exit(3);
	devmem_nl_close(&nl);
	_exit(0);
}

/*
 * Bindings belong to the socket that made them, not to its port id. The
 * port id of a closing socket is free again before its release unbinds
 * what it owned: a socket that takes it at once and binds in that window
 * must keep its binding. Each round, a child binds queue 1 from port id
 * P and closes; the test takes P the moment it is free, binds queue 2,
 * and after the child is gone finds queue 1 unbound and queue 2 still
 * on its own binding. The window is a few microseconds: rounds that
 * bind inside it are rare, the others check the same ownership.
 */
TEST_F(bind, port_id_reuse_keeps_new_owners_binding)
{
	unsigned int base = 0x40000000 | (getpid() & 0xffff) << 8;
	int round, to_child[2], from_child[2], status;
	uint32_t id = 0, busy = 0;
	struct devmem_nl nl;
	pid_t pid;
	char c = 0;

	for (round = 0; round < REUSE_ROUNDS; round++) {
		ASSERT_EQ(0, pipe(to_child));
		ASSERT_EQ(0, pipe(from_child));
		pid = fork();
		ASSERT_GE(pid, 0);
		if (!pid)
			reuse_child(self->ifindex, self->dmabuf, base + round,
				    to_child[0], from_child[1]);
		ASSERT_EQ(1, read(from_child[0], &c, 1));
		ASSERT_EQ(1, write(to_child[1], &c, 1));
		while (devmem_nl_open_portid(&nl, base + round) == -EADDRINUSE)
			busy++;
		ASSERT_EQ(0, bind_q(&nl, self->ifindex, self->dmabuf, 2, &id));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));

		/* the child's binding went with its socket, ours stays */
		EXPECT_EQ(0, queue_dmabuf(&self->nl, self->ifindex, 1));
		EXPECT_EQ(id, queue_dmabuf(&self->nl, self->ifindex, 2))
			TH_LOG("round %d: port id %#x lost its new binding",
			       round, base + round);
		devmem_nl_close(&nl);
		EXPECT_EQ(0, queue_dmabuf(&self->nl, self->ifindex, 2));
		close(to_child[0]);
		close(to_child[1]);
		close(from_child[0]);
		close(from_child[1]);
		if (!_metadata->passed)
			break;
	}
	TH_LOG("%d rounds, the port id taken after %u refused tries", round,
	       busy);
}

TEST_F(bind, several_queues_one_binding)
{
	const struct devmem_queue qs[] = {
		{ 1, UP_NETDEV_QUEUE_TYPE_RX },
		{ 2, UP_NETDEV_QUEUE_TYPE_RX },
		{ 3, UP_NETDEV_QUEUE_TYPE_RX },
	};
	uint32_t id = 0, q;

	ASSERT_EQ(0, devmem_bind_rx(&self->nl, self->ifindex, self->dmabuf,
				    qs, 3, &id));
	for (q = 1; q <= 3; q++)
		EXPECT_EQ(id, queue_dmabuf(&self->nl, self->ifindex, q));
	EXPECT_EQ(3, pools_with_dmabuf(&self->nl, self->ifindex, id));
}

TEST_F(bind, two_dmabufs_on_two_queues)
{
	uint32_t id1 = 0, id2 = 0;
	int fd2;

	fd2 = udmabuf_alloc(DMABUF_SIZE, NULL);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 1, &id1));
	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, fd2, 2, &id2));
	EXPECT_NE(id1, id2);
	EXPECT_EQ(id1, queue_dmabuf(&self->nl, self->ifindex, 1));
	EXPECT_EQ(id2, queue_dmabuf(&self->nl, self->ifindex, 2));
	EXPECT_EQ(2, devmem_bindings_live());
	close(fd2);
}

TEST_F(bind, rebind_after_unbind)
{
	struct devmem_nl other;
	uint32_t id1 = 0, id2 = 0;

	ASSERT_EQ(0, devmem_nl_open(&other));
	ASSERT_EQ(0, bind_q(&other, self->ifindex, self->dmabuf, 1, &id1));
	devmem_nl_close(&other);
	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 1, &id2));
	EXPECT_NE(id1, id2);
	EXPECT_EQ(id2, queue_dmabuf(&self->nl, self->ifindex, 1));
}

TEST_F(bind, rejects_queue_already_bound)
{
	uint32_t id = 0;

	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 1, &id));
	EXPECT_EQ(-EEXIST, bind_q(&self->nl, self->ifindex, self->dmabuf, 1,
				  NULL));
	EXPECT_STREQ("designated queue already memory provider bound",
		     self->nl.extack);
	EXPECT_EQ(1, devmem_bindings_live());
	EXPECT_EQ(id, queue_dmabuf(&self->nl, self->ifindex, 1));
}

TEST_F(bind, rejects_queue_out_of_range)
{
	EXPECT_EQ(-EINVAL, bind_q(&self->nl, self->ifindex, self->dmabuf,
				  NQUEUES, NULL));
	EXPECT_STREQ("rx queue index out of range", self->nl.extack);
	EXPECT_EQ(0, devmem_bindings_live());
}

/* The queue list is read before the dmabuf is looked at: a bad queue in
 * a list after a good one fails first, and with nothing bound.
 */
TEST_F(bind, checks_every_queue_before_the_dmabuf)
{
	const struct devmem_queue qs[] = {
		{ 1, UP_NETDEV_QUEUE_TYPE_RX },
		{ NQUEUES, UP_NETDEV_QUEUE_TYPE_RX },
	};

	EXPECT_EQ(-EINVAL, devmem_bind_rx(&self->nl, self->ifindex, 100000,
					  qs, 2, NULL));
	EXPECT_STREQ("rx queue index out of range", self->nl.extack);
	EXPECT_EQ(-EINVAL, devmem_bind_rx(&self->nl, self->ifindex,
					  self->dmabuf, qs, 2, NULL));
	EXPECT_STREQ("rx queue index out of range", self->nl.extack);
	EXPECT_EQ(0, queue_dmabuf(&self->nl, self->ifindex, 1));
	EXPECT_EQ(0, devmem_bindings_live());
}

TEST_F(bind, rejects_tx_queue)
{
	const struct devmem_queue txq = { 1, UP_NETDEV_QUEUE_TYPE_TX };

	EXPECT_EQ(-EINVAL, devmem_bind_rx(&self->nl, self->ifindex,
					  self->dmabuf, &txq, 1, NULL));
	EXPECT_STREQ("only rx queues can be bound to a dmabuf",
		     self->nl.extack);
}

/* the policy caps the type at tx (1): netlink's range check answers */
TEST_F(bind, rejects_queue_type_out_of_policy)
{
	const struct devmem_queue q = { 1, 2 };

	EXPECT_EQ(-ERANGE, devmem_bind_rx(&self->nl, self->ifindex,
					  self->dmabuf, &q, 1, NULL));
	EXPECT_EQ(0, devmem_bindings_live());
}

TEST_F(bind, rejects_missing_attributes)
{
	const unsigned int all = BIND_IFINDEX | BIND_FD | BIND_QUEUES;
	const struct {
		unsigned int attrs;
		uint32_t missing;
	} cases[] = {
		{ all & ~BIND_IFINDEX, UP_NETDEV_A_DMABUF_IFINDEX },
		{ all & ~BIND_FD, UP_NETDEV_A_DMABUF_FD },
		{ all & ~BIND_QUEUES, UP_NETDEV_A_DMABUF_QUEUES },
		{ all | BIND_QUEUE_NO_ID, UP_NETDEV_A_QUEUE_ID },
		{ all | BIND_QUEUE_NO_TYPE, UP_NETDEV_A_QUEUE_TYPE },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		EXPECT_EQ(-EINVAL, devmem_bind_rx_raw(&self->nl, cases[i].attrs,
						      self->ifindex,
						      self->dmabuf, rxq1, 1,
						      NULL));
		EXPECT_EQ(cases[i].missing, self->nl.miss_type);
	}
	EXPECT_EQ(0, devmem_bindings_live());
}

TEST_F(bind, rejects_unknown_ifindex)
{
	EXPECT_EQ(-ENODEV, devmem_bind_rx(&self->nl, 0x7ffffff0, self->dmabuf,
					  rxq1, 1, NULL));
}

TEST_F(bind, rejects_closed_fd)
{
	EXPECT_EQ(-EBADF, devmem_bind_rx(&self->nl, self->ifindex, 100000,
					 rxq1, 1, NULL));
	EXPECT_STREQ("fd is not a dmabuf", self->nl.extack);
}

TEST_F(bind, rejects_fd_that_is_not_a_dmabuf)
{
	int fd = memfd_create("not-a-dmabuf", 0);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(-EINVAL, devmem_bind_rx(&self->nl, self->ifindex, fd,
					  rxq1, 1, NULL));
	EXPECT_STREQ("fd is not a dmabuf", self->nl.extack);
	close(fd);
}

TEST_F(bind, rejects_header_split_off)
{
	ASSERT_EQ(0, ethtool_set_hds(&self->nl, self->ifindex, false));
	EXPECT_EQ(-EINVAL, devmem_bind_rx(&self->nl, self->ifindex,
					  self->dmabuf, rxq1, 1, NULL));
	EXPECT_STREQ("tcp-data-split is disabled", self->nl.extack);
	EXPECT_EQ(0, devmem_bindings_live());
}

/* "auto" is refused even where a driver would split: upstream checks the
 * setting, not the driver's current state
 */
TEST_F(bind, rejects_header_split_auto)
{
	ASSERT_EQ(0, ethtool_set_hds_mode(&self->nl, self->ifindex,
					  ETHTOOL_TCP_DATA_SPLIT_UNKNOWN));
	EXPECT_EQ(-EINVAL, devmem_bind_rx(&self->nl, self->ifindex,
					  self->dmabuf, rxq1, 1, NULL));
	EXPECT_STREQ("tcp-data-split is disabled", self->nl.extack);
	EXPECT_EQ(0, devmem_bindings_live());
}

TEST_F(bind, rejects_nonzero_hds_thresh)
{
	uint32_t thresh = ~0U, max = 0;

	ASSERT_EQ(0, ethtool_get_hds_thresh(&self->nl, self->ifindex, &thresh,
					    &max));
	EXPECT_EQ(0, thresh);
	EXPECT_EQ(1024, max);
	ASSERT_EQ(0, ethtool_set_hds_thresh(&self->nl, self->ifindex, 1));
	ASSERT_EQ(0, ethtool_get_hds_thresh(&self->nl, self->ifindex, &thresh,
					    &max));
	EXPECT_EQ(1, thresh);
	EXPECT_EQ(-EINVAL, devmem_bind_rx(&self->nl, self->ifindex,
					  self->dmabuf, rxq1, 1, NULL));
	EXPECT_STREQ("hds-thresh is not zero", self->nl.extack);
	EXPECT_EQ(0, devmem_bindings_live());

	ASSERT_EQ(0, ethtool_set_hds_thresh(&self->nl, self->ifindex, 0));
	EXPECT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 1, NULL));
}

TEST_F(bind, rejects_hds_thresh_above_its_maximum)
{
	uint32_t thresh = ~0U, max = 0;

	EXPECT_EQ(-ERANGE, ethtool_set_hds_thresh(&self->nl, self->ifindex,
						  1025));
	EXPECT_STREQ("hds-thresh exceeds the device's maximum",
		     self->nl.extack);
	ASSERT_EQ(0, ethtool_get_hds_thresh(&self->nl, self->ifindex, &thresh,
					    &max));
	EXPECT_EQ(0, thresh);
	EXPECT_EQ(0, ethtool_set_hds_thresh(&self->nl, self->ifindex, 1024));
}

/*
 * Upstream's rings attributes 14 to 16 (RX_PUSH, TX_PUSH_BUF_LEN, _MAX)
 * come before hds-thresh (17, 18) and do not exist in 6.1: a SET that
 * carries one is refused whole, with the policy's extack, rather than
 * ignored; HDS_THRESH_MAX is read-only, as upstream.
 */
TEST_F(bind, rings_set_refuses_attributes_6_1_lacks)
{
	static const struct {
		uint16_t attr;
		size_t len;
		const char *extack;
	} lacks[] = {
		{ 14, 1, "Unsupported attribute" },	/* RX_PUSH */
		{ 15, 4, "Unsupported attribute" },	/* TX_PUSH_BUF_LEN */
		{ 16, 4, "Unsupported attribute" },	/* TX_PUSH_BUF_LEN_MAX */
		{ ETHTOOL_A_RINGS_HDS_THRESH_MAX, 4, "Unknown attribute type" },
	};
	uint32_t thresh = ~0U, max = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lacks); i++) {
		EXPECT_EQ(-EINVAL, ethtool_set_rings_attr(&self->nl,
							  self->ifindex,
							  lacks[i].attr,
							  lacks[i].len, 1));
		EXPECT_STREQ(lacks[i].extack, self->nl.extack)
			TH_LOG("attribute %u", lacks[i].attr);
	}
	ASSERT_EQ(0, ethtool_get_hds_thresh(&self->nl, self->ifindex, &thresh,
					    &max));
	EXPECT_EQ(0, thresh);
	EXPECT_EQ(1024, max);
}

TEST_F(bind, rejects_driver_that_ignores_the_provider)
{
	char path[128];

	snprintf(path, sizeof(path),
		 "/sys/kernel/debug/hdsim/hdsim%u/port0/ignore_provider",
		 self->dev_id);
	ASSERT_EQ(0, write_file(path, "1"));
	EXPECT_EQ(-ENODATA, devmem_bind_rx(&self->nl, self->ifindex,
					   self->dmabuf, rxq1, 1, NULL));
	EXPECT_EQ(0, devmem_bindings_live());
	EXPECT_EQ(0, queue_dmabuf(&self->nl, self->ifindex, 1));
}

TEST_F(bind, rejects_device_without_queue_restart_or_split)
{
	char name[IFNAMSIZ], path[128];
	int ifindex;

	/* netdevsim on 6.1 has a parent device but no queue mgmt ops; a
	 * modular kernel loads it as a user would
	 */
	if (access("/sys/bus/netdevsim", F_OK) &&
	    system("modprobe -q netdevsim 2>/dev/null"))
		SKIP(return, "no netdevsim (CONFIG_NETDEVSIM)");
	if (write_file("/sys/bus/netdevsim/new_device", "%u 1",
		       self->dev_id))
		SKIP(return, "no netdevsim");
	snprintf(path, sizeof(path),
		 "/sys/bus/netdevsim/devices/netdevsim%u/net", self->dev_id);
	ifindex = first_netdev_in(path, name);
	if (ifindex <= 0) {
		write_file("/sys/bus/netdevsim/del_device", "%u", self->dev_id);
		SKIP(return, "netdevsim port not found");
	}
	EXPECT_EQ(-EOPNOTSUPP, bind_q(&self->nl, ifindex, self->dmabuf, 0,
				      NULL));
	EXPECT_STREQ("Device cannot restart RX queues (no queue management ops)",
		     self->nl.extack);
	/* nor can it split headers: tcp-data-split on is refused */
	EXPECT_EQ(-EOPNOTSUPP, ethtool_set_hds(&self->nl, ifindex, true));
	EXPECT_STREQ("setting tcp-data-split not supported", self->nl.extack);
	EXPECT_EQ(-EOPNOTSUPP, ethtool_set_hds_thresh(&self->nl, ifindex, 0));
	EXPECT_STREQ("setting hds-thresh is not supported", self->nl.extack);
	write_file("/sys/bus/netdevsim/del_device", "%u", self->dev_id);
}

/* XDP in generic (skb) mode: xdp_pass.bpf.c, attached over rtnetlink. */
static int xdp_attach(int ifindex, int prog_fd, char *extack, size_t len)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	struct nlattr *nest;
	int one = 1, ret;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return -errno;
	mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID);
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_SETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_index = ifindex;
	nest = mnl_attr_nest_start(nlh, IFLA_XDP);
	mnl_attr_put_u32(nlh, IFLA_XDP_FD, prog_fd);
	mnl_attr_put_u32(nlh, IFLA_XDP_FLAGS, XDP_FLAGS_SKB_MODE);
	mnl_attr_nest_end(nlh, nest);

	ret = mnl_socket_sendto(nl, nlh, nlh->nlmsg_len);
	if (ret >= 0)
		ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (ret >= 0) {
		struct nlmsgerr *err = mnl_nlmsg_get_payload((void *)buf);
		struct nlattr *attr;

		ret = err->error;
		extack[0] = '\0';
		mnl_attr_for_each(attr, (struct nlmsghdr *)buf,
				  sizeof(*err) - sizeof(err->msg) +
				  err->msg.nlmsg_len)
			if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG)
				snprintf(extack, len, "%s",
					 mnl_attr_get_str(attr));
	} else {
		ret = -errno;
	}
	mnl_socket_close(nl);
	return ret;
}

TEST_F(bind, rejects_device_with_xdp)
{
	struct xdp_pass *skel;
	char extack[128];
	int prog;

	skel = xdp_pass__open_and_load();
	if (!skel)
		SKIP(return, "cannot load an XDP program: %s", strerror(errno));
	prog = bpf_program__fd(skel->progs.xdp_pass);
	ASSERT_EQ(0, xdp_attach(self->ifindex, prog, extack, sizeof(extack)));
	EXPECT_EQ(-EEXIST, devmem_bind_rx(&self->nl, self->ifindex,
					  self->dmabuf, rxq1, 1, NULL));
	EXPECT_STREQ("unable to bind dmabuf to device with XDP program attached",
		     self->nl.extack);
	EXPECT_EQ(0, xdp_attach(self->ifindex, -1, extack, sizeof(extack)));
	xdp_pass__destroy(skel);
}

TEST_F(bind, refuses_xdp_while_bound)
{
	struct xdp_pass *skel;
	char extack[128];
	int prog;

	skel = xdp_pass__open_and_load();
	if (!skel)
		SKIP(return, "cannot load an XDP program: %s", strerror(errno));
	prog = bpf_program__fd(skel->progs.xdp_pass);
	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 1, NULL));
	EXPECT_EQ(-EBUSY, xdp_attach(self->ifindex, prog, extack,
				     sizeof(extack)));
	EXPECT_STREQ("unable to install XDP to device using memory provider",
		     extack);
	xdp_pass__destroy(skel);
}

TEST_F(bind, refuses_channel_shrink_below_bound_queue)
{
	uint32_t combined, max;

	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 2, NULL));
	EXPECT_EQ(-EINVAL, ethtool_set_channels(&self->nl, self->ifindex, 2));
	EXPECT_STREQ("requested channel counts are too low for memory provider queues",
		     self->nl.extack);
	ASSERT_EQ(0, ethtool_get_channels(&self->nl, self->ifindex, &combined,
					  &max));
	EXPECT_EQ(NQUEUES, combined);
	/* keeping the bound queue is fine */
	EXPECT_EQ(0, ethtool_set_channels(&self->nl, self->ifindex, 3));
}

TEST_F(bind, refuses_header_split_off_while_bound)
{
	int hds = 0;

	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 1, NULL));
	EXPECT_EQ(-EINVAL, ethtool_set_hds(&self->nl, self->ifindex, false));
	EXPECT_STREQ("can't disable tcp-data-split while device has memory provider enabled",
		     self->nl.extack);
	ASSERT_EQ(0, ethtool_get_hds(&self->nl, self->ifindex, &hds));
	EXPECT_EQ(ETHTOOL_TCP_DATA_SPLIT_ENABLED, hds);
}

TEST_F(bind, refuses_auto_and_hds_thresh_while_bound)
{
	uint32_t thresh = ~0U, max = 0;
	int hds = 0;

	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 1, NULL));
	EXPECT_EQ(-EINVAL,
		  ethtool_set_hds_mode(&self->nl, self->ifindex,
				       ETHTOOL_TCP_DATA_SPLIT_UNKNOWN));
	EXPECT_STREQ("can't disable tcp-data-split while device has memory provider enabled",
		     self->nl.extack);
	EXPECT_EQ(-EINVAL, ethtool_set_hds_thresh(&self->nl, self->ifindex, 1));
	EXPECT_STREQ("can't set non-zero hds_thresh while device is memory provider enabled",
		     self->nl.extack);
	ASSERT_EQ(0, ethtool_get_hds_thresh(&self->nl, self->ifindex, &thresh,
					    &max));
	EXPECT_EQ(0, thresh);
	/* a SET that names neither keeps the user's split: allowed */
	EXPECT_EQ(0, run("ethtool -G %s rx 512", self->ifname));
	ASSERT_EQ(0, ethtool_get_hds(&self->nl, self->ifindex, &hds));
	EXPECT_EQ(ETHTOOL_TCP_DATA_SPLIT_ENABLED, hds);
}

static int afxdp_bind(int ifindex, int queue)
{
	struct xdp_umem_reg reg = { .chunk_size = 4096 };
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP,
		.sxdp_ifindex = ifindex,
		.sxdp_queue_id = queue,
		.sxdp_flags = XDP_COPY,
	};
	int ring = 64, fd, ret;
	void *umem;

	fd = socket(AF_XDP, SOCK_RAW, 0);
	if (fd < 0)
		return -errno;
	umem = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.addr = (uintptr_t)umem;
	reg.len = 64 * 4096;
	if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) ||
	    setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &ring, sizeof(ring)) ||
	    setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &ring,
		       sizeof(ring)) ||
	    setsockopt(fd, SOL_XDP, XDP_RX_RING, &ring, sizeof(ring))) {
		ret = -errno;
		goto out;
	}
	ret = bind(fd, (struct sockaddr *)&sxdp, sizeof(sxdp)) ? -errno : fd;
out:
	if (ret < 0)
		close(fd);
	return ret;
}

TEST_F(bind, refuses_af_xdp_while_bound)
{
	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 1, NULL));
	EXPECT_EQ(-EBUSY, afxdp_bind(self->ifindex, 1));
	EXPECT_EQ(-EBUSY, afxdp_bind(self->ifindex, 0));
}

TEST_F(bind, rejects_queue_used_by_af_xdp)
{
	int xsk = afxdp_bind(self->ifindex, 1);

	ASSERT_GE(xsk, 0);
	EXPECT_EQ(-EBUSY, bind_q(&self->nl, self->ifindex, self->dmabuf, 1,
				 NULL));
	EXPECT_STREQ("designated queue already in use by AF_XDP",
		     self->nl.extack);
	close(xsk);
}

struct unpriv_bind {
	int ifindex;
	int dmabuf;
};

static int unpriv_bind_q(struct devmem_nl *nl, void *arg)
{
	const struct unpriv_bind *b = arg;

	return bind_q(nl, b->ifindex, b->dmabuf, 1, NULL);
}

/* 0 if bind-rx failed with EPERM after dropping root (see devmem_nl.h) */
static int unprivileged_bind(int ifindex, int dmabuf, bool userns)
{
	struct unpriv_bind b = { ifindex, dmabuf };

	return devmem_nl_unprivileged(unpriv_bind_q, &b, userns);
}

TEST_F(bind, requires_cap_net_admin)
{
	EXPECT_EQ(0, unprivileged_bind(self->ifindex, self->dmabuf, false));
	EXPECT_EQ(0, devmem_bindings_live());
}

/* full capabilities, but only in a new user namespace */
TEST_F(bind, requires_cap_net_admin_of_init_userns)
{
	EXPECT_EQ(0, unprivileged_bind(self->ifindex, self->dmabuf, true));
}

/*
 * A container: an unprivileged process makes its own user and network
 * namespace, the port is moved into it, and there bind-rx succeeds with
 * the capabilities of that user namespace alone (GENL_UNS_ADMIN_PERM).
 * The child exits 0 on success, 100 + errno on a failed bind.
 */
static int bind_in_container(const char *ifname, int dmabuf, int ready,
			     int go)
{
	struct devmem_nl nl;
	uint32_t id = 0;
	int ifindex, err;
	char c;

	if (setresuid(65534, 65534, 65534) ||
	    unshare(CLONE_NEWUSER | CLONE_NEWNET) || write(ready, "u", 1) != 1 ||
	    read(go, &c, 1) != 1)
		return 2;
	ifindex = if_nametoindex(ifname);
	if (!ifindex || link_set_up(NULL, ifindex) || devmem_nl_open(&nl))
		return 3;
	err = bind_q(&nl, ifindex, dmabuf, 1, &id);
	if (err)
		return 100 + (-err & 0x7f);
	return id ? 0 : 4;
}

TEST_F(bind, binds_in_own_user_and_network_namespace)
{
	int ready[2], go[2], status;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(bind_in_container(self->ifname, self->dmabuf, ready[1],
					go[0]));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(0, run("ip link set dev %s netns %d", self->ifname, pid));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child: %d (100 + errno: the bind failed)",
		       WEXITSTATUS(status));
}

/* A bind-rx of queue 1 or a bind-tx, run while RTNL is watched. */
struct bind_req {
	struct devmem_nl *nl;
	int ifindex;
	int dmabuf;
	bool tx;
	uint32_t id;
};

static int bind_req(void *arg)
{
	struct bind_req *r = arg;

	if (r->tx)
		return devmem_bind_tx(r->nl, r->ifindex, r->dmabuf, &r->id);
	return bind_q(r->nl, r->ifindex, r->dmabuf, 1, &r->id);
}

/*
 * The dmabuf is attached and mapped without RTNL: an exporter may take
 * long, and every RTNL user of the system would wait on it. Kprobe
 * events give the order in which this task took RTNL and entered the
 * attach, the map and @last, a step that needs RTNL (which shows that
 * the watch sees it at all); no timing is involved.
 */
static void bind_watching_rtnl(struct __test_metadata *_metadata,
			       struct bind_req *req, const char *last)
{
	const char *const funcs[] = {
		"dma_buf_attach", "dma_buf_map_attachment_unlocked", last,
	};
	struct rtnl_watch_count c[3];
	int err, ret;

	err = rtnl_watch_run(funcs, 3, c, bind_req, req, &ret);
	if (err == -ENOENT)
		SKIP(return, "no kprobe events (CONFIG_KPROBE_EVENTS)");
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, ret);
	EXPECT_TRUE(rtnl_watch_only_last_held(funcs, c, 3));
	/* one attach, one map */
	EXPECT_EQ(1, c[0].free);
	EXPECT_EQ(1, c[1].free);
}

TEST_F(bind, rx_attaches_and_maps_the_dmabuf_without_rtnl)
{
	struct bind_req req = { &self->nl, self->ifindex, self->dmabuf };

	bind_watching_rtnl(_metadata, &req, "netif_mp_open_rxq");
}

TEST_F(bind, tx_attaches_and_maps_the_dmabuf_without_rtnl)
{
	struct bind_req req = { &self->nl, self->ifindex, self->dmabuf, true };

	bind_watching_rtnl(_metadata, &req, "net_devmem_set_owner");
}

/*
 * What the queue would refuse is refused before the dmabuf is attached:
 * a queue that has a provider already, a queue listed twice, or header
 * split off, costs no attach and no map of the dmabuf (before, each was
 * found when a queue was restarted, after the map).
 */
TEST_F(bind, refuses_a_bad_queue_before_attaching_the_dmabuf)
{
	static const char *const funcs[] = { "dma_buf_attach" };
	struct rtnl_watch_count c;
	uint32_t id = 0, id2 = 0;
	int ret;

	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 1, &id));
	ret = rtnl_watch_start(getpid(), funcs, 1);
	if (ret == -ENOENT)
		SKIP(return, "no kprobe events (CONFIG_KPROBE_EVENTS)");
	ASSERT_EQ(0, ret);
	EXPECT_EQ(-EEXIST, bind_q(&self->nl, self->ifindex, self->dmabuf, 1,
				  &id2));
	EXPECT_STREQ("designated queue already memory provider bound",
		     self->nl.extack);
	EXPECT_EQ(-EEXIST, devmem_bind_rx(&self->nl, self->ifindex,
					  self->dmabuf, rxq2_twice, 2, &id2));
	EXPECT_STREQ("rx queue listed twice in the request", self->nl.extack);
	/* the socket's release unbinds queue 1 */
	devmem_nl_close(&self->nl);
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
	ASSERT_EQ(0, devmem_wait_bindings(0, 5000));
	ASSERT_EQ(0, ethtool_set_hds(&self->nl, self->ifindex, false));
	EXPECT_EQ(-EINVAL, bind_q(&self->nl, self->ifindex, self->dmabuf, 1,
				  &id2));
	EXPECT_STREQ("tcp-data-split is disabled", self->nl.extack);
	EXPECT_EQ(0, rtnl_watch_read(&c, 1));
	rtnl_watch_stop();
	EXPECT_EQ(0, c.held + c.free);
}

TEST_F(bind, deleting_bound_device_then_closing_socket)
{
	uint32_t id = 0;

	ASSERT_EQ(0, bind_q(&self->nl, self->ifindex, self->dmabuf, 1, &id));
	ASSERT_EQ(0, hdsim_del(self->dev_id));
	devmem_nl_close(&self->nl);
	EXPECT_EQ(0, devmem_wait_bindings(0, 5000));
}

TEST_HARNESS_MAIN
