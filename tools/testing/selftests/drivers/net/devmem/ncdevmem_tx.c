// SPDX-License-Identifier: GPL-2.0
/*
 * ncdevmem's client (TX) mode: send stdin from device memory.
 *
 * The dmabuf is bound for TX (bind-tx) to the device the connection's
 * route leaves through; stdin is read into host memory and copied into
 * the dmabuf with mem_write() (the GPU runtime's host-to-device copy for
 * GPU memory, a CPU mapping otherwise, as upstream's memcpy_to_device
 * does), and sent with
 * sendmsg(MSG_ZEROCOPY) whose iovecs are offsets into the dmabuf and
 * whose SCM_DEVMEM_DMABUF control message names the binding. The dmabuf
 * is used as a ring of two halves: a half is refilled only once the
 * kernel completed (MSG_ERRQUEUE) every send from it, so any amount of
 * input streams through a small dmabuf. -z splits each send into iovecs
 * of at most that many bytes.
 */
#define _GNU_SOURCE
#include <linux/uio.h>
#define __iovec_defined 1

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>

#include "devmem_lib.h"
#include "devmem_nl.h"
#include "ncdevmem_mem.h"
#include "ncdevmem_tx.h"

#define TX_MAX_IOVS		1024

struct tx_ring {
	int fd;
	uint32_t id;
	uint64_t calls;		/* sendmsg() calls made */
	uint64_t completed;	/* calls the kernel completed */
	uint64_t copied;	/* completions the kernel had to copy */
	uint64_t notes;		/* error queue notifications read */
	uint64_t half_calls[2];	/* calls needed to free each half */
};

/* Block until at least @want sends are completed. */
static int tx_reap(struct tx_ring *r, uint64_t want)
{
	return zerocopy_reap(r->fd, want, &r->completed, &r->copied,
			     &r->notes);
}

/* Send [@off, @off + @len) of the dmabuf, in iovecs of at most @chunk. */
static int tx_send(struct tx_ring *r, uint64_t off, size_t len, size_t chunk)
{
	char control[CMSG_SPACE(sizeof(uint32_t))] = {};
	struct iovec iov[TX_MAX_IOVS];
	struct msghdr msg = {};
	struct cmsghdr *cm;
	ssize_t n;
	int i;

	while (len) {
		size_t batch = 0;

		for (i = 0; i < TX_MAX_IOVS && batch < len; i++) {
			iov[i].iov_base = (void *)(uintptr_t)(off + batch);
			iov[i].iov_len = chunk < len - batch ? chunk : len - batch;
			batch += iov[i].iov_len;
		}
		msg.msg_iov = iov;
		msg.msg_iovlen = i;
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = UP_SCM_DEVMEM_DMABUF;
		cm->cmsg_len = CMSG_LEN(sizeof(uint32_t));
		memcpy(CMSG_DATA(cm), &r->id, sizeof(r->id));

		n = sendmsg(r->fd, &msg, MSG_ZEROCOPY);
		if (n < 0)
			return -errno;
		r->calls++;
		/* a short send (signal) goes on from where it stopped */
		off += n;
		len -= n;
	}
	return 0;
}

/* Fill up to @len bytes of @dst from stdin; the bytes read, 0 at EOF. */
static ssize_t read_full(uint8_t *dst, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(0, dst + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		got += n;
	}
	return got;
}

int devmem_send(int fd, const char *ifname, const char *memory,
		size_t size, size_t chunk)
{
	struct tx_ring r = { .fd = fd };
	struct devmem_mem mem = {};
	uint8_t *stage = NULL;
	uint64_t total = 0;
	struct devmem_nl nl;
	size_t half;
	int one = 1, ret = 1, err, h = 0;
	ssize_t n;

	err = mem_open(&mem, memory, size, 0, 0);
	if (err) {
		fprintf(stderr, "%s: %s\n", memory, strerror(-err));
		return err == -ENODEV ? KSFT_SKIP : 1;
	}
	half = size / 2 & ~(size_t)4095;
	stage = malloc(half);
	if (!stage || devmem_nl_open(&nl))
		goto out_mem;
	err = devmem_bind_tx(&nl, if_nametoindex(ifname), mem.fd, &r.id);
	if (err) {
		fprintf(stderr, "bind-tx %s: %s (%s)\n", ifname, strerror(-err),
			nl.extack);
		goto out_nl;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		perror("SO_ZEROCOPY");
		goto out_nl;
	}
	printf("bind-tx %s: binding %u, %zu bytes of %s\n", ifname, r.id,
	       size, memory);

	if (!chunk)
		chunk = half;
	for (;;) {
		n = read_full(stage, half);
		if (n <= 0) {
			err = n < 0 ? -EIO : 0;
			break;
		}
		/* the half is free once every send from it completed */
		err = tx_reap(&r, r.half_calls[h]);
		if (!err)
			err = mem_write(&mem, h * half, stage, n);
		if (err)
			break;
		err = tx_send(&r, h * half, n, chunk);
		if (err)
			break;
		r.half_calls[h] = r.calls;
		total += n;
		h ^= 1;
	}
	if (!err)
		err = tx_reap(&r, r.calls);
	if (err) {
		fprintf(stderr, "devmem send: %s\n", strerror(-err));
		goto out_nl;
	}
	shutdown(fd, SHUT_WR);
	printf("sent %llu bytes from device memory in %llu sendmsg calls, ",
	       (unsigned long long)total, (unsigned long long)r.calls);
	printf("%llu completions copied by the kernel\n",
	       (unsigned long long)r.copied);
	ret = r.copied ? 1 : 0;
out_nl:
	devmem_nl_close(&nl);
out_mem:
	free(stage);
	mem_close(&mem);
	return ret;
}

