// SPDX-License-Identifier: GPL-2.0
/*
 * Devmem TX through sendmsg(): MSG_ZEROCOPY on an SO_ZEROCOPY socket with
 * a SOL_SOCKET/SCM_DEVMEM_DMABUF cmsg naming a bind-tx binding, iovecs
 * that are offsets into the dmabuf. On an hdsim pair: the host end sends
 * from a udmabuf bound for TX, a socket in the peer's namespace reads
 * plainly and checks every byte against the udmabuf. Completions arrive
 * on the error queue as for MSG_ZEROCOPY, never as copies. Every bad input
 * gets upstream's errno, and a refused send leaves nothing queued.
 */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <linux/sockios.h>
#include <linux/uio.h>
#define __iovec_defined 1

#include <arpa/inet.h>
#include <grp.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "netcfg.h"

#define HOST_ADDR	"192.0.2.1"
#define PEER_ADDR	"192.0.2.2"
#define PORT		5250
#define DMABUF_SIZE	(4 << 20)

FIXTURE(tx)
{
	struct devmem_env env;
	struct devmem_nl nl;	/* owns the TX binding */
	uint8_t *map;		/* the udmabuf, written by the "device" */
	int dmabuf;
	uint32_t id;
	int fd;			/* host end, sending */
	int peer;		/* peer end, receiving */
};

static uint8_t byte_at(size_t off)
{
	return off * 7 + off / 4096 + 3;
}

static struct sockaddr_in peer_sa(const char *addr)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT),
	};

	inet_pton(AF_INET, addr, &sa.sin_addr);
	return sa;
}

/* A listener on @addr:PORT in namespace @ns (NULL: ours), or -errno. */
static int listen_in(const char *ns, const char *addr)
{
	struct sockaddr_in sa = peer_sa(addr);
	int home, lfd, one = 1;

	home = ns ? netns_enter(ns) : -1;
	if (ns && home < 0)
		return home;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		close(lfd);
		lfd = -errno;
	}
	if (ns)
		netns_leave(home);
	return lfd;
}

/* A connected socket to @addr:PORT with SO_ZEROCOPY on, or -errno. */
static int connect_zerocopy(const char *addr)
{
	struct sockaddr_in sa = peer_sa(addr);
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* A TCP connection from the host end to a listener in the peer's
 * namespace: the sender's fd, the receiver's in *@peer.
 */
static int connect_to_peer(const char *ns, const char *addr, int *peer)
{
	struct sockaddr_in sa = peer_sa(addr);
	int lfd, fd;

	lfd = listen_in(ns, addr);
	if (lfd < 0)
		return lfd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		fd = -errno;
	} else {
		*peer = accept(lfd, NULL, NULL);
	}
	close(lfd);
	return fd;
}

/* Keep only the capabilities of @caps (bits of CAP_* below 32): 0 or -1. */
static int caps_only(__u32 caps)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {
		{ .effective = caps, .permitted = caps },
	};

	return syscall(SYS_capset, &hdr, data);
}

/* Become nobody, with CAP_NET_ADMIN only if @net_admin: 0 or -1. */
static int become_nobody(bool net_admin)
{
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return -1;
	return caps_only(net_admin ? 1U << CAP_NET_ADMIN : 0);
}

FIXTURE_SETUP(tx)
{
	const struct devmem_env_cfg cfg = {
		.name = "tx",
		.dev_id = 39,
		.rx_addr = HOST_ADDR,
		.tx_addr = PEER_ADDR,
		.rss_queues = 4,
	};
	int one = 1;
	size_t i;

	self->fd = -1;
	self->peer = -1;
	self->dmabuf = -1;
	self->map = MAP_FAILED;
	if (!devmem_env_available())
		SETUP_SKIP("no hdsim driver (CONFIG_HDSIM)");
	/* A test killed on its timeout leaves its ESP policies behind: every
	 * later connection would wait for a key exchange that never comes.
	 */
	if (!access("/sys/module/xfrm_user", F_OK))
		esp_flush("");
	ASSERT_EQ(0, devmem_env_setup(&self->env, &cfg));

	self->dmabuf = udmabuf_alloc(DMABUF_SIZE, NULL);
	ASSERT_GE(self->dmabuf, 0);
	self->map = mmap(NULL, DMABUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->dmabuf, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	for (i = 0; i < DMABUF_SIZE; i++)
		self->map[i] = byte_at(i);

	ASSERT_EQ(0, devmem_nl_open(&self->nl));
	ASSERT_EQ(0, devmem_bind_tx(&self->nl, self->env.ifindex,
				    self->dmabuf, &self->id));
	self->fd = connect_to_peer(self->env.ns, PEER_ADDR, &self->peer);
	ASSERT_GE(self->fd, 0);
	ASSERT_GE(self->peer, 0);
	ASSERT_EQ(0, setsockopt(self->fd, SOL_SOCKET, SO_ZEROCOPY, &one,
				sizeof(one)));
}

FIXTURE_TEARDOWN(tx)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->peer >= 0)
		close(self->peer);
	devmem_nl_close(&self->nl);
	if (self->map != MAP_FAILED)
		munmap(self->map, DMABUF_SIZE);
	if (self->dmabuf >= 0)
		close(self->dmabuf);
	EXPECT_EQ(0, devmem_env_teardown(&self->env));
}

