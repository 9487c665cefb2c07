#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the built kernel with virtme-ng.
#   vm.sh                 interactive shell (developers)
#   vm.sh --exec CMD      run CMD in the guest, output to stdout
# KVM is used when a short probe boots with it; otherwise TCG.
. "$(dirname "$0")/lib.sh"

# VM_BUNDLE=<dir>: boot the bundle `make vm-bundle` made (its own QEMU,
# kernel and guest root; harness/vm-bundle.sh) instead of virtme-ng with
# this machine's QEMU, e.g. on a machine that has /dev/kvm and no QEMU
VM_BUNDLE=${VM_BUNDLE:-}
if [ -n "$VM_BUNDLE" ]; then
	VM_BUNDLE=$(realpath "$VM_BUNDLE")
	BZIMAGE=$VM_BUNDLE/bzImage
	[ -x "$VM_BUNDLE/run-vm" ] || die "no VM bundle in $VM_BUNDLE (run: make vm-bundle)"
else
	BZIMAGE=$OBJ/arch/x86/boot/bzImage
	[ -f "$BZIMAGE" ] || die "no kernel at $BZIMAGE (run: make kernel)"
	[ -x "$(vng_bin)" ] || die "virtme-ng missing in $VENV (run: make deps)"
	need_cmd qemu-system-x86_64 qemu-system-x86
	need_cmd busybox busybox-static
fi

export PATH=$VENV/bin:$PATH
VM_MEMORY=${VM_MEMORY:-4G}
VM_CPUS=${VM_CPUS:-2}
VM_APPEND=${VM_APPEND:-}

# The debug kernel boots with 4-level paging. On a guest CPU with LA57
# (TCG's "max", KVM's "host" on recent servers) 6.1 runs 5-level paging,
# and identify_boot_cpu() clears boot_cpu_data's capabilities before it
# reads them back from CPUID. A timer interrupt in that window runs
# KASAN's checks with pgtable_l5_enabled() false: the shadow bounds are
# computed for 47 bits, and a per-CPU read in the 5-level direct map is
# reported as a wild-memory-access (seen once in CI: rcu_is_watching()
# under irqentry_enter(), 4 s into boot, before any devmem code runs).
# A false report that depends on timer timing; no5lvl removes the window.
[ "$VARIANT" = debug ] && VM_APPEND="no5lvl $VM_APPEND"
# DMA API debugging (config/debug.config) warns for e1000e alone; every
# device's errors are counted (debugfs dma-api/error_count, which the
# e1000e scripts read). Stock 6.1 udmabuf syncs a mapping it made for
# the device in the other direction (DMA_BUF_IOCTL_SYNC, udmabuf.c's
# ground truth tests): counted, not a warning of our code's.
[ "$VARIANT" = debug ] && VM_APPEND="dma_debug_driver=e1000e $VM_APPEND"
# KCSAN's reports go to the console (console.log has them all); the
# ring buffer that dmesg.log is read from is made large enough too
[ "$VARIANT" = kcsan ] && VM_APPEND="log_buf_len=16M $VM_APPEND"

# Two e1000e ports (QEMU's 82574L model) joined back to back by a QEMU hub:
# frames go from one to the other and never leave QEMU. The real-driver
# tests (e1000e_rx.sh) use them and skip, saying why, where QEMU has no
# e1000e or VM_E1000E=0.
# The device list is read once into a variable: piped into grep -q, QEMU
# can get SIGPIPE when grep quits at the first match, and under pipefail
# that reads as "no such device" (the e1000e tests then skipped).
if [ -n "$VM_BUNDLE" ]; then
	QEMU_DEVICES=$("$VM_BUNDLE/run-vm" --device-help 2>/dev/null || true)
else
	QEMU_DEVICES=$(qemu-system-x86_64 -device help 2>/dev/null || true)
