// SPDX-License-Identifier: GPL-2.0
/*
 * IORING_REGISTER_QUERY: what a program learns before it registers a zcrx
 * instance, with no ring (fd -1) or through one. The answers agree with
 * what the syscalls take (setup, enter and feature flags, the ring
 * layout), a chain is answered entry by entry, a bad entry fails alone in
 * its result, and memory that cannot be read or written, a buffer over a
 * page or a cycle fail the call with upstream's errno. zcrx's uAPI is in
 * a header of its own, which builds alone, with upstream's layouts.
 * Needs no device.
 */
#define _GNU_SOURCE
/* first, alone: it stands on its own, as upstream's does */
#include <linux/io_uring/zcrx.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/io_uring/query.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../../kselftest_harness.h"

/* the answer sizes of upstream's structs */
#define OPCODE_SIZE	48
#define ZCRX_SIZE	40
#define SCQ_SIZE	16
#define ZCRX_EVENT_SIZE	48
/* the first chain length the kernel refuses */
#define CHAIN_LIMIT	1000

static int q_register(int fd, unsigned int op, void *arg, unsigned int nr)
{
	int ret = syscall(__NR_io_uring_register, fd, op, arg, nr);

	return ret < 0 ? -errno : ret;
}

static int q_query(int fd, struct io_uring_query_hdr *hdr)
{
	return q_register(fd, IORING_REGISTER_QUERY, hdr, 0);
}

static int q_setup(unsigned int entries, struct io_uring_params *p)
{
	int ret = syscall(__NR_io_uring_setup, entries, p);

	return ret < 0 ? -errno : ret;
}

static void q_hdr(struct io_uring_query_hdr *hdr, unsigned int op,
		  void *data, unsigned int size)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->query_op = op;
	hdr->query_data = (uintptr_t)data;
	hdr->size = size;
}

/* a page no one may touch: for the faults */
static void *q_hole(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int q_all_bytes(const void *buf, size_t len, unsigned char c)
{
	const unsigned char *b = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != c)
			return 0;
	return 1;
}

/*
 * Ask @op with no ring, into @size bytes at @buf (0xaa before): the
 * entry's result must be 0. Returns the size the header says it wrote.
 */
static __u32 q_ask(struct __test_metadata *_metadata, __u32 op, void *buf,
		   __u32 size)
{
	struct io_uring_query_hdr hdr;

	memset(buf, 0xaa, size);
	q_hdr(&hdr, op, buf, size);
	EXPECT_EQ(0, q_query(-1, &hdr));
	EXPECT_EQ(0, hdr.result);
	return hdr.size;
}

TEST(opcodes_are_answered_without_a_ring)
{
	struct io_uring_query_opcode o;

	EXPECT_EQ(OPCODE_SIZE, q_ask(_metadata, IO_URING_QUERY_OPCODES, &o,
				     sizeof(o)));
	EXPECT_EQ(IORING_OP_LAST, o.nr_request_opcodes);
	EXPECT_EQ(IORING_REGISTER_LAST, o.nr_register_opcodes);
	/* liburing's ring-query test asks for more than 35 */
	EXPECT_LT(IORING_REGISTER_QUERY, o.nr_register_opcodes);
	EXPECT_EQ(__IO_URING_QUERY_MAX, o.nr_query_opcodes);
	EXPECT_EQ(0x7f, o.sqe_flags);
	EXPECT_EQ(0, o.__pad);
}

