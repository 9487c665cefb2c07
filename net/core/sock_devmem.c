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
 * The store is a table of slots, in chunks of one page. A used slot
 * holds the net_iov pointer; a free slot holds the index of the next free
 * slot, shifted left with bit 0 set, so free slots form a stack threaded
 * through the table. Token t is slot t - 1 (0 is never a token). Chunks
 * never move: the table grows by new chunks and a larger chunk directory,
 * both filled outside the store lock, so that growing a socket that holds
 * millions of tokens never stalls receive and DONTNEED on that CPU behind
 * a copy. The receive path takes the store lock twice per skb (take
 * slots, commit them), DONTNEED once per call, walking each range a
 * chunk at a time; freed ranges are pushed back in reverse, so that the
 * next recvmsg gets ascending, contiguous tokens again and user space
 * can return them as a few long ranges.
 *
 * Lifetime: created by the first recvmsg that hands out a fragment,
 * under the socket lock, and entered in a registry that observers walk;
 * taken out of it, then freed with every token still in it, when the
 * socket is closed or destroyed, when no other thread can return them.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/xarray.h>
#include <net/netmem.h>
#include <net/page_pool.h>
#include <net/sock.h>
#include <net/sock_devmem.h>

#include <trace/events/devmem.h>

#define SLOT_FREE		1UL
#define SLOT_END		((unsigned long)U32_MAX)

#define SLOTS_PER_CHUNK		(PAGE_SIZE / sizeof(unsigned long))
#define SLOT_CHUNK_SHIFT	ilog2(SLOTS_PER_CHUNK)
#define SLOT_CHUNK_MASK		(SLOTS_PER_CHUNK - 1)

/* Tokens one socket can hold: a whole number of chunks, so that the
 * largest token (the table's size) stays a positive int, as upstream's
 * do. The slot table (8 bytes a token, 16 GiB at most) is charged to
 * the receiver's memory cgroup, which bounds it first.
 */
#define SK_DEVMEM_MAX_TOKENS	(BIT(31) - SLOTS_PER_CHUNK)

struct sk_devmem_tokens {
	spinlock_t lock;	/* protects everything below */
	u32 size;		/* slots allocated, a multiple of SLOTS_PER_CHUNK */
	u32 used;		/* slots holding a net_iov; read without the
				 * lock by the socket lock holder, for whom
				 * it can only fall
				 */
	u32 free_head;		/* first free slot, or SLOT_END */
	/* chunk pointers: the first size / SLOTS_PER_CHUNK are in use. Only
	 * the socket lock holder grows it; entries past size are unused
	 */
	u32 dir_size;
	unsigned long **chunks;
	/* in sk_devmem_stores, by id, while the socket holds it */
	struct sock *sk;
	u32 id;
};

/* Every store, for observers (devmem-stats sock-get): a socket whose
 * connection was reset or timed out is in no hash table any more, but
 * holds its tokens until it is closed. Ids are handed out in turn, so
 * that a dump goes on from the last one it reported.
 */
static DEFINE_XARRAY_FLAGS(sk_devmem_stores, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
static u32 sk_devmem_stores_next;

/* Sockets handed to a walk's callback at a time */
#define SK_DEVMEM_WALK_BATCH	16

static unsigned long *slot_ptr(struct sk_devmem_tokens *store, u32 slot)
{
	return &store->chunks[slot >> SLOT_CHUNK_SHIFT][slot & SLOT_CHUNK_MASK];
}

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

	store = kzalloc(sizeof(*store), GFP_KERNEL_ACCOUNT);
	if (!store)
		return NULL;
	spin_lock_init(&store->lock);
	store->free_head = SLOT_END;
	store->sk = sk;
	if (xa_alloc_cyclic_bh(&sk_devmem_stores, &store->id, store,
			       xa_limit_32b, &sk_devmem_stores_next,
			       GFP_KERNEL_ACCOUNT) < 0) {
		kfree(store);
		return NULL;
	}
	/* DONTNEED reads the pointer without the socket lock */
	smp_store_release(&sk->sk_devmem_tokens, store);
	return store;
}

/* Make room for @n more tokens. Called with the socket lock held, which
 * keeps other allocators out; DONTNEED only frees, under store->lock,
 * and reads no chunk or directory entry at or past store->size.
 *
 * New chunks, and a larger directory when the chunks outgrow it, are
 * allocated and filled before the lock; under it, only the new slots'
 * link to the free stack, the directory pointer and the size change.
 */