/* Sends in flight before the bench waits for completions (optmem). */
#define BENCH_IN_FLIGHT		32
#define BENCH_CALL		(1024 * 1024)

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Until the peer acknowledged every byte sent on @fd (30 s at most). */
static int wait_acked(int fd)
{
	int i, unacked;

	for (i = 0; i < 30000; i++) {
		if (ioctl(fd, SIOCOUTQ, &unacked))
			return -errno;
		if (!unacked)
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

/* One MSG_ZEROCOPY send of [@p, @p + @len) of host memory. */
static int host_zc_send(struct tx_ring *r, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(r->fd, p, len, MSG_ZEROCOPY);
		if (n < 0)
			return -errno;
		r->calls++;
		p += n;
		len -= n;
	}
	return 0;
}

int devmem_send_bench(int fd, const char *ifname, const char *memory,
		      size_t size, uint64_t total, const char *how)
{
	bool devmem = !strcmp(how, "devmem");
	bool zc = devmem || !strcmp(how, "zerocopy");
	struct tx_ring r = { .fd = fd };
	struct devmem_mem mem = {};
	uint8_t *buf = MAP_FAILED;
	double t0, c0, t, c;
	uint64_t sent = 0;
	bool nl_open = false;
	struct devmem_nl nl;
	int one = 1, err = 0;
	ssize_t n;

	if (!zc && strcmp(how, "copy"))
		return 2;
	size &= ~(size_t)(BENCH_CALL - 1);
	if (!size)
		return 2;
	if (devmem) {
		err = mem_open(&mem, memory, size, 0, 0);
		if (err) {
			fprintf(stderr, "%s: %s\n", memory, strerror(-err));
			return err == -ENODEV ? KSFT_SKIP : 1;
		}
	}
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "no buffer of %zu bytes\n", size);
		goto out_mem;
	}
	/* written once, as a producer would; never by the send loop */
	memset(buf, 'x', size);
	if (devmem) {
		err = mem_write(&mem, 0, buf, size);
		if (err) {
			fprintf(stderr, "%s: write: %s\n", memory,
				strerror(-err));
			goto out_mem;
		}
		if (devmem_nl_open(&nl))
			goto out_mem;
		nl_open = true;
		err = devmem_bind_tx(&nl, if_nametoindex(ifname), mem.fd,
				     &r.id);
		if (err) {
			fprintf(stderr, "bind-tx %s: %s (%s)\n", ifname,
				strerror(-err), nl.extack);
			goto out_nl;
		}
	}
	if (zc && setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		err = -errno;
		goto out_nl;
	}

	t0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_THREAD_CPUTIME_ID);
	while (!err && sent < total) {
		uint64_t off = sent % size;

		if (zc && r.calls >= BENCH_IN_FLIGHT)
			err = tx_reap(&r, r.calls - BENCH_IN_FLIGHT);
		if (err)
			break;
		if (devmem) {
			err = tx_send(&r, off, BENCH_CALL, BENCH_CALL);
		} else if (zc) {
			err = host_zc_send(&r, buf + off, BENCH_CALL);
		} else {
			n = send(fd, buf + off, BENCH_CALL, 0);
			err = n == BENCH_CALL ? 0 : n < 0 ? -errno : -EIO;
			r.calls++;
		}
		sent += BENCH_CALL;
	}
	if (!err && zc)
		err = tx_reap(&r, r.calls);
	if (!err)
		err = wait_acked(fd);
	c = now(CLOCK_THREAD_CPUTIME_ID) - c0;
	t = now(CLOCK_MONOTONIC) - t0;
	if (err) {
		fprintf(stderr, "tx-bench %s: %s\n", how, strerror(-err));
		goto out_nl;
	}
	shutdown(fd, SHUT_WR);
	printf("tx-bench %s: bytes %llu time %.3f s sender cpu %.3f s ",
	       how, (unsigned long long)sent, t, c);
	printf("calls %llu notifications %llu copied %llu\n",
	       (unsigned long long)r.calls, (unsigned long long)r.notes,
	       (unsigned long long)r.copied);
out_nl:
	if (nl_open)
		devmem_nl_close(&nl);
out_mem:
	if (buf != MAP_FAILED)
		munmap(buf, size);
	if (devmem)
		mem_close(&mem);
	return err ? 1 : 0;
}