TEST(the_flags_reported_are_the_flags_the_syscalls_take)
{
	struct io_uring_query_opcode o;
	struct io_uring_query_hdr hdr;
	struct io_uring_params p;
	uint64_t bit;
	int fd, ret;

	q_hdr(&hdr, IO_URING_QUERY_OPCODES, &o, sizeof(o));
	ASSERT_EQ(0, q_query(-1, &hdr));

	/* the features a ring reports at setup */
	memset(&p, 0, sizeof(p));
	fd = q_setup(8, &p);
	ASSERT_LE(0, fd);
	EXPECT_EQ(p.features, o.feature_flags);

	/* every enter flag reported is known; the first one above is not */
	EXPECT_NE(0, o.enter_flags & IORING_ENTER_GETEVENTS);
	bit = o.enter_flags + 1;
	ASSERT_EQ(0, bit & o.enter_flags);
	ret = syscall(__NR_io_uring_enter, fd, 0, 0, (unsigned int)bit,
		      NULL, 0);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EINVAL, errno);
	close(fd);

	/* the setup flags: the lowest bit not reported is refused */
	EXPECT_NE(0, o.ring_setup_flags & IORING_SETUP_DEFER_TASKRUN);
	EXPECT_NE(0, o.ring_setup_flags & IORING_SETUP_CQE32);
	EXPECT_NE(0, o.ring_setup_flags & IORING_SETUP_CQE_MIXED);
	bit = (o.ring_setup_flags + 1) & ~o.ring_setup_flags;
	ASSERT_EQ(0, bit & o.ring_setup_flags);
	memset(&p, 0, sizeof(p));
	p.flags = bit;
	EXPECT_EQ(-EINVAL, q_setup(8, &p));
}

TEST(the_scq_answer_is_where_the_cqes_start)
{
	struct io_uring_query_hdr hdr;
	struct io_uring_query_scq s;
	struct io_uring_params p;
	int fd;

	q_hdr(&hdr, IO_URING_QUERY_SCQ, &s, sizeof(s));
	ASSERT_EQ(0, q_query(-1, &hdr));
	ASSERT_EQ(0, hdr.result);
	EXPECT_EQ(SCQ_SIZE, hdr.size);
	ASSERT_NE(0, s.hdr_alignment);

	memset(&p, 0, sizeof(p));
	fd = q_setup(8, &p);
	ASSERT_LE(0, fd);
	EXPECT_EQ(p.cq_off.cqes, s.hdr_size);
	EXPECT_EQ(0, s.hdr_size % s.hdr_alignment);
	EXPECT_EQ(0, s.hdr_alignment & (s.hdr_alignment - 1));
	close(fd);
}

/*
 * What this kernel's zcrx has: registration with no device or by import,
 * dmabuf areas, rx_buf_len, events and statistics, and four control
 * operations (FLUSH_RQ, EXPORT, ARM_EVENT, ADD_AREA). The refill ring's entries
 * start at rq_hdr_size rounded up to the alignment, where a registration
 * puts them (zcrx's own test checks that offset). Both event types, and
 * 16 bytes of statistics on an 8-byte boundary.
 */
TEST(zcrx_says_what_it_has_and_nothing_more)
{
	struct io_uring_query_zcrx_event e;
	struct io_uring_query_zcrx z;

	EXPECT_EQ(ZCRX_SIZE, q_ask(_metadata, IO_URING_QUERY_ZCRX, &z,
				   sizeof(z)));
	EXPECT_EQ(ZCRX_REG_NODEV | ZCRX_REG_IMPORT, z.register_flags);
	EXPECT_EQ(IORING_ZCRX_AREA_DMABUF, z.area_flags);
	EXPECT_EQ(4, z.nr_ctrl_opcodes);
	EXPECT_EQ(ZCRX_FEATURE_RX_PAGE_SIZE | ZCRX_FEATURE_EVENT, z.features);
	EXPECT_EQ(128, z.rq_hdr_size);
	EXPECT_EQ(64, z.rq_hdr_alignment);
	EXPECT_EQ(0, z.__resv2);

	EXPECT_EQ(ZCRX_EVENT_SIZE, q_ask(_metadata, IO_URING_QUERY_ZCRX_EVENT,
					 &e, sizeof(e)));
	EXPECT_EQ(1 << ZCRX_EVENT_ALLOC_FAIL | 1 << ZCRX_EVENT_COPY,
		  e.event_flags);
	EXPECT_EQ(16, e.stats_size);
	EXPECT_EQ(8, e.stats_off_alignment);
	EXPECT_EQ(0, e.__resv1);
	EXPECT_TRUE(q_all_bytes(e.__resv2, sizeof(e.__resv2), 0));
}

