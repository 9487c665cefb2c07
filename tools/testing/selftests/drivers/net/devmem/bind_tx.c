// SPDX-License-Identifier: GPL-2.0
/*
 * bind-tx through the netdev family (NETDEV_CMD_BIND_TX = 15): a dmabuf
 * mapped for a device to send from. Its lifetime (the binding holds the
 * dmabuf until its netlink socket is gone, whatever happens to the
 * device) and every bad input, on an hdsim port, which opts in to netmem
 * TX. A TX binding is on no queue and no page pool, so the dmabuf's own
 * reference count (its fdinfo) shows whether a binding holds it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../../../kselftest_harness.h"
#include "devmem_lib.h"
#include "devmem_nl.h"
#include "netcfg.h"
#include "rtnl_watch.h"

#define DMABUF_SIZE	(8 << 20)
#define NQUEUES		2
#define NO_NETMEM_TX	"Driver does not support netmem TX"

FIXTURE(bind_tx)
{
	struct devmem_nl nl;
	unsigned int dev_id;
	char ifname[IFNAMSIZ];
	int ifindex;
	int dmabuf;
};

FIXTURE_SETUP(bind_tx)
{
	self->dmabuf = -1;
	self->dev_id = 1000 + getpid() % 50000;
	if (access(HDSIM_SYS, F_OK))
		SETUP_SKIP("no hdsim driver (CONFIG_HDSIM)");

	ASSERT_EQ(0, hdsim_new(self->dev_id, NQUEUES));
	self->ifindex = hdsim_port(self->dev_id, 0, self->ifname);
	ASSERT_GT(self->ifindex, 0);
	ASSERT_EQ(0, link_set_up(NULL, self->ifindex));
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
	self->dmabuf = udmabuf_alloc(DMABUF_SIZE, NULL);
	ASSERT_GE(self->dmabuf, 0);
}

FIXTURE_TEARDOWN(bind_tx)
{
	devmem_nl_close(&self->nl);
	if (self->dmabuf >= 0)
		close(self->dmabuf);
	hdsim_del(self->dev_id);
}

/* An e1000e port of this VM, if any: a PCI NIC that opted in to TX. */
static int e1000e_ifindex(void)
{
	char path[128], drv[64];
	struct if_nameindex *ifs, *i;
	int ifindex = 0;
	ssize_t n;

	ifs = if_nameindex();
	for (i = ifs; i && i->if_index && !ifindex; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/net/%s/device/driver", i->if_name);
		n = readlink(path, drv, sizeof(drv) - 1);
		if (n <= 0)
			continue;
		drv[n] = '\0';
		if (!strcmp(strrchr(drv, '/') ? strrchr(drv, '/') + 1 : drv,
			    "e1000e"))
			ifindex = i->if_index;
	}
	if (ifs)
		if_freenameindex(ifs);
	return ifindex;
}

TEST_F(bind_tx, returns_an_id_and_holds_the_dmabuf)
{
	uint32_t id = 0;

	ASSERT_EQ(1, dmabuf_refs(self->dmabuf));
	ASSERT_EQ(0, devmem_bind_tx(&self->nl, self->ifindex, self->dmabuf,
				    &id));
	EXPECT_GT(id, 0);
	EXPECT_EQ(2, dmabuf_refs(self->dmabuf));
	/* no RX queue and no page pool takes part */
	EXPECT_EQ(0, devmem_bindings_live());
}

TEST_F(bind_tx, closing_netlink_socket_releases_the_dmabuf)
{
	struct devmem_nl other;
	uint32_t id = 0;

	ASSERT_EQ(0, devmem_nl_open(&other));
	ASSERT_EQ(0, devmem_bind_tx(&other, self->ifindex, self->dmabuf, &id));
	EXPECT_EQ(2, dmabuf_refs(self->dmabuf));
	devmem_nl_close(&other);
	EXPECT_EQ(1, wait_dmabuf_refs(self->dmabuf, 1));
}

