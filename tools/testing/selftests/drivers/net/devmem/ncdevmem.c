// SPDX-License-Identifier: GPL-2.0
/*
 * ncdevmem: receive TCP into device memory, netcat style.
 *
 * Command line compatible with upstream's ncdevmem:
 *   ncdevmem -l -f IF -s ADDR [-c CLIENT] -p PORT [-v N] [-q NUM] [-t FIRST]
 *	server: set the NIC up (tcp-data-split on, ntuple rule, RSS off
 *	the bound queues), bind a dmabuf, accept one connection, receive
 *	with MSG_SOCK_DEVMEM, validate, give tokens back; the NIC setup is
 *	restored on every exit path
 *   ncdevmem -f IF
 *	bind self-tests
 *   ncdevmem -s ADDR -p PORT
 *	client: send stdin over plain TCP (6.1 has no devmem TX)
 * Extras: --sha256 (hash of the received stream, read from the dmabuf),
 * --stats, --size BYTES (dmabuf size), --memory udmabuf|heap|cuda|rocm,
 * --allow-host (readable data is not an error), --connections N (accept N
 * connections one after the other on one binding).
 */
#define _GNU_SOURCE
/* struct dmabuf_cmsg and dmabuf_token come from the uapi header, whose
 * struct iovec must win over the C library's
 */
#include <linux/uio.h>
#define __iovec_defined 1

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/ethtool_netlink.h>
#include <openssl/evp.h>

#include "devmem_lib.h"
#include "devmem_nl.h"

#ifndef MSG_SOCK_DEVMEM
#define MSG_SOCK_DEVMEM		0x2000000
#endif

#define IOV_LEN			1048576
#define CTRL_LEN		80000
#define MAX_TOKENS		128
#define MAX_TOKEN_FRAGS		1024
#define KSFT_SKIP		4	/* exit status: skipped (kselftest) */

static const char *ifname;
static const char *server_ip;
static const char *client_ip;
static const char *memory = "udmabuf";
static uint16_t port = 5201;
static int validate;
static int start_queue = -1;
static int num_queues = -1;
static size_t dmabuf_size = 64 << 20;
static bool want_sha256, want_stats, allow_host, show_queues;
static const char *set_hds;
static bool bind_only;
static bool copy_mode;
static size_t read_size = IOV_LEN;
static int connections = 1;
static int dontneed_batch = MAX_TOKEN_FRAGS;
static uint64_t dontneed_ns;

static atomic_bool stop;

/* what the server changed on the NIC, to put back */
static struct {
	int ifindex;
	int hds_before;
	bool hds_set;
	bool rss_set;
	bool ntuple_set;
	int rule_id;
} nic = { .rule_id = -1 };

struct rx_stats {
	uint64_t bytes;
	uint64_t devmem_bytes;
	uint64_t linear_bytes;
	uint64_t host_bytes;
	uint64_t frags;
	uint64_t tokens_returned;
	uint64_t dontneed_calls;
	uint64_t recvmsg_calls;
	uint64_t errors;
};

/* The kernel's devmem receive counters (debugfs devmem/tcp_rx): where
 * payload went according to the stack itself, all sockets together.
 */
struct kernel_stats {
	bool ok;
	unsigned long long frags;
	unsigned long long devmem_bytes;
	unsigned long long linear_bytes;
	unsigned long long dontneed_calls;
	unsigned long long tokens_freed;
};

static void read_kernel_stats(struct kernel_stats *k)
{
	FILE *f = fopen("/sys/kernel/debug/devmem/tcp_rx", "r");
	unsigned long long v;
	char name[32];

	memset(k, 0, sizeof(*k));
	if (!f)
		return;
	while (fscanf(f, "%31s %llu", name, &v) == 2) {
		if (!strcmp(name, "frags"))
			k->frags = v;
		else if (!strcmp(name, "devmem_bytes"))
			k->devmem_bytes = v;
		else if (!strcmp(name, "linear_bytes"))
			k->linear_bytes = v;
		else if (!strcmp(name, "dontneed_calls"))
			k->dontneed_calls = v;
		else if (!strcmp(name, "tokens_freed"))
			k->tokens_freed = v;
	}
	k->ok = true;
	fclose(f);
}

static void rx_stats_add(struct rx_stats *sum, const struct rx_stats *st)
{
	sum->bytes += st->bytes;
	sum->devmem_bytes += st->devmem_bytes;
	sum->linear_bytes += st->linear_bytes;
	sum->host_bytes += st->host_bytes;
	sum->frags += st->frags;
	sum->tokens_returned += st->tokens_returned;
	sum->dontneed_calls += st->dontneed_calls;
	sum->recvmsg_calls += st->recvmsg_calls;
	sum->errors += st->errors;
}

static void on_signal(int sig)
{
	atomic_store(&stop, true);
}

static int shell(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ret = system(cmd);
	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

/* Memory sources */

static int alloc_udmabuf(size_t size)
{
	int fd = udmabuf_alloc(size, NULL);

	if (fd < 0)
		fprintf(stderr, "udmabuf: %s (CONFIG_UDMABUF? size above udmabuf.size_limit_mb?)\n",
			strerror(-fd));
	return fd;
}

static int alloc_heap(size_t size)
{
	struct dma_heap_allocation_data data = {
		.len = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	int heap, ret;

	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap < 0) {
		fprintf(stderr, "dma heap: /dev/dma_heap/system: %s\n",
			strerror(errno));
		return -errno;
	}
	ret = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data);
	close(heap);
	if (ret) {
		fprintf(stderr, "dma heap: alloc: %s\n", strerror(errno));
		return -errno;
	}
	return data.fd;
}

