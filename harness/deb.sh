#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make deb`: Debian packages a fleet installs, in build/deb/:
#   linux-image-<release>, linux-headers-<release>, linux-libc-dev
#	the kernel's own bindeb-pkg, LOCALVERSION -devmem, the package
#	version naming the Debian base (6.1.192-2 -> 6.1.192-2+devmem1)
#   devmem-tcp-tools
#	ncdevmem, devmemstat and the sample in /usr/bin, the kselftests in
#	/usr/lib/devmem-tcp/kselftest, each tool's usage text in
#	/usr/share/doc/devmem-tcp-tools/USAGE (dpkg-deb)
# DEB_CONFIG picks the kernel's config:
#   debian	(default) Debian 12's own config.amd64_none_amd64, every
#		module Debian builds, plus the series' options (hdsim and
#		p2pbuf as modules, P2PDMA); Debian's trusted keys, which
#		linux-source does not ship, cleared (kbuild makes a signing
#		key); no debug info (Debian's -dbg package is not made).
#		4,025 modules: bindeb-pkg took 81 min on two cores with an
#		empty ccache (93 min for `make deb` from a fresh clone).
#   fleet	the test kernel's config (harness/fleet-config.sh: Debian's
#		networking options, as modules where Debian has modules),
#		what `make system-test` installs (with DEB_EXTRA_CONFIG=
#		config/deb-system.config: a disk and ext4 for a root of its
#		own); minutes with a warm ccache.
. "$(dirname "$0")/lib.sh"

DEB_CONFIG=${DEB_CONFIG:-debian}
OUT=$BUILD/deb
DOBJ=$BUILD/obj-deb-$DEB_CONFIG
[ -d "$SRC/.git" ] || die "no tree in $SRC (run: make tree)"
need_cmd dpkg-buildpackage dpkg-dev
need_cmd fakeroot fakeroot

base=$(tree_version)		# Debian's linux-source-6.1 version
upstream=${base%%-*}
pkgver=$base+devmem${DEB_REVISION:-1}
mkdir -p "$DOBJ" "$OUT" "$LOGS"
export CCACHE_BASEDIR=$BUILD
KMAKE=(make -C "$SRC" O="$DOBJ" LOCALVERSION=-devmem
       CC="ccache gcc" HOSTCC="ccache gcc" KBUILD_BUILD_USER=devmem
       KBUILD_BUILD_HOST=debian KDEB_PKGVERSION="$pkgver"
       KDEB_SOURCENAME=linux-devmem KDEB_COMPRESS=xz)

case $DEB_CONFIG in
debian)
	# (any served revision: harness/debian-config.sh says which)
	DEBIAN_CONFIG=$("$REPO/harness/debian-config.sh" fetch)
	xz -dc "$DEBIAN_CONFIG" > "$DOBJ/.config"
	sc() { "$SRC/scripts/config" --file "$DOBJ/.config" "$@"; }
	sc --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	   --set-str BUILD_SALT "" --disable DEBUG_INFO --enable DEBUG_INFO_NONE \
	   --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --disable DEBUG_INFO_BTF \
	   --module HDSIM --enable PCI_P2PDMA --module DMABUF_P2PBUF \
	   --enable UDMABUF --enable NET_DEVMEM_DEBUG
	;;
fleet)
	"$REPO/harness/fleet-config.sh"
	"${KMAKE[@]}" -s tinyconfig > /dev/null
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$DOBJ" "$DOBJ/.config" \
		"$REPO/config/devmem.config" "$BUILD/fleet.config" \
		${DEB_EXTRA_CONFIG:-} > /dev/null 2>&1
	;;
*)
	die "DEB_CONFIG=$DEB_CONFIG: debian or fleet"
	;;
esac
"${KMAKE[@]}" -s olddefconfig > /dev/null 2>&1
for o in NET_DEVMEM MODULES; do
	grep -qx "CONFIG_$o=y" "$DOBJ/.config" || die "CONFIG_$o is not set in the $DEB_CONFIG config"
done
grep -qx 'CONFIG_HDSIM=m' "$DOBJ/.config" || die "CONFIG_HDSIM is not a module in the $DEB_CONFIG config"

