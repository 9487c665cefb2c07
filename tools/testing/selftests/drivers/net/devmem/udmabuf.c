// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the memory devmem TCP consumes: udmabuf as shipped in
 * the 6.1 base. A udmabuf stands in for GPU memory in every other test, so
 * pin down what it accepts, what it refuses and with which errno.
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

/*
 * hugetlb memfds (what net_iovs larger than a page need): 6.1 takes only
 * huge pages that exist, and a mapping of the dmabuf must unmap cleanly
 * (without the udmabuf PFN-map patch every page is a "Bad page map",
 * which the runner finds in the kernel log).
 */
TEST_F(udmabuf, hugetlb_memfd_needs_allocated_pages_and_maps_cleanly)
{
	size_t size = 2 * HUGE_2MB, i, bad = 0;
	uint8_t *buf, *shadow;
	int memfd, fd;

	if (hugepages_ensure(2))
		SKIP(return, "no 2 MiB huge pages (CONFIG_HUGETLBFS)");
	memfd = memfd_create("udmabuf-huge", MFD_ALLOW_SEALING | MFD_HUGETLB |
			     MFD_HUGE_2MB);
	ASSERT_GE(memfd, 0);
	ASSERT_EQ(0, ftruncate(memfd, size));
	ASSERT_EQ(0, fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK));

	/* no huge page behind the memfd yet */
	EXPECT_EQ(-1, create_udmabuf(self->devfd, memfd, 0, size));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, fallocate(memfd, 0, 0, size));
	fd = create_udmabuf(self->devfd, memfd, 0, size);
	ASSERT_GE(fd, 0);

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, dmabuf_sync(fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE));
	for (i = 0; i < size; i++)
		buf[i] = pattern_byte(i);
	ASSERT_EQ(0, dmabuf_sync(fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE));

	shadow = mmap(NULL, size, PROT_READ, MAP_SHARED, memfd, 0);
	ASSERT_NE(MAP_FAILED, shadow);
	for (i = 0; i < size; i++)
		bad += shadow[i] != pattern_byte(i);
	EXPECT_EQ(0, bad);

	munmap(shadow, size);
	munmap(buf, size);
	close(fd);
	close(memfd);
}

TEST_HARNESS_MAIN
