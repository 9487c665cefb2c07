// SPDX-License-Identifier: GPL-2.0
/*
 * p2pbuf (drivers/dma-buf/p2pbuf.c), the device-memory stand-in that is
 * a PCI BAR: bad allocations get their errno, the BAR's memory comes
 * back when a dmabuf is closed, and the CPU view through mmap is the
 * memory itself, bracketed by DMA_BUF_IOCTL_SYNC; removing the device
 * waits for its dmabufs and fails whatever is new with ENODEV. Skips
 * without an ivshmem-plain device (harness/vm.sh, VM_P2P=1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/dma-buf.h>
#include <linux/p2pbuf.h>

#include "../../../kselftest_harness.h"
#include "devmem_lib.h"
#include "devmem_nl.h"

/* 0 and the fd of the first /dev/p2pbufN with its BAR size, or -1 */
static int p2pbuf_open(size_t *bar_size)
{
	unsigned long long start, end, flags;
	char path[256], line[256];
	int fd, i, n;
	glob_t g;
	FILE *f;

	if (glob("/dev/p2pbuf[0-9]*", 0, NULL, &g))
		return -1;
	fd = open(g.gl_pathv[0], O_RDWR | O_CLOEXEC);
	/* /sys/class/misc/p2pbufN/device/resource: line 3 is BAR 2 */
	snprintf(path, sizeof(path), "/sys/class/misc/%s/device/resource",
		 strrchr(g.gl_pathv[0], '/') + 1);
	globfree(&g);
	f = fopen(path, "r");
	if (!f || fd < 0)
		goto err;
	for (i = 0; i <= 2; i++) {
		if (!fgets(line, sizeof(line), f))
			goto err;
	}
	n = sscanf(line, "%llx %llx %llx", &start, &end, &flags);
	fclose(f);
	if (n != 3 || end <= start)
		goto err_close;
	*bar_size = end - start + 1;
	return fd;
err:
	if (f)
		fclose(f);
err_close:
	if (fd >= 0)
		close(fd);
	return -1;
}

static int p2pbuf_create(int dev, unsigned long long size, unsigned int flags,
			 unsigned int pad)
{
	struct p2pbuf_create req = {
		.size = size,
		.flags = flags,
		.pad = pad,
	};
	int ret = ioctl(dev, P2PBUF_CREATE, &req);

	return ret < 0 ? -errno : ret;
}

FIXTURE(p2pbuf)
{
	int dev;
	size_t bar;
};

#define P2PBUF_MISSING "no /dev/p2pbuf* (CONFIG_DMABUF_P2PBUF, ivshmem-plain: VM_P2P=1)"

/* 6.1's harness runs a test after a SKIP in its setup: each test checks
 * for the device again.
 */
FIXTURE_SETUP(p2pbuf)
{
	self->dev = p2pbuf_open(&self->bar);
	if (self->dev < 0)
		SKIP(return, P2PBUF_MISSING);
}

FIXTURE_TEARDOWN(p2pbuf)
{
	if (self->dev >= 0)
		close(self->dev);
}

TEST_F(p2pbuf, zero_size_is_einval)
{
	if (self->dev < 0)
		SKIP(return, P2PBUF_MISSING);
	ASSERT_EQ(-EINVAL, p2pbuf_create(self->dev, 0, 0, 0));
}

TEST_F(p2pbuf, size_not_page_aligned_is_einval)
{
	if (self->dev < 0)
		SKIP(return, P2PBUF_MISSING);
	ASSERT_EQ(-EINVAL, p2pbuf_create(self->dev, 4096 + 1, 0, 0));
	ASSERT_EQ(-EINVAL, p2pbuf_create(self->dev, 100, 0, 0));
}

TEST_F(p2pbuf, unknown_flags_or_pad_are_einval)
{
	if (self->dev < 0)
		SKIP(return, P2PBUF_MISSING);
	ASSERT_EQ(-EINVAL, p2pbuf_create(self->dev, 4096, 0x2, 0));
	ASSERT_EQ(-EINVAL, p2pbuf_create(self->dev, 4096, 0, 1));
}

TEST_F(p2pbuf, unknown_ioctl_is_enotty)
{
	if (self->dev < 0)
		SKIP(return, P2PBUF_MISSING);
	ASSERT_EQ(-1, ioctl(self->dev, _IO('u', 0x51)));
	ASSERT_EQ(ENOTTY, errno);
}

TEST_F(p2pbuf, larger_than_the_bar_is_enomem)
{
	if (self->dev < 0)
		SKIP(return, P2PBUF_MISSING);
	ASSERT_EQ(-ENOMEM, p2pbuf_create(self->dev, self->bar + 4096, 0, 0));
	ASSERT_EQ(-ENOMEM, p2pbuf_create(self->dev, 1ULL << 62, 0, 0));
}

