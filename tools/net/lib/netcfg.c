// SPDX-License-Identifier: GPL-2.0
/*
 * In-process network configuration: see netcfg.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/ethtool.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <libmnl/libmnl.h>

#include "netcfg.h"

/* Namespaces */

static void netns_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, NETNS_RUN_DIR "/%s", name);
}

/*
 * Like ip(8): the run directory is a shared mount point, so that the
 * namespace mounts under it show in every mount namespace, and ip(8)
 * finds it already set up and leaves it alone.
 */
static int netns_run_dir(void)
{
	if (mkdir(NETNS_RUN_DIR, 0755) && errno != EEXIST)
		return -errno;
	if (!mount("", NETNS_RUN_DIR, "none", MS_SHARED | MS_REC, NULL))
		return 0;
	if (errno != EINVAL)
		return -errno;
	if (mount(NETNS_RUN_DIR, NETNS_RUN_DIR, "none", MS_BIND | MS_REC, NULL) ||
	    mount("", NETNS_RUN_DIR, "none", MS_SHARED | MS_REC, NULL))
		return -errno;
	return 0;
}

int netns_add(const char *name)
{
	char path[128];
	int fd, home, err;

	err = netns_run_dir();
	if (err)
		return err;
	netns_path(path, sizeof(path), name);
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL, 0);
	if (fd < 0)
		return -errno;
	close(fd);

	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0) {
		err = -errno;
		goto err_unlink;
	}
	if (unshare(CLONE_NEWNET)) {
		err = -errno;
		goto err_close;
	}
	err = mount("/proc/self/ns/net", path, "none", MS_BIND, NULL) ? -errno : 0;
	if (setns(home, CLONE_NEWNET) && !err)
		err = -errno;
	close(home);
	if (err)
		unlink(path);
	return err;

err_close:
	close(home);
err_unlink:
	unlink(path);
	return err;
}

int netns_del(const char *name)
{
	char path[128];

	netns_path(path, sizeof(path), name);
	umount2(path, MNT_DETACH);
	return unlink(path) ? -errno : 0;
}

int netns_enter(const char *name)
{
	char path[128];
	int home, fd;

	netns_path(path, sizeof(path), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0 || setns(fd, CLONE_NEWNET)) {
		int err = -errno;

		if (home >= 0)
			close(home);
		close(fd);
		return err;
	}
	close(fd);
	return home;
}

int netns_leave(int home_fd)
{
	int err = setns(home_fd, CLONE_NEWNET) ? -errno : 0;

	close(home_fd);
	return err;
}

/* rtnetlink */

/* An rtnetlink socket in namespace @ns (NULL: the caller's). */
static struct mnl_socket *rtnl_open(const char *ns)
{
	struct mnl_socket *sock;
	int home = -1;

	if (ns) {
		home = netns_enter(ns);
		if (home < 0) {
			errno = -home;
			return NULL;
		}
	}
	sock = mnl_socket_open(NETLINK_ROUTE);
	if (sock && mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID)) {
		mnl_socket_close(sock);
		sock = NULL;
	}
	if (home >= 0) {
		int err = errno;

		netns_leave(home);
		errno = err;
	}
	return sock;
}

/* Send one request in @ns and wait for its ACK. */
static int rtnl_do(const char *ns, struct nlmsghdr *nlh)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *sock;
	int ret;

	sock = rtnl_open(ns);
	if (!sock)
		return -errno;
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = 1;
	ret = mnl_socket_sendto(sock, nlh, nlh->nlmsg_len);
	while (ret >= 0) {
		ret = mnl_socket_recvfrom(sock, buf, sizeof(buf));
		if (ret < 0)
			break;
		ret = mnl_cb_run(buf, ret, 1, mnl_socket_get_portid(sock),
				 NULL, NULL);
		if (ret <= MNL_CB_STOP)
			break;
	}
	ret = ret < 0 ? -errno : 0;
	mnl_socket_close(sock);
	return ret;
}

static struct ifinfomsg *link_msg(char *buf, uint16_t type, int ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = type;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return ifi;
}

