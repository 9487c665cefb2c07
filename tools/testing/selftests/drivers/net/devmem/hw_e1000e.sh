#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hw.sh, the hardware mode, driven against the VM's e1000e pair: a real
# driver configured only through what hw.sh is given (NETIF, LOCAL_*,
# REMOTE_*). The far end is reached as another machine would be, over
# ssh (REMOTE_TYPE=ssh): a dropbear server in the peer's namespace, a
# key made for the run, OpenSSH's client. (hw_hdsim.sh covers the
# netns far end.) ssh goes over a management link of its own (a veth
# pair), as in a lab: e1000e has one RX queue, so while a test binds it
# every TCP payload that reaches the port lands in device memory, and an
# ssh session through it would read EFAULT.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/hdsim_env.sh
. ../lib/e1000e_env.sh

TMP=$(mktemp -d)
SSHD_PID=
cleanup()
{
	[ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null
	ip link del hwmgmt0 2>/dev/null
	rm -rf "$TMP"
	e1000e_cleanup
}
trap cleanup EXIT

skip_all()
{
	ktap_plan 1
	ktap_skip "hardware mode on e1000e" "$1"
	ktap_finish
}

if ! e1000e_pair devmem-hw-e1k 198.51.100 2001:db8:e2 || [ ! -e /dev/udmabuf ]; then
	skip_all "${E1000E_WHY:-no udmabuf}"
fi
for cmd in dropbear dropbearkey ssh ssh-keygen; do
	command -v $cmd > /dev/null ||
		skip_all "no $cmd (make deps installs dropbear-bin and openssh-client)"
done

# ssh_far_end <netns> <addr>: dropbear on <addr>:22 in <netns>, root's
# login with a key made here; the destination and options in SSH_DEST.
# The server has a mount namespace of its own with a fresh root home
# (a tmpfs) holding the key: the guest's /root is the host's, read-only.
ssh_far_end()
{
	local ns=$1 addr=$2 i

	dropbearkey -t ed25519 -f "$TMP/host_key" > /dev/null 2>&1 &&
	ssh-keygen -q -t ed25519 -N '' -f "$TMP/id" || return 1
	ip netns exec "$ns" unshare --mount --propagation private sh -c '
		mount -t tmpfs -o mode=0700 far-end-home /root &&
		mkdir -m 0700 /root/.ssh &&
		cp "$1/id.pub" /root/.ssh/authorized_keys &&
		exec dropbear -F -E -s -r "$1/host_key" -p "$2:22"' \
		far-end "$TMP" "$addr" 2> "$TMP/sshd.log" &
	SSHD_PID=$!
	SSH_DEST="-i $TMP/id -o StrictHostKeyChecking=no"
	SSH_DEST+=" -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
	SSH_DEST+=" -o ConnectTimeout=10 root@$addr"
	for i in $(seq 100); do
		# shellcheck disable=SC2086
		ssh -o BatchMode=yes $SSH_DEST true 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# no ssh login to $addr:"
	sed 's/^/# /' "$TMP/sshd.log"
	return 1
}

ip link del hwmgmt0 2>/dev/null	# left by a killed run
if ! ip link add hwmgmt0 type veth peer name hwmgmt1 netns "$E1000E_NS" ||
   ! ip addr add 203.0.113.1/30 dev hwmgmt0 || ! ip link set hwmgmt0 up ||
   ! ip -n "$E1000E_NS" addr add 203.0.113.2/30 dev hwmgmt1 ||
   ! ip -n "$E1000E_NS" link set hwmgmt1 up ||
   ! ssh_far_end "$E1000E_NS" 203.0.113.2; then
	ktap_plan 1
	ktap_fail "hardware mode on e1000e: ssh far end" "dropbear did not take a login"
	ktap_finish
fi
NETIF=$IF LOCAL_V4=198.51.100.1 LOCAL_V6=2001:db8:e2::1 \
	REMOTE_V4=198.51.100.2 REMOTE_V6=2001:db8:e2::2 \
	REMOTE_TYPE=ssh REMOTE_ARGS=$SSH_DEST NET_CFG=/dev/null ./hw.sh
rc=$?
echo "# the far end took $(grep -c 'auth succeeded' "$TMP/sshd.log") ssh logins"
exit $rc
