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
#      127.0.0.1:$FUZZ_HTTP_PORT, a progress line a minute; a run that
#      has executed no program after FUZZ_NOEXEC_MIN minutes (default 10;
#      0: never) or at its end stops and fails, with what syz-manager's
#      log says of the VM;
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
# a VM boots and syz-manager checks it in a few minutes under TCG
FUZZ_NOEXEC_MIN=${FUZZ_NOEXEC_MIN:-10}
case "$FUZZ_MIN$FUZZ_NOEXEC_MIN" in
''|*[!0-9]*)
	die "FUZZ_MIN and FUZZ_NOEXEC_MIN are minutes: '$FUZZ_MIN', '$FUZZ_NOEXEC_MIN'" ;;
esac
FZ=$BUILD/fuzz
SYZ=$FZ/syzkaller
WORK=$FZ/workdir
T0=$(date +%s)

# corpus_minutes <runs file>: the minutes of the runs a corpus grew over
# (the third field of each line)
corpus_minutes()
{
	awk '{ m += $3 } END { print m + 0 }' "$1"
}

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
# syzkaller_checkout: $SYZ, a clone of SYZKALLER_SRC, its work tree at
# SYZKALLER_COMMIT, from any source that holds the commit (a checkout, a
# bare repository or mirror, whatever its HEAD, a URL) and whatever an
# earlier run left there. The clone is made without a checkout, so that
# the sparse patterns come first (test data the build never reads, absent
# from some mirrors); the checkout is then forced every time: skipped
# where HEAD already was the commit, it left a clone of a mirror whose
# HEAD is the commit with no work tree at all. Forced, it rewrites only
# what differs from the commit (an edit to a tracked file there is undone;
# files that match keep their times, so make builds nothing again) and
# leaves untracked files (our descriptions, syz-sysgen's output) alone.
syzkaller_checkout()
{
	# git on $SYZ's own repository only: where $SYZ/.git is none (a clone
	# cut short), plain git would look further up, into this repository
	local g=(git -C "$SYZ" --git-dir=.git --work-tree=.) src out

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
			die "cannot clone $SYZKALLER_SRC into $SYZ"
	fi
	"${g[@]}" rev-parse -q --git-dir > /dev/null 2>&1 ||
		die "syzkaller: $SYZ/.git is no git repository (remove $SYZ and run again)"
	# a clone cut short, or made for an older pin, lacks the commit:
	# fetched from SYZKALLER_SRC, or from where the clone came from
	if ! "${g[@]}" cat-file -e "$SYZKALLER_COMMIT^{commit}" 2>/dev/null; then
		src=${SYZKALLER_SRC:-origin}
		say "syzkaller: fetching ${SYZKALLER_COMMIT:0:12} from $src"
		# by its id; a server that refuses ids it does not advertise
		# gives its branches and tags
		"${g[@]}" fetch -q "$src" "$SYZKALLER_COMMIT" 2>/dev/null ||
			"${g[@]}" fetch -q --tags "$src" '+refs/heads/*:refs/remotes/origin/*' ||
			true
		"${g[@]}" cat-file -e "$SYZKALLER_COMMIT^{commit}" 2>/dev/null ||
			die "syzkaller: no commit $SYZKALLER_COMMIT in $SYZ or $src (fetch it there)"
	fi
	"${g[@]}" sparse-checkout set --no-cone '/*' \
		'!/pkg/aflow/testdata/' '!/pkg/cover/backend/test_data/' ||
		die "syzkaller: git sparse-checkout failed in $SYZ"
	if ! out=$("${g[@]}" checkout -q -f --detach "$SYZKALLER_COMMIT" 2>&1); then
		printf '%s\n' "$out" >&2
		die "syzkaller: cannot check out ${SYZKALLER_COMMIT:0:12} in $SYZ"
	fi
	# git, writing the index, names each blob of the sparse paths that a
	# mirror lacks ("error: invalid object"), and goes on: no matter here
	[ -z "$out" ] || printf '%s\n' "$out" | grep -v \
		"^error: invalid object .* for 'pkg/\(aflow/testdata\|cover/backend/test_data\)/" >&2 ||
		true
	# what the build needs is there, or we stop here rather than in cp or
	# make with a message about something else
	if [ "$("${g[@]}" rev-parse HEAD 2>/dev/null)" != "$SYZKALLER_COMMIT" ] ||
	   [ ! -f "$SYZ/Makefile" ] || [ ! -d "$SYZ/sys/linux" ]; then
		die "syzkaller: $SYZ has no work tree at ${SYZKALLER_COMMIT:0:12} after its checkout (no Makefile or sys/linux/); remove $SYZ and run again"
	fi
}
syzkaller_checkout
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
# What the guest reads of this machine's, by their real paths (no symbolic
# link that the guest's root may not have): this repository
# (fuzz/guest-init.sh) and the build directory (the ssh key, ncdevmem).
# Words of the kernel's command line, so no white space in them.
rrepo=$(readlink -f "$REPO")
rbuild=$(readlink -f "$BUILD")
case "$rrepo$rbuild" in
*[[:space:]]*)
	die "the guest's kernel command line cannot name a path with spaces: $rrepo, $rbuild" ;;
