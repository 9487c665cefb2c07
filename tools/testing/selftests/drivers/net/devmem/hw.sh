#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hardware mode: the end-to-end devmem cases against any NIC, configured
# the way upstream's drivers/net/hw tests are, in the environment or in
# a file of KEY=VALUE lines named by NET_CFG (default ./net.config):
#
#   NETIF		the port under test (header split, flow rules, queues)
#   LOCAL_V4 LOCAL_V6	its addresses (either family, or both)
#   REMOTE_V4 REMOTE_V6	the addresses of the far end
#   REMOTE_TYPE		netns (the far end is a network namespace here) or
#			ssh (another machine)
#   REMOTE_ARGS		the namespace's name, or ssh's destination
#			(and options)
#
# The far end needs socat and sha256sum. ncdevmem configures the NIC
# itself (header split, flow rule, RSS) and puts it back, as upstream's
# does. Cases: a validated receive per family, a send from device memory
# checked at the far end, single-segment payloads from 1 byte to the MSS
# each wholly in device memory, 16 KiB net_iovs, and an RSS context over
# the last two queues carrying 8 connections (ncdevmem -n). A case the
# NIC cannot run (no RSS contexts, no large net_iovs) is skipped with the
# reason; one it can run and fails is a failure.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/hdsim_env.sh	# wait_line, socat_addr

NET_CFG=${NET_CFG:-./net.config}
# shellcheck disable=SC1090
[ -f "$NET_CFG" ] && . "$NET_CFG"
PORT=${HW_PORT:-5301}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PLAN=8
ktap_plan $PLAN

why=
[ -n "${NETIF:-}" ] && [ -e "/sys/class/net/$NETIF" ] ||
	why="NETIF '${NETIF:-}' is not a port here"
[ -n "${LOCAL_V4:-}${LOCAL_V6:-}" ] || why="${why:-neither LOCAL_V4 nor LOCAL_V6}"
case ${REMOTE_TYPE:-} in
netns|ssh) ;;
*) why=${why:-"REMOTE_TYPE '${REMOTE_TYPE:-}' is neither netns nor ssh"} ;;
esac
if [ -n "$why" ]; then
	for i in $(seq $PLAN); do ktap_skip "hw $i" "$why"; done
	ktap_finish
fi

# remote <shell command line>: run it at the far end
remote()
{
	if [ "$REMOTE_TYPE" = netns ]; then
		ip netns exec "$REMOTE_ARGS" sh -c "$1"
	else
		# shellcheck disable=SC2086
		ssh -o BatchMode=yes $REMOTE_ARGS "$1"
	fi
}

# Until NETIF has carrier again (10 s): turning header split on or off
# resets some NICs (e1000e), and a connection tried before the link is
# back fails with "No route to host".
wait_carrier()
{
	local i

	for i in $(seq 100); do
		[ "$(cat "/sys/class/net/$NETIF/carrier" 2>/dev/null)" = 1 ] &&
			return 0
		sleep 0.1
	done
	echo "# $NETIF: no carrier after 10 s"
	return 1
}

# the far end sends <bytes> of ncdevmem's -v 7 pattern to <addr>; its
# connect is retried for 10 s (the far end's link may be coming back too)
remote_send()
{
	remote "yes \"\$(printf '\\001\\002\\003\\004\\005\\006')\" | head -c $2 |
		socat -u STDIN TCP:$(socat_addr "$1"):$PORT,retry=100,interval=0.1"
}

want_sha()
{
	yes "$(printf '\001\002\003\004\005\006')" | head -c "$1" | sha256sum |
		cut -d' ' -f1
}

# rx <bytes> <local addr> <remote addr> [ncdevmem args]: one stream into
# device memory, checked by ncdevmem (pattern, sha256); "$TMP/out" has
# ncdevmem's report afterwards
rx()
{
	local bytes=$1 addr=$2 peer=$3 pid rc

	shift 3
	: > "$TMP/log"
	./ncdevmem -l -f "$NETIF" -s "$addr" -c "$peer" -p $PORT -v 7 --sha256 \
		"$@" > "$TMP/out" 2> "$TMP/log" &
	pid=$!
	wait_line "$TMP/log" "^listening" && wait_carrier ||
		{ kill $pid 2>/dev/null; wait $pid; cat "$TMP/log"; return 1; }
	remote_send "$addr" "$bytes" || kill $pid 2>/dev/null
	wait $pid
	rc=$?
	[ $rc = 0 ] &&
		grep -q "^received $bytes bytes: $bytes in device memory" "$TMP/out" &&
		grep -q ": 0 errors" "$TMP/out" &&
		[ "$(sed -n 's/^sha256 //p' "$TMP/out")" = "$(want_sha "$bytes")" ] &&
		return 0
	echo "# ncdevmem exit $rc"
	sed 's/^/# /' "$TMP/log" "$TMP/out" | tail -n 20
	return 1
}

