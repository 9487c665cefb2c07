// SPDX-License-Identifier: GPL-2.0
/*
 * devmemctl: TCP flows in the words of ethtool -N, and whether a steering
 * rule takes all of a flow.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "flow.h"

static int parse_port(const char *text, uint16_t *port)
{
	char *end;
	long v;

	v = strtol(text, &end, 10);
	if (*end || end == text || v < 1 || v > 65535)
		return -EINVAL;
	*port = v;
	return 0;
}

int flow_parse(char *words, struct netcfg_flow *f, char *why, size_t len)
{
	char *save = NULL, *w, *val;
	int err;

	memset(f, 0, sizeof(*f));
	w = strtok_r(words, " \t", &save);
	if (w && !strcmp(w, "tcp4")) {
		f->family = AF_INET;
	} else if (w && !strcmp(w, "tcp6")) {
		f->family = AF_INET6;
	} else {
		snprintf(why, len, "a flow starts with tcp4 or tcp6, not \"%s\"",
			 w ? w : "");
		return -EINVAL;
	}
	while ((w = strtok_r(NULL, " \t", &save))) {
		val = strtok_r(NULL, " \t", &save);
		if (!val) {
			snprintf(why, len, "\"%s\" needs a value", w);
			return -EINVAL;
		}
		if (!strcmp(w, "src-ip") || !strcmp(w, "dst-ip")) {
			err = netcfg_flow_parse_addr(f, val, w[0] == 'd');
			if (err) {
				snprintf(why, len, "%s %s: %s", w, val,
					 err == -EAFNOSUPPORT ?
					 "not an address of the flow's family" :
					 "not an address");
				return -EINVAL;
			}
		} else if (!strcmp(w, "src-port") || !strcmp(w, "dst-port")) {
			if (parse_port(val, w[0] == 'd' ? &f->dport :
				       &f->sport)) {
				snprintf(why, len, "%s %s: not a port (1-65535)",
					 w, val);
				return -EINVAL;
			}
		} else {
			snprintf(why, len,
				 "unknown word \"%s\" (src-ip, dst-ip, src-port, dst-port)",
				 w);
			return -EINVAL;
		}
	}
	if (!f->dport) {
		snprintf(why, len, "a flow needs dst-port");
		return -EINVAL;
	}
	return 0;
}

void flow_format(const struct netcfg_flow *f, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	size_t n;

	n = snprintf(buf, len, "%s", f->family == AF_INET6 ? "tcp6" : "tcp4");
	if (f->has_src && n < len) {
		inet_ntop(f->family, f->src, a, sizeof(a));
		n += snprintf(buf + n, len - n, " src-ip %s", a);
	}
	if (f->has_dst && n < len) {
		inet_ntop(f->family, f->dst, a, sizeof(a));
		n += snprintf(buf + n, len - n, " dst-ip %s", a);
	}
	if (f->sport && n < len)
		n += snprintf(buf + n, len - n, " src-port %u", f->sport);
	if (f->dport && n < len)
		snprintf(buf + n, len - n, " dst-port %u", f->dport);
}

bool flow_covers(const struct netcfg_flow *r, const struct netcfg_flow *f)
{
	size_t alen = f->family == AF_INET6 ? 16 : 4;

	if (r->family != f->family)
		return false;
	/* what the rule matches on, the flow must fix to the same value */
	if (r->has_src && (!f->has_src || memcmp(r->src, f->src, alen)))
		return false;
	if (r->has_dst && (!f->has_dst || memcmp(r->dst, f->dst, alen)))
		return false;
	if (r->sport && r->sport != f->sport)
		return false;
	if (r->dport && r->dport != f->dport)
		return false;
	return true;
}
