#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fuzz: syzkaller against our series, under TCG, for FUZZ_MIN minutes.
#
#   1. syzkaller at the pinned commit, in build/fuzz/syzkaller, from
#      SYZKALLER_SRC (a checkout, or any git repository or URL of it);
#      our descriptions (fuzz/descriptions) copied into its sys/linux/;
#   2. the fuzz kernel: the debug kernel with KCOV and DWARF
#      (config/fuzz.config, build/obj-fuzz);
#   3. the guest: this machine's root over 9p (read-only), booted by
#      syz-manager through fuzz/initramfs-init into fuzz/guest-init.sh
#      (hdsim ports that take a binding, a peer streaming to them, ssh);
#   4. the corpus seeded with fuzz/seeds (programs that reach a binding,
#      devmem receive and send, zcrx) on a fresh work directory;
#   5. syz-manager for FUZZ_MIN minutes (default 60), its web page on
#      127.0.0.1:$FUZZ_HTTP_PORT, a progress line a minute;
#   6. the report: executions, corpus, crashes, and the coverage of each of
#      our files (harness/fuzz-report.py): build/fuzz/report.txt,
#      coverage.csv and coverage.png.
# Not part of make check. FUZZ_FRESH=1 starts from the seeds again;
# otherwise a run goes on from the corpus of the last one.
export VARIANT=fuzz
. "$(dirname "$0")/lib.sh"

SYZKALLER_COMMIT=1e72964b0111319984575e60f266d1fa0a98abb5
FUZZ_MIN=${FUZZ_MIN:-60}
FUZZ_HTTP_PORT=${FUZZ_HTTP_PORT:-56741}
FUZZ_VM_CPUS=${FUZZ_VM_CPUS:-2}
FUZZ_VM_MEM=${FUZZ_VM_MEM:-3072}
FZ=$BUILD/fuzz
SYZ=$FZ/syzkaller
WORK=$FZ/workdir
T0=$(date +%s)

need_cmd go golang
# syzkaller at this commit wants Go 1.26 or newer (Debian 12's golang is 1.19)
gov=$(go env GOVERSION | sed 's/^go//')
[ "$(printf '%s\n' 1.26 "$gov" | sort -V | head -n 1)" = 1.26 ] ||
	die "syzkaller ${SYZKALLER_COMMIT:0:12} needs Go 1.26 or newer, this is $gov (https://go.dev/dl/)"
need_cmd ssh openssh-client
need_cmd dropbear dropbear-bin
need_cmd socat socat
need_cmd qemu-system-x86_64 qemu-system-x86
[ -x "$BUILD/kselftest/drivers/net/devmem/ncdevmem" ] ||
	die "no ncdevmem in $BUILD/kselftest (run: make tools)"
mkdir -p "$FZ"

# --- 1. syzkaller ---------------------------------------------------------
if [ ! -e "$SYZ/.git" ]; then
	if [ -z "${SYZKALLER_SRC:-}" ]; then
		cat >&2 <<EOF
error: make fuzz needs syzkaller's source (commit ${SYZKALLER_COMMIT:0:12}).
  Get it, then name it:
    git clone https://github.com/google/syzkaller /some/where
    make fuzz SYZKALLER_SRC=/some/where
  SYZKALLER_SRC may be a checkout, a bare repository or a URL; it is
  cloned into $SYZ once. Its Go modules come from the Go module proxy.
EOF
		exit 1
	fi
	say "syzkaller: cloning $SYZKALLER_SRC"
	git clone -q --no-checkout "$SYZKALLER_SRC" "$SYZ" ||
		die "cannot clone $SYZKALLER_SRC"
	# test data the build never reads, absent from some mirrors
	git -C "$SYZ" sparse-checkout set --no-cone '/*' \
		'!/pkg/aflow/testdata/' '!/pkg/cover/backend/test_data/'
fi
if [ "$(git -C "$SYZ" rev-parse HEAD 2>/dev/null)" != "$SYZKALLER_COMMIT" ]; then
	git -C "$SYZ" checkout -q "$SYZKALLER_COMMIT" ||
		die "syzkaller: no commit $SYZKALLER_COMMIT in $SYZ (fetch it there)"
