#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hw.sh, the hardware mode, driven against the VM's e1000e pair: a real
# driver configured only through what hw.sh is given (NETIF, LOCAL_*,
# REMOTE_*), the far end a network namespace.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/hdsim_env.sh
. ../lib/e1000e_env.sh

trap e1000e_cleanup EXIT
if ! e1000e_pair devmem-hw-e1k 198.51.100 2001:db8:e2 || [ ! -e /dev/udmabuf ]; then
	ktap_plan 1
	ktap_skip "hardware mode on e1000e" "${E1000E_WHY:-no udmabuf}"
	ktap_finish
fi
NETIF=$IF LOCAL_V4=198.51.100.1 LOCAL_V6=2001:db8:e2::1 \
	REMOTE_V4=198.51.100.2 REMOTE_V6=2001:db8:e2::2 \
	REMOTE_TYPE=netns REMOTE_ARGS=$E1000E_NS NET_CFG=/dev/null ./hw.sh