/* The peer reads @len bytes: 0 if they are the dmabuf's @iov ranges. */
static int peer_check(int peer, const struct iovec *iov, int n)
{
	static uint8_t buf[DMABUF_SIZE];
	size_t want = 0, got = 0, off;
	ssize_t r;
	int i;

	for (i = 0; i < n; i++)
		want += iov[i].iov_len;
	while (got < want) {
		r = recv(peer, buf + got, want - got, 0);
		if (r <= 0)
			return -1;
		got += r;
	}
	got = 0;
	for (i = 0; i < n; i++) {
		for (off = 0; off < iov[i].iov_len; off++)
			if (buf[got + off] != byte_at((size_t)iov[i].iov_base + off))
				return 1;
		got += iov[i].iov_len;
	}
	return 0;
}

/* Completions of @calls sends: the number the kernel copied, or -1. */
static int reap(int fd, unsigned int calls)
{
	uint64_t done = 0, copied = 0;

	return zerocopy_reap(fd, calls, &done, &copied, NULL) ? -1 : (int)copied;
}

#define IOV(off, len)	{ .iov_base = (void *)(uintptr_t)(off), .iov_len = (len) }

TEST_F(tx, sends_from_the_dmabuf_and_completes_without_copy)
{
	struct iovec iov[] = { IOV(100, 5000) };

	ASSERT_EQ(5000, devmem_sendmsg(self->fd, self->id, 4, iov, 1,
				       MSG_ZEROCOPY));
	EXPECT_EQ(0, peer_check(self->peer, iov, 1));
	EXPECT_EQ(0, reap(self->fd, 1));
}

TEST_F(tx, several_iovecs_in_one_send)
{
	struct iovec iov[] = {
		IOV(0, 10), IOV(4096, 10), IOV(12345, 3000),
		IOV(DMABUF_SIZE - 7000, 7000), IOV(1, 1),
	};

	ASSERT_EQ(10 + 10 + 3000 + 7000 + 1,
		  devmem_sendmsg(self->fd, self->id, 4, iov, 5, MSG_ZEROCOPY));
	EXPECT_EQ(0, peer_check(self->peer, iov, 5));
	EXPECT_EQ(0, reap(self->fd, 1));
}

/* 1024 one-byte iovecs on distinct pages: more frags than an skb holds */
TEST_F(tx, more_iovecs_than_frags_go_out_in_several_skbs)
{
	static struct iovec iov[1024];
	int i;

	for (i = 0; i < 1024; i++)
		iov[i] = (struct iovec)IOV(i * 4096 + i, 1);
	ASSERT_EQ(1024, devmem_sendmsg(self->fd, self->id, 4, iov, 1024,
				       MSG_ZEROCOPY));
	EXPECT_EQ(0, peer_check(self->peer, iov, 1024));
	EXPECT_EQ(0, reap(self->fd, 1));
}

/* host memory, device memory, host memory: never in one skb, in order */
TEST_F(tx, host_and_device_memory_sends_interleave)
{
	struct iovec dev_iov[] = { IOV(8192, 3000) };
	static const char host[] = "host memory in between";
	char buf[sizeof(host)];

	ASSERT_EQ((ssize_t)sizeof(host), send(self->fd, host, sizeof(host), 0));
	ASSERT_EQ(3000, devmem_sendmsg(self->fd, self->id, 4, dev_iov, 1,
				       MSG_ZEROCOPY));
	ASSERT_EQ((ssize_t)sizeof(host), send(self->fd, host, sizeof(host), 0));

	ASSERT_EQ((ssize_t)sizeof(host),
		  recv(self->peer, buf, sizeof(buf), MSG_WAITALL));
	EXPECT_EQ(0, memcmp(buf, host, sizeof(host)));
	EXPECT_EQ(0, peer_check(self->peer, dev_iov, 1));
	ASSERT_EQ((ssize_t)sizeof(host),
		  recv(self->peer, buf, sizeof(buf), MSG_WAITALL));
	EXPECT_EQ(0, memcmp(buf, host, sizeof(host)));
	EXPECT_EQ(0, reap(self->fd, 1));
}

/* sendfile() after a devmem send, corked so that both could share the
 * unsent tail skb: the file's pages go into an skb of their own
 */
