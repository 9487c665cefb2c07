#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the build, the VM and the tools need; only what is missing.
. "$(dirname "$0")/lib.sh"

APT_PKGS="build-essential flex bison bc cpio kmod libelf-dev libssl-dev dwarves
	rsync xz-utils curl git quilt ccache perl python3 python3-venv
	qemu-system-x86 busybox-static udev
	ethtool iproute2 socat ncat iperf3 libmnl-dev pkg-config nftables iptables
	python3-ply python3-git python3-yaml liburing-dev openssh-client dropbear-bin
	clang bpftool libbpf-dev python3-scapy openvswitch-common gcc-multilib"
VNG_VERSION=1.42

. "$REPO/harness/base-pick.sh"

mkdir -p "$BUILD"

want=$(pinned_version)
missing=()
for p in $APT_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt_install "${missing[@]}"
fi

# The base: the pinned linux-source-6.1 if it is installed or served,
# else what harness/base-pick.sh chooses, said in one line. Debian's
# config comes from config/debian-net.config (committed), so the base is
# the only package whose revision matters.
served() {
	apt-cache madison "$1" 2>/dev/null | awk '$1 == "'"$1"'" {print $3}'
}
src_served=$(served linux-source-6.1)
if [ -z "$src_served" ] && [ "$(id -u)" = 0 ]; then
	say "apt: the lists know no linux-source-6.1: apt-get update"
	apt-get update -q > /dev/null || warn "apt-get update failed"
	src_served=$(served linux-source-6.1)
fi
have_src=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
export BASE_APPLIES=$REPO/harness/base-applies.sh
read -r action use why <<< "$(base_pick "$want" "$have_src" $src_served)"
src_spec=
case $action in
keep)	[ "$use" = "$want" ] || say "base: $why" ;;
install) src_spec="linux-source-6.1=$use"
	[ "$use" = "$want" ] || say "base: $why" ;;
*)	die "base: $why" ;;
esac

if [ -n "$src_spec" ]; then
	apt_install "$src_spec"
else
	say "base: linux-source-6.1 $have_src installed"
fi

# Where the archive stands: the pin, the newest served, and whether the
# series applies to the newest (a warning, never a failure: `make rebase`
# moves the base).
newest=$(printf '%s\n' $src_served | vers_sort | sed -n 1p)
if [ -z "$newest" ]; then
	say "archive: pinned linux-source-6.1 $want; the archive serves none"
elif [ "$newest" = "$use" ] || ! newer "$newest" "$use"; then
	say "archive: pinned linux-source-6.1 $want, building on $use; newest served: $newest"
elif applies=$("$BASE_APPLIES" "$newest" 2>&1); then
	warn "archive: pinned linux-source-6.1 $want, building on $use; newest served: $newest, and the series applies to it: make rebase moves the base there"
else
	warn "archive: pinned linux-source-6.1 $want, building on $use; newest served: $newest, and the series does NOT apply to it ($(tail -n 1 <<< "$applies"))"
fi

# ovs-dpctl, which sets up Open vSwitch's kernel datapath by itself (the
# ovs case in peer_filters.c). It ships in openvswitch-switch, whose
# installation would start OVS's daemons on this machine: take the binary
# out of the package into build/ovs instead (its libraries come with
# openvswitch-common, above). run-kselftests.sh puts it in the guest's PATH.
ovs_ver=$(dpkg-query -W -f='${Version}' openvswitch-common 2>/dev/null || true)
if [ -n "$ovs_ver" ] && [ "$(cat "$BUILD/ovs/version" 2>/dev/null)" != "$ovs_ver" ]; then
	tmp=$(mktemp -d)
	mkdir -p "$BUILD"
	if (cd "$tmp" && apt-get download -q "openvswitch-switch=$ovs_ver" > /dev/null 2>&1) &&
	   rm -rf "$BUILD/ovs" && dpkg-deb -x "$tmp"/openvswitch-switch_*.deb "$BUILD/ovs"; then
		echo "$ovs_ver" > "$BUILD/ovs/version"
		say "ovs-dpctl $ovs_ver in $BUILD/ovs (from openvswitch-switch, not installed)"
	else
		warn "could not fetch openvswitch-switch $ovs_ver: the ovs case will skip"
	fi
	rm -rf "$tmp"
fi

# liburing's own zcrx and query tests, from Debian's source package
# (drivers/net/devmem/liburing.sh runs them)
"$REPO/harness/liburing.sh" fetch
# the header make bench's TCG plugin builds against, from Debian's qemu
# source package (harness/tcg-count.sh)
"$REPO/harness/tcg-count.sh" fetch

if [ ! -x "$VENV/bin/vng" ] || ! "$VENV/bin/vng" --version 2>/dev/null | grep -q "$VNG_VERSION"; then
	say "pip: installing virtme-ng==$VNG_VERSION into $VENV"
	mkdir -p "$BUILD"
	/usr/bin/python3 -m venv "$VENV"
	"$VENV/bin/pip" install -q "virtme-ng==$VNG_VERSION"
else
	say "pip: virtme-ng $VNG_VERSION present in $VENV"
fi
