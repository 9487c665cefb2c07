// SPDX-License-Identifier: GPL-2.0
/*
 * slow_poll: attach slow_poll.bpf.c (every NAPI poll that completes
 * busy-loops before the driver unmasks its interrupt), print "attached",
 * and on SIGTERM or SIGINT print how many completions were slowed and
 * detach. Exit 4 where the kernel cannot
 * attach it (no kprobes for BPF): the caller skips.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "slow_poll.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

int main(void)
{
	struct slow_poll *skel;

	skel = slow_poll__open();
	if (!skel) {
		perror("slow_poll: open");
		return 4;
	}
	if (slow_poll__load(skel) || slow_poll__attach(skel)) {
		fprintf(stderr, "slow_poll: cannot attach to napi_complete_done\n");
		slow_poll__destroy(skel);
		return 4;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	printf("slowed %llu poll completions\n",
	       (unsigned long long)skel->bss->hits);
	slow_poll__destroy(skel);
	return 0;
}