fi
cp "$REPO"/fuzz/descriptions/* "$SYZ/sys/linux/"
say "syzkaller ${SYZKALLER_COMMIT:0:12}: building manager, execprog, executor, db (cold: ~10 min; log: $FZ/build.log)"
start=$(date +%s)
if ! (cd "$SYZ" && nice -n 10 make descriptions manager execprog executor db) \
	> "$FZ/build.log" 2>&1; then
	tail -n 20 "$FZ/build.log" >&2
	die "syzkaller build failed (log: $FZ/build.log)"
fi
say "syzkaller: built in $(($(date +%s) - start)) s"

# --- 2. the kernel --------------------------------------------------------
"$REPO/harness/kernel.sh"

# --- 3. the guest and the manager's configuration -------------------------
tools=$BUILD/kselftest/drivers/net/devmem
# the initramfs that mounts the 9p root for 6.1 (fuzz/initramfs-init)
need_cmd cpio cpio
rm -rf "$FZ/initramfs"
mkdir -p "$FZ/initramfs/bin"
cp /bin/busybox "$FZ/initramfs/bin/" || die "no /bin/busybox (busybox-static)"
install -m 0755 "$REPO/fuzz/initramfs-init" "$FZ/initramfs/init"
(cd "$FZ/initramfs" && find . | cpio -o -H newc --quiet | gzip -1) \
	> "$FZ/initramfs.cpio.gz"
# syz-manager wants a disk image; the guest boots from the initramfs and
# this machine's root, so an empty one. Its ssh key, made once.
[ -e "$FZ/disk.img" ] || truncate -s 1M "$FZ/disk.img"
mkdir -p "$FZ/ssh"
[ -e "$FZ/ssh/key" ] || ssh-keygen -q -t ed25519 -N "" -C devmem-fuzz -f "$FZ/ssh/key"
cfg=$FZ/manager.cfg
# Our calls, what they need to get there (the guest's initial namespace,
# sockets, memfd and udmabuf, io_uring set-up), and the ethtool and netdev
# requests that restart or reconfigure a bound queue. Not hdsim's
# new_device and del_device: the guest's ports, renamed at boot, would not
# come back (device removal under a binding is faults.c's and e1000e's
# hot-remove tests'). No focus_areas: with them, the seeds that reach our
# files never entered the corpus in a run here (corpus [devmem]=0).
python3 - "$cfg" <<EOF
import json, sys
cfg = {
    "target": "linux/amd64",
    "http": "127.0.0.1:$FUZZ_HTTP_PORT",
    "workdir": "$WORK",
    "kernel_obj": "$OBJ",
    "kernel_src": "$SRC",
    "syzkaller": "$SYZ",
    "image": "$FZ/disk.img",
    "sshkey": "$FZ/ssh/key",
    "ssh_user": "root",
    "procs": 2,
    "sandbox": "none",
    "cover": True,
    "reproduce": True,
    "type": "qemu",
    "enable_syscalls": [
        "socket\$nl_generic", "syz_genetlink_get_family_id\$auto_netdev",
        "sendmsg\$auto_NETDEV_CMD_*", "sendmsg\$NETDEV_CMD_*",
        "recvmsg\$netdev_bind_reply",
        "syz_genetlink_get_family_id\$ethtool", "sendmsg\$ETHTOOL_MSG_*",
        "syz_genetlink_get_family_id\$devmem_stats",
        "sendmsg\$DEVMEM_STATS_CMD_QUEUE_GET", "sendmsg\$DEVMEM_STATS_CMD_SOCK_GET",
        "geteuid",
        "memfd_create", "ftruncate", "fcntl\$addseals",
        "openat\$udambuf", "ioctl\$UDMABUF_CREATE*",
        "socket\$inet_tcp", "socket\$inet6_tcp", "connect\$devmem_peer_*",
        "ioctl\$sock_SIOCGIFINDEX_hdsim", "recvmsg\$devmem_*",
        "setsockopt\$SO_DEVMEM_DONTNEED_*", "sendmsg\$devmem_tx_*",
        "setsockopt\$sock_int", "setsockopt\$inet_tcp_int",
        "recvfrom\$inet", "recvfrom\$inet6", "shutdown", "close",
        "syz_io_uring_setup\$zcrx", "io_uring_register\$IORING_REGISTER_ZCRX_IFQ_devmem",
        "syz_io_uring_submit\$recv_zc", "io_uring_enter", "mmap\$zcrx_region",
        "syz_open_procfs", "read",
        "openat\$devmem_init_net", "setns\$devmem_init_net",
        "openat\$hdsim_debugfs", "write\$hdsim_debugfs", "read\$hdsim_debugfs",
        "syz_open_dev\$p2pbuf", "ioctl\$P2PBUF_CREATE",
    ],
    "experimental": {
        "descriptions_mode": "any",
    },
    "vm": {
        "count": 1,
        "cpu": $FUZZ_VM_CPUS,
        "mem": $FUZZ_VM_MEM,
        "kernel": "$OBJ/arch/x86/boot/bzImage",
        "initrd": "$FZ/initramfs.cpio.gz",
        "network_device": "virtio-net-pci",
        "qemu_args": "-accel tcg,thread=multi -cpu max -fsdev local,id=devmem_root,path=/,security_model=none,readonly=on,multidevs=remap -device virtio-9p-pci,fsdev=devmem_root,mount_tag=devmem_root -object memory-backend-ram,id=p2pmem,size=16M -device ivshmem-plain,memdev=p2pmem",
        "cmdline": "console=ttyS0 panic_on_warn=1 init=$REPO/fuzz/guest-init.sh FUZZ_SSH_KEY=$FZ/ssh/key FUZZ_GUEST_TOOLS=$tools",
    },
}
json.dump(cfg, open(sys.argv[1], "w"), indent=1)
EOF

# --- 4. the corpus --------------------------------------------------------
# The seeds, packed once: the corpus of a fresh work directory, or merged
# into the last run's (a seed added since gets in; one already there is
# the same program).
nseeds=$(ls "$REPO"/fuzz/seeds | wc -l)
"$SYZ/bin/syz-db" pack "$REPO/fuzz/seeds" "$FZ/seeds.db" \
	> "$FZ/seeds.log" 2>&1 || die "syz-db pack failed ($FZ/seeds.log)"
if [ "${FUZZ_FRESH:-0}" = 1 ] || [ ! -e "$WORK/corpus.db" ]; then
	rm -rf "$WORK"
	mkdir -p "$WORK"
	cp "$FZ/seeds.db" "$WORK/corpus.db"
	say "corpus: $nseeds seed programs (fuzz/seeds)"
else
	"$SYZ/bin/syz-db" merge "$WORK/corpus.db" "$FZ/seeds.db" \
		>> "$FZ/seeds.log" 2>&1 || die "syz-db merge failed ($FZ/seeds.log)"
	say "corpus: the last run's, $WORK/corpus.db, and the $nseeds seeds (FUZZ_FRESH=1: the seeds alone)"
fi

# --- 5. the run -----------------------------------------------------------
log=$FZ/manager.log
say "syz-manager for $FUZZ_MIN min: http://127.0.0.1:$FUZZ_HTTP_PORT (log: $log)"
"$SYZ/bin/syz-manager" -config "$cfg" > "$log" 2>&1 &
mgr=$!
stop_manager() {
	kill -INT "$mgr" 2>/dev/null || return 0
	for _ in $(seq 60); do
		kill -0 "$mgr" 2>/dev/null || return 0
		sleep 1
	done
	kill -KILL "$mgr" 2>/dev/null || true
}
trap stop_manager EXIT
stat_line() {
	# the newest heartbeat of the manager (corpus=N coverage=N exec total=N ...)
	grep -a 'corpus=' "$log" | tail -n 1 | sed 's/^[0-9/ :.]*//'
}
end=$(($(date +%s) + FUZZ_MIN * 60))
while [ "$(date +%s)" -lt "$end" ]; do
	sleep 60
	kill -0 "$mgr" 2>/dev/null || { tail -n 20 "$log" >&2; die "syz-manager stopped"; }
	say "fuzz: $(mmss $(($(date +%s) - T0))) in: $(stat_line)"