rx_case()
{
	local fam=$1 addr peer

	addr=$(eval echo "\${LOCAL_$fam:-}")
	peer=$(eval echo "\${REMOTE_$fam:-}")
	if [ -z "$addr" ] || [ -z "$peer" ]; then
		ktap_skip "receive 16 MiB over $fam" "no LOCAL_$fam/REMOTE_$fam"
		return
	fi
	ktap_check "receive 16 MiB over $fam, all in device memory" \
		rx $((16 << 20)) "$addr" "$peer"
}

# the first family configured at both ends
if [ -n "${LOCAL_V4:-}" ] && [ -n "${REMOTE_V4:-}" ]; then
	ADDR=$LOCAL_V4 PEER_ADDR=$REMOTE_V4
else
	ADDR=$LOCAL_V6 PEER_ADDR=$REMOTE_V6
fi

rx_case V4
rx_case V6

# send: ncdevmem -f sends stdin from its dmabuf; the far end hashes
tx()
{
	local bytes=$((8 << 20)) pid got want i

	yes "$(printf '\001\002\003\004\005\006')" | head -c $bytes > "$TMP/send"
	want=$(sha256sum < "$TMP/send" | cut -d' ' -f1)
	remote "socat -u TCP-LISTEN:$PORT,reuseaddr STDOUT | sha256sum" \
		> "$TMP/remote" 2>&1 &
	pid=$!
	wait_carrier || { kill $pid; return 1; }
	for i in $(seq 100); do
		remote "ss -Hltn 'sport = :$PORT'" | grep -q . && break
		sleep 0.1
	done
	./ncdevmem -f "$NETIF" -s "$PEER_ADDR" -p $PORT < "$TMP/send" \
		> "$TMP/tx.out" 2>&1 ||
		{ kill $pid; sed 's/^/# /' "$TMP/tx.out"; return 1; }
	wait $pid
	got=$(cut -d' ' -f1 < "$TMP/remote")
	[ "$got" = "$want" ] ||
		{ echo "# far end got sha256 $got, sent $want"; return 1; }
}
ktap_check "send 8 MiB from device memory, intact at the far end" tx

# one segment per connection, 1 byte to the MSS: with hds-thresh 0 the
# NIC puts all of it in device memory (no SCM_DEVMEM_LINEAR)
seg_sweep()
{
	local mtu mss sizes s total=0 pid n=0

	mtu=$(cat "/sys/class/net/$NETIF/mtu")
	case $ADDR in
	*:*) mss=$((mtu - 72)) ;;
	*) mss=$((mtu - 52)) ;;
	esac
	sizes="1 2 3 17 100 512 1000 $((mss / 2)) $((mss - 1)) $mss"
	for s in $sizes; do
		total=$((total + s))
		n=$((n + 1))
	done
	: > "$TMP/log"
	./ncdevmem -l -f "$NETIF" -s "$ADDR" -c "$PEER_ADDR" -p $PORT -v 7 \
		--connections $n > "$TMP/out" 2> "$TMP/log" &
	pid=$!
	wait_line "$TMP/log" "^listening" && wait_carrier || { kill $pid; return 1; }
	for s in $sizes; do
		remote_send "$ADDR" "$s" || break
	done
	wait $pid &&
		grep -q "^received $total bytes: $total in device memory ([0-9]* frags), 0 linear" \
			"$TMP/out" &&
		return 0
	sed 's/^/# /' "$TMP/log" "$TMP/out" | tail -n 20
	return 1
}
ktap_check "single segments of 1 byte to the MSS, each wholly in device memory" \
	seg_sweep