TEST_F(tx, sendfile_after_device_memory)
{
	static const char host[] = "pages of a file, after device memory";
	struct iovec dev_iov[] = { IOV(16384, 1000) };
	int memfd, one = 1, zero = 0;
	char buf[sizeof(host)];
	off_t off = 0;

	memfd = memfd_create("tx-sendfile", 0);
	ASSERT_GE(memfd, 0);
	ASSERT_EQ((ssize_t)sizeof(host), write(memfd, host, sizeof(host)));
	ASSERT_EQ(0, setsockopt(self->fd, IPPROTO_TCP, TCP_CORK, &one,
				sizeof(one)));
	ASSERT_EQ(1000, devmem_sendmsg(self->fd, self->id, 4, dev_iov, 1,
				       MSG_ZEROCOPY | MSG_MORE));
	ASSERT_EQ((ssize_t)sizeof(host),
		  sendfile(self->fd, memfd, &off, sizeof(host)));
	ASSERT_EQ(0, setsockopt(self->fd, IPPROTO_TCP, TCP_CORK, &zero,
				sizeof(zero)));
	EXPECT_EQ(0, peer_check(self->peer, dev_iov, 1));
	ASSERT_EQ((ssize_t)sizeof(host),
		  recv(self->peer, buf, sizeof(buf), MSG_WAITALL));
	EXPECT_EQ(0, memcmp(buf, host, sizeof(host)));
	EXPECT_EQ(0, reap(self->fd, 1));
	close(memfd);
}

/* the binding outlives its netlink socket until its sends completed */
TEST_F(tx, closing_the_netlink_socket_keeps_sends_in_flight)
{
	/* within the peer's receive window: it reads only afterwards */
	struct iovec iov[] = { IOV(0, 32 << 10) };

	ASSERT_EQ(32 << 10, devmem_sendmsg(self->fd, self->id, 4, iov, 1,
					   MSG_ZEROCOPY));
	devmem_nl_close(&self->nl);
	EXPECT_EQ(0, peer_check(self->peer, iov, 1));
	EXPECT_EQ(0, reap(self->fd, 1));
	/* and the id is gone for new sends */
	EXPECT_EQ(-EINVAL, devmem_sendmsg(self->fd, self->id, 4, iov, 1,
					  MSG_ZEROCOPY));
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

/*
 * Nothing is pinned for a send from device memory, so nothing is charged
 * to RLIMIT_MEMLOCK: a sender without CAP_IPC_LOCK and with 64 KiB of
 * locked memory sends 1 MiB from the dmabuf in one call. The same send
 * from host memory fails with ENOBUFS, which shows the limit applies.
 * Before, the device memory send was charged too and failed the same way.
 * The sender is nobody with CAP_NET_ADMIN only: the capability that lets
 * it send from the binding of another uid.
 */
TEST_F(tx, unprivileged_sender_is_not_charged_memlock)
{
	const struct rlimit rl = { 64 << 10, 64 << 10 };
	struct iovec iov[] = { IOV(4096, 1 << 20) };
	struct timeval tv = { .tv_sec = 10 };
	static char host[1 << 20];
	int status, checked;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		ssize_t n;

		if (setrlimit(RLIMIT_MEMLOCK, &rl) || become_nobody(true))
			_exit(254);
		if (send(self->fd, host, sizeof(host), MSG_ZEROCOPY) != -1 ||
		    errno != ENOBUFS)
			_exit(253);
		n = devmem_sendmsg(self->fd, self->id, 4, iov, 1, MSG_ZEROCOPY);
		_exit(n == (1 << 20) ? 0 : n < 0 ? -n : 252);
	}
	/* the peer reads while the child sends (1 MiB outgrows the send
	 * buffer); it gives up after 10 s if nothing comes
	 */
	ASSERT_EQ(0, setsockopt(self->peer, SOL_SOCKET, SO_RCVTIMEO, &tv,
				sizeof(tv)));
	checked = peer_check(self->peer, iov, 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	/* 253: host memory was not limited; an errno: the send failed */
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, checked);
	EXPECT_EQ(0, reap(self->fd, 1));
}

/* Who the child sending on its own connection is (send_as()). */
enum sender {
	OTHER_UID,		/* nobody, no capability */
	OTHER_UID_NET_ADMIN,	/* nobody, CAP_NET_ADMIN only */
	SAME_UID_NO_CAPS,	/* root's uid, no capability */
	SAME_UID_OTHER_NETNS,	/* the same, moved to a new network namespace */
};

/*
 * In a child: become @who, open a connection of its own to the peer's
 * listener (SAME_UID_OTHER_NETNS: connect first, then move), send @iov
 * from binding @id, then "end" from host memory. Exit status:
 * 0 if the devmem send returned @want (bytes, or -errno), else its result
 * (an errno, or 252 for a byte count), 254/253 if a step before failed.
 */
