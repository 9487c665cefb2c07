#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM: the devmem TCP demo. A stock sender (socat) in a
# network namespace streams into ncdevmem on an hdsim port whose RX queue
# is bound to a udmabuf; every byte is validated from the dmabuf.
# DEMO_NIC=e1000e: the same on the VM's e1000e pair, a real driver on
# QEMU's 82574L model (one Rx queue, bound whole, no steering).
# DEMO_RX=zcrx: received through io_uring zero-copy receive (RECV_ZC,
# buffers back through the refill ring) instead of recvmsg(2).
# usage: guest-demo.sh <kselftest dir> <MiB>
KST=$1
MIB=${2:-256}
BIN=$KST/drivers/net/devmem/ncdevmem
STAT=$KST/drivers/net/devmem/devmemstat
NS=demo-peer
ID=7
PORT=5201
NIC=${DEMO_NIC:-hdsim}
MEM=${DEMO_MEM:-udmabuf}
RXMODE=${DEMO_RX:-recvmsg}
TRACE=/sys/kernel/tracing
export PATH=$PATH:/usr/sbin:/sbin
. "$KST/drivers/net/lib/hdsim_env.sh"
. "$KST/drivers/net/lib/e1000e_env.sh"

step() { printf '\n--- %s\n' "$*"; }
fail() { printf '\nDEMO FAILED: %s\n' "$*"; exit 1; }

debugfs_mounted
[ -x "$BIN" ] || fail "no ncdevmem in $KST"
[ -x "$STAT" ] || fail "no devmemstat in $KST"

if [ "$MEM" = p2p ]; then
	step "device memory: BAR 2 of an ivshmem-plain device (p2pbuf) behind a PCIe switch; the NIC that shares the switch"
	e1000e_p2p_ports || fail "$E1000E_WHY"
	"$BIN" --pair show --memory p2p | sed 's/^/  /'
	read -r BAR_START BAR_END _ <<< "$(sed -n 3p "/sys/bus/pci/devices/$P2P/resource")"
	echo "BAR memory: $BAR_START..$BAR_END ($P2PDEV)"
	E1000E_PORTS="$NEAR $SENDER"
	e1000e_pair $NS 192.0.2 2001:db8:2 || fail "$E1000E_WHY"
	Q=0
	COUNTERS='rx_(packets|header_split|csum_offload_good)|alloc_rx_buff_failed'
	SETUP="tcp-data-split on, 64 MiB of the BAR bound to the only RX queue of $NEAR"
	MEMARGS="--memory p2p"
	# where the device writes: every net_iov the binding hands out
	[ -d $TRACE/events/devmem ] || mount -t tracefs none $TRACE
	echo 16384 > $TRACE/buffer_size_kb	# room for every event of the stream
	echo > $TRACE/trace
	echo 1 > $TRACE/events/devmem/devmem_niov_alloc/enable
elif [ "$NIC" = e1000e ]; then
	step "two e1000e ports (QEMU 82574L, joined by a QEMU hub), the second in a peer namespace"
	e1000e_pair $NS 192.0.2 2001:db8:2 || fail "$E1000E_WHY"
	Q=0
	COUNTERS='rx_(packets|header_split|csum_offload_good)|alloc_rx_buff_failed'
	SETUP="tcp-data-split on (packet split at MTU 1500), 64 MiB udmabuf bound to the only RX queue"
else
	step "creating the header-split test NIC (hdsim, 4 queues) and a peer namespace"
	[ -d /sys/bus/hdsim ] || fail "no hdsim driver"
	hdsim_pair $ID $NS 192.0.2 2001:db8:2 || fail "cannot create the hdsim pair"
	Q=3
	COUNTERS='rx3_(packets|hds_packets|hds_payload_bytes|devmem_payload_bytes|alloc_fail)'
	SETUP="tcp-data-split on, flow rule to queue 3, RSS on 0-2, 64 MiB udmabuf bound to queue 3"
fi
if [ "$RXMODE" = zcrx ]; then
	MEMARGS="${MEMARGS:-} --zcrx"
	SETUP="$SETUP; received with io_uring zero-copy receive on that queue instead of a binding"
fi
echo "receiver: $IF (192.0.2.1)   sender: $PEER in netns $NS (192.0.2.2)"

step "sender data: $MIB MiB of upstream's validation pattern (1..6, \\n)"
yes "$(printf '\001\002\003\004\005\006')" | head -c $((MIB << 20)) > /tmp/demo.data
WANT=$(sha256sum < /tmp/demo.data | cut -d' ' -f1)
echo "sender sha256 $WANT"

step "devmemstat (tools/net/devmemstat): the devmem tracepoints, through BPF"
"$STAT" -i 5 > /tmp/demo.stat 2>&1 &
STATPID=$!
wait_line /tmp/demo.stat "^devmemstat: watching" || fail "devmemstat: $(cat /tmp/demo.stat)"
head -n 1 /tmp/demo.stat

step "ncdevmem: $SETUP"
: > /tmp/demo.log
"$BIN" -l -f "$IF" -s 192.0.2.1 -p $PORT -v 7 --sha256 --stats ${MEMARGS:-} \
	> /tmp/demo.out 2> /tmp/demo.log &
RX=$!
wait_line /tmp/demo.log "^listening" || fail "ncdevmem: $(cat /tmp/demo.log)"
grep "^bound\|^io_uring zero-copy" /tmp/demo.log
"$BIN" -f "$IF" --show-queues | sed 's/^/  /'