fi
qemu_has() { grep -qF "\"$1\"" <<< "$QEMU_DEVICES"; }
E1000E_OPTS=
if [ "${VM_E1000E:-1}" = 1 ] && qemu_has e1000e; then
	# VM_IOMMU=1: behind an emulated Intel IOMMU (q35), so descriptors
	# and the dmabuf's net_iovs carry IOVAs; created before the ports
	if [ "${VM_IOMMU:-0}" = 1 ]; then
		E1000E_OPTS=" -device intel-iommu,intremap=off"
		VM_APPEND="intel_iommu=on $VM_APPEND"
	fi
	for p in 0 1; do
		E1000E_OPTS+=" -netdev hubport,id=e1k$p,hubid=7"
		E1000E_OPTS+=" -device e1000e,netdev=e1k$p"
	done
fi

# VM_P2P=1: device memory that is not host DRAM, and a PCIe topology for
# it (p2p_rx.sh): a root port with a PCIe switch under it; on the
# switch's two downstream ports an ivshmem-plain device (BAR 2: 128 MiB
# of plain memory, driven by p2pbuf) and a third e1000e port; a fourth
# e1000e port on the root complex, joined to the third through a second
# hub, sends. The first two ports stay as they are: they share no switch
# with the BAR, so P2P to them goes through q35's host bridge. A second
# root port holds one device of two functions, an e1000e port (alone on
# its hub) and a second ivshmem-plain BAR: their common bridge is that
# root port, whose ACS redirect decides whether P2PDMA lets them meet.
if [ "${VM_P2P:-0}" = 1 ] && [ -n "$E1000E_OPTS" ] &&
   qemu_has x3130-upstream && qemu_has ivshmem-plain; then
	E1000E_OPTS+=" -device pcie-root-port,id=p2prp,bus=pcie.0,addr=0x10,chassis=40,slot=0"
	E1000E_OPTS+=" -device x3130-upstream,id=p2psw,bus=p2prp"
	E1000E_OPTS+=" -device xio3130-downstream,id=p2pdn0,bus=p2psw,chassis=41,slot=0"
	E1000E_OPTS+=" -device xio3130-downstream,id=p2pdn1,bus=p2psw,chassis=42,slot=0"
	E1000E_OPTS+=" -object memory-backend-ram,id=p2pmem,size=128M"
	E1000E_OPTS+=" -device ivshmem-plain,memdev=p2pmem,bus=p2pdn0"
	E1000E_OPTS+=" -netdev hubport,id=e1k2,hubid=8"
	E1000E_OPTS+=" -device e1000e,netdev=e1k2,bus=p2pdn1"
	E1000E_OPTS+=" -netdev hubport,id=e1k3,hubid=8"
	E1000E_OPTS+=" -device e1000e,netdev=e1k3,bus=pcie.0,addr=0x11"
	E1000E_OPTS+=" -device pcie-root-port,id=p2prp2,bus=pcie.0,addr=0x12,chassis=43,slot=0"
	E1000E_OPTS+=" -netdev hubport,id=e1k4,hubid=9"
	E1000E_OPTS+=" -device e1000e,netdev=e1k4,bus=p2prp2,addr=0x0.0x0,multifunction=on"
	E1000E_OPTS+=" -object memory-backend-ram,id=p2pmem2,size=16M"
	E1000E_OPTS+=" -device ivshmem-plain,memdev=p2pmem2,bus=p2prp2,addr=0x0.0x1"
fi

# VM_QEMU_OPTS: more QEMU options, e.g. make bench's TCG plugin
# (harness/tcg-count.sh); TCG only, as a plugin needs it
[ -n "${VM_QEMU_OPTS:-}" ] && E1000E_OPTS+=" $VM_QEMU_OPTS"

# VM_UDEV=0: boot without udev. The guest's root is the host's, and
# virtme-ng-init starts udevd only where /usr/lib/systemd/systemd-udevd
# exists, so QEMU runs in a mount namespace of its own with an empty
# tmpfs over /usr/lib/systemd (the guest needs nothing else there). The
# suite needs no udev rule: /dev comes from devtmpfs, ports are found by
# driver, not by name (they keep their kernel names, eth0...). On the
# debug kernel udev's coldplug and settle take about 85 s of the boot
# (4 s on the plain kernel), so harness/debug.sh boots without it.
VM_UDEV=${VM_UDEV:-1}
no_udev() {
	unshare --mount --propagation private sh -c \
		'mount -t tmpfs -o size=64k,mode=0755 no-udev /usr/lib/systemd &&
		 exec "$@"' no-udev "$@"
}

