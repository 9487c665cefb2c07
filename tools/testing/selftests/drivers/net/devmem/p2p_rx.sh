#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Device memory that is not host DRAM: a PCI BAR (QEMU's ivshmem-plain,
# driven by p2pbuf) under a PCIe switch, next to an e1000e port
# (harness/vm.sh, VM_P2P=1). The port under the switch receives a
# stream into the BAR peer to peer: every byte checked through the
# exporter's mapping, every DMA address the binding handed out inside
# the BAR. A port that shares no switch with the BAR (its P2P path goes
# through q35's host bridge, which P2PDMA does not trust) and hdsim (not
# a PCI device) are refused with EREMOTEIO and the extack. SIGKILL and
# hot-remove of the BAR's device while bound leave nothing behind. PCI
# error recovery of the bound port refuses binds while it is detached.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/hdsim_env.sh
. ../lib/e1000e_env.sh
. ./devmem_env.sh

PORT=5401
PATTERN=$(printf '\001\002\003\004\005\006')
TMP=$(mktemp -d)
TRACE=/sys/kernel/tracing
trap 'echo 0 > $TRACE/events/devmem/devmem_niov_alloc/enable 2>/dev/null;
      e1000e_cleanup; hdsim_cleanup; rm -rf "$TMP"' EXIT

PLAN=18
ktap_plan $PLAN
skip_all()
{
	local i

	for i in $(seq $PLAN); do ktap_skip "p2p $i" "$1"; done
	ktap_finish
}

e1000e_p2p_ports || skip_all "$E1000E_WHY"
[ -d $TRACE/events/devmem ] || mount -t tracefs none $TRACE 2>/dev/null
debugfs_mounted

# BAR 2 of the p2pbuf device: CPU (= bus, on x86) addresses
read -r BAR_START BAR_END _ <<< "$(sed -n 3p "/sys/bus/pci/devices/$P2P/resource")"
echo "# BAR memory: $P2P ($P2PDEV) BAR 2 $BAR_START..$BAR_END; near $NEAR, far $FAR, sender $SENDER"

# The far port: its P2P path goes through the host bridge. AMD Zen
# hosts are trusted by P2PDMA whatever the bridge (and KVM shows the
# guest the host's CPU): there the bind succeeds, and the case skips.
far_case()
{
	local err want="Remote I/O error No peer-to-peer DMA path between the device"

	./ncdevmem -f "$FAR" --hds on > /dev/null || return 1
	err=$(./ncdevmem -f "$FAR" --bind-only --memory p2p --size $((4 << 20)) 2>&1) &&
		{ echo "# bound: $err"; return 1; }
	echo "$err" | grep -q "$want" || { echo "# $err"; return 1; }
}
if grep -q AuthenticAMD /proc/cpuinfo &&
   [ "$(sed -n 's/^cpu family\s*: //p' /proc/cpuinfo | head -n 1)" -ge 23 ]; then
	ktap_skip "far port refused" "AMD Zen: P2PDMA trusts every host bridge here"
else
	ktap_check "$FAR (no shared switch) refused: EREMOTEIO, extack: no P2P path" far_case
fi

hdsim_case()
{
	local err

	hdsim_pair 25 p2p-hdsim-25 192.0.2 2001:db8:7 || return 1
	./ncdevmem -f "$IF" --hds on > /dev/null || return 1
	err=$(./ncdevmem -f "$IF" --bind-only --memory p2p --size $((4 << 20)) 2>&1) &&
		{ echo "# bound: $err"; return 1; }
	echo "$err" | grep -q "Remote I/O error No peer-to-peer DMA path" ||
		{ echo "# $err"; return 1; }
	hdsim_cleanup
}
ktap_check "hdsim (not a PCI device) refused: EREMOTEIO" hdsim_case

pair_show_case()
{
	./ncdevmem --pair show --memory p2p > "$TMP/pair" || return 1
	sed 's/^/# /' "$TMP/pair"
	grep -q "^pair: memory of $P2P: " "$TMP/pair" &&
	grep -q "^pair: $NEAR (.*: peer to peer below .*, distance 4$" "$TMP/pair" &&
	grep -q "^pair: $FAR (.*: through the host bridge" "$TMP/pair"
}
ktap_check "--pair show: $NEAR below the switch, $FAR through the host bridge" pair_show_case

