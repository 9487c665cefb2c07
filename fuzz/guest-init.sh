#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of a syzkaller guest (make fuzz, harness/fuzz.sh). The guest boots
# the fuzz kernel with this machine's root over 9p, read-only, mounted by
# fuzz/initramfs-init. FUZZ_SSH_KEY on the command line is the key
# syz-manager logs in with (its sshkey), FUZZ_GUEST_TOOLS where ncdevmem is.
# It:
#   - gives the guest a root account that the ssh server accepts a key
#     for (its writable /tmp, /run, /var/tmp and /root are tmpfs that
#     fuzz/initramfs-init mounted, with this repository and the build
#     directory bound over them where a clone is under one of them);
#   - makes two hdsim devices with 4 queues each, their ports named as
#     fuzz/descriptions/devmem_devices.txt expects: hdsim0p0 (this
#     namespace, header split on, ntuple rules steering the peer's ports
#     7000 and 7002 to queues 2 and 3) and hdsim0p1 (namespace
#     devmem-peer), hdsim1p0 and hdsim1p1 (both here, unconfigured);
#   - starts servers in devmem-peer: port 7000 and 7002 stream zeros to
#     whoever connects, port 7001 swallows what it gets (for TX);
#   - binds this network namespace at /dev/devmem-init-net, where fuzzed
#     programs (each in a namespace of its own) can enter it;
#   - configures the virtio port syz-manager reaches the guest through
#     (mgmt0) and serves ssh there until the guest stops.
# Addresses: hdsim0p0 192.168.77.1 and fd77::1, the peer .2 and ::2.

PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

mount -t proc proc /proc
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
# no tmpfs here over /tmp, /run, /var/tmp or /root: fuzz/initramfs-init
# made them, and a new one would hide this script's own directory, the
# key and the tools where the clone is under one of them
mkdir -p /run/netns /run/devmem-fuzz

log()
{
	echo "devmem-fuzz-init: $*" > /dev/console
}

# cmdline_value <key>: the first key=value of the kernel's command line
cmdline_value()
{
	local word

	for word in $(cat /proc/cmdline); do
		case "$word" in "$1"=*) echo "${word#*=}"; return ;; esac
	done
}

key=$(cmdline_value FUZZ_SSH_KEY)
tools=$(cmdline_value FUZZ_GUEST_TOOLS)

# root with no password lock, so the ssh server takes the key
state=/run/devmem-fuzz
sed 's/^root:[^:]*:/root::/' /etc/shadow > $state/shadow
chmod 0600 $state/shadow
mount --bind $state/shadow /etc/shadow

# No module tree here: a request for a module (syz-executor asks for every
# link type it tries) fails at once instead of running modprobe over 9p.
echo > /proc/sys/kernel/modprobe

# Huge pages for the programs' udmabufs: a 4 MiB udmabuf of a plain memfd
# faults in 1,024 pages, about 377,000 kernel PCs of coverage, and the
# executor's output (6 MiB for coverage and signal) overflows, so the whole
# program is lost. Of a hugetlb memfd (MFD_HUGETLB) it is two 2 MiB pages.
echo 64 > /proc/sys/vm/nr_hugepages

# zcrx:zcrx_cqe on, into a small buffer nobody reads: the code that runs
# only while the event is on (its arguments read before the post, the
# event itself, in io_uring/zcrx.c) is fuzzed with the rest.
trace=/sys/kernel/debug/tracing
[ -d "$trace/events/zcrx" ] || trace=/sys/kernel/tracing
echo 64 > "$trace/buffer_size_kb"
echo 1 > "$trace/events/zcrx/zcrx_cqe/enable" ||
	echo "devmem-fuzz-init: no zcrx:zcrx_cqe" > /dev/console

ip link set lo up