static int sk_devmem_tokens_reserve(struct sk_devmem_tokens *store, u32 n)
{
	unsigned long **dir = store->chunks, **old_dir = NULL;
	u32 have = store->size / SLOTS_PER_CHUNK;
	u32 dir_size = store->dir_size;
	u32 size, want, used, c, i;
	unsigned long *last;

	/* One snapshot: DONTNEED may lower it meanwhile, which only leaves
	 * more room than counted. Reading it twice could see two values and
	 * size the table below the slots in use.
	 */
	used = READ_ONCE(store->used);
	if (store->size - used >= n)
		return 0;

	if ((u64)used + n > SK_DEVMEM_MAX_TOKENS)
		return -ENOBUFS;
	size = round_up(used + n, SLOTS_PER_CHUNK);
	want = size / SLOTS_PER_CHUNK;

	if (want > dir_size) {
		dir_size = min_t(u32, max3(dir_size * 2, want, 8U),
				 SK_DEVMEM_MAX_TOKENS / SLOTS_PER_CHUNK);
		dir = kvcalloc(dir_size, sizeof(*dir),
			       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!dir)
			return -ENOMEM;
		/* the chunks in use; only this path writes the directory */
		if (have)
			memcpy(dir, store->chunks, have * sizeof(*dir));
	}

	for (c = have; c < want; c++) {
		dir[c] = kmalloc(PAGE_SIZE, GFP_KERNEL_ACCOUNT);
		if (!dir[c])
			goto err_free_chunks;
		/* new slots go on top of the free stack, in ascending order */
		for (i = 0; i < SLOTS_PER_CHUNK; i++)
			dir[c][i] = slot_free_link(c * SLOTS_PER_CHUNK + i + 1);
	}
	last = &dir[want - 1][SLOTS_PER_CHUNK - 1];

	spin_lock_bh(&store->lock);
	*last = slot_free_link(store->free_head);
	store->free_head = store->size;
	if (dir != store->chunks) {
		old_dir = store->chunks;
		store->chunks = dir;
		store->dir_size = dir_size;
	}
	store->size = size;
	spin_unlock_bh(&store->lock);

	kvfree(old_dir);
	return 0;

err_free_chunks:
	while (c-- > have)
		kfree(dir[c]);
	if (dir != store->chunks)
		kvfree(dir);
	return -ENOMEM;
}

static void sk_devmem_slot_push(struct sk_devmem_tokens *store, u32 slot)
{
	*slot_ptr(store, slot) = slot_free_link(store->free_head);
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
		store->free_head = slot_next(*slot_ptr(store, slot));
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
		*slot_ptr(store, tokens[i] - 1) = (unsigned long)niovs[i];
	WRITE_ONCE(store->used, store->used + used);
	/* in reverse, so that they come out in the same order next time */
	for (i = n; i-- > used;)
		sk_devmem_slot_push(store, tokens[i] - 1);
	spin_unlock_bh(&store->lock);
}

/* Caller holds store->lock. Frees the live tokens among slots
 * [@first, @last) of one chunk, the last first, and returns how many.
 * Free slots (unknown, already returned or not yet committed tokens)
 * are skipped. One directory load for the whole run of slots.
 */