/*
 * GPU exporters, loaded at run time only if their library is installed, so
 * that ncdevmem builds without GPU headers. The few entry points used are
 * declared here with plain C types; a GPU dmabuf cannot be mmap()ed, so
 * fragments are read back for validation with the runtime's copy.
 */
#define CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED	124
#define CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD	1
#define HIP_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD	1
#define HIP_MEMCPY_DEVICE_TO_HOST		2

static struct {
	void *lib;
	const char *name;
	uint64_t dptr;		/* device address of the allocation */
	int (*copy)(void *dst, uint64_t src, size_t len);
	const char *(*strerror)(int err);
} gpu;

static struct {
	int (*init)(unsigned int flags);
	int (*device_get)(int *dev, int ordinal);
	int (*attribute)(int *val, int attr, int dev);
	int (*ctx_retain)(void **ctx, int dev);
	int (*ctx_set)(void *ctx);
	int (*alloc)(uint64_t *dptr, size_t size);
	int (*export)(void *fd, uint64_t dptr, size_t size, int type,
		      unsigned long long flags);
	int (*dtoh)(void *dst, uint64_t src, size_t len);
	int (*error_string)(int err, const char **str);
} cu;

static struct {
	int (*init)(unsigned int flags);
	int (*device_count)(int *count);
	int (*set_device)(int dev);
	int (*alloc)(void **ptr, size_t size);
	int (*export)(void *fd, void *dptr, size_t size, int type,
		      unsigned long long flags);
	int (*memcpy)(void *dst, const void *src, size_t len, int kind);
	const char *(*error_string)(int err);
} hip;

static const char *cu_strerror(int err)
{
	const char *str = NULL;

	if (cu.error_string)
		cu.error_string(err, &str);
	return str ? str : "unknown CUDA error";
}

static int cu_copy(void *dst, uint64_t src, size_t len)
{
	return cu.dtoh(dst, src, len);
}

static const char *hip_strerror(int err)
{
	return hip.error_string ? hip.error_string(err) : "unknown HIP error";
}

static int hip_copy(void *dst, uint64_t src, size_t len)
{
	return hip.memcpy(dst, (void *)(uintptr_t)src, len,
			  HIP_MEMCPY_DEVICE_TO_HOST);
}

/* Resolve @name into @fn; false (and a message naming it) if missing. */
static bool gpu_sym(void *fn, const char *name)
{
	void *sym = dlsym(gpu.lib, name);

	if (!sym)
		fprintf(stderr, "%s: runtime has no %s (too old for dmabuf export)\n",
			gpu.name, name);
	memcpy(fn, &sym, sizeof(sym));
	return sym;
}