static int send_as(enum sender who, uint32_t id, struct iovec *iov,
		   ssize_t want)
{
	ssize_t n;
	int fd;

	if (who == SAME_UID_OTHER_NETNS) {
		fd = connect_zerocopy(PEER_ADDR);
		if (fd < 0 || unshare(CLONE_NEWNET) || caps_only(0))
			return 254;
	} else {
		if (who == SAME_UID_NO_CAPS ? caps_only(0) :
		    become_nobody(who == OTHER_UID_NET_ADMIN))
			return 254;
		fd = connect_zerocopy(PEER_ADDR);
		if (fd < 0)
			return 253;
	}
	n = devmem_sendmsg(fd, id, 4, iov, 1, MSG_ZEROCOPY);
	if (send(fd, "end", 3, 0) != 3)
		return 253;
	close(fd);
	if (n == want)
		return 0;
	return n < 0 ? -n : 252;
}

/*
 * Fork a sender of @iov from binding @id as @who; the peer, a listener in
 * namespace @ns, accepts its connection and reads. 0 if the send was
 * @allowed and the peer got @iov's bytes of the dmabuf, or it was refused
 * with EINVAL and the peer got none, then "end" and the end of the
 * stream; else the child's status or -1.
 */
static int sender_check(struct __test_metadata *_metadata, const char *ns,
			uint32_t id, enum sender who, struct iovec *iov,
			bool allowed)
{
	ssize_t want = allowed ? (ssize_t)iov->iov_len : -EINVAL;
	struct timeval tv = { .tv_sec = 10 };
	int lfd, peer, status, ret = 0;
	char buf[8];
	pid_t pid;

	lfd = listen_in(ns, PEER_ADDR);
	if (lfd < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(lfd);
		return -1;
	}
	if (!pid)
		_exit(send_as(who, id, iov, want));
	peer = accept(lfd, NULL, NULL);
	close(lfd);
	if (peer >= 0 &&
	    !setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		if (allowed && peer_check(peer, iov, 1))
			ret = -1;
		if (recv(peer, buf, sizeof(buf), MSG_WAITALL) != 3 ||
		    memcmp(buf, "end", 3))
			ret = -1;
	} else {
		ret = -1;
	}
	if (peer >= 0)
		close(peer);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	if (WEXITSTATUS(status)) {
		TH_LOG("sender %d: status %d", who, WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	return ret;
}

/*
 * Only the binding's creator, or CAP_NET_ADMIN over the device's
 * namespace, sends from a binding: another uid on its own connection
 * through the same device gets EINVAL, as for an unknown id, and not a
 * byte of the dmabuf reaches the peer (it reads "end" and then the end of
 * the stream). Before, any local user could send from any binding.
 */
TEST_F(tx, other_uid_cannot_send_from_the_binding)
{
	struct iovec iov[] = { IOV(100, 5000) };

	EXPECT_EQ(0, sender_check(_metadata, self->env.ns, self->id,
				  OTHER_UID, iov, false));
	/* the creator still can */
	ASSERT_EQ(5000, devmem_sendmsg(self->fd, self->id, 4, iov, 1,
				       MSG_ZEROCOPY));
	EXPECT_EQ(0, peer_check(self->peer, iov, 1));
}

/* the creator's uid, but sending from another network namespace */
TEST_F(tx, same_uid_in_another_netns_cannot_send)
{
	struct iovec iov[] = { IOV(4096, 2000) };

	EXPECT_EQ(0, sender_check(_metadata, self->env.ns, self->id,
				  SAME_UID_OTHER_NETNS, iov, false));
}

/* the creator's uid in the creator's namespace needs no capability */
TEST_F(tx, creator_uid_without_capabilities_may_send)
{
	struct iovec iov[] = { IOV(8192, 3000) };

	EXPECT_EQ(0, sender_check(_metadata, self->env.ns, self->id,
				  SAME_UID_NO_CAPS, iov, true));
}

/* CAP_NET_ADMIN over the device's namespace sends from any binding */
TEST_F(tx, cap_net_admin_may_send_from_any_binding)
{
	struct iovec iov[] = { IOV(12345, 4000) };

	EXPECT_EQ(0, sender_check(_metadata, self->env.ns, self->id,
				  OTHER_UID_NET_ADMIN, iov, true));
}

TEST_F(tx, rejects_send_without_msg_zerocopy)
{
	struct iovec iov[] = { IOV(0, 100) };

	EXPECT_EQ(-EINVAL, devmem_sendmsg(self->fd, self->id, 4, iov, 1, 0));
}

TEST_F(tx, rejects_socket_without_so_zerocopy)
{
	struct iovec iov[] = { IOV(0, 100) };
	int zero = 0;

	ASSERT_EQ(0, setsockopt(self->fd, SOL_SOCKET, SO_ZEROCOPY, &zero,
				sizeof(zero)));
	EXPECT_EQ(-EINVAL, devmem_sendmsg(self->fd, self->id, 4, iov, 1,
					  MSG_ZEROCOPY));
}

TEST_F(tx, rejects_unknown_binding_id)
{
	struct iovec iov[] = { IOV(0, 100) };

	EXPECT_EQ(-EINVAL, devmem_sendmsg(self->fd, self->id + 1000, 4, iov, 1,
					  MSG_ZEROCOPY));
	EXPECT_EQ(-EINVAL, devmem_sendmsg(self->fd, 0xffffffff, 4, iov, 1,
					  MSG_ZEROCOPY));
}

TEST_F(tx, rejects_rx_binding_id)
{
	struct devmem_queue q = { 1, UP_NETDEV_QUEUE_TYPE_RX };
	struct iovec iov[] = { IOV(0, 100) };
	uint32_t rx_id = 0;
	int rx_dmabuf;

	rx_dmabuf = udmabuf_alloc(1 << 20, NULL);
	ASSERT_GE(rx_dmabuf, 0);
	ASSERT_EQ(0, devmem_bind_rx(&self->nl, self->env.ifindex, rx_dmabuf,
				    &q, 1, &rx_id));
	EXPECT_EQ(-EINVAL, devmem_sendmsg(self->fd, rx_id, 4, iov, 1,
					  MSG_ZEROCOPY));
	close(rx_dmabuf);
}

TEST_F(tx, rejects_cmsg_of_wrong_length)
{
	struct iovec iov[] = { IOV(0, 100) };

	EXPECT_EQ(-EINVAL, devmem_sendmsg(self->fd, self->id, 8, iov, 1,
					  MSG_ZEROCOPY));
	EXPECT_EQ(-EINVAL, devmem_sendmsg(self->fd, self->id, 2, iov, 1,
					  MSG_ZEROCOPY));
}

TEST_F(tx, rejects_ranges_past_the_dmabuf)
{
	struct iovec at_end[] = { IOV(DMABUF_SIZE, 1) };
	struct iovec across[] = { IOV(0, 10), IOV(DMABUF_SIZE - 10, 11) };
	struct iovec far[] = { IOV(~0UL - 4096, 100) };

	EXPECT_EQ(-EFAULT, devmem_sendmsg(self->fd, self->id, 4, at_end, 1,
					  MSG_ZEROCOPY));
	EXPECT_EQ(-EFAULT, devmem_sendmsg(self->fd, self->id, 4, across, 2,
					  MSG_ZEROCOPY));
	EXPECT_EQ(-EFAULT, devmem_sendmsg(self->fd, self->id, 4, far, 1,
					  MSG_ZEROCOPY));
	/* nothing of the refused sends went out: the next one is intact */
	EXPECT_EQ(10, devmem_sendmsg(self->fd, self->id, 4, across, 1,
				     MSG_ZEROCOPY));
	EXPECT_EQ(0, peer_check(self->peer, across, 1));
}

/* the connection leaves through loopback, not the binding's device */
TEST_F(tx, rejects_route_through_another_device)
{
	struct iovec iov[] = { IOV(0, 100) };
	int fd, peer = -1, one = 1;

	fd = connect_to_peer(NULL, "127.0.0.1", &peer);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one,
				sizeof(one)));
	EXPECT_EQ(-ENODEV, devmem_sendmsg(fd, self->id, 4, iov, 1,
					  MSG_ZEROCOPY));
	close(fd);
	close(peer);
}

