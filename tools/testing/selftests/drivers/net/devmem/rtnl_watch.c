// SPDX-License-Identifier: GPL-2.0
/*
 * RTNL held or not where a function is entered: kprobe events read in
 * the order the task hit them (rtnl_watch.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "devmem_lib.h"
#include "rtnl_watch.h"

#define GROUP		"devmem_rtnl"
#define INSTANCE	TRACEFS "/instances/" GROUP

/* event names: lock, unlock, then f0.. for the functions watched */
static int watch_nfuncs;

/* "p:GROUP/@event @func" into kprobe_events, then its filter and enable
 * in the instance.
 */
static int watch_add(const char *event, const char *func, pid_t pid)
{
	char path[256];
	int err;

	err = write_file(TRACEFS "/kprobe_events", "p:%s/%s %s\n", GROUP,
			 event, func);
	if (err)
		return err;
	snprintf(path, sizeof(path), INSTANCE "/events/%s/%s/filter", GROUP,
		 event);
	err = write_file(path, "common_pid == %d\n", pid);
	if (err)
		return err;
	snprintf(path, sizeof(path), INSTANCE "/events/%s/%s/enable", GROUP,
		 event);
	return write_file(path, "1\n");
}

void rtnl_watch_stop(void)
{
	char path[256];
	int i;

	/* the instance first: an enabled event cannot be removed */
	rmdir(INSTANCE);
	write_file(TRACEFS "/kprobe_events", "-:%s/lock\n", GROUP);
	write_file(TRACEFS "/kprobe_events", "-:%s/unlock\n", GROUP);
	for (i = 0; i < RTNL_WATCH_MAX; i++) {
		snprintf(path, sizeof(path), "-:%s/f%d\n", GROUP, i);
		write_file(TRACEFS "/kprobe_events", "%s", path);
	}
	watch_nfuncs = 0;
}

int rtnl_watch_start(pid_t pid, const char *const *funcs, int n)
{
	char event[8];
	int err, i;

	if (n < 1 || n > RTNL_WATCH_MAX)
		return -EINVAL;
	if (tracefs_mount("kprobe_events"))
		return -ENOENT;
	/* what a killed run left behind */
	rtnl_watch_stop();
	if (mkdir(INSTANCE, 0700))
		return -errno;

	err = watch_add("lock", "rtnl_lock", pid);
	if (!err)
		err = watch_add("unlock", "rtnl_unlock", pid);
	for (i = 0; !err && i < n; i++) {
		snprintf(event, sizeof(event), "f%d", i);
		err = watch_add(event, funcs[i], pid);
	}
	if (err) {
		rtnl_watch_stop();
		return err;
	}
	watch_nfuncs = n;
	return 0;
}

int rtnl_watch_read(struct rtnl_watch_count *counts, int n)
{
	unsigned long kept, written;
	int depth = 0, err = 0, i;
	char line[512], *ev;
	FILE *f;

	if (n != watch_nfuncs)
		return -EINVAL;
	memset(counts, 0, n * sizeof(*counts));
	f = fopen(INSTANCE "/trace", "r");
	if (!f)
		return -errno;
	/* "  comm-pid  [cpu] flags  time: EVENT: (func+0x0/0x..)" */
	while (fgets(line, sizeof(line), f)) {
		/* events overwritten: the order is not whole */
		if (sscanf(line, "# entries-in-buffer/entries-written: %lu/%lu",
			   &kept, &written) == 2 && kept != written)
			err = -EPROTO;
		if (line[0] == '#')
			continue;
		ev = strstr(line, ": ");
		if (!ev)
			continue;
		ev += 2;
		if (!strncmp(ev, "lock:", 5)) {
			depth++;
		} else if (!strncmp(ev, "unlock:", 7)) {
			if (!depth--)
				err = -EPROTO;
		} else if (ev[0] == 'f' && ev[1] >= '0' && ev[1] < '0' + n &&
			   ev[2] == ':') {
			i = ev[1] - '0';
			if (depth > 0)
				counts[i].held++;
			else
				counts[i].free++;
		}
	}
	fclose(f);
	return err;
}

int rtnl_watch_run(const char *const *funcs, int n,
		   struct rtnl_watch_count *counts, int (*fn)(void *),
		   void *arg, int *ret)
{
	int err;

	err = rtnl_watch_start(getpid(), funcs, n);
	if (err)
		return err;
	*ret = fn(arg);
	err = rtnl_watch_read(counts, n);
	rtnl_watch_stop();
	return err;
}

bool rtnl_watch_only_last_held(const char *const *funcs,
			       const struct rtnl_watch_count *counts, int n)
{
	bool ok = true;
	int i;

	for (i = 0; i < n; i++) {
		bool last = i == n - 1;

		if (counts[i].held + counts[i].free &&
		    !(last ? counts[i].free : counts[i].held))
			continue;
		printf("# %s entered %u times with RTNL, %u without (want %s)\n",
		       funcs[i], counts[i].held, counts[i].free,
		       last ? "only with" : "only without");
		ok = false;
	}
	return ok;
}
