// SPDX-License-Identifier: GPL-2.0
/*
 * Programs that try to read TCP payload, for audit.c: a socket filter (on
 * a packet socket) and a tc classifier (clsact ingress of the bound
 * port). For frames of two TCP destination ports, set before load, they
 * count how each way of reaching the first payload byte fares:
 * bpf_skb_load_bytes(), direct packet access (tc; where the linear part
 * ends) and bpf_skb_pull_data() (tc). On device memory every one of them
 * must stop at the headers. The socket filter drops what it cannot read.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

__u16 ports[2];		/* TCP destination ports, host order; set before load */

/* per port: frames with payload, and how reading it went */
__u64 frames[2];
__u64 load_ok[2];
__u64 load_err[2];
__s64 load_errno[2];		/* the last error of bpf_skb_load_bytes() */
__u64 linear_has_payload[2];	/* tc: payload within data..data_end */
__u64 pull_ok[2];
__u64 pull_err[2];

/*
 * Offset of the first payload byte of a TCP/IPv4 frame to one of @ports,
 * its slot in *@slot; -1 for any other frame or one without payload.
 */
static __always_inline int payload_off(struct __sk_buff *skb, int *slot)
{
	struct tcphdr th;
	struct iphdr iph;
	__u16 dport;
	int off;

	if (bpf_skb_load_bytes(skb, ETH_HLEN, &iph, sizeof(iph)) ||
	    iph.protocol != IPPROTO_TCP || iph.version != 4)
		return -1;
	off = ETH_HLEN + iph.ihl * 4;
	if (bpf_skb_load_bytes(skb, off, &th, sizeof(th)))
		return -1;
	dport = bpf_ntohs(th.dest);
	if (dport == ports[0])
		*slot = 0;
	else if (dport == ports[1])
		*slot = 1;
	else
		return -1;
	off += th.doff * 4;
	return off < skb->len ? off : -1;
}

/* Try bpf_skb_load_bytes() on the first payload byte: 0 if it worked. */
static __always_inline int try_load(struct __sk_buff *skb, int off, int s)
{
	__u8 b;
	long err;

	__sync_fetch_and_add(&frames[s], 1);
	err = bpf_skb_load_bytes(skb, off, &b, 1);
	if (!err) {
		__sync_fetch_and_add(&load_ok[s], 1);
		return 0;
	}
	__sync_fetch_and_add(&load_err[s], 1);
	load_errno[s] = err;
	return -1;
}

SEC("socket")
int probe_socket(struct __sk_buff *skb)
{
	int s = 0, off = payload_off(skb, &s);

	if (off < 0)
		return skb->len;
	return try_load(skb, off, s) ? 0 : skb->len;
}

SEC("tc")
int probe_tc(struct __sk_buff *skb)
{
	int s = 0, off = payload_off(skb, &s);
	void *data, *data_end;

	if (off < 0 || off > 0xffff)
		return TC_ACT_OK;
	try_load(skb, off, s);

	data = (void *)(long)skb->data;
	data_end = (void *)(long)skb->data_end;
	if (data + off + 1 <= data_end)
		__sync_fetch_and_add(&linear_has_payload[s], 1);

	if (bpf_skb_pull_data(skb, off + 1))
		__sync_fetch_and_add(&pull_err[s], 1);
	else
		__sync_fetch_and_add(&pull_ok[s], 1);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
