#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End to end: stock TCP senders in a network namespace stream to ncdevmem
# on an hdsim port with a udmabuf bound; every byte is validated from the
# dmabuf, and every binding is gone afterwards.

cd "$(dirname "$0")" || exit 1
. ./ktap.sh

ID=$((2000 + $$ % 50000))
NS=devmem-peer-$ID
PORT=5201
PATTERN=$(printf '\001\002\003\004\005\006')
BINDINGS=/sys/kernel/debug/devmem/bindings
TMP=$(mktemp -d)

cleanup()
{
	ip netns del "$NS" 2>/dev/null
	echo "$ID" > /sys/bus/hdsim/del_device 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

port_name()
{
	local dev

	for dev in /sys/bus/hdsim/devices/hdsim"$ID"/net/*; do
		[ "$(cat "$dev/dev_port")" = "$1" ] && basename "$dev"
	done
}

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

# wait_listen <log>: until ncdevmem says it listens
wait_listen()
{
	local i

	for i in $(seq 200); do
		grep -q "^listening" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

socat_addr()
{
	case $1 in
	*:*) echo "[$1]" ;;
	*) echo "$1" ;;
	esac
}

# rx_case <name> <server addr> <bytes> <sender> [ncdevmem args...]
rx_case()
{
	local name=$1 addr=$2 bytes=$3 sender=$4
	local log=$TMP/rx.log out=$TMP/rx.out want got pid rc

	shift 4
	head -c "$bytes" < "$TMP/data" > "$TMP/send"
	want=$(sha256sum < "$TMP/send" | cut -d' ' -f1)

	./ncdevmem -l -f "$IF" -s "$addr" -p $PORT -v 7 --sha256 --stats \
		"$@" > "$out" 2> "$log" &
	pid=$!
	if ! wait_listen "$log"; then
		kill $pid 2>/dev/null
		ktap_fail "$name" "ncdevmem did not start: $(cat "$log")"
		return
	fi

	case $sender in
	socat)	ip netns exec "$NS" socat -u "FILE:$TMP/send" \
			"TCP:$(socat_addr "$addr"):$PORT" ;;
	ncat)	ip netns exec "$NS" ncat --send-only "$addr" $PORT \
			< "$TMP/send" ;;
	esac || kill $pid 2>/dev/null
	wait $pid
	rc=$?

	got=$(sed -n 's/^sha256 //p' "$out")
	if [ $rc != 0 ]; then
		ktap_fail "$name" "ncdevmem exit $rc: $(cat "$log" "$out")"
	elif ! grep -q "^received $bytes bytes: $bytes in device memory" "$out"; then
		ktap_fail "$name" "not all in device memory: $(head -n1 "$out")"
	elif ! grep -q ": 0 errors" "$out"; then
		ktap_fail "$name" "validation: $(grep validated "$out")"
	elif [ "$got" != "$want" ]; then
		ktap_fail "$name" "sha256 $got, sender $want"
	elif ! wait_no_bindings; then
		ktap_fail "$name" "binding left behind: $(cat $BINDINGS)"
	else
		ktap_pass "$name ($bytes bytes, sha256 ok)"
	fi
}

ktap_plan 9

if [ ! -d /sys/bus/hdsim ] || [ ! -e /dev/udmabuf ]; then
	for i in $(seq 9); do ktap_skip "devmem rx $i" "no hdsim or udmabuf"; done
	ktap_finish
fi
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

echo "$ID 4" > /sys/bus/hdsim/new_device
IF=$(port_name 0)
PEER=$(port_name 1)
ip netns add "$NS"
ip link set "$PEER" netns "$NS"
ip addr add 192.0.2.1/24 dev "$IF"
ip -6 addr add 2001:db8::1/64 dev "$IF" nodad
ip link set "$IF" up
ip -n "$NS" addr add 192.0.2.2/24 dev "$PEER"
ip -n "$NS" -6 addr add 2001:db8::2/64 dev "$PEER" nodad
ip -n "$NS" link set "$PEER" up
ip -n "$NS" link set lo up

yes "$PATTERN" | head -c $((64 << 20)) > "$TMP/data"

rx_case "ipv4 socat 1 MiB one queue" 192.0.2.1 $((1 << 20)) socat
rx_case "ipv4 socat 16 MiB one queue" 192.0.2.1 $((16 << 20)) socat
rx_case "ipv6 socat 16 MiB one queue" 2001:db8::1 $((16 << 20)) socat
rx_case "ipv4 ncat 16 MiB two queues" 192.0.2.1 $((16 << 20)) ncat -q 2
rx_case "ipv4 5-tuple rule" 192.0.2.1 $((4 << 20)) socat -c 192.0.2.2
rx_case "ipv6 ncat 4 MiB queue 2" 2001:db8::1 $((4 << 20)) ncat -t 2

# several connections, one after the other, on one binding
seq_case()
{
	local log=$TMP/seq.log out=$TMP/seq.out pid i ok=1

	head -c $((2 << 20)) < "$TMP/data" > "$TMP/send"
	for i in 1 2 3; do
		./ncdevmem -l -f "$IF" -s 192.0.2.1 -p $PORT -v 7 \
			> "$out" 2> "$log" &
		pid=$!
		wait_listen "$log" || ok=0
		ip netns exec "$NS" socat -u "FILE:$TMP/send" \
			"TCP:192.0.2.1:$PORT" || ok=0
		wait $pid || ok=0
		grep -q ": 0 errors" "$out" || ok=0
	done
	[ $ok = 1 ]
}
ktap_check "three sequential bind/receive/unbind cycles" seq_case

# upstream's bind self-tests (ncdevmem without -s and -c)
ktap_check "ncdevmem bind self-tests" ./ncdevmem -f "$IF"

# the NIC setup was put back
if ethtool -n "$IF" 2>/dev/null | grep -q "Filter:"; then
	ktap_fail "nic setup restored" "flow rules left: $(ethtool -n "$IF")"
else
	ktap_pass "nic setup restored (no flow rules left)"
fi
ktap_finish
