// SPDX-License-Identifier: GPL-2.0
/*
 * devmem_rx - the smallest complete devmem TCP receiver.
 *
 * It shows, in order, everything an application does to have TCP payload
 * land in device memory instead of host memory:
 *
 *   1. get a dmabuf (here a udmabuf: host pages that stand in for GPU
 *      memory; with a GPU, the GPU driver exports the dmabuf instead),
 *   2. bind the dmabuf to one RX queue of the NIC (netdev netlink family,
 *      bind-rx); the binding lives as long as the netlink socket,
 *   3. accept one TCP connection that the NIC steers to that queue,
 *   4. receive with recvmsg(MSG_SOCK_DEVMEM): payload stays in the dmabuf,
 *      each control message names one fragment (offset, size, token),
 *   5. read the fragment through the dmabuf (a GPU would consume it in
 *      place), and
 *   6. give the fragments back with setsockopt(SO_DEVMEM_DONTNEED), so the
 *      NIC can fill them again.
 *
 * The NIC must already split headers from payload and steer the flow to
 * the bound queue, for example:
 *
 *   ethtool -G eth1 tcp-data-split on
 *   ethtool -N eth1 flow-type tcp4 dst-port 5201 action 3
 *   ethtool -X eth1 equal 3
 *   ./devmem_rx -i eth1 -q 3 -p 5201 > received.bin
 *
 * The payload received is written to stdout, a summary to stderr.
 * Build: make (see Makefile; needs the devmem uapi headers and libmnl).
 */
#define _GNU_SOURCE		/* memfd_create() */
#include <stddef.h>
/* struct dmabuf_cmsg/dmabuf_token; its struct iovec is the one libc uses */
#include <linux/uio.h>
#define __iovec_defined 1
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/dma-buf.h>
#include <linux/genetlink.h>
#include <linux/netdev.h>
#include <linux/udmabuf.h>
#include <libmnl/libmnl.h>

/* MSG_SOCK_DEVMEM is not in the uapi headers (nor upstream). */
#ifndef MSG_SOCK_DEVMEM
#define MSG_SOCK_DEVMEM		0x2000000
#endif

#define DMABUF_SIZE		(64UL << 20)
/* Fragments handled per recvmsg() call: one cmsg and at most one token each. */
#define MAX_FRAGS		128

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/*
 * Step 1: a udmabuf. udmabuf wraps the pages of a memfd; it wants the
 * memfd sealed against shrinking so the pages cannot go away under it.
 */
static int create_udmabuf(size_t size)
{
	struct udmabuf_create create = { .size = size };
	int memfd, devfd, dmabuf;

	memfd = memfd_create("devmem_rx", MFD_ALLOW_SEALING);
	if (memfd < 0)
		die("memfd_create");
	if (ftruncate(memfd, size) || fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK))
		die("memfd size/seal");

	devfd = open("/dev/udmabuf", O_RDWR);
	if (devfd < 0)
		die("/dev/udmabuf");
	create.memfd = memfd;
	dmabuf = ioctl(devfd, UDMABUF_CREATE, &create);
	if (dmabuf < 0)
		die("UDMABUF_CREATE");

	/* The dmabuf holds its own references to the pages. */
	close(devfd);
	close(memfd);
	return dmabuf;
}

/* Send @nlh on @nl and run @cb on the reply; returns -1 with errno set. */
static int nl_talk(struct mnl_socket *nl, struct nlmsghdr *nlh,
		   mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int portid = mnl_socket_get_portid(nl);
	int len, ret;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0)
			return -1;
		/* An error reply sets errno and returns MNL_CB_ERROR. */
		ret = mnl_cb_run(buf, len, nlh->nlmsg_seq, portid, cb, data);
	} while (ret > MNL_CB_STOP);
	return ret < 0 ? -1 : 0;
}

static struct nlmsghdr *genl_msg(char *buf, __u16 family, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = 1;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = 1;
	return nlh;
}

/* One integer attribute to pull out of a genl reply. */
struct attr_want {
	__u16 type;
	__u32 value;
	int found;
};

static int attr_cb(const struct nlattr *attr, void *data)
{
	struct attr_want *want = data;

	if (mnl_attr_get_type(attr) == want->type &&
	    mnl_attr_get_payload_len(attr) >= sizeof(__u16)) {
		/* CTRL_ATTR_FAMILY_ID is a u16, NETDEV_A_DMABUF_ID a u32 */
		want->value = mnl_attr_get_payload_len(attr) == 2 ?
			      mnl_attr_get_u16(attr) : mnl_attr_get_u32(attr);
		want->found = 1;
	}
	return MNL_CB_OK;
}

static int reply_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attr_cb, data);
}

/*
 * Step 2: bind the dmabuf to RX queue @queue of @ifindex. The kernel
 * answers with the binding's id, which every received fragment carries.
 * The binding (and the queue's use of the dmabuf) ends when @nl closes.
 */
static __u32 bind_rx(struct mnl_socket *nl, int ifindex, int queue,
		     int dmabuf)
{
	struct attr_want want = { .type = CTRL_ATTR_FAMILY_ID };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	/* The netdev family's id is dynamic: ask the genl controller. */
	nlh = genl_msg(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, NETDEV_FAMILY_NAME);
	if (nl_talk(nl, nlh, reply_cb, &want) || !want.found)
		die("netdev genl family (kernel without devmem TCP?)");

	nlh = genl_msg(buf, want.value, NETDEV_CMD_BIND_RX);
	mnl_attr_put_u32(nlh, NETDEV_A_DMABUF_IFINDEX, ifindex);
	mnl_attr_put_u32(nlh, NETDEV_A_DMABUF_FD, dmabuf);
	/* One nest per queue; we bind a single RX queue. */
	nest = mnl_attr_nest_start(nlh, NETDEV_A_DMABUF_QUEUES);
	mnl_attr_put_u32(nlh, NETDEV_A_QUEUE_ID, queue);
	mnl_attr_put_u32(nlh, NETDEV_A_QUEUE_TYPE, NETDEV_QUEUE_TYPE_RX);
	mnl_attr_nest_end(nlh, nest);

	want = (struct attr_want){ .type = NETDEV_A_DMABUF_ID };
	if (nl_talk(nl, nlh, reply_cb, &want) || !want.found)
		die("bind-rx (header split on? queue exists? root?)");
	return want.value;
}