/* The sizes and offsets of upstream's zcrx uAPI, from its own header. */
TEST(zcrx_uapi_has_upstreams_layouts_in_its_own_header)
{
	EXPECT_EQ(16, sizeof(struct io_uring_zcrx_rqe));
	EXPECT_EQ(16, sizeof(struct io_uring_zcrx_cqe));
	EXPECT_EQ(32, sizeof(struct io_uring_zcrx_offsets));
	EXPECT_EQ(48, sizeof(struct io_uring_zcrx_area_reg));
	EXPECT_EQ(24, offsetof(struct io_uring_zcrx_area_reg, flags));
	EXPECT_EQ(96, sizeof(struct io_uring_zcrx_ifq_reg));
	EXPECT_EQ(32, offsetof(struct io_uring_zcrx_ifq_reg, offsets));
	EXPECT_EQ(64, offsetof(struct io_uring_zcrx_ifq_reg, zcrx_id));
	EXPECT_EQ(72, offsetof(struct io_uring_zcrx_ifq_reg, event_desc));
	EXPECT_EQ(96, sizeof(struct zcrx_event_desc));
	EXPECT_EQ(16, offsetof(struct zcrx_event_desc, stats_offset));
	EXPECT_EQ(16, sizeof(struct zcrx_stats));
	EXPECT_EQ(72, sizeof(struct zcrx_ctrl));
	EXPECT_EQ(24, offsetof(struct zcrx_ctrl, zc_area));
	EXPECT_EQ(48, sizeof(struct zcrx_ctrl_area));
	EXPECT_EQ(3, ZCRX_CTRL_ADD_AREA);
	EXPECT_EQ(48, IORING_ZCRX_AREA_SHIFT);
}

TEST(a_ring_fd_answers_as_no_ring_does)
{
	struct io_uring_query_opcode a, b;
	struct io_uring_query_hdr hdr;
	struct io_uring_params p;
	int fd;

	memset(&p, 0, sizeof(p));
	fd = q_setup(8, &p);
	ASSERT_LE(0, fd);
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, &a, sizeof(a));
	ASSERT_EQ(0, q_query(-1, &hdr));
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, &b, sizeof(b));
	ASSERT_EQ(0, q_query(fd, &hdr));
	EXPECT_EQ(0, hdr.result);
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	close(fd);
}

TEST(without_a_ring_only_the_query_is_taken)
{
	struct io_uring_zcrx_ifq_reg reg;
	int null_fd;

	memset(&reg, 0, sizeof(reg));
	EXPECT_EQ(-EINVAL, q_register(-1, IORING_REGISTER_ZCRX_IFQ, &reg, 1));
	EXPECT_EQ(-EINVAL, q_register(-1, IORING_REGISTER_BUFFERS, NULL, 0));
	/* upstream's 33 (below the last opcode here), and past the last */
	EXPECT_EQ(-EINVAL, q_register(-1, 33, NULL, 0));
	EXPECT_EQ(-EINVAL, q_register(-1, IORING_REGISTER_LAST, NULL, 0));
	/* any other fd that is no ring is still EBADF */
	EXPECT_EQ(-EBADF, q_register(-2, IORING_REGISTER_BUFFERS, NULL, 0));
	/* and a file that is no ring cannot be asked */
	null_fd = open("/dev/null", O_RDONLY);
	ASSERT_LE(0, null_fd);
	EXPECT_EQ(-EOPNOTSUPP,
		  q_register(null_fd, IORING_REGISTER_QUERY, NULL, 0));
	close(null_fd);
}

