/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Did a task hold RTNL when it entered a kernel function? Kprobe events
 * (tracefs, CONFIG_KPROBE_EVENTS) on rtnl_lock(), rtnl_unlock() and the
 * functions watched, filtered by the task's pid into a trace instance of
 * their own: the order of the task's events answers, with no timing.
 */
#ifndef RTNL_WATCH_H
#define RTNL_WATCH_H

#include <stdbool.h>
#include <sys/types.h>

#define RTNL_WATCH_MAX	4

/* What rtnl_watch_read() found, per function watched (in start order). */
struct rtnl_watch_count {
	unsigned int held;	/* entered with RTNL held by the task */
	unsigned int free;	/* entered without */
};

/*
 * Watch task @pid entering each of the @n (at most RTNL_WATCH_MAX)
 * functions @funcs. 0; -ENOENT without kprobe events in the kernel; or
 * -errno (a function that cannot be probed: -EINVAL or -ENOENT).
 */
int rtnl_watch_start(pid_t pid, const char *const *funcs, int n);
/*
 * Count the entries seen since rtnl_watch_start() into @counts (@n as
 * given there). 0, or -errno; -EPROTO when the trace lost events or
 * shows an unlock without a lock.
 */
int rtnl_watch_read(struct rtnl_watch_count *counts, int n);
/* Remove the events and the instance; safe to call more than once. */
void rtnl_watch_stop(void);
/*
 * @fn(@arg) run in this task while the watch is on (start, read, stop);
 * *@ret gets what @fn returned, @counts what the watch saw. 0, or the
 * error of rtnl_watch_start() or rtnl_watch_read().
 */
int rtnl_watch_run(const char *const *funcs, int n,
		   struct rtnl_watch_count *counts, int (*fn)(void *),
		   void *arg, int *ret);
/*
 * The shape the tests want: each of @funcs but the last entered, never
 * with RTNL; the last (a step that needs RTNL, the proof that the watch
 * sees it) entered, always with it. If not, says why on stdout.
 */
bool rtnl_watch_only_last_held(const char *const *funcs,
			       const struct rtnl_watch_count *counts, int n);

#endif /* RTNL_WATCH_H */
