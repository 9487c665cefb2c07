#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host check: a kernel without CONFIG_INET (config/noinet.config) builds,
# with the devmem core, the netdev family and SO_DEVMEM_DONTNEED in it.
# Built in build/obj-noinet, never booted.
set -euo pipefail
VARIANT=noinet "$(dirname "$0")/kernel.sh"
VARIANT=noinet
. "$(dirname "$0")/lib.sh"

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