TEST(nr_args_must_be_zero_and_no_argument_asks_nothing)
{
	struct io_uring_query_opcode o;
	struct io_uring_query_hdr hdr;

	q_hdr(&hdr, IO_URING_QUERY_OPCODES, &o, sizeof(o));
	EXPECT_EQ(-EINVAL, q_register(-1, IORING_REGISTER_QUERY, &hdr, 1));
	EXPECT_EQ(0, hdr.result);
	EXPECT_EQ(sizeof(o), hdr.size);
	EXPECT_EQ(0, q_register(-1, IORING_REGISTER_QUERY, NULL, 0));
}

TEST(an_unknown_question_fails_in_its_result_alone)
{
	struct io_uring_query_hdr hdr[2];
	unsigned char buf[64];
	struct io_uring_query_opcode o;

	memset(buf, 0xaa, sizeof(buf));
	q_hdr(&hdr[0], 0xffffffff, buf, sizeof(buf));
	q_hdr(&hdr[1], IO_URING_QUERY_OPCODES, &o, sizeof(o));
	hdr[0].next_entry = (uintptr_t)&hdr[1];
	ASSERT_EQ(0, q_query(-1, &hdr[0]));
	EXPECT_EQ(-EOPNOTSUPP, hdr[0].result);
	EXPECT_EQ(0, hdr[0].size);
	EXPECT_TRUE(q_all_bytes(buf, sizeof(buf), 0));
	/* the next entry is answered all the same */
	EXPECT_EQ(0, hdr[1].result);
	EXPECT_EQ(OPCODE_SIZE, hdr[1].size);

	q_hdr(&hdr[0], __IO_URING_QUERY_MAX, buf, sizeof(buf));
	ASSERT_EQ(0, q_query(-1, &hdr[0]));
	EXPECT_EQ(-EOPNOTSUPP, hdr[0].result);

	/* an unknown question is that before it is anything else */
	q_hdr(&hdr[0], 0xffffffff, buf, sizeof(buf));
	hdr[0].__resv[0] = 1;
	ASSERT_EQ(0, q_query(-1, &hdr[0]));
	EXPECT_EQ(-EOPNOTSUPP, hdr[0].result);
	q_hdr(&hdr[0], 0xffffffff, buf, 0);
	ASSERT_EQ(0, q_query(-1, &hdr[0]));
	EXPECT_EQ(-EOPNOTSUPP, hdr[0].result);
}

TEST(reserved_words_a_stale_result_and_no_buffer_are_invalid)
{
	struct io_uring_query_hdr hdr;
	unsigned char buf[64];
	int i;

	for (i = 0; i < 3; i++) {
		memset(buf, 0xaa, sizeof(buf));
		q_hdr(&hdr, IO_URING_QUERY_OPCODES, buf, sizeof(buf));
		hdr.__resv[i] = 1;
		ASSERT_EQ(0, q_query(-1, &hdr));
		EXPECT_EQ(-EINVAL, hdr.result);
		EXPECT_EQ(0, hdr.size);
		/* the buffer is cleared, as for any failed entry */
		EXPECT_TRUE(q_all_bytes(buf, sizeof(buf), 0));
		EXPECT_EQ(1, hdr.__resv[i]);
	}

	/* a header used before must have its result cleared */
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, buf, sizeof(buf));
	hdr.result = -EINVAL;
	ASSERT_EQ(0, q_query(-1, &hdr));
	EXPECT_EQ(-EINVAL, hdr.result);

	q_hdr(&hdr, IO_URING_QUERY_OPCODES, buf, 0);
	ASSERT_EQ(0, q_query(-1, &hdr));
	EXPECT_EQ(-EINVAL, hdr.result);
	EXPECT_EQ(0, hdr.size);
}

