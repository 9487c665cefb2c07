# SPDX-License-Identifier: GPL-2.0
# hdsim port pairs for shell tests and scripts; sourced.
#
#   hdsim_pair <id> <netns> <v4 prefix> <v6 prefix>
#	creates hdsim device <id> (HDSIM_QUEUES queues, default 4), sets
#	IF (host end, <v4>.1, <v6>::1, up) and PEER (in <netns>, <v4>.2,
#	<v6>::2, up). The hdsim bus belongs to the caller: every device on
#	it, left by a killed earlier test with the addresses and rules on
#	it, goes first, and so does a namespace <netns> left by a killed run
#	of this one.
#   hdsim_cleanup	deletes what hdsim_pair created

HDSIM_ID=
HDSIM_NS=
# hdsim has no device to be loaded for: on a modular kernel, load it
[ -d /sys/bus/hdsim ] || modprobe -q hdsim 2>/dev/null || true

# port_name <device id> <dev_port>
port_name()
{
	local dev

	for dev in /sys/bus/hdsim/devices/hdsim"$1"/net/*; do
		[ "$(cat "$dev/dev_port" 2>/dev/null)" = "$2" ] && basename "$dev"
	done
}

hdsim_pair()
{
	local d

	HDSIM_ID=$1
	HDSIM_NS=$2
	for d in /sys/bus/hdsim/devices/hdsim*; do
		[ -e "$d" ] || continue
		echo "# removing $(basename "$d") left by a killed test"
		echo "${d##*/hdsim}" > /sys/bus/hdsim/del_device
	done
	hdsim_cleanup
	echo "$HDSIM_ID ${HDSIM_QUEUES:-4}" > /sys/bus/hdsim/new_device || return 1
	IF=$(port_name "$HDSIM_ID" 0)
	PEER=$(port_name "$HDSIM_ID" 1)
	[ -n "$IF" ] && [ -n "$PEER" ] || return 1
	ip netns add "$HDSIM_NS" || return 1
	ip link set "$PEER" netns "$HDSIM_NS"
	ip addr add "$3.1/24" dev "$IF"
	ip -6 addr add "$4::1/64" dev "$IF" nodad
	ip link set "$IF" up
	ip -n "$HDSIM_NS" addr add "$3.2/24" dev "$PEER"
	ip -n "$HDSIM_NS" -6 addr add "$4::2/64" dev "$PEER" nodad
	ip -n "$HDSIM_NS" link set "$PEER" up
	ip -n "$HDSIM_NS" link set lo up
}

hdsim_cleanup()
{
	[ -n "$HDSIM_ID" ] && [ -e /sys/bus/hdsim/devices/hdsim"$HDSIM_ID" ] &&
		echo "$HDSIM_ID" > /sys/bus/hdsim/del_device
	[ -n "$HDSIM_NS" ] && [ -e /run/netns/"$HDSIM_NS" ] &&
		ip netns del "$HDSIM_NS"
	return 0
}

debugfs_mounted()
{
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
}

# wait_line <file> <regex>: until a line of <file> matches (20 s). The
# file must be new: a writer started in the background opens (and
# truncates) it later than the next command of the caller runs, so a
# line left by an earlier run would match at once. Callers that reuse
# a name empty it first (: > file).
wait_line()
{
	local i

	for i in $(seq 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# socat_addr <addr>: IPv6 addresses in brackets
socat_addr()
{
	case $1 in
	*:*) echo "[$1]" ;;
	*) echo "$1" ;;
	esac
}