static u32 sk_devmem_chunk_free(struct sk_devmem_tokens *store, u32 first,
				u32 last)
{
	unsigned long *chunk = store->chunks[first >> SLOT_CHUNK_SHIFT];
	u32 base = first & ~SLOT_CHUNK_MASK;
	u32 head = store->free_head;
	u32 freed = 0, slot;
	unsigned long v;

	for (slot = last; slot-- > first;) {
		v = chunk[slot - base];
		if (slot_is_free(v))
			continue;
		chunk[slot - base] = slot_free_link(head);
		head = slot;
		page_pool_unref_net_iov((struct net_iov *)v);
		freed++;
	}
	store->free_head = head;
	WRITE_ONCE(store->used, store->used - freed);
	return freed;
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
		u32 lo, hi, start;

		/* tokens live in [1, size]: clamp, so a huge range costs
		 * nothing
		 */
		first = max_t(u64, first, 1);
		last = min_t(u64, last, (u64)store->size + 1);
		if (first >= last)
			continue;

		/* token t is slot t - 1; slots [lo, hi), chunk by chunk */
		lo = first - 1;
		hi = last - 1;
		while (hi > lo) {
			start = max(lo, (hi - 1) & ~(u32)SLOT_CHUNK_MASK);
			freed += sk_devmem_chunk_free(store, start, hi);
			hi = start;
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
 * @may_sleep: the caller may sleep; close() does. The table can hold
 *	millions of tokens (peeks hand out new ones for the same data):
 *	then it reschedules between chunks.
 *
 * Called on close(), when user space can no longer return tokens, and
 * again (finding nothing) when the socket is destroyed, which can be in
 * softirq context.
 */
void sk_devmem_tokens_release(struct sock *sk, bool may_sleep)
{
	struct sk_devmem_tokens *store = sk->sk_devmem_tokens;
	u32 c, i;

	if (!store)
		return;

	/* out of observers' sight first: a walk reads the store only with
	 * the registry locked
	 */
	xa_erase_bh(&sk_devmem_stores, store->id);
	trace_devmem_tokens_release(sk, store->used);
	for (c = 0; c < store->size / SLOTS_PER_CHUNK; c++) {
		for (i = 0; i < SLOTS_PER_CHUNK; i++) {
			unsigned long v = store->chunks[c][i];

			if (!slot_is_free(v))
				page_pool_unref_net_iov((struct net_iov *)v);
		}
		kfree(store->chunks[c]);
		if (may_sleep)
			cond_resched();
	}

	WRITE_ONCE(sk->sk_devmem_tokens, NULL);
	kvfree(store->chunks);
	kfree(store);
}

/* Up to SK_DEVMEM_WALK_BATCH sockets of @net after id @after that hold
 * tokens, each with a reference, their counts and ids
 */
static int sk_devmem_stores_take(struct net *net, u32 after,
				 struct sock **sks, u32 *tokens, u32 *ids)
{
	struct sk_devmem_tokens *store;
	unsigned long id;
	int n = 0;
	u32 used;

	if (after == U32_MAX)
		return 0;
	xa_lock_bh(&sk_devmem_stores);
	xa_for_each_start(&sk_devmem_stores, id, store, after + 1) {
		used = READ_ONCE(store->used);
		if (!used || !net_eq(sock_net(store->sk), net) ||
		    !refcount_inc_not_zero(&store->sk->sk_refcnt))
			continue;
		sks[n] = store->sk;
		tokens[n] = used;
		ids[n] = id;
		if (++n == SK_DEVMEM_WALK_BATCH)
			break;
	}
	xa_unlock_bh(&sk_devmem_stores);
	return n;
}

/**
 * sk_devmem_sock_walk() - the sockets of a namespace that hold tokens
 * @net: the namespace
 * @pos: the id of the last socket walked, 0 to start; advanced
 * @fn: called for each socket, with a reference on it and no lock held,
 *	with the tokens it held when found
 * @arg: for @fn
 *
 * Every socket with a token store is in a registry until it gives its
 * tokens back, connected or not; the registry is locked only while a
 * batch of sockets is picked and referenced. A walk that stops and goes
 * on (a netlink dump) sees the sockets that came meanwhile, and misses
 * those that went, as any dump.
 *
 * Context: process; sleeps between batches.
 * Return: 0 at the end, or the first nonzero value @fn returned; that
 * socket is walked again when the walk goes on from @pos.
 */
int sk_devmem_sock_walk(struct net *net, u32 *pos, sk_devmem_walk_fn fn,
			void *arg)
{
	struct sock *sks[SK_DEVMEM_WALK_BATCH];
	u32 tokens[SK_DEVMEM_WALK_BATCH];
	u32 ids[SK_DEVMEM_WALK_BATCH];
	int n, i, err = 0;

	might_sleep();
	do {
		n = sk_devmem_stores_take(net, *pos, sks, tokens, ids);
		for (i = 0; i < n; i++) {
			if (!err)
				err = fn(sks[i], tokens[i], arg);
			if (!err)
				*pos = ids[i];
			sock_put(sks[i]);
		}
		cond_resched();
	} while (!err && n == SK_DEVMEM_WALK_BATCH);
	return err;
}