/* Returns a dmabuf fd, -ENODEV when there is no GPU (skip), or -errno. */
static int alloc_cuda(size_t size)
{
	int err, dev, supported = 0, fd = -1;
	void *ctx;

	if (!gpu_sym(&cu.init, "cuInit") ||
	    !gpu_sym(&cu.device_get, "cuDeviceGet") ||
	    !gpu_sym(&cu.attribute, "cuDeviceGetAttribute") ||
	    !gpu_sym(&cu.ctx_retain, "cuDevicePrimaryCtxRetain") ||
	    !gpu_sym(&cu.ctx_set, "cuCtxSetCurrent") ||
	    !gpu_sym(&cu.alloc, "cuMemAlloc_v2") ||
	    !gpu_sym(&cu.export, "cuMemGetHandleForAddressRange") ||
	    !gpu_sym(&cu.dtoh, "cuMemcpyDtoH_v2"))
		return -EOPNOTSUPP;
	gpu_sym(&cu.error_string, "cuGetErrorString");
	gpu.strerror = cu_strerror;
	gpu.copy = cu_copy;

	err = cu.init(0);
	if (!err)
		err = cu.device_get(&dev, 0);
	if (err) {
		fprintf(stderr, "cuda: no usable GPU (%s): skipping\n",
			cu_strerror(err));
		return -ENODEV;
	}
	err = cu.attribute(&supported, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED,
			   dev);
	if (err || !supported) {
		fprintf(stderr, "cuda: GPU 0 cannot export dmabufs (driver or kernel too old?)\n");
		return -EOPNOTSUPP;
	}
	err = cu.ctx_retain(&ctx, dev);
	if (!err)
		err = cu.ctx_set(ctx);
	if (!err)
		err = cu.alloc(&gpu.dptr, size);
	if (!err)
		err = cu.export(&fd, gpu.dptr, size,
				CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (err) {
		fprintf(stderr, "cuda: %s\n", cu_strerror(err));
		return -EIO;
	}
	return fd;
}

static int alloc_rocm(size_t size)
{
	int err, count = 0, fd = -1;
	void *ptr = NULL;

	if (!gpu_sym(&hip.init, "hipInit") ||
	    !gpu_sym(&hip.device_count, "hipGetDeviceCount") ||
	    !gpu_sym(&hip.set_device, "hipSetDevice") ||
	    !gpu_sym(&hip.alloc, "hipMalloc") ||
	    !gpu_sym(&hip.export, "hipMemGetHandleForAddressRange") ||
	    !gpu_sym(&hip.memcpy, "hipMemcpy"))
		return -EOPNOTSUPP;
	gpu_sym(&hip.error_string, "hipGetErrorString");
	gpu.strerror = hip_strerror;
	gpu.copy = hip_copy;

	err = hip.init(0);
	if (!err)
		err = hip.device_count(&count);
	if (err || !count) {
		fprintf(stderr, "rocm: no usable GPU (%s): skipping\n",
			err ? hip_strerror(err) : "no device");
		return -ENODEV;
	}
	err = hip.set_device(0);
	if (!err)
		err = hip.alloc(&ptr, size);
	if (!err)
		err = hip.export(&fd, ptr, size,
				 HIP_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (err) {
		fprintf(stderr, "rocm: %s\n", hip_strerror(err));
		return -EIO;
	}
	gpu.dptr = (uintptr_t)ptr;
	return fd;
}

static int alloc_gpu(const char *kind, size_t size)
{
	bool cuda = !strcmp(kind, "cuda");
	const char *lib = cuda ? "libcuda.so.1" : "libamdhip64.so";
	int fd;

	gpu.name = kind;
	gpu.lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!gpu.lib) {
		fprintf(stderr, "%s: no GPU runtime (%s not found): skipping\n",
			kind, lib);
		return -ENODEV;
	}
	fd = cuda ? alloc_cuda(size) : alloc_rocm(size);
	if (fd < 0) {
		/* the library stays loaded: runtimes do not like dlclose() */
		gpu.copy = NULL;
	}
	return fd;
}

/*
 * Where the CPU reads a fragment: the dmabuf's mapping, or for GPU memory
 * a copy into @bounce (at most IOV_LEN bytes). NULL if it cannot.
 */
static const uint8_t *frag_data(const uint8_t *map, uint8_t *bounce,
				uint64_t off, uint32_t len)
{
	int err;

	if (map)
		return map + off;
	if (!gpu.copy || len > IOV_LEN)
		return NULL;
	err = gpu.copy(bounce, gpu.dptr + off, len);
	if (err) {
		fprintf(stderr, "%s: copy from the GPU: %s\n", gpu.name,
			gpu.strerror(err));
		return NULL;
	}
	return bounce;
}

static int alloc_dmabuf(size_t size)
{
	if (!strcmp(memory, "udmabuf"))
		return alloc_udmabuf(size);
	if (!strcmp(memory, "heap"))
		return alloc_heap(size);
	if (!strcmp(memory, "cuda") || !strcmp(memory, "rocm"))
		return alloc_gpu(memory, size);
	fprintf(stderr, "unknown memory source %s\n", memory);
	return -EINVAL;
}

/* NIC setup and restore */

static void nic_restore(struct devmem_nl *nl)
{
	if (nic.rule_id >= 0)
		shell("ethtool -N %s delete %d >/dev/null 2>&1", ifname,
		      nic.rule_id);
	if (nic.ntuple_set)
		shell("ethtool -K %s ntuple off >/dev/null 2>&1", ifname);
	if (nic.rss_set)
		shell("ethtool -X %s default >/dev/null 2>&1", ifname);
	if (nic.hds_set && nic.hds_before != ETHTOOL_TCP_DATA_SPLIT_ENABLED)
		ethtool_set_hds(nl, nic.ifindex, false);
	nic.rule_id = -1;
	nic.ntuple_set = false;
	nic.rss_set = false;
	nic.hds_set = false;
}

static int add_flow_rule(int queue)
{
	const char *type = strchr(server_ip, ':') ? "tcp6" : "tcp4";
	char cmd[256], line[256];
	FILE *p;
	int id = -1;

	if (client_ip)
		snprintf(cmd, sizeof(cmd),
			 "ethtool -N %s flow-type %s src-ip %s dst-ip %s dst-port %u action %d 2>&1",
			 ifname, type, client_ip, server_ip, port, queue);
	else
		snprintf(cmd, sizeof(cmd),
			 "ethtool -N %s flow-type %s dst-ip %s dst-port %u action %d 2>&1",
			 ifname, type, server_ip, port, queue);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		sscanf(line, "Added rule with ID %d", &id);
	pclose(p);
	return id;
}

static int nic_setup(struct devmem_nl *nl)
{
	int err;

	err = ethtool_get_hds(nl, nic.ifindex, &nic.hds_before);
	if (!err)
		err = ethtool_set_hds(nl, nic.ifindex, true);
	if (err) {
		fprintf(stderr, "%s: cannot enable tcp-data-split: %s %s\n",
			ifname, strerror(-err), nl->extack);
		return err;
	}
	nic.hds_set = true;

	if (shell("ethtool -X %s equal %d >/dev/null 2>&1", ifname,
		  start_queue)) {
		fprintf(stderr, "%s: cannot move RSS off queues %d+\n", ifname,
			start_queue);
		return -EOPNOTSUPP;
	}
	nic.rss_set = true;

	if (shell("ethtool -K %s ntuple on >/dev/null 2>&1", ifname)) {
		fprintf(stderr, "%s: no ntuple filtering\n", ifname);
		return -EOPNOTSUPP;
	}
	nic.ntuple_set = true;

	nic.rule_id = add_flow_rule(start_queue);
	if (nic.rule_id < 0) {
		fprintf(stderr, "%s: cannot add the flow steering rule\n",
			ifname);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int bind_queues(struct devmem_nl *nl, int dmabuf, uint32_t *id)
{
	struct devmem_queue q[64];
	int i, err;

	for (i = 0; i < num_queues && i < 64; i++) {
		q[i].id = start_queue + i;
		q[i].type = UP_NETDEV_QUEUE_TYPE_RX;
	}
	err = devmem_bind_rx(nl, nic.ifindex, dmabuf, q, i, id);
	if (err)
		fprintf(stderr, "bind-rx: %s%s%s\n", strerror(-err),
			nl->extack[0] ? ": " : "", nl->extack);
	return err;
}

static void print_queue_stats(const char *when)
{
	int q;

	if (!want_stats)
		return;
	for (q = start_queue; q < start_queue + num_queues; q++)
		shell("ethtool -S %s | grep -E '^ *rx%d_' | sed 's/^ */stats %s: /'",
		      ifname, q, when);
}

/* Validation of upstream's pattern: 1, 2, ..., N-1, '\n', repeating. */
static uint8_t pattern_at(uint64_t off)
{
	unsigned int v = off % validate + 1;

	return v == (unsigned int)validate ? '\n' : v;
}

static uint64_t check_bytes(const uint8_t *p, size_t len, uint64_t stream_off)
{
	uint64_t bad = 0;
	size_t i;

	for (i = 0; i < len; i++)
		bad += p[i] != pattern_at(stream_off + i);
	return bad;
}

struct token_batch {
	struct dmabuf_token t[MAX_TOKENS];
	int n;
	int frags;
};

static double now(void);

static int return_tokens(int fd, struct token_batch *b, struct rx_stats *st)
{
	double t0;
	int ret;

	if (!b->n)
		return 0;
	t0 = now();
	ret = setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, b->t,
			 b->n * sizeof(b->t[0]));
	dontneed_ns += (now() - t0) * 1e9;
	st->dontneed_calls++;
	if (ret != b->frags) {
		fprintf(stderr, "SO_DEVMEM_DONTNEED returned %d for %d tokens: %s\n",
			ret, b->frags, ret < 0 ? strerror(errno) : "short");
		st->errors++;
		ret = -1;
	} else {
		st->tokens_returned += ret;
		ret = 0;
	}
	b->n = 0;
	b->frags = 0;
	return ret;
}

static int add_token(int fd, struct token_batch *b, uint32_t token,
		     struct rx_stats *st)
{
	if (b->n && b->t[b->n - 1].token_start + b->t[b->n - 1].token_count ==
		    token) {
		b->t[b->n - 1].token_count++;
	} else {
		if (b->n == MAX_TOKENS && return_tokens(fd, b, st))
			return -1;
		b->t[b->n].token_start = token;
		b->t[b->n].token_count = 1;
		b->n++;
	}
	if (++b->frags == dontneed_batch)
		return return_tokens(fd, b, st);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int receive(int fd, int dmabuf, uint32_t dmabuf_id, uint8_t *map,
		   struct rx_stats *st, EVP_MD_CTX *sha)
{
	struct dma_buf_sync sync = {};
	struct token_batch batch = {};
	char *iov_buf, *ctrl;
	uint8_t *bounce;
	int ret = 0;

	iov_buf = malloc(IOV_LEN);
	ctrl = malloc(CTRL_LEN);
	/* GPU memory is not mapped: fragments are copied out to check them */
	bounce = map ? NULL : malloc(IOV_LEN);
	if (!iov_buf || !ctrl || (!map && !bounce)) {
		ret = -ENOMEM;
		goto out_free;
	}

	while (!atomic_load(&stop)) {
		struct iovec iov = { .iov_base = iov_buf, .iov_len = read_size };
		struct msghdr msg = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = ctrl,
			.msg_controllen = CTRL_LEN,
		};
		struct cmsghdr *cm;
		bool devmem = false;
		ssize_t n;

		n = recvmsg(fd, &msg, MSG_SOCK_DEVMEM);
		st->recvmsg_calls++;
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			fprintf(stderr, "recvmsg: %s\n", strerror(errno));
			ret = -errno;
			break;
		}

		sync.flags = DMA_BUF_SYNC_READ | DMA_BUF_SYNC_START;
		ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			struct dmabuf_cmsg *dc = (void *)CMSG_DATA(cm);

			if (cm->cmsg_level != SOL_SOCKET ||
			    (cm->cmsg_type != SCM_DEVMEM_DMABUF &&
			     cm->cmsg_type != SCM_DEVMEM_LINEAR))
				continue;
			devmem = true;

			if (cm->cmsg_type == SCM_DEVMEM_LINEAR) {
				/* linear bytes are at the start of the iov */
				if (validate)
					st->errors += check_bytes((uint8_t *)iov_buf,
								  dc->frag_size,
								  st->bytes);
				if (sha)
					EVP_DigestUpdate(sha, iov_buf,
							 dc->frag_size);
				st->linear_bytes += dc->frag_size;
				st->bytes += dc->frag_size;
				continue;
			}

			if (dc->dmabuf_id != dmabuf_id ||
			    dc->frag_offset + dc->frag_size > dmabuf_size) {
				fprintf(stderr, "bad fragment: id %u offset %llu size %u\n",
					dc->dmabuf_id,
					(unsigned long long)dc->frag_offset,
					dc->frag_size);
				st->errors++;
			} else if (validate || sha) {
				const uint8_t *p = frag_data(map, bounce,
							     dc->frag_offset,
							     dc->frag_size);

				if (!p) {
					st->errors++;
				} else {
					if (validate)
						st->errors += check_bytes(p, dc->frag_size,
									  st->bytes);
					if (sha)
						EVP_DigestUpdate(sha, p,
								 dc->frag_size);
				}
			}
			st->devmem_bytes += dc->frag_size;
			st->bytes += dc->frag_size;
			st->frags++;
			if (add_token(fd, &batch, dc->frag_token, st)) {
				ret = -EIO;
				break;
			}
		}
		sync.flags = DMA_BUF_SYNC_READ | DMA_BUF_SYNC_END;
		ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);

		if (!devmem) {
			/* data from a queue without the dmabuf: steering */
			st->host_bytes += n;
			st->bytes += n;
			if (!allow_host) {
				fprintf(stderr, "flow steering error: %zd bytes in host memory\n",
					n);
				st->errors++;
				ret = -EIO;
				break;
			}
		}
		if (ret)
			break;
	}
	/* Tokens go back in batches of up to 1024 frags (add_token());
	 * the rest at the end of the stream.
	 */
	if (return_tokens(fd, &batch, st))
		ret = -EIO;

