#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host check on the suite's kernel, a modular build (Debian's networking
# modules and the series' drivers as modules, harness/fleet-config.sh):
# modpost resolved every symbol the modules take (an unexported one, a
# GPL-only one in a non-GPL module or one of a namespace not imported
# fails the build, and its log says so), and each of the series' modules
# imports the namespaces it uses.
. "$(dirname "$0")/lib.sh"

grep -qx CONFIG_MODULES=y "$OBJ/.config" || die "$OBJ/.config: not a modular kernel"
if grep -E 'modpost: .*(undefined|namespace|GPL)' "$LOGS/kernel-build.log"; then
	die "modpost found symbols the modules cannot take"
fi
for ko in drivers/net/hdsim/hdsim.ko:NETDEV_INTERNAL \
	  drivers/net/ethernet/intel/e1000e/e1000e.ko:NETDEV_INTERNAL \
	  drivers/dma-buf/p2pbuf.ko:DMA_BUF; do
	ns=${ko#*:}; ko=$OBJ/${ko%%:*}
	[ -f "$ko" ] || die "$ko was not built as a module"
	/sbin/modinfo -F import_ns "$ko" | grep -qx "$ns" ||
		die "$ko does not import $ns"
done
echo "$(wc -l < "$OBJ/modules.order") modules; hdsim, e1000e and p2pbuf link against exported symbols of the namespaces they import"