int link_set_up(const char *ns, int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ifinfomsg *ifi;

	ifi = link_msg(buf, RTM_NEWLINK, ifindex);
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return rtnl_do(ns, (struct nlmsghdr *)buf);
}

int link_set_netns_fd(const char *ns, int ifindex, int to_fd)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	link_msg(buf, RTM_NEWLINK, ifindex);
	mnl_attr_put_u32((struct nlmsghdr *)buf, IFLA_NET_NS_FD, to_fd);
	return rtnl_do(ns, (struct nlmsghdr *)buf);
}

int link_set_netns(int ifindex, const char *to_ns)
{
	char path[128];
	int fd, err;

	netns_path(path, sizeof(path), to_ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = link_set_netns_fd(NULL, ifindex, fd);
	close(fd);
	return err;
}

int link_del(const char *ns, const char *ifname)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	link_msg(buf, RTM_DELLINK, 0);
	mnl_attr_put_strz((struct nlmsghdr *)buf, IFLA_IFNAME, ifname);
	return rtnl_do(ns, (struct nlmsghdr *)buf);
}

struct xdp_query {
	int ifindex;
	int attached;	/* XDP_ATTACHED_*, -1 until the link is seen */
};

static int xdp_attr_cb(const struct nlattr *attr, void *data)
{
	struct xdp_query *q = data;

	if (mnl_attr_get_type(attr) == IFLA_XDP_ATTACHED &&
	    !mnl_attr_validate(attr, MNL_TYPE_U8))
		q->attached = mnl_attr_get_u8(attr);
	return MNL_CB_OK;
}

static int xdp_link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct xdp_query *q = data;
	struct nlattr *attr;

	if (ifi->ifi_index != q->ifindex)
		return MNL_CB_OK;
	q->attached = 0;
	mnl_attr_for_each(attr, nlh, sizeof(*ifi))
		if (mnl_attr_get_type(attr) == IFLA_XDP)
			mnl_attr_parse_nested(attr, xdp_attr_cb, q);
	return MNL_CB_OK;
}

int link_xdp_attached(const char *ns, int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct xdp_query q = { .ifindex = ifindex, .attached = -1 };
	struct mnl_socket *sock;
	struct nlmsghdr *nlh;
	int ret;

	sock = rtnl_open(ns);
	if (!sock)
		return -errno;
	link_msg(buf, RTM_GETLINK, ifindex);
	nlh = (struct nlmsghdr *)buf;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = 1;
	ret = mnl_socket_sendto(sock, nlh, nlh->nlmsg_len);
	if (ret >= 0)
		ret = mnl_socket_recvfrom(sock, buf, sizeof(buf));
	if (ret >= 0)
		ret = mnl_cb_run(buf, ret, 1, mnl_socket_get_portid(sock),
				 xdp_link_cb, &q);
	ret = ret < 0 ? -errno : q.attached < 0 ? -ENODEV : q.attached;
	mnl_socket_close(sock);
	return ret;
}

int addr_add(const char *ns, int ifindex, const char *addr, int prefix)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	unsigned char bin[16];
	struct ifaddrmsg *ifa;
	int family, len;

	family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	len = family == AF_INET6 ? 16 : 4;
	if (inet_pton(family, addr, bin) != 1)
		return -EINVAL;
	nlh->nlmsg_type = RTM_NEWADDR;
	nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = family;
	ifa->ifa_prefixlen = prefix;
	ifa->ifa_index = ifindex;
	ifa->ifa_flags = family == AF_INET6 ? IFA_F_NODAD : 0;
	mnl_attr_put(nlh, IFA_LOCAL, len, bin);
	mnl_attr_put(nlh, IFA_ADDRESS, len, bin);
	return rtnl_do(ns, nlh);
}

/* ethtool ioctl */

static int ethtool_ioctl(const char *ifname, void *cmd)
{
	struct ifreq ifr = { .ifr_data = cmd };
	int fd, err;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
	close(fd);
	return err;
}