esac
tools=$rbuild/kselftest/drivers/net/devmem
# the initramfs that mounts the 9p root for 6.1 (fuzz/initramfs-init)
need_cmd cpio cpio
rm -rf "$FZ/initramfs"
mkdir -p "$FZ/initramfs/bin"
cp /bin/busybox "$FZ/initramfs/bin/" || die "no /bin/busybox (busybox-static)"
install -m 0755 "$REPO/fuzz/initramfs-init" "$FZ/initramfs/init"
# the two paths for initramfs-init to bind into the guest's root where
# its fresh /tmp, /run, /var/tmp or /root would hide them (a clone made
# by mktemp -d is under /tmp)
printf '%s\n' "$rrepo" "$rbuild" > "$FZ/initramfs/fuzz-binds"
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
# requests that restart or reconfigure a bound queue. hdsim's new_device
# and del_device on the programs' own devices (ids 4 and up, two to each
# executor process: fuzz/descriptions/devmem_devices.txt), never on the
# guest's hdsim0 and hdsim1, whose ports every program uses; their ports
# brought up and down. No focus_areas: with them, the seeds that reach our
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
        "openat\$hdsim_new_device", "write\$hdsim_new_device",
        "openat\$hdsim_del_device", "write\$hdsim_del_device",
        "ioctl\$sock_SIOCSIFFLAGS_hdsim",
        "openat\$devmem_debugfs", "read\$devmem_debugfs",
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
        "cmdline": "console=ttyS0 panic_on_warn=1 init=$rrepo/fuzz/guest-init.sh FUZZ_SSH_KEY=$rbuild/fuzz/ssh/key FUZZ_GUEST_TOOLS=$tools",
    },
}
json.dump(cfg, open(sys.argv[1], "w"), indent=1)
EOF

# --- 4. the corpus --------------------------------------------------------
# The corpus goes on from run to run, and from machine to machine:
# fuzz/corpus/ holds the programs of the last run that was saved
# (FUZZ_SAVE=1, below), fuzz/corpus/runs the runs it grew over. A fresh
# work directory starts from it and the seeds; one an earlier run left
# has the seeds merged in (a seed added since gets in; one already there
# is the same program). FUZZ_FRESH=1: the seeds alone, and a run that
# saves starts fuzz/corpus/runs again.
CORPUS=$REPO/fuzz/corpus
nseeds=$(ls "$REPO"/fuzz/seeds | wc -l)
"$SYZ/bin/syz-db" pack "$REPO/fuzz/seeds" "$FZ/seeds.db" \
	> "$FZ/seeds.log" 2>&1 || die "syz-db pack failed ($FZ/seeds.log)"
if [ "${FUZZ_FRESH:-0}" = 1 ]; then
	rm -rf "$WORK"
	mkdir -p "$WORK"
	cp "$FZ/seeds.db" "$WORK/corpus.db"
	: > "$FZ/runs.base"
	say "corpus: $nseeds seed programs (fuzz/seeds; FUZZ_FRESH=1)"
