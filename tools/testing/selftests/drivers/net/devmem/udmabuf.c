// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the memory devmem TCP consumes: udmabuf as the 6.1
 * base ships it, with the series' udmabuf fixes (PFN mappings, huge pages
 * allocated at create). A udmabuf stands in for GPU memory in every other
 * test, so pin down what it accepts, what it refuses and with which errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/dma-buf.h>
#include <linux/udmabuf.h>

#include "../../../kselftest_harness.h"
#include "devmem_lib.h"

#define MIB		(1024UL * 1024UL)
#define BUF_SIZE	(64 * MIB)

FIXTURE(udmabuf)
{
	int devfd;
	int memfd;
};

FIXTURE_SETUP(udmabuf)
{
	self->memfd = -1;
	self->devfd = open("/dev/udmabuf", O_RDWR);
	if (self->devfd < 0)
		SKIP(return, "/dev/udmabuf: %s (CONFIG_UDMABUF)", strerror(errno));

	self->memfd = memfd_create("udmabuf-test", MFD_ALLOW_SEALING);
	ASSERT_GE(self->memfd, 0);
	ASSERT_EQ(0, ftruncate(self->memfd, BUF_SIZE));
}

FIXTURE_TEARDOWN(udmabuf)
{
	if (self->memfd >= 0)
		close(self->memfd);
	if (self->devfd >= 0)
		close(self->devfd);
}

static int create_udmabuf(int devfd, int memfd, __u64 offset, __u64 size)
{
	struct udmabuf_create create = {
		.memfd = memfd,
		.flags = UDMABUF_FLAGS_CLOEXEC,
		.offset = offset,
		.size = size,
	};

	return ioctl(devfd, UDMABUF_CREATE, &create);
}

static int dmabuf_sync(int fd, __u64 flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
}

static uint8_t pattern_byte(size_t i)
{
	return (uint8_t)(i * 31 + (i >> 12));
}

TEST_F(udmabuf, sealed_64mib_map_write_read_back)
{
	uint8_t *buf, *shadow;
	size_t i, bad = 0;
	int fd;

	ASSERT_EQ(0, fcntl(self->memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	fd = create_udmabuf(self->devfd, self->memfd, 0, BUF_SIZE);
	ASSERT_GE(fd, 0);

	buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, buf);

	ASSERT_EQ(0, dmabuf_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE));
	for (i = 0; i < BUF_SIZE; i++)
		buf[i] = pattern_byte(i);
	ASSERT_EQ(0, dmabuf_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE));

	ASSERT_EQ(0, dmabuf_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ));
	for (i = 0; i < BUF_SIZE; i++)
		bad += buf[i] != pattern_byte(i);
	ASSERT_EQ(0, dmabuf_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ));
	EXPECT_EQ(0, bad);

	/* The dmabuf is the memfd's pages: the writes show through it. */
	shadow = mmap(NULL, BUF_SIZE, PROT_READ, MAP_SHARED, self->memfd, 0);
	ASSERT_NE(MAP_FAILED, shadow);
	EXPECT_EQ(0, memcmp(buf, shadow, BUF_SIZE));

	munmap(shadow, BUF_SIZE);
	munmap(buf, BUF_SIZE);
	close(fd);
}

