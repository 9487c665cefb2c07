// SPDX-License-Identifier: GPL-2.0
/*
 * devmemctl prepare and release: what a NIC needs before an application
 * binds device memory to its queues, and exactly that taken back.
 *
 * prepare turns header split on and hds-thresh to 0, takes the last N RX
 * queues out of the default RSS context and steers each flow given into
 * them (one queue: a rule to it; more: an RSS context over them). Every
 * change is written to the state file, /run/devmem-tcp/<interface>, as it
 * is made, so that release (or a prepare failing half way) undoes what
 * was done and nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/ethtool_netlink.h>

#include "flow.h"
#include "nic.h"
#include "prepare.h"

static const char *state_dir(void)
{
	const char *dir = getenv("DEVMEMCTL_STATE_DIR");

	return dir && *dir ? dir : "/run/devmem-tcp";
}

static void state_path(const char *ifname, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", state_dir(), ifname);
}

static void prep_init(struct prep *p)
{
	memset(p, 0, sizeof(*p));
	p->hds = -1;
	p->hds_thresh = -1;
	p->ntuple = -1;
}

int prep_lock(void)
{
	char path[256];
	int fd;

	if (mkdir(state_dir(), 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/.lock", state_dir());
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX)) {
		close(fd);
		return -errno;
	}
	return fd;	/* held until the process exits */
}

void prep_free(struct prep *p)
{
	free(p->indir);
	p->indir = NULL;
}

