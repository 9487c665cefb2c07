// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory TCP: receive unreadable skbs as dmabuf fragments.
 *
 * recvmsg(MSG_SOCK_DEVMEM) hands every device-memory fragment of the
 * receive queue to user space as an SCM_DEVMEM_DMABUF cmsg carrying a
 * token (net/core/sock_devmem.c); adjacent fragments of one net_iov (a
 * device packing segments into large buffers) go out as one. Payload the
 * device left in the linear part is copied and reported in an
 * SCM_DEVMEM_LINEAR cmsg.
 */
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/compat.h>
#include <net/netdev_rx_queue.h>
#include <net/netmem.h>
#include <net/sock.h>
#include <net/sock_devmem.h>
#include <net/tcp.h>
#include <trace/events/devmem.h>

/* What one call handed out, for the devmem_recvmsg tracepoint. */
struct tcp_devmem_rx {
	u32 frags;
	u32 devmem_bytes;
	u32 linear_bytes;
	u32 linear_copies;
};

/* A cmsg is written whole or not at all (6.1 put_cmsg() truncates). A
 * 32-bit caller gets it with a compat header: the payload structs have
 * the same layout there.
 */
static int put_cmsg_notrunc(struct msghdr *msg, int level, int type, int len,
			    void *data)
{
	size_t room = CMSG_LEN(len);

	if (IS_ENABLED(CONFIG_COMPAT) && (msg->msg_flags & MSG_CMSG_COMPAT))
		room = sizeof(struct compat_cmsghdr) + len;
	if (!msg->msg_control || msg->msg_controllen < room)
		return -ETOOSMALL;

	return put_cmsg(msg, level, type, len, data);
}

/* Bytes of device memory that go out in one cmsg: adjacent frags of
 * the same net_iov, as a device that packs segments into large buffers
 * leaves them, share it.
 */
struct tcp_devmem_run {
	struct net_iov *niov;
	u64 off;		/* in the dmabuf */
	u32 len;
};

/* Write the cmsg of @run with @token; on success the token holds its own
 * reference on the run's net_iov.
 */
static int tcp_devmem_put_run(struct msghdr *msg,
			      const struct tcp_devmem_run *run, u32 token)
{
	struct dmabuf_cmsg dmabuf_cmsg = {
		.frag_offset	= run->off,
		.frag_size	= run->len,
		.frag_token	= token,
		.dmabuf_id	= net_iov_owner_id(run->niov),
	};
	int err;

	err = put_cmsg_notrunc(msg, SOL_SOCKET, SO_DEVMEM_DMABUF,
			       sizeof(dmabuf_cmsg), &dmabuf_cmsg);
	if (!err)
		atomic_long_inc(&run->niov->pp_ref_count);
	return err;
}

/* Hand out bytes [@offset, @offset + @remaining) of one skb, head or
 * frag_list member, not looking at its frag_list. Returns the bytes
 * handed out, or a negative errno if none were.
 */
static int tcp_recvmsg_dmabuf_one(struct sock *sk, const struct sk_buff *skb,
				  unsigned int offset, struct msghdr *msg,
				  int remaining, struct tcp_devmem_rx *rx)
{
	struct net_iov *niovs[MAX_SKB_FRAGS];
	struct dmabuf_cmsg dmabuf_cmsg = {};
	struct tcp_devmem_run run = {};
	u32 tokens[MAX_SKB_FRAGS];
	int start, copy, i, nr, err = 0;
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
		rx->linear_bytes += copy;
		rx->linear_copies++;
	}

	/* One lock round to take tokens for all the frags, one to commit
	 * those handed out and put back the rest.
	 */
	nr = skb_shinfo(skb)->nr_frags;
	if (!nr || !remaining)
		return sent;
	err = sk_devmem_tokens_take(sk, tokens, nr);
	if (err)
		return sent ?: err;

	for (i = 0; i < nr && remaining; i++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		int end = start + skb_frag_size(frag);
		struct net_iov *niov;
		u64 frag_off;

		if (offset >= end) {
			start = end;
			continue;
		}

		/* RX devmem buffers only: not zcrx's, not TX ones (no pool) */
		niov = skb_frag_net_iov(frag);
		if (!niov || !niov->pp || niov->owner->type != NET_IOV_DMABUF) {
			err = -ENODEV;
			break;
		}

		copy = min(end - (int)offset, remaining);
		frag_off = net_iov_virtual_addr(niov) + skb_frag_off(frag) +
			   offset - start;
		if (run.niov && (run.niov != niov ||
				 run.off + run.len != frag_off)) {
			err = tcp_devmem_put_run(msg, &run, tokens[used]);
			if (err)
				break;
			niovs[used++] = run.niov;
			sent += run.len;
			rx->devmem_bytes += run.len;
			run.niov = NULL;
		}
		if (!run.niov) {
			run.niov = niov;
			run.off = frag_off;
			run.len = 0;
		}
		run.len += copy;

		offset += copy;
		remaining -= copy;
		start = end;
	}

	/* the last run: bytes of it count only once its cmsg is out */
	if (!err && run.niov) {
		err = tcp_devmem_put_run(msg, &run, tokens[used]);
		if (!err) {
			niovs[used++] = run.niov;
			sent += run.len;
			rx->devmem_bytes += run.len;
		}
	}

	sk_devmem_tokens_commit(sk, tokens, niovs, used, nr);
	rx->frags += used;

	return sent ?: err;
}