vng_cmd() {
	local accel=$1
	shift
	local wrap=
	[ "$VM_UDEV" = 0 ] && wrap=no_udev
	local args=(--run "$BZIMAGE" --user root --force-9p --force-initramfs
		    --memory "$VM_MEMORY" --cpus "$VM_CPUS"
		    --append "oops=panic panic=-1 $VM_APPEND")
	[ "$accel" = tcg ] && args+=(--disable-kvm)
	[ -n "$E1000E_OPTS" ] && args+=("--qemu-opts=${E1000E_OPTS# }")
	$wrap "$(vng_bin)" "${args[@]}" "$@"
}

# bundle_cmd <accel> <command>: the command in a file under $LOGS (the
# share), booted by the bundle's launcher
bundle_cmd() {
	local accel=$1 f rc=0
	f=$LOGS/.vm-cmd.$$
	printf '%s\n' "$2" > "$f"
	"$VM_BUNDLE/run-vm" --share "$REPO" --cmd "$f" --accel "$accel" \
		--cpus "$VM_CPUS" --memory "$VM_MEMORY" \
		--append "$VM_APPEND" --qemu-opts "${E1000E_OPTS# }" || rc=$?
	rm -f "$f" "$f.rc"
	return $rc
}

# Decide KVM vs TCG once per machine+kernel (cached in build/).
probe_accel() {
	local cache=$BUILD/accel
	if [ -f "$cache" ] && [ "$cache" -nt "$BZIMAGE" ]; then
		cat "$cache"
		return
	fi
	local accel=tcg
	if [ -w /dev/kvm ] && [ "${DEVMEM_NO_KVM:-0}" != 1 ]; then
		if DEVMEM_ACCEL=kvm VM_MEMORY=1G VM_CPUS=1 timeout --kill-after=5 30 \
		   "$0" --exec 'echo kvm-probe-ok' 2>/dev/null | grep -q kvm-probe-ok; then
			accel=kvm
		fi
	fi
	echo $accel > "$cache"
	echo $accel
}

mkdir -p "$LOGS"
if [ -n "$VM_BUNDLE" ]; then
	# KVM where a short boot with it runs a command (a /dev/kvm that
	# opens can still refuse the guest's CPU), else TCG; once per run
	# unless DEVMEM_ACCEL says; no probe where the CPU has no VMX/SVM
	# (a PVM host's /dev/kvm opens, but boots only PVM guests)
	ACCEL=${DEVMEM_ACCEL:-tcg}
	if [ -z "${DEVMEM_ACCEL:-}" ] && [ -w /dev/kvm ] &&
	   ! grep -qw -E 'vmx|svm' /proc/cpuinfo; then
		echo "no vmx/svm in /proc/cpuinfo: $(lsmod 2>/dev/null | grep -o '^kvm[a-z_]*' | tr '\n' ' ')" > "$LOGS/kvm-probe.log"
	elif [ -z "${DEVMEM_ACCEL:-}" ] && [ -w /dev/kvm ]; then
		echo true > "$LOGS/.kvm-probe.$$"
		timeout --kill-after=5 60 "$VM_BUNDLE/run-vm" --share "$REPO" \
			--cmd "$LOGS/.kvm-probe.$$" --accel kvm --cpus 1 --memory 1G \
			> "$LOGS/kvm-probe.log" 2>&1 && ACCEL=kvm
		rm -f "$LOGS/.kvm-probe.$$" "$LOGS/.kvm-probe.$$.rc"
	fi
	say "VM bundle $VM_BUNDLE: $ACCEL, $VM_CPUS CPUs, $VM_MEMORY" >&2
	[ "${1:-}" = --exec ] || die "VM_BUNDLE boots only with --exec CMD"
	shift
	bundle_cmd "$ACCEL" "$*"
	exit
fi
ACCEL=${DEVMEM_ACCEL:-$(probe_accel 2>/dev/null)}
if [ "${1:-}" = --exec ]; then
	shift
	vng_cmd "$ACCEL" -v --rwdir "$LOGS" --exec "$*"
else
	say "interactive VM on $(cat "$OBJ/include/config/kernel.release") ($ACCEL); exit the shell to power off"
	vng_cmd "$ACCEL" --rwdir "$LOGS"
fi
