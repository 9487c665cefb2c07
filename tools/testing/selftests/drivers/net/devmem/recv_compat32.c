// SPDX-License-Identifier: GPL-2.0
/*
 * recvmsg(MSG_SOCK_DEVMEM) and SO_DEVMEM_DONTNEED from a 32-bit process:
 * built with -m32, run by recv's compat test on a connected socket it
 * inherits. One receive, its fragments printed one per line
 * ("frag <offset> <size> <token> <dmabuf id>"), then every token given
 * back ("freed <n>"). A control message whose header is not the 32-bit
 * one is reported as "badcmsg <len>".
 */
#include <linux/uio.h>
#define __iovec_defined 1

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#ifndef MSG_SOCK_DEVMEM
#define MSG_SOCK_DEVMEM		0x2000000
#endif

#define MAX_FRAGS		128	/* ranges DONTNEED takes in one call */

static char data[64 << 10];
static char ctrl[MAX_FRAGS * CMSG_SPACE(sizeof(struct dmabuf_cmsg))];

int main(int argc, char **argv)
{
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctrl,
		.msg_controllen = sizeof(ctrl),
	};
	struct dmabuf_token tokens[MAX_FRAGS];
	struct cmsghdr *cm;
	int fd, n = 0, freed;
	ssize_t ret;

	if (argc != 2 || sizeof(long) != 4) {
		fprintf(stderr, "usage: %s <fd> (a 32-bit build)\n", argv[0]);
		return 2;
	}
	fd = atoi(argv[1]);

	ret = recvmsg(fd, &msg, MSG_SOCK_DEVMEM);
	printf("ret %zd %d\n", ret, ret < 0 ? errno : 0);
	if (ret < 0)
		return 0;

	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		struct dmabuf_cmsg f;

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_DEVMEM_DMABUF)
			continue;
		if (cm->cmsg_len != CMSG_LEN(sizeof(f))) {
			printf("badcmsg %u\n", (unsigned int)cm->cmsg_len);
			continue;
		}
		memcpy(&f, CMSG_DATA(cm), sizeof(f));
		printf("frag %llu %u %u %u\n",
		       (unsigned long long)f.frag_offset, f.frag_size,
		       f.frag_token, f.dmabuf_id);
		if (n < MAX_FRAGS) {
			tokens[n].token_start = f.frag_token;
			tokens[n].token_count = 1;
			n++;
		}
	}

	freed = setsockopt(fd, SOL_SOCKET, SO_DEVMEM_DONTNEED, tokens,
			   n * sizeof(tokens[0]));
	printf("freed %d %d\n", freed, freed < 0 ? errno : 0);
	return 0;
}
