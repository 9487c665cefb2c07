// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input at the devmem TCP boundary, generated: random and mutated
 * netdev netlink messages, random SO_DEVMEM_DONTNEED arrays checked
 * against an exact model of the socket's tokens, and recvmsg() with random
 * control buffer and iovec sizes on a validated stream. The kernel must
 * answer every call with a documented errno, lose no byte and free no
 * token it did not hand out. Counts are bounded (FUZZ_NL_MSGS, default
 * 100000) and the seed is printed (FUZZ_SEED to replay).
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "devmem_traffic.h"

#define ETOOSMALL		525	/* kernel-internal errno, as upstream */
#define DMABUF_SIZE		(16 << 20)
#define RX_ADDR			"192.0.5.1"
#define TX_ADDR			"192.0.5.2"
#define PORT			5500
#define MAX_TOKEN		65536

static unsigned int seed;

FIXTURE(fuzz)
{
	struct devmem_env env;
};

FIXTURE_SETUP(fuzz)
{
	const struct devmem_env_cfg cfg = {
		.name = "fuzz",
		.dev_id = 33,
		.rx_addr = RX_ADDR,
		.tx_addr = TX_ADDR,
		.rss_queues = 2,
		.steer_port = PORT,
		.steer_queue = 3,
		.dmabuf_size = DMABUF_SIZE,
		.listen_port = PORT,
	};

	if (!devmem_env_available())
		SETUP_SKIP("no hdsim driver (CONFIG_HDSIM)");
	seed = env_uint("FUZZ_SEED", time(NULL));
	srandom(seed);
	TH_LOG("seed %u (FUZZ_SEED=%u to replay)", seed, seed);
	ASSERT_EQ(0, devmem_env_setup(&self->env, &cfg));
}

FIXTURE_TEARDOWN(fuzz)
{
	EXPECT_EQ(0, devmem_env_teardown(&self->env));
}

/* Netlink */

struct nl_fuzz {
	int fd;
	uint16_t family;
	uint32_t seq;
	int ifindex;
	int dmabuf;
	unsigned long errnos[256];	/* replies by errno (0: success) */
	unsigned long sent;
	unsigned long no_reply;
};

static int nl_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, one = 1;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Send @nlh, read until its ACK, error or end of dump; record the errno. */
static int nl_exchange(struct nl_fuzz *f, struct nlmsghdr *nlh)
{
	static char buf[65536];
	struct pollfd pfd = { .fd = f->fd, .events = POLLIN };
	uint32_t seq = nlh->nlmsg_seq;
	struct nlmsghdr *r;
	int len;

	if (send(f->fd, nlh, nlh->nlmsg_len, 0) < 0)
		return -errno;
	f->sent++;
	for (;;) {
		if (poll(&pfd, 1, 5000) != 1) {
			f->no_reply++;
			return 0;
		}
		len = recv(f->fd, buf, sizeof(buf), 0);
		if (len < 0)
			return -errno;
		for (r = (void *)buf; NLMSG_OK(r, len); r = NLMSG_NEXT(r, len)) {
			if (r->nlmsg_seq != seq)
				continue;
			if (r->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(r);
				int err = -e->error;

				f->errnos[err >= 0 && err < 256 ? err : 255]++;
				return 0;
			}
			if (r->nlmsg_type == NLMSG_DONE) {
				f->errnos[0]++;
				return 0;
			}
		}
	}
}

static uint32_t pick_u32(const struct nl_fuzz *f)
{
	switch (random() % 8) {
	case 0: return 0;
	case 1: return f->ifindex;
	case 2: return f->dmabuf;
	case 3: return random() % 8;
	case 4: return UINT32_MAX;
	case 5: return f->fd;
	default: return random();
	}
}

static void put_random_attrs(struct nlmsghdr *nlh, const struct nl_fuzz *f,
			     int depth)
{
	int i, n = random() % 6;

	for (i = 0; i < n; i++) {
		uint16_t type = random() % 8;
		uint8_t junk[16];
		int j;

		switch (random() % 4) {
		case 0:
			if (depth < 2) {
				struct nlattr *nest;

				nest = mnl_attr_nest_start(nlh, type);
				put_random_attrs(nlh, f, depth + 1);
				mnl_attr_nest_end(nlh, nest);
			} else {
				mnl_attr_put_u32(nlh, type, pick_u32(f));
			}
			break;
		case 1:
			mnl_attr_put_u32(nlh, type, pick_u32(f));
			break;
		default:
			for (j = 0; j < (int)sizeof(junk); j++)
				junk[j] = random();
			mnl_attr_put(nlh, type | (random() % 8 ? 0 : NLA_F_NESTED),
				     random() % sizeof(junk), junk);
		}
	}
}

