// SPDX-License-Identifier: GPL-2.0
/*
 * hds IFNAME on|off|auto [THRESH]: set tcp-data-split, and hds-thresh if
 * given, over ethtool netlink, which Debian's ethtool 6.1 cannot do.
 * hds IFNAME show: print "tcp-data-split S hds-thresh T hds-thresh-max M"
 * as the kernel reports them. Exits 0, or 1 with the kernel's errno and
 * extack message on stderr.
 */
#include <errno.h>
#include <stdbool.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <libmnl/libmnl.h>

static int ack_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;

	if (!err->error)
		return MNL_CB_STOP;
	errno = -err->error;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_for_each(attr, nlh, sizeof(*err))
			if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG)
				fprintf(stderr, "%s\n", mnl_attr_get_str(attr));
	return MNL_CB_ERROR;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID)
			*(uint16_t *)data = mnl_attr_get_u16(attr);
	return MNL_CB_OK;
}

static int rings_cb(const struct nlmsghdr *nlh, void *data)
{
	long *v = data;	/* split, thresh, max; -1 if not reported */
	const struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(attr)) {
		case ETHTOOL_A_RINGS_TCP_DATA_SPLIT:
			v[0] = mnl_attr_get_u8(attr);
			break;
		case ETHTOOL_A_RINGS_HDS_THRESH:
			v[1] = mnl_attr_get_u32(attr);
			break;
		case ETHTOOL_A_RINGS_HDS_THRESH_MAX:
			v[2] = mnl_attr_get_u32(attr);
			break;
		}
	}
	return MNL_CB_OK;
}

/* Send @nlh, run @cb on the reply: 0 or -errno. */
static int request(struct mnl_socket *sock, struct nlmsghdr *nlh,
		   mnl_cb_t cb, void *data)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = ack_cb };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int ret;

	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = time(NULL);
	if (mnl_socket_sendto(sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		ret = mnl_socket_recvfrom(sock, buf, sizeof(buf));
		if (ret > 0)
			ret = mnl_cb_run2(buf, ret, nlh->nlmsg_seq,
					  mnl_socket_get_portid(sock), cb, data,
					  ctl, NLMSG_MIN_TYPE);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

static struct nlmsghdr *genl_msg(char *buf, uint16_t type, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = 1;
	return nlh;
}

static int mode_of(const char *arg)
{
	if (!strcmp(arg, "on"))
		return ETHTOOL_TCP_DATA_SPLIT_ENABLED;
	if (!strcmp(arg, "off"))
		return ETHTOOL_TCP_DATA_SPLIT_DISABLED;
	if (!strcmp(arg, "auto"))
		return ETHTOOL_TCP_DATA_SPLIT_UNKNOWN;
	return -1;
}

int main(int argc, char **argv)
{
	bool show = argc == 3 && !strcmp(argv[2], "show");
	char buf[MNL_SOCKET_BUFFER_SIZE];
	long v[3] = { -1, -1, -1 };
	struct mnl_socket *sock;
	struct nlmsghdr *nlh;
	uint16_t family = 0;
	struct nlattr *nest;
	unsigned int ifindex;
	int err, mode = -1, one = 1;

	if (argc == 3 || argc == 4)
		mode = mode_of(argv[2]);
	if (!show && mode < 0) {
		fprintf(stderr, "usage: %s IFNAME on|off|auto [HDS_THRESH]\n"
			"       %s IFNAME show\n", argv[0], argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	sock = mnl_socket_open(NETLINK_GENERIC);
	/* extack messages in the replies, after a capped copy of the request */
	if (sock) {
		mnl_socket_setsockopt(sock, NETLINK_EXT_ACK, &one, sizeof(one));
		mnl_socket_setsockopt(sock, NETLINK_CAP_ACK, &one, sizeof(one));
	}
	if (!ifindex || !sock || mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID)) {
		perror(argv[1]);
		return 1;
	}
	nlh = genl_msg(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
	err = request(sock, nlh, family_cb, &family);
	if (!err) {
		nlh = genl_msg(buf, family, show ? ETHTOOL_MSG_RINGS_GET :
						   ETHTOOL_MSG_RINGS_SET);
		nest = mnl_attr_nest_start(nlh, ETHTOOL_A_RINGS_HEADER);
		mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, ifindex);
		mnl_attr_nest_end(nlh, nest);
		if (!show)
			mnl_attr_put_u8(nlh, ETHTOOL_A_RINGS_TCP_DATA_SPLIT,
					mode);
		if (argc == 4)
			mnl_attr_put_u32(nlh, ETHTOOL_A_RINGS_HDS_THRESH,
					 strtoul(argv[3], NULL, 0));
		err = request(sock, nlh, show ? rings_cb : NULL, v);
	}
	mnl_socket_close(sock);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", argv[1], argv[2],
			strerror(-err));
		return 1;
	}
	if (show)
		printf("tcp-data-split %ld hds-thresh %ld hds-thresh-max %ld\n",
		       v[0], v[1], v[2]);
	return 0;
}