int ethtool_rss_equal(const char *ifname, int nqueues)
{
	struct ethtool_rxfh_indir get = { .cmd = ETHTOOL_GRXFHINDIR };
	struct ethtool_rxfh_indir *set;
	uint32_t i;
	int err;

	/* size 0 asks for the table size; and resets the table to default */
	err = ethtool_ioctl(ifname, &get);
	if (err || !get.size)
		return err ? err : -EOPNOTSUPP;
	set = calloc(1, sizeof(*set) + get.size * sizeof(set->ring_index[0]));
	if (!set)
		return -ENOMEM;
	set->cmd = ETHTOOL_SRXFHINDIR;
	set->size = nqueues ? get.size : 0;
	for (i = 0; nqueues && i < get.size; i++)
		set->ring_index[i] = i % nqueues;
	err = ethtool_ioctl(ifname, set);
	free(set);
	return err;
}

int ethtool_ntuple(const char *ifname, bool on)
{
	struct ethtool_value v = { .cmd = ETHTOOL_GFLAGS };
	int err;

	err = ethtool_ioctl(ifname, &v);
	if (err)
		return err;
	v.cmd = ETHTOOL_SFLAGS;
	v.data = on ? v.data | ETH_FLAG_NTUPLE : v.data & ~ETH_FLAG_NTUPLE;
	return ethtool_ioctl(ifname, &v);
}

int ethtool_feature(const char *ifname, const char *name, bool on)
{
	struct ethtool_sset_info *info;
	struct ethtool_gstrings *str;
	struct ethtool_sfeatures *set;
	uint32_t n, i, idx = ~0U;
	int err = -ENOMEM;

	info = calloc(1, sizeof(*info) + sizeof(uint32_t));
	if (!info)
		return -ENOMEM;
	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ULL << ETH_SS_FEATURES;
	err = ethtool_ioctl(ifname, info);
	n = info->data[0];
	free(info);
	if (err)
		return err;

	str = calloc(1, sizeof(*str) + n * ETH_GSTRING_LEN);
	if (!str)
		return -ENOMEM;
	str->cmd = ETHTOOL_GSTRINGS;
	str->string_set = ETH_SS_FEATURES;
	str->len = n;
	err = ethtool_ioctl(ifname, str);
	for (i = 0; !err && i < n; i++)
		if (!strncmp((char *)str->data + i * ETH_GSTRING_LEN, name,
			     ETH_GSTRING_LEN))
			idx = i;
	free(str);
	if (err)
		return err;
	if (idx == ~0U)
		return -ENOENT;

	n = (n + 31) / 32;
	set = calloc(1, sizeof(*set) + n * sizeof(set->features[0]));
	if (!set)
		return -ENOMEM;
	set->cmd = ETHTOOL_SFEATURES;
	set->size = n;
	set->features[idx / 32].valid = 1U << (idx % 32);
	set->features[idx / 32].requested = on ? 1U << (idx % 32) : 0;
	err = ethtool_ioctl(ifname, set);
	free(set);
	/* > 0: the device changed more or less than asked */
	return err < 0 ? err : 0;
}

/* The table size of @ifname's RSS context @ctx (0: the default), or -errno */
static int rss_table_size(const char *ifname, uint32_t ctx)
{
	struct ethtool_rxfh get = { .cmd = ETHTOOL_GRSSH, .rss_context = ctx };
	int err;

	err = ethtool_ioctl(ifname, &get);
	if (err)
		return err;
	return get.indir_size ? (int)get.indir_size : -EOPNOTSUPP;
}

int ethtool_rss_ctx_add(const char *ifname, int first, int nqueues)
{
	struct ethtool_rxfh *set;
	int size, i, err;

	size = rss_table_size(ifname, 0);
	if (size < 0)
		return size;
	set = calloc(1, sizeof(*set) + size * sizeof(set->rss_config[0]));
	if (!set)
		return -ENOMEM;
	set->cmd = ETHTOOL_SRSSH;
	set->rss_context = ETH_RXFH_CONTEXT_ALLOC;
	set->indir_size = size;
	set->hfunc = 0;	/* ETH_RSS_HASH_NO_CHANGE */
	for (i = 0; i < size; i++)
		set->rss_config[i] = first + i % nqueues;
	err = ethtool_ioctl(ifname, set);
	if (!err)
		err = (int)set->rss_context;
	free(set);
	return err;
}