release=$("${KMAKE[@]}" -s kernelrelease)
say "deb: kernel $release ($DEB_CONFIG config, $(grep -c '=m$' "$DOBJ/.config") modules), package version $pkgver (log: $LOGS/deb-$DEB_CONFIG.log)"
start=$(date +%s)
# bindeb-pkg writes its packages next to the object directory
rm -f "$BUILD"/linux-*_"$pkgver"_*.deb
if ! "${KMAKE[@]}" -j"$JOBS" bindeb-pkg > "$LOGS/deb-$DEB_CONFIG.log" 2>&1; then
	grep -E 'error|Error|modpost' "$LOGS/deb-$DEB_CONFIG.log" | head -n 40 >&2
	die "bindeb-pkg failed (log: $LOGS/deb-$DEB_CONFIG.log)"
fi
mv "$BUILD"/linux-*_"$pkgver"_*.deb "$OUT/"
rm -f "$BUILD"/linux-devmem_"$pkgver"_*.{buildinfo,changes}
say "deb: kernel packages in $(($(date +%s) - start)) s"

# The userspace package, from what `make tools` built.
[ -x "$KST/drivers/net/devmem/ncdevmem" ] || die "no kselftests in $KST (run: make tools)"
tools=$BUILD/deb-tools
rm -rf "$tools"
mkdir -p "$tools/DEBIAN" "$tools/usr/bin" "$tools/usr/sbin" \
	 "$tools/usr/lib/devmem-tcp" "$tools/lib/systemd/system" \
	 "$tools/etc/devmem-tcp" "$tools/usr/share/doc/devmem-tcp-tools/examples"
install -m 0755 "$KST/drivers/net/devmem/ncdevmem" "$KST/drivers/net/devmem/devmemstat" \
	"$BUILD/samples/devmem/devmem_rx" "$tools/usr/bin/"
# the operator's tool, its boot-time unit and a config to start from
install -m 0755 "$KST/drivers/net/devmem/devmemctl" "$tools/usr/sbin/"
install -m 0644 "$SRC/tools/net/devmemctl/devmem-tcp@.service" \
	"$tools/lib/systemd/system/"
install -m 0644 "$SRC/tools/net/devmemctl/example.conf" \
	"$tools/usr/share/doc/devmem-tcp-tools/examples/"
cp -a "$KST" "$tools/usr/lib/devmem-tcp/kselftest"
{
	echo "devmem TCP tools for Linux $release (Debian $base + the devmem series)."
	echo "The kernel: linux-image-$release. The kselftests: /usr/lib/devmem-tcp/kselftest"
	echo "(run_kselftest.sh -c drivers/net/devmem); they need hdsim (modprobe hdsim)."
	for t in usr/sbin/devmemctl usr/bin/ncdevmem usr/bin/devmemstat \
		 usr/bin/devmem_rx; do
		echo
		echo "== ${t##*/}"
		"$tools/$t" --help 2>&1 | sed "s|$tools/${t%/*}/||" || true
	done
} > "$tools/usr/share/doc/devmem-tcp-tools/USAGE"
gzip -9n "$tools/usr/share/doc/devmem-tcp-tools/USAGE"
cp "$SRC/COPYING" "$tools/usr/share/doc/devmem-tcp-tools/copyright"
cat > "$tools/DEBIAN/control" <<EOF
Package: devmem-tcp-tools
Version: $pkgver
Architecture: amd64
Maintainer: $(git -C "$REPO" config user.name) <$(git -C "$REPO" config user.email)>
Depends: libc6, libmnl0, libssl3, liburing2, libbpf1, libelf1, zlib1g
Recommends: linux-image-$release
Section: net
Priority: optional
Description: devmem TCP tools: devmemctl, ncdevmem, devmemstat, the kselftests
 Receive TCP payload into device memory (a dmabuf bound to a NIC RX queue)
 and send from it, on the devmem kernel built from Debian's $base.
 devmemctl prepares, checks and shows a NIC for device memory
 (devmem-tcp@<interface>.service runs it at boot from
 /etc/devmem-tcp/<interface>.conf); ncdevmem is upstream's test tool (same
 command line); devmemstat watches the devmem tracepoints; devmem_rx is the
 minimal receiver.
EOF
dpkg-deb --root-owner-group -Zxz --build "$tools" "$OUT/devmem-tcp-tools_${pkgver}_amd64.deb" > /dev/null
say "deb: $(cd "$OUT" && ls ./*"$pkgver"*.deb | sed 's|^\./||' | xargs)"