# devmemctl check --owner reads the same topology: no P2P reason for the
# port under the switch, the far one named with its path (not on AMD Zen,
# which P2PDMA trusts whatever the bridge: there devmemctl names none)
devmemctl_owner_case()
{
	local rc

	./devmemctl check "$NEAR" --owner "$P2P" > "$TMP/near" 2>&1
	sed 's/^/# /' "$TMP/near"
	grep -q '\[p2p-' "$TMP/near" && return 1
	./devmemctl check "$FAR" --owner "$P2P" > "$TMP/far" 2>&1
	rc=$?
	sed 's/^/# /' "$TMP/far"
	[ $rc = 1 ] &&
	grep -q "^  \[p2p-host-bridge\] $FAR and $P2P share no PCIe switch" "$TMP/far" &&
	grep -q "^      fix: a NIC below a switch or root port with $P2P: .*$NEAR" "$TMP/far" &&
	grep -q "^      $FAR: pci0000:00 > " "$TMP/far"
}
if grep -q AuthenticAMD /proc/cpuinfo &&
   [ "$(sed -n 's/^cpu family\s*: //p' /proc/cpuinfo | head -n 1)" -ge 23 ]; then
	ktap_skip "devmemctl check --owner" "AMD Zen: P2PDMA trusts every host bridge here"
else
	ktap_check "devmemctl check --owner: $NEAR reaches the BAR, $FAR named p2p-host-bridge" \
		devmemctl_owner_case
fi

# The ACS control register of PCI function $1: its offset in config space
acs_ctrl_offset()
{
	local cfg=/sys/bus/pci/devices/$1/config pos=256 hdr i

	for ((i = 0; i < 64 && pos >= 256; i++)); do
		hdr=$(od -An -tx4 -j $pos -N4 "$cfg" | tr -d ' ')
		[ -n "$hdr" ] && [ "$hdr" != 00000000 ] || return 1
		if [ $((0x$hdr & 0xffff)) = 13 ]; then
			echo $((pos + 6))
			return 0
		fi
		pos=$(((0x$hdr >> 20) & 0xffc))
	done
	return 1
}

# set_acs_ctrl <bdf> <offset> <16-bit value>
set_acs_ctrl()
{
	# shellcheck disable=SC2059 # the format is the two bytes
	printf "$(printf '\\x%02x\\x%02x' $(($3 & 0xff)) $(($3 >> 8)))" |
		dd of="/sys/bus/pci/devices/$1/config" bs=1 seek="$2" count=2 \
		   conv=notrunc status=none
}

# A port and a BAR that are two functions of one device below a root
# port: with ACS request and completion redirect on the root port (what
# the kernel sets with an IOMMU), P2PDMA sends their traffic up to q35's
# host bridge and refuses the bind; devmemctl check names it with the
# kernel parameter for it, and ncdevmem --pair does not pick the port.
# Redirect off, both see the direct path and the bind succeeds.
acs_case()
{
	local rp off before out named rc=1
	local want="Remote I/O error No peer-to-peer DMA path"

	rp=$(basename "$(dirname "$(readlink -f "/sys/bus/pci/devices/$MF_P2P")")")
	off=$(acs_ctrl_offset "$rp") || { echo "# no ACS capability on $rp"; return 1; }
	before=$(od -An -tu2 -j "$off" -N2 "/sys/bus/pci/devices/$rp/config" | tr -d ' ')
	./ncdevmem -f "$MF_PORT" --hds on > /dev/null || return 1
	set_acs_ctrl "$rp" "$off" 0x000c
	./devmemctl check "$MF_PORT" --owner "$MF_P2P" > "$TMP/acs" 2>&1
	sed 's/^/# /' "$TMP/acs"
	out=$(P2PBUF_DEV=$MF_P2PDEV ./ncdevmem -f "$MF_PORT" --bind-only --memory p2p \
		--size $((4 << 20)) 2>&1)
	echo "$out" | sed 's/^/# /'
	./ncdevmem --pair show --owner "$MF_P2P" > "$TMP/pair" 2>&1
	sed 's/^/# /' "$TMP/pair"
	named="^  \[p2p-acs-redirect\] $MF_PORT and $MF_P2P are below $rp, but ACS redirect on $rp "
	if grep -q "$named" "$TMP/acs" &&
	   grep -q "^      fix: boot with pci=disable_acs_redir=$rp " "$TMP/acs" &&
	   grep -q "^pair: $MF_PORT (.*: ACS redirect on $rp: through the host" "$TMP/pair" &&
	   echo "$out" | grep -q "$want"; then
		set_acs_ctrl "$rp" "$off" 0
		./devmemctl check "$MF_PORT" --owner "$MF_P2P" > "$TMP/acs" 2>&1
		sed 's/^/# /' "$TMP/acs"
		out=$(P2PBUF_DEV=$MF_P2PDEV ./ncdevmem -f "$MF_PORT" --bind-only \
			--memory p2p --size $((4 << 20)) 2>&1)
		echo "$out" | sed 's/^/# /'
		./ncdevmem --pair show --owner "$MF_P2P" > "$TMP/pair" 2>&1
		sed 's/^/# /' "$TMP/pair"
		! grep -q '\[p2p-' "$TMP/acs" &&
		grep -q "^pair: $MF_PORT (.*: peer to peer below $rp, distance 2$" "$TMP/pair" &&
		echo "$out" | grep -q "^bind size_bytes=4194304 " && rc=0
	fi
	set_acs_ctrl "$rp" "$off" "$before"
	./ncdevmem -f "$MF_PORT" --hds off > /dev/null
	return $rc
}
if [ -z "$MF_P2PDEV" ]; then
	ktap_skip "ACS redirect on the common root port" "no two-function device below a root port"