out_free:
	free(bounce);
	free(iov_buf);
	free(ctrl);
	return ret;
}

static int parse_addr(const char *ip, uint16_t p, struct sockaddr_in6 *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin6_family = AF_INET6;
	sa->sin6_port = htons(p);
	if (inet_pton(AF_INET6, ip, &sa->sin6_addr) == 1)
		return 0;
	/* IPv4 as v4-mapped, like upstream */
	sa->sin6_addr.s6_addr[10] = 0xff;
	sa->sin6_addr.s6_addr[11] = 0xff;
	return inet_pton(AF_INET, ip, &sa->sin6_addr.s6_addr[12]) == 1 ? 0 :
									 -EINVAL;
}

/* Plain TCP receive into a user buffer: the copy path devmem is
 * measured against (--copy). No NIC setup, no binding.
 */
static int do_copy_server(void)
{
	uint64_t bytes = 0, errors = 0, calls = 0;
	struct rusage ru0, ru1;
	struct sockaddr_in6 sa;
	int lfd, fd, one = 1;
	double t0, t1, cpu;
	char *buf;
	ssize_t n;

	if (parse_addr(server_ip, port, &sa))
		return 1;
	buf = malloc(read_size);
	lfd = socket(AF_INET6, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (!buf || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, 1))
		return 1;
	fprintf(stderr, "listening on %s port %u (copy)\n", server_ip, port);
	fd = accept(lfd, NULL, NULL);
	getrusage(RUSAGE_THREAD, &ru0);
	t0 = now();
	while ((n = recv(fd, buf, read_size, 0)) > 0) {
		if (validate)
			errors += check_bytes((uint8_t *)buf, n, bytes);
		bytes += n;
		calls++;
	}
	t1 = now();
	getrusage(RUSAGE_THREAD, &ru1);
	cpu = (ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
	      (ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
	      (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
	      (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
	printf("received %llu bytes: 0 in device memory (0 frags), 0 linear, %llu host\n",
	       (unsigned long long)bytes, (unsigned long long)bytes);
	printf("stats: time %.3f s, %.1f MB/s, receiver cpu %.3f s\n",
	       t1 - t0, bytes / 1e6 / (t1 - t0), cpu);
	printf("stats: recv calls %llu\n", (unsigned long long)calls + 1);
	close(fd);
	close(lfd);
	free(buf);
	return n < 0 || errors;
}

static int do_server(void)
{
	struct rx_stats st = {};
	struct sockaddr_in6 sa;
	struct devmem_nl nl;
	uint32_t combined = 0, max = 0, id = 0;
	int dmabuf, lfd, fd, conn, one = 1, ret = 1;
	double t0, elapsed = 0, cpu = 0;
	struct kernel_stats k0, k1;
	struct rusage ru0, ru1;
	EVP_MD_CTX *sha = NULL;
	uint8_t *map;

	if (geteuid()) {
		fprintf(stderr, "needs root (CAP_NET_ADMIN to bind a dmabuf)\n");
		return 1;
	}
	if (parse_addr(server_ip, port, &sa)) {
		fprintf(stderr, "bad server address %s\n", server_ip);
		return 1;
	}
	nic.ifindex = if_nametoindex(ifname);
	if (!nic.ifindex) {
		fprintf(stderr, "no interface %s\n", ifname);
		return 1;
	}
	if (devmem_nl_open(&nl)) {
		fprintf(stderr, "netlink: no netdev family (no devmem TCP in this kernel)\n");
		return 1;
	}
	if (ethtool_get_channels(&nl, nic.ifindex, &combined, &max) ||
	    combined < 2) {
		fprintf(stderr, "%s: needs at least 2 RX queues\n", ifname);
		goto out_nl;
	}
	if (num_queues < 0)
		num_queues = 1;
	if (start_queue < 0)
		start_queue = combined - num_queues;
	if (start_queue < 1 || start_queue + num_queues > (int)combined) {
		fprintf(stderr, "queues %d..%d do not fit %u channels (queue 0 stays unbound)\n",
			start_queue, start_queue + num_queues - 1, combined);
		goto out_nl;
	}

	dmabuf = alloc_dmabuf(dmabuf_size);
	if (dmabuf < 0) {
		if (dmabuf == -ENODEV)
			ret = KSFT_SKIP;	/* no GPU here */
		goto out_nl;
	}
	/* host-backed dmabufs are read through a mapping, GPU ones copied */
	map = NULL;
	if (!gpu.copy) {
		map = mmap(NULL, dmabuf_size, PROT_READ, MAP_SHARED, dmabuf, 0);
		if (map == MAP_FAILED) {
			fprintf(stderr, "mmap dmabuf: %s\n", strerror(errno));
			goto out_dmabuf;
		}
	}

	if (nic_setup(&nl))
		goto out_restore;
	print_queue_stats("before");
	if (bind_queues(&nl, dmabuf, &id))
		goto out_restore;
	fprintf(stderr, "bound dmabuf id %u to %s queues %d..%d\n", id, ifname,
		start_queue, start_queue + num_queues - 1);

	lfd = socket(AF_INET6, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		fprintf(stderr, "listen on %s port %u: %s\n", server_ip, port,
			strerror(errno));
		goto out_unbind;
	}
	fprintf(stderr, "listening on %s port %u\n", server_ip, port);
	if (want_sha256) {
		sha = EVP_MD_CTX_new();
		EVP_DigestInit_ex(sha, EVP_sha256(), NULL);
	}
	read_kernel_stats(&k0);
	/* --connections: one after the other, all on this binding */
	for (conn = 0; conn < connections && !atomic_load(&stop); conn++) {
		struct rx_stats cs = {};

		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			fprintf(stderr, "accept: %s\n", strerror(errno));
			ret = 1;
			break;
		}
		getrusage(RUSAGE_THREAD, &ru0);
		t0 = now();
		ret = receive(fd, dmabuf, id, map, &cs, sha) ? 1 : 0;
		elapsed += now() - t0;
		getrusage(RUSAGE_THREAD, &ru1);
		cpu += (ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
		       (ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
		       (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
		       (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
		close(fd);
		rx_stats_add(&st, &cs);
		if (connections > 1)
			printf("connection %d: %llu bytes, %llu errors\n",
			       conn + 1, (unsigned long long)cs.bytes,
			       (unsigned long long)cs.errors);
		if (ret)
			break;
	}

	printf("received %llu bytes: %llu in device memory (%llu frags), %llu linear, %llu host\n",
	       (unsigned long long)st.bytes,
	       (unsigned long long)st.devmem_bytes,
	       (unsigned long long)st.frags,
	       (unsigned long long)st.linear_bytes,
	       (unsigned long long)st.host_bytes);
	if (validate)
		printf("validated every byte against the %d-byte pattern: %llu errors\n",
		       validate, (unsigned long long)st.errors);
	if (sha) {
		unsigned char md[32];
		unsigned int len, i;

		EVP_DigestFinal_ex(sha, md, &len);
		printf("sha256 ");
		for (i = 0; i < len; i++)
			printf("%02x", md[i]);
		printf("\n");
		EVP_MD_CTX_free(sha);
	}
	if (want_stats) {
		printf("stats: time %.3f s, %.1f MB/s, receiver cpu %.3f s\n",
		       elapsed, st.bytes / 1e6 / elapsed, cpu);
		printf("stats: recvmsg calls %llu, tokens returned %llu, DONTNEED calls %llu\n",
		       (unsigned long long)st.recvmsg_calls,
		       (unsigned long long)st.tokens_returned,
		       (unsigned long long)st.dontneed_calls);
		printf("stats: DONTNEED %.0f ns per token (batches of %d)\n",
		       st.tokens_returned ?
		       (double)dontneed_ns / st.tokens_returned : 0.0,
		       dontneed_batch);
		read_kernel_stats(&k1);
		if (k0.ok && k1.ok) {
			printf("stats: kernel: %llu frags, %llu bytes left in device memory, ",
			       k1.frags - k0.frags,
			       k1.devmem_bytes - k0.devmem_bytes);
			printf("%llu payload bytes copied by the CPU, %llu DONTNEED calls\n",
			       k1.linear_bytes - k0.linear_bytes,
			       k1.dontneed_calls - k0.dontneed_calls);
		}
		print_queue_stats("after");
	}
	if (st.errors)
		ret = 1;

	close(lfd);
out_unbind:
	devmem_nl_close(&nl);	/* closing the socket unbinds */
	devmem_nl_open(&nl);
out_restore:
	nic_restore(&nl);
	if (map)
		munmap(map, dmabuf_size);
out_dmabuf:
	close(dmabuf);
out_nl:
	devmem_nl_close(&nl);
	return ret;
}

/* Bind self-tests, like upstream's run_devmem_tests(). */
static int do_selftests(void)
{
	struct devmem_queue q[2];
	uint32_t combined = 0, max = 0, id;
	int dmabuf, hds = 0, fails = 0;
	struct devmem_nl nl, nl2;

#define CHECK(cond, name) do {						\
	bool ok_ = (cond);						\
	printf("%s %s\n", ok_ ? "ok" : "FAIL", name);			\
	fails += !ok_;							\
} while (0)

	nic.ifindex = if_nametoindex(ifname);
	if (!nic.ifindex || devmem_nl_open(&nl) || devmem_nl_open(&nl2)) {
		fprintf(stderr, "no interface %s or no netdev family\n", ifname);
		return 1;
	}
	dmabuf = alloc_dmabuf(dmabuf_size);
	if (dmabuf < 0)
		return 1;
	ethtool_get_channels(&nl, nic.ifindex, &combined, &max);
	ethtool_get_hds(&nl, nic.ifindex, &hds);
	if (combined < 2) {
		fprintf(stderr, "%s: needs at least 2 queues\n", ifname);
		return 1;
	}
	q[0].id = combined / 2;
	q[1].id = combined - 1;
	q[0].type = UP_NETDEV_QUEUE_TYPE_RX;
	q[1].type = UP_NETDEV_QUEUE_TYPE_RX;

	CHECK(devmem_bind_rx_raw(&nl, BIND_IFINDEX | BIND_FD, nic.ifindex,
				 dmabuf, q, 0, NULL) == -EINVAL,
	      "bind with no queues fails");
	ethtool_set_hds(&nl, nic.ifindex, false);
	CHECK(devmem_bind_rx(&nl, nic.ifindex, dmabuf, q, 2, NULL) == -EINVAL,
	      "bind with tcp-data-split off fails");
	ethtool_set_hds(&nl, nic.ifindex, true);
	CHECK(!devmem_bind_rx(&nl2, nic.ifindex, dmabuf, q, 2, &id),
	      "bind with tcp-data-split on succeeds");
	CHECK(ethtool_set_channels(&nl, nic.ifindex, q[0].id) == -EINVAL,
	      "shrinking channels below the bound queues fails");
	devmem_nl_close(&nl2);
	id = ~0U;
	devmem_queue_get(&nl, nic.ifindex, q[0].id, UP_NETDEV_QUEUE_TYPE_RX,
			 &id);
	CHECK(id == 0, "closing the netlink socket unbinds");
	if (hds != ETHTOOL_TCP_DATA_SPLIT_ENABLED)
		ethtool_set_hds(&nl, nic.ifindex, false);
	close(dmabuf);
	devmem_nl_close(&nl);
	printf("%d self-tests failed\n", fails);
	return !!fails;
}

/* RX queues of the device and what memory backs them (queue-get). */
static int do_show_queues(void)
{
	uint32_t combined = 0, max = 0, q, id;
	struct devmem_nl nl;
	int ifindex;

	ifindex = if_nametoindex(ifname);
	if (!ifindex || devmem_nl_open(&nl))
		return 1;
	ethtool_get_channels(&nl, ifindex, &combined, &max);
	for (q = 0; q < combined; q++) {
		if (devmem_queue_get(&nl, ifindex, q, UP_NETDEV_QUEUE_TYPE_RX,
				     &id))
			continue;
		if (id)
			printf("%s rx queue %u: dmabuf %u (device memory)\n",
			       ifname, q, id);
		else
			printf("%s rx queue %u: host memory\n", ifname, q);
	}
	devmem_nl_close(&nl);
	return 0;
}

/* Every page pool (netdev page-pool-get dump): what is in flight, what
 * is detached (its device is gone) but still waiting for pages.
 */
static int do_show_pools(void)
{
	struct devmem_pool_info pools[512];
	struct devmem_nl nl;
	int i, n;

	if (devmem_nl_open(&nl))
		return 1;
	n = devmem_page_pools(&nl, pools, 512);
	devmem_nl_close(&nl);
	if (n < 0) {
		fprintf(stderr, "page-pool-get: %s\n", strerror(-n));
		return 1;
	}
	for (i = 0; i < n; i++)
		printf("pool %u ifindex %u inflight %llu (%llu bytes)%s dmabuf %u\n",
		       pools[i].id, pools[i].ifindex,
		       (unsigned long long)pools[i].inflight,
		       (unsigned long long)pools[i].inflight_mem,
		       pools[i].detach_time ? " detached" : "", pools[i].dmabuf);
	return 0;
}

/* Bind a dmabuf of --size bytes to the last queue, report what the
 * kernel says the binding cost (debugfs), unbind. For the benchmark.
 */
static int do_bind_only(void)
{
	struct devmem_queue q = { .type = UP_NETDEV_QUEUE_TYPE_RX };
	uint32_t combined = 0, max = 0, id = 0;
	char line[256], want[16];
	struct devmem_nl nl;
	int dmabuf, err = 1;
	double t0, t1;
	FILE *f;

	nic.ifindex = if_nametoindex(ifname);
	if (!nic.ifindex || devmem_nl_open(&nl))
		return 1;
	ethtool_get_channels(&nl, nic.ifindex, &combined, &max);
	q.id = combined - 1;
	ethtool_set_hds(&nl, nic.ifindex, true);
	dmabuf = alloc_dmabuf(dmabuf_size);
	if (dmabuf < 0)
		goto out;
	t0 = now();
	err = devmem_bind_rx(&nl, nic.ifindex, dmabuf, &q, 1, &id);
	t1 = now();
	if (err) {
		fprintf(stderr, "bind-rx: %s %s\n", strerror(-err), nl.extack);
		goto out_close;
	}
	/* id state ifindex niovs free inflight mem_bytes bind_us queues */
	snprintf(want, sizeof(want), "%u ", id);
	f = fopen("/sys/kernel/debug/devmem/bindings", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long niovs, mem, bind_us;
		char state[16];

		if (strncmp(line, want, strlen(want)) ||
		    sscanf(line, "%*u %15s %*d %llu %*u %*u %llu %llu", state,
			   &niovs, &mem, &bind_us) != 4)
			continue;
		printf("bind size_bytes=%zu niovs=%llu kernel_bind_us=%llu ",
		       dmabuf_size, niovs, bind_us);
		printf("netlink_bind_us=%.0f mem_bytes=%llu bytes_per_niov=%.1f\n",
		       (t1 - t0) * 1e6, mem, (double)mem / niovs);
	}
	if (f)
		fclose(f);
out_close:
	close(dmabuf);
out:
	devmem_nl_close(&nl);
	return !!err;
}

/* tcp-data-split on or off over ethtool netlink */
static int do_set_hds(void)
{
	struct devmem_nl nl;
	int ifindex, err;

	ifindex = if_nametoindex(ifname);
	if (!ifindex || devmem_nl_open(&nl))
		return 1;
	err = ethtool_set_hds(&nl, ifindex, !strcmp(set_hds, "on"));
	if (err)
		fprintf(stderr, "%s: tcp-data-split %s: %s %s\n", ifname, set_hds,
			strerror(-err), nl.extack);
	devmem_nl_close(&nl);
	return !!err;
}

static int do_client(void)
{
	struct sockaddr_in6 sa;
	char buf[65536];
	ssize_t n;
	int fd;

	if (parse_addr(server_ip, port, &sa))
		return 1;
	fd = socket(AF_INET6, SOCK_STREAM, 0);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "connect %s port %u: %s\n", server_ip, port,
			strerror(errno));
		return 1;
	}
	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			return 1;
	close(fd);
	return 0;
}

static void help(const char *prog)
{
	fprintf(stderr,
		"usage: %s -l -f IF -s ADDR [-c CLIENT] [-p PORT] [-v N] [-q NUM] [-t FIRST]\n"
		"          [--sha256] [--stats] [--size BYTES] [--memory udmabuf|heap|cuda|rocm]\n"
		"          [--allow-host] [--connections N]\n"
		"       %s -f IF                  (bind self-tests)\n"
		"       %s -f IF --show-queues    (what backs each RX queue)\n"
		"       %s --pools                (page pools, in flight, detached)\n"
		"       %s -f IF --hds on|off     (tcp-data-split over netlink)\n"
		"       %s -f IF --bind-only [--size BYTES] (bind cost, for make bench)\n"
		"       %s -l --copy -s ADDR [-p PORT]  (plain recv, the baseline)\n"
		"       [--read-size BYTES] [--dontneed-batch FRAGS]\n"
		"       %s -s ADDR [-p PORT] < data (plain TCP client)\n",
		prog, prog, prog, prog, prog, prog, prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sha256", no_argument, NULL, 'H' },
		{ "stats", no_argument, NULL, 'S' },
		{ "size", required_argument, NULL, 'Z' },
		{ "memory", required_argument, NULL, 'M' },
		{ "allow-host", no_argument, NULL, 'A' },
		{ "show-queues", no_argument, NULL, 'Q' },
		{ "hds", required_argument, NULL, 'D' },
		{ "bind-only", no_argument, NULL, 'B' },
		{ "copy", no_argument, NULL, 'C' },
		{ "read-size", required_argument, NULL, 'R' },
		{ "dontneed-batch", required_argument, NULL, 'N' },
		{ "connections", required_argument, NULL, 'K' },
		{ "pools", no_argument, NULL, 'P' },
		{}
	};
	struct sigaction sa = { .sa_handler = on_signal };
	bool listen_mode = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "ls:c:p:v:q:t:f:", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'l':
			listen_mode = true;
			break;
		case 's':
			server_ip = optarg;
			break;
		case 'c':
			client_ip = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'v':
			validate = atoi(optarg);
			break;
		case 'q':
			num_queues = atoi(optarg);
			break;
		case 't':
			start_queue = atoi(optarg);
			break;
		case 'f':
			ifname = optarg;
			break;
		case 'H':
			want_sha256 = true;
			break;
		case 'S':
			want_stats = true;
			break;
		case 'Z':
			dmabuf_size = strtoull(optarg, NULL, 0);
			break;
		case 'M':
			memory = optarg;
			break;
		case 'A':
			allow_host = true;
			break;
		case 'Q':
			show_queues = true;
			break;
		case 'D':
			set_hds = optarg;
			break;
		case 'B':
			bind_only = true;
			break;
		case 'C':
			copy_mode = true;
			break;
		case 'R':
			read_size = strtoull(optarg, NULL, 0);
			if (!read_size || read_size > IOV_LEN)
				help(argv[0]);
			break;
		case 'P':
			return do_show_pools();
		case 'K':
			connections = atoi(optarg);
			if (connections < 1)
				help(argv[0]);
			break;
		case 'N':
			dontneed_batch = atoi(optarg);
			if (dontneed_batch < 1 || dontneed_batch > MAX_TOKEN_FRAGS)
				help(argv[0]);
			break;
		default:
			help(argv[0]);
		}
	}
	if (validate < 0 || validate == 1)
		help(argv[0]);

	/* no SA_RESTART: a signal ends recvmsg and the NIC is restored */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (listen_mode && copy_mode) {
		if (!server_ip)
			help(argv[0]);
		return do_copy_server();
	}
	if (listen_mode) {
		if (!ifname || !server_ip)
			help(argv[0]);
		return do_server();
	}
	if (!server_ip && !client_ip) {
		if (!ifname)
			help(argv[0]);
		if (set_hds)
			return do_set_hds();
		if (bind_only)
			return do_bind_only();
		return show_queues ? do_show_queues() : do_selftests();
	}
	if (!server_ip)
		help(argv[0]);
	return do_client();
}
