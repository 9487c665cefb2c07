// SPDX-License-Identifier: GPL-2.0
/*
 * The remote-peer fuzzer: peer_fuzz.py, installed beside this program,
 * plays the TCP peer of several connections into the bound queue and
 * sends what networks carry and attackers craft; this program reads them
 * all with MSG_SOCK_DEVMEM, every byte checked. See peer_lib.h for the
 * environment.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../../kselftest_harness.h"
#include "devmem_fixture.h"
#include "devmem_lib.h"
#include "netcfg.h"
#include "peer_lib.h"
#include "peer_fixture.h"

/* connections, each through every case: PEER_FUZZ_ROUNDS, at most
 * FUZZ_CONNS (the debug kernel's run takes 2)
 */
#define FUZZ_ROUNDS_DEFAULT	4
#define FUZZ_CONNS		16

static int fuzz_rounds(void)
{
	unsigned int n = env_uint("PEER_FUZZ_ROUNDS", FUZZ_ROUNDS_DEFAULT);

	return n >= 1 && n <= FUZZ_CONNS ? n : FUZZ_ROUNDS_DEFAULT;
}

/* The script's own directory: it is installed beside this test. */
static void fuzz_script(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 32);
	char *slash;

	path[n > 0 ? n : 0] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "peer_fuzz.py");
}

static pid_t fuzzer_fork(const struct devmem_env *env, int out)
{
	char script[512], port[16], rounds[16];
	pid_t pid;

	fuzz_script(script, sizeof(script));
	pid = fork();
	if (pid)
		return pid;
	dup2(out, 1);
	close_range(3, ~0U, 0);
	if (netns_enter(env->ns) < 0)
		_exit(2);
	snprintf(port, sizeof(port), "%d", PORT_DEVMEM);
	snprintf(rounds, sizeof(rounds), "%d", fuzz_rounds());
	/* Debian's interpreter, which python3-scapy is installed for: a
	 * python3 found first in PATH (pyenv, a venv) may lack scapy
	 */
	execl("/usr/bin/python3", "python3", script, env->rx_addr, port,
	      TX_ADDR, rounds, (char *)NULL);
	_exit(127);
}

/* Read the script's report lines from @f into the totals. */
static void fuzz_report(FILE *f, struct peer_conn *conns, int nconn,
			struct __test_metadata *_metadata)
{
	int port, icmp = -1, stale = -1, sent = -1, nrep = 0, i;
	char line[256];
	long acked;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "conn %d %ld", &port, &acked) == 2) {
			nrep++;
			for (i = 0; i < nconn && conns[i].port != port; i++)
				;
			EXPECT_LT(i, nconn) TH_LOG("port %d never accepted", port);
			if (i == nconn)
				continue;
			EXPECT_EQ(acked, (long)conns[i].off)
				TH_LOG("port %d: %ld acknowledged, %llu read",
				       port, acked,
				       (unsigned long long)conns[i].off);
			continue;
		}
		if (sscanf(line, "icmp %d %d", &icmp, &stale) != 2 &&
		    sscanf(line, "sent %d", &sent) != 1)
			TH_LOG("peer_fuzz.py: %s", line);
	}
	EXPECT_EQ(fuzz_rounds(), nrep);
	/* malformed IP options were answered, and nothing quoted is stale */
	EXPECT_GT(icmp, 0);
	EXPECT_EQ(0, stale);
	TH_LOG("%d frames sent, %d ICMP errors back, %d stale", sent, icmp,
	       stale);
}

/*
 * The remote-peer fuzzer (peer_fuzz.py) plays the TCP peer of several
 * connections into the bound queue and sends what networks carry and
 * attackers craft (see the script). The receiver reads every connection
 * with MSG_SOCK_DEVMEM: each accepted byte is the pattern at its offset,
 * each connection ends with the bytes the script saw acknowledged, every
 * token goes back, the ICMP errors quote no stale bytes, and the frames
 * were split into device memory (or this tested only the copy path).
 */
TEST_F_TIMEOUT(peer, remote_fuzzer, 600)
{
	struct peer_conn conns[FUZZ_CONNS] = {};
	uint64_t bytes = 0, devmem = 0, bad = 0;
	struct pollfd pfd[FUZZ_CONNS + 1];
	int out[2], nconn = 0, running = 1, status = -1, idle = 0, i, n;
	char saved[32] = "";
	int64_t split0, split1;
	FILE *rep;
	pid_t pid;

	ASSERT_EQ(0, icmp_ratelimit_off(saved, sizeof(saved)));
	split0 = ethtool_stat(self->env.ifname, "rx3_devmem_payload_bytes");
	ASSERT_GE(split0, 0);

	ASSERT_EQ(0, pipe(out));
	pid = fuzzer_fork(&self->env, out[1]);
	ASSERT_GT(pid, 0);
	close(out[1]);
	rep = fdopen(out[0], "r");
	ASSERT_NE(NULL, rep);

	/* accept and drain until the script is done and every connection
	 * ended (or 2 s more went by); its report waits in the pipe
	 */
	while (running || idle < 10) {
		pfd[0].fd = self->env.lfd;
		pfd[0].events = POLLIN;
		for (i = 0; i < nconn; i++) {
			pfd[i + 1].fd = conns[i].eof ? -1 : conns[i].fd;
			pfd[i + 1].events = POLLIN;
		}
		n = poll(pfd, nconn + 1, 200);
		if (running && n == 0 && waitpid(pid, &status, WNOHANG) == pid)
			running = 0;
		if (!running) {
			for (i = 0; i < nconn && conns[i].eof; i++)
				;
			idle = i == nconn ? 10 : idle + !n;
		}
		if (n > 0 && pfd[0].revents & POLLIN && nconn < FUZZ_CONNS) {
			struct sockaddr_in sa;
			socklen_t len = sizeof(sa);

			conns[nconn].fd = accept(self->env.lfd,
						 (struct sockaddr *)&sa, &len);
			if (conns[nconn].fd >= 0)
				conns[nconn++].port = ntohs(sa.sin_port);
		}
		for (i = 0; n > 0 && i < nconn; i++)
			if (pfd[i + 1].revents)
				peer_conn_read(&self->env, &conns[i]);
	}
	split1 = ethtool_stat(self->env.ifname, "rx3_devmem_payload_bytes");
	write_file(ICMP_RATELIMIT, "%s", saved);

	for (i = 0; i < nconn; i++) {
		bytes += conns[i].off;
		devmem += conns[i].devmem;
		bad += conns[i].bad;
		close(conns[i].fd);
	}
	fuzz_report(rep, conns, nconn, _metadata);
	fclose(rep);
	TH_LOG("%d connections, %llu bytes read (%llu in the dmabuf), %llu bad; %lld bytes split",
	       nconn, (unsigned long long)bytes, (unsigned long long)devmem,
	       (unsigned long long)bad, (long long)(split1 - split0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("peer_fuzz.py: status %#x", status);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(fuzz_rounds(), nconn);
	for (i = 0; i < nconn; i++)
		EXPECT_TRUE(conns[i].eof) TH_LOG("port %d: no end of stream",
						 conns[i].port);
	/* it reached device memory, not only the copy path */
	EXPECT_GT(devmem, 0);
	EXPECT_GT(split1 - split0, 0);
}

TEST_HARNESS_MAIN