/* A bind-rx request that is right, or close to right. */
static void put_bind_rx(struct nlmsghdr *nlh, const struct nl_fuzz *f,
			bool exact)
{
	int i, nq = exact ? 1 : random() % 4;
	struct nlattr *nest;

	if (exact || random() % 4)
		mnl_attr_put_u32(nlh, UP_NETDEV_A_DMABUF_IFINDEX,
				 exact ? f->ifindex : pick_u32(f));
	if (exact || random() % 4)
		mnl_attr_put_u32(nlh, UP_NETDEV_A_DMABUF_FD,
				 exact ? f->dmabuf : pick_u32(f));
	for (i = 0; i < nq; i++) {
		nest = mnl_attr_nest_start(nlh, UP_NETDEV_A_DMABUF_QUEUES);
		if (exact || random() % 4)
			mnl_attr_put_u32(nlh, UP_NETDEV_A_QUEUE_ID,
					 exact ? 2 + random() % 2 : random() % 6);
		if (exact || random() % 4)
			mnl_attr_put_u32(nlh, UP_NETDEV_A_QUEUE_TYPE,
					 exact ? 0 : random() % 4);
		if (!exact && !(random() % 4))
			put_random_attrs(nlh, f, 1);
		mnl_attr_nest_end(nlh, nest);
	}
}

static void fuzz_one(struct nl_fuzz *f)
{
	static const uint8_t cmds[] = { 1, 5, 10, 13, 13, 13 };
	static char buf[8192];
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;
	unsigned int hdr, i;
	int mode = random() % 4;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = f->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (!(random() % 5))
		nlh->nlmsg_flags |= NLM_F_DUMP;
	nlh->nlmsg_seq = ++f->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = random() % 4 ? cmds[random() % sizeof(cmds)] : random();
	genl->version = random() % 8 ? 1 : random();
	hdr = nlh->nlmsg_len;

	switch (mode) {
	case 0:
		put_random_attrs(nlh, f, 0);
		break;
	case 1:
		put_bind_rx(nlh, f, false);
		break;
	default:
		/* a valid bind-rx, then bytes flipped or the tail cut */
		genl->cmd = UP_NETDEV_CMD_BIND_RX;
		put_bind_rx(nlh, f, true);
		if (mode == 2) {
			for (i = 0; i < 1 + random() % 3; i++)
				((uint8_t *)nlh)[hdr + random() %
						 (nlh->nlmsg_len - hdr)] = random();
		} else {
			nlh->nlmsg_len = hdr + random() % (nlh->nlmsg_len - hdr + 1);
		}
	}
	nl_exchange(f, nlh);
}

/* The errnos the netdev family documents for bad requests. */
static bool documented(int err)
{
	switch (err) {
	case 0: case EINVAL: case ERANGE: case EOPNOTSUPP: case ENODEV:
	case ENOENT: case EBUSY: case EEXIST: case EBADF: case EMSGSIZE:
		return true;
	}
	return false;
}

TEST_F_TIMEOUT(fuzz, netdev_netlink_random_and_mutated_messages, 1800)
{
	unsigned long want = env_uint("FUZZ_NL_MSGS", 100000), other = 0;
	struct nl_fuzz f = {
		.family = self->env.nl.netdev_family,
		.ifindex = self->env.ifindex,
		.dmabuf = self->env.dmabuf,
	};
	int e;

	f.fd = nl_socket();
	ASSERT_GE(f.fd, 0);
	while (f.sent < want) {
		fuzz_one(&f);
		/* closing the socket drops what it bound: start over */
		if (!(f.sent % 500)) {
			close(f.fd);
			f.fd = nl_socket();
			ASSERT_GE(f.fd, 0);
		}
	}
	close(f.fd);

	for (e = 0; e < 256; e++) {
		if (!f.errnos[e])
			continue;
		TH_LOG("%-12s %lu", e ? strerror(e) : "ok", f.errnos[e]);
		if (!documented(e))
			other += f.errnos[e];
	}
	TH_LOG("%lu messages sent, %lu without a reply", f.sent, f.no_reply);
	EXPECT_EQ(0, other);
	EXPECT_EQ(0, f.no_reply);
	EXPECT_GE(f.sent, want);
	/* the fuzz bound queues; every binding went with its socket */
	EXPECT_EQ(0, devmem_wait_bindings(0, 10000));
}

/* Receive-side fuzz: random sizes, random DONTNEED arrays */

struct token_model {
	uint8_t held[MAX_TOKEN];	/* 1: handed out, not given back */
	unsigned long held_count;
	unsigned long calls;
	unsigned long freed;
	unsigned long einval;
	unsigned long efault;
};

static void model_take(struct token_model *m, uint32_t token)
{
	if (token < MAX_TOKEN && !m->held[token]) {
		m->held[token] = 1;
		m->held_count++;
	}
}

/*
 * SO_DEVMEM_DONTNEED with @n ranges in @len bytes at @ptr, and what the
 * kernel must answer: EINVAL for a length below an int, not a whole number
 * of ranges or above 128 ranges, EFAULT for a bad pointer, else the number
 * of held tokens in the first 1024 tokens' worth of ranges, each freed
 * once.
 */
