#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian 12's own kernel config (package linux-config-6.1, amd64 "none"
# flavour), without installing the package: `apt-get download` and
# dpkg-deb -x into build/debian-config/<version>, so no revision of it
# has to match, or be kept with, the installed linux-source-6.1.
#
#   debian-config.sh fetch	prints the path of config.amd64_none_amd64.xz
#				of the revision config_pick chooses for the
#				base (harness/base-pick.sh); `make deb` uses it
#   debian-config.sh update	(make debian-config) rewrites
#				config/debian-net.config from it
#
# config/debian-net.config is what the test kernel takes from Debian
# (harness/fleet-config.sh): Debian's values of every option defined
# under net/ and in the software parts of drivers/net/, and of the few
# options outside on which they depend. It is committed so that
# `make check` never needs a revision of linux-config-6.1 to still be
# served; `make rebase` rewrites it, and its diff shows what a Debian
# update changed in the networking options.
. "$(dirname "$0")/lib.sh"
. "$REPO/harness/base-pick.sh"
export LC_ALL=C

CFG_DIR=$BUILD/debian-config
FRAG=$REPO/config/debian-net.config

fetch() {
	local src served line kind ver why dir

	src=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
	src=${src:-$(pinned_version)}
	served=$(apt-cache madison linux-config-6.1 2>/dev/null | awk '{print $3}')
	line=$(config_pick "$src" $served)
	read -r kind ver why <<< "$line"
	[ "$kind" != none ] || die "$why"
	[ "$kind" = exact ] || warn "linux-config-6.1: $why"
	dir=$CFG_DIR/$ver
	if [ ! -f "$dir/config.amd64_none_amd64.xz" ]; then
		mkdir -p "$dir/deb"
		(cd "$dir/deb" && apt-get download -q "linux-config-6.1=$ver" > /dev/null 2>&1) ||
			die "cannot download linux-config-6.1 $ver"
		dpkg-deb -x "$dir"/deb/linux-config-6.1_*.deb "$dir/root"
		cp "$dir/root/usr/src/linux-config-6.1/config.amd64_none_amd64.xz" "$dir/"
		rm -rf "$dir/deb" "$dir/root"
	fi
	echo "$ver" > "$CFG_DIR/chosen"
	echo "$dir/config.amd64_none_amd64.xz"
}

# The symbols fleet-config.sh takes from Debian: those defined in the
# Kconfig files under net/ and the software parts of drivers/net/, and
# the options outside them in $FLEET_BASE_OPTIONS (lib.sh).
update() {
	local xz ver kconfigs

	[ -d "$SRC/.git" ] || die "no tree in $SRC (run: make tree)"
	xz=$(fetch)
	ver=$(cat "$CFG_DIR/chosen")
	kconfigs=$(cd "$SRC" && find net -name Kconfig | sort;
		   echo drivers/net/Kconfig drivers/net/team/Kconfig \
			drivers/net/ppp/Kconfig drivers/net/slip/Kconfig)
	{
		echo "# Debian 12's values of the networking options: linux-config-6.1 $ver,"
		echo "# config.amd64_none_amd64. Written by harness/debian-config.sh update"
		echo "# (make debian-config; make rebase runs it); read by fleet-config.sh."
		xz -dc "$xz" | grep -E "^CONFIG_($(
			(cd "$SRC" && sed -n 's/^\(menu\)\?config \([A-Z0-9_]*\)$/\2/p' $kconfigs;
			 echo $FLEET_BASE_OPTIONS | tr ' ' '\n') | sort -u | paste -sd'|'
			))=[ym]$" | sort
	} > "$FRAG.new"
	mv "$FRAG.new" "$FRAG"
	say "config/debian-net.config: $(grep -c '^CONFIG_' "$FRAG") options of linux-config-6.1 $ver"
}

case ${1:-} in
fetch) fetch ;;
update) update ;;
*) die "usage: debian-config.sh fetch|update" ;;
esac
