#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Devmem TX on an hdsim pair: ncdevmem's client mode binds a udmabuf for
# TX, reads stdin into it and sends it with sendmsg(MSG_ZEROCOPY) and an
# SCM_DEVMEM_DMABUF cmsg. Every stream is checked by sha256 at the
# receiver, hdsim's DMA engine must have fetched every payload byte from
# device memory (its tx_devmem_bytes counter), the kernel must not have
# copied any send, and once the sender is gone no dmabuf may be left
# (the TX binding holds one until its last skb completed). Receivers: a
# stock one (socat), and ncdevmem receiving into device memory, in both
# directions. Then SIGKILL and device deletion with sends in flight.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/hdsim_env.sh
. ./devmem_env.sh
. ./tx_env.sh

ID=26
PORT=5240
PATTERN=$(printf '\001\002\003\004\005\006')
TMP=$(mktemp -d)
trap 'hdsim_cleanup; rm -rf "$TMP"' EXIT

PLAN=16
ktap_plan $PLAN
if [ ! -d /sys/bus/hdsim ] || [ ! -e /dev/udmabuf ]; then
	for i in $(seq $PLAN); do ktap_skip "devmem tx $i" "no hdsim or udmabuf"; done
	ktap_finish
fi
debugfs_mounted
if ! hdsim_pair "$ID" "devmem-tx-$ID" 192.0.2 2001:db8:7; then
	for i in $(seq $PLAN); do ktap_fail "devmem tx $i" "no hdsim pair"; done
	ktap_finish
fi
NS=$HDSIM_NS
head -c $((4 << 20)) /dev/urandom > "$TMP/random"

# the device's count of bytes fetched from device memory
tx_fetched()
{
	ethtool -S "$IF" | sed -n 's/^ *tx_devmem_bytes: //p'
}

