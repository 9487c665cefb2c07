/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helpers: hdsim devices through sysfs, udmabufs, MSG_ZEROCOPY
 * completions. Defined in devmem_lib.c.
 */
#ifndef DEVMEM_LIB_H
#define DEVMEM_LIB_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>
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

/* devmem TX: upstream's values (SCM_DEVMEM_DMABUF = SO_DEVMEM_DMABUF) */
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY		60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY		0x4000000
#endif
#define UP_SCM_DEVMEM_DMABUF	79

#define HDSIM_SYS	"/sys/bus/hdsim"

/*
 * A skip from a FIXTURE_SETUP, before it made anything the teardown
 * undoes. 6.1's harness runs the test body after a setup that returned
 * with the skip flag set (it checks "passed" only): leave through the
 * harness's jump instead, as a failed ASSERT does, so that neither the
 * body nor the teardown runs (setjmp.h comes with kselftest_harness.h).
 */
#define SETUP_SKIP(fmt, ...) \
	SKIP(longjmp(_metadata->env, 1), fmt, ##__VA_ARGS__)
#define DEVMEM_DEBUGFS	"/sys/kernel/debug/devmem"

/*
 * IPsec for a test flow (ip-xfrm(8) arguments): an ESP SA in transport
 * mode with AES-GCM (a 128-bit key, a 32-bit salt): src, dst, SPI; a
 * policy for TCP: src, dst, further selectors, direction, then the
 * template's src and dst.
 */
#define ESP_SA		"xfrm state add src %s dst %s proto esp spi %s " \
			"mode transport aead 'rfc4106(gcm(aes))' " \
			"0x0102030405060708090a0b0c0d0e0f1011121314 128"
#define ESP_POLICY	"xfrm policy add src %s dst %s proto tcp %s dir %s " \
			"tmpl src %s dst %s proto esp mode transport"

#define HUGE_2MB	(2UL << 20)
#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB	(21U << 26)	/* log2(2 MiB) << MFD_HUGE_SHIFT */
#endif

/* A count from the environment (bounded test sizes), or @def. */
unsigned int env_uint(const char *name, unsigned int def);
/* Write what @fmt makes to file @path: 0 or -errno. */
int write_file(const char *path, const char *fmt, ...);

#define TRACEFS		"/sys/kernel/tracing"
/*
 * tracefs at TRACEFS, mounted there if it is not: 0 once @file (relative
 * to it, e.g. "kprobe_events") exists, -ENOENT if the kernel has none.
 */
int tracefs_mount(const char *file);
/*
 * Memory cgroup @name under the cgroup2 root (mounted at
 * /run/devmem-cgroup2 when the system has none), its path in @cg: 0,
 * -ENOENT without cgroup2, -EOPNOTSUPP without its memory controller.
 */
int memcg_make(const char *name, char *cg, size_t len);
/* The shell command @fmt makes, run: system()'s status. */
int run(const char *fmt, ...);
/* The number shell command @fmt prints first, or -1. */
long cmd_long(const char *fmt, ...);
/* The number a sysctl or sysfs file holds, or -1. */
long file_read_long(const char *path);

/* hdsim device @id with @queues queues, created or deleted: 0 or -errno */
int hdsim_new(unsigned int id, unsigned int queues);
int hdsim_del(unsigned int id);
/* Name and ifindex of port @port (dev_port) of hdsim device @id. */
int hdsim_port(unsigned int id, int port, char name[IFNAMSIZ]);
/* First network device listed in sysfs directory @path. */
int first_netdev_in(const char *path, char name[IFNAMSIZ]);

/*
 * In namespace @ns ("": the caller's), whose end is @local: ESP in
 * transport mode for TCP between @local and @remote, SPI @spi_in towards
 * @local and @spi_out back; @out_sel and @in_sel add selectors ("dport
 * N") to the two policies. The other end takes the same SPIs swapped.
 */
int esp_transport(const char *ns, const char *local, const char *remote,
		  const char *spi_in, const char *spi_out, const char *out_sel,
		  const char *in_sel);
/* Remove every SA and policy of namespace @ns ("": the caller's). */
void esp_flush(const char *ns);

/*
 * @mod's /sys/module/<mod>/initstate: "live", "going" while its exit
 * runs, "" when it is built in or not loaded.
 */
const char *module_state(const char *mod);
/* References on loaded module @mod, or -1 */
long module_refcnt(const char *mod);
/* rmmod's call, not waiting for references: 0 or -errno */
int module_delete(const char *mod);

/*
 * Make sure @n free 2 MiB huge pages exist, raising vm.nr_hugepages if
 * needed. 0, or -ENOMEM if the kernel could not find them.
 */
int hugepages_ensure(unsigned long n);
/*
 * A udmabuf of @size bytes at byte @offset of a sealed memfd; with @huge
 * the memfd is hugetlb (2 MiB pages), so that the dmabuf's DMA segments
 * are whole huge pages (what bindings with a large rx-page-size need).
 * Returns the dmabuf fd or -errno.
 */
int udmabuf_alloc_at(size_t size, size_t offset, bool huge, int *memfd_out);
/* A udmabuf of @size bytes from a sealed memfd; returns the dmabuf fd. */
int udmabuf_alloc(size_t size, int *memfd_out);
void debugfs_mount(void);
/* References to the dmabuf's file besides the reader's: fdinfo "count" */
long dmabuf_refs(int fd);
/*
 * Until the dmabuf has @want references (the last binding reference goes
 * in a work item); returns the count seen last.
 */
long wait_dmabuf_refs(int fd, long want);
/*
 * Devices the dmabuf @fd is attached to, from debugfs' dma_buf/bufinfo
 * (the dmabuf found by its inode); -1 if it is not listed or debugfs is
 * not there. A binding or a zcrx area attaches the dmabuf to the NIC's
 * DMA device for as long as it is mapped for it.
 */
int dmabuf_attachments(int fd);

/*
 * sendmsg() of @n iovecs, each an offset and a length in the dmabuf of
 * TX binding @id, with a SOL_SOCKET/SCM_DEVMEM_DMABUF cmsg of @cmsg_len
 * bytes holding @id (upstream's is 4; tests vary it). The bytes sent, or
 * -errno.
 */
ssize_t devmem_sendmsg(int fd, uint32_t id, size_t cmsg_len, struct iovec *iov,
		       int n, int flags);
/*
 * Read MSG_ZEROCOPY completions from @fd's error queue until *@done (send
 * calls completed so far) reaches @want; *@copied counts the completions
 * the kernel had to copy, *@notes (if not NULL) the notifications read,
 * each covering a range of calls. 0, -ETIMEDOUT after 60 s without one
 * (a notification comes when the peer acknowledged a whole call: slow on
 * the debug kernel under TCG), -errno.
 */
int zerocopy_reap(int fd, uint64_t want, uint64_t *done, uint64_t *copied,
		  uint64_t *notes);

#endif /* DEVMEM_LIB_H */