TEST_F(bind_tx, dmabuf_fd_may_close_right_after_bind)
{
	uint32_t id = 0;
	int dup_fd;

	ASSERT_EQ(0, devmem_bind_tx(&self->nl, self->ifindex, self->dmabuf,
				    &id));
	/* the binding's reference outlives the fd it was bound with */
	dup_fd = dup(self->dmabuf);
	ASSERT_GE(dup_fd, 0);
	close(self->dmabuf);
	self->dmabuf = dup_fd;
	EXPECT_EQ(2, dmabuf_refs(self->dmabuf));
	devmem_nl_close(&self->nl);
	EXPECT_EQ(1, wait_dmabuf_refs(self->dmabuf, 1));
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

TEST_F(bind_tx, rx_and_tx_bindings_side_by_side)
{
	struct devmem_queue rxq = { 1, UP_NETDEV_QUEUE_TYPE_RX };
	uint32_t tx_id = 0, tx2_id = 0, rx_id = 0;
	int rx_dmabuf;

	rx_dmabuf = udmabuf_alloc(DMABUF_SIZE, NULL);
	ASSERT_GE(rx_dmabuf, 0);
	ASSERT_EQ(0, ethtool_set_hds(&self->nl, self->ifindex, true));
	ASSERT_EQ(0, devmem_bind_rx(&self->nl, self->ifindex, rx_dmabuf,
				    &rxq, 1, &rx_id));
	ASSERT_EQ(0, devmem_bind_tx(&self->nl, self->ifindex, self->dmabuf,
				    &tx_id));
	/* one dmabuf may be bound for TX twice: two mappings, two ids */
	ASSERT_EQ(0, devmem_bind_tx(&self->nl, self->ifindex, self->dmabuf,
				    &tx2_id));
	EXPECT_NE(rx_id, tx_id);
	EXPECT_NE(tx_id, tx2_id);
	EXPECT_EQ(3, dmabuf_refs(self->dmabuf));
	EXPECT_EQ(1, devmem_bindings_live());

	devmem_nl_close(&self->nl);
	EXPECT_EQ(1, wait_dmabuf_refs(self->dmabuf, 1));
	EXPECT_EQ(0, devmem_wait_bindings(0, 5000));
	EXPECT_EQ(1, wait_dmabuf_refs(rx_dmabuf, 1));
	close(rx_dmabuf);
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

TEST_F(bind_tx, deleting_the_device_then_closing_the_socket)
{
	uint32_t id = 0;

	ASSERT_EQ(0, devmem_bind_tx(&self->nl, self->ifindex, self->dmabuf,
				    &id));
	EXPECT_EQ(1, dmabuf_attachments(self->dmabuf));
	ASSERT_EQ(0, hdsim_del(self->dev_id));
	/* unmapped with the device, held by the binding until the socket
	 * goes
	 */
	EXPECT_EQ(0, dmabuf_attachments(self->dmabuf));
	EXPECT_EQ(2, dmabuf_refs(self->dmabuf));
	devmem_nl_close(&self->nl);
	EXPECT_EQ(1, wait_dmabuf_refs(self->dmabuf, 1));
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

/* What the binding child of the next test saw, shared with the parent. */
struct bind_race {
	int binds;		/* bind-tx that succeeded */
	int gone;		/* the last one failed: ENODEV */
	int gone_while_mapped;	/* found gone after its map */
	int other;		/* any other result: a failure */
	char extack[256];
};

/* bind-tx in a loop until the device is gone. A socket owns at most 256
 * bindings: every 128 it is closed, which unbinds them, and opened anew.
 */
static void bind_until_gone(struct bind_race *r, int ifindex, int dmabuf)
{
	struct devmem_nl nl;
	int err = 0, i;
	uint32_t id;

	while (!err) {
		if (devmem_nl_open(&nl)) {
			snprintf(r->extack, sizeof(r->extack), "open: %d", -errno);
			__atomic_store_n(&r->other, 1, __ATOMIC_RELEASE);
			return;
		}
		for (i = 0; i < 128 && !err; i++) {
			err = devmem_bind_tx(&nl, ifindex, dmabuf, &id);
			if (!err)
				__atomic_add_fetch(&r->binds, 1, __ATOMIC_RELEASE);
		}
		if (err == -ENODEV) {
			r->gone = 1;
			r->gone_while_mapped = !!strstr(nl.extack,
							"while the dmabuf was mapped");
		} else if (err) {
			snprintf(r->extack, sizeof(r->extack), "%d %.200s", err,
				 nl.extack);
			__atomic_store_n(&r->other, 1, __ATOMIC_RELEASE);
		}
		devmem_nl_close(&nl);
	}
}

/*
 * The device deleted while bind-tx maps (without RTNL): a child binds a
 * 32 MiB dmabuf in a loop while the parent deletes the port. Each bind
 * either completes first (the delete then unmaps it) or fails with
 * ENODEV; none leaves the dmabuf attached, or held once the child's
 * socket is gone. Whether a bind was caught between its map and its
 * publication is logged, not required: that window is milliseconds.
 */
TEST_F(bind_tx, deleting_the_device_while_binds_map)
{
	struct bind_race *r;
	int dmabuf, status;
	pid_t pid;

	dmabuf = udmabuf_alloc(32 << 20, NULL);
	ASSERT_GE(dmabuf, 0);
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	memset(r, 0, sizeof(*r));

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		bind_until_gone(r, self->ifindex, dmabuf);
		_exit(0);
	}
	while (__atomic_load_n(&r->binds, __ATOMIC_ACQUIRE) < 3 &&
	       !__atomic_load_n(&r->other, __ATOMIC_ACQUIRE))
		usleep(1000);
	ASSERT_EQ(0, hdsim_del(self->dev_id));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	TH_LOG("%d binds before the delete; the next one failed %s", r->binds,
	       r->gone_while_mapped ? "after its map" : "before its map");
	EXPECT_EQ(0, r->other) TH_LOG("unexpected: %s", r->extack);
	EXPECT_EQ(1, r->gone);
	EXPECT_EQ(0, dmabuf_attachments(dmabuf));
	EXPECT_EQ(1, wait_dmabuf_refs(dmabuf, 1));
	munmap(r, sizeof(*r));
	close(dmabuf);
}

TEST_F(bind_tx, rejects_driver_without_netmem_tx)
{
	/* loopback: no DMA, no opt-in */
	EXPECT_EQ(-EOPNOTSUPP, devmem_bind_tx(&self->nl, 1, self->dmabuf,
					      NULL));
	EXPECT_STREQ(NO_NETMEM_TX, self->nl.extack);
	EXPECT_EQ(1, dmabuf_refs(self->dmabuf));
}

TEST_F(bind_tx, binds_e1000e)
{
	int ifindex = e1000e_ifindex();
	uint32_t id = 0;

	if (!ifindex)
		SKIP(return, "no e1000e port in this machine");
	/* a PCI NIC that opted in: mapped for its device, freed at close */
	ASSERT_EQ(0, devmem_bind_tx(&self->nl, ifindex, self->dmabuf, &id));
	EXPECT_NE(0, id);
	EXPECT_EQ(2, dmabuf_refs(self->dmabuf));
	devmem_nl_close(&self->nl);
	EXPECT_EQ(1, wait_dmabuf_refs(self->dmabuf, 1));
	ASSERT_EQ(0, devmem_nl_open(&self->nl));
}

TEST_F(bind_tx, rejects_missing_attributes)
{
	EXPECT_EQ(-EINVAL, devmem_bind_rx_raw(&self->nl, BIND_TX | BIND_FD,
					      self->ifindex, self->dmabuf,
					      NULL, 0, NULL));
	EXPECT_EQ(UP_NETDEV_A_DMABUF_IFINDEX, self->nl.miss_type);
	EXPECT_EQ(-EINVAL, devmem_bind_rx_raw(&self->nl, BIND_TX | BIND_IFINDEX,
					      self->ifindex, self->dmabuf,
					      NULL, 0, NULL));
	EXPECT_EQ(UP_NETDEV_A_DMABUF_FD, self->nl.miss_type);
	EXPECT_EQ(1, dmabuf_refs(self->dmabuf));
}

/* queues and rx-page-size belong to bind-rx: the policy refuses them */
TEST_F(bind_tx, rejects_rx_attributes)
{
	const unsigned int all = BIND_TX | BIND_IFINDEX | BIND_FD;
	struct devmem_queue q = { 0, UP_NETDEV_QUEUE_TYPE_TX };

	EXPECT_EQ(-EINVAL, devmem_bind_rx_raw(&self->nl, all | BIND_QUEUES,
					      self->ifindex, self->dmabuf,
					      &q, 1, NULL));
	EXPECT_NE('\0', self->nl.extack[0]);
	self->nl.rx_page_size = 4096;
	EXPECT_EQ(-EINVAL, devmem_bind_rx_raw(&self->nl, all, self->ifindex,
					      self->dmabuf, NULL, 0, NULL));
	EXPECT_NE('\0', self->nl.extack[0]);
	self->nl.rx_page_size = 0;
	EXPECT_EQ(1, dmabuf_refs(self->dmabuf));
}

TEST_F(bind_tx, rejects_unknown_ifindex)
{
	EXPECT_EQ(-ENODEV, devmem_bind_tx(&self->nl, 0x7ffffff0, self->dmabuf,
					  NULL));
}

TEST_F(bind_tx, rejects_closed_fd)
{
	EXPECT_EQ(-EBADF, devmem_bind_tx(&self->nl, self->ifindex, 100000,
					 NULL));
	EXPECT_STREQ("fd is not a dmabuf", self->nl.extack);
}

TEST_F(bind_tx, rejects_fd_that_is_not_a_dmabuf)
{
	int fd = memfd_create("not-a-dmabuf", 0);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(-EINVAL, devmem_bind_tx(&self->nl, self->ifindex, fd, NULL));
	EXPECT_STREQ("fd is not a dmabuf", self->nl.extack);
	close(fd);
}

struct unpriv_tx {
	int ifindex;
	int dmabuf;
};

static int unpriv_bind_tx(struct devmem_nl *nl, void *arg)
{
	const struct unpriv_tx *b = arg;

	return devmem_bind_tx(nl, b->ifindex, b->dmabuf, NULL);
}

/*
 * bind-tx carries no permission flag, as upstream: the caller brings its
 * own dmabuf, and the device must have opted in to netmem TX. An
 * unprivileged process binds; its binding goes with its socket.
 */
TEST_F(bind_tx, needs_no_capability)
{
	struct unpriv_tx b = { self->ifindex, self->dmabuf };

	EXPECT_EQ(0, devmem_nl_as_nobody(unpriv_bind_tx, &b, false));
	/* the binding's dmabuf reference went with the child's socket */
	EXPECT_EQ(1, wait_dmabuf_refs(self->dmabuf, 1));
}

/* capabilities of a new user namespace only: the same */
TEST_F(bind_tx, needs_no_capability_in_user_namespace)
{
	struct unpriv_tx b = { self->ifindex, self->dmabuf };

	EXPECT_EQ(0, devmem_nl_as_nobody(unpriv_bind_tx, &b, true));
	/* the binding's dmabuf reference went with the child's socket */
	EXPECT_EQ(1, wait_dmabuf_refs(self->dmabuf, 1));
}

/*
 * A netlink socket owns at most 256 bindings: the 257th bind-tx gets
 * ENOSPC with the reason and holds nothing, another socket still binds,
 * and closing the first gives back all 256 of its dmabuf references.
 * There was no bound: one socket could pin and map without end.
 */
TEST_F(bind_tx, a_socket_owns_at_most_256_bindings)
{
	struct devmem_nl many;
	int i, dmabuf;

	dmabuf = udmabuf_alloc(64 << 10, NULL);
	ASSERT_GE(dmabuf, 0);
	ASSERT_EQ(0, devmem_nl_open(&many));
	for (i = 0; i < 256; i++)
		ASSERT_EQ(0, devmem_bind_tx(&many, self->ifindex, dmabuf, NULL));
	EXPECT_EQ(-ENOSPC, devmem_bind_tx(&many, self->ifindex, dmabuf, NULL));
	EXPECT_STREQ("this socket owns the most bindings a socket may (256)",
		     many.extack);
	EXPECT_EQ(257, dmabuf_refs(dmabuf));
	EXPECT_EQ(0, devmem_bind_tx(&self->nl, self->ifindex, dmabuf, NULL));
	devmem_nl_close(&many);
	EXPECT_EQ(2, wait_dmabuf_refs(dmabuf, 2));
	close(dmabuf);
}

#define USER_MAX_BINDINGS	512
#define USER_MAX_MSG		"this user has the most bindings a user may have (512)"
#define USERNS_MAX_MSG		"this user namespace has the most bindings one may have (512)"

/*
 * USER_MAX_BINDINGS bindings of @dmabuf over two sockets, then the next
 * one on a third, refused with @extack's reason; tells @ready and keeps
 * them until @hold closes. 0, or the step that failed.
 */
static int bind_the_most(int ifindex, int dmabuf, int ready, int hold,
			 const char *extack)
{
	struct devmem_nl nl[3];
	int i, err;
	char c;

	for (i = 0; i < 3; i++)
		if (devmem_nl_open(&nl[i]))
			return 2;
	for (i = 0; i < USER_MAX_BINDINGS; i++)
		if (devmem_bind_tx(&nl[i / 256], ifindex, dmabuf, NULL))
			return 4;
	err = devmem_bind_tx(&nl[2], ifindex, dmabuf, NULL);
	if (err != -ENOSPC || strcmp(nl[2].extack, extack))
		return 5;
	/* the bindings hold the dmabuf, not this copy of the fd */
	close(dmabuf);
	if (write(ready, "r", 1) != 1)
		return 6;
	if (read(hold, &c, 1) < 0)
		return 7;
	return 0;
}

/* How a child of userns_binds() gets into a user namespace */
struct userns_bind {
	int ifindex;
	int dmabuf;
	bool nobody;		/* one it makes as nobody, else as root */
	const char *uid_map;	/* which the parent writes meanwhile */
	pid_t join;		/* or: this task's, entered as root */
	const char *extack;	/* the reason an ENOSPC must give */
};

/*
 * In a forked child: get into a user namespace as @u says (one it makes
 * waits on @go while the parent maps uids 0-99 there, as newuidmap does
 * with a user's subordinate range or a container runtime with its own),
 * become uid 5 in it and bind-tx once. bind-tx's errno (ENOSPC only with
 * @u->extack's reason), or 100 + the step that failed.
 */
static int bind_tx_in_user_ns(const struct userns_bind *u, int ready, int go)
{
	struct devmem_nl nl;
	char path[64], c;
	int fd, err;

	if (u->join) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", u->join);
		fd = open(path, O_RDONLY);
		if (fd < 0 || setns(fd, CLONE_NEWUSER))
			return 101;
	} else if ((u->nobody && setresuid(65534, 65534, 65534)) ||
		   unshare(CLONE_NEWUSER) || write(ready, "u", 1) != 1 ||
		   read(go, &c, 1) != 1) {
		return 101;
	}
	if (setresuid(5, 5, 5) || getuid() != 5)
		return 102;
	if (devmem_nl_open(&nl))
		return 103;
	err = -devmem_bind_tx(&nl, u->ifindex, u->dmabuf, NULL);
	if (err == ENOSPC && strcmp(nl.extack, u->extack))
		return 104;
	return err;
}

/* bind_tx_in_user_ns() in a child: its result, or -1. */
static int userns_binds(const struct userns_bind *u)
{
	int ready[2], go[2], status = -1;
	char path[64], c;
	pid_t pid;

	if (pipe(ready) || pipe(go))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		_exit(bind_tx_in_user_ns(u, ready[1], go[0]));
	close(ready[1]);
	close(go[0]);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	if (!u->join &&
	    (read(ready[0], &c, 1) != 1 || write_file(path, "%s\n", u->uid_map) ||
	     write(go[1], "g", 1) != 1))
		kill(pid, SIGKILL);
	close(go[1]);
	close(ready[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The 256 bindings of a socket do not bound a user, who may open sockets
 * up to RLIMIT_NOFILE, and each binding holds an attachment, a
 * scatterlist and IOMMU mappings that no memory cgroup is charged for.
 * A user has at most 512 mapped, over all of their sockets: the next is
 * refused with ENOSPC, on a new socket and in a user namespace of their
 * own too, as any uid they map there; another user (root) still binds,
 * and so does the first once their bindings are gone.
 */
TEST_F_TIMEOUT(bind_tx, a_user_has_at_most_512_bindings_over_all_sockets, 180)
{
	struct userns_bind sub = {
		self->ifindex, -1, true, "0 300000 100", 0, USER_MAX_MSG
	};
	struct unpriv_tx b = { self->ifindex, -1 };
	int ready[2], hold[2], dmabuf, status;
	pid_t pid;
	char c;

	dmabuf = udmabuf_alloc(64 << 10, NULL);
	ASSERT_GE(dmabuf, 0);
	b.dmabuf = dmabuf;
	sub.dmabuf = dmabuf;
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(hold));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(ready[0]);
		close(hold[1]);
		_exit(setresuid(65534, 65534, 65534) ? 3 :
		      bind_the_most(self->ifindex, dmabuf, ready[1], hold[0],
				    USER_MAX_MSG));
	}
	close(ready[1]);
	close(hold[0]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(1 + USER_MAX_BINDINGS, dmabuf_refs(dmabuf));

	EXPECT_EQ(-ENOSPC, devmem_nl_as_nobody(unpriv_bind_tx, &b, false));
	EXPECT_EQ(-ENOSPC, devmem_nl_as_nobody(unpriv_bind_tx, &b, true));
	/* another uid, one of nobody's own namespace: still nobody's */
	EXPECT_EQ(ENOSPC, userns_binds(&sub));
	EXPECT_EQ(0, devmem_bind_tx(&self->nl, self->ifindex, dmabuf, NULL));

	close(hold[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the child's step %d failed", WEXITSTATUS(status));
	EXPECT_EQ(2, wait_dmabuf_refs(dmabuf, 2));
	EXPECT_EQ(0, devmem_nl_as_nobody(unpriv_bind_tx, &b, true));
	EXPECT_EQ(0, userns_binds(&sub));
	close(ready[0]);
	close(dmabuf);
}

/*
 * A user namespace that root made, as a container runtime makes one per
 * container, is bounded on its own: its 512 bindings, whichever of its
 * uids made them, do not count against root, nor against any other
 * namespace root made, which still binds. Charged to root, the
 * namespace's owner, one container could take every other container's
 * bindings (and a root daemon's without CAP_SYS_RESOURCE).
 */
TEST_F_TIMEOUT(bind_tx, a_user_namespace_root_made_is_bounded_on_its_own, 180)
{
	struct userns_bind other = {
		self->ifindex, -1, false, "0 500000 100", 0, USERNS_MAX_MSG
	};
	struct userns_bind same = { self->ifindex, -1, false, NULL, 0,
				    USERNS_MAX_MSG };
	int ready[2], go[2], hold[2], dmabuf, status;
	char path[64], c;
	pid_t pid;

	dmabuf = udmabuf_alloc(64 << 10, NULL);
	ASSERT_GE(dmabuf, 0);
	other.dmabuf = dmabuf;
	same.dmabuf = dmabuf;
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(hold));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(ready[0]);
		close(go[1]);
		close(hold[1]);
		if (unshare(CLONE_NEWUSER) || write(ready[1], "u", 1) != 1 ||
		    read(go[0], &c, 1) != 1 || setresuid(0, 0, 0))
			_exit(3);
		_exit(bind_the_most(self->ifindex, dmabuf, ready[1], hold[0],
				    USERNS_MAX_MSG));
	}
	close(ready[1]);
	close(go[0]);
	close(hold[0]);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, write_file(path, "0 400000 100\n"));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(1 + USER_MAX_BINDINGS, dmabuf_refs(dmabuf));

	/* another uid of that namespace: the namespace's bound */
	same.join = pid;
	EXPECT_EQ(ENOSPC, userns_binds(&same));
	/* another namespace root made binds */
	EXPECT_EQ(0, userns_binds(&other));

	close(hold[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the child's step %d failed", WEXITSTATUS(status));
	EXPECT_EQ(1, wait_dmabuf_refs(dmabuf, 1));
	close(ready[0]);
	close(go[1]);
	close(dmabuf);
}

/* Closing a socket releases its own bindings and nobody else's. */
TEST_F(bind_tx, closing_a_socket_releases_only_its_own_bindings)
{
	struct devmem_nl a, b, none;

	ASSERT_EQ(0, devmem_nl_open(&a));
	ASSERT_EQ(0, devmem_nl_open(&b));
	ASSERT_EQ(0, devmem_nl_open(&none));
	ASSERT_EQ(0, devmem_bind_tx(&a, self->ifindex, self->dmabuf, NULL));
	ASSERT_EQ(0, devmem_bind_tx(&a, self->ifindex, self->dmabuf, NULL));
	ASSERT_EQ(0, devmem_bind_tx(&b, self->ifindex, self->dmabuf, NULL));
	EXPECT_EQ(4, dmabuf_refs(self->dmabuf));
	devmem_nl_close(&none);
	devmem_nl_close(&b);
	EXPECT_EQ(3, wait_dmabuf_refs(self->dmabuf, 3));
	devmem_nl_close(&a);
	EXPECT_EQ(1, wait_dmabuf_refs(self->dmabuf, 1));
}

/*
 * A binding's memory is charged to the memory cgroup of the task that
 * binds: its net_iov array is 32 bytes per page of the dmabuf, so 16
 * bindings of a 32 MiB dmabuf raise the cgroup's memory.current by 4 MiB
 * (at least 3 MiB is asked: per-CPU charge caches blur the figure). It
 * used to be charged to nobody: a process could hold far more kernel
 * memory than its cgroup allows.
 */
TEST_F(bind_tx, bindings_are_charged_to_the_memory_cgroup)
{
	char cg[PATH_MAX], path[PATH_MAX + 32];
	const int size = 32 << 20, nbind = 16;
	int dmabuf, status, err;
	long *delta, before, after;
	pid_t child;

	err = memcg_make("devmem_bind_tx", cg, sizeof(cg));
	if (err == -ENOENT || err == -EOPNOTSUPP)
		SKIP(return, "no cgroup2 memory controller");
	ASSERT_EQ(0, err);
	dmabuf = udmabuf_alloc(size, NULL);
	ASSERT_GE(dmabuf, 0);
	delta = mmap(NULL, sizeof(*delta), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, delta);
	*delta = -1;

	child = fork();
	ASSERT_GE(child, 0);
	if (!child) {
		struct devmem_nl nl;
		int i;

		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		if (write_file(path, "%d", getpid()) || devmem_nl_open(&nl))
			_exit(1);
		snprintf(path, sizeof(path), "%s/memory.current", cg);
		before = file_read_long(path);
		for (i = 0; i < nbind; i++)
			if (devmem_bind_tx(&nl, self->ifindex, dmabuf, NULL))
				_exit(2);
		after = file_read_long(path);
		*delta = after - before;
		_exit(before < 0 || after < 0 ? 3 : 0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	TH_LOG("%d bindings of %d MiB: memory.current +%ld KiB", nbind,
	       size >> 20, *delta >> 10);
	EXPECT_LE(3L << 20, *delta);
	EXPECT_EQ(1, wait_dmabuf_refs(dmabuf, 1));
	close(dmabuf);
	munmap(delta, sizeof(*delta));
	EXPECT_EQ(0, rmdir(cg));
}

/* close() of netlink socket @arg, in this task */
static int close_nl(void *arg)
{
	devmem_nl_close(arg);
	return 0;
}

/*
 * Every release of a generic netlink socket in the system runs the netdev
 * family's release notifier. Only that of a socket that owns bindings may
 * take RTNL (issue 57, item 11: each took it, and walked all bindings, so
 * any user could stall RTNL by opening and closing sockets). Kprobe
 * events on this task: the close of a socket that asked the family
 * something but owns nothing asks net_devmem_owns_bindings() without RTNL
 * and never enters rtnl_lock(); the close of one that owns a binding
 * unbinds it under RTNL.
 */
TEST_F(bind_tx, releasing_a_socket_without_bindings_takes_no_rtnl)
{
	static const char *const funcs[] = {
		"net_devmem_owns_bindings", "rtnl_lock",
		"net_devmem_unbind_owned",
	};
	struct rtnl_watch_count c[3];
	struct devmem_nl none, owner;
	int err, ret;

	ASSERT_EQ(0, devmem_nl_open(&none));
	/* a request the family answers: the socket is one of its users */
	ASSERT_EQ(-EBADF, devmem_bind_tx(&none, self->ifindex, 100000, NULL));
	/* only a kernel without kprobe events skips: a function gone fails */
	if (tracefs_mount("kprobe_events"))
		SKIP(return, "no kprobe events (CONFIG_KPROBE_EVENTS)");
	err = rtnl_watch_run(funcs, 3, c, close_nl, &none, &ret);
	ASSERT_EQ(0, err);
	EXPECT_EQ(1, c[0].free);
	EXPECT_EQ(0, c[0].held);
	EXPECT_EQ(0, c[1].free + c[1].held);
	EXPECT_EQ(0, c[2].free + c[2].held);

	ASSERT_EQ(0, devmem_nl_open(&owner));
	ASSERT_EQ(0, devmem_bind_tx(&owner, self->ifindex, self->dmabuf, NULL));
	ASSERT_EQ(0, rtnl_watch_run(funcs, 3, c, close_nl, &owner, &ret));
	EXPECT_EQ(1, c[0].free);
	EXPECT_LE(1, c[1].free + c[1].held);
	EXPECT_EQ(1, c[2].held);
	EXPECT_EQ(0, c[2].free);
	EXPECT_EQ(1, wait_dmabuf_refs(self->dmabuf, 1));
}

TEST_HARNESS_MAIN
