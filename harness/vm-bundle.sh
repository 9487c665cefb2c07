#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make vm-bundle: everything needed to boot the suite's kernel on a
# machine that has /dev/kvm and nothing else (no QEMU, no virtme-ng, no
# iproute2), in build/vm-bundle/ (about 35 MiB):
#   qemu.tar.xz   this machine's qemu-system-x86_64, every library it
#                 loads (the dynamic loader and libc included) and the
#                 firmware it reads (SeaBIOS, option ROMs)
#   bzImage       the suite's kernel (build/obj)
#   initrd.img    the guest's root: the kernel's modules, busybox, and the
#                 host's own binaries of the tools the guest scripts run
#                 (bash, iproute2, ethtool, socat, kmod...) with their
#                 libraries, and an init (harness/vm-bundle-init)
#   run-vm        the launcher (harness/vm-bundle-run)
#   MANIFEST      what went in, and from which packages
# harness/vm.sh boots it instead of virtme-ng when VM_BUNDLE names it:
#   VM_BUNDLE=build/vm-bundle harness/bench.sh
# The guest mounts the repository over 9p at the path it has on the
# machine that runs QEMU, as virtme-ng shares the host's root: the guest
# scripts, build/kselftest and the logs are read and written there.
# Nothing in `make check` needs it; `make vm-bundle-test` boots it under
# TCG here and runs hdsim's and e1000e's receive with it.
. "$(dirname "$0")/lib.sh"

OUT=${VM_BUNDLE_OUT:-$BUILD/vm-bundle}
STAGE=$BUILD/vm-bundle-stage
BZIMAGE=$OBJ/arch/x86/boot/bzImage
[ -f "$BZIMAGE" ] || die "no kernel at $BZIMAGE (run: make kernel)"
need_cmd qemu-system-x86_64 qemu-system-x86
need_cmd busybox busybox-static
need_cmd cpio cpio
need_cmd zstd zstd
RELEASE=$(cat "$OBJ/include/config/kernel.release")

rm -rf "$STAGE" "$OUT"
mkdir -p "$STAGE/qemu/bin" "$STAGE/qemu/lib" "$STAGE/qemu/share" "$STAGE/root" "$OUT"

# copy_with_libs <root> <file>...: each file and every library ldd says
# it loads, at the same paths under <root> (symlinks resolved)
copy_with_libs()
{
	local root=$1 f lib
	shift
	for f in "$@"; do
		f=$(realpath "$f")
		install -D -m 0755 "$f" "$root$f"
		for lib in $(ldd "$f" 2>/dev/null | grep -oE '/[^ ]+'); do
			[ -e "$root$lib" ] && continue
			install -D -m 0755 "$(realpath "$lib")" "$root$lib"
		done
	done
}

# --- QEMU: the binary, its libraries in one folder, the firmware ---
say "vm-bundle: QEMU $(qemu-system-x86_64 --version | head -n1 | awk '{print $4}') with its libraries"
QEMU=$(realpath "$(command -v qemu-system-x86_64)")
cp "$QEMU" "$STAGE/qemu/bin/"
for lib in $(ldd "$QEMU" | grep -oE '/[^ ]+'); do
	cp -L "$lib" "$STAGE/qemu/lib/"
done
# firmware QEMU reads for a q35 machine booted with -kernel: SeaBIOS and
# the loader ROMs (-L finds them in one folder); the NICs' option ROMs
# (ipxe-qemu), without which -device e1000e refuses to start
for f in seabios/bios-256k.bin qemu/kvmvapic.bin qemu/linuxboot_dma.bin; do
	cp -L "/usr/share/$f" "$STAGE/qemu/share/" 2>/dev/null ||
		die "QEMU firmware /usr/share/$f not found"
done
for f in efi-e1000e.rom efi-virtio.rom; do
	cp -L "/usr/lib/ipxe/qemu/$f" "$STAGE/qemu/share/" 2>/dev/null ||
		cp -L "/usr/share/qemu/$f" "$STAGE/qemu/share/" 2>/dev/null || true
done
# Debian builds TCG as a loadable QEMU module (run-vm points
# QEMU_MODULE_DIR at it); none of the others (display, audio, USB) is used
mkdir -p "$STAGE/qemu/modules"
cp /usr/lib/x86_64-linux-gnu/qemu/accel-tcg-x86_64.so "$STAGE/qemu/modules/"
tar -C "$STAGE/qemu" -cJf "$OUT/qemu.tar.xz" .

