/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one test environment of the devmem C selftests: an hdsim port pair,
 * the peer port in its own network namespace, an IPv4 /24 on both ends,
 * RSS kept off the devmem queues, an ntuple rule steering the test port,
 * tcp-data-split on, a udmabuf mapped for validation, optionally bound to
 * a queue, and a listening socket. Built in-process (no exec).
 *
 * Each test program owns a fixed hdsim device id and namespace names, and
 * setup first removes whatever a killed earlier test left behind: every
 * hdsim device (with the addresses and rules on it) and this program's
 * namespaces. A test that hit its timeout, whose teardown never ran,
 * cannot make the next one fail.
 */
#ifndef DEVMEM_FIXTURE_H
#define DEVMEM_FIXTURE_H

#include <net/if.h>
#include <netinet/in.h>
#include <sys/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devmem_nl.h"

/*
 * A test on this fixture gets an hdsim pair, a namespace and a binding:
 * up to 13 s on the debug kernel under TCG, too close to the harness's
 * 30 s default. Tests that need more say so with TEST_F_TIMEOUT.
 */
#ifdef TEST_TIMEOUT_DEFAULT
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 60
#endif

/*
 * DEVMEM_ONLY=<test name> runs one test of a program (6.1's harness has no
 * test selection): in FIXTURE_SETUP, before any setup, the others skip.
 * 6.1's harness runs the test body after a SKIP in setup; jumping back to
 * the wrapper's setjmp() skips the body, and the teardown with it.
 */
#define DEVMEM_ONLY_SKIP()						\
	do {								\
		const char *__only = getenv("DEVMEM_ONLY");		\
									\
		if (__only && strcmp(__only, _metadata->name))		\
			SKIP(longjmp(_metadata->env, 1),		\
			     "DEVMEM_ONLY=%s", __only);			\
	} while (0)

struct devmem_env_cfg {
	const char *name;	/* namespaces are "<name>-<dev_id>[-*]" */
	unsigned int dev_id;	/* this program's hdsim device */
	const char *rx_addr;	/* host end, /24 */
	const char *tx_addr;	/* peer end, /24 */
	int rss_queues;		/* RSS over queues 0..n-1 */
	int steer_port;		/* TCP dst port steered... (0: no rule) */
	int steer_queue;	/* ...to this queue */
	size_t dmabuf_size;	/* udmabuf, mapped read-only (0: none) */
	int bind_queue;		/* bind the udmabuf to it (0: do not) */
	int listen_port;	/* listening socket on rx_addr (0: none) */
};

struct devmem_env {
	struct devmem_nl nl;
	unsigned int dev_id;
	char ifname[IFNAMSIZ];	/* host end, port 0 */
	char peer[IFNAMSIZ];	/* peer end, port 1, in @ns */
	char ns[32];
	char rx_addr[INET_ADDRSTRLEN];
	int ifindex;
	int dmabuf;
	uint8_t *map;
	size_t map_size;
	uint32_t binding;	/* id of the binding made by setup, or 0 */
	int lfd;		/* listening on rx_addr:listen_port */
	int listen_port;
	size_t send_chunk;	/* sender's write size (0: 4 KiB) */
	bool dev_gone;		/* a test deleted the device itself */
};

/* false: no hdsim driver in this kernel (the test skips) */
bool devmem_env_available(void);
/*
 * The environment faults.c and audit.c share: RSS on queues 0-1, queues
 * 2-3 left to the tests (nothing steered or bound), a udmabuf of
 * @dmabuf_size and a listening socket on @rx_addr:@port.
 */
int devmem_env_setup_open(struct devmem_env *env, const char *name,
			  unsigned int dev_id, const char *rx_addr,
			  const char *tx_addr, int port, size_t dmabuf_size);
/*
 * One queue for devmem, the layout most programs use: RSS over the queues
 * below @queue, TCP to @port steered to @queue, a listening socket on
 * @rx_addr:@port, and (@dmabuf_size not 0) a udmabuf of that size bound
 * to @queue.
 */
int devmem_env_setup_queue(struct devmem_env *env, const char *name,
			   unsigned int dev_id, const char *rx_addr,
			   const char *tx_addr, int queue, int port,
			   size_t dmabuf_size);
/* Remove what a killed test may have left behind (setup does it). */
void devmem_env_reset(const struct devmem_env_cfg *cfg);
/* 0 or -errno; the failing step is printed as a "# setup:" line. */
int devmem_env_setup(struct devmem_env *env, const struct devmem_env_cfg *cfg);
/* Steer TCP to @port onto @queue of the host end: 0 or -errno. */
int devmem_env_steer(struct devmem_env *env, int port, int queue);
/* Bind the environment's udmabuf to RX queues @first.. through @nl. */
int devmem_env_bind(struct devmem_env *env, struct devmem_nl *nl, int first,
		    int n, uint32_t *id);
/*
 * Fork a sender of @bytes of the pattern from the peer namespace to the
 * listening socket and accept it: the connection's fd (or -errno), the
 * sender's pid in @sender.
 */
int devmem_env_stream(struct devmem_env *env, size_t bytes, pid_t *sender);
/*
 * The same on a bound queue: steer the listening port to @queue, bind the
 * udmabuf to it through @nl (the binding's id in @id), then stream.
 */
int devmem_env_bound_stream(struct devmem_env *env, struct devmem_nl *nl,
			    int queue, size_t bytes, uint32_t *id,
			    pid_t *sender);
/*
 * Tear down; the bindings still alive after up to 10 s (0: no leak), who
 * holds them printed if any.
 */
int devmem_env_teardown(struct devmem_env *env);
/*
 * Field @key ("unreadable", "dma_sync_dev", "buf_size") of queue @q's
 * payload pool in hdsim's rx_pools debugfs file, or -1.
 */
long devmem_env_rx_pool(const struct devmem_env *env, unsigned int q,
			const char *key);
/* Page pools still detached or on a dmabuf after 10 s (who holds printed). */
int devmem_env_pools_leaked(void);

/*
 * Leak check over page-pool-get: > 0 while a pool is detached with pages
 * in flight or still on a dmabuf after @ms, 0 once none is.
 */
int devmem_pools_settled(struct devmem_nl *nl, int ms);

/* Listening TCP socket on @addr:@port, or -errno. */
int listen_on(const char *addr, int port);

#endif /* DEVMEM_FIXTURE_H */
