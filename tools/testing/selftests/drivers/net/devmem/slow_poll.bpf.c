// SPDX-License-Identifier: GPL-2.0
/*
 * Widens the end of every NAPI poll that completes: a busy loop right
 * after napi_complete_done() returns true, before the driver unmasks
 * its interrupt. A queue restart's napi_disable() returns as soon as
 * the poll has completed, so the restart runs while the poll has yet to
 * unmask: what a slow vCPU or a long interrupt does by chance.
 * slow_poll.c loads it.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/*
 * Rounds of the busy loop: a bounded loop, which the verifier walks
 * round by round (callbacks such as bpf_loop() need a JIT, which the
 * test kernels may lack); some milliseconds in the interpreter under TCG
 */
#define SPINS 20000

__u64 hits;

SEC("kretprobe/napi_complete_done")
int BPF_KRETPROBE(slow_completion, long done)
{
	__u32 i;

	/* a bool, in the low byte of the return register */
	if (!(done & 0xff))
		return 0;
	/* the barrier keeps the compiler from dropping the empty loop */
	for (i = 0; i < SPINS; i++)
		barrier_var(i);
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

char _license[] SEC("license") = "GPL";