/* The whole BAR, then one page more; closing gives every byte back. */
TEST_F(p2pbuf, bar_exhausted_is_enomem_and_close_gives_it_back)
{
	int whole, again;

	if (self->dev < 0)
		SKIP(return, P2PBUF_MISSING);
	whole = p2pbuf_create(self->dev, self->bar, P2PBUF_FLAGS_CLOEXEC, 0);
	ASSERT_LE(0, whole);
	EXPECT_EQ(FD_CLOEXEC, fcntl(whole, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(-ENOMEM, p2pbuf_create(self->dev, 4096, 0, 0));
	close(whole);

	again = p2pbuf_create(self->dev, self->bar, 0, 0);
	ASSERT_LE(0, again);
	EXPECT_EQ(0, fcntl(again, F_GETFD) & FD_CLOEXEC);
	close(again);
}

/* Two buffers side by side: what one mapping writes, a second mapping
 * of the same buffer reads, and the other buffer is untouched.
 */
TEST_F(p2pbuf, mmap_is_the_memory_and_sync_brackets_it)
{
	struct dma_buf_sync start = { DMA_BUF_SYNC_RW | DMA_BUF_SYNC_START };
	struct dma_buf_sync end = { DMA_BUF_SYNC_RW | DMA_BUF_SYNC_END };
	size_t size = 1 << 20, i;
	unsigned char *a, *b, *c;
	int fa, fb;

	if (self->dev < 0)
		SKIP(return, P2PBUF_MISSING);

	fa = p2pbuf_create(self->dev, size, 0, 0);
	fb = p2pbuf_create(self->dev, size, 0, 0);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	a = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fa, 0);
	b = mmap(NULL, size, PROT_READ, MAP_SHARED, fa, 0);
	c = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fb, 0);
	ASSERT_NE(MAP_FAILED, a);
	ASSERT_NE(MAP_FAILED, b);
	ASSERT_NE(MAP_FAILED, c);

	ASSERT_EQ(0, ioctl(fb, DMA_BUF_IOCTL_SYNC, &start));
	memset(c, 0x5a, size);
	ASSERT_EQ(0, ioctl(fb, DMA_BUF_IOCTL_SYNC, &end));

	ASSERT_EQ(0, ioctl(fa, DMA_BUF_IOCTL_SYNC, &start));
	for (i = 0; i < size; i++)
		a[i] = i % 251;
	for (i = 0; i < size; i++)
		if (b[i] != i % 251 || c[i] != 0x5a)
			break;
	ASSERT_EQ(0, ioctl(fa, DMA_BUF_IOCTL_SYNC, &end));
	EXPECT_EQ(size, i);

	/* a private mapping would be a copy: refused */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, size, PROT_READ, MAP_PRIVATE, fa, 0));
	/* past the end */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * size, PROT_READ, MAP_SHARED, fa, 0));

	munmap(a, size);
	munmap(b, size);
	munmap(c, size);
	close(fa);
	close(fb);
}