/*
 * A connection that IPsec protects (ESP in transport mode): the CPU would
 * have to encrypt the payload, which is device memory it cannot read.
 * The send is refused with EOPNOTSUPP, nothing is queued, and the same
 * socket still sends from host memory, encrypted, to the peer. ESP and
 * AES-GCM load as modules on first use: 16 s under TCG, more on a loaded
 * machine, past the harness's default 30 s.
 */
TEST_F_TIMEOUT(tx, rejects_route_through_ipsec, 120)
{
	struct iovec iov[] = { IOV(0, 4096) };
	const char *ns = self->env.ns;
	int fd, peer = -1, one = 1;
	char buf[16];

	if (run("ip " ESP_SA " 2>/dev/null", HOST_ADDR, PEER_ADDR, "0x5251"))
		SKIP(return, "no ESP (CONFIG_XFRM_USER, CONFIG_INET_ESP, CONFIG_CRYPTO_GCM)");
	esp_flush("");
	EXPECT_EQ(0, esp_transport("", HOST_ADDR, PEER_ADDR, "0x5252", "0x5251",
				   "", ""));
	EXPECT_EQ(0, esp_transport(ns, PEER_ADDR, HOST_ADDR, "0x5251", "0x5252",
				   "", ""));

	fd = connect_to_peer(ns, PEER_ADDR, &peer);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one,
				sizeof(one)));
	EXPECT_EQ(-EOPNOTSUPP, devmem_sendmsg(fd, self->id, 4, iov, 1,
					      MSG_ZEROCOPY));
	EXPECT_EQ(5, send(fd, "plain", 5, 0));
	EXPECT_EQ(5, recv(peer, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "plain", 5));
	/* the peer's inbound SA decrypted it */
	EXPECT_EQ(0, run("ip -n %s -s xfrm state get src %s dst %s %s", ns,
			 HOST_ADDR, PEER_ADDR,
			 "proto esp spi 0x5251 | grep -q ' [1-9][0-9]*(packets)'"));
	close(fd);
	close(peer);
	esp_flush("");
	esp_flush(ns);
}