elif grep -q AuthenticAMD /proc/cpuinfo &&
   [ "$(sed -n 's/^cpu family\s*: //p' /proc/cpuinfo | head -n 1)" -ge 23 ]; then
	ktap_skip "ACS redirect on the common root port" \
		"AMD Zen: P2PDMA trusts every host bridge here"
else
	ktap_check "ACS redirect on the root port: named by check, bind refused; off: bound" \
		acs_case
fi

pair_auto_case()
{
	local out far_bdf

	./ncdevmem -f "$NEAR" --hds on > /dev/null || return 1
	out=$(./ncdevmem --pair auto --memory p2p --bind-only --size $((4 << 20))) ||
		{ echo "# $out"; return 1; }
	echo "$out" | grep -q "^pair: picked $NEAR (distance 4)$" &&
	echo "$out" | grep -q "^bind size_bytes=4194304 " || { echo "# $out"; return 1; }
	# memory owned by a function on the root complex: no NIC shares a
	# bridge with it
	far_bdf=$(e1000e_bdf "$FAR")
	out=$(./ncdevmem --pair auto --owner "$far_bdf" --bind-only 2>&1) &&
		{ echo "# $out"; return 1; }
	echo "$out" | grep -q "no NIC shares a PCIe switch or root port with $far_bdf" ||
		{ echo "# $out"; return 1; }
}
ktap_check "--pair auto binds $NEAR; with no NIC under a shared bridge it refuses" pair_auto_case

# a GPU found through its runtime: the stand-in runtimes name the BAR's
# device as their GPU 0
gpu_pair_case()
{
	local kind out

	for kind in cuda rocm; do
		out=$(LD_LIBRARY_PATH=$PWD FAKE_GPU_PCI_BUS_ID=$P2P \
		      ./ncdevmem --pair show --memory $kind) || return 1
		echo "$out" | grep -q "^pair: memory of $P2P: " &&
		echo "$out" | grep -q "^pair: $NEAR (.*: peer to peer below .*, distance 4$" ||
			{ echo "# $kind: $out"; return 1; }
	done
}
ktap_check "--pair --memory cuda|rocm: GPU from cuDeviceGetPCIBusId, ROCm SMI (stand-ins)" \
	gpu_pair_case

gpu_skip_case()
{
	local out

	out=$(./ncdevmem --pair auto --memory rocm 2>&1)
	[ $? = 4 ] && echo "$out" | grep -q "skipping"
}
if ldconfig -p 2>/dev/null | grep -q librocm_smi64; then
	ktap_skip "--pair without ROCm SMI skips" "librocm_smi64 is installed"
else
	ktap_check "--pair without the GPU runtime skips clearly (exit 4)" gpu_skip_case
fi

E1000E_PORTS="$NEAR $SENDER"
if ! e1000e_pair p2p-peer 203.0.113 2001:db8:e2; then
	for i in $(seq 9); do ktap_fail "p2p pair" "$E1000E_WHY"; done
	ktap_finish
fi
NS=$E1000E_NS
yes "$PATTERN" | head -c $((16 << 20)) > "$TMP/data"

# Every net_iov the stream's binding took: its DMA address, from the
# devmem_niov_alloc tracepoint.
echo 16384 > $TRACE/buffer_size_kb	# room for every event of the stream
echo > $TRACE/trace
echo 1 > $TRACE/events/devmem/devmem_niov_alloc/enable
RX_ENV=
rx_case "$NEAR under the switch: 16 MiB into BAR memory" 203.0.113.1 \
	$((16 << 20)) socat --memory p2p