TEST(a_buffer_over_a_page_is_too_big)
{
	size_t page = sysconf(_SC_PAGESIZE);
	struct io_uring_query_hdr hdr;
	unsigned char *buf;

	buf = malloc(2 * page);
	ASSERT_NE(NULL, buf);
	memset(buf, 0xaa, 2 * page);
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, buf, page + 1);
	EXPECT_EQ(-E2BIG, q_query(-1, &hdr));
	/* not answered: header and buffer as they were */
	EXPECT_EQ(0, hdr.result);
	EXPECT_EQ(page + 1, hdr.size);
	EXPECT_EQ(0xaa, buf[0]);
	/* the size is checked before the question */
	q_hdr(&hdr, 0xffffffff, buf, page + 1);
	EXPECT_EQ(-E2BIG, q_query(-1, &hdr));

	q_hdr(&hdr, IO_URING_QUERY_OPCODES, buf, page);
	ASSERT_EQ(0, q_query(-1, &hdr));
	EXPECT_EQ(0, hdr.result);
	EXPECT_EQ(OPCODE_SIZE, hdr.size);
	EXPECT_TRUE(q_all_bytes(buf + OPCODE_SIZE, page - OPCODE_SIZE, 0));
	EXPECT_EQ(0xaa, buf[page]);
	free(buf);
}

TEST(memory_that_cannot_be_read_or_written_faults)
{
	struct io_uring_query_hdr hdr, *ro;
	struct io_uring_query_opcode o;
	void *hole = q_hole();
	void *ro_page;

	ASSERT_NE(NULL, hole);
	/* the header itself, the next one, the answer buffer */
	EXPECT_EQ(-EFAULT, q_query(-1, hole));
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, &o, sizeof(o));
	hdr.next_entry = (uintptr_t)hole;
	EXPECT_EQ(-EFAULT, q_query(-1, &hdr));
	/* the first entry was answered before the fault */
	EXPECT_EQ(0, hdr.result);
	EXPECT_EQ(OPCODE_SIZE, hdr.size);
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, hole, sizeof(o));
	EXPECT_EQ(-EFAULT, q_query(-1, &hdr));
	/* a failed entry's buffer is written too */
	q_hdr(&hdr, 0xffffffff, hole, sizeof(o));
	EXPECT_EQ(-EFAULT, q_query(-1, &hdr));

	/* an answer that can be read and not written, whole or past 48 */
	ro_page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro_page);
	ASSERT_EQ(0, mprotect((char *)ro_page + 4096, 4096, PROT_READ));
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, (char *)ro_page + 4096,
	      sizeof(o));
	EXPECT_EQ(-EFAULT, q_query(-1, &hdr));
	q_hdr(&hdr, IO_URING_QUERY_OPCODES,
	      (char *)ro_page + 4096 - OPCODE_SIZE, 4096);
	EXPECT_EQ(-EFAULT, q_query(-1, &hdr));
	munmap(ro_page, 8192);

	/* a header that can be read and not written back */
	ro_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro_page);
	ro = ro_page;
	q_hdr(ro, IO_URING_QUERY_OPCODES, &o, sizeof(o));
	ASSERT_EQ(0, mprotect(ro_page, 4096, PROT_READ));
	EXPECT_EQ(-EFAULT, q_query(-1, ro));
	munmap(ro_page, 4096);
	munmap(hole, 4096);
}