# 16 KiB net_iovs (a hugetlb udmabuf); a NIC that does not take them
# says so in the bind's extack
large_case()
{
	if rx $((8 << 20)) "$ADDR" "$PEER_ADDR" -b 16384 > "$TMP/large" 2>&1; then
		ktap_pass "receive 8 MiB into 16 KiB net_iovs"
	elif grep -q "support rx-page-size\|device's maximum\|huge pages" "$TMP/large"; then
		ktap_skip "receive 8 MiB into 16 KiB net_iovs" \
			"$(grep -m1 "rx-page-size\|huge pages" "$TMP/large" | sed 's/^# //')"
	else
		sed 's/^/# /' "$TMP/large"
		ktap_fail "receive 8 MiB into 16 KiB net_iovs"
	fi
}
large_case

# the benchmark client's setup: the last two queues in an RSS context of
# their own, a flow rule steering the port there, ncdevmem -n binding
# both and taking 8 connections at once; with "zcrx", an io_uring
# zero-copy receive instance on each of the two queues instead (host
# memory), the connections taken one after the other
rss_case()
{
	local n first ctx rule pid p pids= ok=1 bytes=$((8 * (512 << 10))) fam name
	local how="--parallel" what="in device memory"

	if [ "${1:-}" = zcrx ]; then
		how="--zcrx --memory host"
		what="through io_uring zero-copy receive"
	fi

	n=$(ethtool -l "$NETIF" 2>/dev/null |
		awk '/^Current/ { c = 1 }
		     c && /^(Combined|RX):/ && $2 ~ /^[0-9]+$/ && $2 + 0 > m { m = $2 + 0 }
		     END { print m + 0 }')
	if [ "$n" -lt 4 ]; then
		ktap_skip "RSS context" "$NETIF has $n RX queues in use (ethtool -l), 4 needed"
		return
	fi
	first=$((n - 2))
	./ncdevmem -f "$NETIF" --hds on > /dev/null &&
		ethtool -K "$NETIF" ntuple on || { ktap_fail "RSS context" "setup"; return; }
	ctx=$(ethtool -X "$NETIF" context new start $first equal 2 2>/dev/null |
		sed -n 's/^New RSS context is \([0-9]*\)$/\1/p')
	if [ -z "$ctx" ]; then
		./ncdevmem -f "$NETIF" --hds off > /dev/null
		ktap_skip "RSS context" "$NETIF has no additional RSS contexts"
		return
	fi
	fam=tcp4
	case $ADDR in *:*) fam=tcp6 ;; esac
	rule=$(ethtool -N "$NETIF" flow-type $fam dst-ip "$ADDR" dst-port $PORT \
		context "$ctx" | sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
	[ -n "$rule" ] || ok=0
	: > "$TMP/log"
	# shellcheck disable=SC2086
	./ncdevmem -l -n -f "$NETIF" -s "$ADDR" -p $PORT -t $first -q 2 -v 7 \
		--connections 8 $how > "$TMP/out" 2> "$TMP/log" &
	pid=$!
	wait_line "$TMP/log" "^listening" && wait_carrier || ok=0
	for p in $(seq 8); do
		remote_send "$ADDR" $((512 << 10)) &
		pids="$pids $!"
	done
	wait $pids || ok=0
	wait $pid || ok=0
	grep -q "^received $bytes bytes: $bytes in device memory" "$TMP/out" || ok=0
	[ $ok = 1 ] || sed 's/^/# /' "$TMP/log" "$TMP/out" | tail -n 20
	[ -n "$rule" ] && ethtool -N "$NETIF" delete "$rule"
	ethtool -X "$NETIF" context "$ctx" delete
	ethtool -X "$NETIF" default
	./ncdevmem -f "$NETIF" --hds off > /dev/null
	name="RSS context over queues $first-$((first + 1))${1:+ ($1)}"
	if [ $ok = 1 ]; then
		ktap_pass "$name: 8 connections, all $what"
	else
		ktap_fail "$name"
	fi
}
rss_case
rss_case zcrx

# ncdevmem put the NIC back as it found it
if ethtool -n "$NETIF" 2>/dev/null | grep -q "Filter:"; then
	ktap_fail "NIC setup restored" "flow rules left: $(ethtool -n "$NETIF")"
else
	ktap_pass "NIC setup restored (no flow rules left)"
fi
ktap_finish
