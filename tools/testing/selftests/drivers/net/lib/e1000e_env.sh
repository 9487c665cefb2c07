# SPDX-License-Identifier: GPL-2.0
# e1000e port pairs for the real-driver devmem tests; sourced.
#
#   e1000e_pair <netns> <v4 prefix> <v6 prefix>
#	takes the VM's first two e1000e ports (QEMU joins them back to back
#	through a hub, see harness/vm.sh), in PCI order, or the two named
#	in E1000E_PORTS ("IF PEER"): sets IF (host
#	end, <v4>.1, <v6>::1, up) and PEER (moved into <netns>, <v4>.2,
#	<v6>::2, up), MTU 1500 on both, TSO off on PEER (below). A
#	namespace <netns> left by a killed run goes first (its port comes
#	back with it). Returns 1, with E1000E_WHY set, when the VM has no
#	two e1000e ports.
#   e1000e_sender_tso on|off	TSO on PEER
#   e1000e_wait_link	until both ports have carrier (10 s)
#   e1000e_cleanup	deletes <netns> (PEER comes back), flushes IF
#   e1000e_bdf <ifname>	PCI address of a port
#   dma_api_errors	DMA API errors so far (CONFIG_DMA_API_DEBUG), empty
#	on a kernel without it
#   dma_api_clean <count>	no DMA API error since dma_api_errors said
#	<count> (true on a kernel without DMA API debugging)
#   e1000e_p2p_ports	in the VM_P2P layout (harness/vm.sh): sets P2PDEV
#	(/dev/p2pbufN), P2P (its PCI address), NEAR (the port under the
#	same PCIe switch), FAR (the first port on the root complex) and
#	SENDER (the port joined to NEAR); MF_PORT and MF_P2PDEV, MF_P2P
#	(the port and the BAR that are two functions of one device below a
#	root port), empty where the layout has none; returns 1, with
#	E1000E_WHY set, outside that layout

E1000E_NS=
E1000E_WHY=

e1000e_ports()
{
	local d

	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = e1000e ] &&
			echo "$(basename "$(readlink "$d/device")") ${d##*/}"
	done | sort | cut -d' ' -f2
}

e1000e_bdf()
{
	basename "$(readlink "/sys/class/net/$1/device")"
}

# With CONFIG_DMA_API_DEBUG the kernel tracks every mapping per device:
# a PCI function unbound (hot-remove) with mappings of it left, an unmap
# of what was not mapped, a wrong direction or size are errors, counted
# in debugfs (the first also printed, with a warning).
dma_api_errors()
{
	cat /sys/kernel/debug/dma-api/error_count 2>/dev/null
}

dma_api_clean()
{
	local now

	[ -n "$1" ] || return 0
	now=$(dma_api_errors)
	echo "# DMA API debugging: $((now - $1)) new errors ($now in all)"
	[ "$now" = "$1" ] && return 0
	dmesg | grep "DMA-API" | tail -n 5 | sed 's/^/# /'
	return 1
}

# QEMU 7.2's 82574L model, sending to a peer without virtio-net headers
# (the hub), does not cut a TSO frame into TCP segments: it sends it as
# IP fragments. The receiving 82574L splits a fragment after its IP
# header, so the first fragment's TCP header lands in the payload
# buffer: device memory while the queue is bound, where the stack
# cannot read it and drops the datagram (the stream then crawls on
# retransmits of single segments, about 1% of copy's goodput). A real
# 82574L segments. The senders here segment in software (GSO) unless
# a test asks for the model's fragments (e1000e_rx.sh does, once).
e1000e_sender_tso()
{
	ip netns exec "$E1000E_NS" ethtool -K "$PEER" tso "$1" > /dev/null
}

