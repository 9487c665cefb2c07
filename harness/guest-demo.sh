#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM: the devmem TCP demo. A stock sender (socat) in a
# network namespace streams into ncdevmem on an hdsim port whose RX queue
# is bound to a udmabuf; every byte is validated from the dmabuf.
# DEMO_NIC=e1000e: the same on the VM's e1000e pair, a real driver on
# QEMU's 82574L model (one Rx queue, bound whole, no steering).
# usage: guest-demo.sh <kselftest dir> <MiB>
KST=$1
MIB=${2:-256}
BIN=$KST/drivers/net/devmem/ncdevmem
NS=demo-peer
ID=7
PORT=5201
NIC=${DEMO_NIC:-hdsim}
export PATH=$PATH:/usr/sbin:/sbin
. "$KST/drivers/net/lib/hdsim_env.sh"
. "$KST/drivers/net/lib/e1000e_env.sh"

step() { printf '\n--- %s\n' "$*"; }
fail() { printf '\nDEMO FAILED: %s\n' "$*"; exit 1; }

debugfs_mounted
[ -x "$BIN" ] || fail "no ncdevmem in $KST"

if [ "$NIC" = e1000e ]; then
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
echo "receiver: $IF (192.0.2.1)   sender: $PEER in netns $NS (192.0.2.2)"

step "sender data: $MIB MiB of upstream's validation pattern (1..6, \\n)"
yes "$(printf '\001\002\003\004\005\006')" | head -c $((MIB << 20)) > /tmp/demo.data
WANT=$(sha256sum < /tmp/demo.data | cut -d' ' -f1)
echo "sender sha256 $WANT"

step "ncdevmem: $SETUP"
: > /tmp/demo.log
"$BIN" -l -f "$IF" -s 192.0.2.1 -p $PORT -v 7 --sha256 --stats \
	> /tmp/demo.out 2> /tmp/demo.log &
RX=$!
wait_line /tmp/demo.log "^listening" || fail "ncdevmem: $(cat /tmp/demo.log)"
grep "^bound" /tmp/demo.log
"$BIN" -f "$IF" --show-queues | sed 's/^/  /'

step "streaming $MIB MiB with socat (stock sender)"
ip netns exec $NS socat -u FILE:/tmp/demo.data TCP:192.0.2.1:$PORT ||
	{ kill $RX; fail "sender failed"; }
wait $RX
RC=$?

step "report"
cat /tmp/demo.out
GOT=$(sed -n 's/^sha256 //p' /tmp/demo.out)
TOTAL=$((MIB << 20))
DEV=$(sed -n 's/^received [0-9]* bytes: \([0-9]*\) in device memory.*/\1/p' /tmp/demo.out)
LIN=$(sed -n 's/.* frags), \([0-9]*\) linear.*/\1/p' /tmp/demo.out)
# the kernel's own count (devmem tracepoints summed in debugfs devmem/tcp_rx), not the tool's
KCOPY=$(sed -n 's/.* \([0-9]*\) payload bytes copied by the CPU.*/\1/p' /tmp/demo.out)
echo "payload bytes in device memory: $DEV of $TOTAL"
echo "payload bytes the CPU copied:   $LIN (cmsgs), ${KCOPY:-?} (kernel counter devmem/tcp_rx); the rest never touched host memory"
echo "$NIC queue $Q counters:"
ethtool -S "$IF" | grep -E "$COUNTERS" | sed 's/^ */  /'

step "after exit: the binding is gone and queue $Q is back on host memory"
# a binding lives while a page pool uses it (netlink page-pool-get)
live_bindings() { "$BIN" --pools | grep -o 'dmabuf [1-9][0-9]*' | sort -u | wc -l; }
for i in $(seq 50); do
	[ "$(live_bindings)" = 0 ] && break
	sleep 0.1
done
"$BIN" -f "$IF" --show-queues | sed 's/^/  /'
echo "live bindings (page pools with a dmabuf): $(live_bindings)"

[ $RC = 0 ] || fail "ncdevmem exited $RC"
[ "$GOT" = "$WANT" ] || fail "sha256 mismatch: received $GOT"
[ "$DEV" = "$TOTAL" ] || fail "only $DEV of $TOTAL bytes in device memory"
[ "$LIN" = 0 ] || fail "$LIN payload bytes were copied by the CPU"
[ "$KCOPY" = 0 ] || fail "kernel counter: ${KCOPY:-no} payload bytes copied by the CPU"
grep -q ": 0 errors" /tmp/demo.out || fail "validation errors"
[ "$(live_bindings)" = 0 ] || fail "binding left behind"
printf '\nDEMO PASSED: %d MiB received into device memory, every byte validated, sha256 matches, CPU copied 0 payload bytes\n' "$MIB"
