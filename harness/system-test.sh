#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make system-test`: a real Debian 12 system, not virtme-ng's shared root.
#  1. the packages (`make deb` with DEB_CONFIG=fleet and
#     config/deb-system.config: the test kernel's options plus a disk and
#     ext4 for a root of its own), unless build/deb has them;
#  2. a Debian 12 (bookworm) minbase root from Debian's archive with
#     mmdebstrap, once (build/system/base.tar), with systemd, udev, kmod
#     and initramfs-tools;
#  3. our packages installed in it with dpkg (the kernel's postinst runs
#     initramfs-tools; the modules land in /lib/modules), a oneshot unit
#     that runs harness/system-guest.sh at boot and powers off, an ext4
#     disk image made from it (build/system/disk.img);
#     The operator's set-up, as devmem-tcp-tools documents it: the
#     receiving port named devmem0 by a systemd .link file (its MAC), one
#     config line for its flow in /etc/devmem-tcp/devmem0.conf, and the
#     packaged devmem-tcp@devmem0.service enabled;
#  4. two boots of QEMU from that disk (the image's own /boot/vmlinuz and
#     initrd, root=/dev/vda, systemd as init, udev), two e1000e ports
#     joined by a hub: at each boot the unit prepares devmem0 and the
#     packaged ncdevmem receives on it without setting anything up; the
#     first boot also sends and releases through the unit, the second
#     proves nothing was left behind.
# Logs: build/system/boot1.log, boot2.log (the serial console).
. "$(dirname "$0")/lib.sh"

SYS=$BUILD/system
ROOT=$SYS/root
DISK=$SYS/disk.img
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
BOOT_TIMEOUT=${SYSTEM_BOOT_TIMEOUT:-900}
PKGS="systemd-sysv,udev,kmod,initramfs-tools,iproute2,socat,ethtool,procps,libmnl0,liburing2,libbpf1,libssl3,libelf1,zlib1g,e2fsprogs"
need_cmd qemu-system-x86_64 qemu-system-x86
need_cmd mkfs.ext4 e2fsprogs
command -v mmdebstrap > /dev/null || {
	say "apt: installing mmdebstrap"
	apt-get install -y -q --no-install-recommends mmdebstrap > /dev/null ||
		die "cannot install mmdebstrap"
}
mkdir -p "$SYS" "$LOGS"
start=$(date +%s)

pkgver=$(tree_version)+devmem${DEB_REVISION:-1}
if ! ls "$BUILD"/deb/linux-image-*_"$pkgver"_amd64.deb > /dev/null 2>&1 ||
   [ "${SYSTEM_REBUILD_DEB:-1}" = 1 ]; then
	DEB_CONFIG=fleet DEB_EXTRA_CONFIG=$REPO/config/deb-system.config \
		"$REPO/harness/deb.sh"
fi
debs=$(ls "$BUILD"/deb/linux-image-*_"$pkgver"_amd64.deb \
	  "$BUILD"/deb/devmem-tcp-tools_"$pkgver"_amd64.deb)

# The base system, once per package list.
stamp=$(echo "$PKGS $MIRROR" | sha1sum | cut -c1-12)
if [ "$(cat "$SYS/base.stamp" 2>/dev/null)" != "$stamp" ]; then
	say "system: Debian 12 minbase from $MIRROR with mmdebstrap (log: $SYS/mmdebstrap.log)"
	mmdebstrap --variant=minbase --include="$PKGS" bookworm "$SYS/base.tar" \
		"$MIRROR" > "$SYS/mmdebstrap.log" 2>&1 ||
		{ tail -n 20 "$SYS/mmdebstrap.log"; die "mmdebstrap failed"; }
	echo "$stamp" > "$SYS/base.stamp"
fi

# A fresh root from it, our packages installed with dpkg.
umount_root() {
	local m

	for m in dev/pts dev proc sys; do
		mountpoint -q "$ROOT/$m" && umount "$ROOT/$m"
	done
	return 0
}
trap umount_root EXIT
umount_root
rm -rf "$ROOT"
mkdir -p "$ROOT"
tar -C "$ROOT" -xf "$SYS/base.tar"
mkdir -p "$ROOT/tmp/debs"
cp $debs "$ROOT/tmp/debs/"
mount --bind /proc "$ROOT/proc"
mount --bind /sys "$ROOT/sys"
mount --bind /dev "$ROOT/dev"
mount --bind /dev/pts "$ROOT/dev/pts"
say "system: dpkg -i $(for d in $debs; do basename "$d"; done | xargs)"
if ! chroot "$ROOT" sh -c 'dpkg -i /tmp/debs/*.deb' > "$SYS/dpkg.log" 2>&1; then
	tail -n 30 "$SYS/dpkg.log"
	die "dpkg -i failed (log: $SYS/dpkg.log)"