int prep_save(const char *ifname, const struct prep *p)
{
	char path[256], tmp[264];
	int i, fd;
	FILE *f;

	if (mkdir(state_dir(), 0755) && errno != EEXIST)
		return -errno;
	state_path(ifname, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	fprintf(f, "# devmemctl prepare of %s: what it changed, for release\n",
		ifname);
	fprintf(f, "ifindex %d\nqueues %d %d\n", p->ifindex, p->first,
		p->count);
	if (p->hds >= 0)
		fprintf(f, "hds %d\n", p->hds);
	if (p->hds_thresh >= 0)
		fprintf(f, "hds-thresh %lld\n", (long long)p->hds_thresh);
	if (p->ntuple >= 0)
		fprintf(f, "ntuple %d\n", p->ntuple);
	if (p->indir) {
		fprintf(f, "indir %d", p->nindir);
		for (i = 0; i < p->nindir; i++)
			fprintf(f, " %u", p->indir[i]);
		fprintf(f, "\n");
	}
	if (p->ctx)
		fprintf(f, "ctx %u\n", p->ctx);
	for (i = 0; i < p->nrules; i++)
		fprintf(f, "rule %d\n", p->rules[i]);
	if (fflush(f) || fsync(fileno(f))) {
		fclose(f);
		unlink(tmp);
		return -EIO;
	}
	fclose(f);
	return rename(tmp, path) ? -errno : 0;
}

/* A number of the state file in [@min, @max], or -EINVAL */
static int state_num(const char *v, long long min, long long max,
		     long long *x)
{
	char *end;

	if (!v)
		return -EINVAL;
	errno = 0;
	*x = strtoll(v, &end, 10);
	if (errno || *end || end == v || *x < min || *x > max)
		return -EINVAL;
	return 0;
}

/* One "key values" line of the state file: every value in its range */
static int prep_line(struct prep *p, char *line)
{
	char *save = NULL, *key, *v;
	long long x;
	int i;

	key = strtok_r(line, "\n ", &save);
	if (!key || key[0] == '#')
		return 0;
	v = strtok_r(NULL, "\n ", &save);
	if (!strcmp(key, "ifindex")) {
		if (state_num(v, 1, INT32_MAX, &x))
			return -EINVAL;
		p->ifindex = x;
	} else if (!strcmp(key, "queues")) {
		if (state_num(v, 0, 4095, &x))
			return -EINVAL;
		p->first = x;
		v = strtok_r(NULL, "\n ", &save);
		if (state_num(v, 1, 1024, &x))
			return -EINVAL;
		p->count = x;
	} else if (!strcmp(key, "hds")) {
		if (state_num(v, ETHTOOL_TCP_DATA_SPLIT_UNKNOWN,
			      ETHTOOL_TCP_DATA_SPLIT_ENABLED, &x))
			return -EINVAL;
		p->hds = x;
	} else if (!strcmp(key, "hds-thresh")) {
		if (state_num(v, 0, UINT32_MAX, &x))
			return -EINVAL;
		p->hds_thresh = x;
	} else if (!strcmp(key, "ntuple")) {
		if (state_num(v, 0, 1, &x))
			return -EINVAL;
		p->ntuple = x;
	} else if (!strcmp(key, "indir")) {
		if (state_num(v, 1, 65536, &x) || p->indir)
			return -EINVAL;
		p->indir = calloc(x, sizeof(*p->indir));
		if (!p->indir)
			return -ENOMEM;
		p->nindir = x;
		for (i = 0; i < p->nindir; i++) {
			v = strtok_r(NULL, "\n ", &save);
			if (state_num(v, 0, 4095, &x))
				return -EINVAL;
			p->indir[i] = x;
		}
	} else if (!strcmp(key, "ctx")) {
		if (state_num(v, 1, UINT32_MAX, &x))
			return -EINVAL;
		p->ctx = x;
	} else if (!strcmp(key, "rule")) {
		if (p->nrules == DEVMEMCTL_MAX_FLOWS ||
		    state_num(v, 0, 1 << 20, &x))
			return -EINVAL;
		p->rules[p->nrules++] = x;
	} else {
		return -EINVAL;
	}
	return 0;
}

int prep_load(const char *ifname, struct prep *p)
{
	char path[256], *line = NULL;
	size_t cap = 0;
	int err = 0;
	FILE *f;

	prep_init(p);
	state_path(ifname, path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (!err && getline(&line, &cap, f) > 0)
		err = prep_line(p, line);
	free(line);
	fclose(f);
	if (!err && (!p->ifindex || !p->count))
		err = -EINVAL;
	if (err)
		prep_free(p);
	return err;
}

int prep_remove(const char *ifname)
{
	char path[256];

	state_path(ifname, path, sizeof(path));
	return unlink(path) ? -errno : 0;
}

/* Whether rule @r steers into what prepare made: its context or queue */
static bool rule_is_ours(const struct netcfg_rule *r, const struct prep *p)
{
	if (p->ctx)
		return r->to_ctx && r->ctx == p->ctx;
	return !r->to_ctx && r->queue == p->first;
}

/* The rules prepare added, last first; those that failed stay in @p */
static int undo_rules(const char *ifname, struct prep *p)
{
	struct netcfg_rule *rules;
	int i, j, n, err, ret = 0, kept = 0;

	n = ethtool_flow_rules(ifname, &rules);
	if (n < 0)
		n = 0;
	for (i = p->nrules - 1; i >= 0; i--) {
		for (j = 0; j < n && rules[j].location != p->rules[i]; j++)
			;
		if (j == n)
			continue;	/* gone already */
		if (!rule_is_ours(&rules[j], p)) {
			printf("%s: rule %d is not the one prepare added: left\n",
			       ifname, p->rules[i]);
			continue;
		}
		err = ethtool_flow_del(ifname, p->rules[i]);
		if (err && err != -ENOENT) {
			fprintf(stderr, "%s: cannot delete flow rule %d: %s\n",
				ifname, p->rules[i], strerror(-err));
			ret = ret ?: err;
			p->rules[kept++] = p->rules[i];
		}
	}
	p->nrules = kept;
	free(rules);
	return ret;
}

/* The RSS context prepare made, if it still spreads over its queues only */
static int undo_ctx(const char *ifname, struct prep *p)
{
	uint32_t *table;
	int i, n, err;

	n = ethtool_rss_ctx_table(ifname, p->ctx, &table);
	if (n < 0) {
		p->ctx = 0;	/* gone already */
		return 0;
	}
	for (i = 0; i < n; i++)
		if (table[i] < (uint32_t)p->first ||
		    table[i] >= (uint32_t)(p->first + p->count))
			break;
	free(table);
	if (i < n) {
		printf("%s: RSS context %u now spreads elsewhere: not the one prepare made, left\n",
		       ifname, p->ctx);
		p->ctx = 0;
		return 0;
	}
	err = ethtool_rss_ctx_del(ifname, p->ctx);
	if (err && err != -ENOENT) {
		fprintf(stderr, "%s: cannot delete RSS context %u: %s\n",
			ifname, p->ctx, strerror(-err));
		return err;
	}
	p->ctx = 0;
	return 0;
}

/* ntuple off again, unless rules that are not ours need it */
static int undo_ntuple(const char *ifname, struct prep *p)
{
	struct netcfg_rule *rules;
	int n, err;

	n = ethtool_flow_rules(ifname, &rules);
	free(rules);
	if (!p->ntuple && n > 0) {
		printf("%s: ntuple left on: %d rule(s) prepare did not add\n",
		       ifname, n);
		p->ntuple = -1;
		return 0;
	}
	err = ethtool_ntuple(ifname, p->ntuple);
	if (err) {
		fprintf(stderr, "%s: cannot set ntuple back %s: %s\n",
			ifname, p->ntuple ? "on" : "off", strerror(-err));
		return err;
	}
	p->ntuple = -1;
	return 0;
}

/* The default RSS table as it was: the driver's own if it was that */
static int undo_indir(const char *ifname, struct prep *p, int nrx)
{
	int i, err;

	for (i = 0; nrx > 0 && i < p->nindir; i++)
		if (p->indir[i] != (uint32_t)(i % nrx))
			break;
	if (nrx > 0 && i == p->nindir)
		err = ethtool_rss_equal(ifname, 0);
	else
		err = ethtool_rss_table_set(ifname, p->indir, p->nindir);
	if (err) {
		fprintf(stderr, "%s: cannot restore the RSS table: %s\n",
			ifname, strerror(-err));
		return err;
	}
	prep_free(p);
	return 0;
}

/* Undo @p, last change first: 0 or the first error; what failed stays. */
static int prep_undo(struct devmem_nl *nl, const char *ifname,
		     struct prep *p, int nrx)
{
	int err, ret = 0;

	ret = undo_rules(ifname, p);
	if (p->ctx && !p->nrules) {
		err = undo_ctx(ifname, p);
		ret = ret ?: err;
	}
	if (p->ntuple >= 0 && !p->nrules) {
		err = undo_ntuple(ifname, p);
		ret = ret ?: err;
	}
	if (p->indir) {
		err = undo_indir(ifname, p, nrx);
		ret = ret ?: err;
	}
	if (p->hds_thresh >= 0) {
		err = ethtool_set_hds_thresh(nl, p->ifindex, p->hds_thresh);
		if (err) {
			fprintf(stderr, "%s: cannot set hds-thresh back to %lld: %s%s%s\n",
				ifname, (long long)p->hds_thresh,
				strerror(-err), *nl->extack ? ": " : "",
				nl->extack);
			ret = ret ?: err;
		} else {
			p->hds_thresh = -1;
		}
	}
	if (p->hds >= 0) {
		err = ethtool_set_hds_mode(nl, p->ifindex, p->hds);
		if (err) {
			fprintf(stderr, "%s: cannot set tcp-data-split back: %s%s%s\n",
				ifname, strerror(-err), *nl->extack ? ": " : "",
				nl->extack);
			ret = ret ?: err;
		} else {
			p->hds = -1;
		}
	}
	return ret;
}

/* Write @p after a change: 0, or an error the caller undoes on */
static int record(const struct nic *nic, const struct prep *p)
{
	int err = prep_save(nic->name, p);

	if (err)
		fprintf(stderr, "%s: cannot write the state under %s: %s\n",
			nic->name, state_dir(), strerror(-err));
	return err;
}

/* A prepared queue with a binding: release would break it. */
static int bound_queue(const struct nic *nic, int first, int count)
{
	int q;

	for (q = first; q < first + count && q < nic->nrx; q++)
		if (nic_queue_bound(nic, q))
			return q;
	return -1;
}

/* The flows into queues p->first.. of @nic: a rule each */
static int steer(const struct nic *nic, const struct request *req,
		 struct prep *p)
{
	char text[160];
	int i, loc, ctx;

	if (p->ntuple < 0 && nic->ntuple == 0) {
		loc = ethtool_ntuple(nic->name, true);
		if (loc) {
			fprintf(stderr,
				"%s: cannot turn ntuple filtering on (%s): the driver has no flow steering\n",
				nic->name, strerror(-loc));
			return loc;
		}
		p->ntuple = 0;
		if (record(nic, p))
			return -EIO;
	} else if (nic->ntuple < 0) {
		fprintf(stderr, "%s: no ntuple filtering (%s): the driver has no flow steering\n",
			nic->name, strerror(-nic->ntuple));
		return nic->ntuple;
	}
	if (p->count > 1) {
		ctx = ethtool_rss_ctx_add(nic->name, p->first, p->count);
		if (ctx <= 0) {
			fprintf(stderr, "%s: cannot make an RSS context over queues %d-%d: %s\n",
				nic->name, p->first, p->first + p->count - 1,
				strerror(ctx ? -ctx : EINVAL));
			return ctx ? ctx : -EINVAL;
		}
		p->ctx = ctx;
		if (record(nic, p))
			return -EIO;
	}
	for (i = 0; i < req->nflows; i++) {
		flow_format(&req->flows[i], text, sizeof(text));
		loc = ethtool_flow_insert(nic->name, &req->flows[i],
					  p->ctx ? 0 : p->first, p->ctx);
		if (loc < 0) {
			fprintf(stderr, "%s: cannot add the rule for %s: %s\n",
				nic->name, text, strerror(-loc));
			return loc;
		}
		p->rules[p->nrules++] = loc;
		if (record(nic, p))
			return -EIO;
		printf("%s: rule %d: %s -> %s %u\n", nic->name, loc, text,
		       p->ctx ? "RSS context" : "queue",
		       p->ctx ? p->ctx : (unsigned int)p->first);
	}
	return 0;
}

/* Header split on, hds-thresh 0 */
static int split_headers(struct devmem_nl *nl, const struct nic *nic,
			 struct prep *p)
{
	int err;

	if (nic->hds.split < 0) {
		fprintf(stderr,
			"%s: the driver reports no header split (tcp-data-split): it cannot receive into device memory\n",
			nic->name);
		return -EOPNOTSUPP;
	}
	if (nic->hds.split != ETHTOOL_TCP_DATA_SPLIT_ENABLED) {
		err = ethtool_set_hds_mode(nl, nic->ifindex,
					   ETHTOOL_TCP_DATA_SPLIT_ENABLED);
		if (err) {
			fprintf(stderr, "%s: cannot turn header split on: %s%s%s\n",
				nic->name, strerror(-err),
				*nl->extack ? ": " : "", nl->extack);
			return err;
		}
		p->hds = nic->hds.split;
		if (record(nic, p))
			return -EIO;
		printf("%s: tcp-data-split on\n", nic->name);
	}
	if (nic->hds.thresh > 0) {
		err = ethtool_set_hds_thresh(nl, nic->ifindex, 0);
		if (err) {
			fprintf(stderr, "%s: cannot set hds-thresh 0: %s%s%s\n",
				nic->name, strerror(-err),
				*nl->extack ? ": " : "", nl->extack);
			return err;
		}
		p->hds_thresh = nic->hds.thresh;
		if (record(nic, p))
			return -EIO;
		printf("%s: hds-thresh 0 (was %lld)\n", nic->name,
		       (long long)nic->hds.thresh);
	}
	return 0;
}

/* The default RSS context spread over the queues before p->first */
static int rss_off_queues(const struct nic *nic, struct prep *p)
{
	int err;

	if (!nic->indir) {
		fprintf(stderr,
			"%s: no RSS indirection table: cannot keep other traffic off queues %d-%d\n",
			nic->name, p->first, p->first + p->count - 1);
		return -EOPNOTSUPP;
	}
	p->indir = malloc(nic->nindir * sizeof(*p->indir));
	if (!p->indir)
		return -ENOMEM;
	memcpy(p->indir, nic->indir, nic->nindir * sizeof(*p->indir));
	p->nindir = nic->nindir;
	err = ethtool_rss_equal(nic->name, p->first);
	if (err) {
		fprintf(stderr, "%s: cannot spread RSS over queues 0-%d: %s\n",
			nic->name, p->first - 1, strerror(-err));
		prep_free(p);
		return err;
	}
	if (record(nic, p))
		return -EIO;
	printf("%s: default RSS context over queues 0-%d\n", nic->name,
	       p->first - 1);
	return 0;
}

int do_prepare(struct devmem_nl *nl, const struct request *req)
{
	int count = req->queues ? req->queues : 1;
	struct prep p, old;
	struct nic nic;
	int err, q;

	err = nic_read(nl, req->ifname, &nic);
	if (err) {
		fprintf(stderr, "%s: no such interface\n", req->ifname);
		return 2;
	}
	err = prep_load(req->ifname, &old);
	if (!err) {
		prep_free(&old);
		fprintf(stderr,
			"%s: already prepared (queues %d-%d): run devmemctl release %s first\n",
			req->ifname, old.first, old.first + old.count - 1,
			req->ifname);
		goto refuse;
	}
	if (nic.nrx == 1 && count == 1) {
		printf("%s: one RX queue: every flow of the port lands on it, no steering\n",
		       nic.name);
	} else if (count >= nic.nrx) {
		fprintf(stderr,
			"%s: %d device-memory queues leave none of its %d RX queues for other traffic\n",
			nic.name, count, nic.nrx);
		goto refuse;
	}
	if (nic.xdp > 0) {
		fprintf(stderr,
			"%s: an XDP program is attached: bind-rx refuses the device (ip link set dev %s xdp off)\n",
			nic.name, nic.name);
		goto refuse;
	}
	prep_init(&p);
	p.ifindex = nic.ifindex;
	p.first = nic.nrx - count;
	p.count = count;
	q = bound_queue(&nic, p.first, p.count);
	if (q >= 0) {
		fprintf(stderr, "%s: queue %d already has a binding\n",
			nic.name, q);
		goto refuse;
	}
	err = prep_save(nic.name, &p);
	if (err) {
		fprintf(stderr, "%s: cannot write the state under %s: %s\n",
			nic.name, state_dir(), strerror(-err));
		goto refuse;
	}
	err = split_headers(nl, &nic, &p);
	if (!err && nic.nrx > 1)
		err = rss_off_queues(&nic, &p);
	if (!err && nic.nrx > 1 && req->nflows)
		err = steer(&nic, req, &p);
	if (err) {
		if (prep_undo(nl, nic.name, &p, nic.nrx)) {
			prep_save(nic.name, &p);
			fprintf(stderr,
				"%s: prepare failed, and not all of it could be undone: what is left is in %s/%s\n",
				nic.name, state_dir(), nic.name);
		} else {
			prep_remove(nic.name);
			fprintf(stderr, "%s: prepare failed: nothing changed\n",
				nic.name);
		}
		prep_free(&p);
		goto refuse;
	}
	if (nic.nrx > 1 && !req->nflows)
		printf("%s: no flow given: nothing is steered to queues %d-%d yet\n",
		       nic.name, p.first, p.first + p.count - 1);
	printf("%s: prepared: bind RX queues %d-%d (ncdevmem -l -n -f %s -t %d -q %d ...)\n",
	       nic.name, p.first, p.first + p.count - 1, nic.name, p.first,
	       p.count);
	prep_free(&p);
	nic_free(&nic);
	return 0;
refuse:
	nic_free(&nic);
	return 1;
}

int do_release(struct devmem_nl *nl, const struct request *req)
{
	struct prep p;
	struct nic nic;
	int err, q;

	err = prep_load(req->ifname, &p);
	if (err == -ENOENT) {
		fprintf(stderr, "%s: not prepared by devmemctl: nothing to release\n",
			req->ifname);
		return 1;
	}
	if (err) {
		fprintf(stderr, "%s: unreadable state file under %s: %s\n",
			req->ifname, state_dir(), strerror(-err));
		return 1;
	}
	err = nic_read(nl, req->ifname, &nic);
	if (err || nic.ifindex != p.ifindex) {
		char now[IF_NAMESIZE];

		nic_free(&nic);
		if (if_indextoname(p.ifindex, now)) {
			fprintf(stderr,
				"%s: the interface prepared (ifindex %d) is now %s: name it %s again to release it; nothing changed\n",
				req->ifname, p.ifindex, now, req->ifname);
			prep_free(&p);
			return 1;
		}
		printf("%s: ifindex %d is gone, and its settings: state dropped\n",
		       req->ifname, p.ifindex);
		prep_remove(req->ifname);
		prep_free(&p);
		return 0;
	}
	q = bound_queue(&nic, p.first, p.count);
	if (q >= 0) {
		fprintf(stderr,
			"%s: queue %d still has a binding (dmabuf %u%s): stop its application first; nothing changed\n",
			nic.name, q, nic.q[q].dmabuf,
			nic.q[q].io_uring ? ", io_uring zcrx" : "");
		prep_free(&p);
		nic_free(&nic);
		return 1;
	}
	err = prep_undo(nl, nic.name, &p, nic.nrx);
	if (err)
		prep_save(nic.name, &p);
	else
		prep_remove(nic.name);
	printf("%s: %s\n", nic.name,
	       err ? "released in part: what is left stays in the state file" :
	       "released: as before prepare");
	prep_free(&p);
	nic_free(&nic);
	return err ? 1 : 0;
}
