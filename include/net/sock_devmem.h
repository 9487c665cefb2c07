/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device memory TCP: the per-socket store of the tokens user space holds
 * on dmabuf fragments (net/core/sock_devmem.c).
 */
#ifndef _NET_SOCK_DEVMEM_H
#define _NET_SOCK_DEVMEM_H

#include <linux/errno.h>
#include <linux/types.h>

struct dmabuf_token;
struct net_iov;
struct net;
struct sock;

/* Called for each socket that holds tokens, with a reference on it: 0 to
 * go on, else the walk stops there (see sk_devmem_sock_walk())
 */
typedef int (*sk_devmem_walk_fn)(struct sock *sk, u32 tokens, void *arg);

#if IS_ENABLED(CONFIG_NET_DEVMEM)
int sk_devmem_tokens_take(struct sock *sk, u32 *tokens, u32 n);
void sk_devmem_tokens_commit(struct sock *sk, const u32 *tokens,
			     struct net_iov **niovs, u32 used, u32 n);
int sk_devmem_tokens_free(struct sock *sk, const struct dmabuf_token *ranges,
			  unsigned int num);
void sk_devmem_tokens_release(struct sock *sk, bool may_sleep);
int sk_devmem_sock_walk(struct net *net, u32 *pos, sk_devmem_walk_fn fn,
			void *arg);
#else
static inline int sk_devmem_tokens_free(struct sock *sk,
					const struct dmabuf_token *ranges,
					unsigned int num)
{
	return -EOPNOTSUPP;
}

static inline void sk_devmem_tokens_release(struct sock *sk, bool may_sleep)
{
}
#endif

#endif /* _NET_SOCK_DEVMEM_H */
