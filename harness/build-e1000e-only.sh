#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host check: a kernel in which e1000e is the only user of page_pool
# (config/e1000e-only.config: no hdsim, no netdevsim, no devmem core)
# configures PAGE_POOL through e1000e's select and links. Built in
# build/obj-e1000e-only, never booted.
# BUILD_RECORDED=skip (make check): nothing to do when patches/configs.built
# records this build of the same inputs; a build that passes is recorded.
set -euo pipefail
VARIANT=e1000e-only
. "$(dirname "$0")/lib.sh"
if [ "${BUILD_RECORDED:-}" = skip ] && build_recorded $VARIANT; then
	say "$VARIANT kernel: recorded as built from these inputs (patches/configs.built)"
	exit 0
fi
VARIANT=$VARIANT "$REPO/harness/kernel.sh"

for o in HDSIM NETDEVSIM NET_DEVMEM DMA_SHARED_BUFFER; do
	grep -q "^CONFIG_$o=[ym]" "$OBJ/.config" && die "CONFIG_$o is set"
done
grep -qx 'CONFIG_PAGE_POOL=y' "$OBJ/.config" ||
	die "CONFIG_PAGE_POOL is not set: E1000E does not select it"
[ -f "$OBJ/drivers/net/ethernet/intel/e1000e/netdev.o" ] ||
	die "e1000e was not built"
nm "$OBJ/vmlinux" > "$LOGS/vmlinux.nm"
grep -qw page_pool_create "$LOGS/vmlinux.nm" ||
	die "vmlinux has no page_pool_create"
say "e1000e-only kernel built: PAGE_POOL selected by E1000E alone, vmlinux linked"
record_build $VARIANT
