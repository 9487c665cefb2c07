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
 * The store is an array of slots. A used slot holds the net_iov pointer;
 * a free slot holds the index of the next free slot, shifted left with
 * bit 0 set, so free slots form a stack threaded through the array.
 * Token t is slot t - 1 (0 is never a token). The receive path takes the
 * store lock twice per skb (take slots, commit them), DONTNEED once per
 * call; freed ranges are pushed back in reverse, so that the next
 * recvmsg gets ascending, contiguous tokens again and user space can
 * return them as a few long ranges.
 *
 * Lifetime: created by the first recvmsg that hands out a fragment,
 * under the socket lock; freed with every token still in it when the
 * socket is closed or destroyed, when no other thread can reach it.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <net/netmem.h>
#include <net/page_pool.h>
#include <net/sock.h>
#include <net/sock_devmem.h>

#define CREATE_TRACE_POINTS
#include <trace/events/devmem.h>

/* Tokens one socket can hold: keeps a runaway application from pinning
 * the kernel's memory for the slot array.
 */
#define SK_DEVMEM_MAX_TOKENS	BIT(24)

#define SLOT_FREE		1UL
#define SLOT_END		((unsigned long)U32_MAX)

struct sk_devmem_tokens {
	spinlock_t lock;	/* protects everything below */
	u32 size;		/* slots allocated */
	u32 used;		/* slots holding a net_iov */
	u32 free_head;		/* first free slot, or SLOT_END */
	unsigned long *slots;
};

static bool slot_is_free(unsigned long v)
{
	return v & SLOT_FREE;
}

static unsigned long slot_free_link(u32 next)
{
	return ((unsigned long)next << 1) | SLOT_FREE;
}

static u32 slot_next(unsigned long v)
{
	return v >> 1;
}

static struct sk_devmem_tokens *sk_devmem_tokens_get(struct sock *sk)
{
	struct sk_devmem_tokens *store;

	sock_owned_by_me(sk);

	if (sk->sk_devmem_tokens)
		return sk->sk_devmem_tokens;

	store = kzalloc(sizeof(*store), GFP_KERNEL);
	if (!store)
		return NULL;
	spin_lock_init(&store->lock);
	store->free_head = SLOT_END;
	/* DONTNEED reads the pointer without the socket lock */
	smp_store_release(&sk->sk_devmem_tokens, store);
	return store;
}

/* Make room for @n more tokens. Called with the socket lock held, which
 * keeps other allocators out; DONTNEED only frees, under store->lock.
 */
static int sk_devmem_tokens_reserve(struct sk_devmem_tokens *store, u32 n)
{
	unsigned long *slots, *old;
	u32 size, i;

	if (store->size - store->used >= n)
		return 0;

	size = max3(store->size * 2, store->used + n, 256U);
	if (size > SK_DEVMEM_MAX_TOKENS) {
		if (store->used + n > SK_DEVMEM_MAX_TOKENS)
			return -ENOBUFS;
		size = SK_DEVMEM_MAX_TOKENS;
	}

	slots = kvmalloc_array(size, sizeof(*slots), GFP_KERNEL);
	if (!slots)
		return -ENOMEM;

	spin_lock_bh(&store->lock);
	if (store->size)
		memcpy(slots, store->slots, store->size * sizeof(*slots));
	/* new slots go on top of the free stack, in ascending order */
	for (i = store->size; i < size; i++)
		slots[i] = slot_free_link(i + 1 < size ? i + 1 : store->free_head);
	store->free_head = store->size;
	old = store->slots;
	store->slots = slots;
	store->size = size;
	spin_unlock_bh(&store->lock);

	kvfree(old);
	return 0;
}

static void sk_devmem_slot_push(struct sk_devmem_tokens *store, u32 slot)
{
	store->slots[slot] = slot_free_link(store->free_head);
	store->free_head = slot;
}

/**
 * sk_devmem_tokens_take() - set aside tokens for the frags of one skb
 * @sk: socket, locked
 * @tokens: out: @n tokens, ascending when the free stack allows
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
	struct sk_devmem_tokens *store = sk_devmem_tokens_get(sk);
	u32 i, slot;
	int err;

	if (!store)
		return -ENOMEM;

	err = sk_devmem_tokens_reserve(store, n);
	if (err)
		return err;

	spin_lock_bh(&store->lock);
	for (i = 0; i < n; i++) {
		slot = store->free_head;
		store->free_head = slot_next(store->slots[slot]);
		tokens[i] = slot + 1;
	}
	spin_unlock_bh(&store->lock);

	return 0;
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

	spin_lock_bh(&store->lock);
	for (i = 0; i < used; i++)
		store->slots[tokens[i] - 1] = (unsigned long)niovs[i];
	store->used += used;
	/* in reverse, so that they come out in the same order next time */
	for (i = n; i-- > used;)
		sk_devmem_slot_push(store, tokens[i] - 1);
	spin_unlock_bh(&store->lock);
}

/* Caller holds store->lock. Returns the net_iov, or NULL if @token is
 * not a live token of this socket.
 */
static struct net_iov *sk_devmem_token_del(struct sk_devmem_tokens *store,
					   u32 token)
{
	u32 slot = token - 1;
	unsigned long v;

	if (!token || slot >= store->size)
		return NULL;

	v = store->slots[slot];
	if (slot_is_free(v))
		return NULL;

	sk_devmem_slot_push(store, slot);
	store->used--;
	return (struct net_iov *)v;
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

	/* Free the last range first and every range backwards: the free
	 * stack then hands the tokens out again in ascending order, so the
	 * next recvmsg's tokens are contiguous even if these were not.
	 */
	spin_lock_bh(&store->lock);
	for (i = num; i-- > 0;) {
		u64 first = ranges[i].token_start;
		u64 last = first + ranges[i].token_count;	/* exclusive */
		u64 t;

		/* tokens live in [1, size]: clamp, so a huge or wrapping
		 * range costs nothing
		 */
		first = max_t(u64, first, 1);
		last = min_t(u64, last, (u64)store->size + 1);

		for (t = last; t-- > first;) {
			struct net_iov *niov = sk_devmem_token_del(store, t);

			if (niov) {
				page_pool_unref_net_iov(niov);
				freed++;
			}
		}
	}
	spin_unlock_bh(&store->lock);
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
	u32 i;

	if (!store)
		return;

	for (i = 0; i < store->size; i++)
		if (!slot_is_free(store->slots[i]))
			page_pool_unref_net_iov((struct net_iov *)store->slots[i]);

	sk->sk_devmem_tokens = NULL;
	kvfree(store->slots);
	kfree(store);
}