int ethtool_rss_ctx_table(const char *ifname, uint32_t ctx, uint32_t **table)
{
	struct ethtool_rxfh *get;
	int size, err;

	size = rss_table_size(ifname, ctx);
	if (size < 0)
		return size;
	get = calloc(1, sizeof(*get) + size * sizeof(uint32_t));
	if (!get)
		return -ENOMEM;
	get->cmd = ETHTOOL_GRSSH;
	get->rss_context = ctx;
	get->indir_size = size;
	err = ethtool_ioctl(ifname, get);
	if (!err) {
		*table = malloc(size * sizeof(uint32_t));
		if (*table)
			memcpy(*table, get->rss_config, size * sizeof(uint32_t));
		else
			err = -ENOMEM;
	}
	free(get);
	return err ? err : size;
}

int ethtool_rss_ctx_del(const char *ifname, uint32_t ctx)
{
	/* indir_size 0 on a context other than the default deletes it */
	struct ethtool_rxfh del = {
		.cmd = ETHTOOL_SRSSH,
		.rss_context = ctx,
		.hfunc = 0,	/* ETH_RSS_HASH_NO_CHANGE */
	};

	return ethtool_ioctl(ifname, &del);
}

int netcfg_flow_parse_addr(struct netcfg_flow *f, const char *text,
			   bool dst)
{
	int family = strchr(text, ':') ? AF_INET6 : AF_INET;

	if (f->family && f->family != family)
		return -EAFNOSUPPORT;
	if (inet_pton(family, text, dst ? f->dst : f->src) != 1)
		return -EINVAL;
	f->family = family;
	if (dst)
		f->has_dst = true;
	else
		f->has_src = true;
	return 0;
}

/* @words: the IPv4 or IPv6 address as 1 or 4 words */
static void spec_addr(uint32_t *val, uint32_t *mask, const uint8_t *addr,
		      bool set, int words)
{
	if (!set)
		return;
	memcpy(val, addr, words * 4);
	memset(mask, 0xff, words * 4);
}

int ethtool_flow_insert(const char *ifname, const struct netcfg_flow *f,
			int queue, uint32_t ctx)
{
	struct ethtool_rxnfc nfc = { .cmd = ETHTOOL_SRXCLSRLINS };
	struct ethtool_rx_flow_spec *fs = &nfc.fs;
	struct ethtool_tcpip6_spec *h6, *m6;
	struct ethtool_tcpip4_spec *h4, *m4;
	int err;

	fs->location = RX_CLS_LOC_ANY;
	fs->ring_cookie = queue;
	nfc.rss_context = ctx;
	if (f->family == AF_INET6) {
		h6 = &fs->h_u.tcp_ip6_spec;
		m6 = &fs->m_u.tcp_ip6_spec;
		fs->flow_type = TCP_V6_FLOW;
		spec_addr(h6->ip6src, m6->ip6src, f->src, f->has_src, 4);
		spec_addr(h6->ip6dst, m6->ip6dst, f->dst, f->has_dst, 4);
		h6->psrc = htons(f->sport);
		m6->psrc = f->sport ? 0xffff : 0;
		h6->pdst = htons(f->dport);
		m6->pdst = f->dport ? 0xffff : 0;
	} else {
		h4 = &fs->h_u.tcp_ip4_spec;
		m4 = &fs->m_u.tcp_ip4_spec;
		fs->flow_type = TCP_V4_FLOW;
		spec_addr(&h4->ip4src, &m4->ip4src, f->src, f->has_src, 1);
		spec_addr(&h4->ip4dst, &m4->ip4dst, f->dst, f->has_dst, 1);
		h4->psrc = htons(f->sport);
		m4->psrc = f->sport ? 0xffff : 0;
		h4->pdst = htons(f->dport);
		m4->pdst = f->dport ? 0xffff : 0;
	}
	if (ctx)
		fs->flow_type |= FLOW_RSS;
	err = ethtool_ioctl(ifname, &nfc);
	return err ? err : (int)fs->location;
}

