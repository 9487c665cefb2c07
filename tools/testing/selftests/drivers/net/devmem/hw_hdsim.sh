#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hw.sh, the hardware mode, driven against an hdsim pair: the far end is
# a network namespace, as a qualification run on real hardware would
# configure it (NETIF, LOCAL_*, REMOTE_*), so the mode cannot rot.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/hdsim_env.sh

if [ ! -d /sys/bus/hdsim ] || [ ! -e /dev/udmabuf ]; then
	ktap_plan 1
	ktap_skip "hardware mode on hdsim" "no hdsim or udmabuf"
	ktap_finish
fi
debugfs_mounted
hdsim_pair 27 devmem-hw-27 192.0.2 2001:db8:0 || exit 1
trap hdsim_cleanup EXIT
NETIF=$IF LOCAL_V4=192.0.2.1 LOCAL_V6=2001:db8::1 \
	REMOTE_V4=192.0.2.2 REMOTE_V6=2001:db8::2 \
	REMOTE_TYPE=netns REMOTE_ARGS=$HDSIM_NS NET_CFG=/dev/null ./hw.sh