fi
umount_root
release=$(basename "$(ls -d "$ROOT"/lib/modules/*devmem*)")
[ -f "$ROOT/boot/initrd.img-$release" ] || die "no initramfs for $release (log: $SYS/dpkg.log)"
[ -f "$ROOT/lib/modules/$release/modules.dep" ] || die "no modules.dep for $release"
say "system: $release installed: $(find "$ROOT/lib/modules/$release" -name '*.ko' | wc -l) modules, initramfs $(du -h "$ROOT/boot/initrd.img-$release" | cut -f1)"
rm -rf "$ROOT/tmp/debs"

echo devmem-system > "$ROOT/etc/hostname"
echo "/dev/vda / ext4 defaults 0 1" > "$ROOT/etc/fstab"
install -m 0755 "$REPO/harness/system-guest.sh" "$ROOT/usr/local/sbin/devmem-system-test"
cat > "$ROOT/etc/systemd/system/devmem-system-test.service" <<-EOF
	[Unit]
	Description=devmem TCP end-to-end test, then power off
	After=multi-user.target systemd-udev-settle.service
	Wants=systemd-udev-settle.service

	[Service]
	Type=oneshot
	ExecStart=/usr/local/sbin/devmem-system-test
	ExecStopPost=/bin/systemctl --no-block poweroff
	StandardOutput=tty
	StandardError=tty
	TTYPath=/dev/ttyS0
	TimeoutStartSec=0

	[Install]
	WantedBy=multi-user.target
	EOF
ln -sf /etc/systemd/system/devmem-system-test.service \
	"$ROOT/etc/systemd/system/multi-user.target.wants/devmem-system-test.service"
# The operator's part: names for the ports, the flow, the unit enabled
mkdir -p "$ROOT/etc/systemd/network"
for n in 0 1; do
	cat > "$ROOT/etc/systemd/network/10-devmem$n.link" <<-EOF
		[Match]
		MACAddress=52:54:00:de:e0:0$n

		[Link]
		Name=devmem$n
		EOF
done
mkdir -p "$ROOT/etc/devmem-tcp"
echo "flow tcp4 dst-port 5201" > "$ROOT/etc/devmem-tcp/devmem0.conf"
[ -f "$ROOT/lib/systemd/system/devmem-tcp@.service" ] ||
	die "devmem-tcp-tools installed no devmem-tcp@.service"
ln -sf /lib/systemd/system/devmem-tcp@.service \
	"$ROOT/etc/systemd/system/multi-user.target.wants/devmem-tcp@devmem0.service"
# the serial console is the test's; no login prompt on it
ln -sf /dev/null "$ROOT/etc/systemd/system/serial-getty@ttyS0.service"
cp "$ROOT/boot/vmlinuz-$release" "$ROOT/boot/initrd.img-$release" "$SYS/"
rm -f "$DISK"
mkfs.ext4 -q -F -L root -d "$ROOT" "$DISK" 2G || die "mkfs.ext4 -d failed"

ACCEL=$(cat "$BUILD/accel" 2>/dev/null || echo tcg)
boot() {
	local n=$1 log=$SYS/boot$1.log

	say "system: boot $n ($ACCEL; serial console: $log)"
	timeout --kill-after=10 "$BOOT_TIMEOUT" qemu-system-x86_64 \
		-machine q35 -accel "$ACCEL" -cpu max -m 2G -smp 2 \
		-nographic -no-reboot \
		-kernel "$SYS/vmlinuz-$release" -initrd "$SYS/initrd.img-$release" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 oops=panic" \
		-drive file="$DISK",format=raw,if=virtio \
		-netdev hubport,id=e1k0,hubid=7 \
		-device e1000e,netdev=e1k0,mac=52:54:00:de:e0:00 \
		-netdev hubport,id=e1k1,hubid=7 \
		-device e1000e,netdev=e1k1,mac=52:54:00:de:e0:01 \
		< /dev/null > "$log" 2>&1
	tr -d '\r' < "$log" | grep -a '^SYSTEM-TEST' | sed 's/^/    /'
	if splats_in "$log"; then
		return 1
	fi
	tr -d '\r' < "$log" | grep -aqx "SYSTEM-TEST boot $n: [1-9][0-9]* passed, 0 failed"
}
rc=0
boot 1 || rc=1
boot 2 || rc=1
results=$LOGS/system-results
for n in 1 2; do
	tr -d '\r' < "$SYS/boot$n.log" | grep -a '^SYSTEM-TEST: .*: \(ok\|FAIL\)$' |
		sed "s/^SYSTEM-TEST: \(.*\): ok$/PASS\tsystem\/boot$n: \1/;
		     s/^SYSTEM-TEST: \(.*\): FAIL$/FAIL\tsystem\/boot$n: \1/"
done > "$results"
say "system test on Debian 12 ($release) in $(($(date +%s) - start)) s: $(summary "$results")"
exit $rc