/* A rule to @queue, or with @ctx into that RSS context, @queue its offset */
static int flow_insert(const char *ifname, const char *src, const char *dst,
		       uint16_t dport, int queue, uint32_t ctx)
{
	struct netcfg_flow f = { .dport = dport };
	int err = 0;

	if ((dst && strchr(dst, ':')) || (src && strchr(src, ':')))
		f.family = AF_INET6;
	if (src)
		err = netcfg_flow_parse_addr(&f, src, false);
	if (!err && dst)
		err = netcfg_flow_parse_addr(&f, dst, true);
	if (err)
		return -EINVAL;
	if (!f.family)
		f.family = AF_INET;
	return ethtool_flow_insert(ifname, &f, queue, ctx);
}

int ethtool_flow_add(const char *ifname, const char *src, const char *dst,
		     uint16_t dport, int queue)
{
	return flow_insert(ifname, src, dst, dport, queue, 0);
}

int ethtool_flow_add_rss(const char *ifname, const char *src, const char *dst,
			 uint16_t dport, uint32_t ctx)
{
	return flow_insert(ifname, src, dst, dport, 0, ctx);
}

int ethtool_flow_del(const char *ifname, int location)
{
	struct ethtool_rxnfc nfc = { .cmd = ETHTOOL_SRXCLSRLDEL };

	nfc.fs.location = location;
	return ethtool_ioctl(ifname, &nfc);
}

/* @rule from a TCP flow spec; false for anything else */
static bool rule_from_spec(struct netcfg_rule *rule,
			   const struct ethtool_rxnfc *nfc)
{
	const struct ethtool_rx_flow_spec *fs = &nfc->fs;
	const struct ethtool_tcpip6_spec *h6, *m6;
	const struct ethtool_tcpip4_spec *h4, *m4;
	struct netcfg_flow *f = &rule->flow;
	uint8_t zero[16] = {};

	memset(rule, 0, sizeof(*rule));
	rule->location = fs->location;
	rule->to_ctx = fs->flow_type & FLOW_RSS;
	rule->ctx = nfc->rss_context;
	rule->queue = fs->ring_cookie == RX_CLS_FLOW_DISC ? -1 :
		      (int64_t)ethtool_get_flow_spec_ring(fs->ring_cookie);
	switch (fs->flow_type & ~(FLOW_EXT | FLOW_MAC_EXT | FLOW_RSS)) {
	case TCP_V4_FLOW:
		h4 = &fs->h_u.tcp_ip4_spec;
		m4 = &fs->m_u.tcp_ip4_spec;
		f->family = AF_INET;
		f->has_src = m4->ip4src;
		f->has_dst = m4->ip4dst;
		memcpy(f->src, &h4->ip4src, 4);
		memcpy(f->dst, &h4->ip4dst, 4);
		f->sport = m4->psrc ? ntohs(h4->psrc) : 0;
		f->dport = m4->pdst ? ntohs(h4->pdst) : 0;
		return true;
	case TCP_V6_FLOW:
		h6 = &fs->h_u.tcp_ip6_spec;
		m6 = &fs->m_u.tcp_ip6_spec;
		f->family = AF_INET6;
		f->has_src = memcmp(m6->ip6src, zero, 16);
		f->has_dst = memcmp(m6->ip6dst, zero, 16);
		memcpy(f->src, h6->ip6src, 16);
		memcpy(f->dst, h6->ip6dst, 16);
		f->sport = m6->psrc ? ntohs(h6->psrc) : 0;
		f->dport = m6->pdst ? ntohs(h6->pdst) : 0;
		return true;
	}
	return false;
}