echo 0 > $TRACE/events/devmem/devmem_niov_alloc/enable
rx_case "$NEAR under the switch: 8 MiB through zcrx into BAR memory" \
	203.0.113.1 $((8 << 20)) socat --memory p2p --zcrx

dma_case()
{
	local n bad

	sed -n 's/.*devmem_niov_alloc:.* dma=\(0x[0-9a-f]*\).*/\1/p' \
		$TRACE/trace > "$TMP/dma"
	n=$(wc -l < "$TMP/dma")
	[ "$n" -gt 0 ] || { echo "# no devmem_niov_alloc events"; return 1; }
	bad=$(while read -r a; do
		[ $((a)) -ge $((BAR_START)) ] && [ $((a)) -le $((BAR_END)) ] ||
			echo "$a"
	done < "$TMP/dma" | head -n 3)
	[ -z "$bad" ] || { echo "# outside the BAR: $bad"; return 1; }
	echo "# $n net_iov allocations, all in $BAR_START..$BAR_END"
}
ktap_check "every DMA address the binding handed out is in the BAR" dma_case

# the BAR is free again: the whole of it can be allocated
bar_free()
{
	./ncdevmem -f "$NEAR" --bind-only --memory p2p \
		--size $((BAR_END - BAR_START + 1)) | grep -q "^bind size_bytes="
}
ktap_check "after the stream, the whole BAR binds again (nothing leaked)" bar_free

# Closing the netlink socket mid-stream: the queue goes back to host
# memory, the stream goes on intact, the BAR is free again.
unbind_case()
{
	local out=$TMP/ub.out log=$TMP/ub.log pid

	./ncdevmem -l -f "$NEAR" -s 203.0.113.1 -p $PORT -v 7 --memory p2p \
		--unbind-after $((2 << 20)) > "$out" 2> "$log" &
	pid=$!
	wait_line "$log" "^listening" || { kill $pid; return 1; }
	head -c $((8 << 20)) "$TMP/data" > "$TMP/send"
	bounded_stream $pid "$NEAR" ip netns exec "$NS" \
		socat -u "FILE:$TMP/send" TCP:203.0.113.1:$PORT ||
		{ sed 's/^/# /' "$log" "$out"; return 1; }
	echo "# $(grep "^received" "$out")"
	grep -q "^received 8388608 bytes: [1-9][0-9]* in device memory" "$out" &&
		grep -q ": 0 errors" "$out" && wait_no_bindings && bar_free
}
ktap_check "unbind mid-stream: the rest in host memory, the BAR free again" unbind_case

sigkill_case()
{
	killed_mid_stream 203.0.113.1 -f "$NEAR" --memory p2p && bar_free
}
ktap_check "SIGKILL mid-stream: binding and BAR memory released" sigkill_case

# Hot-remove of the BAR's device while a queue is bound to its memory:
# /dev/p2pbufN goes at once, the removal waits for the dmabuf, the
# receiver goes on; when it exits the device leaves, and a rescan brings
# it back.
remove_case()
{
	local pid rpid ok=1

	./ncdevmem -l -f "$NEAR" -s 203.0.113.1 -p $PORT -v 7 --memory p2p \
		> "$TMP/rm.out" 2> "$TMP/rm.log" &
	pid=$!
	wait_line "$TMP/rm.log" "^listening" || return 1
	echo 1 > "/sys/bus/pci/devices/$P2P/remove" &
	rpid=$!
	sleep 2
	[ -e "$P2PDEV" ] && { echo "# $P2PDEV still there"; ok=0; }
	[ -d "/proc/$rpid" ] || { echo "# removed while bound"; ok=0; }
	# the binding still works: a stream lands and validates
	head -c $((4 << 20)) "$TMP/data" > "$TMP/send"
	bounded_stream $pid "$NEAR" ip netns exec "$NS" \
		socat -u "FILE:$TMP/send" TCP:203.0.113.1:$PORT || ok=0
	grep -q ": 0 errors" "$TMP/rm.out" || { cat "$TMP/rm.out"; ok=0; }
	timeout 30 tail --pid=$rpid -f /dev/null ||
		{ echo "# removal still waiting"; ok=0; }
	wait_no_bindings || ok=0
	[ -e "/sys/bus/pci/devices/$P2P" ] && { echo "# device still there"; ok=0; }
	echo 1 > /sys/bus/pci/rescan
	for i in $(seq 50); do [ -e "$P2PDEV" ] && break; sleep 0.1; done
	[ -e "$P2PDEV" ] || { echo "# no $P2PDEV after rescan"; ok=0; }
	[ $ok = 1 ]
}
ktap_check "hot-remove of the BAR's device while bound: waits, nothing leaks" remove_case
ktap_check "after the rescan, the BAR binds again" bar_free

