#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hdsim, the header/data split NIC simulator, through standard tools:
# port pairs in namespaces, TCP with header split off and on, ntuple
# steering, RSS, queue restart under traffic, fault knobs, bad input.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/hdsim_env.sh

ID=21
DBG=/sys/kernel/debug/hdsim/hdsim$ID/port0
TMP=$(mktemp -d)
trap 'hdsim_cleanup; rm -rf "$TMP"' EXIT

# errno_is <strerror text> <command...>: the command reports that error
errno_is()
{
	local want=$1

	shift
	"$@" 2>&1 | grep -q "$want"
}

stat_of()
{
	ethtool -S "$IF" | sed -n "s/^ *$1: //p"
}

# stat_sum <name>: rx<q>_<name> summed over the four queues
stat_sum()
{
	ethtool -S "$IF" | awk -v n="$1" '$1 ~ "^rx[0-3]_" n ":$" {s += $2} END {print s + 0}'
}

# transfer <addr> <port> <bytes>: socat from the namespace, sha256 checked
transfer()
{
	local addr=$1 port=$2 bytes=$3 want got

	head -c "$bytes" /dev/urandom > "$TMP/send"
	want=$(sha256sum < "$TMP/send" | cut -d' ' -f1)
	local listen=TCP4-LISTEN

	case $addr in *:*) listen=TCP6-LISTEN ;; esac
	timeout 120 socat -u "$listen:$port,reuseaddr" "OPEN:$TMP/recv,creat,trunc" &
	local pid=$! i
	# until the listener is up (a fixed sleep loses on a loaded machine)
	for i in $(seq 100); do
		ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	case $addr in *:*) addr="[$addr]" ;; esac
	timeout 120 ip netns exec "$NS" socat -u "FILE:$TMP/send" "TCP:$addr:$port" ||
		{ kill $pid 2>/dev/null; return 1; }
	wait $pid || return 1
	got=$(sha256sum < "$TMP/recv" | cut -d' ' -f1)
	[ "$got" = "$want" ]
}

ktap_plan 22

if [ ! -d /sys/bus/hdsim ]; then
	for i in $(seq 19); do ktap_skip "hdsim $i" "no hdsim driver"; done
	ktap_finish
fi
debugfs_mounted

# 1. pairs
hdsim_pair "$ID" "hdsim-peer-$ID" 198.51.100 2001:db8:1
NS=$HDSIM_NS
ktap_check "new_device creates a port pair" test -n "$IF" -a -n "$PEER"
sleep 0.2
ktap_check "both ends up: carrier on" \
	test "$(cat /sys/class/net/"$IF"/carrier)" = 1

# 2. TCP with header split off and on
./hds "$IF" off
h0=$(stat_of rx0_hds_packets)$(stat_of rx1_hds_packets)
if transfer 198.51.100.1 6001 $((2 << 20)) &&
   [ "$(stat_of rx0_hds_packets)$(stat_of rx1_hds_packets)" = "$h0" ]; then
	ktap_pass "ipv4 tcp with header split off: data intact, nothing split"
else
	ktap_fail "ipv4 tcp with header split off"
fi

# Debian's ethtool 6.1 does not know tcp-data-split: set it over netlink
./hds "$IF" on
hds_before=$(ethtool -S "$IF" | awk '/hds_packets/ {s += $2} END {print s}')
if transfer 198.51.100.1 6002 $((2 << 20)) &&
   transfer 2001:db8:1::1 6003 $((2 << 20)); then
	hds_after=$(ethtool -S "$IF" | awk '/hds_packets/ {s += $2} END {print s}')
	if [ "$hds_after" -gt "$hds_before" ]; then
		n=$((hds_after - hds_before))
		ktap_pass "ipv4+ipv6 tcp, header split on: data intact, $n split"
	else
		ktap_fail "header split on" "hds_packets did not move ($hds_before)"
	fi
else
	ktap_fail "ipv4+ipv6 tcp with header split on" "data corrupted or lost"
fi

# jumbo frames: 9000-byte MTU, split into several payload buffers
ip link set "$IF" mtu 9000
ip -n "$NS" link set "$PEER" mtu 9000
ok=0
transfer 198.51.100.1 6004 $((2 << 20)) && ok=1
ip link set "$IF" mtu 1500
ip -n "$NS" link set "$PEER" mtu 1500
ktap_check "mtu 9000 with header split on: data intact" test $ok = 1

