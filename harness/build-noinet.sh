#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host check: a kernel without CONFIG_INET (config/noinet.config) builds,
# with the devmem core, the netdev family and SO_DEVMEM_DONTNEED in it.
# Built in build/obj-noinet, never booted.
# BUILD_RECORDED=skip (make check): nothing to do when patches/configs.built
# records this build of the same inputs; a build that passes is recorded.
set -euo pipefail
VARIANT=noinet
. "$(dirname "$0")/lib.sh"
if [ "${BUILD_RECORDED:-}" = skip ] && build_recorded $VARIANT; then
	say "$VARIANT kernel: recorded as built from these inputs (patches/configs.built)"
	exit 0
fi
VARIANT=$VARIANT "$REPO/harness/kernel.sh"

grep -q '^CONFIG_INET=y' "$OBJ/.config" && die "CONFIG_INET is set"
for o in net/core/devmem.o net/core/netdev-genl.o net/core/sock_devmem.o \
	 net/core/devmem_debug.o net/core/sock.o drivers/net/hdsim/netdev.o \
	 drivers/net/hdsim/steer.o; do
	[ -f "$OBJ/$o" ] || die "$o was not built"
done
# (no `nm | grep -q`: grep quitting early fails the pipe under pipefail)
nm "$OBJ/vmlinux" > "$LOGS/vmlinux.nm"
grep -qw sk_devmem_tokens_free "$LOGS/vmlinux.nm" ||
	die "vmlinux has no sk_devmem_tokens_free"
say "INET=n kernel built: devmem core, netdev family, SO_DEVMEM_DONTNEED and hdsim linked"
record_build $VARIANT
