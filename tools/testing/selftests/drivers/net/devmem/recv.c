// SPDX-License-Identifier: GPL-2.0
/*
 * recvmsg(MSG_SOCK_DEVMEM) and SO_DEVMEM_DONTNEED: semantics and bad
 * input, on an hdsim port whose queue 3 is bound to a udmabuf. The sender
 * runs in a network namespace on the peer port.
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1

#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <linux/devmem_stats.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "devmem_traffic.h"
#include "netcfg.h"

#define ETOOSMALL		525	/* kernel-internal errno, as upstream */

#define DMABUF_SIZE		(16 << 20)
#define BOUND_QUEUE		3
#define PORT_DEVMEM		5300
#define PORT_HOST		5301
#define RX_ADDR			"192.0.3.1"
#define TX_ADDR			"192.0.3.2"

/* The receiving port, its queue 3 bound to a udmabuf of @dmabuf_size */
static int recv_env_setup(struct devmem_env *env, size_t dmabuf_size)
{
	return devmem_env_setup_queue(env, "recv", 31, RX_ADDR, TX_ADDR,
				      BOUND_QUEUE, PORT_DEVMEM, dmabuf_size);
}

FIXTURE(recv)
{
	struct devmem_env env;
};

FIXTURE_SETUP(recv)
{
	DEVMEM_ONLY_SKIP();
	if (!devmem_env_available())
		SETUP_SKIP("no hdsim driver (CONFIG_HDSIM)");
	ASSERT_EQ(0, recv_env_setup(&self->env, DMABUF_SIZE));
}

FIXTURE_TEARDOWN(recv)
{
	EXPECT_EQ(0, devmem_env_teardown(&self->env));
}

static char ctrl[80000];

/*
 * Read @bytes of the pattern from @fd with MSG_SOCK_DEVMEM: every frag in
 * @env's dmabuf at its offset, right, and its token given back.
 */
