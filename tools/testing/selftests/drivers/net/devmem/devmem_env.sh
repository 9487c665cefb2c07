# SPDX-License-Identifier: GPL-2.0
# Shared setup for the devmem shell selftests; sourced after
# ../lib/ktap.sh and ../lib/hdsim_env.sh (hdsim port pairs): leak checks
# over netlink page-pool-get, the kernel's devmem counters in debugfs.

NCDEVMEM=${NCDEVMEM:-./ncdevmem}
TCP_RX=/sys/kernel/debug/devmem/tcp_rx

# Bindings still alive: distinct dmabuf ids of the page pools (a binding
# lives as long as a pool uses it, bound or detached with net_iovs out).
live_bindings()
{
	"$NCDEVMEM" --pools | grep -o 'dmabuf [1-9][0-9]*' | sort -u | wc -l
}

wait_no_bindings()
{
	local i

	for i in $(seq 100); do
		[ "$(live_bindings)" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}

# Device-memory fragments handed out so far, all sockets (shell builtins
# only: cheap to poll).
tcp_rx_frags()
{
	local name value

	while read -r name value; do
		[ "$name" = frags ] && { echo "$value"; return; }
	done < "$TCP_RX"
	echo 0
}