/* Bytes in the linear part and frags of @skb, not its frag_list. */
static int skb_own_len(const struct sk_buff *skb)
{
	int i, len = skb_headlen(skb);

	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++)
		len += skb_frag_size(&skb_shinfo(skb)->frags[i]);
	return len;
}

/**
 * tcp_recvmsg_dmabuf() - hand the fragments of an unreadable skb to user
 * @sk: socket, locked
 * @skb: unreadable skb of the receive queue
 * @offset: first byte of @skb to hand out
 * @msg: user's message
 * @remaining: bytes to hand out at most
 *
 * Walks the head of @skb, then the members of its frag_list in order;
 * GRO builds no frag_list inside a member, so one level is all there is
 * (bytes of a deeper one are never handed out, and the reader gets
 * -EFAULT rather than wrong data). Payload in a linear
 * part is copied to the iovec and reported in an SCM_DEVMEM_LINEAR cmsg;
 * every device-memory fragment, or part of one, gets an
 * SCM_DEVMEM_DMABUF cmsg with a new token; frags of one skb that follow
 * each other in one net_iov share a cmsg and its token.
 *
 * Return: bytes handed out, or a negative errno if none could be
 * (-ETOOSMALL: no room for the next cmsg).
 */
int tcp_recvmsg_dmabuf(struct sock *sk, const struct sk_buff *skb,
		       unsigned int offset, struct msghdr *msg, int remaining,
		       int flags)
{
	const struct sk_buff *part = skb, *next = skb_shinfo(skb)->frag_list;
	struct tcp_devmem_rx rx = {};
	int start = 0, sent = 0, ret = 0;

	while (part && remaining) {
		int end = start + skb_own_len(part);

		if (offset < end) {
			ret = tcp_recvmsg_dmabuf_one(sk, part, offset - start,
						     msg, min(end - (int)offset,
							      remaining),
						     &rx);
			if (ret <= 0)
				break;
			offset += ret;
			remaining -= ret;
			sent += ret;
			/* stopped inside this part: no room for a cmsg */
			if ((int)offset < end)
				break;
		}
		start = end;
		part = next;
		next = part ? part->next : NULL;
	}

	if (rx.frags || rx.linear_bytes)
		trace_devmem_recvmsg(sk, rx.frags, rx.devmem_bytes,
				     rx.linear_bytes);
	/* a peek's bytes count once, when they are read */
	if (rx.linear_bytes && !(flags & MSG_PEEK))
		netif_rxq_host_payload(sk, skb, NETIF_RXQ_HOST_DEVMEM,
				       rx.linear_bytes, rx.linear_copies);
	return sent ?: ret;
}

/**
 * tcp_devmem_host_copied() - a MSG_SOCK_DEVMEM reader got host memory
 * @sk: socket
 * @skb: the readable skb
 * @bytes: payload bytes of @skb the CPU copied to the reader
 * @flags: the recvmsg() flags
 *
 * Payload that missed device memory (a flow on a queue without a
 * binding, a driver that fell back to host pages) reaches a devmem
 * reader by copy; the devmem_host_copy tracepoint (every copy) and the
 * counts of the queue @skb came in on (not a peek's: its bytes count
 * when they are read) make it visible.
 */
void tcp_devmem_host_copied(const struct sock *sk, const struct sk_buff *skb,
			    u32 bytes, int flags)
{
	trace_devmem_host_copy(sk, bytes);
	if (!(flags & MSG_PEEK))
		netif_rxq_host_payload(sk, skb, NETIF_RXQ_HOST_DEVMEM, bytes,
				       1);
}
