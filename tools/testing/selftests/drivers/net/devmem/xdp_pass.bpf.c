// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest XDP program: passes every frame. bind.c attaches it to
 * prove that a binding and XDP exclude each other, both ways.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