/*
 * A route reset while connected (here by a new IP_TOS, as an expired
 * redirect or negative advice would reset it) is looked up again for a
 * send from device memory, as the next transmit of any send does: the
 * send goes out. It used to fail with EHOSTUNREACH.
 */
TEST_F(tx, route_reset_while_connected_is_looked_up_again)
{
	struct iovec iov[] = { IOV(300, 3000) };
	int tos = 0x10;

	ASSERT_EQ(0, setsockopt(self->fd, IPPROTO_IP, IP_TOS, &tos,
				sizeof(tos)));
	ASSERT_EQ(3000, devmem_sendmsg(self->fd, self->id, 4, iov, 1,
				       MSG_ZEROCOPY));
	EXPECT_EQ(0, peer_check(self->peer, iov, 1));
	EXPECT_EQ(0, reap(self->fd, 1));
}

/*
 * A route change while connected leaves the cached route in place but
 * stale: the next transmit looks it up again. A route to the peer
 * through loopback, more specific than the binding device's: the send
 * from device memory is refused with ENODEV, as on a connection made
 * through another device, and nothing of it goes out; with the route
 * gone, the next send leaves through the binding's device, intact. The
 * stale route used to pass the check and the send was accepted, its
 * segments dropped at the other device.
 */
TEST_F(tx, route_changed_while_connected_is_checked_again)
{
	struct iovec first[] = { IOV(0, 1000) }, next[] = { IOV(5000, 700) };
	int ret;

	ASSERT_EQ(1000, devmem_sendmsg(self->fd, self->id, 4, first, 1,
				       MSG_ZEROCOPY));
	ASSERT_EQ(0, peer_check(self->peer, first, 1));
	ASSERT_EQ(0, run("ip route add %s/32 dev lo", PEER_ADDR));
	ret = devmem_sendmsg(self->fd, self->id, 4, next, 1, MSG_ZEROCOPY);
	EXPECT_EQ(0, run("ip route del %s/32 dev lo", PEER_ADDR));
	EXPECT_EQ(-ENODEV, ret);
	EXPECT_EQ(700, devmem_sendmsg(self->fd, self->id, 4, next, 1,
				      MSG_ZEROCOPY));
	EXPECT_EQ(0, peer_check(self->peer, next, 1));
	EXPECT_EQ(0, reap(self->fd, 2));
}

/*
 * A connection taken down with connect(AF_UNSPEC), which drops its
 * route: a send from device memory fails as a plain send on another
 * connection taken down the same way, not with a routing error.
 */
TEST_F(tx, send_after_disconnect_fails_as_a_plain_send)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct iovec iov[] = { IOV(0, 100) };
	int fd, peer = -1, plain, dm;

	fd = connect_to_peer(self->env.ns, PEER_ADDR, &peer);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, connect(fd, &unspec, sizeof(unspec)));
	ASSERT_EQ(0, connect(self->fd, &unspec, sizeof(unspec)));
	plain = send(fd, "plain", 5, MSG_NOSIGNAL) < 0 ? -errno : 0;
	dm = devmem_sendmsg(self->fd, self->id, 4, iov, 1,
			    MSG_ZEROCOPY | MSG_NOSIGNAL);
	TH_LOG("plain send: %s, device memory send: %s", strerror(-plain),
	       strerror(-dm));
	EXPECT_GT(0, plain);
	EXPECT_EQ(plain, dm);
	close(fd);
	close(peer);
}

/*
 * The binding's device moves to another netns and back. A move sends
 * NETDEV_UNREGISTER, but the device stays registered and the binding
 * keeps it: while the device is away a send from the binding fails, and
 * once it is back with its address, a new connection sends from the
 * binding again, intact. The binding used to forget its device on the
 * move and refuse every send after it with ENODEV.
 */
