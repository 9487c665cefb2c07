// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's readers of a devmem socket's data other than recvmsg():
 * urgent data, sockmap's verdict and parser programs, splice(), kTLS and
 * MPTCP, fed by a remote peer. Each either leaves device memory to
 * recvmsg(MSG_SOCK_DEVMEM) or fails the reader with EFAULT; none copies
 * stale bytes, hangs or crashes. See peer_lib.h for the environment.
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
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/tls.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_traffic.h"
#include "peer_lib.h"
#include "peer_fixture.h"

#define PORT_MPTCP		5402

#define URG_BEFORE		(256 << 10)	/* stream before the urgent byte */
#define URG_AFTER		(16 << 10)	/* and after it */

#define GATED_LEN		(256 << 10)	/* sockmap and splice streams */

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP		262
#endif
#ifndef SOL_TLS
#define SOL_TLS			282
#endif

/* the control buffer of the devmem reads below */
static char ctrl[80000];

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
 * The two tests below need options that are modules in a distribution's
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

TEST_HARNESS_MAIN