static void dontneed_check(int fd, struct token_model *m, const void *ptr,
			   const struct dmabuf_token *t, unsigned int n,
			   unsigned int len, struct __test_metadata *_metadata)
{
	unsigned int i, seen = 0;
	int want = 0, got;
	uint64_t tok;

	m->calls++;
	got = setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, ptr, len);
	/* as upstream, the socket layer reads an int before the option */
	if (len < sizeof(int) ||
	    (ptr == t && (len % sizeof(t[0]) || n > 128))) {
		EXPECT_EQ(-1, got);
		EXPECT_EQ(EINVAL, errno);
		m->einval++;
		return;
	}
	if (ptr != t) {
		EXPECT_EQ(-1, got);
		EXPECT_EQ(EFAULT, errno);
		m->efault++;
		return;
	}
	for (i = 0; i < n; i++) {
		uint32_t count = t[i].token_count;

		if (count > 1024 - seen)
			count = 1024 - seen;
		seen += count;
		for (tok = t[i].token_start;
		     tok < (uint64_t)t[i].token_start + count && tok < MAX_TOKEN;
		     tok++) {
			if (m->held[tok]) {
				m->held[tok] = 0;
				m->held_count--;
				want++;
			}
		}
	}
	EXPECT_EQ(want, got);
	if (got > 0)
		m->freed += got;
}

/* A random array: sizes, ranges, wrapping counts, bad pointers. */
static void dontneed_fuzz(int fd, struct token_model *m,
			  struct __test_metadata *_metadata)
{
	struct dmabuf_token t[160];
	unsigned int n, len, i;
	const void *ptr = t;

	n = random() % 140;
	len = n * sizeof(t[0]);
	if (!(random() % 10))
		len += 1 + random() % 7;
	for (i = 0; i < n; i++) {
		t[i].token_start = random() % 3 ? random() % 4096 : random();
		t[i].token_count = random() % 3 ? random() % 64 : random();
	}
	if (len && !(random() % 20))
		ptr = (void *)8;
	dontneed_check(fd, m, ptr, t, n, len, _metadata);
}

/* Give everything back, 1024 tokens per call, checked the same way. */
static void dontneed_sweep(int fd, struct token_model *m,
			   struct __test_metadata *_metadata)
{
	struct dmabuf_token t;

	for (t.token_start = 0; m->held_count && t.token_start < MAX_TOKEN;
	     t.token_start += 1024) {
		t.token_count = 1024;
		dontneed_check(fd, m, &t, &t, 1, sizeof(t), _metadata);
	}
}

TEST_F_TIMEOUT(fuzz, recvmsg_sizes_and_dontneed_arrays, 600)
{
	struct stream st = { .map_size = DMABUF_SIZE };
	size_t bytes = 16 << 20, toosmall = 0, calls = 0;
	static struct token_model m;
	static uint8_t iov_buf[256 << 10];
	static char ctrl[16384];
	pid_t pid;
	int fd;

	ASSERT_EQ(0, devmem_bind_rx(&self->env.nl, self->env.ifindex, self->env.dmabuf,
				    &(struct devmem_queue){ 3, 0 }, 1,
				    &(uint32_t){ 0 }));
	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);

	while (st.bytes < bytes) {
		struct iovec iov = { iov_buf, 1 + random() % sizeof(iov_buf) };
		struct msghdr msg = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = ctrl,
			.msg_controllen = random() % 3 ? random() % 2048 :
					  random() % 64,
		};
		struct cmsghdr *cm;
		bool cmsgs = false;
		ssize_t ret;

		ret = recvmsg(fd, &msg, MSG_SOCK_DEVMEM);
		calls++;
		if (ret < 0) {
			ASSERT_EQ(ETOOSMALL, errno);
			toosmall++;
			continue;
		}
		ASSERT_GT(ret, 0);
		EXPECT_EQ(0, msg.msg_flags & MSG_CTRUNC);
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			struct dmabuf_cmsg *dc = (void *)CMSG_DATA(cm);

			cmsgs = true;
			if (cm->cmsg_type == SCM_DEVMEM_DMABUF) {
				ASSERT_LT(dc->frag_token, MAX_TOKEN);
				model_take(&m, dc->frag_token);
			} else {
				ASSERT_EQ(SCM_DEVMEM_LINEAR, cm->cmsg_type);
			}
			stream_frag(&st, cm, self->env.map, iov_buf);
		}
		if (!cmsgs) {
			/* plain data from host memory */
			st.errors += check_pattern(iov_buf, ret, st.bytes);
			st.bytes += ret;
		}
		/* random DONTNEED calls after most reads */
		while (random() % 4)
			dontneed_fuzz(fd, &m, _metadata);
		/* keep the queue in buffers: sweep when a quarter is held */
		if (m.held_count > DMABUF_SIZE / 4096 / 4)
			dontneed_sweep(fd, &m, _metadata);
	}
	dontneed_sweep(fd, &m, _metadata);
	EXPECT_EQ(0, m.held_count);
	EXPECT_EQ(bytes, st.bytes);
	EXPECT_EQ(0, st.errors);
	TH_LOG("%zu recvmsg calls, %zu of them ETOOSMALL", calls, toosmall);
	TH_LOG("%lu DONTNEED calls: %lu tokens freed, %lu EINVAL, %lu EFAULT",
	       m.calls, m.freed, m.einval, m.efault);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

TEST_HARNESS_MAIN