TEST_F(tx, binding_sends_again_after_a_netns_move_and_back)
{
	struct iovec iov[] = { IOV(2000, 3000) };
	int fd, home, peer = -1, one = 1, ret;
	char away[40];

	snprintf(away, sizeof(away), "%s-away", self->env.ns);
	ASSERT_EQ(0, netns_add(away));
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, home);
	ASSERT_EQ(0, link_set_netns(self->env.ifindex, away));
	ret = devmem_sendmsg(self->fd, self->id, 4, iov, 1,
			     MSG_ZEROCOPY | MSG_NOSIGNAL);
	TH_LOG("send while the device is away: %s", strerror(-ret));
	EXPECT_GT(0, ret);
	ASSERT_EQ(0, link_set_netns_fd(away, self->env.ifindex, home));
	close(home);
	EXPECT_EQ(0, netns_del(away));
	ASSERT_EQ(self->env.ifindex, (int)if_nametoindex(self->env.ifname));
	/* a move is no unregister: the dmabuf stayed mapped for the device */
	EXPECT_EQ(1, dmabuf_attachments(self->dmabuf));
	ASSERT_EQ(0, addr_add(NULL, self->env.ifindex, HOST_ADDR, 24));
	ASSERT_EQ(0, link_set_up(NULL, self->env.ifindex));

	fd = connect_to_peer(self->env.ns, PEER_ADDR, &peer);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one,
				sizeof(one)));
	ASSERT_EQ(3000, devmem_sendmsg(fd, self->id, 4, iov, 1, MSG_ZEROCOPY));
	EXPECT_EQ(0, peer_check(peer, iov, 1));
	EXPECT_EQ(0, reap(fd, 1));
	close(fd);
	close(peer);
}

/*
 * The device is deleted while sends from the binding are still queued and
 * unacknowledged (the peer reads nothing) and the binding's netlink socket
 * is open. The dmabuf is unmapped for the device at its unregister, while
 * its DMA device still exists, not when the skbs and the socket go: it is
 * no longer attached to anything. Later sends fail; the queued skbs are
 * freed with the socket, and then the binding.
 * Before, the mapping lived on until the socket closed and every skb was
 * freed, long after the device (a removed PCI function) was gone.
 */