# port_of <hdsim id> <dev_port>: the netdev of that port
port_of()
{
	local dev

	for dev in /sys/bus/hdsim/devices/hdsim"$1"/net/*; do
		[ "$(cat "$dev/dev_port")" = "$2" ] && basename "$dev"
	done
}

hdsim_ports()
{
	local id p

	for id in 0 1; do
		echo "$id 4" > /sys/bus/hdsim/new_device || return 1
		for p in 0 1; do
			ip link set "$(port_of $id $p)" name hdsim${id}p$p ||
				return 1
		done
	done
	ip netns add devmem-peer &&
	ip link set hdsim0p1 netns devmem-peer &&
	ip addr add 192.168.77.1/24 dev hdsim0p0 &&
	ip -6 addr add fd77::1/64 dev hdsim0p0 nodad &&
	ip link set hdsim0p0 up &&
	ip link set hdsim1p0 up &&
	ip link set hdsim1p1 up &&
	ip -n devmem-peer link set lo up &&
	ip -n devmem-peer addr add 192.168.77.2/24 dev hdsim0p1 &&
	ip -n devmem-peer -6 addr add fd77::2/64 dev hdsim0p1 nodad &&
	ip -n devmem-peer link set hdsim0p1 up || return 1
	"$tools/ncdevmem" -f hdsim0p0 --hds on > /dev/null || return 1
	ethtool -K hdsim0p0 ntuple on &&
	ethtool -X hdsim0p0 equal 2 || return 1
	for p in 7000:2 7002:3; do
		ethtool -N hdsim0p0 flow-type tcp4 src-port "${p%:*}" \
			action "${p#*:}" > /dev/null &&
		ethtool -N hdsim0p0 flow-type tcp6 src-port "${p%:*}" \
			action "${p#*:}" > /dev/null || return 1
	done
}

peer_servers()
{
	local port

	for port in 7000 7002; do
		ip netns exec devmem-peer socat -U \
			TCP6-LISTEN:$port,ipv6only=0,fork,reuseaddr \
			OPEN:/dev/zero,rdonly > /dev/null 2>&1 &
	done
	ip netns exec devmem-peer socat -u \
		TCP6-LISTEN:7001,ipv6only=0,fork,reuseaddr \
		OPEN:/dev/null,wronly > /dev/null 2>&1 &
}

# syz-executor gives every program a network namespace of its own; the
# hdsim ports and their peer are in this one. /dev, which the executor binds
# into its sandbox, gets a handle on it for setns()
# (setns$devmem_init_net in fuzz/descriptions/devmem_devices.txt).
touch /dev/devmem-init-net
mount --bind /proc/self/ns/net /dev/devmem-init-net

if hdsim_ports; then
	peer_servers
	log "hdsim ready: hdsim0p0 (peer 192.168.77.2, fd77::2), hdsim1p0/p1"
else
	log "hdsim set-up failed: the fuzzer runs without a device that binds"
fi

# the port syz-manager forwards to: the virtio one, QEMU's user network,
# renamed mgmt0 so that no device name in syzkaller's descriptions reaches
# it (a fuzzer that takes it down loses the guest)
for dev in /sys/class/net/*; do
	[ "$(basename "$(readlink -f "$dev/device/driver" 2>/dev/null)")" = \
	  virtio_net ] || continue
	ip link set "${dev##*/}" name mgmt0
	ip addr add 10.0.2.15/24 dev mgmt0
	ip link set mgmt0 up
	ip route add default via 10.0.2.2
done

# dropbear (dropbear-bin, a dependency of the project) as the guest's ssh
# server: syz-manager's key for root, a host key made here, no passwords
mkdir -p /root/.ssh
cp "$key.pub" /root/.ssh/authorized_keys
chmod 0700 /root/.ssh
chmod 0600 /root/.ssh/authorized_keys
dropbearkey -t ed25519 -f $state/host_key > /dev/null 2>&1
log "ssh (dropbear) on port 22 for $key"
dropbear -F -E -s -g -p 22 -r $state/host_key -P $state/dropbear.pid
log "dropbear stopped; syz-manager stops the guest"
while :; do
	sleep 3600
done