# hds-thresh: a payload shorter than it stays with the headers. One
# segment per connection (a single short write), counted by hds_packets.
segment_split()
{
	local bytes=$1 port=$2 before

	before=$(stat_sum hds_packets)
	timeout 30 socat -u "TCP4-LISTEN:$port,reuseaddr" OPEN:/dev/null &
	local pid=$! i
	for i in $(seq 100); do
		ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	head -c "$bytes" /dev/zero |
		ip netns exec "$NS" socat -u - "TCP4:198.51.100.1:$port"
	wait $pid
	echo $(($(stat_sum hds_packets) - before))
}

thresh_case()
{
	local show s800 s800b s1

	./hds "$IF" on 1024 || return 1
	show=$(./hds "$IF" show)
	[ "$show" = "tcp-data-split 2 hds-thresh 1024 hds-thresh-max 1024" ] ||
		{ echo "# $show"; return 1; }
	s800=$(segment_split 800 6020)
	./hds "$IF" on 512 || return 1
	s800b=$(segment_split 800 6021)
	./hds "$IF" on 0 || return 1
	s1=$(segment_split 1 6022)
	echo "# 800 bytes at hds-thresh 1024: $s800 split; at 512: $s800b; 1 byte at 0: $s1"
	[ "$s800" = 0 ] && [ "$s800b" = 1 ] && [ "$s1" = 1 ]
}
ktap_check "hds-thresh 1024, 512, 0: an 800-byte segment kept whole, then split; 1 byte split" \
	thresh_case
range_case()
{
	local err

	err=$(./hds "$IF" on 1025 2>&1) && return 1
	echo "# $err"
	case $err in
	*"exceeds the device's maximum"*"Numerical result out of range"*) ;;
	*) return 1 ;;
	esac
	./hds "$IF" auto && ./hds "$IF" show | grep -q "^tcp-data-split 1 hds-thresh 0 " &&
		./hds "$IF" on
}
ktap_check "hds-thresh above its maximum: ERANGE, extack; auto is hdsim's default, no split" \
	range_case

# 3. ntuple steering
ethtool -K "$IF" ntuple on
ethtool -N "$IF" flow-type tcp4 dst-port 6010 action 2 >/dev/null
before=$(stat_of rx2_bytes)
transfer 198.51.100.1 6010 $((1 << 20))
after=$(stat_of rx2_bytes)
ktap_check "ntuple rule steers the flow to queue 2" \
	test $((after - before)) -ge $((1 << 20))