e1000e_pair()
{
	local ports i

	E1000E_NS=$1
	[ -e /run/netns/"$E1000E_NS" ] && ip netns del "$E1000E_NS" && sleep 1
	ports=${E1000E_PORTS:-$(e1000e_ports)}
	# the ports of a namespace deleted just before (the previous test's)
	# come back to this one once its last socket is gone: wait for every
	# bound port (e1000e_cleanup makes that seconds)
	for i in $(seq 120); do
		[ -n "${E1000E_PORTS:-}" ] && break
		[ "$(echo $ports | wc -w)" -ge \
		  "$(ls -d /sys/bus/pci/drivers/e1000e/0000:* 2>/dev/null | wc -l)" ] &&
			break
		sleep 0.5
		ports=$(e1000e_ports)
	done
	# the first two (the VM_P2P layout has four)
	set -- $(echo $ports | cut -d' ' -f1,2) "$@"
	if [ $# -lt 5 ]; then
		E1000E_WHY="the VM has no two e1000e ports (QEMU without e1000e, or VM_E1000E=0)"
		return 1
	fi
	IF=$1
	PEER=$2
	ip netns add "$E1000E_NS" || return 1
	ip link set "$PEER" netns "$E1000E_NS" || return 1
	# one ip per namespace: each ip started costs most of a second
	# under TCG (its libraries loaded and relocated)
	ip -force -batch - <<-EOF
		addr flush dev $IF
		link set $IF mtu 1500
		addr add $4.1/24 dev $IF
		addr add $5::1/64 dev $IF nodad
		link set $IF up
	EOF
	ip -n "$E1000E_NS" -force -batch - <<-EOF
		link set $PEER mtu 1500
		addr add $4.2/24 dev $PEER
		addr add $5::2/64 dev $PEER nodad
		link set $PEER up
		link set lo up
	EOF
	e1000e_sender_tso off || return 1
	# Neighbours are static: IPv6 neighbour discovery is ICMPv6, whose
	# body lands in device memory while the port's only Rx queue is
	# bound, where no one can read it (ARP is not IP: never split).
	ip -6 neigh replace "$5::2" dev "$IF" nud permanent \
		lladdr "$(ip -n "$E1000E_NS" -br link show "$PEER" | awk '{print $3}')"
	ip -n "$E1000E_NS" -6 neigh replace "$5::1" dev "$PEER" nud permanent \
		lladdr "$(ip -br link show "$IF" | awk '{print $3}')"
	# the emulated link comes up a while after the port
	e1000e_wait_link && return 0
	E1000E_WHY="no link between $IF and $PEER"
	return 1
}

e1000e_wait_link()
{
	local i

	for i in $(seq 100); do
		ip -n "$E1000E_NS" link show "$PEER" | grep -q LOWER_UP &&
			ip link show "$IF" | grep -q LOWER_UP && return 0
		sleep 0.1
	done
	return 1
}

e1000e_cleanup()
{
	# An orphaned socket with data in flight (a sender killed mid-stream)
	# keeps its namespace, and the port in it, for minutes of
	# retransmits: one orphan retry there ends it in seconds.
	if [ -n "$E1000E_NS" ] && [ -e /run/netns/"$E1000E_NS" ]; then
		ip netns exec "$E1000E_NS" sysctl -qw net.ipv4.tcp_orphan_retries=1
		ip netns del "$E1000E_NS"
	fi
	[ -n "${IF:-}" ] && [ -e /sys/class/net/"$IF" ] && ip addr flush dev "$IF"
	return 0
}

e1000e_p2p_ports()
{
	local p2p_path path nic p d

	if ! ls /dev/p2pbuf* > /dev/null 2>&1; then
		E1000E_WHY="no /dev/p2pbuf* (CONFIG_DMABUF_P2PBUF and ivshmem-plain: VM_P2P=1)"
		return 1
	fi
	NEAR= FAR= SENDER= MF_PORT= MF_P2PDEV= MF_P2P= P2PDEV= P2P=
	# the BAR below the switch: the one an e1000e port shares its path
	# with (/sys/devices/pci0000:00/<root port>/<switch upstream port>/...);
	# which BAR is /dev/p2pbuf0 depends on the order they probed in
	for d in /dev/p2pbuf*; do
		path=$(readlink -f "/sys/class/misc/${d#/dev/}/device")
		p2p_path=$(echo "$path" | cut -d/ -f5,6)
		for p in $(e1000e_ports); do
			nic=$(readlink -f "/sys/class/net/$p/device")
			[ "$(echo "$nic" | cut -d/ -f5,6)" = "$p2p_path" ] ||
				continue
			P2PDEV=$d
			P2P=$(basename "$path")
		done
	done
	if [ -z "$P2PDEV" ]; then
		E1000E_WHY="no e1000e port under the switch of a p2pbuf BAR"
		E1000E_WHY+=" (ports: $(e1000e_ports | xargs))"
		return 1
	fi
	# ncdevmem --memory p2p takes this one
	export P2PBUF_DEV=$P2PDEV
	p2p_path=$(readlink -f "/sys/bus/pci/devices/$P2P" | cut -d/ -f5,6)
	for p in $(e1000e_ports); do
		path=$(readlink -f "/sys/class/net/$p/device" | cut -d/ -f5,6)
		if [ "$path" = "$p2p_path" ]; then
			NEAR=$p
		elif [ "${path#*/}" != "$path" ]; then
			MF_PORT=$p	# below a root port, not the switch
		elif [ -z "$FAR" ]; then
			FAR=$p
		else
			SENDER=$p	# the last port on the root complex
		fi
	done
	# the BAR beside MF_PORT: function 1 of its device
	for d in /dev/p2pbuf*; do
		path=$(basename "$(readlink "/sys/class/misc/${d#/dev/}/device")")
		if [ -n "$MF_PORT" ] &&
		   [ "${path%.*}" = "$(e1000e_bdf "$MF_PORT" | sed 's/\.[0-7]$//')" ]; then
			MF_P2PDEV=$d
			MF_P2P=$path
		fi
	done
	[ -n "$NEAR" ] && [ -n "$SENDER" ] && return 0
	E1000E_WHY="no e1000e port under the switch of $P2P (ports: $(e1000e_ports | xargs))"
	return 1
}
