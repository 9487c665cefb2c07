// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory TCP: receive unreadable skbs as dmabuf fragments.
 *
 * recvmsg(MSG_SOCK_DEVMEM) hands every device-memory fragment of the
 * receive queue to user space as an SCM_DEVMEM_DMABUF cmsg carrying a
 * token; the token holds a reference on the fragment's net_iov until
 * user space gives it back with setsockopt(SO_DEVMEM_DONTNEED) or the
 * socket is destroyed.
 *
 * Token store: an array of slots per socket. A used slot holds the
 * net_iov pointer; a free slot holds the index of the next free slot,
 * shifted left with bit 0 set, so free slots form a stack threaded
 * through the array. Token t is slot t - 1 (0 is never a token). A
 * recvmsg takes the store lock once for all the fragments it hands out,
 * and DONTNEED once per call; freed ranges are pushed back in reverse,
 * so that the next recvmsg gets ascending, contiguous tokens again and
 * user space can return them as a few long ranges.
 */
#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/tcp.h>
#include <linux/u64_stats_sync.h>
#include <linux/uio.h>
#include <net/page_pool.h>
#include <net/sock.h>
#include <net/tcp.h>

/* Limits of SO_DEVMEM_DONTNEED, as upstream. */
#define MAX_DONTNEED_TOKENS	128
#define MAX_DONTNEED_FRAGS	1024

/* Tokens one socket can hold: keeps a runaway application from pinning
 * the kernel's memory for the slot array.
 */
#define TCP_DEVMEM_MAX_TOKENS	BIT(24)

#define SLOT_FREE		1UL
#define SLOT_END		((unsigned long)U32_MAX)

struct tcp_devmem_tokens {
	spinlock_t lock;	/* protects everything below */
	u32 size;		/* slots allocated */
	u32 used;		/* slots holding a net_iov */
	u32 free_head;		/* first free slot, or SLOT_END */
	unsigned long *slots;
};

/* What recvmsg(MSG_SOCK_DEVMEM) and SO_DEVMEM_DONTNEED did, all sockets
 * together, so that tests and the benchmark can show where payload went:
 * debugfs devmem/tcp_rx. Written in process context only.
 */
struct tcp_devmem_stats {
	u64_stats_t frags;		/* SCM_DEVMEM_DMABUF cmsgs */
	u64_stats_t devmem_bytes;	/* payload left in device memory */
	u64_stats_t linear_bytes;	/* payload the CPU copied to the iovec */
	u64_stats_t dontneed_calls;
	u64_stats_t tokens_freed;
	struct u64_stats_sync syncp;
};

static DEFINE_PER_CPU(struct tcp_devmem_stats, tcp_devmem_stats);

static void tcp_devmem_count_rx(u32 frags, u32 devmem_bytes, u32 linear_bytes)
{
	struct tcp_devmem_stats *st = get_cpu_ptr(&tcp_devmem_stats);

	u64_stats_update_begin(&st->syncp);
	u64_stats_add(&st->frags, frags);
	u64_stats_add(&st->devmem_bytes, devmem_bytes);
	u64_stats_add(&st->linear_bytes, linear_bytes);
	u64_stats_update_end(&st->syncp);
	put_cpu_ptr(&tcp_devmem_stats);
}

static void tcp_devmem_count_dontneed(u32 freed)
{
	struct tcp_devmem_stats *st = get_cpu_ptr(&tcp_devmem_stats);

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->dontneed_calls);
	u64_stats_add(&st->tokens_freed, freed);
	u64_stats_update_end(&st->syncp);
	put_cpu_ptr(&tcp_devmem_stats);
}

