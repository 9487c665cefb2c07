// SPDX-License-Identifier: GPL-2.0
/*
 * slow_poll: attach slow_poll.bpf.c (every NAPI poll that completes
 * busy-loops before the driver unmasks its interrupt), print "attached",
 * and on SIGTERM or SIGINT print how many completions were slowed and
 * detach. Exit 4 where the kernel cannot attach it (no kprobes for
 * BPF): the caller skips.
 */
#include <signal.h>
#include <stdio.h>

#include "slow_poll.skel.h"

int main(void)
{
	struct slow_poll *skel;
	sigset_t set;
	int sig;

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
	/* the signals that end it are waited for, not handled */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("attached\n");
	fflush(stdout);
	sigwait(&set, &sig);
	printf("slowed %llu poll completions\n",
	       (unsigned long long)skel->bss->hits);
	slow_poll__destroy(skel);
	return 0;
}