# wait (up to 30 s) until the device has fetched more than $1 bytes:
# a stream started in the background is sending from device memory
tx_wait_fetched()
{
	local i

	for i in $(seq 300); do
		[ "$(tx_fetched)" -gt "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

tx_delete()
{
	echo "$ID" > /sys/bus/hdsim/del_device
}

ktap_check "ipv4: 4 MiB to socat, fetched from device memory" \
	tx_case v4 192.0.2.2 "$TMP/random"
stream_check "ipv6: 4 MiB to socat, fetched from device memory" \
	tx_case v6 2001:db8:7::2 "$TMP/random"

# upstream's check_tx_chunks: every iovec 3 bytes long
seq 1 20000 > "$TMP/lines"
stream_check "chunked: 3-byte iovecs (-z 3)" \
	tx_case v4 192.0.2.2 "$TMP/lines" -z 3

# GPU memory through the stand-in runtimes (fake_gpu.c, udmabuf under
# them): ncdevmem writes what it sends with cuMemcpyHtoD / hipMemcpy
for kind in cuda rocm; do
	LD_LIBRARY_PATH=$PWD stream_check \
		"$kind memory (fake runtime): 4 MiB written host to device, sent" \
		tx_case v4 192.0.2.2 "$TMP/random" --memory $kind
done
# ncdevmem --self-check: the provider alone (the same run on an H100
# with the real CUDA runtime is in the README), and its skip without one
self_check()
{
	local out

	out=$(LD_LIBRARY_PATH=$PWD ./ncdevmem --self-check --memory "$1" \
	      --size $((16 << 20))) || { echo "$out" | sed 's/^/# /'; return 1; }
	echo "$out" | sed 's/^/# /'
	echo "$out" | grep -q "read back 16777216 bytes in [0-9]* fragments.*: 0 errors"
}
for kind in cuda rocm; do
	ktap_check "$kind memory (fake runtime): --self-check, written and validated back" \
		self_check $kind
done
no_runtime()
{
	./ncdevmem --self-check --memory cuda > /dev/null 2>&1
	[ $? = 4 ]
}
if ldconfig -p 2>/dev/null | grep -q "libcuda\.so\.1 "; then
	ktap_skip "--self-check --memory cuda without a CUDA runtime: skip (exit 4)" \
		"a CUDA runtime is installed here"
else
	ktap_check "--self-check --memory cuda without a CUDA runtime: skip (exit 4)" \
		no_runtime
fi

# streaming: DEVMEM_TX_LONG_MIB (default 1024)
LONG_MIB=${DEVMEM_TX_LONG_MIB:-1024}
ktap_check "$LONG_MIB MiB streamed through a 1 MiB dmabuf, sha256" \
	stream_case 192.0.2.2 "$LONG_MIB"

# device memory to device memory: ncdevmem TX into ncdevmem RX, one way
# and back (hdsim ports both opt in)
yes "$PATTERN" | head -c $((8 << 20)) > "$TMP/stream8"
stream_check "device memory to device memory: host end to peer, 8 MiB" \
	d2d "" "$IF" "ip netns exec $NS" "$PEER" 192.0.2.2
ktap_check "device memory to device memory: peer to host end, 8 MiB" \
	d2d "ip netns exec $NS" "$PEER" "" "$IF" 192.0.2.1

# tc on the sending port: device memory may leave only through the
# binding's device. A mirror's copy of each segment reaches a veth,
# whose validate_xmit_skb() drops it (tx_dropped) while the original
# goes out; a redirect for a second drops the segments it takes, and TCP
# resends them once it is gone. The stream arrives intact either way.
veth_dropped()
{
	cat /sys/class/net/txm0/statistics/tx_dropped
}

tc_case()
{
	local action=$1 before pid rc=0 fetched

	fetched=$(tx_fetched)

	ip link add txm0 type veth peer name txm1 &&
	ip link set txm0 up && ip link set txm1 up &&
	tc qdisc add dev "$IF" clsact || return 1
	before=$(veth_dropped)
	if [ "$action" = mirror ]; then
		tc filter add dev "$IF" egress matchall \
			action mirred egress mirror dev txm0 &&
		tx_case v4 192.0.2.2 "$TMP/random" || rc=1
	else
		tx_case v4 192.0.2.2 "$TMP/redirect" &
		pid=$!
		# once hdsim fetches the first payload from device memory
		tx_wait_fetched "$fetched"
		tc filter add dev "$IF" egress matchall \
			action mirred egress redirect dev txm0
		sleep 1
		tc filter del dev "$IF" egress
		wait $pid || rc=1
	fi
	echo "# $(($(veth_dropped) - before)) device-memory skbs dropped at the veth"
	[ $(($(veth_dropped) - before)) -gt 0 ] || rc=1
	tc qdisc del dev "$IF" clsact
	ip link del txm0
	return $rc
}
# the redirect hits a stream of up to 64 MiB (8 on the debug kernel)
yes "$PATTERN" | head -c $(((LONG_MIB < 64 ? LONG_MIB : 64) << 20)) > "$TMP/redirect"
ktap_check "tc mirror to a veth: its copies dropped and counted, the stream intact" \
	tc_case mirror
ktap_check "tc redirect to a veth for 1 s mid-stream: dropped, resent, intact" \
	tc_case redirect

# Scatter-gather and checksum offload turned off under a devmem stream:
# software GSO would have to copy the payload out of device memory and
# sum it, which the CPU cannot do. skb_segment() refuses, the segments
# are dropped at xmit (tx_dropped), TCP resends them once the offloads
# are back, and the stream arrives intact: never zeros with a valid
# checksum.
if_dropped()
{
	cat "/sys/class/net/$IF/statistics/tx_dropped"
}

offload_case()
{
	local before fetched pid rc=0

	fetched=$(tx_fetched)
	before=$(if_dropped)
	tx_case v4 192.0.2.2 "$TMP/redirect" &
	pid=$!
	tx_wait_fetched "$fetched"
	ethtool -K "$IF" tx off sg off || rc=1
	sleep 1
	ethtool -K "$IF" tx on sg on tso on || rc=1
	wait $pid || rc=1
	echo "# $(($(if_dropped) - before)) device-memory skbs dropped at $IF"
	[ $(($(if_dropped) - before)) -gt 0 ] || rc=1
	return $rc
}
ktap_check "sg and tx checksum off for 1 s mid-stream: dropped, never zeros, intact" \
	offload_case

ktap_check "SIGKILL mid-send: binding and dmabuf released" in_flight kill 192.0.2.2
ktap_check "device deleted mid-send: binding and dmabuf released" \
	in_flight delete 192.0.2.2

ktap_finish