static int tcp_devmem_stats_show(struct seq_file *seq, void *v)
{
	u64 frags = 0, devmem = 0, linear = 0, calls = 0, freed = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct tcp_devmem_stats *st =
			per_cpu_ptr(&tcp_devmem_stats, cpu);
		u64 f, d, l, c, t;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			f = u64_stats_read(&st->frags);
			d = u64_stats_read(&st->devmem_bytes);
			l = u64_stats_read(&st->linear_bytes);
			c = u64_stats_read(&st->dontneed_calls);
			t = u64_stats_read(&st->tokens_freed);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		frags += f;
		devmem += d;
		linear += l;
		calls += c;
		freed += t;
	}
	seq_printf(seq, "frags %llu\ndevmem_bytes %llu\nlinear_bytes %llu\n",
		   frags, devmem, linear);
	seq_printf(seq, "dontneed_calls %llu\ntokens_freed %llu\n", calls,
		   freed);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tcp_devmem_stats);

static int __init tcp_devmem_debugfs_init(void)
{
	struct dentry *dir;
	int cpu;

	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(&tcp_devmem_stats, cpu)->syncp);

	/* net/core's devmem directory, created before us (link order) */
	dir = debugfs_lookup("devmem", NULL);
	debugfs_create_file("tcp_rx", 0400, dir, NULL, &tcp_devmem_stats_fops);
	dput(dir);
	return 0;
}
late_initcall(tcp_devmem_debugfs_init);

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

static struct tcp_devmem_tokens *tcp_devmem_tokens_get(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcp_devmem_tokens *store;

	sock_owned_by_me(sk);

	if (tp->devmem_tokens)
		return tp->devmem_tokens;

	store = kzalloc(sizeof(*store), GFP_KERNEL);
	if (!store)
		return NULL;
	spin_lock_init(&store->lock);
	store->free_head = SLOT_END;
	/* DONTNEED reads the pointer without the socket lock */
	smp_store_release(&tp->devmem_tokens, store);
	return store;
}

/* Make room for @n more tokens. Called with the socket lock held, which
 * keeps other allocators out; DONTNEED only frees, under store->lock.
 */
