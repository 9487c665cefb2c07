/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a remote peer can put on the wire of a devmem flow, tested by
 * concern: netfilter, tc, bridge and OVS (peer_filters), the kernel's
 * other readers of skb data (peer_readers), forwarding and ICMP errors
 * (peer_wire), and a fuzzer playing the peer (peer_fuzz). The peer runs
 * in the namespace of the other hdsim port and uses nothing but the
 * socket API a stock program has; queue 3 of the receiving port is bound
 * to a udmabuf, and every payload byte steered there is in device memory.
 *
 * Their environment and the helpers they share, defined in peer_lib.c.
 * None asserts: each returns what happened, and the test asserts on it.
 */
#ifndef DEVMEM_PEER_LIB_H
#define DEVMEM_PEER_LIB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "devmem_fixture.h"

#define BOUND_QUEUE		3
#define PORT_DEVMEM		5400
#define PORT_HOST		5401	/* not steered: host memory */
#define RX_ADDR			"192.0.8.1"
#define TX_ADDR			"192.0.8.2"

#define ICMP_RATELIMIT		"/proc/sys/net/ipv4/icmp_ratelimit"

/*
 * The environment of every case: hdsim device 41, the peer port in its
 * namespace, queue 3 bound to a 16 MiB udmabuf, PORT_DEVMEM steered
 * there and listened on. 0 or -errno (the failing step printed).
 */
int peer_env_setup(struct devmem_env *env);

/* Fork the peer: the child (0 returned) runs in the peer's namespace,
 * with none of the parent's descriptors.
 */
pid_t peer_fork(const struct devmem_env *env);
/* In the peer: a socket connected to @addr:PORT_DEVMEM, or exit 3. */
int peer_connect(const char *addr, int pmtudisc);
/* Write @len bytes of the pattern, from stream offset @off: 0 or -1. */
int send_pattern(int fd, size_t off, size_t len);

/* Receive up to @want bytes of the pattern from @fd, every frag checked
 * in the dmabuf and its token returned. Returns the bytes received; adds
 * wrong bytes and unreturned tokens to @bad, host-memory frags to
 * @nlinear.
 */
size_t drain_devmem(const struct devmem_env *env, int fd, size_t want,
		    uint64_t *bad, uint64_t *nlinear);
/*
 * A stream of @want bytes from the peer into the bound queue: 0 when
 * every byte arrived in the dmabuf, right, with every token returned and
 * the sender done; -EIO when not, -errno when the stream did not start
 * (what went wrong printed).
 */
int peer_flow_whole(struct devmem_env *env, size_t want);
/*
 * The control of a filter on payload: a flow on PORT_HOST (host memory).
 * 0 when no byte of it arrived within 3 s, -EPROTO when data or its end
 * did, -errno when the control could not run.
 */
int peer_host_flow_dropped(struct devmem_env *env);

/* Lift the receiver's ICMP rate limit, its value kept in @saved (the
 * caller writes it back to ICMP_RATELIMIT). Returns 0 or -1.
 */
int icmp_ratelimit_off(char *saved, size_t len);

/* A connection read without blocking, every byte checked. */
struct peer_conn {
	int fd;
	uint16_t port;
	int eof;
	uint64_t off;		/* stream bytes received */
	uint64_t devmem;	/* of which in the dmabuf */
	uint64_t bad;		/* wrong bytes, lost tokens */
};

/* One non-blocking devmem read of @c: every byte checked against the
 * pattern at its stream offset, in the dmabuf or in the iovec, and every
 * token returned.
 */
void peer_conn_read(const struct devmem_env *env, struct peer_conn *c);

#endif /* DEVMEM_PEER_LIB_H */
