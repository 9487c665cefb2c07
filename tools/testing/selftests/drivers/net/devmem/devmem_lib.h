/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helpers: hdsim devices through sysfs, udmabufs.
 */
#ifndef DEVMEM_LIB_H
#define DEVMEM_LIB_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <linux/udmabuf.h>

#define HDSIM_SYS	"/sys/bus/hdsim"
#define DEVMEM_DEBUGFS	"/sys/kernel/debug/devmem"

static inline int write_file(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int fd, len, ret;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len);
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static inline int hdsim_new(unsigned int id, unsigned int queues)
{
	return write_file(HDSIM_SYS "/new_device", "%u %u", id, queues);
}

static inline int hdsim_del(unsigned int id)
{
	return write_file(HDSIM_SYS "/del_device", "%u", id);
}

/* Name and ifindex of port @port (dev_port) of hdsim device @id. */
static inline int hdsim_port(unsigned int id, int port, char name[IFNAMSIZ])
{
	char path[256], buf[32];
	struct dirent *de;
	int found = 0;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), HDSIM_SYS "/devices/hdsim%u/net", id);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (!found && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		/* interface names are at most IFNAMSIZ - 1 characters */
		snprintf(path, sizeof(path), "/sys/class/net/%.15s/dev_port",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && atoi(buf) == port) {
			snprintf(name, IFNAMSIZ, "%.15s", de->d_name);
			found = 1;
		}
		fclose(f);
	}
	closedir(dir);
	return found ? (int)if_nametoindex(name) : -ENOENT;
}

/* First network device listed in sysfs directory @path. */
static inline int first_netdev_in(const char *path, char name[IFNAMSIZ])
{
	struct dirent *de;
	int ifindex = -ENOENT;
	DIR *dir;

	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(name, IFNAMSIZ, "%.15s", de->d_name);
		ifindex = if_nametoindex(name);
		break;
	}
	closedir(dir);
	return ifindex;
}

static inline int run(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* A udmabuf of @size bytes from a sealed memfd; returns the dmabuf fd. */
static inline int udmabuf_alloc(size_t size, int *memfd_out)
{
	struct udmabuf_create create = { .flags = UDMABUF_FLAGS_CLOEXEC };
	int devfd, memfd, fd;

	devfd = open("/dev/udmabuf", O_RDWR);
	if (devfd < 0)
		return -errno;
	memfd = memfd_create("devmem-test", MFD_ALLOW_SEALING);
	if (memfd < 0 || ftruncate(memfd, size) ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		fd = -errno;
		goto out;
	}
	create.memfd = memfd;
	create.size = size;
	fd = ioctl(devfd, UDMABUF_CREATE, &create);
	if (fd < 0)
		fd = -errno;
out:
	close(devfd);
	if (memfd_out && fd >= 0)
		*memfd_out = memfd;
	else if (memfd >= 0)
		close(memfd);
	return fd;
}

static inline void debugfs_mount(void)
{
	if (access(DEVMEM_DEBUGFS, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
}

#endif /* DEVMEM_LIB_H */