# PCI error recovery takes the port down with IFF_UP still set
# (e1000_io_error_detected() detaches it and disables the PCI function)
# and brings it back up (e1000_io_resume()). A receiver holds a binding;
# once recovery has the port detached, the receiver is killed (its
# unbind comes while detached) and, at the same time, a bind is tried:
# refused with ENODEV and the extack. The unbind programs nothing, and the port comes back
# on host memory, with no binding left alive by its pool. Without the
# core check that unbind programmed the port in the middle of its
# recovery (receives and interrupts on while the driver held it down, a
# ring that e1000e_up() then set up again): QEMU's model takes it, a
# device being reset need not; the test then fails on the missing
# "unbound while detached". The errors are
# injected in software at the switch's root port (aer_inject): an
# uncorrectable, fatal data link protocol error, so that recovery
# resets the link (a window of ~100 ms).
aer_inject()
{
	python3 - "$1" <<-'PY'
	import struct, sys
	dom, bus, devfn = sys.argv[1].split(":")
	dev, fn = devfn.split(".")
	# struct aer_error_inj: bus, dev, fn, uncor, cor, header log, domain
	rec = struct.pack("<BBBxIIIIIII", int(bus, 16), int(dev, 16),
			  int(fn, 16), 0x10, 0, 0, 0, 0, 0, int(dom, 16))
	with open("/dev/aer_inject", "wb", buffering=0) as f:
	    f.write(rec)
	PY
}

aer_case()
{
	local bdf=$(e1000e_bdf "$NEAR") pid i j r0 r u0 u=0 refused=0 out
	local extack="device is detached (error recovery or sleep)"
	local want="No such device $extack"
	local ok="AER: device recovery successful"
	local late="$NEAR: RX queue [0-9]* unbound while detached"

	[ -c /dev/aer_inject ] || { echo "# no /dev/aer_inject"; return 1; }
	r0=$(dmesg | grep -c "$ok")
	u0=$(dmesg | grep -c "$late")
	for i in $(seq 10); do
		./ncdevmem -l -f "$NEAR" -s 203.0.113.1 -p $PORT --memory p2p \
			> /dev/null 2> "$TMP/aer.log" &
		pid=$!
		wait_line "$TMP/aer.log" "^listening" ||
			{ kill $pid; cat "$TMP/aer.log"; return 1; }
		aer_inject "$bdf" || { kill $pid; return 1; }
		for j in $(seq 300); do
			[ "$(cat "/sys/bus/pci/devices/$bdf/enable")" = 0 ] && break
			sleep 0.01
		done
		# both race the end of the window: start them together
		./ncdevmem -f "$NEAR" --bind-only --memory p2p \
			--size $((4 << 20)) > "$TMP/aer.bind" 2>&1 &
		kill -9 $pid
		wait $pid 2> /dev/null
		wait $!
		out=$(cat "$TMP/aer.bind")
		case $out in
		"bind-rx: $want")	refused=$((refused + 1)) ;;
		"bind size_bytes="*)	;;
		*)			echo "# bind: $out"; return 1 ;;
		esac
		for j in $(seq 100); do
			r=$(dmesg | grep -c "$ok")
			[ $((r - r0)) = "$i" ] && break
			sleep 0.1
		done
		[ $((r - r0)) = "$i" ] || { echo "# recovery $i did not end"; return 1; }
		u=$(($(dmesg | grep -c "$late") - u0))
		[ $u -gt 0 ] && [ $refused -gt 0 ] && break
	done
	echo "# $i injections and recoveries; $u unbinds and $refused of $i binds while detached"
	[ $u -gt 0 ] && [ $refused -gt 0 ] && wait_no_bindings
}
ktap_check "PCI error recovery racing binds: none programs the detached port, none hangs" aer_case
e1000e_wait_link
rx_case "$NEAR after error recovery: 16 MiB into BAR memory" 203.0.113.1 \
	$((16 << 20)) socat --memory p2p
e1000e_cleanup
ktap_finish