# --- the guest's root ---
say "vm-bundle: guest root (modules of $RELEASE, busybox, tools)"
R=$STAGE/root
mkdir -p "$R"/usr/bin "$R"/usr/sbin "$R"/usr/lib "$R"/usr/lib64 "$R"/etc \
	 "$R"/proc "$R"/sys "$R"/dev "$R"/tmp "$R"/run "$R"/root "$R"/mnt "$R"/var
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$R/$d"
done
ln -s ../run "$R/var/run"
make -s -C "$SRC" O="$OBJ" INSTALL_MOD_PATH="$R/usr" INSTALL_MOD_STRIP=1 \
	modules_install > "$LOGS/vm-bundle-modules.log" 2>&1 ||
	{ tail -n 20 "$LOGS/vm-bundle-modules.log"; die "modules_install failed"; }
rm -f "$R/usr/lib/modules/$RELEASE/build" "$R/usr/lib/modules/$RELEASE/source"

# The tools the guest scripts (guest-*.sh, the kselftests' lib/*.sh and
# devmem/*.sh) run, from this machine's packages. What is not here comes
# from busybox (below).
TOOLS="bash sh cat cp mv rm ln ls mkdir rmdir touch chmod head tail tr cut
	sort uniq wc seq sleep timeout stat readlink realpath basename dirname
	mktemp tee env date yes true false printf od dd cmp sha1sum nproc expr
	grep sed awk mawk find xargs kill ps pkill pgrep sysctl
	mount umount taskset nsenter unshare setsid chrt flock
	ip tc ss bridge nstat ethtool socat ping
	kmod modprobe insmod rmmod lsmod depmod modinfo"
# pkg_of <file>: the Debian package that ships it (dpkg knows some files
# only by their path before the /usr merge)
pkg_of()
{
	{ dpkg -S "$1" || dpkg -S "${1#/usr}"; } 2>/dev/null | head -n1 | cut -d: -f1
}
MANIFEST=$OUT/MANIFEST
{
	echo "vm-bundle built $(date -u +%FT%TZ) on $(. /etc/os-release; echo "$PRETTY_NAME")"
	echo "kernel $RELEASE ($(git -C "$REPO" describe --always --dirty 2>/dev/null))"
	echo "qemu $(dpkg -S "$QEMU" | cut -d: -f1) $(dpkg-query -W -f '${Version}' qemu-system-x86)"
	echo "firmware: seabios $(dpkg-query -W -f '${Version}' seabios), ipxe-qemu $(dpkg-query -W -f '${Version}' ipxe-qemu 2>/dev/null || echo -)"
	echo "guest tools (package version):"
} > "$MANIFEST"
for t in $TOOLS; do
	p=$(PATH=$PATH:/usr/sbin:/sbin type -P "$t") || { echo "  $t: from busybox" >> "$MANIFEST"; continue; }
	copy_with_libs "$R" "$p"
	# keep the name the scripts call it by (awk -> mawk, modprobe -> kmod)
	[ "$(realpath "$p")" = "$p" ] || { mkdir -p "$R$(dirname "$p")"; ln -sf "$(realpath "$p")" "$R$p"; }
	pkg=$(pkg_of "$(realpath "$p")")
	echo "  $t: $pkg $(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null)" >> "$MANIFEST"
done
# the libraries the kselftest binaries load (libbpf, libmnl, liburing...)
copy_with_libs "$R" $(find "$KST" -type f -perm -u+x ! -name '*.sh' ! -name '*.py' \
	-exec sh -c 'file -b "$1" | grep -q ELF' sh {} \; -print)
# ...then removed again: they run from the 9p share, only their
# libraries were wanted in the root
rm -rf "${R:?}${KST%/*}"
install -m 0755 "$(command -v busybox)" "$R/usr/bin/busybox"
for a in $(busybox --list); do
	[ -e "$R/usr/bin/$a" ] || [ -e "$R/usr/sbin/$a" ] || ln -s busybox "$R/usr/bin/$a"
done
install -m 0755 "$REPO/harness/vm-bundle-init" "$R/init"
echo "root:x:0:0:root:/root:/bin/bash" > "$R/etc/passwd"
echo "root:x:0:" > "$R/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' > "$R/etc/hosts"
: > "$R/etc/fstab"
(cd "$R" && find . -print0 | cpio --null -o -H newc --quiet) |
	zstd -q -19 -T0 > "$OUT/initrd.img"

cp "$BZIMAGE" "$OUT/bzImage"
install -m 0755 "$REPO/harness/vm-bundle-run" "$OUT/run-vm"
echo "sizes: $(cd "$OUT" && du -b qemu.tar.xz bzImage initrd.img | awk '{printf "%s %.1f MiB, ", $2, $1/1048576}')" >> "$MANIFEST"
rm -rf "$STAGE"
say "vm-bundle: $OUT, $(du -sh "$OUT" | cut -f1) ($(grep -c 'from busybox' "$MANIFEST") tools from busybox)"
