#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series on a modular kernel (make check's, harness/fleet-config.sh): e1000e
# loaded for its PCI id, networking modules loaded on demand by the tools
# (nft, ip link, tc, ip xfrm), and hdsim and e1000e unloaded and loaded
# again between cases, e1000e by udev from a replayed PCI uevent. What
# unload does with a binding and held tokens is in faults.c (hdsim) and
# p2pbuf.c (a live dmabuf).

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/e1000e_env.sh

PLAN=5
ktap_plan $PLAN
if [ ! -f /proc/modules ]; then
	for i in $(seq $PLAN); do ktap_skip "modules $i" "kernel without modules"; done
	ktap_finish
fi
# a built-in driver has a /sys/module directory (for its parameters) but
# no initstate: the debug kernel builds e1000e in, and no netem or esp4
if [ -d /sys/module/e1000e ] && [ ! -e /sys/module/e1000e/initstate ]; then
	for i in $(seq $PLAN); do
		ktap_skip "modules $i" "e1000e is built in: not the modular kernel"
	done
	ktap_finish
fi

loaded() { grep -q "^$1 " /proc/modules; }
# wait_for <seconds> <command...>
wait_for()
{
	local i t=$1

	shift
	for ((i = 0; i < t * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
ports() { e1000e_ports | wc -l; }

if loaded e1000e && [ "$(ports)" -ge 2 ]; then
	ktap_pass "e1000e loaded for its PCI id"
else
	ktap_fail "e1000e loaded for its PCI id" \
		"module: $(loaded e1000e && echo yes || echo no), ports: $(ports)"
fi

# Modules the tools load on demand (request_module from the kernel): each
# command below needs one; none is loaded by hand. The peer and tx cases
# before this one may have loaded them already, which is as good.
on_demand()
{
	local m=$1

	shift
	loaded "$m" && return 0
	"$@" > /dev/null 2>&1
	loaded "$m" || { echo "# '$*' did not load $m"; return 1; }
}
on_demand_case()
{
	local rc=0

	on_demand nf_tables nft list tables || rc=1
	on_demand bridge ip link add mod-br0 type bridge || rc=1
	ip link del mod-br0 2> /dev/null
	on_demand veth ip link add mod-v0 type veth peer name mod-v1 || rc=1
	ip link del mod-v0 2> /dev/null
	on_demand sch_netem tc qdisc add dev lo root netem delay 1ms || rc=1
	tc qdisc del dev lo root 2> /dev/null
	on_demand esp4 ip xfrm state add src 192.0.2.1 dst 192.0.2.2 proto esp \
		spi 0x77 mode transport aead 'rfc4106(gcm(aes))' \
		0x0102030405060708091011121314151617181920 128 || rc=1
	ip xfrm state flush
	return $rc
}
ktap_check "netfilter, bridge, veth, netem and esp4 loaded on demand" on_demand_case

# 6.1 frees a readable skb that another CPU allocated on that CPU's defer
# list, flushed only at its next NET_RX softirq: until then its pages
# count as in flight, and the page pools of a deleted hdsim device (each
# holding the device) wait for them, and so does rmmod. A datagram over
# loopback sent from each CPU raises NET_RX there (devmem_fixture.c's
# kick_cpus() does the same for the C tests).
kick_cpus()
{
	local cpu

	for cpu in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$cpu" bash -c 'echo > /dev/udp/127.0.0.1/9' 2>/dev/null
	done
	sleep 1
}

hdsim_cycle()
{
	local dev

	ls /sys/bus/hdsim/devices | grep -q . && { echo "# hdsim devices left"; return 1; }
	ip link set lo up
	kick_cpus
	rmmod hdsim || return 1
	[ ! -d /sys/bus/hdsim ] || { echo "# /sys/bus/hdsim still there"; return 1; }
	modprobe hdsim || return 1
	echo "77 2" > /sys/bus/hdsim/new_device || return 1
	dev=/sys/bus/hdsim/devices/hdsim77
	wait_for 5 test -n "$(ls "$dev/net" 2>/dev/null)" || return 1
	[ "$(ls "$dev/net" | wc -l)" = 2 ] || return 1
	echo 77 > /sys/bus/hdsim/del_device
}
ktap_check "hdsim unloaded and loaded again" hdsim_cycle

before=$(ports)
e1000e_cycle()
{
	rmmod e1000e || return 1
	[ "$(ports)" = 0 ] || { echo "# ports left: $(ports)"; return 1; }
	# a replayed add event: udev loads the driver for the PCI id
	udevadm trigger --action=add --subsystem-match=pci || return 1
	udevadm settle --timeout=30
	wait_for 10 loaded e1000e || { echo "# udev did not load e1000e"; return 1; }
	wait_for 10 test "$(ports)" = "$before" ||
		{ echo "# $(ports) of $before ports back"; return 1; }
}
ktap_check "e1000e unloaded, loaded again by udev" e1000e_cycle

# the ports that came back carry a stream (the e1000e tests after this
# one use them for devmem)
e1000e_stream()
{
	local got

	e1000e_pair modules-e1k 192.0.9 fd00:9 || { echo "# $E1000E_WHY"; return 1; }
	e1000e_wait_link || return 1
	# (the sender retries until the listener is up: starting socat can
	# take most of a second under TCG)
	got=$( (timeout 20 socat -u TCP4-LISTEN:5409,bind=192.0.9.1 - | wc -c) &
	       head -c 1048576 /dev/zero |
		       ip netns exec modules-e1k timeout 20 socat -u - \
		       TCP4:192.0.9.1:5409,retry=50,interval=0.2
	       wait)
	e1000e_cleanup
	[ "$got" = 1048576 ] || { echo "# received $got of 1048576 bytes"; return 1; }
}
ktap_check "reloaded e1000e ports carry a stream" e1000e_stream

ktap_finish