static int tcp_devmem_tokens_reserve(struct tcp_devmem_tokens *store, u32 n)
{
	unsigned long *slots, *old;
	u32 size, i;

	if (store->size - store->used >= n)
		return 0;

	size = max3(store->size * 2, store->used + n, 256U);
	if (size > TCP_DEVMEM_MAX_TOKENS) {
		if (store->used + n > TCP_DEVMEM_MAX_TOKENS)
			return -ENOBUFS;
		size = TCP_DEVMEM_MAX_TOKENS;
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

/* Caller holds store->lock and reserved room. Takes a slot off the free
 * stack; it reads as free (and is skipped by DONTNEED) until committed.
 */
static u32 tcp_devmem_slot_pop(struct tcp_devmem_tokens *store)
{
	u32 slot = store->free_head;

	store->free_head = slot_next(store->slots[slot]);
	return slot;
}

static void tcp_devmem_slot_push(struct tcp_devmem_tokens *store, u32 slot)
{
	store->slots[slot] = slot_free_link(store->free_head);
	store->free_head = slot;
}

/* Caller holds store->lock. Returns the net_iov, or NULL if @token is
 * not a live token of this socket.
 */
static struct net_iov *tcp_devmem_token_del(struct tcp_devmem_tokens *store,
					    u32 token)
{
	u32 slot = token - 1;
	unsigned long v;

	if (!token || slot >= store->size)
		return NULL;

	v = store->slots[slot];
	if (slot_is_free(v))
		return NULL;

	tcp_devmem_slot_push(store, slot);
	store->used--;
	return (struct net_iov *)v;
}

/* A cmsg is written whole or not at all (6.1 put_cmsg() truncates). */
static int put_cmsg_notrunc(struct msghdr *msg, int level, int type, int len,
			    void *data)
{
	if (msg->msg_flags & MSG_CMSG_COMPAT)
		return -EOPNOTSUPP;
	if (!msg->msg_control || msg->msg_controllen < CMSG_LEN(len))
		return -ETOOSMALL;

	return put_cmsg(msg, level, type, len, data);
}

static int tcp_recvmsg_dmabuf_skb(struct sock *sk, const struct sk_buff *skb,
				  struct tcp_devmem_tokens *store,
				  unsigned int offset, struct msghdr *msg,
				  int remaining)
{
	struct net_iov *niovs[MAX_SKB_FRAGS];
	struct dmabuf_cmsg dmabuf_cmsg = {};
	int start, copy, i, nr, err = 0;
	u32 slots[MAX_SKB_FRAGS];
	u32 devmem_bytes = 0, linear_bytes = 0;
	struct sk_buff *frag_iter;
	int sent = 0, used = 0;

	/* payload the device left in the linear part: copy it */
	start = skb_headlen(skb);
	copy = start - offset;
	if (copy > 0) {
		copy = min(copy, remaining);
		dmabuf_cmsg.frag_size = copy;
		err = put_cmsg_notrunc(msg, SOL_SOCKET, SO_DEVMEM_LINEAR,
				       sizeof(dmabuf_cmsg), &dmabuf_cmsg);
		if (err)
			return err;
		if (copy_to_iter(skb->data + offset, copy, &msg->msg_iter) !=
		    copy)
			return -EFAULT;
		offset += copy;
		remaining -= copy;
		sent += copy;
		linear_bytes = copy;
	}

	/* One lock round to take slots for all the frags, one to commit the
	 * tokens handed out and put back the slots not used.
	 */
	nr = skb_shinfo(skb)->nr_frags;
	if (nr) {
		err = tcp_devmem_tokens_reserve(store, nr);
		if (err)
			goto out;
		spin_lock_bh(&store->lock);
		for (i = 0; i < nr; i++)
			slots[i] = tcp_devmem_slot_pop(store);
		spin_unlock_bh(&store->lock);
	}

	for (i = 0; i < nr && remaining; i++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		int end = start + skb_frag_size(frag);
		struct net_iov *niov;

		if (offset >= end) {
			start = end;
			continue;
		}

		niov = skb_frag_net_iov(frag);
		if (!niov) {
			err = -ENODEV;
			break;
		}

		copy = min(end - (int)offset, remaining);
		memset(&dmabuf_cmsg, 0, sizeof(dmabuf_cmsg));
		dmabuf_cmsg.frag_offset = net_iov_virtual_addr(niov) +
					  skb_frag_off(frag) + offset - start;
		dmabuf_cmsg.frag_size = copy;
		dmabuf_cmsg.frag_token = slots[used] + 1;
		dmabuf_cmsg.dmabuf_id = net_iov_owner_id(niov);

		err = put_cmsg_notrunc(msg, SOL_SOCKET, SO_DEVMEM_DMABUF,
				       sizeof(dmabuf_cmsg), &dmabuf_cmsg);
		if (err)
			break;

		/* the token's own reference on the net_iov */
		atomic_long_inc(&niov->pp_ref_count);
		niovs[used++] = niov;

		offset += copy;
		remaining -= copy;
		sent += copy;
		devmem_bytes += copy;
		start = end;
	}

	if (nr) {
		spin_lock_bh(&store->lock);
		for (i = 0; i < used; i++)
			store->slots[slots[i]] = (unsigned long)niovs[i];
		store->used += used;
		for (i = nr; i-- > used;)
			tcp_devmem_slot_push(store, slots[i]);
		spin_unlock_bh(&store->lock);
	}
	if (err)
		goto out;

	skb_walk_frags(skb, frag_iter) {
		int end = start + frag_iter->len;

		if (!remaining)
			break;
		if (offset < end) {
			err = tcp_recvmsg_dmabuf_skb(sk, frag_iter, store,
						     offset - start, msg,
						     min(end - (int)offset,
							 remaining));
			if (err <= 0)
				goto out;
			offset += err;
			remaining -= err;
			sent += err;
		}
		start = end;
	}
	err = 0;
out:
	/* frag_list skbs counted themselves in the recursion */
	if (linear_bytes || used)
		tcp_devmem_count_rx(used, devmem_bytes, linear_bytes);
	return sent ?: err;
}

/**
 * tcp_recvmsg_dmabuf() - hand the fragments of an unreadable skb to user
 * @sk: socket, locked
 * @skb: unreadable skb of the receive queue
 * @offset: first byte of @skb to hand out
 * @msg: user's message
 * @remaining: bytes to hand out at most
 *
 * Payload in the linear part is copied to the iovec and reported in one
 * SCM_DEVMEM_LINEAR cmsg; every device-memory fragment, or part of one,
 * gets an SCM_DEVMEM_DMABUF cmsg with a new token.
 *
 * Return: bytes handed out, or a negative errno if none could be
 * (-ETOOSMALL: no room for the next cmsg).
 */
int tcp_recvmsg_dmabuf(struct sock *sk, const struct sk_buff *skb,
		       unsigned int offset, struct msghdr *msg, int remaining)
{
	struct tcp_devmem_tokens *store = tcp_devmem_tokens_get(sk);

	if (!store)
		return -ENOMEM;

	return tcp_recvmsg_dmabuf_skb(sk, skb, store, offset, msg, remaining);
}

/**
 * tcp_devmem_dontneed() - give tokens back (SO_DEVMEM_DONTNEED)
 * @sk: TCP socket, not locked
 * @optval: array of struct dmabuf_token
 * @optlen: its size in bytes
 *
 * Unknown or already freed tokens are skipped. At most
 * MAX_DONTNEED_FRAGS tokens are looked at per call.
 *
 * Return: number of tokens freed, or a negative errno.
 */
int tcp_devmem_dontneed(struct sock *sk, sockptr_t optval,
			unsigned int optlen)
{
	struct tcp_devmem_tokens *store;
	struct dmabuf_token *tokens;
	unsigned int num, i, seen = 0;
	int freed = 0;

	if (optlen % sizeof(*tokens) ||
	    optlen > sizeof(*tokens) * MAX_DONTNEED_TOKENS)
		return -EINVAL;

	num = optlen / sizeof(*tokens);
	tokens = kmalloc_array(num, sizeof(*tokens), GFP_KERNEL);
	if (!tokens)
		return -ENOMEM;

	if (copy_from_sockptr(tokens, optval, optlen)) {
		kfree(tokens);
		return -EFAULT;
	}

	/* pairs with smp_store_release() in tcp_devmem_tokens_get() */
	store = smp_load_acquire(&tcp_sk(sk)->devmem_tokens);
	if (!store)
		goto out;

	/* The cap applies to the first MAX_DONTNEED_FRAGS tokens in the
	 * caller's order; trim the ranges to it first.
	 */
	for (i = 0; i < num; i++) {
		tokens[i].token_count = min(tokens[i].token_count,
					    MAX_DONTNEED_FRAGS - seen);
		seen += tokens[i].token_count;
	}

	/* Free the last range first and every range backwards: the free
	 * stack then hands the tokens out again in ascending order, so the
	 * next recvmsg's tokens are contiguous even if these were not.
	 */
	spin_lock_bh(&store->lock);
	for (i = num; i-- > 0;) {
		u64 first = tokens[i].token_start;
		u64 last = first + tokens[i].token_count;	/* exclusive */
		u64 t;

		/* tokens live in [1, size]: clamp, so a huge or wrapping
		 * range costs nothing
		 */
		first = max_t(u64, first, 1);
		last = min_t(u64, last, (u64)store->size + 1);

		for (t = last; t-- > first;) {
			struct net_iov *niov = tcp_devmem_token_del(store, t);

			if (niov) {
				page_pool_unref_net_iov(niov);
				freed++;
			}
		}
	}
	spin_unlock_bh(&store->lock);
out:
	kfree(tokens);
	tcp_devmem_count_dontneed(freed);
	return freed;
}

/**
 * tcp_devmem_release() - give back every token of a socket
 * @sk: socket being closed or destroyed, locked or no longer reachable
 *
 * Called on close(), when user space can no longer return tokens, and
 * again (finding nothing) when the socket is destroyed.
 */
void tcp_devmem_release(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcp_devmem_tokens *store = tp->devmem_tokens;
	u32 i;

	if (!store)
		return;

	for (i = 0; i < store->size; i++)
		if (!slot_is_free(store->slots[i]))
			page_pool_unref_net_iov((struct net_iov *)store->slots[i]);

	tp->devmem_tokens = NULL;
	kvfree(store->slots);
	kfree(store);
}