/* Step 3: one TCP connection on @port (IPv6 socket, IPv4 mapped too). */
static int accept_one(int port)
{
	struct sockaddr_in6 addr = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	int one = 1, lfd, fd;

	lfd = socket(AF_INET6, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 1))
		die("bind/listen");
	fprintf(stderr, "listening on port %d\n", port);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	close(lfd);
	return fd;
}

/*
 * Step 5: a fragment is @size bytes at @offset in the dmabuf. CPU access
 * to a dmabuf is bracketed by DMA_BUF_IOCTL_SYNC so the exporter can
 * make the device's writes visible.
 */
static void consume_frag(int dmabuf, const char *map, __u64 offset,
			 __u32 size)
{
	struct dma_buf_sync sync = {
		.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ,
	};

	ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
	if (fwrite(map + offset, 1, size, stdout) != size)
		die("write payload");
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
	ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
}

int main(int argc, char **argv)
{
	unsigned long long devmem_bytes = 0, linear_bytes = 0, frags = 0;
	int ifindex = 0, queue = -1, port = 5201, dmabuf, fd, opt;
	struct dmabuf_token tokens[MAX_FRAGS];
	struct mnl_socket *nl;
	__u32 binding_id;
	char linear[65536];
	char *map;

	while ((opt = getopt(argc, argv, "i:q:p:")) != -1) {
		switch (opt) {
		case 'i':
			ifindex = if_nametoindex(optarg);
			break;
		case 'q':
			queue = atoi(optarg);
			break;
		case 'p':
			port = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (!ifindex || queue < 0)
		goto usage;

	dmabuf = create_udmabuf(DMABUF_SIZE);
	/* Our window on the dmabuf for step 5 (a GPU would not need one). */
	map = mmap(NULL, DMABUF_SIZE, PROT_READ, MAP_SHARED, dmabuf, 0);
	if (map == MAP_FAILED)
		die("mmap dmabuf");

	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID))
		die("netlink socket");
	binding_id = bind_rx(nl, ifindex, queue, dmabuf);
	fprintf(stderr, "dmabuf bound to queue %d, binding id %u\n",
		queue, binding_id);

	fd = accept_one(port);

	for (;;) {
		/* Room for one control message per fragment. */
		char ctrl[CMSG_SPACE(sizeof(struct dmabuf_cmsg)) * MAX_FRAGS];
		struct iovec iov = { linear, sizeof(linear) };
		struct msghdr msg = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = ctrl,
			.msg_controllen = sizeof(ctrl),
		};
		struct dmabuf_cmsg *frag;
		struct cmsghdr *cm;
		int ntokens = 0;
		ssize_t ret;

		/* Step 4. */
		ret = recvmsg(fd, &msg, MSG_SOCK_DEVMEM);
		if (ret < 0)
			die("recvmsg(MSG_SOCK_DEVMEM)");
		if (ret == 0)
			break;		/* the peer closed the connection */

		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			if (cm->cmsg_level != SOL_SOCKET)
				continue;
			frag = (struct dmabuf_cmsg *)CMSG_DATA(cm);

			if (cm->cmsg_type == SCM_DEVMEM_LINEAR) {
				/*
				 * Bytes that arrived in host memory (no split
				 * for this packet): they are in @linear, in
				 * stream order with the fragments around them.
				 */
				fwrite(linear, 1, frag->frag_size, stdout);
				linear_bytes += frag->frag_size;
				continue;
			}
			if (cm->cmsg_type != SCM_DEVMEM_DMABUF)
				continue;

			/* Step 5: payload in the dmabuf. */
			consume_frag(dmabuf, map, frag->frag_offset,
				     frag->frag_size);
			devmem_bytes += frag->frag_size;
			frags++;

			/*
			 * Step 6: collect the token; tokens handed out one
			 * after another are merged into one range.
			 */
			if (ntokens && frag->frag_token ==
			    tokens[ntokens - 1].token_start +
			    tokens[ntokens - 1].token_count) {
				tokens[ntokens - 1].token_count++;
			} else {
				tokens[ntokens].token_start = frag->frag_token;
				tokens[ntokens].token_count = 1;
				ntokens++;
			}
		}
		if (msg.msg_flags & MSG_CTRUNC)
			fprintf(stderr, "warning: control messages truncated\n");

		/* Step 6: give the fragments back to the NIC. */
		if (ntokens && setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED,
					  tokens, ntokens * sizeof(tokens[0])) < 0)
			die("SO_DEVMEM_DONTNEED");
	}
	fflush(stdout);

	fprintf(stderr, "received %llu bytes: %llu in device memory (%llu frags), %llu linear\n",
		devmem_bytes + linear_bytes, devmem_bytes, frags, linear_bytes);

	/* Closing the TCP socket frees tokens we still hold (none here). */
	close(fd);
	/* Closing the netlink socket unbinds: the queue refills from host memory. */
	mnl_socket_close(nl);
	munmap(map, DMABUF_SIZE);
	close(dmabuf);
	return 0;

usage:
	fprintf(stderr, "usage: %s -i IFNAME -q QUEUE [-p PORT] > payload\n",
		argv[0]);
	return 2;
}
