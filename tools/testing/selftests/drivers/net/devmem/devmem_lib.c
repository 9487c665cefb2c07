// SPDX-License-Identifier: GPL-2.0
/*
 * Test helpers: hdsim devices through sysfs, udmabufs, MSG_ZEROCOPY
 * completions (see devmem_lib.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memfd_create */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/errqueue.h>
#include <linux/udmabuf.h>

#include "devmem_lib.h"

unsigned int env_uint(const char *name, unsigned int def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

int write_file(const char *path, const char *fmt, ...)
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

int tracefs_mount(const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	if (!access(path, F_OK))
		return 0;
	mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	return access(path, F_OK) ? -ENOENT : 0;
}

static int cgroup2_root(char *root, size_t len)
{
	char dev[64], dir[PATH_MAX], type[64];
	FILE *f = fopen("/proc/mounts", "r");
	int found = 0;

	if (f) {
		while (fscanf(f, "%63s %4095s %63s %*[^\n]", dev, dir,
			      type) == 3) {
			if (!strcmp(type, "cgroup2")) {
				found = 1;
				break;
			}
		}
		fclose(f);
	}
	if (!found) {
		snprintf(dir, sizeof(dir), "/run/devmem-cgroup2");
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		if (mount("none", dir, "cgroup2", 0, NULL))
			return -errno;
	}
	snprintf(root, len, "%s", dir);
	return 0;
}

int memcg_make(const char *name, char *cg, size_t len)
{
	char root[PATH_MAX], path[PATH_MAX + 32];

	if (cgroup2_root(root, sizeof(root)))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	if (write_file(path, "+memory"))
		return -EOPNOTSUPP;
	snprintf(cg, len, "%s/%s", root, name);
	if (mkdir(cg, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int hdsim_new(unsigned int id, unsigned int queues)
{
	return write_file(HDSIM_SYS "/new_device", "%u %u", id, queues);
}

int hdsim_del(unsigned int id)
{
	return write_file(HDSIM_SYS "/del_device", "%u", id);
}

int hdsim_port(unsigned int id, int port, char name[IFNAMSIZ])
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

int first_netdev_in(const char *path, char name[IFNAMSIZ])
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

int run(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

int esp_transport(const char *ns, const char *local, const char *remote,
		  const char *spi_in, const char *spi_out, const char *out_sel,
		  const char *in_sel)
{
	char ip[64];

	snprintf(ip, sizeof(ip), "ip%s%s", *ns ? " -n " : "", ns);
	return run("%s " ESP_SA, ip, remote, local, spi_in) ||
	       run("%s " ESP_SA, ip, local, remote, spi_out) ||
	       run("%s " ESP_POLICY, ip, local, remote, out_sel, "out", local,
		   remote) ||
	       run("%s " ESP_POLICY, ip, remote, local, in_sel, "in", remote,
		   local);
}

void esp_flush(const char *ns)
{
	char ip[64];

	snprintf(ip, sizeof(ip), "ip%s%s", *ns ? " -n " : "", ns);
	run("%s xfrm state flush; %s xfrm policy flush", ip, ip);
}

/* The first number @f holds, or -1 */
static long stream_read_long(FILE *f)
{
	long v = -1;

	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	return v;
}

long file_read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = stream_read_long(f);

	if (f)
		fclose(f);
	return v;
}

const char *module_state(const char *mod)
{
	static char state[16];
	char path[128];
	FILE *f;

	state[0] = 0;
	snprintf(path, sizeof(path), "/sys/module/%s/initstate", mod);
	f = fopen(path, "r");
	if (!f)
		return state;
	if (!fgets(state, sizeof(state), f))
		state[0] = 0;
	fclose(f);
	state[strcspn(state, "\n")] = 0;
	return state;
}

long module_refcnt(const char *mod)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", mod);
	return file_read_long(path);
}

int module_delete(const char *mod)
{
	return syscall(__NR_delete_module, mod, O_NONBLOCK) ? -errno : 0;
}

long cmd_long(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	long v;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	v = stream_read_long(f);
	if (f)
		pclose(f);
	return v;
}

int hugepages_ensure(unsigned long n)
{
	unsigned long total = 0, free_pages = 0;
	char line[128];
	int found = 0;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -errno;
	/* HugePages_Total comes before HugePages_Free */
	while (found < 2 && fgets(line, sizeof(line), f))
		found += sscanf(line, "HugePages_Total: %lu", &total) == 1 ||
			 sscanf(line, "HugePages_Free: %lu", &free_pages) == 1;
	fclose(f);
	if (free_pages >= n)
		return 0;

	f = fopen("/proc/sys/vm/nr_hugepages", "w");
	if (!f)
		return -errno;
	fprintf(f, "%lu\n", total + n - free_pages);
	fclose(f);

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Free: %lu", &free_pages) == 1)
			break;
	fclose(f);
	return free_pages >= n ? 0 : -ENOMEM;
}

int udmabuf_alloc_at(size_t size, size_t offset, bool huge, int *memfd_out)
{
	struct udmabuf_create create = { .flags = UDMABUF_FLAGS_CLOEXEC };
	unsigned int mflags = MFD_ALLOW_SEALING;
	size_t memfd_size = size + offset;
	int devfd, memfd, fd;

	if (huge) {
		memfd_size = (memfd_size + HUGE_2MB - 1) & ~(HUGE_2MB - 1);
		fd = hugepages_ensure(memfd_size / HUGE_2MB);
		if (fd)
			return fd;
		mflags |= MFD_HUGETLB | MFD_HUGE_2MB;
	}

	/* as upstream's ncdevmem: read-only, pages never touched */
	devfd = open("/dev/udmabuf", O_RDONLY);
	if (devfd < 0)
		return -errno;
	memfd = memfd_create("devmem-test", mflags);
	if (memfd < 0 || ftruncate(memfd, memfd_size) ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		fd = -errno;
		goto out;
	}
	create.memfd = memfd;
	create.offset = offset;
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

int udmabuf_alloc(size_t size, int *memfd_out)
{
	return udmabuf_alloc_at(size, 0, false, memfd_out);
}

void debugfs_mount(void)
{
	if (access(DEVMEM_DEBUGFS, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
}

long dmabuf_refs(int fd)
{
	char path[64], line[128];
	long count = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "count: %ld", &count) == 1)
			break;
	fclose(f);
	return count;
}

long wait_dmabuf_refs(int fd, long want)
{
	long n;
	int ms;

	for (ms = 0; (n = dmabuf_refs(fd)) != want && ms < 5000; ms += 20)
		usleep(20000);
	return n;
}

int dmabuf_attachments(int fd)
{
	unsigned long ino;
	int n = -1, found = 0;
	char line[512];
	struct stat st;
	FILE *f;

	if (fstat(fd, &st))
		return -1;
	debugfs_mount();
	f = fopen("/sys/kernel/debug/dma_buf/bufinfo", "r");
	if (!f)
		return -1;
	/* size flags mode count exp_name ino name, then the devices */
	while (fgets(line, sizeof(line), f)) {
		if (!found) {
			found = sscanf(line, "%*u %*x %*x %*d %*s %lu", &ino) == 1 &&
				ino == st.st_ino;
			continue;
		}
		if (sscanf(line, "Total %d devices attached", &n) == 1)
			break;
	}
	fclose(f);
	return n;
}

ssize_t devmem_sendmsg(int fd, uint32_t id, size_t cmsg_len, struct iovec *iov,
		       int n, int flags)
{
	char control[CMSG_SPACE(sizeof(uint64_t))] = {};
	struct msghdr msg = {
		.msg_iov = iov,
		.msg_iovlen = n,
		.msg_control = control,
		.msg_controllen = CMSG_SPACE(cmsg_len),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	uint64_t val = id;
	ssize_t ret;

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = UP_SCM_DEVMEM_DMABUF;
	cm->cmsg_len = CMSG_LEN(cmsg_len);
	memcpy(CMSG_DATA(cm), &val, cmsg_len);
	ret = sendmsg(fd, &msg, flags);
	return ret < 0 ? -errno : ret;
}

int zerocopy_reap(int fd, uint64_t want, uint64_t *done, uint64_t *copied,
		  uint64_t *notes)
{
	char control[128];

	while (*done < want) {
		struct pollfd pfd = { .fd = fd };
		struct msghdr msg = {
			.msg_control = control,
			.msg_controllen = sizeof(control),
		};
		struct sock_extended_err *ee;
		struct cmsghdr *cm;
		uint64_t n;

		if (recvmsg(fd, &msg, MSG_ERRQUEUE) < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return -errno;
			/* POLLERR: the error queue has something */
			if (poll(&pfd, 1, 60000) <= 0)
				return -ETIMEDOUT;
			continue;
		}
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			if (!((cm->cmsg_level == SOL_IP &&
			       cm->cmsg_type == IP_RECVERR) ||
			      (cm->cmsg_level == SOL_IPV6 &&
			       cm->cmsg_type == IPV6_RECVERR)))
				continue;
			ee = (struct sock_extended_err *)CMSG_DATA(cm);
			if (ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				return -EPROTO;
			n = ee->ee_data - ee->ee_info + 1;
			*done += n;
			if (notes)
				(*notes)++;
			if (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				*copied += n;
		}
	}
	return 0;
}
