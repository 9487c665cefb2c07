#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Devmem TX on a real driver: e1000e on QEMU's 82574L model, whose DMA
# engine fetches the payload from the udmabuf through the addresses the
# TX binding mapped (behind the IOMMU in make check's IOMMU run). The
# same cases as devmem_tx.sh (tx_env.sh) with the port's offloads on
# and off: with TSO the model cuts the frame itself, without it the
# stack segments (GSO) skbs whose payload it must not touch. Every
# stream checked by sha256, no send copied by the kernel, no dmabuf
# left after each case; last, PCI hot-remove of the sending port.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/hdsim_env.sh
. ../lib/e1000e_env.sh
. ./devmem_env.sh
. ./tx_env.sh

PORT=5302
PATTERN=$(printf '\001\002\003\004\005\006')
TMP=$(mktemp -d)
trap 'e1000e_cleanup; rm -rf "$TMP"' EXIT

PLAN=9
ktap_plan $PLAN
if ! e1000e_pair devmem-e1k-tx 203.0.113 2001:db8:e2 || [ ! -e /dev/udmabuf ]; then
	for i in $(seq $PLAN); do
		ktap_skip "e1000e devmem tx $i" "${E1000E_WHY:-no udmabuf}"
	done
	ktap_finish
fi
NS=$E1000E_NS
debugfs_mounted
e1000e_wait_link
head -c $((4 << 20)) /dev/urandom > "$TMP/random"

# the 82574L counts no device-memory bytes: the proof is the receiver's
# sha256 of a payload that only the udmabuf held, with 0 copies
tx_fetched()
{
	:
}

BDF=$(e1000e_bdf "$IF")
tx_delete()
{
	echo 1 > /sys/bus/pci/devices/"$BDF"/remove
}

ktap_check "ipv4: 4 MiB to socat, TSO by the device" \
	tx_case v4 203.0.113.2 "$TMP/random"
stream_check "ipv6: 4 MiB to socat, TSO by the device" \
	tx_case v6 2001:db8:e2::2 "$TMP/random"
ethtool -K "$IF" tso off > /dev/null
ktap_check "ipv4: 4 MiB to socat, segmented by the stack (GSO)" \
	tx_case v4 203.0.113.2 "$TMP/random"
seq 1 20000 > "$TMP/lines"
stream_check "chunked: 3-byte iovecs (-z 3)" \
	tx_case v4 203.0.113.2 "$TMP/lines" -z 3
ethtool -K "$IF" tso on > /dev/null
LONG_MIB=${DEVMEM_TX_LONG_MIB:-1024}
ktap_check "$LONG_MIB MiB streamed through a 1 MiB dmabuf, sha256" \
	stream_case 203.0.113.2 "$LONG_MIB"

# device memory to device memory over the two ports, both ways; the
# receiving port needs header split and whole TCP segments (the model's
# TSO sends IP fragments, see e1000e_env.sh): the senders segment
yes "$PATTERN" | head -c $((8 << 20)) > "$TMP/stream8"
d2d_e1000e()
{
	ethtool -K "$IF" tso off > /dev/null
	./ncdevmem -f "$IF" --hds on > /dev/null &&
	ip netns exec "$NS" ./ncdevmem -f "$PEER" --hds on > /dev/null &&
	e1000e_wait_link &&
	d2d "" "$IF" "ip netns exec $NS" "$PEER" 203.0.113.2 &&
	d2d "ip netns exec $NS" "$PEER" "" "$IF" 203.0.113.1
}
ktap_check "device memory to device memory, both ways, 8 MiB each" d2d_e1000e
ethtool -K "$IF" tso on > /dev/null

ktap_check "SIGKILL mid-send: binding and dmabuf released" \
	in_flight kill 203.0.113.2
# and, with DMA API debugging, no mapping left for the removed function
# and no unmap against it later
tx_hot_remove()
{
	local dma_errors

	dma_errors=$(dma_api_errors)
	in_flight delete 203.0.113.2 || return 1
	dma_api_clean "$dma_errors"
}
ktap_check "PCI hot-remove mid-send: binding and dmabuf released" \
	tx_hot_remove
# port_back: the removed port has a netdev again after a rescan (5 s)
port_back()
{
	local i

	echo 1 > /sys/bus/pci/rescan
	for i in $(seq 50); do
		ls /sys/bus/pci/devices/"$BDF"/net 2>/dev/null | grep -q . &&
			return 0
		sleep 0.1
	done
	return 1
}
ktap_check "the port is back after a rescan" port_back

ktap_finish
