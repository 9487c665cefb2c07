#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series on a modular kernel (the fleet's, harness/fleet.sh): e1000e
# loaded for its PCI id, the networking modules the earlier tests of the
# fleet subset needed loaded on demand (nft, ip xfrm, ovs, kTLS, bridge),
# and hdsim and e1000e unloaded and loaded again between cases, e1000e by
# udev from a replayed PCI uevent. What unload does with a binding and
# held tokens is in faults.c (hdsim) and p2pbuf.c (a live dmabuf).

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/e1000e_env.sh

PLAN=5
ktap_plan $PLAN
if [ ! -f /proc/modules ]; then
	for i in $(seq $PLAN); do ktap_skip "modules $i" "kernel without modules"; done
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

# What the peer, tx and faults cases of the fleet subset make the tools
# load: nothing here loads them by hand.
missing=
for m in nf_tables nfnetlink_queue bridge br_netfilter openvswitch esp4 tls; do
	loaded "$m" || missing="$missing $m"
done
if [ -z "$missing" ]; then
	ktap_pass "modules loaded on demand by the tools"
else
	ktap_fail "modules loaded on demand by the tools" "not loaded:$missing"
fi

hdsim_cycle()
{
	local dev

	ls /sys/bus/hdsim/devices | grep -q . && { echo "# hdsim devices left"; return 1; }
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
	got=$( (timeout 20 socat -u TCP4-LISTEN:5409,bind=192.0.9.1 - | wc -c) &
	       sleep 1
	       head -c 1048576 /dev/zero |
		       ip netns exec modules-e1k timeout 20 socat -u - TCP4:192.0.9.1:5409
	       wait)
	e1000e_cleanup
	[ "$got" = 1048576 ] || { echo "# received $got of 1048576 bytes"; return 1; }
}
ktap_check "reloaded e1000e ports carry a stream" e1000e_stream

ktap_finish
