# SPDX-License-Identifier: GPL-2.0
# Shared setup for the devmem shell selftests; sourced after
# ../lib/ktap.sh and ../lib/hdsim_env.sh (hdsim port pairs): the devmem
# debugfs leak accounting.

BINDINGS=/sys/kernel/debug/devmem/bindings

# Bindings still alive (bound, or unbound with net_iovs in flight).
live_bindings()
{
	echo $(($(wc -l < "$BINDINGS") - 1))
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
