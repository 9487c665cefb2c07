// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory TCP: the tokens of a socket.
 *
 * recvmsg(MSG_SOCK_DEVMEM) hands every device-memory fragment to user
 * space with a token; the token holds a reference on the fragment's
 * net_iov until user space gives it back with SO_DEVMEM_DONTNEED or the
 * socket is closed. The store lives in struct sock, so that the
 * setsockopt side needs nothing of IPv4.
 *
 * The store is an allocating xarray: token t is index t (0 is never a
 * token). The receive path reserves an index per fragment and stores
 * the net_iov there once the fragment is handed out; DONTNEED erases
 * under the xarray's lock.
 *
 * Lifetime: created by the first recvmsg that hands out a fragment,
 * under the socket lock; freed with every token still in it when the
 * socket is closed or destroyed, when no other thread can reach it.
 */
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/xarray.h>
#include <net/netmem.h>
#include <net/page_pool.h>
#include <net/sock.h>
#include <net/sock_devmem.h>

#define CREATE_TRACE_POINTS
#include <trace/events/devmem.h>

/* Tokens one socket can hold: keeps a runaway application from pinning
 * the kernel's memory for the store.
 */
#define SK_DEVMEM_MAX_TOKENS	BIT(24)

struct sk_devmem_tokens {
	struct xarray xa;
};

static struct sk_devmem_tokens *sk_devmem_tokens_get(struct sock *sk)
{
	struct sk_devmem_tokens *store;

	sock_owned_by_me(sk);

	if (sk->sk_devmem_tokens)
		return sk->sk_devmem_tokens;

	store = kzalloc(sizeof(*store), GFP_KERNEL);
	if (!store)
		return NULL;
	xa_init_flags(&store->xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	/* DONTNEED reads the pointer without the socket lock */
	smp_store_release(&sk->sk_devmem_tokens, store);
	return store;
}

/**
 * sk_devmem_tokens_take() - set aside tokens for the frags of one skb
 * @sk: socket, locked
 * @tokens: out: @n tokens
 * @n: number of tokens
 *
 * The tokens are not live until sk_devmem_tokens_commit(): DONTNEED
 * skips them.
 *
 * Return: 0, -ENOBUFS if the socket holds too many tokens already, or
 * -ENOMEM.
 */
int sk_devmem_tokens_take(struct sock *sk, u32 *tokens, u32 n)
{
	struct xa_limit limit = XA_LIMIT(1, SK_DEVMEM_MAX_TOKENS);
	struct sk_devmem_tokens *store = sk_devmem_tokens_get(sk);
	u32 i;
	int err;

	if (!store)
		return -ENOMEM;

	for (i = 0; i < n; i++) {
		/* a NULL entry reserves the index: loads see NULL */
		err = xa_alloc_bh(&store->xa, &tokens[i], NULL, limit,
				  GFP_KERNEL);
		if (err)
			goto err_release;
	}
	return 0;

err_release:
	while (i--)
		xa_erase_bh(&store->xa, tokens[i]);
	return err == -EBUSY ? -ENOBUFS : err;
}

/**
 * sk_devmem_tokens_commit() - make taken tokens live, put back the rest
 * @sk: socket, locked
 * @tokens: the @n tokens of sk_devmem_tokens_take()
 * @niovs: net_iov of each of the first @used tokens; each token owns one
 *	reference on its net_iov from now on
 * @used: tokens handed to user space
 * @n: tokens taken
 */
void sk_devmem_tokens_commit(struct sock *sk, const u32 *tokens,
			     struct net_iov **niovs, u32 used, u32 n)
{
	struct sk_devmem_tokens *store = sk->sk_devmem_tokens;
	u32 i;

	sock_owned_by_me(sk);

	xa_lock_bh(&store->xa);
	/* storing into a reserved index allocates nothing */
	for (i = 0; i < used; i++)
		__xa_store(&store->xa, tokens[i], niovs[i], GFP_ATOMIC);
	for (i = used; i < n; i++)
		__xa_erase(&store->xa, tokens[i]);
	xa_unlock_bh(&store->xa);
}

/**
 * sk_devmem_tokens_free() - give back ranges of tokens (SO_DEVMEM_DONTNEED)
 * @sk: socket, not locked
 * @ranges: token ranges, already trimmed to the per-call cap
 * @num: number of ranges
 *
 * Unknown, already freed and not yet committed tokens are skipped.
 *
 * Return: number of tokens freed.
 */
int sk_devmem_tokens_free(struct sock *sk, const struct dmabuf_token *ranges,
			  unsigned int num)
{
	struct sk_devmem_tokens *store;
	unsigned int i;
	int freed = 0;

	/* pairs with smp_store_release() in sk_devmem_tokens_get() */
	store = smp_load_acquire(&sk->sk_devmem_tokens);
	if (!store)
		goto out;

	xa_lock_bh(&store->xa);
	for (i = 0; i < num; i++) {
		u64 first = ranges[i].token_start;
		u64 last = first + ranges[i].token_count;	/* exclusive */
		u64 t;

		/* tokens live in [1, SK_DEVMEM_MAX_TOKENS]: clamp, so that
		 * a huge or wrapping range costs nothing
		 */
		first = max_t(u64, first, 1);
		last = min_t(u64, last, (u64)SK_DEVMEM_MAX_TOKENS + 1);

		for (t = first; t < last; t++) {
			struct net_iov *niov;

			/* a reserved, uncommitted token stays reserved */
			if (!xa_load(&store->xa, t))
				continue;
			niov = __xa_erase(&store->xa, t);
			page_pool_unref_net_iov(niov);
			freed++;
		}
	}
	xa_unlock_bh(&store->xa);
out:
	trace_devmem_dontneed(sk, num, freed);
	return freed;
}

/**
 * sk_devmem_tokens_release() - give back every token of a socket
 * @sk: socket being closed or destroyed, locked or no longer reachable
 *
 * Called on close(), when user space can no longer return tokens, and
 * again (finding nothing) when the socket is destroyed.
 */
void sk_devmem_tokens_release(struct sock *sk)
{
	struct sk_devmem_tokens *store = sk->sk_devmem_tokens;
	struct net_iov *niov;
	unsigned long t;

	if (!store)
		return;

	xa_for_each(&store->xa, t, niov)
		page_pool_unref_net_iov(niov);

	sk->sk_devmem_tokens = NULL;
	xa_destroy(&store->xa);
	kfree(store);
}