int ethtool_flow_rules(const char *ifname, struct netcfg_rule **rules)
{
	struct ethtool_rxnfc cnt = { .cmd = ETHTOOL_GRXCLSRLCNT };
	struct ethtool_rxnfc *all;
	uint32_t i, n;
	int err, got = 0;

	*rules = NULL;
	err = ethtool_ioctl(ifname, &cnt);
	if (err)
		return err;
	n = cnt.rule_cnt;
	all = calloc(1, sizeof(*all) + (n + 1) * sizeof(uint32_t));
	*rules = calloc(n + 1, sizeof(**rules));
	if (!all || !*rules) {
		err = -ENOMEM;
		goto out;
	}
	all->cmd = ETHTOOL_GRXCLSRLALL;
	all->rule_cnt = n;
	err = n ? ethtool_ioctl(ifname, all) : 0;
	for (i = 0; !err && i < all->rule_cnt; i++) {
		struct ethtool_rxnfc one = { .cmd = ETHTOOL_GRXCLSRULE };

		one.fs.location = all->rule_locs[i];
		err = ethtool_ioctl(ifname, &one);
		if (!err && rule_from_spec(&(*rules)[got], &one))
			got++;
	}
out:
	free(all);
	if (err) {
		free(*rules);
		*rules = NULL;
	}
	return err ? err : got;
}

int ethtool_ntuple_get(const char *ifname)
{
	struct ethtool_value v = { .cmd = ETHTOOL_GFLAGS };
	int err;

	err = ethtool_ioctl(ifname, &v);
	return err ? err : !!(v.data & ETH_FLAG_NTUPLE);
}

int ethtool_rss_table_set(const char *ifname, const uint32_t *table, int n)
{
	struct ethtool_rxfh_indir *set;
	int err;

	set = calloc(1, sizeof(*set) + n * sizeof(set->ring_index[0]));
	if (!set)
		return -ENOMEM;
	set->cmd = ETHTOOL_SRXFHINDIR;
	set->size = n;
	memcpy(set->ring_index, table, n * sizeof(uint32_t));
	err = ethtool_ioctl(ifname, set);
	free(set);
	return err;
}

/*
 * The device's statistics (ETH_SS_STATS): @names gets ETH_GSTRING_LEN
 * bytes per name, @vals one value each; both malloc()ed. Returns how many.
 */
int ethtool_stats(const char *ifname, char **names, uint64_t **vals)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} info = { .hdr = { .cmd = ETHTOOL_GSSET_INFO,
			    .sset_mask = 1ULL << ETH_SS_STATS } };
	struct ethtool_gstrings *gs;
	struct ethtool_stats *st;
	uint32_t n;
	int err;

	err = ethtool_ioctl(ifname, &info);
	if (err)
		return err;
	n = info.len;
	gs = calloc(1, sizeof(*gs) + n * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + n * sizeof(st->data[0]));
	err = gs && st ? 0 : -ENOMEM;
	if (!err) {
		gs->cmd = ETHTOOL_GSTRINGS;
		gs->string_set = ETH_SS_STATS;
		gs->len = n;
		st->cmd = ETHTOOL_GSTATS;
		st->n_stats = n;
		err = ethtool_ioctl(ifname, gs) ?: ethtool_ioctl(ifname, st);
	}
	if (!err) {
		*names = malloc(n * ETH_GSTRING_LEN);
		*vals = malloc(n * sizeof(uint64_t));
		if (*names && *vals) {
			memcpy(*names, gs->data, n * ETH_GSTRING_LEN);
			memcpy(*vals, st->data, n * sizeof(uint64_t));
		} else {
			free(*names);
			free(*vals);
			err = -ENOMEM;
		}
	}
	free(gs);
	free(st);
	return err ? err : (int)n;
}

int64_t ethtool_stat(const char *ifname, const char *name)
{
	int64_t ret = -ENOENT;
	uint64_t *vals;
	char *names;
	int i, n;

	n = ethtool_stats(ifname, &names, &vals);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (!strncmp(names + i * ETH_GSTRING_LEN, name,
			     ETH_GSTRING_LEN)) {
			ret = vals[i];
			break;
		}
	}
	free(names);
	free(vals);
	return ret;
}
