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

ID=26
PORT=5240
PATTERN=$(printf '\001\002\003\004\005\006')
BUFINFO=/sys/kernel/debug/dma_buf/bufinfo
TMP=$(mktemp -d)
trap 'hdsim_cleanup; rm -rf "$TMP"' EXIT

PLAN=9
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

tx_devmem_bytes()
{
	ethtool -S "$IF" | sed -n 's/^ *tx_devmem_bytes: //p'
}

# wait_no_dmabufs [seconds]: until no dmabuf is alive in the kernel
# (every binding and udmabuf gone; 10 s)
wait_no_dmabufs()
{
	local i

	for i in $(seq $((${1:-10} * 10))); do
		[ "$(sed -n 's/^Total \([0-9]*\) objects.*/\1/p' "$BUFINFO")" = 0 ] &&
			return 0
		sleep 0.1
	done
	echo "# left: $(grep -c '^[0-9]' "$BUFINFO") dmabufs"
	ss -tanemoi | sed 's/^/# /'
	sed 's/^/# /' "$BUFINFO"
	return 1
}

# listen_peer <v4|v6> [sha256]: socat in the namespace, writing to
# $TMP/recv, or with "sha256" only the sha256 of what it received to
# $TMP/recv.sha256 (long streams); $SPID: the last process of the two
listen_peer()
{
	local i listen

	listen="TCP$([ "$1" = v6 ] && echo 6)-LISTEN:$PORT,reuseaddr"
	: > "$TMP/recv"
	if [ "${2:-}" = sha256 ]; then
		ip netns exec "$NS" socat -u "$listen" STDOUT 2> "$TMP/socat.err" |
			sha256sum > "$TMP/recv.sha256" &
	else
		ip netns exec "$NS" socat -u "$listen" "OPEN:$TMP/recv,creat,trunc" \
			2> "$TMP/socat.err" &
	fi
	SPID=$!
	for i in $(seq 100); do
		ip netns exec "$NS" ss -Hltn "sport = :$PORT" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# tx_case <v4|v6> <server addr> <input file> [ncdevmem args]: one send
# to socat, checked
tx_case()
{
	local family=$1 addr=$2 in=$3 before after rc bytes

	shift 3
	listen_peer "$family" || { echo "# socat did not listen"; return 1; }
	before=$(tx_devmem_bytes)
	./ncdevmem -f "$IF" -s "$addr" -p $PORT "$@" < "$in" \
		> "$TMP/tx.out" 2> "$TMP/tx.err"
	rc=$?
	wait $SPID
	after=$(tx_devmem_bytes)
	bytes=$(stat -c %s "$in")
	sed 's/^/# /' "$TMP/tx.out" "$TMP/tx.err"
	[ $rc = 0 ] || { echo "# ncdevmem exited $rc"; return 1; }
	[ "$(sha256sum < "$in")" = "$(sha256sum < "$TMP/recv")" ] ||
		{ echo "# sha256 differs ($(stat -c %s "$TMP/recv") bytes received)"; return 1; }
	grep -q "^sent $bytes bytes from device memory .*, 0 completions copied" "$TMP/tx.out" ||
		return 1
	[ $((after - before)) -ge "$bytes" ] ||
		{ echo "# hdsim fetched $((after - before)) bytes from device memory"; return 1; }
	wait_no_dmabufs
}

ktap_check "ipv4: 4 MiB to socat, fetched from device memory" \
	tx_case v4 192.0.2.2 "$TMP/random"
ktap_check "ipv6: 4 MiB to socat, fetched from device memory" \
	tx_case v6 2001:db8:7::2 "$TMP/random"

# upstream's check_tx_chunks: every iovec 3 bytes long
seq 1 20000 > "$TMP/lines"
ktap_check "chunked: 3-byte iovecs (-z 3)" \
	tx_case v4 192.0.2.2 "$TMP/lines" -z 3

# streaming: DEVMEM_TX_LONG_MIB (default 1024) of a pattern made on the
# fly, through a 1 MiB dmabuf whose halves are reused once their sends
# completed; the receiver and the sender side only keep a sha256
LONG_MIB=${DEVMEM_TX_LONG_MIB:-1024}
stream_case()
{
	local bytes=$((LONG_MIB << 20)) before after rc

	listen_peer v4 sha256 || { echo "# socat did not listen"; return 1; }
	before=$(tx_devmem_bytes)
	yes "$PATTERN" | head -c $bytes | tee >(sha256sum > "$TMP/sent.sha256") |
		./ncdevmem -f "$IF" -s 192.0.2.2 -p $PORT --size $((1 << 20)) \
		> "$TMP/tx.out" 2> "$TMP/tx.err"
	rc=$?
	wait $SPID
	after=$(tx_devmem_bytes)
	sed 's/^/# /' "$TMP/tx.out" "$TMP/tx.err"
	[ $rc = 0 ] || { echo "# ncdevmem exited $rc"; return 1; }
	# tee's sha256sum may still be finishing
	for i in $(seq 100); do
		[ -s "$TMP/sent.sha256" ] && break
		sleep 0.1
	done
	[ "$(cat "$TMP/sent.sha256")" = "$(cat "$TMP/recv.sha256")" ] ||
		{ echo "# sha256 differs"; return 1; }
	grep -q "^sent $bytes bytes from device memory in $((bytes >> 19)) sendmsg calls, 0 completions copied" \
		"$TMP/tx.out" || return 1
	[ $((after - before)) -ge "$bytes" ] ||
		{ echo "# hdsim fetched $((after - before)) bytes from device memory"; return 1; }
	wait_no_dmabufs
}
ktap_check "$LONG_MIB MiB streamed through a 1 MiB dmabuf, sha256" stream_case

# device memory to device memory: ncdevmem TX into ncdevmem RX, one way
# and back (hdsim ports both opt in)
d2d()
{
	local from_ns=$1 from_if=$2 to_ns=$3 to_if=$4 addr=$5 rpid rc

	: > "$TMP/rx.log"
	$to_ns ./ncdevmem -l -f "$to_if" -s "$addr" -p $PORT -v 7 --sha256 \
		> "$TMP/rx.out" 2> "$TMP/rx.log" &
	rpid=$!
	wait_line "$TMP/rx.log" "^listening" ||
		{ echo "# no listener: $(cat "$TMP/rx.log")"; return 1; }
	$from_ns ./ncdevmem -f "$from_if" -s "$addr" -p $PORT \
		< "$TMP/stream8" > "$TMP/tx.out" 2> "$TMP/tx.err"
	rc=$?
	wait $rpid || { sed 's/^/# /' "$TMP/rx.out" "$TMP/rx.log"; return 1; }
	sed 's/^/# /' "$TMP/tx.out" "$TMP/tx.err"
	[ $rc = 0 ] || return 1
	grep -q "^received $((8 << 20)) bytes: $((8 << 20)) in device memory" "$TMP/rx.out" ||
		{ sed 's/^/# /' "$TMP/rx.out"; return 1; }
	grep -q "sha256 $(sha256sum < "$TMP/stream8" | cut -d' ' -f1)" "$TMP/rx.out" ||
		{ echo "# sha256 differs"; return 1; }
	wait_no_dmabufs
}
yes "$PATTERN" | head -c $((8 << 20)) > "$TMP/stream8"
ktap_check "device memory to device memory: host end to peer, 8 MiB" \
	d2d "" "$IF" "ip netns exec $NS" "$PEER" 192.0.2.2
ktap_check "device memory to device memory: peer to host end, 8 MiB" \
	d2d "ip netns exec $NS" "$PEER" "" "$IF" 192.0.2.1

# in_flight <what>: a 256 MiB send from device memory, hit by <what>
# two seconds in; every dmabuf must be gone afterwards. With the device
# deleted, nothing acknowledges the skbs in flight: they hold the binding
# until TCP gives the orphaned socket up, which one orphan retry makes
# quick.
in_flight()
{
	local pid retries rc

	listen_peer v4 || return 1
	yes "$PATTERN" | head -c $((256 << 20)) |
		./ncdevmem -f "$IF" -s 192.0.2.2 -p $PORT --size $((4 << 20)) \
		> "$TMP/tx.out" 2> "$TMP/tx.err" &
	pid=$!
	sleep 2
	case $1 in
	kill)
		kill -9 $pid
		;;
	delete)
		retries=$(sysctl -n net.ipv4.tcp_orphan_retries)
		sysctl -qw net.ipv4.tcp_orphan_retries=1
		echo "$ID" > /sys/bus/hdsim/del_device
		sleep 1
		kill -9 $pid
		;;
	esac
	wait $pid
	kill $SPID 2>/dev/null
	wait $SPID 2>/dev/null
	wait_no_dmabufs 60
	rc=$?
	[ -n "$retries" ] && sysctl -qw net.ipv4.tcp_orphan_retries="$retries"
	return $rc
}
ktap_check "SIGKILL mid-send: binding and dmabuf released" in_flight kill
ktap_check "device deleted mid-send: binding and dmabuf released" \
	in_flight delete

ktap_finish