TEST_F(tx, device_deleted_with_sends_unacked_unmaps_at_once)
{
	const struct linger abort_close = { .l_onoff = 1, .l_linger = 0 };
	struct iovec iov[] = { IOV(0, 256 << 10) };
	size_t queued = 0;
	ssize_t ret;
	long refs;
	int i;

	EXPECT_EQ(1, dmabuf_attachments(self->dmabuf));
	refs = dmabuf_refs(self->dmabuf);	/* the binding's is one */
	for (i = 0; i < 64; i++) {
		ret = devmem_sendmsg(self->fd, self->id, 4, iov, 1,
				     MSG_ZEROCOPY | MSG_DONTWAIT);
		if (ret <= 0)
			break;
		queued += ret;
	}
	TH_LOG("%zu bytes queued, the peer reads none", queued);
	ASSERT_LT(0, queued);

	ASSERT_EQ(0, hdsim_del(self->env.dev_id));
	self->env.dev_gone = true;
	EXPECT_EQ(0, dmabuf_attachments(self->dmabuf));
	EXPECT_GT(0, devmem_sendmsg(self->fd, self->id, 4, iov, 1,
				    MSG_ZEROCOPY | MSG_DONTWAIT | MSG_NOSIGNAL));

	/* the binding holds the dmabuf until the skbs are gone: an abortive
	 * close frees them at once (a plain one leaves them to the orphaned
	 * socket's retransmits)
	 */
	ASSERT_EQ(0, setsockopt(self->fd, SOL_SOCKET, SO_LINGER, &abort_close,
				sizeof(abort_close)));
	close(self->fd);
	self->fd = -1;
	close(self->peer);
	self->peer = -1;
	devmem_nl_close(&self->nl);
	EXPECT_EQ(refs - 1, wait_dmabuf_refs(self->dmabuf, refs - 1));
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

/*
 * FAKE_ADDR is local only to what comes in on the device (a rule and a
 * table of its own): a connection to it leaves through the device, and tc
 * on the device's egress redirects every frame to its own ingress, where
 * it is delivered here. Frames keep the skb they were sent in.
 */
#ifndef MSG_SOCK_DEVMEM
#define MSG_SOCK_DEVMEM	0x2000000
#endif
#define FAKE_ADDR	"192.0.2.3"
#define FAKE_TABLE	77

static void fake_local_undo(const char *ifname)
{
	run("tc qdisc del dev %s clsact 2>/dev/null", ifname);
	run("ip rule del iif %s lookup %d pref %d 2>/dev/null", ifname,
	    FAKE_TABLE, FAKE_TABLE);
	run("ip route flush table %d 2>/dev/null", FAKE_TABLE);
}

static int fake_local_setup(const char *ifname)
{
	fake_local_undo(ifname);
	if (run("ip neigh replace %s lladdr 02:00:00:00:00:03 dev %s nud permanent",
		FAKE_ADDR, ifname) ||
	    run("ip route add local %s dev %s table %d", FAKE_ADDR, ifname,
		FAKE_TABLE) ||
	    run("ip rule add iif %s lookup %d pref %d", ifname, FAKE_TABLE,
		FAKE_TABLE) ||
	    run("sysctl -qw net.ipv4.conf.%s.accept_local=1 net.ipv4.conf.%s.rp_filter=0",
		ifname, ifname) ||
	    run("tc qdisc add dev %s clsact", ifname))
		return -1;
	return run("tc filter add dev %s egress matchall action mirred ingress redirect dev %s",
		   ifname, ifname);
}

/*
 * A send from the binding that tc redirects to the device's own ingress
 * (issue 57, item 15: could a local socket receive the binding's TX
 * net_iovs, and hand them out as devmem tokens?). Every devmem send is a
 * MSG_ZEROCOPY skb, and the receive path copies the frags of such an skb
 * before any protocol sees it (skb_orphan_frags_rx()), which device
 * memory refuses: the frames are dropped at the device (rx_dropped), and
 * no byte, token or error reaches the socket. tcp_recvmsg_dmabuf()'s
 * check that a net_iov has a page pool stays as a second line. Host
 * memory sent on the same connection first arrives: the path works.
 */
TEST_F_TIMEOUT(tx, tx_net_iov_redirected_to_ingress_never_reaches_a_socket, 120)
{
	char ctrl[CMSG_SPACE(sizeof(struct dmabuf_cmsg)) * 8];
	const struct linger abort_close = { .l_onoff = 1 };
	const struct timeval timeout = { .tv_sec = 10 };
	struct sockaddr_in sa = peer_sa(FAKE_ADDR);
	const char *ifname = self->env.ifname;
	struct iovec iov[] = { IOV(0, 8192) };
	int lfd, fd, rfd, one = 1, inq = 0, i;
	long dropped_before, dropped;
	char stat[128], buf[4096];
	struct msghdr msg = {};
	struct iovec riov;
	ssize_t r;

	snprintf(stat, sizeof(stat), "/sys/class/net/%s/statistics/rx_dropped",
		 ifname);
	if (run("ip rule list > /dev/null 2>&1"))
		SKIP(return, "no policy routing (CONFIG_IP_MULTIPLE_TABLES)");
	ASSERT_EQ(0, fake_local_setup(ifname));
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, lfd);
	/* a foreign address: bound, and answered from, as tproxy does */
	ASSERT_EQ(0, setsockopt(lfd, SOL_IP, IP_TRANSPARENT, &one,
				sizeof(one)));
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, listen(lfd, 1));
	fd = connect_zerocopy(FAKE_ADDR);
	ASSERT_LE(0, fd);
	rfd = accept(lfd, NULL, NULL);
	ASSERT_LE(0, rfd);
	close(lfd);

	ASSERT_EQ(0, setsockopt(rfd, SOL_SOCKET, SO_RCVTIMEO, &timeout,
				sizeof(timeout)));
	ASSERT_EQ(100, send(fd, self->map, 100, 0));
	ASSERT_EQ(100, recv(rfd, buf, 100, MSG_WAITALL));
	EXPECT_EQ(0, memcmp(buf, self->map, 100));

	dropped_before = file_read_long(stat);
	ASSERT_EQ(8192, devmem_sendmsg(fd, self->id, 4, iov, 1, MSG_ZEROCOPY));
	/* the first transmission and a retransmission or two */
	for (i = 0; i < 100 && !inq; i++) {
		usleep(20000);
		ASSERT_EQ(0, ioctl(rfd, SIOCINQ, &inq));
	}
	dropped = file_read_long(stat) - dropped_before;
	TH_LOG("%ld frames dropped at %s", dropped, ifname);
	EXPECT_EQ(0, inq);
	EXPECT_GE(dropped, 1);

	riov.iov_base = buf;
	riov.iov_len = sizeof(buf);
	msg.msg_iov = &riov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctrl;
	msg.msg_controllen = sizeof(ctrl);
	r = recvmsg(rfd, &msg, MSG_SOCK_DEVMEM | MSG_DONTWAIT);
	EXPECT_EQ(-1, r);
	EXPECT_EQ(EAGAIN, errno);

	/* the unacked send goes with the sender's socket */
	close(rfd);
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_close,
				sizeof(abort_close)));
	close(fd);
	fake_local_undo(ifname);
}

TEST_HARNESS_MAIN