step "streaming $MIB MiB with socat (stock sender)"
ip netns exec $NS socat -u FILE:/tmp/demo.data TCP:192.0.2.1:$PORT ||
	{ kill $RX; fail "sender failed"; }
wait $RX
RC=$?

step "after exit: the binding is gone and queue $Q is back on host memory"
# a binding lives while a page pool uses it (netlink page-pool-get)
live_bindings() { "$BIN" --pools | grep -o 'dmabuf [1-9][0-9]*' | sort -u | wc -l; }
for i in $(seq 50); do
	[ "$(live_bindings)" = 0 ] && break
	sleep 0.1
done
"$BIN" -f "$IF" --show-queues | sed 's/^/  /'
echo "live bindings (page pools with a dmabuf): $(live_bindings)"

step "devmemstat, every 5 s while it ran, and its summary"
kill -INT $STATPID
wait $STATPID || fail "devmemstat failed: $(cat /tmp/demo.stat)"
sed 1d /tmp/demo.stat | sed 's/^/  /'

step "report"
cat /tmp/demo.out
GOT=$(sed -n 's/^sha256 //p' /tmp/demo.out)
TOTAL=$((MIB << 20))
DEV=$(sed -n 's/^received [0-9]* bytes: \([0-9]*\) in device memory.*/\1/p' /tmp/demo.out)
LIN=$(sed -n 's/.* frags), \([0-9]*\) linear.*/\1/p' /tmp/demo.out)
if [ "$RXMODE" = zcrx ]; then
	# no binding, no token: the kernel's account is the ring's fdinfo
	# (ncdevmem's "stats: kernel:"), and the queue's io-uring nest must
	# be gone
	KCOPY=$(sed -n 's/^stats: kernel: .* \([0-9]*\) payload bytes copied.*/\1/p' /tmp/demo.out)
	KOUT=0
	KUSE=$("$BIN" -f "$IF" --show-queues | grep -c "io_uring zero-copy")
	echo "payload bytes in the area:      $DEV of $TOTAL"
	echo "payload bytes the CPU copied:   ${KCOPY:-?} (the kernel's count, the ring's fdinfo)"
	echo "queues still on io_uring after exit: $KUSE"
	sed -n 's/^stats: io_uring_enter/io_uring_enter/p' /tmp/demo.out
else
	# the kernel's own account (its devmem tracepoints, read by devmemstat)
	KCOPY=$(sed -n 's/^summary: .* \([0-9]*\) payload bytes copied by the CPU.*/\1/p' /tmp/demo.stat)
	KOUT=$(sed -n 's/^summary: .* \([0-9]*\) tokens outstanding.*/\1/p' /tmp/demo.stat)
	KUSE=$(sed -n 's/^summary: binding [0-9]*: .* releases, \([0-9]*\) in use$/\1/p' /tmp/demo.stat | sort -u)
	echo "payload bytes in device memory: $DEV of $TOTAL"
	echo "payload bytes the CPU copied:   $LIN (ncdevmem's cmsgs), ${KCOPY:-?} (the kernel's tracepoints, devmemstat)"
	echo "tokens outstanding after exit:  ${KOUT:-?}; binding net_iovs in use after unbind: ${KUSE:-?}"
fi
if [ "$MEM" = p2p ]; then
	echo 0 > $TRACE/events/devmem/devmem_niov_alloc/enable
	sed -n 's/.*devmem_niov_alloc:.* dma=\(0x[0-9a-f]*\).*/\1/p' $TRACE/trace > /tmp/demo.dma
	NDMA=$(wc -l < /tmp/demo.dma)
	OUTSIDE=$(while read -r a; do
		[ $((a)) -ge $((BAR_START)) ] && [ $((a)) -le $((BAR_END)) ] || echo "$a"
	done < /tmp/demo.dma | wc -l)
	echo "where the payload went:         BAR 2 of $P2P ($BAR_START..$BAR_END): $NDMA net_iov DMA addresses handed to $IF (devmem_niov_alloc), $OUTSIDE outside the BAR"
fi
echo "$NIC queue $Q counters:"
ethtool -S "$IF" | grep -E "$COUNTERS" | sed 's/^ */  /'

[ $RC = 0 ] || fail "ncdevmem exited $RC"
[ "$GOT" = "$WANT" ] || fail "sha256 mismatch: received $GOT"
[ "$DEV" = "$TOTAL" ] || fail "only $DEV of $TOTAL bytes in device memory"
[ "$LIN" = 0 ] || fail "$LIN payload bytes were copied by the CPU"
[ "$KCOPY" = 0 ] || fail "devmemstat: ${KCOPY:-no} payload bytes copied by the CPU"
[ "$KOUT" = 0 ] || fail "devmemstat: ${KOUT:-no count of} tokens outstanding"
[ "$KUSE" = 0 ] || fail "devmemstat: binding net_iovs in use after unbind: ${KUSE:-none seen}"
grep -q ": 0 errors" /tmp/demo.out || fail "validation errors"
if [ "$MEM" = p2p ]; then
	[ "$NDMA" -gt 0 ] || fail "no net_iov DMA address seen"
	[ "$OUTSIDE" = 0 ] || fail "$OUTSIDE net_iov DMA addresses outside the BAR"
fi
[ "$(live_bindings)" = 0 ] || fail "binding left behind"
WHERE="device memory"
[ "$MEM" = p2p ] && WHERE="PCI BAR memory behind a PCIe switch (peer to peer, not host DRAM)"
printf '\nDEMO PASSED: %d MiB received into %s, every byte validated, sha256 matches, CPU copied 0 payload bytes\n' "$MIB" "$WHERE"