/* A network interface below the same PCIe switch as @bdf, or 0 */
static int nic_under_switch(const char *bdf)
{
	char dev[PATH_MAX], nic[PATH_MAX], path[PATH_MAX];
	int ifindex = 0;
	size_t i, len;
	char *cut;
	glob_t g;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	if (!realpath(path, dev))
		return 0;
	/* /sys/devices/pci0000:00/<root port>/<switch upstream port>/ */
	cut = dev;
	for (i = 0; i < 4 && cut; i++)
		cut = strchr(cut + 1, '/');
	if (!cut)
		return 0;
	len = cut - dev + 1;
	if (glob("/sys/class/net/*/device", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && !ifindex; i++) {
		if (realpath(g.gl_pathv[i], nic) && !strncmp(nic, dev, len)) {
			snprintf(path, sizeof(path), "%s", g.gl_pathv[i] +
				 strlen("/sys/class/net/"));
			*strchr(path, '/') = 0;
			ifindex = if_nametoindex(path);
		}
	}
	globfree(&g);
	return ifindex;
}

/*
 * The PCI address, in @bdf (32 bytes), of a p2pbuf device with a network
 * interface below its PCIe switch (the first p2pbuf device if none has
 * one): the VM's layout has a second BAR beside a port below a root port,
 * and which of the two is /dev/p2pbuf0 depends on the order they probed
 * in.
 */
static int p2pbuf_bdf(char *bdf)
{
	char real[PATH_MAX];
	int err = -ENODEV;
	size_t i;
	glob_t g;

	if (glob("/sys/class/misc/p2pbuf[0-9]*/device", 0, NULL, &g))
		return -ENODEV;
	for (i = 0; i < g.gl_pathc; i++) {
		if (!realpath(g.gl_pathv[i], real))
			continue;
		snprintf(bdf, 32, "%s", strrchr(real, '/') + 1);
		err = 0;
		if (nic_under_switch(bdf))
			break;
	}
	if (i == g.gl_pathc && !err && realpath(g.gl_pathv[0], real))
		snprintf(bdf, 32, "%s", strrchr(real, '/') + 1);
	globfree(&g);
	return err;
}

static int write_sysfs(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* The /dev/p2pbufN of the PCI function @bdf into @node: 0, or -1 if it
 * has none
 */
static int p2pbuf_node(const char *bdf, char *node, size_t len)
{
	char path[300];
	glob_t g;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/misc/p2pbuf*",
		 bdf);
	if (glob(path, 0, NULL, &g))
		return -1;
	snprintf(node, len, "/dev/%s", strrchr(g.gl_pathv[0], '/') + 1);
	globfree(&g);
	return 0;
}

static bool p2pbuf_present(const char *bdf)
{
	char node[64];

	return !p2pbuf_node(bdf, node, sizeof(node));
}

/* Last in the file: it removes the device and brings it back. While a
 * dmabuf is alive the removal waits; meanwhile the device node is gone,
 * new allocations and new attachments (a bind) fail with ENODEV, and the
 * dmabuf's CPU view still works. Closing it lets the removal finish.
 */
TEST_F(p2pbuf, removal_waits_for_dmabufs_and_refuses_what_is_new)
{
	struct devmem_nl nl;
	char bdf[32], path[300], node[64];
	int dev, fd, ifindex, status, i;
	unsigned char *map;
	pid_t child;
	uint32_t id;

	if (self->dev < 0)
		SKIP(return, P2PBUF_MISSING);

	ASSERT_EQ(0, p2pbuf_bdf(bdf));
	ifindex = nic_under_switch(bdf);
	if (!ifindex)
		SKIP(return, "no network interface below the switch of %s", bdf);
	ASSERT_EQ(0, devmem_nl_open(&nl));
	ASSERT_EQ(0, ethtool_set_hds(&nl, ifindex, true));

	/* that device's node: its dmabuf holds its removal back */
	ASSERT_EQ(0, p2pbuf_node(bdf, node, sizeof(node)));
	dev = open(node, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	fd = p2pbuf_create(dev, 1 << 20, 0, 0);
	ASSERT_LE(0, fd);
	map = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", bdf);
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		/* the child's copies would keep the dmabuf alive */
		munmap(map, 1 << 20);
		close(fd);
		_exit(write_sysfs(path, "1") ? 1 : 0);
	}
	for (i = 0; i < 50 && p2pbuf_present(bdf); i++)
		usleep(100000);
	EXPECT_FALSE(p2pbuf_present(bdf));

	EXPECT_EQ(-ENODEV, p2pbuf_create(dev, 4096, 0, 0));
	EXPECT_EQ(-ENODEV, devmem_bind_rx_range(&nl, ifindex, fd, 0, 1, &id));
	map[0] = 0xa5;
	EXPECT_EQ(0xa5, map[0]);
	EXPECT_EQ(0, waitpid(child, &status, WNOHANG));

	munmap(map, 1 << 20);
	close(fd);
	close(dev);
	for (i = 0; i < 100 && !waitpid(child, &status, WNOHANG); i++)
		usleep(100000);
	ASSERT_LT(i, 100);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));

	ASSERT_EQ(0, write_sysfs("/sys/bus/pci/rescan", "1"));
	for (i = 0; i < 50 && !p2pbuf_present(bdf); i++)
		usleep(100000);
	EXPECT_TRUE(p2pbuf_present(bdf));
	devmem_nl_close(&nl);
}

/*
 * As a module: a live dmabuf pins p2pbuf (its ops are the module's code),
 * so unload is refused while one exists, goes once the last one is
 * closed, and a reload serves new dmabufs.
 */
TEST_F(p2pbuf, unload_refused_while_a_dmabuf_lives_then_reload)
{
	unsigned char *map;
	long refs;
	int buf, i;

	if (self->dev < 0)
		SKIP(return, P2PBUF_MISSING);
	if (strcmp(module_state("p2pbuf"), "live"))
		SKIP(return, "p2pbuf is built in (a modular kernel runs this)");
	buf = p2pbuf_create(self->dev, 1 << 20, 0, 0);
	ASSERT_LE(0, buf);
	/* the misc device's fd pins the module too: only the dmabuf left */
	close(self->dev);
	self->dev = -1;
	refs = module_refcnt("p2pbuf");
	EXPECT_EQ(1, refs);

	EXPECT_EQ(-EWOULDBLOCK, module_delete("p2pbuf"));
	EXPECT_STREQ("live", module_state("p2pbuf"));
	/* the buffer still works: a page written and read back */
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);
	ASSERT_NE(MAP_FAILED, map);
	memset(map, 0xa5, 4096);
	for (i = 0; i < 4096 && map[i] == 0xa5; i++)
		;
	EXPECT_EQ(4096, i);
	munmap(map, 4096);

	close(buf);
	EXPECT_EQ(0, module_refcnt("p2pbuf"));
	ASSERT_EQ(0, module_delete("p2pbuf"));
	EXPECT_STREQ("", module_state("p2pbuf"));
	EXPECT_NE(0, access("/dev/p2pbuf0", F_OK));

	/* reloaded, it binds the ivshmem device again and serves dmabufs */
	ASSERT_EQ(0, system("modprobe p2pbuf"));
	for (i = 0; i < 100 && (self->dev = p2pbuf_open(&self->bar)) < 0; i++)
		usleep(50000);
	ASSERT_LE(0, self->dev);
	buf = p2pbuf_create(self->dev, 1 << 20, 0, 0);
	ASSERT_LE(0, buf);
	close(buf);
}

TEST_HARNESS_MAIN
