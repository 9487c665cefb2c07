/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traffic helpers shared by the receive and fault tests: a pattern sender
 * in the peer namespace, recvmsg(MSG_SOCK_DEVMEM) with the cmsgs decoded,
 * token return. Defined in devmem_traffic.c. struct dmabuf_cmsg and
 * dmabuf_token come from <linux/uio.h>, which the includer takes first.
 */
#ifndef DEVMEM_TRAFFIC_H
#define DEVMEM_TRAFFIC_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#ifndef MSG_SOCK_DEVMEM
#define MSG_SOCK_DEVMEM		0x2000000
#endif

/* upstream ncdevmem's validation pattern: 1..n-1 then '\n', repeating */
#define PATTERN_LEN		7	/* -v 7, what the tests send */
uint8_t pattern_at_n(uint64_t off, unsigned int n);
uint8_t pattern_at(uint64_t off);	/* of PATTERN_LEN */
/* Bytes of @p (@len, at stream offset @off) that are not the pattern. */
size_t check_pattern_n(const uint8_t *p, size_t len, uint64_t off,
		       unsigned int n);
size_t check_pattern(const uint8_t *p, size_t len, size_t off);

/* In a forked sender: enter namespace @ns and connect to @addr:@port.
 * Returns the socket; exits the child (2, 3) if it cannot.
 */
int sender_connect(const char *ns, const char *addr, int port);
/* Fork a sender in namespace @ns: connect to @addr:@port, send @bytes of
 * the pattern in writes of @chunk bytes (at most 1 MiB), close. Returns
 * its pid.
 */
pid_t sender_to_chunks(const char *ns, const char *addr, int port, size_t bytes,
		       size_t chunk);
/* The same in 4 KiB writes. */
pid_t sender_to(const char *ns, const char *addr, int port, size_t bytes);
/* Wait for child @pid: its exit status, -1 if it did not exit. */
int reap(pid_t pid);

/* Wait until @fd has at least @bytes queued (or 5 s). */
void wait_inq(int fd, int bytes);
/* The same for up to @ms milliseconds: 0 once they are, else -1. */
int wait_inq_for(int fd, int bytes, int ms);

struct rx_result {
	ssize_t ret;
	int err;
	int ndmabuf;
	int nlinear;
	uint32_t tokens[512];
	struct dmabuf_cmsg frags[512];
};

/* Collect the devmem cmsgs of a completed recvmsg's @msg into @r. */
void rx_parse(struct msghdr *msg, struct rx_result *r);
/* A receive's msghdr: up to @len bytes into a static 1 MiB buffer (@iov
 * describes it), @ctrl_len bytes of control at @ctrl.
 */
struct msghdr devmem_rx_msg(struct iovec *iov, size_t len, void *ctrl,
			    size_t ctrl_len);
/* @r for a receive of @msg that returned @ret (error @err, or 0); the
 * cmsgs parsed when it had control room and data came.
 */
void rx_result_set(struct rx_result *r, struct msghdr *msg, ssize_t ret,
		   int err);
/* One recvmsg() of up to @len bytes with @flags, its cmsgs in @r. */
void devmem_recv(int fd, size_t len, void *ctrl, size_t ctrl_len, int flags,
		 struct rx_result *r);
/* SO_DEVMEM_DONTNEED of @n tokens: the count freed, or -errno. */
int dontneed(int fd, const struct dmabuf_token *t, int n);
/* Every token of @r given back: the count freed. */
int dontneed_all(int fd, const struct rx_result *r);

/* What a validating receive loop saw, in stream order. */
struct stream {
	size_t bytes;		/* validated */
	size_t devmem;		/* of which from the dmabuf */
	size_t host;		/* of which copied to the iovec */
	size_t errors;		/* bytes that were not the pattern */
	size_t frags;
	size_t largest;		/* the longest frag */
	size_t map_size;	/* frags must end inside it (0: no check) */
	uint32_t *held;		/* if set, tokens kept (recv_step @keep) */
	size_t nheld;
	/* where binding @id's dmabuf starts in @map (NULL: at @map) */
	const uint8_t *(*frag_base)(const uint8_t *map, uint32_t id);
};

/* One devmem cmsg: validate its bytes, in the dmabuf or the iovec. */
void stream_frag(struct stream *st, const struct cmsghdr *cm,
		 const uint8_t *map, const uint8_t *iov_buf);
/*
 * One recvmsg(MSG_SOCK_DEVMEM) with @ctrl_len bytes of control buffer:
 * validate what it returned, device or host memory, and give the tokens
 * back unless @keep (then they go to @st->held if set). Returns recvmsg's
 * value.
 */
ssize_t recv_step(int fd, const uint8_t *map, struct stream *st, bool keep,
		  size_t ctrl_len);
/* Receive until EOF (or an error, or @until bytes); tokens returned. */
ssize_t recv_stream(int fd, const uint8_t *map, struct stream *st,
		    size_t until);

#endif /* DEVMEM_TRAFFIC_H */