elif [ ! -e "$WORK/corpus.db" ] && [ -d "$CORPUS/programs" ]; then
	mkdir -p "$WORK"
	"$SYZ/bin/syz-db" pack "$CORPUS/programs" "$WORK/corpus.db" \
		>> "$FZ/seeds.log" 2>&1 || die "syz-db pack of $CORPUS/programs failed ($FZ/seeds.log)"
	"$SYZ/bin/syz-db" merge "$WORK/corpus.db" "$FZ/seeds.db" \
		>> "$FZ/seeds.log" 2>&1 || die "syz-db merge failed ($FZ/seeds.log)"
	cp "$CORPUS/runs" "$FZ/runs.base"
	say "corpus: fuzz/corpus ($(ls "$CORPUS/programs" | wc -l) programs, $(corpus_minutes "$FZ/runs.base") min of runs) and the $nseeds seeds"
elif [ ! -e "$WORK/corpus.db" ]; then
	mkdir -p "$WORK"
	cp "$FZ/seeds.db" "$WORK/corpus.db"
	: > "$FZ/runs.base"
	say "corpus: $nseeds seed programs (fuzz/seeds)"
else
	"$SYZ/bin/syz-db" merge "$WORK/corpus.db" "$FZ/seeds.db" \
		>> "$FZ/seeds.log" 2>&1 || die "syz-db merge failed ($FZ/seeds.log)"
	[ -e "$FZ/runs.base" ] || : > "$FZ/runs.base"
	say "corpus: the last run's, $WORK/corpus.db ($(corpus_minutes "$FZ/runs.base") min of runs), and the $nseeds seeds (FUZZ_FRESH=1: the seeds alone)"
fi

# --- 5. the run -----------------------------------------------------------
log=$FZ/manager.log
# the last run's report would read as this one's, were this one to fail
rm -f "$FZ/report.txt" "$FZ/coverage.csv" "$FZ/coverage.png" "$FZ/teardown.csv" \
	"$FZ/filecover.csv" "$FZ/funccover.csv" "$FZ/stats.html"
