// SPDX-License-Identifier: GPL-2.0
/*
 * IORING_SETUP_CQE_MIXED, the ring zcrx takes beside a CQE32 one: CQEs of
 * 16 and of 32 bytes in one CQ ring of 16-byte entries. What setup
 * refuses, IORING_NOP_CQE32, and what must count CQEs rather than ring
 * entries: a timeout's completion count, IOSQE_IO_DRAIN and the ring's
 * fdinfo; and the order of CQEs when a 32-byte one overflows. liburing's
 * own nop32, nop32-overflow and cq-peek-batch-mixed tests (liburing.sh)
 * check the filler at the ring's end and the overflow list. Needs no
 * device.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
#include <linux/time_types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../../kselftest_harness.h"
#include "zcrx_lib.h"

/* queue a NOP with @nop_flags; a 32-byte one carries @extra, @extra + 1 */
static void mixed_nop(struct zr_ring *r, __u64 ud, __u32 nop_flags,
		      __u64 extra, __u8 sqe_flags)
{
	struct io_uring_sqe *sqe = zr_get_sqe(r);

	sqe->opcode = IORING_OP_NOP;
	sqe->flags = sqe_flags;
	sqe->nop_flags = nop_flags;
	sqe->off = extra;
	sqe->addr = extra + 1;
	sqe->user_data = ud;
}

/*
 * The next CQE within @ms milliseconds, or NULL. Entering with GETEVENTS
 * and nothing to wait for flushes the overflow list.
 */
static struct io_uring_cqe *mixed_next(struct zr_ring *r, int ms)
{
	struct io_uring_cqe *cqe;

	while (!(cqe = zr_peek_cqe(r)) && ms-- > 0) {
		syscall(__NR_io_uring_enter, r->fd, 0, 0,
			IORING_ENTER_GETEVENTS, NULL, 0);
		usleep(1000);
	}
	return cqe;
}

/*
 * Consume the next CQE, waiting up to a second for it, and check that it
 * is @ud's, with @res and @flags; a 32-byte one's second half goes to
 * @big if given. False if none came.
 */
static bool mixed_take(struct __test_metadata *_metadata, struct zr_ring *r,
		       __u64 ud, int res, __u32 flags, __u64 *big)
{
	struct io_uring_cqe *cqe = mixed_next(r, 1000);

	if (!cqe) {
		TH_LOG("CQE %llu never came", (unsigned long long)ud);
		return false;
	}
	EXPECT_EQ(ud, cqe->user_data);
	EXPECT_EQ(res, cqe->res);
	EXPECT_EQ(flags, cqe->flags);
	if (big) {
		big[0] = cqe->big_cqe[0];
		big[1] = cqe->big_cqe[1];
	}
	zr_cqe_seen(r);
	return true;
}

TEST(setup_refuses_mixed_with_cqe32_and_a_cq_of_one_entry)
{
	struct zr_ring r;

	EXPECT_EQ(-EINVAL, zr_ring_init_raw(&r, 8, 0, IORING_SETUP_CQE_MIXED |
					    IORING_SETUP_CQE32));
	/* a 32-byte CQE takes two entries */
	EXPECT_EQ(-EINVAL, zr_ring_init_raw(&r, 1, 1, IORING_SETUP_CQE_MIXED));
	ASSERT_EQ(0, zr_ring_init_raw(&r, 1, 2, IORING_SETUP_CQE_MIXED));
	zr_ring_exit(&r);
}

TEST(nop_cqe32_needs_a_ring_of_32_byte_cqes_and_takes_no_other_flag)
{
	struct zr_ring r;
	__u64 big[2];

	/* both SQEs submitted, though the first fails */
	ASSERT_EQ(0, zr_ring_init_raw(&r, 8, 0, IORING_SETUP_SUBMIT_ALL));
	mixed_nop(&r, 1, IORING_NOP_CQE32, 10, 0);
	/* bit 0 is upstream's IORING_NOP_INJECT_RESULT, which 6.1 lacks */
	mixed_nop(&r, 2, 1, 0, 0);
	ASSERT_EQ(2, zr_submit_wait(&r, 2));
	ASSERT_TRUE(mixed_take(_metadata, &r, 1, -EINVAL, 0, NULL));
	ASSERT_TRUE(mixed_take(_metadata, &r, 2, -EINVAL, 0, NULL));
	zr_ring_exit(&r);

	/* a CQE32 ring: the second half, and no IORING_CQE_F_32 */
	ASSERT_EQ(0, zr_ring_init_raw(&r, 8, 0, IORING_SETUP_CQE32));
	mixed_nop(&r, 3, IORING_NOP_CQE32, 30, 0);
	ASSERT_EQ(1, zr_submit_wait(&r, 1));
	ASSERT_TRUE(mixed_take(_metadata, &r, 3, 0, 0, big));
	EXPECT_EQ(30, big[0]);
	EXPECT_EQ(31, big[1]);
	zr_ring_exit(&r);

	/* a CQE_MIXED ring: two entries, IORING_CQE_F_32 set */
	ASSERT_EQ(0, zr_ring_init_raw(&r, 8, 0, IORING_SETUP_CQE_MIXED));
	mixed_nop(&r, 4, IORING_NOP_CQE32, 40, 0);
	mixed_nop(&r, 5, 0, 0, 0);
	ASSERT_EQ(2, zr_submit_wait(&r, 3));
	EXPECT_EQ(3, *r.cq_tail);
	ASSERT_TRUE(mixed_take(_metadata, &r, 4, 0, IORING_CQE_F_32, big));
	EXPECT_EQ(40, big[0]);
	EXPECT_EQ(41, big[1]);
	ASSERT_TRUE(mixed_take(_metadata, &r, 5, 0, 0, NULL));
	zr_ring_exit(&r);
}

