#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the build, the VM and the tools need; only what is missing.
. "$(dirname "$0")/lib.sh"

APT_PKGS="build-essential flex bison bc cpio kmod libelf-dev libssl-dev dwarves
	rsync xz-utils git quilt ccache perl python3 python3-venv
	qemu-system-x86 busybox-static udev
	ethtool iproute2 socat ncat iperf3 libmnl-dev pkg-config nftables iptables
	python3-ply python3-git python3-yaml liburing-dev openssh-client dropbear-bin
	clang bpftool libbpf-dev python3-scapy openvswitch-common"
VNG_VERSION=1.42

want=$(pinned_version)
missing=()
for p in $APT_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done

have_src=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
src_spec=
if [ "$have_src" != "$want" ]; then
	if apt-cache show "linux-source-6.1=$want" >/dev/null 2>&1; then
		src_spec="linux-source-6.1=$want"
	else
		newest=$(apt-cache policy linux-source-6.1 2>/dev/null |
			 awk '/Candidate:/ {print $2}')
		if [ -n "$have_src" ]; then
			warn "pinned linux-source-6.1 $want is not in the archive; keeping installed $have_src"
		else
			warn "pinned linux-source-6.1 $want is not in the archive; using newest available: ${newest:-none}"
			src_spec="linux-source-6.1"
		fi
	fi
fi

if [ ${#missing[@]} -gt 0 ] || [ -n "$src_spec" ]; then
	cmd="apt-get install -y --no-install-recommends ${missing[*]} $src_spec"
	if [ "$(id -u)" != 0 ]; then
		echo "Missing packages. Run as root:"
		echo "  apt-get update && $cmd"
		exit 1
	fi
	say "apt: installing ${missing[*]} $src_spec"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends ${missing[*]} $src_spec ||
		{ apt-get update && apt-get install -y --no-install-recommends ${missing[*]} $src_spec; }
else
	say "apt: all packages present (linux-source-6.1 $have_src)"
fi

# Debian's own config of the same 6.1: the test kernel takes its
# networking options (harness/fleet-config.sh)
src_now=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
have_cfg=$(dpkg-query -W -f='${Version}' linux-config-6.1 2>/dev/null || true)
if [ -n "$src_now" ] && [ "$have_cfg" != "$src_now" ]; then
	if [ "$(id -u)" != 0 ]; then
		warn "linux-config-6.1 $src_now missing (the test kernel's config needs it): apt-get install linux-config-6.1=$src_now"
	elif ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "linux-config-6.1=$src_now" > /dev/null; then
		warn "linux-config-6.1 $src_now is not in the archive: the test kernel cannot be configured"
	else
		say "apt: linux-config-6.1 $src_now"
	fi
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

if [ ! -x "$VENV/bin/vng" ] || ! "$VENV/bin/vng" --version 2>/dev/null | grep -q "$VNG_VERSION"; then
	say "pip: installing virtme-ng==$VNG_VERSION into $VENV"
	mkdir -p "$BUILD"
	/usr/bin/python3 -m venv "$VENV"
	"$VENV/bin/pip" install -q "virtme-ng==$VNG_VERSION"
else
	say "pip: virtme-ng $VNG_VERSION present in $VENV"
fi
