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
#include <sys/stat.h>
#include <unistd.h>
#include <linux/ethtool_netlink.h>

#include "devmemctl.h"

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

void prep_free(struct prep *p)
{
	free(p->indir);
	p->indir = NULL;
}

int prep_save(const char *ifname, const struct prep *p)
{
	char path[256], tmp[264];
	FILE *f;
	int i;

	if (mkdir(state_dir(), 0755) && errno != EEXIST)
		return -errno;
	state_path(ifname, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
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

/* One "key values" line of the state file */
static int prep_line(struct prep *p, char *line)
{
	char *save = NULL, *key, *v;
	long long x;
	int i;

	key = strtok_r(line, "\n ", &save);
	if (!key || key[0] == '#')
		return 0;
	v = strtok_r(NULL, "\n ", &save);
	if (!v)
		return -EINVAL;
	x = strtoll(v, NULL, 10);
	if (!strcmp(key, "ifindex")) {
		p->ifindex = x;
	} else if (!strcmp(key, "queues")) {
		p->first = x;
		v = strtok_r(NULL, "\n ", &save);
		if (!v)
			return -EINVAL;
		p->count = atoi(v);
	} else if (!strcmp(key, "hds")) {
		p->hds = x;
	} else if (!strcmp(key, "hds-thresh")) {
		p->hds_thresh = x;
	} else if (!strcmp(key, "ntuple")) {
		p->ntuple = x;
	} else if (!strcmp(key, "indir")) {
		if (x < 1 || x > 65536 || p->indir)
			return -EINVAL;
		p->indir = calloc(x, sizeof(*p->indir));
		if (!p->indir)
			return -ENOMEM;
		p->nindir = x;
		for (i = 0; i < x; i++) {
			v = strtok_r(NULL, "\n ", &save);
			if (!v)
				return -EINVAL;
			p->indir[i] = strtoul(v, NULL, 10);
		}
	} else if (!strcmp(key, "ctx")) {
		p->ctx = x;
	} else if (!strcmp(key, "rule")) {
		if (p->nrules == DEVMEMCTL_MAX_FLOWS)
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
	if (!err && !p->ifindex)
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

/* Undo @p on @nic, last change first: 0 or the first error. */
static int prep_undo(struct devmem_nl *nl, const char *ifname,
		     struct prep *p)
{
	int i, err, ret = 0;

	for (i = p->nrules - 1; i >= 0; i--) {
		err = ethtool_flow_del(ifname, p->rules[i]);
		if (err && err != -ENOENT) {
			fprintf(stderr, "%s: cannot delete flow rule %d: %s\n",
				ifname, p->rules[i], strerror(-err));
			ret = ret ?: err;
			continue;
		}
		p->nrules = i;
	}
	if (p->ctx) {
		err = ethtool_rss_ctx_del(ifname, p->ctx);
		if (err && err != -ENOENT) {
			fprintf(stderr, "%s: cannot delete RSS context %u: %s\n",
				ifname, p->ctx, strerror(-err));
			ret = ret ?: err;
		} else {
			p->ctx = 0;
		}
	}
	if (p->ntuple >= 0) {
		err = ethtool_ntuple(ifname, p->ntuple);
		if (err) {
			fprintf(stderr, "%s: cannot set ntuple back %s: %s\n",
				ifname, p->ntuple ? "on" : "off",
				strerror(-err));
			ret = ret ?: err;
		} else {
			p->ntuple = -1;
		}
	}
	if (p->indir) {
		err = ethtool_rss_table_set(ifname, p->indir, p->nindir);
		if (err) {
			fprintf(stderr, "%s: cannot restore the RSS table: %s\n",
				ifname, strerror(-err));
			ret = ret ?: err;
		} else {
			prep_free(p);
		}
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
		prep_save(nic->name, p);
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
		prep_save(nic->name, p);
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
		prep_save(nic->name, p);
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
		prep_save(nic->name, p);
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
		prep_save(nic->name, p);
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
	prep_save(nic->name, p);
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
		fprintf(stderr, "%s: nothing changed: prepare failed\n",
			nic.name);
		if (prep_undo(nl, nic.name, &p))
			prep_save(nic.name, &p);
		else
			prep_remove(nic.name);
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
		fprintf(stderr,
			"%s: the interface prepared (ifindex %d) is gone: its state is dropped\n",
			req->ifname, p.ifindex);
		prep_remove(req->ifname);
		prep_free(&p);
		nic_free(&nic);
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
	err = prep_undo(nl, nic.name, &p);
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