/*
 * A timeout that completes after 3 CQEs: two 32-byte ones (four entries)
 * do not complete it, the third CQE does.
 */
TEST(a_timeout_counts_cqes_not_ring_entries)
{
	struct __kernel_timespec ts = { .tv_sec = 10 };
	struct io_uring_sqe *sqe;
	struct zr_ring r;

	ASSERT_EQ(0, zr_ring_init_raw(&r, 8, 0, IORING_SETUP_CQE_MIXED));
	sqe = zr_get_sqe(&r);
	sqe->opcode = IORING_OP_TIMEOUT;
	sqe->addr = (unsigned long)&ts;
	sqe->len = 1;
	sqe->off = 3;
	sqe->user_data = 99;
	mixed_nop(&r, 1, IORING_NOP_CQE32, 10, 0);
	mixed_nop(&r, 2, IORING_NOP_CQE32, 20, 0);
	ASSERT_EQ(3, zr_submit_wait(&r, 4));
	ASSERT_TRUE(mixed_take(_metadata, &r, 1, 0, IORING_CQE_F_32, NULL));
	ASSERT_TRUE(mixed_take(_metadata, &r, 2, 0, IORING_CQE_F_32, NULL));
	/* four entries, two CQEs: the timeout still waits */
	EXPECT_EQ(NULL, mixed_next(&r, 50));

	mixed_nop(&r, 3, 0, 0, 0);
	ASSERT_EQ(1, zr_submit_wait(&r, 2));
	ASSERT_TRUE(mixed_take(_metadata, &r, 3, 0, 0, NULL));
	/* completed by its count (res 0), not by its time (-ETIME) */
	ASSERT_TRUE(mixed_take(_metadata, &r, 99, 0, 0, NULL));
	zr_ring_exit(&r);
}

/* A drained NOP runs once the two 32-byte CQEs before it are posted. */
TEST(a_drained_request_waits_for_cqes_not_ring_entries)
{
	struct zr_ring r;

	ASSERT_EQ(0, zr_ring_init_raw(&r, 8, 0, IORING_SETUP_CQE_MIXED));
	mixed_nop(&r, 1, IORING_NOP_CQE32, 10, 0);
	mixed_nop(&r, 2, IORING_NOP_CQE32, 20, 0);
	mixed_nop(&r, 3, 0, 0, IOSQE_IO_DRAIN);
	ASSERT_EQ(3, zr_submit_wait(&r, 0));
	ASSERT_TRUE(mixed_take(_metadata, &r, 1, 0, IORING_CQE_F_32, NULL));
	ASSERT_TRUE(mixed_take(_metadata, &r, 2, 0, IORING_CQE_F_32, NULL));
	ASSERT_TRUE(mixed_take(_metadata, &r, 3, 0, 0, NULL));
	zr_ring_exit(&r);
}

/*
 * A 32-byte CQE that finds one entry free, not the ring's last, goes to
 * the overflow list; the 16-byte CQE after it must not take that entry
 * ahead of it. The CQEs arrive in the order of their requests.
 */
TEST(an_overflowed_32_byte_cqe_is_not_overtaken)
{
	struct zr_ring r;
	__u64 ud;

	/* 4 entries; head 3, tail 4: entries 0 to 2 free */
	ASSERT_EQ(0, zr_ring_init_raw(&r, 4, 4, IORING_SETUP_CQE_MIXED));
	for (ud = 1; ud <= 4; ud++)
		mixed_nop(&r, ud, 0, 0, 0);
	ASSERT_EQ(4, zr_submit_wait(&r, 4));
	for (ud = 1; ud <= 3; ud++)
		ASSERT_TRUE(mixed_take(_metadata, &r, ud, 0, 0, NULL));
	/* 5 and 6 take entries 0 and 1, 7 overflows, then 8 */
	mixed_nop(&r, 5, 0, 0, 0);
	mixed_nop(&r, 6, 0, 0, 0);
	mixed_nop(&r, 7, IORING_NOP_CQE32, 70, 0);
	mixed_nop(&r, 8, 0, 0, 0);
	ASSERT_EQ(4, zr_submit_wait(&r, 0));
	for (ud = 4; ud <= 8; ud++)
		ASSERT_TRUE(mixed_take(_metadata, &r, ud, 0,
				       ud == 7 ? IORING_CQE_F_32 : 0, NULL));
	zr_ring_exit(&r);
}

/* fdinfo lists a 32-byte CQE once, with its second half. */
TEST(fdinfo_lists_a_32_byte_cqe_once)
{
	char path[64], line[256];
	int lines = 0, extra = 0;
	struct zr_ring r;
	FILE *f;

	ASSERT_EQ(0, zr_ring_init_raw(&r, 8, 0, IORING_SETUP_CQE_MIXED));
	mixed_nop(&r, 1, 0, 0, 0);
	mixed_nop(&r, 2, IORING_NOP_CQE32, 70, 0);
	mixed_nop(&r, 3, 0, 0, 0);
	ASSERT_EQ(3, zr_submit_wait(&r, 4));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", r.fd);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "user_data:"))
			continue;
		lines++;
		if (strstr(line, "user_data:2,") &&
		    strstr(line, "extra1:70, extra2:71"))
			extra++;
	}
	fclose(f);
	EXPECT_EQ(3, lines);
	EXPECT_EQ(1, extra);
	zr_ring_exit(&r);
}

TEST_HARNESS_MAIN