# IPv6 steering as upstream's devmem tests write it: the 5-tuple form is
# taken and reads back, the fallback (dst-ip, dst-port) steers a flow
tcp6_case()
{
	local out rule before

	out=$(ethtool -N "$IF" flow-type tcp6 src-ip 2001:db8:1::2 \
		dst-ip 2001:db8:1::1 src-port 40000 dst-port 6011 queue 3 2>&1)
	rule=$(echo "$out" | sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
	[ -n "$rule" ] || { echo "# $out"; return 1; }
	ethtool -n "$IF" rule "$rule" | grep -q "Src port: 40000" ||
		{ ethtool -n "$IF" rule "$rule" | sed 's/^/# /'; return 1; }
	ethtool -N "$IF" delete "$rule" || return 1
	out=$(ethtool -N "$IF" flow-type tcp6 dst-ip 2001:db8:1::1 \
		dst-port 6011 queue 3 2>&1)
	rule=$(echo "$out" | sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
	[ -n "$rule" ] || { echo "# $out"; return 1; }
	before=$(stat_of rx3_bytes)
	transfer 2001:db8:1::1 6011 $((1 << 20)) || return 1
	ethtool -N "$IF" delete "$rule"
	[ $(($(stat_of rx3_bytes) - before)) -ge $((1 << 20)) ]
}
ktap_check "tcp6 rules as upstream's tests write them: 5-tuple taken, dst form steers to queue 3" \
	tcp6_case

# 4. RSS equal 2 keeps unsteered flows off queues 2 and 3
ethtool -X "$IF" equal 2
b2=$(stat_of rx2_packets)
b3=$(stat_of rx3_packets)
for p in 6020 6021 6022 6023; do
	transfer 198.51.100.1 $p 65536
done
ktap_check "RSS equal 2: four flows stay off queues 2 and 3" \
	test "$(stat_of rx2_packets)" = "$b2" -a "$(stat_of rx3_packets)" = "$b3"
ethtool -X "$IF" default

# 4b. RSS contexts through Debian's ethtool: a context over queues 2 and
# 3, a rule steering a port range into it, flows spread over both
# (sixteen flows: all on one queue has odds of 1 in 32768)
ctx_entries()
{
	ethtool -x "$IF" context "$1" |
		awk '/^ *[0-9]+:/ {for (i = 2; i <= NF; i++) print $i}' |
		sort -u | xargs
}
rss_ctx_case()
{
	local out ctx rule b01 b2 b3 p

	ethtool -X "$IF" equal 2
	out=$(ethtool -X "$IF" context new start 2 equal 2 2>&1)
	ctx=$(echo "$out" | sed -n 's/^New RSS context is \([0-9]*\)$/\1/p')
	[ -n "$ctx" ] || { echo "# $out"; return 1; }
	[ "$(ctx_entries "$ctx")" = "2 3" ] ||
		{ echo "# context $ctx spreads over: $(ctx_entries "$ctx")"; return 1; }
	out=$(ethtool -N "$IF" flow-type tcp4 dst-ip 198.51.100.1 context "$ctx" 2>&1)
	rule=$(echo "$out" | sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
	[ -n "$rule" ] || { echo "# $out"; return 1; }
	ethtool -n "$IF" rule "$rule" | grep -q "RSS Context ID: $ctx" ||
		{ ethtool -n "$IF" rule "$rule" | sed 's/^/# /'; return 1; }
	b01=$(($(stat_of rx0_bytes) + $(stat_of rx1_bytes)))
	b2=$(stat_of rx2_bytes)
	b3=$(stat_of rx3_bytes)
	for p in $(seq 6040 6055); do
		transfer 198.51.100.1 "$p" 32768 || return 1
	done
	b01=$(($(stat_of rx0_bytes) + $(stat_of rx1_bytes) - b01))
	b2=$(($(stat_of rx2_bytes) - b2))
	b3=$(($(stat_of rx3_bytes) - b3))
	echo "# 16 flows into context $ctx: queue 2 $b2 bytes, queue 3 $b3, queues 0-1 $b01"
	[ "$b2" -gt 32768 ] && [ "$b3" -gt 32768 ] && [ "$b01" -lt 4096 ] || return 1

	errno_is "Device or resource busy" ethtool -X "$IF" context "$ctx" delete ||
		{ echo "# a context a rule names was deleted"; return 1; }
	ethtool -L "$IF" combined 2 2>/dev/null &&
		{ echo "# channels shrank under context $ctx"; return 1; }
	ethtool -N "$IF" delete "$rule" &&
		ethtool -X "$IF" context "$ctx" delete || return 1
	errno_is "No such file or directory" ethtool -x "$IF" context "$ctx"
}
ktap_check "RSS context over queues 2-3: a FLOW_RSS rule spreads 16 flows over both" \
	rss_ctx_case
ethtool -X "$IF" default

# contexts: a missing one (ENOENT, EINVAL for a rule), at most eight (ENOSPC)
ctx_limits_case()
{
	local i out ids=

	errno_is "No such file or directory" ethtool -x "$IF" context 7 || return 1
	errno_is "Invalid argument" ethtool -N "$IF" flow-type tcp4 dst-port 7003 context 7 ||
		return 1
	for i in $(seq 8); do
		out=$(ethtool -X "$IF" context new equal 4 2>&1)
		ids="$ids $(echo "$out" | sed -n 's/^New RSS context is \([0-9]*\)$/\1/p')"
	done
	[ "$(echo $ids | wc -w)" = 8 ] || { echo "# allocated: $ids"; return 1; }
	errno_is "No space left on device" ethtool -X "$IF" context new equal 4 || return 1
	for i in $ids; do
		ethtool -X "$IF" context "$i" delete || return 1
	done
}
ktap_check "RSS contexts: a missing one ENOENT (rule: EINVAL), a ninth ENOSPC" \
	ctx_limits_case

# a context and a rule naming it go with their port: a device deleted
# with both in place, then one made with the same id has neither
ctx_port_gone_case()
{
	local dev=$((ID + 1)) port ctx

	echo "$dev 4" > /sys/bus/hdsim/new_device || return 1
	port=$(port_name $dev 0)
	ethtool -K "$port" ntuple on &&
		ctx=$(ethtool -X "$port" context new start 2 equal 2 |
		      sed -n 's/^New RSS context is \([0-9]*\)$/\1/p') &&
		[ -n "$ctx" ] &&
		ethtool -N "$port" flow-type tcp4 dst-port 7004 context "$ctx" > /dev/null ||
		return 1
	echo $dev > /sys/bus/hdsim/del_device &&
		echo "$dev 4" > /sys/bus/hdsim/new_device || return 1
	port=$(port_name $dev 0)
	errno_is "No such file or directory" ethtool -x "$port" context "$ctx" &&
		[ "$(ethtool -n "$port" | sed -n 's/^Total \([0-9]*\) rules$/\1/p')" = 0 ]
	local rc=$?
	echo $dev > /sys/bus/hdsim/del_device
	return $rc
}
ktap_check "a port deleted with a context and a rule in place; its successor has neither" \
	ctx_port_gone_case

# 5. queue restart under traffic keeps the stream intact
(for i in $(seq 20); do echo 2 > "$DBG/queue_restart"; sleep 0.1; done) &
RESTARTS=$!
ok=0
transfer 198.51.100.1 6010 $((4 << 20)) && ok=1
wait $RESTARTS
ktap_check "restarting queue 2 under traffic keeps the stream intact" test $ok = 1

# 6. fault knobs: bad checksums and drops are counted, the stream recovers
echo 40 > "$DBG/fault_corrupt_csum_every"
echo 53 > "$DBG/fault_drop_every"
c0=$(stat_sum csum_err)
d0=$(stat_sum fault_drop)
ok=0
transfer 198.51.100.1 6030 $((2 << 20)) && ok=1
echo 0 > "$DBG/fault_corrupt_csum_every"
echo 0 > "$DBG/fault_drop_every"
c1=$(stat_sum csum_err)
d1=$(stat_sum fault_drop)
if [ $ok = 1 ] && [ $c1 -gt $c0 ] && [ $d1 -gt $d0 ]; then
	ktap_pass "fault knobs: $((c1 - c0)) bad checksums, $((d1 - d0)) drops, stream intact"
else
	ktap_fail "fault knobs" "ok=$ok csum_err $c0->$c1 fault_drop $d0->$d1"
fi

# 7. bad input through ethtool
# ethtool 6.1 exits 0 when -N fails: check the errno it prints
ktap_check "flow rule to a queue that does not exist: EINVAL" \
	errno_is "Invalid argument" ethtool -N "$IF" flow-type tcp4 dst-port 7000 action 9
ktap_check_fails "more channels than the device has fails" \
	ethtool -L "$IF" combined 99
ktap_check "ring sizes out of range fail" \
	eval "! ethtool -G $IF rx 5000 2>/dev/null && ! ethtool -G $IF rx 10 2>/dev/null"
ethtool -N "$IF" flow-type tcp4 dst-port 7001 action 1 loc 5 >/dev/null
ktap_check "a second rule at a used location: EEXIST" \
	errno_is "File exists" ethtool -N "$IF" flow-type tcp4 dst-port 7002 action 1 loc 5
ktap_check "deleting a missing rule: ENOENT" \
	errno_is "No such file or directory" ethtool -N "$IF" delete 33

# new_device's RX_BUF_MAX: a power of two from PAGE_SIZE to 2 MiB
bad_rx_buf_max()
{
	local page v

	page=$(getconf PAGESIZE)
	for v in $((page / 2)) $((3 * page)) $((4 << 20)) 0; do
		echo "$((ID + 1)) 1 $v" > /sys/bus/hdsim/new_device 2>/dev/null &&
			{ echo "# RX_BUF_MAX $v accepted"; return 1; }
	done
	# nothing was created by the refusals; a good value creates one
	[ ! -e /sys/bus/hdsim/devices/hdsim$((ID + 1)) ] &&
	echo "$((ID + 1)) 1 $page" > /sys/bus/hdsim/new_device &&
	echo $((ID + 1)) > /sys/bus/hdsim/del_device
}
ktap_check "new_device refuses an RX_BUF_MAX that is no power of two in range" \
	bad_rx_buf_max

# 8. deleting one end brings the other's carrier down
ip -n "$NS" link del "$PEER"
sleep 0.2
ktap_check "deleting the peer brings carrier down" \
	test "$(cat /sys/class/net/"$IF"/carrier)" = 0

ktap_finish