done

# --- 6. the report --------------------------------------------------------
say "coverage: symbolizing (a few minutes)"
curl -s -m 1200 -o "$FZ/filecover.csv" \
	"http://127.0.0.1:$FUZZ_HTTP_PORT/filecover" ||
	warn "no file coverage from the manager"
curl -s -m 1200 -o "$FZ/funccover.csv" \
	"http://127.0.0.1:$FUZZ_HTTP_PORT/funccover" ||
	warn "no function coverage from the manager"
curl -s -m 60 -o "$FZ/stats.html" "http://127.0.0.1:$FUZZ_HTTP_PORT/stats" || true
stop_manager
trap - EXIT
# syz-db packs a seed it cannot parse without a word; syz-manager drops
# it from the corpus with one line of its log
if grep -aq 'broken programs in the corpus: [1-9]' "$log"; then
	warn "syz-manager dropped corpus programs it could not parse (fuzz/seeds?): $(grep -a 'broken programs in the corpus' "$log" | head -n 1)"
fi
if ! "$VENV/bin/python" -c "import matplotlib" 2>/dev/null; then
	say "pip: installing matplotlib into $VENV for the picture"
	"$VENV/bin/pip" install -q matplotlib || warn "no matplotlib: no picture"
fi
"$VENV/bin/python" "$REPO/harness/fuzz-report.py" "$FZ" "$FUZZ_MIN" "$(stat_line)" |
	tee "$FZ/report.txt"
