#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# samples/devmem/devmem_rx, the minimal receiver, on an hdsim port set up
# by hand the way its comment says: a stock sender's stream must come out
# of the sample byte for byte, all of it through device memory, and the
# binding must be gone when the sample exits.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh
. ../lib/hdsim_env.sh
. ./devmem_env.sh

ID=23
PORT=5210
QUEUE=3
TMP=$(mktemp -d)
trap 'hdsim_cleanup; rm -rf "$TMP"' EXIT

ktap_plan 3
if [ ! -x ./devmem_rx ]; then
	for i in 1 2 3; do ktap_skip "sample $i" "devmem_rx not built"; done
	ktap_finish
fi
if [ ! -d /sys/bus/hdsim ] || [ ! -e /dev/udmabuf ]; then
	for i in 1 2 3; do ktap_skip "sample $i" "no hdsim or udmabuf"; done
	ktap_finish
fi
debugfs_mounted
hdsim_pair "$ID" "devmem-sample-$ID" 192.0.2 2001:db8:5 || {
	ktap_fail "hdsim pair"
	ktap_finish
}

./ncdevmem -f "$IF" --hds on
ethtool -K "$IF" ntuple on
ethtool -N "$IF" flow-type tcp4 dst-port $PORT action $QUEUE >/dev/null
ethtool -X "$IF" equal $QUEUE

head -c $((8 << 20)) /dev/urandom > "$TMP/send"
./devmem_rx -i "$IF" -q $QUEUE -p $PORT > "$TMP/recv" 2> "$TMP/log" &
pid=$!
if wait_line "$TMP/log" "^listening"; then
	ip netns exec "$HDSIM_NS" socat -u "FILE:$TMP/send" "TCP:192.0.2.1:$PORT"
else
	kill $pid
fi
wait $pid
rc=$?

if [ $rc = 0 ] && cmp -s "$TMP/send" "$TMP/recv"; then
	ktap_pass "8 MiB from socat through the sample: identical"
else
	ktap_fail "sample stream" "exit $rc, $(cat "$TMP/log")"
fi
ktap_check "all of it landed in device memory" \
	grep -q "^received 8388608 bytes: 8388608 in device memory" "$TMP/log"
ktap_check "binding gone after the sample exits" wait_no_bindings
ktap_finish