TEST(a_chain_is_answered_entry_by_entry)
{
	struct io_uring_query_opcode o[3];
	struct io_uring_query_hdr hdr[5];
	struct io_uring_query_zcrx z;
	struct io_uring_query_scq s;
	int i;

	for (i = 0; i < 3; i++) {
		q_hdr(&hdr[i], IO_URING_QUERY_OPCODES, &o[i], sizeof(o[i]));
		if (i)
			hdr[i - 1].next_entry = (uintptr_t)&hdr[i];
	}
	q_hdr(&hdr[3], IO_URING_QUERY_ZCRX, &z, sizeof(z));
	q_hdr(&hdr[4], IO_URING_QUERY_SCQ, &s, sizeof(s));
	hdr[2].next_entry = (uintptr_t)&hdr[3];
	hdr[3].next_entry = (uintptr_t)&hdr[4];
	ASSERT_EQ(0, q_query(-1, &hdr[0]));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(0, hdr[i].result);
	EXPECT_EQ(0, memcmp(&o[0], &o[1], sizeof(o[0])));
	EXPECT_EQ(0, memcmp(&o[0], &o[2], sizeof(o[0])));
	EXPECT_EQ(ZCRX_SIZE, hdr[3].size);
	EXPECT_EQ(SCQ_SIZE, hdr[4].size);
	/* next_entry is left as it was */
	EXPECT_EQ((uintptr_t)&hdr[4], hdr[3].next_entry);
	EXPECT_EQ(0, hdr[4].next_entry);
}

TEST(a_cycle_ends_at_the_chain_limit)
{
	struct io_uring_query_hdr *chain, self, pair[2];
	struct io_uring_query_opcode o;
	int i;

	q_hdr(&self, IO_URING_QUERY_OPCODES, &o, sizeof(o));
	self.next_entry = (uintptr_t)&self;
	EXPECT_EQ(-ERANGE, q_query(-1, &self));

	q_hdr(&pair[0], IO_URING_QUERY_OPCODES, &o, sizeof(o));
	q_hdr(&pair[1], IO_URING_QUERY_OPCODES, &o, sizeof(o));
	pair[0].next_entry = (uintptr_t)&pair[1];
	pair[1].next_entry = (uintptr_t)&pair[0];
	EXPECT_EQ(-ERANGE, q_query(-1, &pair[0]));

	/* 999 entries are answered; the 1000th ends the call */
	chain = calloc(CHAIN_LIMIT, sizeof(*chain));
	ASSERT_NE(NULL, chain);
	for (i = 0; i < CHAIN_LIMIT; i++) {
		q_hdr(&chain[i], IO_URING_QUERY_OPCODES, &o, sizeof(o));
		if (i)
			chain[i - 1].next_entry = (uintptr_t)&chain[i];
	}
	chain[CHAIN_LIMIT - 2].next_entry = 0;
	EXPECT_EQ(0, q_query(-1, &chain[0]));
	EXPECT_EQ(0, chain[CHAIN_LIMIT - 2].result);
	for (i = 0; i < CHAIN_LIMIT; i++)
		chain[i].result = 0;
	chain[CHAIN_LIMIT - 2].next_entry = (uintptr_t)&chain[CHAIN_LIMIT - 1];
	EXPECT_EQ(-ERANGE, q_query(-1, &chain[0]));
	EXPECT_EQ(0, chain[CHAIN_LIMIT - 1].result);
	EXPECT_EQ(OPCODE_SIZE, chain[CHAIN_LIMIT - 1].size);
	free(chain);
}

TEST(a_smaller_buffer_gets_the_answer_cut_short)
{
	struct io_uring_query_opcode o;
	struct io_uring_query_hdr hdr;

	memset(&o, 0xaa, sizeof(o));
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, &o, 8);
	ASSERT_EQ(0, q_query(-1, &hdr));
	EXPECT_EQ(0, hdr.result);
	EXPECT_EQ(8, hdr.size);
	EXPECT_EQ(IORING_OP_LAST, o.nr_request_opcodes);
	EXPECT_EQ(IORING_REGISTER_LAST, o.nr_register_opcodes);
	/* nothing past the caller's size is written */
	EXPECT_TRUE(q_all_bytes((char *)&o + 8, sizeof(o) - 8, 0xaa));
}