static void recv_devmem_all(struct __test_metadata *_metadata,
			    const struct devmem_env *env, int fd, size_t bytes)
{
	struct rx_result r;
	uint64_t bad = 0;
	size_t got = 0;
	int i;

	while (got < bytes) {
		devmem_recv(fd, bytes, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
		ASSERT_GT(r.ret, 0);
		EXPECT_EQ(0, r.nlinear);
		for (i = 0; i < r.ndmabuf; i++) {
			const struct dmabuf_cmsg *f = &r.frags[i];
			uint32_t k;

			EXPECT_EQ(env->binding, f->dmabuf_id);
			EXPECT_NE(0, f->frag_token);
			EXPECT_EQ(0, f->flags);
			for (k = 0; k < f->frag_size; k++)
				bad += env->map[f->frag_offset + k] !=
				       pattern_at(got + k);
			got += f->frag_size;
		}
		EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
	}
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(0, bad);
}

TEST_F(recv, frags_land_in_the_dmabuf_at_their_offsets)
{
	size_t bytes = 256 << 10;
	pid_t pid;
	int fd;

	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	recv_devmem_all(_metadata, &self->env, fd, bytes);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

TEST_F(recv, reader_without_flag_gets_efault)
{
	char buf[4096];
	pid_t pid;
	int fd;

	fd = devmem_env_stream(&self->env, 64 << 10, &pid);
	ASSERT_GE(fd, 0);
	wait_inq(fd, 1);
	EXPECT_EQ(-1, recv(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

/* The kernel's struct tcp_zerocopy_receive; glibc's has its first fields */
struct tcp_zc {
	uint64_t address;
	uint32_t length;
	uint32_t recv_skip_hint;
	uint32_t inq;
	int32_t err;
	uint64_t copybuf_address;
	int32_t copybuf_len;
	uint32_t flags;
	uint64_t msg_control;
	uint64_t msg_controllen;
	uint32_t msg_flags;
	uint32_t reserved;
};

/*
 * TCP_ZEROCOPY_RECEIVE maps no device memory into user space (upstream's
 * 6.12.113 "tcp: reject net_iov in zerocopy receive mapping hints"): a
 * net_iov has no page to insert. The getsockopt maps and consumes
 * nothing, its copy fallback fails as a plain read does (EFAULT), and the
 * stream then reads intact with MSG_SOCK_DEVMEM.
 */
TEST_F(recv, zerocopy_receive_maps_no_device_memory)
{
	size_t bytes = 256 << 10, map_len = 64 << 10;
	static char copybuf[256 << 10];
	struct tcp_zc zc = {};
	int fd, before, after;
	socklen_t len;
	void *addr;
	pid_t pid;

	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	wait_inq(fd, map_len);
	addr = mmap(NULL, map_len, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, addr);

	ASSERT_EQ(0, ioctl(fd, SIOCINQ, &before));
	zc.address = (uintptr_t)addr;
	zc.length = map_len;
	len = sizeof(zc);
	ASSERT_EQ(0, getsockopt(fd, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &zc,
				&len));
	EXPECT_EQ(0, zc.length);
	EXPECT_EQ(0, zc.err);
	/* nothing consumed: what was queued still is */
	ASSERT_EQ(0, ioctl(fd, SIOCINQ, &after));
	EXPECT_LE(before, after);

	memset(&zc, 0, sizeof(zc));
	zc.address = (uintptr_t)addr;
	zc.length = map_len;
	zc.copybuf_address = (uintptr_t)copybuf;
	zc.copybuf_len = sizeof(copybuf);
	len = sizeof(zc);
	EXPECT_EQ(-1, getsockopt(fd, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &zc,
				 &len));
	EXPECT_EQ(EFAULT, errno);
	munmap(addr, map_len);

	recv_devmem_all(_metadata, &self->env, fd, bytes);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

/*
 * A peek hands out the fragments with tokens of their own and leaves
 * the data queued, as upstream: the read that follows gets the same
 * fragments with other tokens, and both sets are given back.
 */
TEST_F(recv, peek_hands_out_tokens_and_leaves_the_data)
{
	struct rx_result peek, r;
	pid_t pid;
	int fd, i;

	fd = devmem_env_stream(&self->env, 64 << 10, &pid);
	ASSERT_GE(fd, 0);
	wait_inq(fd, 1);
	devmem_recv(fd, 4096, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM | MSG_PEEK,
		    &peek);
	ASSERT_GT(peek.ret, 0);
	ASSERT_GT(peek.ndmabuf, 0);

	devmem_recv(fd, peek.ret, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
	ASSERT_EQ(peek.ret, r.ret);
	ASSERT_EQ(peek.ndmabuf, r.ndmabuf);
	for (i = 0; i < r.ndmabuf; i++) {
		EXPECT_EQ(peek.frags[i].frag_offset, r.frags[i].frag_offset);
		EXPECT_EQ(peek.frags[i].frag_size, r.frags[i].frag_size);
		EXPECT_NE(peek.frags[i].frag_token, r.frags[i].frag_token);
	}
	EXPECT_EQ(pattern_at(0), self->env.map[r.frags[0].frag_offset]);
	EXPECT_EQ(peek.ndmabuf, dontneed_all(fd, &peek));
	EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
	/* given back once only */
	EXPECT_EQ(0, dontneed_all(fd, &peek));
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

/*
 * The token table is charged to the receiver's memory cgroup. A reader
 * in a cgroup of 1 MiB peeks the same data again and again, each peek
 * handing out new tokens: it is stopped at the cgroup's limit (ENOMEM,
 * or killed by the cgroup's OOM killer) before its table could hold
 * 512 Ki tokens, 4 MiB of slots, which an uncharged table reaches.
 */
TEST_F(recv, token_table_is_charged_to_the_memory_cgroup)
{
	const long most = 512 << 10;
	char cg[PATH_MAX], path[PATH_MAX + 32];
	struct rx_result r;
	int fd, status, err;
	long *tokens;
	pid_t pid, child;

	err = memcg_make("devmem_tokens", cg, sizeof(cg));
	if (err == -ENOENT || err == -EOPNOTSUPP)
		SKIP(return, "no cgroup2 memory controller");
	ASSERT_EQ(0, err);
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	ASSERT_EQ(0, write_file(path, "%d", 1 << 20));
	tokens = mmap(NULL, sizeof(*tokens), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, tokens);
	*tokens = 0;

	fd = devmem_env_stream(&self->env, 64 << 10, &pid);
	ASSERT_GE(fd, 0);
	wait_inq(fd, 64 << 10);

	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		if (write_file(path, "%d", getpid()))
			_exit(100);
		while (*tokens < most) {
			devmem_recv(fd, 64 << 10, ctrl, sizeof(ctrl),
				    MSG_SOCK_DEVMEM | MSG_PEEK, &r);
			if (r.ret <= 0)
				_exit(r.ret < 0 ? r.err : 101);
			*tokens += r.ndmabuf;
		}
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	TH_LOG("%ld tokens handed out under 1 MiB, then %s %d", *tokens,
	       WIFSIGNALED(status) ? "signal" : "exit",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	EXPECT_LT(*tokens, most);
	EXPECT_TRUE((WIFEXITED(status) && WEXITSTATUS(status) == ENOMEM) ||
		    (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));

	/* the reader's tokens are the socket's: close() gives them back */
	EXPECT_EQ(0, reap(pid));
	close(fd);
	munmap(tokens, sizeof(*tokens));
	EXPECT_EQ(0, rmdir(cg));
}

/*
 * Whether the kernel runs 32-bit programs: 0 when recv_compat32 ran (it
 * prints its usage and exits 2 without arguments), -ENOEXEC when the
 * kernel refused it (no CONFIG_IA32_EMULATION), -EIO otherwise.
 */
static int compat32_runs(const char *helper)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -EIO;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDERR_FILENO);
		execl(helper, helper, (char *)NULL);
		_exit(errno == ENOEXEC ? 3 : 4);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -EIO;
	switch (WEXITSTATUS(status)) {
	case 2:
		return 0;
	case 3:
		return -ENOEXEC;
	default:
		return -EIO;
	}
}

/*
 * A 32-bit process receives from device memory as a 64-bit one does: its
 * cmsgs come with the 32-bit header (recv_compat32 parses them with its
 * own CMSG macros), the fragments are the stream's, and its tokens go
 * back. It used to get EOPNOTSUPP.
 */
TEST_F(recv, compat_32bit_reader_gets_its_fragments)
{
	char helper[4096], cmd[4128], line[128];
	unsigned int size, token, id;
	unsigned long long off;
	size_t got = 0;
	int fd, frags = 0, bad = 0, badcmsg = 0, freed = -1, fe = 0;
	long ret = 0;
	int re = 0;
	pid_t pid;
	FILE *out;
	ssize_t n;

	n = readlink("/proc/self/exe", helper, sizeof(helper) - 32);
	ASSERT_GT(n, 0);
	helper[n] = 0;
	strcpy(strrchr(helper, '/') + 1, "recv_compat32");
	if (access(helper, X_OK))
		SKIP(return, "no recv_compat32: no 32-bit toolchain (gcc-multilib)");
	re = compat32_runs(helper);
	if (re == -ENOEXEC)
		SKIP(return, "kernel runs no 32-bit programs (CONFIG_IA32_EMULATION)");
	ASSERT_EQ(0, re);

	fd = devmem_env_stream(&self->env, 64 << 10, &pid);
	ASSERT_GE(fd, 0);
	wait_inq(fd, 16 << 10);

	snprintf(cmd, sizeof(cmd), "%s %d", helper, fd);
	out = popen(cmd, "r");
	ASSERT_NE(NULL, out);
	while (fgets(line, sizeof(line), out)) {
		if (sscanf(line, "frag %llu %u %u %u", &off, &size, &token,
			   &id) == 4) {
			uint32_t k;

			frags++;
			EXPECT_EQ(self->env.binding, id);
			EXPECT_NE(0, token);
			for (k = 0; k < size; k++)
				bad += self->env.map[off + k] !=
				       pattern_at(got + k);
			got += size;
		} else if (sscanf(line, "ret %ld %d", &ret, &re) != 2 &&
			   sscanf(line, "badcmsg %d", &badcmsg) != 1 &&
			   sscanf(line, "freed %d %d", &freed, &fe) != 2) {
			TH_LOG("recv_compat32: %s", line);
		}
	}
	EXPECT_EQ(0, pclose(out));
	TH_LOG("32-bit recvmsg: %ld (%s), %d fragments, %d freed", ret,
	       strerror(re), frags, freed);
	EXPECT_GT(ret, 0);
	EXPECT_GT(frags, 0);
	EXPECT_EQ(ret, (long)got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, badcmsg);
	EXPECT_EQ(frags, freed);

	EXPECT_EQ(0, reap(pid));
	close(fd);
}

TEST_F(recv, no_control_buffer_fails_and_loses_nothing)
{
	struct rx_result r;
	pid_t pid;
	int fd;

	fd = devmem_env_stream(&self->env, 64 << 10, &pid);
	wait_inq(fd, 1);

	devmem_recv(fd, 4096, NULL, 0, MSG_SOCK_DEVMEM, &r);
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(ETOOSMALL, r.err);
	/* one byte too small for a whole cmsg */
	devmem_recv(fd, 4096, ctrl, CMSG_LEN(sizeof(struct dmabuf_cmsg)) - 1,
		    MSG_SOCK_DEVMEM, &r);
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(ETOOSMALL, r.err);

	/* the next call with room gets the stream from its first byte */
	devmem_recv(fd, 4096, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
	ASSERT_GT(r.ret, 0);
	ASSERT_GT(r.ndmabuf, 0);
	EXPECT_EQ(pattern_at(0), self->env.map[r.frags[0].frag_offset]);
	EXPECT_EQ(pattern_at(1), self->env.map[r.frags[0].frag_offset + 1]);
	EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

TEST_F(recv, room_for_one_cmsg_gives_one_frag)
{
	struct rx_result r;
	pid_t pid;
	int fd;

	fd = devmem_env_stream(&self->env, 64 << 10, &pid);
	wait_inq(fd, 8192);
	devmem_recv(fd, 65536, ctrl, CMSG_SPACE(sizeof(struct dmabuf_cmsg)),
		    MSG_SOCK_DEVMEM, &r);
	ASSERT_GT(r.ret, 0);
	EXPECT_EQ(1, r.ndmabuf);
	EXPECT_EQ(r.frags[0].frag_size, r.ret);
	EXPECT_EQ(1, dontneed_all(fd, &r));
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

/*
 * A control buffer that fills in the middle of an skb (upstream once
 * delivered a partial devmem cmsg there, with MSG_CTRUNC masked): with
 * room for 1 to 4 cmsgs per call, no call is truncated, every call
 * returns exactly the bytes its cmsgs describe, the stream arrives whole
 * and in order, and every token handed out comes back.
 */
TEST_F(recv, small_control_buffers_lose_no_frag_and_no_token)
{
	const size_t cm_space = CMSG_SPACE(sizeof(struct dmabuf_cmsg));
	const size_t total = 1 << 20;
	size_t got = 0, errors = 0, frags = 0, calls = 0;
	static uint8_t iov_buf[1 << 16];
	long freed = 0;
	pid_t pid;
	int fd;

	fd = devmem_env_stream(&self->env, total, &pid);
	while (got < total) {
		struct iovec iov = { iov_buf, sizeof(iov_buf) };
		struct msghdr msg = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = ctrl,
			.msg_controllen = cm_space * (1 + calls++ % 4),
		};
		size_t described = 0, linear = 0;
		struct dmabuf_token t[4];
		struct cmsghdr *cm;
		int n = 0;
		ssize_t ret;

		ret = recvmsg(fd, &msg, MSG_SOCK_DEVMEM);
		if (ret <= 0)
			break;
		EXPECT_EQ(0, msg.msg_flags & MSG_CTRUNC);
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			const struct dmabuf_cmsg *dc = (void *)CMSG_DATA(cm);

			ASSERT_EQ(CMSG_LEN(sizeof(*dc)), cm->cmsg_len);
			if (cm->cmsg_type == SCM_DEVMEM_LINEAR) {
				errors += check_pattern(iov_buf + linear,
							dc->frag_size,
							got + described);
				linear += dc->frag_size;
			} else {
				ASSERT_EQ(SCM_DEVMEM_DMABUF, cm->cmsg_type);
				ASSERT_LT(n, 4);
				errors += check_pattern(self->env.map +
							dc->frag_offset,
							dc->frag_size,
							got + described);
				t[n].token_start = dc->frag_token;
				t[n++].token_count = 1;
			}
			described += dc->frag_size;
		}
		EXPECT_EQ(described, (size_t)ret);
		if (n)
			freed += setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED,
					    t, n * sizeof(t[0]));
		frags += n;
		got += ret;
	}
	TH_LOG("%zu calls, %zu frags", calls, frags);
	EXPECT_EQ(total, got);
	EXPECT_EQ(0, errors);
	EXPECT_GT(frags, 0);
	EXPECT_EQ((long)frags, freed);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

TEST_F(recv, dontneed_rejects_bad_input)
{
	struct dmabuf_token t[129] = {};
	int udp = socket(AF_INET, SOCK_DGRAM, 0);
	pid_t pid;
	int fd;

	EXPECT_EQ(-EBADF, dontneed(udp, t, 1));
	close(udp);

	fd = devmem_env_stream(&self->env, 4096, &pid);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, t, 4));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, t, 12));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, dontneed(fd, t, 129));
	EXPECT_EQ(-1, setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, t, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED,
				 (void *)8, 8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

TEST_F(recv, dontneed_skips_unknown_freed_and_wrapping_tokens)
{
	struct dmabuf_token t[4];
	struct rx_result r;
	pid_t pid;
	int fd, n;

	fd = devmem_env_stream(&self->env, 64 << 10, &pid);
	wait_inq(fd, 16384);
	devmem_recv(fd, 65536, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
	ASSERT_GT(r.ndmabuf, 1);
	n = r.ndmabuf;

	/* unknown tokens: nothing freed */
	t[0] = (struct dmabuf_token){ 0, 1 };
	t[1] = (struct dmabuf_token){ 1000000, 10 };
	EXPECT_EQ(0, dontneed(fd, t, 2));
	/* a range that wraps around 2^32 */
	t[0] = (struct dmabuf_token){ 0xfffffff0, 0x20 };
	EXPECT_EQ(0, dontneed(fd, t, 1));
	/* the real ones, one at a time: each freed once */
	t[0] = (struct dmabuf_token){ r.tokens[0], 1 };
	EXPECT_EQ(1, dontneed(fd, t, 1));
	EXPECT_EQ(0, dontneed(fd, t, 1));
	/* the rest, with a huge count that covers them */
	t[0] = (struct dmabuf_token){ r.tokens[1], 0xffffffff };
	EXPECT_EQ(n - 1, dontneed(fd, t, 1));
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

TEST_F(recv, tokens_come_out_contiguous)
{
	struct dmabuf_token t;
	struct rx_result r;
	pid_t pid;
	int fd, i;

	fd = devmem_env_stream(&self->env, 128 << 10, &pid);
	wait_inq(fd, 32768);
	devmem_recv(fd, 65536, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
	ASSERT_GT(r.ndmabuf, 1);
	for (i = 1; i < r.ndmabuf; i++)
		EXPECT_EQ(r.tokens[0] + i, r.tokens[i]);
	/* one range gives them all back */
	t.token_start = r.tokens[0];
	t.token_count = r.ndmabuf;
	EXPECT_EQ(r.ndmabuf, dontneed(fd, &t, 1));
	EXPECT_EQ(0, reap(pid));
	close(fd);
}

TEST_F(recv, sockets_cannot_free_each_others_tokens)
{
	struct rx_result ra, rb;
	pid_t pa, pb;
	int a, b;

	a = devmem_env_stream(&self->env, 32 << 10, &pa);
	b = devmem_env_stream(&self->env, 32 << 10, &pb);
	wait_inq(a, 8192);
	wait_inq(b, 8192);
	devmem_recv(a, 65536, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &ra);
	ASSERT_GT(ra.ndmabuf, 0);
	devmem_recv(b, 2048, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &rb);
	ASSERT_GT(rb.ndmabuf, 0);
	ASSERT_LT(rb.ndmabuf, ra.ndmabuf);

	/* token numbers are per socket: b frees its own few, whatever a's
	 * list says, and none of a's
	 */
	EXPECT_EQ(rb.ndmabuf, dontneed_all(b, &ra));
	/* and a still owns all of its own */
	EXPECT_EQ(ra.ndmabuf, dontneed_all(a, &ra));
	EXPECT_EQ(0, reap(pa));
	EXPECT_EQ(0, reap(pb));
	close(a);
	close(b);
}

TEST_F(recv, closing_socket_with_tokens_releases_them)
{
	size_t got = 0, bytes = 128 << 10;
	struct rx_result r;
	pid_t pid;
	int fd;

	fd = devmem_env_stream(&self->env, bytes, &pid);
	while (got < bytes) {
		devmem_recv(fd, bytes, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
		ASSERT_GT(r.ret, 0);
		got += r.ret;
	}
	EXPECT_EQ(0, reap(pid));

	/* unbind: the queue goes back to host memory, but the tokens the
	 * socket holds keep the binding (and its mapping) alive ...
	 */
	devmem_nl_close(&self->env.nl);
	usleep(300000);
	EXPECT_EQ(1, devmem_bindings_live());
	/* ... until the socket goes, giving every net_iov back */
	close(fd);
	EXPECT_EQ(0, devmem_wait_bindings(0, 5000));
}

TEST_F(recv, packet_socket_sees_headers_only)
{
	struct sockaddr_ll ll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
		.sll_ifindex = self->env.ifindex,
	};
	size_t max_len = 0, bytes = 64 << 10;
	struct rx_result r;
	char buf[9000];
	int ps, fd, n;
	pid_t pid;

	ps = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP));
	ASSERT_GE(ps, 0);
	ASSERT_EQ(0, bind(ps, (struct sockaddr *)&ll, sizeof(ll)));

	fd = devmem_env_stream(&self->env, bytes, &pid);
	wait_inq(fd, bytes);
	while ((n = recv(ps, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		if ((size_t)n > max_len)
			max_len = n;
	/* Ethernet + IPv4 + TCP with options, never payload */
	EXPECT_GT(max_len, 0);
	EXPECT_LE(max_len, 14 + 60 + 60);

	do {
		devmem_recv(fd, bytes, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
		dontneed_all(fd, &r);
	} while (r.ret > 0);
	EXPECT_EQ(0, reap(pid));
	close(fd);
	close(ps);
}

TEST_F(recv, unsteered_flow_on_same_device_is_plain_tcp)
{
	size_t bytes = 256 << 10, got = 0, bad = 0, i;
	char buf[65536];
	int lfd, fd;
	ssize_t n;
	pid_t pid;

	lfd = listen_on(RX_ADDR, PORT_HOST);
	ASSERT_GE(lfd, 0);
	pid = sender_to(self->env.ns, RX_ADDR, PORT_HOST, bytes);
	fd = accept(lfd, NULL, NULL);
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		for (i = 0; i < (size_t)n; i++)
			bad += (uint8_t)buf[i] != pattern_at(got + i);
		got += n;
	}
	EXPECT_EQ(0, n);
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, reap(pid));
	close(fd);
	close(lfd);
}

/* devmem-stats of the port's four RX queues into @st */
static int host_stats_all(struct devmem_env *env, struct devmem_host_stats *st)
{
	int q, err = 0;

	for (q = 0; q < 4 && !err; q++)
		err = devmem_host_stats_get(&env->nl, env->ifindex, q, &st[q]);
	return err;
}

/*
 * A devmem reader of a flow that RSS put on a host-memory queue gets its
 * payload by copy: devmem-stats counts every byte of it once (a peek
 * before does not count), on that queue alone, and neither a plain
 * reader nor payload in device memory counts.
 */
TEST_F(recv, host_copies_to_a_devmem_reader_are_counted_on_their_queue)
{
	struct devmem_host_stats before[4], after[4];
	struct stream st = { .map_size = DMABUF_SIZE };
	struct rx_result peek;
	size_t bytes = 256 << 10, got = 0;
	int lfd, fd, q, hit = -1;
	char buf[65536];
	ssize_t n;
	pid_t pid;

	lfd = listen_on(RX_ADDR, PORT_HOST);
	ASSERT_GE(lfd, 0);
	ASSERT_EQ(0, host_stats_all(&self->env, before));
	pid = sender_to(self->env.ns, RX_ADDR, PORT_HOST, bytes);
	fd = accept(lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	/* a peek copies too, but its bytes count once, when read */
	wait_inq(fd, 4096);
	devmem_recv(fd, 4096, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM | MSG_PEEK,
		    &peek);
	EXPECT_EQ(4096, peek.ret);
	EXPECT_LT(0, recv_stream(fd, self->env.map, &st, bytes));
	EXPECT_EQ(bytes, st.bytes);
	EXPECT_EQ(bytes, st.host);
	EXPECT_EQ(0, st.errors);
	EXPECT_EQ(0, reap(pid));
	close(fd);
	ASSERT_EQ(0, host_stats_all(&self->env, after));
	for (q = 0; q < 4; q++) {
		uint64_t d = after[q].devmem_bytes - before[q].devmem_bytes;

		EXPECT_EQ(self->env.ifindex, after[q].ifindex);
		EXPECT_EQ(q, after[q].queue);
		EXPECT_EQ(0, after[q].zcrx_bytes - before[q].zcrx_bytes);
		if (!d)
			continue;
		/* one flow, one queue: all of it, in at least one copy */
		EXPECT_EQ(-1, hit);
		EXPECT_EQ(bytes, d);
		EXPECT_LE(1, after[q].devmem_copies - before[q].devmem_copies);
		hit = q;
	}
	EXPECT_NE(-1, hit);
	EXPECT_NE(BOUND_QUEUE, hit);
	TH_LOG("%zu bytes copied to the devmem reader, counted on queue %d",
	       bytes, hit);

	/* a plain reader of host memory, and a devmem stream: no count */
	memcpy(before, after, sizeof(after));
	pid = sender_to(self->env.ns, RX_ADDR, PORT_HOST, bytes);
	fd = accept(lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		got += n;
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(0, reap(pid));
	close(fd);
	close(lfd);
	memset(&st, 0, sizeof(st));
	st.map_size = DMABUF_SIZE;
	fd = devmem_env_stream(&self->env, bytes, &pid);
	ASSERT_GE(fd, 0);
	EXPECT_LT(0, recv_stream(fd, self->env.map, &st, bytes));
	EXPECT_EQ(bytes, st.devmem);
	EXPECT_EQ(0, reap(pid));
	close(fd);
	ASSERT_EQ(0, host_stats_all(&self->env, after));
	EXPECT_EQ(0, memcmp(before, after, sizeof(after)));
}

static int host_stats_of_lo(struct devmem_nl *nl, void *arg)
{
	return devmem_host_stats_get(nl, 1, 0, arg);
}

/*
 * devmem-stats: a dump of one device gives all its RX queues, a dump of
 * all the bound queue among others; bad requests get their errno and an
 * extack; any user may read the counts, as queue statistics.
 */
TEST_F(recv, host_stats_dump_and_bad_requests)
{
	struct devmem_host_stats st[64];
	struct devmem_nl *nl = &self->env.nl;
	int i, n, home, found = 0;
	unsigned int peer;

	n = devmem_host_stats_dump(nl, self->env.ifindex, st, 64);
	ASSERT_EQ(4, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(self->env.ifindex, st[i].ifindex);
		EXPECT_EQ(i, st[i].queue);
	}
	/* a device that is not there fails the dump, as netdev's queue-get */
	EXPECT_EQ(-ENODEV, devmem_host_stats_dump(nl, 0x7ffffff0, st, 64));
	EXPECT_STREQ("no such device in this namespace", nl->extack);
	n = devmem_host_stats_dump(nl, 0, st, 64);
	ASSERT_GT(n, 0);
	for (i = 0; i < n && i < 64; i++)
		found += st[i].ifindex == (uint32_t)self->env.ifindex &&
			 st[i].queue == BOUND_QUEUE;
	EXPECT_EQ(1, found);

	EXPECT_EQ(-EINVAL, devmem_host_stats_get_raw(nl, 2, 0, 0, NULL));
	EXPECT_EQ(DEVMEM_STATS_A_QUEUE_IFINDEX, nl->miss_type);
	EXPECT_EQ(-EINVAL, devmem_host_stats_get_raw(nl, 1, self->env.ifindex,
						     0, NULL));
	EXPECT_EQ(DEVMEM_STATS_A_QUEUE_ID, nl->miss_type);
	/* the policy's minimum: ERANGE, as for netdev's ifindex */
	EXPECT_EQ(-ERANGE, devmem_host_stats_get(nl, 0, 0, NULL));
	EXPECT_NE(0, nl->extack[0]);
	EXPECT_EQ(-EINVAL, devmem_host_stats_get(nl, self->env.ifindex, 4,
						 NULL));
	EXPECT_STREQ("the device has no such RX queue", nl->extack);
	EXPECT_EQ(-ENODEV, devmem_host_stats_get(nl, 0x7ffffff0, 0, NULL));
	EXPECT_STREQ("no such device in this namespace", nl->extack);
	/* the peer port, by its index in its own namespace */
	home = netns_enter(self->env.ns);
	ASSERT_GE(home, 0);
	peer = if_nametoindex(self->env.peer);
	ASSERT_EQ(0, netns_leave(home));
	ASSERT_NE(0, peer);
	EXPECT_EQ(-ENODEV, devmem_host_stats_get(nl, peer, 0, NULL));
	EXPECT_EQ(0, devmem_nl_as_nobody(host_stats_of_lo, st, false));
}

/* The sock-get entry of the socket with inode @ino: its tokens, 0 if it
 * is not listed, -errno if the dump fails; its entry in @out
 */
static long sock_tokens_of(struct devmem_nl *nl, uint64_t ino,
			   struct devmem_sock_tokens *out)
{
	static struct devmem_sock_tokens st[256];
	int i, n;

	n = devmem_sock_tokens_dump(nl, st, 256);
	if (n < 0)
		return n;
	for (i = 0; i < n && i < 256; i++) {
		if (st[i].inode != ino)
			continue;
		if (out)
			*out = st[i];
		return st[i].tokens;
	}
	return 0;
}

static int sock_tokens_any(struct devmem_nl *nl, void *arg)
{
	long t = sock_tokens_of(nl, *(uint64_t *)arg, NULL);

	return t > 0 ? 0 : t < 0 ? t : -ENOENT;
}

/*
 * devmem-stats sock-get lists each socket that holds tokens, with exactly
 * how many, its addresses and owner; tokens given back come off the
 * count, a socket with none or closed is not listed; another namespace
 * does not see it; any user may list.
 */
TEST_F(recv, sock_get_lists_the_tokens_each_socket_holds)
{
	struct devmem_nl *nl = &self->env.nl, other;
	struct devmem_sock_tokens one;
	struct in_addr rx, tx;
	struct dmabuf_token t;
	struct rx_result r;
	uint64_t ino;
	struct stat sb;
	int fd, half, home;
	pid_t pid;

	fd = devmem_env_stream(&self->env, 128 << 10, &pid);
	ASSERT_EQ(0, fstat(fd, &sb));
	ino = sb.st_ino;
	EXPECT_EQ(0, sock_tokens_of(nl, ino, NULL));
	wait_inq(fd, 32768);
	devmem_recv(fd, 65536, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
	ASSERT_GT(r.ndmabuf, 1);

	ASSERT_EQ(r.ndmabuf, sock_tokens_of(nl, ino, &one));
	EXPECT_EQ(AF_INET, one.family);
	EXPECT_EQ(getuid(), one.uid);
	EXPECT_EQ(PORT_DEVMEM, one.sport);
	EXPECT_NE(0, one.dport);
	ASSERT_EQ(1, inet_pton(AF_INET, RX_ADDR, &rx));
	ASSERT_EQ(1, inet_pton(AF_INET, TX_ADDR, &tx));
	EXPECT_EQ(0, memcmp(one.saddr, &rx, 4));
	EXPECT_EQ(0, memcmp(one.daddr, &tx, 4));
	EXPECT_EQ(0, devmem_nl_as_nobody(sock_tokens_any, &ino, false));
	/* the command takes no attribute: the extack says so */
	EXPECT_EQ(-EINVAL, devmem_sock_tokens_dump_raw(nl, NULL, 0,
						       DEVMEM_STATS_A_SOCK_INODE));
	EXPECT_STREQ("Attribute failed policy validation", nl->extack);
	EXPECT_EQ(-EINVAL, devmem_sock_tokens_dump_raw(nl, NULL, 0,
						       DEVMEM_STATS_A_SOCK_TOKENS));
	EXPECT_STREQ("Unknown attribute type", nl->extack);

	/* the peer's namespace has its own sockets, not this one */
	home = netns_enter(self->env.ns);
	ASSERT_GE(home, 0);
	ASSERT_EQ(0, devmem_nl_open(&other));
	ASSERT_EQ(0, netns_leave(home));
	EXPECT_EQ(0, sock_tokens_of(&other, ino, NULL));
	devmem_nl_close(&other);

	half = r.ndmabuf / 2;
	t.token_start = r.tokens[0];
	t.token_count = half;
	ASSERT_EQ(half, dontneed(fd, &t, 1));
	EXPECT_EQ(r.ndmabuf - half, sock_tokens_of(nl, ino, NULL));
	t.token_start = r.tokens[half];
	t.token_count = r.ndmabuf - half;
	ASSERT_EQ(r.ndmabuf - half, dontneed(fd, &t, 1));
	EXPECT_EQ(0, sock_tokens_of(nl, ino, NULL));

	/* held again, then closed with them */
	wait_inq(fd, 8192);
	devmem_recv(fd, 65536, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
	ASSERT_GT(r.ndmabuf, 0);
	EXPECT_EQ(r.ndmabuf, sock_tokens_of(nl, ino, NULL));
	close(fd);
	EXPECT_EQ(0, sock_tokens_of(nl, ino, NULL));
	EXPECT_EQ(0, reap(pid));
}

/*
 * A socket whose connection is gone (here connect(AF_UNSPEC): in no hash
 * table any more, as after a reset or a timeout) keeps its tokens until
 * it is closed, and is listed until then.
 */
TEST_F(recv, sock_get_lists_a_disconnected_socket_until_it_is_closed)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct devmem_nl *nl = &self->env.nl;
	struct rx_result r;
	struct stat sb;
	ssize_t got;
	pid_t pid;
	int fd;

	fd = devmem_env_stream(&self->env, 16 << 10, &pid);
	ASSERT_EQ(0, fstat(fd, &sb));
	for (got = 0; got < 16 << 10; got += r.ret) {
		devmem_recv(fd, 16 << 10, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM,
			    &r);
		ASSERT_GT(r.ret, 0);
	}
	EXPECT_EQ(0, reap(pid));
	got = sock_tokens_of(nl, sb.st_ino, NULL);
	ASSERT_GT(got, 0);
	ASSERT_EQ(0, connect(fd, &unspec, sizeof(unspec)));
	EXPECT_EQ(got, sock_tokens_of(nl, sb.st_ino, NULL));
	close(fd);
	EXPECT_EQ(0, sock_tokens_of(nl, sb.st_ino, NULL));
}

#define HOLDERS 48

/*
 * More holders than one dump message has room for (the first holds about
 * 30): every one listed once, with its exact count. Then dumps race with
 * sockets closed while they hold tokens: every dump completes and lists
 * no socket without tokens (on the debug kernel: nothing reads a freed
 * store).
 */
TEST_F_TIMEOUT(recv, sock_get_lists_every_holder_once_and_races_closes, 180)
{
	static struct devmem_sock_tokens st[4 * HOLDERS];
	int fds[HOLDERS], stop[2], i, j, n, once, round, status;
	long want[HOLDERS];
	pid_t pids[HOLDERS], dumper;
	uint64_t ino[HOLDERS];
	struct rx_result r;
	struct stat sb;
	ssize_t got;

	for (i = 0; i < HOLDERS; i++) {
		fds[i] = devmem_env_stream(&self->env, 4 << 10, &pids[i]);
		ASSERT_EQ(0, fstat(fds[i], &sb));
		ino[i] = sb.st_ino;
		want[i] = 0;
		for (got = 0; got < 4 << 10; got += r.ret) {
			devmem_recv(fds[i], 4 << 10, ctrl, sizeof(ctrl),
				    MSG_SOCK_DEVMEM, &r);
			ASSERT_GT(r.ret, 0);
			want[i] += r.ndmabuf;
		}
		EXPECT_EQ(0, reap(pids[i]));
	}
	n = devmem_sock_tokens_dump(&self->env.nl, st, 4 * HOLDERS);
	ASSERT_GE(n, HOLDERS);
	for (i = 0; i < HOLDERS; i++) {
		once = 0;
		for (j = 0; j < n; j++)
			if (st[j].inode == ino[i]) {
				once++;
				EXPECT_EQ(want[i], st[j].tokens);
			}
		EXPECT_EQ(1, once);
	}
	for (i = 0; i < HOLDERS; i++)
		close(fds[i]);

	ASSERT_EQ(0, pipe(stop));
	dumper = fork();
	ASSERT_GE(dumper, 0);
	if (!dumper) {
		struct pollfd p = { .fd = stop[0], .events = POLLIN };
		struct devmem_nl nl;
		int bad = 0, seen = 0;

		close(stop[1]);
		if (devmem_nl_open(&nl))
			_exit(2);
		/* until the parent closes its end */
		while (!poll(&p, 1, 0)) {
			n = devmem_sock_tokens_dump(&nl, st, 4 * HOLDERS);
			bad += n < 0;
			seen += n > 0;
			for (i = 0; i < n && i < 4 * HOLDERS; i++)
				bad += !st[i].tokens;
		}
		devmem_nl_close(&nl);
		/* 3: the dumps never met a socket with tokens */
		_exit(bad ? 1 : seen ? 0 : 3);
	}
	for (round = 0; round < 20; round++) {
		for (i = 0; i < 8; i++) {
			fds[i] = devmem_env_stream(&self->env, 16 << 10, &pids[i]);
			/* all of it read, no token given back */
			for (got = 0; got < 16 << 10; got += r.ret) {
				devmem_recv(fds[i], 16 << 10, ctrl,
					    sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
				ASSERT_GT(r.ret, 0);
			}
		}
		for (i = 0; i < 8; i++) {
			close(fds[i]);
			EXPECT_EQ(0, reap(pids[i]));
		}
	}
	close(stop[0]);
	close(stop[1]);
	ASSERT_EQ(dumper, waitpid(dumper, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

static int64_t rx_stat(const struct devmem_env *env, unsigned int q,
		       const char *name)
{
	char stat[64];

	snprintf(stat, sizeof(stat), "rx%u_%s", q, name);
	return ethtool_stat(env->ifname, stat);
}

/*
 * A dmabuf address is not the NIC's to sync (upstream once synced them
 * through the NIC's DMA device). hdsim asks every payload pool for
 * DMA_SYNC_DEV, as real drivers do: the core drops it on the bound
 * queue's pool, and the driver syncs host payload for the CPU, never
 * device payload. Both sides are checked against a host-memory queue of
 * the same device, so that the test fails if the checks see nothing.
 */
TEST_F(recv, dmabuf_payload_is_never_dma_synced)
{
	size_t bytes = 256 << 10, got = 0;
	int64_t dev_sync0, dev_bytes0, host_sync0 = 0, host_sync1 = 0;
	struct rx_result r;
	char buf[65536];
	int lfd, fd, q;
	pid_t pid;
	ssize_t n;

	EXPECT_EQ(0, devmem_env_rx_pool(&self->env, BOUND_QUEUE, "dma_sync_dev"));
	EXPECT_EQ(1, devmem_env_rx_pool(&self->env, BOUND_QUEUE, "unreadable"));
	EXPECT_EQ(1, devmem_env_rx_pool(&self->env, 0, "dma_sync_dev"));
	EXPECT_EQ(0, devmem_env_rx_pool(&self->env, 0, "unreadable"));

	dev_sync0 = rx_stat(&self->env, BOUND_QUEUE, "payload_cpu_syncs");
	dev_bytes0 = rx_stat(&self->env, BOUND_QUEUE, "devmem_payload_bytes");
	ASSERT_GE(dev_sync0, 0);
	for (q = 0; q < BOUND_QUEUE; q++)
		host_sync0 += rx_stat(&self->env, q, "payload_cpu_syncs");

	/* device memory on the bound queue ... */
	fd = devmem_env_stream(&self->env, bytes, &pid);
	while (got < bytes) {
		devmem_recv(fd, bytes, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM, &r);
		ASSERT_GT(r.ret, 0);
		EXPECT_EQ(r.ndmabuf, dontneed_all(fd, &r));
		got += r.ret;
	}
	EXPECT_EQ(0, reap(pid));
	close(fd);

	/* ... host memory on the others */
	lfd = listen_on(RX_ADDR, PORT_HOST);
	ASSERT_GE(lfd, 0);
	pid = sender_to(self->env.ns, RX_ADDR, PORT_HOST, bytes);
	fd = accept(lfd, NULL, NULL);
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		;
	EXPECT_EQ(0, reap(pid));
	close(fd);
	close(lfd);

	EXPECT_GE(rx_stat(&self->env, BOUND_QUEUE, "devmem_payload_bytes") -
		  dev_bytes0, (int64_t)bytes);
	EXPECT_EQ(dev_sync0,
		  rx_stat(&self->env, BOUND_QUEUE, "payload_cpu_syncs"));
	for (q = 0; q < BOUND_QUEUE; q++)
		host_sync1 += rx_stat(&self->env, q, "payload_cpu_syncs");
	EXPECT_GT(host_sync1, host_sync0);
}

/* UDP has no device memory path: the flag is ignored, as upstream. */
/*
 * Upstream's check_rx_hds: single segments of every payload size from 1
 * byte to 8 KiB (all of 1..300, then a step of 37 and the powers of two
 * with their neighbours) each land whole in device memory, hds-thresh 0:
 * no SCM_DEVMEM_LINEAR, not even for one byte. The sender waits for a
 * one-byte reply after each write, so that each is one segment of its own
 * (two for payloads above the MSS).
 */
static int hds_sizes(int *sizes)
{
	int n = 0, s, p;

	for (s = 1; s <= 300; s++)
		sizes[n++] = s;
	for (s = 337; s <= 8192; s += 37)
		sizes[n++] = s;
	for (p = 512; p <= 8192; p *= 2) {
		sizes[n++] = p - 1;
		sizes[n++] = p;
		sizes[n++] = p + 1;
	}
	return n;
}

static pid_t hds_sender(const struct devmem_env *env, const int *sizes,
			int n)
{
	static char buf[8192 + 1];
	uint64_t off = 0;
	int fd, i, j, one = 1;
	pid_t pid;
	char ack;

	pid = fork();
	if (pid)
		return pid;
	fd = sender_connect(env->ns, env->rx_addr, PORT_DEVMEM);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (i = 0; i < n; i++) {
		for (j = 0; j < sizes[i]; j++)
			buf[j] = pattern_at(off + j);
		if (write(fd, buf, sizes[i]) != sizes[i] ||
		    read(fd, &ack, 1) != 1)
			_exit(4);
		off += sizes[i];
	}
	close(fd);
	_exit(0);
}

TEST_F_TIMEOUT(recv, every_payload_size_lands_in_device_memory, 240)
{
	struct stream st = { .map_size = DMABUF_SIZE };
	int sizes[600], n, i, fd, linear_at = 0;
	size_t want = 0;
	pid_t pid;

	n = hds_sizes(sizes);
	pid = hds_sender(&self->env, sizes, n);
	ASSERT_GT(pid, 0);
	fd = accept(self->env.lfd, NULL, NULL);
	ASSERT_GE(fd, 0);
	for (i = 0; i < n; i++) {
		size_t host = st.host;

		want += sizes[i];
		if (recv_stream(fd, self->env.map, &st, want) <= 0)
			break;
		if (st.host != host && !linear_at)
			linear_at = sizes[i];
		if (write(fd, "a", 1) != 1)
			break;
	}
	EXPECT_EQ(n, i);
	EXPECT_EQ(want, st.bytes);
	EXPECT_EQ(0, st.errors);
	EXPECT_EQ(0, st.host) TH_LOG("first payload in host memory: %d bytes",
				     linear_at);
	EXPECT_EQ(0, reap(pid));
	TH_LOG("%d payload sizes up to %d bytes: %zu bytes in %zu frags, %zu in host memory",
	       n, sizes[n - 1], st.bytes, st.frags, st.host);
	close(fd);
}

TEST(udp_ignores_msg_sock_devmem)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char buf[64], ctl[256];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	socklen_t len = sizeof(sa);
	int rx, tx;

	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(0, bind(rx, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, getsockname(rx, (struct sockaddr *)&sa, &len));
	ASSERT_EQ(5, sendto(tx, "hello", 5, 0, (struct sockaddr *)&sa,
			    sizeof(sa)));
	EXPECT_EQ(5, recvmsg(rx, &msg, MSG_SOCK_DEVMEM));
	EXPECT_EQ(0, memcmp(buf, "hello", 5));
	EXPECT_EQ(0, msg.msg_controllen);
	close(rx);
	close(tx);
}

/* An application that keeps its tokens runs the queue out of buffers:
 * the NIC drops and counts, TCP retransmits, and the stream completes
 * once the tokens come back.
 */
TEST_F_TIMEOUT(recv, exhausted_dmabuf_drops_then_recovers, 360)
{
	size_t bytes = 24 << 20, got = 0, held = 0;
	static struct rx_result r;
	struct pollfd pfd;
	int fd, i, idle, n = 0;
	int64_t fails0;
	uint32_t *all;
	pid_t pid;

	all = calloc(DMABUF_SIZE / 4096 + 1024, sizeof(*all));
	ASSERT_NE(NULL, all);
	fails0 = ethtool_stat(self->env.ifname, "rx3_alloc_fail");
	ASSERT_GE(fails0, 0);
	fd = devmem_env_stream(&self->env, bytes, &pid);
	pfd.fd = fd;
	pfd.events = POLLIN;

	/* hold every token until the queue has run out of buffers (its
	 * alloc_fail count moved) and then nothing arrives for a second; a
	 * second of silence before that is a sender backing off (two
	 * minutes at most)
	 */
	for (idle = 0; idle < 120; ) {
		if (poll(&pfd, 1, 1000) <= 0) {
			if (ethtool_stat(self->env.ifname, "rx3_alloc_fail") >
			    fails0)
				break;
			idle++;
			continue;
		}
		devmem_recv(fd, 1 << 20, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM,
			    &r);
		if (r.ret <= 0)
			break;
		for (i = 0; i < r.ndmabuf; i++)
			all[n++] = r.tokens[i];
		got += r.ret;
	}
	held = got;
	EXPECT_LT(held, bytes);
	EXPECT_LE(held, (size_t)DMABUF_SIZE);
	EXPECT_GT(ethtool_stat(self->env.ifname, "rx3_alloc_fail"), fails0);

	/* give everything back: the retransmissions get through */
	for (i = 0; i < n; i++) {
		struct dmabuf_token t = { all[i], 1 };

		ASSERT_EQ(1, dontneed(fd, &t, 1));
	}
	while (got < bytes) {
		devmem_recv(fd, 1 << 20, ctrl, sizeof(ctrl), MSG_SOCK_DEVMEM,
			    &r);
		ASSERT_GT(r.ret, 0);
		got += r.ret;
		dontneed_all(fd, &r);
	}
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(0, reap(pid));
	close(fd);
	free(all);
}

/*
 * A socket whose token table grows while it holds thousands of tokens:
 * past its first chunks of slots and its first chunk directory, with
 * another flow on the same queue (so the same CPU's softirq) receiving
 * and returning its own tokens between the holder's receives. Both
 * streams arrive intact, every held token is distinct and live, and one
 * DONTNEED per contiguous run gives them all back, once.
 */
#define HELD_DMABUF_SIZE	(48 << 20)
#define HELD_BYTES		(10 << 20)
#define OTHER_BYTES		(8 << 20)
#define SLOTS_PER_CHUNK		512	/* a page of slots */
#define FIRST_DIR_CHUNKS	8

FIXTURE(held)
{
	struct devmem_env env;
};

FIXTURE_SETUP(held)
{
	DEVMEM_ONLY_SKIP();
	if (!devmem_env_available())
		SETUP_SKIP("no hdsim driver (CONFIG_HDSIM)");
	ASSERT_EQ(0, recv_env_setup(&self->env, HELD_DMABUF_SIZE));
}

FIXTURE_TEARDOWN(held)
{
	EXPECT_EQ(0, devmem_env_teardown(&self->env));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * DONTNEED @n sorted tokens as runs of consecutive ones, within the
 * per-call caps (128 ranges, 1024 tokens): tokens freed.
 */
static int dontneed_runs(int fd, const uint32_t *tok, size_t n)
{
	struct dmabuf_token t[128];
	int k = 0, freed = 0;
	size_t i = 0, in_call = 0;

	while (i < n) {
		size_t j = i + 1;

		while (j < n && tok[j] == tok[j - 1] + 1 &&
		       in_call + j - i < 1024)
			j++;
		t[k].token_start = tok[i];
		t[k].token_count = j - i;
		in_call += j - i;
		if (++k == 128 || in_call == 1024) {
			freed += dontneed(fd, t, k);
			k = 0;
			in_call = 0;
		}
		i = j;
	}
	return freed + (k ? dontneed(fd, t, k) : 0);
}

TEST_F_TIMEOUT(held, table_grows_while_another_flow_receives, 240)
{
	static uint32_t tok[HELD_DMABUF_SIZE / 4096];
	struct stream a = {
		.map_size = HELD_DMABUF_SIZE,
		.held = tok,
	};
	struct stream b = { .map_size = HELD_DMABUF_SIZE };
	size_t i, dups = 0;
	pid_t pa, pb;
	int fa, fb;

	fa = devmem_env_stream(&self->env, HELD_BYTES, &pa);
	ASSERT_GE(fa, 0);
	fb = devmem_env_stream(&self->env, OTHER_BYTES, &pb);
	ASSERT_GE(fb, 0);

	/* a keeps every token; b gives its own back after each receive.
	 * A small control buffer for a: its table grows in many steps.
	 */
	while (a.bytes < HELD_BYTES || b.bytes < OTHER_BYTES) {
		if (a.bytes < HELD_BYTES)
			ASSERT_LT(0, recv_step(fa, self->env.map, &a, true,
					       CMSG_SPACE(sizeof(struct dmabuf_cmsg)) * 64));
		if (b.bytes < OTHER_BYTES)
			ASSERT_LT(0, recv_step(fb, self->env.map, &b, false,
					       SIZE_MAX));
		ASSERT_LE(a.nheld, ARRAY_SIZE(tok) - 64);
	}
	EXPECT_EQ(HELD_BYTES, a.bytes);
	EXPECT_EQ(0, a.errors);
	EXPECT_EQ(OTHER_BYTES, b.bytes);
	EXPECT_EQ(0, b.errors);
	EXPECT_EQ(a.frags, a.nheld);
	/* past the chunks the first directory holds */
	EXPECT_LT(SLOTS_PER_CHUNK * FIRST_DIR_CHUNKS, a.nheld);

	qsort(tok, a.nheld, sizeof(tok[0]), cmp_u32);
	for (i = 1; i < a.nheld; i++)
		dups += tok[i] == tok[i - 1];
	EXPECT_EQ(0, dups);
	EXPECT_EQ(a.nheld, dontneed_runs(fa, tok, a.nheld));
	EXPECT_EQ(0, dontneed_runs(fa, tok, a.nheld));

	EXPECT_EQ(0, reap(pa));
	EXPECT_EQ(0, reap(pb));
	close(fa);
	close(fb);
}

TEST_HARNESS_MAIN
