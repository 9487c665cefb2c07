/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-process network configuration for devmemctl, ncdevmem and the devmem
 * selftests:
 * named network namespaces (what `ip netns add|del` does), links up, moved
 * and deleted and addresses added over rtnetlink, and the ethtool RSS,
 * ntuple and flow-rule calls over the ethtool ioctl. No helper execs a
 * program: on a debug kernel under TCG one exec of ip(8) costs seconds.
 *
 * Every function returns 0 (or a non-negative result) or -errno.
 */
#ifndef DEVMEM_NETCFG_H
#define DEVMEM_NETCFG_H

#include <stdbool.h>
#include <stdint.h>

#define NETNS_RUN_DIR	"/run/netns"

int netns_add(const char *name);
int netns_del(const char *name);		/* -ENOENT if there is none */
/* Switch this thread to namespace @name; returns an fd of the old one. */
int netns_enter(const char *name);
int netns_leave(int home_fd);

/* @ns: namespace to act in, NULL for the caller's. */
int link_set_up(const char *ns, int ifindex);
int link_set_netns(int ifindex, const char *to_ns);
/* Move @ifindex, a link of @ns, to the namespace open as @to_fd. */
int link_set_netns_fd(const char *ns, int ifindex, int to_fd);
int link_del(const char *ns, const char *ifname);	/* -ENODEV if none */
/* @addr: IPv4 or IPv6 text; IPv6 addresses are added without DAD. */
int addr_add(const char *ns, int ifindex, const char *addr, int prefix);
/* XDP_ATTACHED_* of link @ifindex: 0 when no XDP program is attached */
int link_xdp_attached(const char *ns, int ifindex);

/* ethtool, in the caller's namespace */
int ethtool_rss_equal(const char *ifname, int nqueues);	/* 0: default */
int ethtool_ntuple(const char *ifname, bool on);
int ethtool_ntuple_get(const char *ifname);		/* 0 or 1 */
/* Turn feature @name (as `ethtool -k` names it) on or off. */
int ethtool_feature(const char *ifname, const char *name, bool on);
/*
 * TCP flow rule to @queue for destination @dst (IPv4 or IPv6 text, NULL:
 * any) port @dport, and source @src if set. Returns the rule's location.
 */
int ethtool_flow_add(const char *ifname, const char *src, const char *dst,
		     uint16_t dport, int queue);
/* The same into RSS context @ctx: its flows spread over its queues. */
int ethtool_flow_add_rss(const char *ifname, const char *src, const char *dst,
			 uint16_t dport, uint32_t ctx);
int ethtool_flow_del(const char *ifname, int location);

/* A TCP flow as a steering rule matches it: what is not set is any. */
struct netcfg_flow {
	int family;			/* AF_INET or AF_INET6 */
	bool has_src, has_dst;
	uint8_t src[16], dst[16];	/* network order */
	uint16_t sport, dport;		/* host order, 0: any */
};

/* Set @f's source (or @dst: destination) from text: -EAFNOSUPPORT when
 * its family is not the flow's, -EINVAL when it is no address.
 */
int netcfg_flow_parse_addr(struct netcfg_flow *f, const char *text,
			   bool dst);
/* A rule for @f to @queue, or (@ctx) into RSS context @ctx at offset
 * @queue: its location.
 */
int ethtool_flow_insert(const char *ifname, const struct netcfg_flow *f,
			int queue, uint32_t ctx);

/* A TCP steering rule of the device */
struct netcfg_rule {
	int location;
	struct netcfg_flow flow;
	bool to_ctx;		/* into RSS context @ctx, @queue its offset */
	uint32_t ctx;
	int64_t queue;		/* -1: drop */
};

/* The device's TCP rules in @rules (to free()), in location order: how
 * many, or -errno.
 */
int ethtool_flow_rules(const char *ifname, struct netcfg_rule **rules);
/*
 * An additional RSS context (ETH_RXFH_CONTEXT_ALLOC) spreading over queues
 * @first..@first + @nqueues - 1: its id, or -errno.
 */
int ethtool_rss_ctx_add(const char *ifname, int first, int nqueues);
/* Context @ctx's indirection table in @table (to free()): its size. */
int ethtool_rss_ctx_table(const char *ifname, uint32_t ctx, uint32_t **table);
int ethtool_rss_ctx_del(const char *ifname, uint32_t ctx);
/* The default context's indirection table set to @table of @n entries */
int ethtool_rss_table_set(const char *ifname, const uint32_t *table, int n);
/*
 * All of `ethtool -S`: @names gets ETH_GSTRING_LEN (32) bytes per name,
 * @vals a value each, both to free(). Returns the count or -errno.
 */
int ethtool_stats(const char *ifname, char **names, uint64_t **vals);
/* Value of the statistic called @name in `ethtool -S`, or -errno. */
int64_t ethtool_stat(const char *ifname, const char *name);

#endif /* DEVMEM_NETCFG_H */