say "syz-manager for $FUZZ_MIN min: http://127.0.0.1:$FUZZ_HTTP_PORT (log: $log)"
run0=$(date +%s)
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
	# the newest heartbeat of the manager (corpus=N coverage=N exec total=N ...);
	# none before a VM first connects
	{ grep -a 'corpus=' "$log" || true; } | tail -n 1 | sed 's/^[0-9/ :.]*//'
}
exec_count() {
	# the programs executed so far: "exec total=N (R/min)" of the heartbeat
	local n

	n=$(stat_line | sed -n 's/.*exec total=\([0-9][0-9]*\).*/\1/p')
	echo "${n:-0}"
}
# What syz-manager's log says of a VM that did not come up. A boot error
# is logged with the VM's console output when syz-manager gives up on the
# VM: when QEMU exits (fuzz/initramfs-init powers off when it fails), at
# its ssh timeout (30 min under TCG) or when it is stopped.
VM_FAIL_RE='boot error|can.t ssh|Kernel panic|not syncing|Attempted to kill init|devmem-fuzz|SYZFAIL|failed to'
# no_exec <minutes>: stop syz-manager and fail: nothing was executed
no_exec() {
	local what cause=

	stop_manager
	trap - EXIT
	if grep -aq 'corpus=' "$log"; then
		what="a VM came up but executed no program in $1 min"
	else
		what="no VM came up in $1 min (none connected to syz-manager)"
	fi
	if grep -aq 'Attempted to kill init' "$log"; then
		cause="the guest's init died (Attempted to kill init)"
	elif grep -aq 'devmem-fuzz initramfs:' "$log"; then
		cause=$(grep -ao -m 1 'devmem-fuzz initramfs: .*' "$log" | tr -d '\r')
	elif grep -aq 'Kernel panic' "$log"; then
		cause="the guest's kernel panicked"
	elif grep -aq "can't ssh into the instance" "$log"; then
		cause="syz-manager could not log in to the guest (ssh: fuzz/guest-init.sh's dropbear, the key)"
	elif grep -a 'boot error' "$log" | grep -vq 'shutdown in progress'; then
		# (the one of a boot cut short by the stop above says nothing)
		cause="syz-manager reported a boot error"
	fi
	if grep -aqE "$VM_FAIL_RE" "$log"; then
		echo "what syz-manager's log says of the VM (each line once):" >&2
		# without the times of the log and of the kernel, a VM that
		# failed the same way at each boot is one set of lines
		grep -aE "$VM_FAIL_RE" "$log" | tr -d '\r' |
			sed -e 's#^[0-9/]* [0-9:.]* ##' -e 's#^\[ *[0-9.]*\] ##' |
			awk '!seen[$0]++' | cut -c 1-200 | tail -n 40 >&2
	elif grep -aq 'corpus=' "$log"; then
		echo "the end of syz-manager's log, but its heartbeats:" >&2
		grep -av 'corpus=' "$log" | tail -n 20 >&2 || true
	else
		echo "syz-manager's log has no word of the VM: its console output comes there only once syz-manager gives up on it; to watch one boot: $SYZ/bin/syz-manager -config $cfg -debug" >&2
	fi
	die "$what${cause:+: $cause} (syz-manager's log, with the console output of a VM that did not boot: $log)"
}
end=$((run0 + FUZZ_MIN * 60))
while [ "$(date +%s)" -lt "$end" ]; do
	sleep 60
	kill -0 "$mgr" 2>/dev/null || { tail -n 20 "$log" >&2; die "syz-manager stopped"; }
	beat=$(stat_line)
	say "fuzz: $(mmss $(($(date +%s) - T0))) in: ${beat:-no VM has connected yet}"
	# A VM that does not boot does not boot on the next try either: no
	# need to wait the whole FUZZ_MIN to learn that nothing runs
	if [ "$FUZZ_NOEXEC_MIN" -gt 0 ] && [ "$(exec_count)" = 0 ] &&
	   [ $(($(date +%s) - run0)) -ge $((FUZZ_NOEXEC_MIN * 60)) ]; then
		no_exec "$FUZZ_NOEXEC_MIN"
	fi
done
stop0=$(date +%s)
[ "$(exec_count)" != 0 ] || no_exec "$FUZZ_MIN"

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
# this run, after the ones its corpus grew over: <start (UTC)> <commit>
# <minutes> <programs executed> <corpus>
beat=$(stat_line)
corpus_now=$(printf '%s\n' "$beat" | sed -n 's/.*corpus=\([0-9][0-9]*\).*/\1/p')
{
	cat "$FZ/runs.base"
	printf '%s %s %d %d %d\n' "$(date -u -d "@$run0" +%FT%H:%MZ)" \
		"$(git -C "$REPO" rev-parse --short=12 HEAD)" \
		$(((stop0 - run0 + 30) / 60)) "$(exec_count)" "${corpus_now:-0}"
} > "$FZ/runs"
cp "$FZ/runs" "$FZ/runs.base"
"$VENV/bin/python" "$REPO/harness/fuzz-report.py" "$FZ" "$FUZZ_MIN" "$beat" \
	"$FZ/runs" | tee "$FZ/report.txt"
# FUZZ_SAVE=1: the corpus into fuzz/corpus/, for the next run on any
# machine to go on from (commit it)
if [ "${FUZZ_SAVE:-0}" = 1 ]; then
	rm -rf "$CORPUS/programs"
	mkdir -p "$CORPUS/programs"
	"$SYZ/bin/syz-db" unpack "$WORK/corpus.db" "$CORPUS/programs" \
		>> "$FZ/seeds.log" 2>&1 || die "syz-db unpack failed ($FZ/seeds.log)"
	cp "$FZ/runs" "$CORPUS/runs"
	say "corpus saved: $CORPUS ($(ls "$CORPUS/programs" | wc -l) programs, $(corpus_minutes "$FZ/runs") min of runs); commit it"
fi
