// SPDX-License-Identifier: GPL-2.0
/*
 * hds IFNAME on|off: set tcp-data-split over ethtool netlink, which
 * Debian's ethtool 6.1 cannot do. Exits 0, or 1 with the kernel's errno
 * and extack message on stderr.
 */
#include <errno.h>
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

int main(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *sock;
	struct nlmsghdr *nlh;
	uint16_t family = 0;
	struct nlattr *nest;
	unsigned int ifindex;
	int err;

	if (argc != 3 || (strcmp(argv[2], "on") && strcmp(argv[2], "off"))) {
		fprintf(stderr, "usage: %s IFNAME on|off\n", argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	sock = mnl_socket_open(NETLINK_GENERIC);
	if (!ifindex || !sock || mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID)) {
		perror(argv[1]);
		return 1;
	}
	nlh = genl_msg(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
	err = request(sock, nlh, family_cb, &family);
	if (!err) {
		nlh = genl_msg(buf, family, ETHTOOL_MSG_RINGS_SET);
		nest = mnl_attr_nest_start(nlh, ETHTOOL_A_RINGS_HEADER);
		mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, ifindex);
		mnl_attr_nest_end(nlh, nest);
		mnl_attr_put_u8(nlh, ETHTOOL_A_RINGS_TCP_DATA_SPLIT,
				strcmp(argv[2], "on") ?
				ETHTOOL_TCP_DATA_SPLIT_DISABLED :
				ETHTOOL_TCP_DATA_SPLIT_ENABLED);
		err = request(sock, nlh, NULL, NULL);
	}
	mnl_socket_close(sock);
	if (err)
		fprintf(stderr, "%s: tcp-data-split %s: %s\n", argv[1], argv[2],
			strerror(-err));
	return !!err;
}