TEST(a_larger_buffer_gets_zeroes_after_the_answer)
{
	struct io_uring_query_opcode ref;
	struct io_uring_query_hdr hdr;
	unsigned char buf[112];

	q_hdr(&hdr, IO_URING_QUERY_OPCODES, &ref, sizeof(ref));
	ASSERT_EQ(0, q_query(-1, &hdr));
	memset(buf, 0xaa, sizeof(buf));
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, buf, sizeof(buf));
	ASSERT_EQ(0, q_query(-1, &hdr));
	EXPECT_EQ(0, hdr.result);
	EXPECT_EQ(OPCODE_SIZE, hdr.size);
	EXPECT_EQ(0, memcmp(buf, &ref, sizeof(ref)));
	EXPECT_TRUE(q_all_bytes(buf + OPCODE_SIZE, sizeof(buf) - OPCODE_SIZE,
				0));

	/* the answers shorter than the longest one: nothing after them */
	memset(buf, 0xaa, sizeof(buf));
	q_hdr(&hdr, IO_URING_QUERY_SCQ, buf, 64);
	ASSERT_EQ(0, q_query(-1, &hdr));
	EXPECT_EQ(SCQ_SIZE, hdr.size);
	EXPECT_TRUE(q_all_bytes(buf + SCQ_SIZE, 64 - SCQ_SIZE, 0));
	EXPECT_EQ(0xaa, buf[64]);
	memset(buf, 0xaa, sizeof(buf));
	q_hdr(&hdr, IO_URING_QUERY_ZCRX, buf, 64);
	ASSERT_EQ(0, q_query(-1, &hdr));
	EXPECT_EQ(ZCRX_SIZE, hdr.size);
	EXPECT_TRUE(q_all_bytes(buf + ZCRX_SIZE, 64 - ZCRX_SIZE, 0));
}

/* Through a ring the query is a register opcode like the others. */
TEST(a_ring_s_restrictions_and_its_single_issuer_apply)
{
	struct io_uring_restriction res;
	struct io_uring_query_opcode o;
	struct io_uring_query_hdr hdr;
	struct io_uring_params p;
	int fd, status;
	pid_t pid;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_R_DISABLED;
	fd = q_setup(8, &p);
	ASSERT_LE(0, fd);
	memset(&res, 0, sizeof(res));
	res.opcode = IORING_RESTRICTION_REGISTER_OP;
	res.register_op = IORING_REGISTER_BUFFERS;
	ASSERT_EQ(0, q_register(fd, IORING_REGISTER_RESTRICTIONS, &res, 1));
	ASSERT_EQ(0, q_register(fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, &o, sizeof(o));
	EXPECT_EQ(-EACCES, q_query(fd, &hdr));
	/* no ring, no restriction */
	EXPECT_EQ(0, q_query(-1, &hdr));
	close(fd);

	/* a restriction may allow the query; a disabled ring is exempt */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_R_DISABLED;
	fd = q_setup(8, &p);
	ASSERT_LE(0, fd);
	res.register_op = IORING_REGISTER_QUERY;
	ASSERT_EQ(0, q_register(fd, IORING_REGISTER_RESTRICTIONS, &res, 1));
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, &o, sizeof(o));
	EXPECT_EQ(0, q_query(fd, &hdr));
	EXPECT_NE(-EACCES, q_register(fd, IORING_REGISTER_BUFFERS, NULL, 0));
	ASSERT_EQ(0, q_register(fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0));
	q_hdr(&hdr, IO_URING_QUERY_OPCODES, &o, sizeof(o));
	EXPECT_EQ(0, q_query(fd, &hdr));
	EXPECT_EQ(-EACCES, q_register(fd, IORING_REGISTER_BUFFERS, NULL, 0));
	close(fd);

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER;
	fd = q_setup(8, &p);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		q_hdr(&hdr, IO_URING_QUERY_OPCODES, &o, sizeof(o));
		_exit(q_query(fd, &hdr) == -EEXIST &&
		      q_query(-1, &hdr) == 0 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(fd);
}

TEST_HARNESS_MAIN