TEST_F(udmabuf, fd_outlives_memfd_close)
{
	uint8_t *buf;
	int fd;

	ASSERT_EQ(0, fcntl(self->memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	fd = create_udmabuf(self->devfd, self->memfd, 0, 16 * 4096);
	ASSERT_GE(fd, 0);
	close(self->memfd);
	self->memfd = -1;

	buf = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, buf);
	buf[0] = 0x5a;
	EXPECT_EQ(0x5a, buf[0]);
	munmap(buf, 16 * 4096);
	close(fd);
}

TEST_F(udmabuf, rejects_memfd_without_seal_shrink)
{
	EXPECT_EQ(-1, create_udmabuf(self->devfd, self->memfd, 0, BUF_SIZE));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(udmabuf, rejects_memfd_with_seal_write)
{
	ASSERT_EQ(0, fcntl(self->memfd, F_ADD_SEALS,
			   F_SEAL_SHRINK | F_SEAL_WRITE));
	EXPECT_EQ(-1, create_udmabuf(self->devfd, self->memfd, 0, BUF_SIZE));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(udmabuf, rejects_unaligned_size)
{
	ASSERT_EQ(0, fcntl(self->memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	EXPECT_EQ(-1, create_udmabuf(self->devfd, self->memfd, 0, 4096 + 1));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(udmabuf, rejects_unaligned_offset)
{
	ASSERT_EQ(0, fcntl(self->memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	EXPECT_EQ(-1, create_udmabuf(self->devfd, self->memfd, 512, 4096));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(udmabuf, rejects_zero_size)
{
	ASSERT_EQ(0, fcntl(self->memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	EXPECT_EQ(-1, create_udmabuf(self->devfd, self->memfd, 0, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(udmabuf, rejects_size_above_limit)
{
	/* size_limit_mb defaults to 64 */
	ASSERT_EQ(0, ftruncate(self->memfd, BUF_SIZE + 4096));
	ASSERT_EQ(0, fcntl(self->memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	EXPECT_EQ(-1, create_udmabuf(self->devfd, self->memfd, 0,
				     BUF_SIZE + 4096));
	EXPECT_EQ(EINVAL, errno);
}

/* 6.1 answers EBADFD (not EBADF) for fds that are not shmem/hugetlbfs. */
TEST_F(udmabuf, rejects_non_memfd)
{
	int fd = open("/proc/self/status", O_RDONLY);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, create_udmabuf(self->devfd, fd, 0, 4096));
	EXPECT_EQ(EBADFD, errno);
	close(fd);
}

TEST_F(udmabuf, rejects_closed_fd)
{
	EXPECT_EQ(-1, create_udmabuf(self->devfd, 1000000, 0, 4096));
	EXPECT_EQ(EBADFD, errno);
}

TEST_F(udmabuf, rejects_range_beyond_memfd_size)
{
	ASSERT_EQ(0, fcntl(self->memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	EXPECT_EQ(-1, create_udmabuf(self->devfd, self->memfd, BUF_SIZE - 4096,
				     2 * 4096));
	EXPECT_EQ(EINVAL, errno);
	/* offset + size wraps around */
	EXPECT_EQ(-1, create_udmabuf(self->devfd, self->memfd,
				     ~0ULL & ~4095ULL, 2 * 4096));
	EXPECT_EQ(EINVAL, errno);
}

/* A shmem memfd nobody touched: the create allocates, the pages read 0. */
TEST_F(udmabuf, shmem_memfd_never_faulted_reads_zeros)
{
	size_t size = 4 * MIB, i, nonzero = 0;
	uint8_t *buf, *shadow;
	int fd;

	ASSERT_EQ(0, fcntl(self->memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	fd = create_udmabuf(self->devfd, self->memfd, 8 * MIB, size);
	ASSERT_GE(fd, 0);
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, buf);
	for (i = 0; i < size; i++)
		nonzero += buf[i] != 0;
	EXPECT_EQ(0, nonzero);
	buf[size - 1] = 0xa5;
	shadow = mmap(NULL, BUF_SIZE, PROT_READ, MAP_SHARED, self->memfd, 0);
	ASSERT_NE(MAP_FAILED, shadow);
	EXPECT_EQ(0xa5, shadow[8 * MIB + size - 1]);
	munmap(shadow, BUF_SIZE);
	munmap(buf, size);
	close(fd);
}

/* Upstream's ncdevmem opens /dev/udmabuf read-only: create needs no more. */
TEST_F(udmabuf, read_only_dev_udmabuf_creates)
{
	int rofd, fd;

	rofd = open("/dev/udmabuf", O_RDONLY);
	ASSERT_GE(rofd, 0);
	ASSERT_EQ(0, fcntl(self->memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	fd = create_udmabuf(rofd, self->memfd, 0, MIB);
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
	close(rofd);
}

static long hugepages_free(void)
{
	long free_pages = -1;
	char line[128];
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Free: %ld", &free_pages) == 1)
			break;
	fclose(f);
	return free_pages;
}

/* A just-truncated hugetlb memfd, as upstream's ncdevmem makes for -b 16384 */
static int huge_memfd(size_t size)
{
	int memfd;

	memfd = memfd_create("udmabuf-huge", MFD_ALLOW_SEALING | MFD_HUGETLB |
			     MFD_HUGE_2MB);
	if (memfd < 0)
		return -1;
	if (ftruncate(memfd, size) ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		close(memfd);
		return -1;
	}
	return memfd;
}

/*
 * hugetlb memfds (what net_iovs larger than a page need). A memfd whose
 * huge pages were never touched: the create allocates them (6.1 as
 * shipped answers EINVAL), zeroed. A mapping of the dmabuf must unmap
 * cleanly (without the udmabuf PFN-map patch every page is a "Bad page
 * map", which the runner finds in the kernel log).
 */
TEST_F(udmabuf, hugetlb_memfd_never_faulted_is_allocated_and_maps_cleanly)
{
	size_t size = 2 * HUGE_2MB, i, bad = 0, nonzero = 0;
	uint8_t *buf, *shadow;
	long before;
	int memfd, fd;

	if (hugepages_ensure(2))
		SKIP(return, "no 2 MiB huge pages (CONFIG_HUGETLBFS)");
	before = hugepages_free();
	memfd = huge_memfd(size);
	ASSERT_GE(memfd, 0);
	EXPECT_EQ(before, hugepages_free());

	fd = create_udmabuf(self->devfd, memfd, 0, size);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(before - 2, hugepages_free());

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, dmabuf_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW));
	for (i = 0; i < size; i++)
		nonzero += buf[i] != 0;
	EXPECT_EQ(0, nonzero);
	for (i = 0; i < size; i++)
		buf[i] = pattern_byte(i);
	ASSERT_EQ(0, dmabuf_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW));

	shadow = mmap(NULL, size, PROT_READ, MAP_SHARED, memfd, 0);
	ASSERT_NE(MAP_FAILED, shadow);
	for (i = 0; i < size; i++)
		bad += shadow[i] != pattern_byte(i);
	EXPECT_EQ(0, bad);

	munmap(shadow, size);
	munmap(buf, size);
	close(fd);
	close(memfd);
	EXPECT_EQ(before, hugepages_free());
}

/*
 * A range that starts and ends inside huge pages: only the huge pages
 * it touches are allocated, and the dmabuf's byte 0 is the memfd's byte
 * at the offset.
 */
TEST_F(udmabuf, hugetlb_range_inside_huge_pages)
{
	size_t size = 2 * MIB, off = HUGE_2MB + MIB + 64 * 1024, i, bad = 0;
	uint8_t *buf, *shadow;
	long before;
	int memfd, fd;

	if (hugepages_ensure(2))
		SKIP(return, "no 2 MiB huge pages (CONFIG_HUGETLBFS)");
	before = hugepages_free();
	memfd = huge_memfd(4 * HUGE_2MB);
	ASSERT_GE(memfd, 0);

	fd = create_udmabuf(self->devfd, memfd, off, size);
	ASSERT_GE(fd, 0);
	/* huge pages 1 and 2, not 0 or 3 */
	EXPECT_EQ(before - 2, hugepages_free());

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, buf);
	for (i = 0; i < size; i++)
		buf[i] = pattern_byte(i);
	/* the two huge pages the range touches */
	shadow = mmap(NULL, 2 * HUGE_2MB, PROT_READ, MAP_SHARED, memfd,
		      HUGE_2MB);
	ASSERT_NE(MAP_FAILED, shadow);
	off -= HUGE_2MB;
	for (i = 0; i < size; i++)
		bad += shadow[off + i] != pattern_byte(i);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, shadow[off - 1]);
	EXPECT_EQ(0, shadow[off + size]);
	EXPECT_EQ(before - 2, hugepages_free());

	munmap(shadow, 2 * HUGE_2MB);
	munmap(buf, size);
	close(fd);
	close(memfd);
	EXPECT_EQ(before, hugepages_free());
}

static int write_long(const char *path, long v)
{
	FILE *f;
	int ret;

	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fprintf(f, "%ld\n", v) < 0;
	return fclose(f) || ret ? -1 : 0;
}

#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"

/*
 * More huge pages than the pool has: ENOSPC, and nothing stays
 * allocated. The pool is shrunk to one free page for the test.
 */
TEST_F(udmabuf, hugetlb_empty_pool_is_enospc)
{
	long total, free_pages;
	int memfd;

	if (hugepages_ensure(1))
		SKIP(return, "no 2 MiB huge pages (CONFIG_HUGETLBFS)");
	if (file_read_long("/proc/sys/vm/nr_overcommit_hugepages") != 0)
		SKIP(return, "vm.nr_overcommit_hugepages is set");
	total = file_read_long(NR_HUGEPAGES);
	free_pages = hugepages_free();
	ASSERT_GT(free_pages, 0);
	ASSERT_EQ(0, write_long(NR_HUGEPAGES, total - free_pages + 1));
	ASSERT_EQ(1, hugepages_free());

	memfd = huge_memfd(2 * HUGE_2MB);
	ASSERT_GE(memfd, 0);
	EXPECT_EQ(-1, create_udmabuf(self->devfd, memfd, 0, 2 * HUGE_2MB));
	EXPECT_EQ(ENOSPC, errno);
	/* the page it did get belongs to the memfd until the memfd goes */
	EXPECT_EQ(0, hugepages_free());
	close(memfd);
	EXPECT_EQ(1, hugepages_free());
	EXPECT_EQ(0, write_long(NR_HUGEPAGES, total));
}

/*
 * A file of the memfd opened read-only may map what exists but not
 * allocate: EBADF while a page is missing, a dmabuf once it is there.
 */
TEST_F(udmabuf, hugetlb_read_only_memfd_needs_existing_pages)
{
	char path[64];
	int memfd, rofd, fd;

	if (hugepages_ensure(1))
		SKIP(return, "no 2 MiB huge pages (CONFIG_HUGETLBFS)");
	memfd = huge_memfd(HUGE_2MB);
	ASSERT_GE(memfd, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	rofd = open(path, O_RDONLY);
	ASSERT_GE(rofd, 0);

	EXPECT_EQ(-1, create_udmabuf(self->devfd, rofd, 0, HUGE_2MB));
	EXPECT_EQ(EBADF, errno);

	ASSERT_EQ(0, fallocate(memfd, 0, 0, HUGE_2MB));
	fd = create_udmabuf(self->devfd, rofd, 0, HUGE_2MB);
	EXPECT_GE(fd, 0);
	if (fd >= 0)
		close(fd);
	close(rofd);
	close(memfd);
}

TEST_HARNESS_MAIN
